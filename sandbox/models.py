"""Request/result pairs for the operations every sandbox backend performs."""

from __future__ import annotations

import shlex

from pydantic import BaseModel, Field

DEFAULT_OUTPUT_LIMIT = 1 << 20  # bytes kept of each of stdout and stderr
SCRATCH = "{scratch}"
"""Replaced in a command's argv and env by its own scratch directory (also its HOME and TMPDIR):
fresh and empty when it starts, gone when it ends."""
COLLECT = "{collect}"
"""Replaced by the command's tool-log directory (with `collect`): where a checker the command
runs writes its report; the files come back in `CommandResult.files`."""


class Command(BaseModel):
    """One program run inside a workspace.

    `argv` is executed directly (no shell) with `cwd` relative to the workspace root. Every
    command is a process tree of its own, which ends when its last process does; it may read its
    cwd's top-level directory and those in `reads`, write those in `writes` and its scratch
    directory, and nothing else of the workspace (see each backend for how strictly).
    """

    argv: list[str]
    cwd: str = "."
    env: dict[str, str] = Field(default_factory=dict)
    stdin: str = ""
    timeout_s: float = 60.0
    output_limit: int = DEFAULT_OUTPUT_LIMIT
    reads: list[str] = Field(default_factory=list)
    """Top-level workspace directories the command may read besides its cwd's."""
    writes: list[str] = Field(default_factory=list)
    """Top-level workspace directories the command may create and change files in (a build's
    output directory); read-only again once it has ended."""
    collect: bool = False
    """Give the command a tool-log directory (`COLLECT`) and return what is written there."""
    cpus: int | None = Field(default=None, ge=1)
    """Pin the command to this many CPUs (capped at the sandbox's): a timed run at n threads or
    ranks gets n cores, so "1 thread" is one core whatever the program does."""

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
    out_of_memory: bool = False
    """True when the sandbox's memory limit killed a process of the command (its tree's own
    count: an `mpirun` whose rank was killed exits with 137, not by the signal itself)."""
    cpu_s: float | None = None
    """CPU time (user + system) of the command's whole process tree; None when the backend
    cannot tell."""
    threads: int | None = None
    """The most threads the tree was seen running at once (sampled); None when unknown."""
    host_busy_s: float | None = None
    """CPU time the whole host spent busy while the command ran (its own included); with
    `cpu_s`, how much other load ran beside it. None when unknown."""
    files: dict[str, str] = Field(default_factory=dict)
    """What the command's tools wrote into its tool-log directory (`Command.collect`)."""
    sandbox_killed: bool = False
    """The sandbox's watchdog took the workspace's container with this command (at its own
    time-out, when the sandbox did not stop it, or at another's): nothing more runs there."""
    ended_with: str | None = None
    """Set when the command did not run to an end of its own: it ended with another command
    of its workspace (the watchdog took the container at that command's time-out), and says
    so. Such a result is `timed_out` and `sandbox_killed`, the other command's time-out."""

    @property
    def foreign_cpu_s(self) -> float | None:
        """CPU time the host spent on other work during this run (None when unknown)."""
        if self.cpu_s is None or self.host_busy_s is None:
            return None
        return max(0.0, self.host_busy_s - self.cpu_s)

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
