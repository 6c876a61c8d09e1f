"""The sandbox interface: backends (docker.py, local.py) implement these two protocols.

A `Sandbox` hands out `Workspace`s: private, initially empty directories in which one job
writes its files and runs its commands. Leaving the `workspace()` context wipes it. A
workspace's `run` may be awaited concurrently (the race checker runs several schedules at once).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from typing import Protocol, runtime_checkable

from sandbox.models import DEFAULT_OUTPUT_LIMIT, Command, CommandResult, SandboxInfo


@runtime_checkable
class Workspace(Protocol):
    """A job's private directory tree, with commands run inside it."""

    async def write_files(self, files: Mapping[str, str | bytes]) -> None:
        """Create (or overwrite) files at paths relative to the workspace root."""
        ...

    async def read_file(self, path: str, limit: int = DEFAULT_OUTPUT_LIMIT) -> bytes:
        """Return at most `limit` bytes of a file the job wrote."""
        ...

    async def run(self, command: Command) -> CommandResult:
        """Run a program to completion, time-out or output limit; never raises for its failure."""
        ...


@runtime_checkable
class Sandbox(Protocol):
    """A backend that provides isolated workspaces."""

    def info(self) -> SandboxInfo:
        """What the backend offers (name, isolation level, GPU)."""
        ...

    def workspace(self) -> AbstractAsyncContextManager[Workspace]:
        """Lease a clean workspace for one job; it is wiped when the context exits."""
        ...

    async def aclose(self) -> None:
        """Release every resource the backend holds (containers, temp dirs)."""
        ...
