"""What runs candidate code: the backends, apart from what judges it (`sandbox.verify`).

- `docker`: hardened containers from the sandbox image, kept warm in a pool (`container`: one
  container's spec and life; `channel`: the host side of the supervisor each runs as PID 1;
  `engine`: the Docker SDK client and its TLS rules; `image` and `images/`: the sandbox image);
- `local`: plain subprocesses with rlimits (and bubblewrap when present): weaker isolation.

Verifications spread over a Ray cluster are a verifier, not a backend (`sandbox.verify.cluster`):
each host of the cluster runs them in its own Docker backend.
"""

from __future__ import annotations

from typing import overload

from sandbox.backends.docker import DockerSandbox
from sandbox.backends.local import LocalSandbox
from sandbox.config import DockerConfig, LocalConfig


@overload
def open_sandbox(config: DockerConfig) -> DockerSandbox: ...
@overload
def open_sandbox(config: LocalConfig) -> LocalSandbox: ...
@overload
def open_sandbox(
    config: DockerConfig | LocalConfig,
) -> DockerSandbox | LocalSandbox: ...


def open_sandbox(
    config: DockerConfig | LocalConfig,
) -> DockerSandbox | LocalSandbox:
    """The sandbox a backend config describes (containers start on the first job)."""
    if isinstance(config, DockerConfig):
        return DockerSandbox(config)
    return LocalSandbox(config)


__all__ = ["DockerSandbox", "LocalSandbox", "open_sandbox"]
