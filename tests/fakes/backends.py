"""The real sandbox backends with small limits, and a look at the host's processes, for the
backend tests (nothing here is faked)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from sandbox.backends import open_sandbox
from sandbox.base import Sandbox
from sandbox.config import DockerConfig, LocalConfig

BACKENDS = ["docker", "local"]

# Small limits, so that the hostile programs hit them quickly (and a fork or memory bomb stays
# far from what the shared host can bear).
DOCKER_TEST_CONFIG = DockerConfig(
    pool_size=1, cpus=1.0, memory_mb=768, pids_limit=256, workdir_mb=256, tmp_mb=64
)
LOCAL_TEST_CONFIG = LocalConfig(max_concurrency=2, memory_mb=512, file_size_mb=64, bubblewrap="on")


def make_sandbox(backend: str, **overrides: object) -> Sandbox:
    """A sandbox of the named backend with the test limits, optionally overridden."""
    if backend == "docker":
        return open_sandbox(DOCKER_TEST_CONFIG.model_copy(update=overrides))
    return open_sandbox(LOCAL_TEST_CONFIG.model_copy(update=overrides))


def backend_of(sandbox: Sandbox) -> str:
    return sandbox.info().backend


def host_processes_with(marker: str) -> list[int]:
    """Host pids whose command line contains `marker` (sandboxed processes are host processes)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry.name))
    return found


async def wait_until_gone(marker: str, seconds: float = 5.0) -> list[int]:
    """Poll until no host process carries `marker`; return the survivors, if any."""
    for _ in range(int(seconds * 10)):
        if not host_processes_with(marker):
            return []
        await asyncio.sleep(0.1)
    return host_processes_with(marker)
