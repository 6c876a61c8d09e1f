"""Pure decisions of the verify pipeline: what a run's result means, which failure wins."""

from __future__ import annotations

import re

from sandbox.checkers.compare import compare_outputs
from sandbox.models import CommandResult
from sandbox.spec import Target, Tolerance
from sandbox.verdict import Finding, Status, TestOutcome
from sandbox.verify.steps import signal_name

# Which failure a verdict names when several runs fail differently: the concurrency defect
# first (it explains the others), then the most drastic.
_SEVERITY = [Status.DEADLOCK, Status.TIMED_OUT, Status.CRASHED, Status.WRONG_ANSWER]
_UNIT = {Target.OPENMP: "threads", Target.MPI: "ranks"}


def tail(text: str, lines: int = 3, chars: int = 300) -> str:
    """The last few non-empty lines of some output, on one line."""
    kept = [line.strip() for line in text.strip().splitlines() if line.strip()][-lines:]
    joined = " | ".join(kept)
    return joined[-chars:]


def missing_tool(result: CommandResult) -> str | None:
    """The program a command could not start (exit 127, "not found"), if that is what happened.

    No compiler exits 127 by itself; the shell convention (and the sandboxes) use it for a
    program that is not there, which is the sandbox's problem, not the candidate's.
    """
    if result.exit_code != 127:
        return None
    m = re.search(
        r"(?:cannot execute|exec:?) ?\"?([\w.+/-]+)\"?|([\w.+/-]+): (?:command )?not found",
        result.stderr,
    )
    if m is None:
        return "a required program"
    return (m.group(1) or m.group(2)).rsplit("/", 1)[-1]


def describe_exit(result: CommandResult, hidden: bool = False) -> str:
    """How a failed run ended; on a `hidden` input without its output (which could show the
    input), but still saying when the sandbox's memory limit ended it: that is the sandbox's
    observation, and the difference between a crash and a program too big for the sandbox."""
    if result.timed_out:
        return _no_end(result)
    if result.output_truncated:
        return "output went past the limit"
    how = signal_name(result.exit_code)
    if result.out_of_memory:
        how += ", killed at the sandbox's memory limit"
    if hidden:
        return how
    last = tail(result.stderr)
    return how + (f": {last}" if last else "")


def _no_end(result: CommandResult) -> str:
    """How a run that timed out ended: at its own time-out, or with another's."""
    if result.ended_with is not None:
        return f"no end of its own: {result.ended_with}"
    return f"no end within {result.duration_s:.0f}s"


HIDDEN_MISMATCH = "its output differs from the reference's on a hidden input (not shown)"


def classify(
    result: CommandResult,
    expected: str,
    tolerance: Tolerance | None,
    target: Target,
    tool_timed_out: bool = False,
    hidden: bool = False,
) -> tuple[Status | None, str]:
    """(None, "") for a correct run; else the failing status and why. On a `hidden` input the
    reason says how the run failed but shows neither the input nor any output."""
    if result.timed_out or tool_timed_out:
        status = Status.DEADLOCK if target is Target.MPI else Status.TIMED_OUT
        what = "hung (deadlock)" if target is Target.MPI else "timed out"
        return status, f"{what}: {_no_end(result)}"
    if result.output_truncated:
        return Status.WRONG_ANSWER, "output went past the limit"
    if result.exit_code != 0:
        return Status.CRASHED, describe_exit(result, hidden)
    comparison = compare_outputs(expected, result.stdout, tolerance)
    if not comparison.ok:
        return Status.WRONG_ANSWER, HIDDEN_MISMATCH if hidden else comparison.reason
    return None, ""


def first_failure(
    outcomes: list[TestOutcome], statuses: list[Status | None], target: Target
) -> tuple[Status, str]:
    """The status and reason a failed equivalence stage gives the verdict."""
    failing = [(s, o) for s, o in zip(statuses, outcomes, strict=True) if s is not None]
    status, outcome = min(failing, key=lambda p: _SEVERITY.index(p[0]))
    unit = _UNIT.get(target)
    where = f"test {outcome.test!r}" + (f" at {outcome.workers} {unit}" if unit else "")
    reason = f"{where}: {outcome.reason}"
    if status is Status.WRONG_ANSWER and unit:
        same = [o for o in outcomes if o.test == outcome.test]
        right = sorted(o.workers for o in same if o.ok)
        if right:
            counts = ", ".join(map(str, right))
            reason += f"; the answer depends on the {unit[:-1]} count (right at {counts})"
    return status, reason


def deadlock_findings(outcomes: list[TestOutcome], statuses: list[Status | None]) -> list[Finding]:
    """One `deadlock` finding per rank count at which an MPI run hung."""
    found: dict[int, Finding] = {}
    for status, outcome in zip(statuses, outcomes, strict=True):
        if status is Status.DEADLOCK and outcome.workers not in found:
            found[outcome.workers] = Finding(
                kind="deadlock",
                tool="mpirun",
                message=f"test {outcome.test!r} at {outcome.workers} ranks {outcome.reason}",
                workers=outcome.workers,
            )
    return list(found.values())


NOT_PARALLEL_KIND = "not parallel"
"""A program whose parallel regions never ran with more than one thread under the checker."""
CHECKED_DIFFERENTLY_KIND = "behaves differently when checked"
"""A program whose instrumented runs crash or answer wrongly where its plain runs did not."""

_FAILING_KINDS_STATUS = {
    NOT_PARALLEL_KIND: Status.NOT_PARALLEL,
    CHECKED_DIFFERENTLY_KIND: Status.WRONG_ANSWER,
    "memcheck error": Status.SANITIZER_ERROR,
    "racecheck error": Status.RACE,
    "synccheck error": Status.SANITIZER_ERROR,
    "hang": Status.DEADLOCK,
    "checker interference": Status.SANITIZER_ERROR,
    "deadlock": Status.DEADLOCK,
}


def concurrency_failure(findings: list[Finding]) -> tuple[Status, str]:
    """The status for a concurrency report with findings: race, deadlock or sanitizer error."""
    statuses = [_FAILING_KINDS_STATUS.get(f.kind, Status.RACE) for f in findings]
    if "checker interference" in (f.kind for f in findings):
        # Interference voids the rest: the other findings came from silenced checkers.
        return Status.SANITIZER_ERROR, next(
            f.message for f in findings if f.kind == "checker interference"
        )
    for wanted in (
        Status.RACE,
        Status.DEADLOCK,
        Status.SANITIZER_ERROR,
        Status.WRONG_ANSWER,
        Status.NOT_PARALLEL,
    ):
        if wanted in statuses:
            first = findings[statuses.index(wanted)]
            more = f" (+{len(findings) - 1} more)" if len(findings) > 1 else ""
            return wanted, f"{first.message}{more}"
    return Status.RACE, findings[0].message
