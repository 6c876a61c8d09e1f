"""Request/result pairs for the operations every sandbox backend performs."""

from __future__ import annotations

import shlex

from pydantic import BaseModel, Field

DEFAULT_OUTPUT_LIMIT = 1 << 20  # bytes kept of each of stdout and stderr


class Command(BaseModel):
    """One program run inside a workspace.

    `argv` is executed directly (no shell) with `cwd` relative to the workspace root.
    """

    argv: list[str]
    cwd: str = "."
    env: dict[str, str] = Field(default_factory=dict)
    stdin: str = ""
    timeout_s: float = 60.0
    output_limit: int = DEFAULT_OUTPUT_LIMIT

    def display(self) -> str:
        """The command as a copy-pasteable shell line (environment included)."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(self.env.items()))
        line = f"{env} {shlex.join(self.argv)}" if env else shlex.join(self.argv)
        if self.cwd not in ("", "."):
            line = f"cd {shlex.quote(self.cwd)} && {line}"
        return line


class CommandResult(BaseModel):
    """What a program did. A crash, a time-out or a flood of output is data, not an error."""

    exit_code: int | None
    """Process exit status; negative for death by signal (-9 = SIGKILL); None if never started."""
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    timed_out: bool = False
    output_truncated: bool = False
    """True when stdout or stderr went past `Command.output_limit` and the rest was dropped."""

    @property
    def ok(self) -> bool:
        """Exited by itself with status 0, within its time and output limits."""
        return self.exit_code == 0 and not self.timed_out and not self.output_truncated


class SandboxInfo(BaseModel):
    """What a backend offers, reported to verdicts and to `parforge sandbox info`."""

    backend: str
    isolation: str
    gpu: bool = False
    image: str | None = None
    cpus: float | None = None
    """CPUs a job can use at once (a container's CPU limit); None when unknown."""
    node: str | None = None
    """The cluster node that ran the job (the Ray backend); None on a single host."""
