"""A scripted sandbox for verify's unit tests: workspaces whose commands answer from a
script."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager

from sandbox.errors import WorkspaceError
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
        if path not in self.files:
            raise WorkspaceError(f"no such file in the workspace: {path!r}")
        return self.files[path][:limit]

    async def run(self, command: Command) -> CommandResult:
        self.commands.append(command)
        if command.argv == ["pwd"]:
            return CommandResult(exit_code=0, stdout="/ws\n")
        result = self.handler(command)
        if result.ok and command.writes and "-o" in command.argv:
            # A build that succeeds leaves its output (an object, a program) behind.
            output = command.argv[command.argv.index("-o") + 1]
            self.files.setdefault(f"{command.cwd}/{output}", b"")
        return result


class ScriptedSandbox:
    """A `Sandbox` handing out one `ScriptedWorkspace`; `gpu` says what `info()` claims.

    With `per_job`, every lease gets a fresh workspace instead (concurrent jobs do not share
    files) and the handler is called as `handler(command, workspace)`, so that it can answer
    from the files the job wrote; `leases` counts them and `workspaces` keeps them."""

    def __init__(
        self, handler: Callable[..., CommandResult], gpu: bool = False, per_job: bool = False
    ) -> None:
        self.handler = handler
        self.workspace_ = ScriptedWorkspace(handler)
        self.gpu = gpu
        self.per_job = per_job
        self.workspaces: list[ScriptedWorkspace] = []

    def info(self) -> SandboxInfo:
        return SandboxInfo(backend="scripted", isolation="none", gpu=self.gpu)

    @asynccontextmanager
    async def workspace(self) -> AsyncIterator[ScriptedWorkspace]:
        if not self.per_job:
            yield self.workspace_
            return
        ws = ScriptedWorkspace(lambda command: self.handler(command, ws))
        self.workspaces.append(ws)
        yield ws

    async def aclose(self) -> None:
        """Nothing to release."""
