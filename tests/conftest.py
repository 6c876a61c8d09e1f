"""Shared fixtures. Fakes for fast unit tests live here (and only here); integration tests use
the real Docker engine, vLLM server and databases that `scripts/test` starts."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager

from sandbox.models import Command, CommandResult, SandboxInfo


class ScriptedWorkspace:
    """A `Workspace` whose commands answer from a script: `handler(command) -> CommandResult`."""

    def __init__(self, handler: Callable[[Command], CommandResult]) -> None:
        self.handler = handler
        self.files: dict[str, bytes] = {}
        self.commands: list[Command] = []

    async def write_files(self, files: Mapping[str, str | bytes]) -> None:
        for name, content in files.items():
            self.files[name] = content.encode() if isinstance(content, str) else content

    async def read_file(self, path: str, limit: int = 1 << 20) -> bytes:
        return self.files[path][:limit]

    async def run(self, command: Command) -> CommandResult:
        self.commands.append(command)
        if command.argv == ["pwd"]:
            return CommandResult(exit_code=0, stdout="/ws\n")
        return self.handler(command)


class ScriptedSandbox:
    """A `Sandbox` handing out one `ScriptedWorkspace`; `gpu` says what `info()` claims."""

    def __init__(self, handler: Callable[[Command], CommandResult], gpu: bool = False) -> None:
        self.workspace_ = ScriptedWorkspace(handler)
        self.gpu = gpu

    def info(self) -> SandboxInfo:
        return SandboxInfo(backend="scripted", isolation="none", gpu=self.gpu)

    @asynccontextmanager
    async def workspace(self) -> AsyncIterator[ScriptedWorkspace]:
        yield self.workspace_

    async def aclose(self) -> None:
        """Nothing to release."""
