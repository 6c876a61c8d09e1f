"""What to do after a plan (or a repair round) ran: rank the candidates, then finish, repair
the most promising failures, or plan again. Pure functions of the verdicts and the ledger.

A failed candidate counts by how far it got through verification: it did not build, it built
but is not parallel, it ran but answered wrong (or crashed, or hung), it answered right but
has a race. The further it got, the better its evidence and the cheaper its repair.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from agents.core.budget import Ledger
from sandbox.verdict import Diagnostic, Finding, Status, StepRecord, TestOutcome, Verdict

_PROGRESS = {
    Status.REFERENCE_FAILED: 0,
    Status.BUILD_FAILED: 1,
    Status.NOT_PARALLEL: 2,
    Status.NOT_RUN: 2,
    Status.WRONG_ANSWER: 3,
    Status.CRASHED: 3,
    Status.TIMED_OUT: 3,
    Status.DEADLOCK: 3,
    Status.RACE: 4,
    Status.SANITIZER_ERROR: 4,
    Status.PASSED: 6,
}
_CHECKED_OK = 5
"""NOT_RUN after the tests agreed: right answers, only a later check missing."""
_REPAIRABLE = {
    Status.BUILD_FAILED,
    Status.NOT_PARALLEL,
    Status.WRONG_ANSWER,
    Status.CRASHED,
    Status.TIMED_OUT,
    Status.DEADLOCK,
    Status.RACE,
    Status.SANITIZER_ERROR,
}
# A NOT_RUN or REFERENCE_FAILED verdict is about the sandbox or the spec: no repair helps.


@dataclass(frozen=True)
class Observation:
    """A candidate and what verification said of it (None: not verified)."""

    candidate_id: int | str
    source_key: str
    """The normalised code, equal for candidates that differ only in layout."""
    verdict: Verdict | None
    strategy: str


@dataclass(frozen=True)
class Decision:
    """The join's choice, a sentence for the user, and for a repair the candidates to repair."""

    action: Literal["finish", "repair", "replan"]
    reason: str
    repair: list[Observation] = field(default_factory=list)


def progress(verdict: Verdict | None) -> int:
    """How far a candidate got: 0 (nothing known) to 6 (passed)."""
    if verdict is None:
        return 0
    if verdict.status is Status.NOT_RUN and verdict.equivalence and verdict.equivalence.ok:
        return _CHECKED_OK
    return _PROGRESS[verdict.status]


def _race_free(verdict: Verdict | None) -> bool:
    """Whether a race or deadlock checker ran and found nothing."""
    c = verdict.concurrency if verdict else None
    return c is not None and c.ok and not c.findings and c.not_run is None


def rank(observations: Iterable[Observation]) -> list[Observation]:
    """Best first: passed ones (checked race-free first, then by speedup), then failed ones by
    how far they got; the earliest first among equals."""
    ordered = list(enumerate(observations))
    ordered.sort(
        key=lambda item: (
            -progress(item[1].verdict),
            not _race_free(item[1].verdict),
            -(item[1].verdict.speedup if item[1].verdict else 0.0),
            item[0],
        )
    )
    return [obs for _, obs in ordered]


def best(observations: Iterable[Observation]) -> Observation | None:
    """The best passed candidate, None when none passed: the one rule every part of the agent
    (the join, the runners' summaries) uses to name "the best"."""
    ranked = rank(observations)
    if ranked and ranked[0].verdict is not None and ranked[0].verdict.passed:
        return ranked[0]
    return None


def best_of(verdicts: Mapping[int, Verdict]) -> int | None:
    """`best` over verdicts by candidate id (the earliest id among equals)."""
    winner = best(
        Observation(candidate_id=cid, source_key="", verdict=v, strategy="")
        for cid, v in sorted(verdicts.items())
    )
    return None if winner is None else int(winner.candidate_id)


def top_speedup(verdict: Verdict | None) -> float:
    """The speedup at the highest thread or rank count the runs could use (within the cores
    they had, not flagged as beyond them); 0 when not passed or not timed."""
    timing = verdict.timing if verdict is not None and verdict.passed else None
    if timing is None:
        return 0.0
    counts = [
        n
        for n in timing.speedup
        if n not in timing.above_cores and (timing.cores is None or n <= max(1.0, timing.cores))
    ]
    return timing.speedup[max(counts)] if counts else 0.0


def faster(verdict: Verdict | None) -> bool:
    """Whether a passed candidate is faster than the original: at its best plausible count,
    every paired timing run (the lowest paired ratio) beat the original, not only the median."""
    timing = verdict.timing if verdict is not None and verdict.passed else None
    if timing is None or timing.best_workers is None:
        return False
    n = timing.best_workers
    lowest = (timing.spread.get(n) or [timing.speedup[n]])[0]
    return lowest > 1.0


def decide(
    observations: Sequence[Observation], ledger: Ledger, *, repair_width: int = 2
) -> Decision:
    """Finish, repair or replan.

    Finish when a candidate passed, when the budget is spent, or when nothing is left to try;
    repair the (at most `repair_width`) furthest failures with evidence while repair rounds
    remain; plan anew when no candidate built (or none was made) while replans remain.
    """
    winner = best(observations)
    if winner is not None:
        assert winner.verdict is not None
        return Decision(
            "finish", f"Candidate {winner.candidate_id} passed{_speed(winner.verdict)}."
        )
    standing = _standing(observations)
    spent = ledger.exhausted()
    if spent is not None:
        return Decision("finish", f"Stopping: the {spent}, and no candidate passed{standing}.")
    repairable = _distinct(o for o in rank(observations) if _repairable(o.verdict))
    built = any(progress(o.verdict) >= _PROGRESS[Status.NOT_PARALLEL] for o in observations)
    if repairable and ledger.can("repair"):
        chosen = repairable[: max(1, repair_width)]
        which = ", ".join(f"{o.candidate_id} ({_status(o)})" for o in chosen)
        left = ledger.left("repair") - 1
        return Decision(
            "repair",
            f"No candidate passed yet; repairing {_count(len(chosen), 'candidate')}: {which}"
            f" ({_count(left, 'repair round')} left after this).",
            chosen,
        )
    if not built and ledger.can("replan"):
        what = "No candidate built" if observations else "The plan made no candidates"
        left = ledger.left("replan") - 1
        return Decision(
            "replan", f"{what}; planning again ({_count(left, 'replan')} left after this)."
        )
    return Decision(
        "finish", f"No candidate passed and {_nothing_left(repairable, built)}{standing}."
    )


def evidence(verdict: Verdict, max_chars: int = 2000) -> str:
    """What a repair prompt is told about a verdict, in pipeline order: compiler diagnostics
    with their lines, a missing parallel construct, the failing test runs (the first with its
    command and error output), the concurrency findings with both accesses, the speedups."""
    lines = [f"Verdict: {verdict.status.value}" + (f": {verdict.reason}" if verdict.reason else "")]
    if verdict.build is not None and not verdict.build.ok:
        lines += _build_evidence(verdict)
    if verdict.source_check is not None and not verdict.source_check.ok:
        lines.append(f"Source check: {verdict.source_check.message or 'no parallel construct'}")
    if verdict.equivalence is not None:
        lines += _test_evidence(verdict)
    if verdict.concurrency is not None:
        c = verdict.concurrency
        if c.findings:
            lines.append(f"Concurrency findings ({', '.join(c.tools) or 'checker'}):")
            lines += [f"- {_finding(f)}" for f in c.findings[:_SHOWN]]
            lines += _more(c.findings)
        elif c.not_run:
            lines.append(f"Concurrency check {c.not_run}")
    if verdict.timing is not None and verdict.timing.speedup:
        speeds = ", ".join(f"{n}: {s:.2f}x" for n, s in sorted(verdict.timing.speedup.items()))
        lines.append(f"Speedups by thread/rank count: {speeds}")
    return _clip("\n".join(lines), max_chars)


_SHOWN = 5
"""Diagnostics, failing runs or findings listed before `(+N more)`."""
_OUTPUT_CHARS = 400


def _build_evidence(verdict: Verdict) -> list[str]:
    if verdict.build is None:
        return []
    diagnostics = sorted(verdict.build.diagnostics, key=lambda d: d.severity != "error")
    if diagnostics:
        return [
            "Compiler diagnostics:",
            *(f"- {_diagnostic(d)}" for d in diagnostics[:_SHOWN]),
            *_more(diagnostics),
        ]
    build = next((s for s in verdict.steps if s.name == "build candidate"), None)
    if build is not None and (build.stderr or build.stdout):
        return ["Compiler output:", _tail(build.stderr or build.stdout)]
    return []


def _diagnostic(d: Diagnostic) -> str:
    where = ":".join(str(p) for p in (d.file, d.line, d.column) if p is not None)
    return f"{where}: {d.severity}: {d.message}" if where else f"{d.severity}: {d.message}"


def _test_evidence(verdict: Verdict) -> list[str]:
    assert verdict.equivalence is not None
    eq = verdict.equivalence
    if eq.not_run:
        return [f"Tests {eq.not_run}"]
    failing = [o for o in eq.outcomes if not o.ok]
    if not failing:
        return [f"Tests: all {len(eq.outcomes)} runs agree with the reference"]
    lines = [f"Failing test runs ({len(failing)} of {len(eq.outcomes)}):"]
    lines += [f"- test {o.test!r} at {o.workers} workers: {o.reason}" for o in failing[:_SHOWN]]
    lines += _more(failing)
    run = _run_of(failing[0], verdict.steps)
    if run is not None:
        lines.append(f"First failing run: {run.command}")
        if run.stderr.strip():
            lines.append(f"Its error output: {_tail(run.stderr)}")
    return lines


def _run_of(outcome: TestOutcome, steps: Sequence[StepRecord]) -> StepRecord | None:
    """The step that ran `outcome` (named `run candidate [test] 4 threads`); its last attempt."""
    prefix = f"run candidate [{outcome.test}]"
    runs = [
        s
        for s in steps
        if s.name.startswith(prefix)
        and (s.name == prefix or s.name.split("]", 1)[1].split()[:1] == [str(outcome.workers)])
    ]
    return runs[-1] if runs else None


def _finding(f: Finding) -> str:
    where = f" at {f.file}:{f.line}" if f.file and f.line else ""
    workers = f", {f.workers} workers" if f.workers else ""
    return f"{f.kind}{where} ({f.tool}{workers}): {f.message}"


def _more(items: Sequence[object]) -> list[str]:
    return [f"(+{len(items) - _SHOWN} more)"] if len(items) > _SHOWN else []


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _OUTPUT_CHARS else "..." + text[-_OUTPUT_CHARS:]


def _clip(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    note = "\n[evidence cut]"
    return text[: max(0, max_chars - len(note))] + note


def _repairable(verdict: Verdict | None) -> bool:
    """A failure a repair prompt can work from: one that built, or a build with diagnostics or
    compiler output (not, say, a reply that held no code)."""
    if verdict is None or verdict.status not in _REPAIRABLE:
        return False
    return verdict.status is not Status.BUILD_FAILED or bool(_build_evidence(verdict))


def _nothing_left(repairable: list[Observation], built: bool) -> str:
    if repairable:
        return "no repair rounds are left"
    if not built:
        return "no replans are left"
    return "no failure left evidence worth a repair"


def _distinct(observations: Iterable[Observation]) -> list[Observation]:
    """The first of each group of candidates with the same normalised code."""
    seen: set[str] = set()
    kept = []
    for obs in observations:
        if obs.source_key not in seen:
            seen.add(obs.source_key)
            kept.append(obs)
    return kept


def _standing(observations: Sequence[Observation]) -> str:
    if not observations:
        return " (no candidates were made)"
    top = rank(observations)[0]
    return f" (the furthest, candidate {top.candidate_id}, {_status(top)})"


def _status(obs: Observation) -> str:
    if obs.verdict is None:
        return "not verified"
    return obs.verdict.status.value.replace("_", " ")


def _speed(verdict: Verdict) -> str:
    if verdict.timing is None or not verdict.timing.speedup:
        return " (not timed)"
    return f" with a {verdict.speedup:.2f}x speedup"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
