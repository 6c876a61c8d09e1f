"""What runs candidate code: the backends, apart from what judges it (`sandbox.verify`).

- `docker`: hardened containers from the sandbox image, kept warm in a pool (`container`: one
  container's spec and life; `channel`: the host side of the agent each runs as PID 1;
  `engine`: the Docker SDK client and its TLS rules; `image` and `images/`: the sandbox image);
- `local`: plain subprocesses with rlimits (and bubblewrap when present): weaker isolation;
- `ray`: whole verifications as Ray tasks on the sandbox hosts of a cluster (`cluster`: the
  driver's side; `ray_node`: each host's sandbox actor). Ray is imported only when it is used.
"""

from __future__ import annotations

from typing import overload

from sandbox.backends.cluster import RaySandbox
from sandbox.backends.docker import DockerSandbox
from sandbox.backends.local import LocalSandbox
from sandbox.config import DockerConfig, LocalConfig, RayConfig


@overload
def open_sandbox(config: DockerConfig) -> DockerSandbox: ...
@overload
def open_sandbox(config: LocalConfig) -> LocalSandbox: ...
@overload
def open_sandbox(config: RayConfig) -> RaySandbox: ...
@overload
def open_sandbox(
    config: DockerConfig | LocalConfig | RayConfig,
) -> DockerSandbox | LocalSandbox | RaySandbox: ...


def open_sandbox(
    config: DockerConfig | LocalConfig | RayConfig,
) -> DockerSandbox | LocalSandbox | RaySandbox:
    """The sandbox a backend config describes (containers start, or the cluster is joined, on
    the first job)."""
    if isinstance(config, DockerConfig):
        return DockerSandbox(config)
    if isinstance(config, RayConfig):
        return RaySandbox(config)
    return LocalSandbox(config)


__all__ = ["DockerSandbox", "LocalSandbox", "RaySandbox", "open_sandbox"]
