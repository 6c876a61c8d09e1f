"""Running commands in a workspace while keeping a record of each one (`StepRecord`)."""

from __future__ import annotations

import signal
import statistics
from contextlib import AbstractAsyncContextManager, nullcontext

from sandbox.base import Workspace
from sandbox.models import Command, CommandResult
from sandbox.verdict import StepRecord
from sandbox.verify.gate import TimingGate

STEP_OUTPUT_CHARS = 4000
"""Characters of stdout and of stderr kept in a step record (head and tail)."""
_HEAD = 1000
TIME_MARKER = "PARFORGE_TIME_S="


def cap(text: str, limit: int = STEP_OUTPUT_CHARS) -> str:
    """`text` if short, else its head and tail around a note of what was cut."""
    if len(text) <= limit:
        return text
    tail = limit - _HEAD
    cut = len(text) - limit
    return f"{text[:_HEAD]}\n[... {cut} characters cut ...]\n{text[-tail:]}"


HIDDEN_COMMAND = "(a hidden input: its arguments and stdin are not shown)"
HIDDEN_OUTPUT = "[not kept: a run on a hidden input]"


def step_record(
    name: str, command: Command, result: CommandResult, hidden: bool = False
) -> StepRecord:
    """The record of one command; a run on a hidden input keeps no input and no output."""
    return StepRecord(
        name=name,
        command=HIDDEN_COMMAND if hidden else command.display(),
        exit_code=result.exit_code,
        duration_s=round(result.duration_s, 4),
        stdout=HIDDEN_OUTPUT if hidden else cap(result.stdout),
        stderr=HIDDEN_OUTPUT if hidden else cap(result.stderr),
        timed_out=result.timed_out,
        output_truncated=result.output_truncated,
        cpu_s=None if result.cpu_s is None else round(result.cpu_s, 4),
        threads=result.threads,
    )


class CommandLog:
    """A workspace plus the record of every command run in it so far (through a `TimingGate` if
    given). Not to be confused with the trajectory recorder (`corpus.store.recorder`)."""

    def __init__(self, workspace: Workspace, gate: TimingGate | None = None) -> None:
        self.workspace = workspace
        self.gate = gate
        self.steps: list[StepRecord] = []

    async def run(
        self, name: str, command: Command, *, timed: bool = False, hidden: bool = False
    ) -> CommandResult:
        """Run and record a command; `timed` ones hold the gate alone, `hidden` ones (runs on a
        hidden input) are recorded without their input and output."""
        async with self._hold(timed):
            result = await self.workspace.run(command)
        self.steps.append(step_record(name, command, result, hidden))
        return result

    def _hold(self, timed: bool) -> AbstractAsyncContextManager[None]:
        if self.gate is None:
            return nullcontext()
        return self.gate.exclusive() if timed else self.gate.shared()


def kernel_time(stderr: str) -> float | None:
    """The last `PARFORGE_TIME_S=<seconds>` line a program printed on stderr, if any."""
    found = None
    for line in stderr.splitlines():
        line = line.strip()
        if line.startswith(TIME_MARKER):
            try:
                value = float(line[len(TIME_MARKER) :])
            except ValueError:
                continue
            if value >= 0:
                found = value
    return found


def median(values: list[float]) -> float:
    return float(statistics.median(values)) if values else 0.0


def signal_name(exit_code: int | None) -> str:
    """`exit 3`, `killed by SIGSEGV`, or `did not start`."""
    if exit_code is None:
        return "did not start"
    if exit_code < 0:
        try:
            return f"killed by {signal.Signals(-exit_code).name}"
        except ValueError:
            return f"killed by signal {-exit_code}"
    if exit_code > 128 and exit_code - 128 in {s.value for s in signal.Signals}:
        # Shells and mpirun report a child's death by signal n as 128 + n.
        return f"exit {exit_code} ({signal.Signals(exit_code - 128).name})"
    return f"exit {exit_code}"
