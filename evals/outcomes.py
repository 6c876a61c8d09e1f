"""From a verdict to a stored result, and from a stored result to a metrics outcome (pure)."""

from __future__ import annotations

from typing import Any

from corpus.store.models import EvalResultCreate, EvalResultRow
from evals.sources import Sample
from evals.summary import SampleOutcome
from sandbox.verdict import Status, StepRecord, Verdict

GENERATED = "generated"
"""Status of a sample that was generated and stored but not yet verified."""
GENERATION_FAILED = "generation_failed"
"""Status of a sample the source could not produce (counts as a failed sample)."""

CORRECT = frozenset({Status.PASSED, Status.RACE, Status.SANITIZER_ERROR})
"""Statuses a candidate that agreed with the reference on every test can end with. Not proof
that it did: the integrity check refuses a candidate as `sanitizer_error` before any test runs
(`is_correct`)."""
RACY = frozenset({Status.RACE, Status.DEADLOCK, Status.SANITIZER_ERROR})
STAGES = ("build", "tests", "race check", "timing")
_TAIL = 2000


def stage_of(step: str) -> str:
    """Which stage of the harness a verify step belongs to."""
    if step.startswith(("build ", "link ", "demangle")) or step.endswith("symbols"):
        return "build"
    if step.startswith(("race", "compute-sanitizer")):
        return "race check"
    if step.startswith(("time ", "run start-up")) or "[timing" in step:
        return "timing"
    if step.startswith(("run ", "generate hidden")):
        return "tests"
    return "other"


def stage_seconds(steps: list[StepRecord]) -> dict[str, float]:
    """Seconds spent per stage (commands run at once are each counted)."""
    out: dict[str, float] = {}
    for step in steps:
        if step.name.startswith("reuse "):
            continue  # results from the reference cache: nothing ran
        stage = stage_of(step.name)
        out[stage] = round(out.get(stage, 0.0) + step.duration_s, 4)
    return out


def _failed_step(verdict: Verdict) -> dict[str, Any] | None:
    for step in reversed(verdict.steps):
        if step.exit_code != 0 or step.timed_out:
            return {
                "name": step.name,
                "command": step.command,
                "exit_code": step.exit_code,
                "stderr": step.stderr[-_TAIL:],
                "stdout": step.stdout[-_TAIL:],
            }
    return None


def is_correct(verdict: Verdict) -> bool:
    """Whether the candidate agreed with the reference on every test (pass@k's sense): the
    tests ran and passed, whatever the checks after them found."""
    tests = verdict.equivalence
    return (
        verdict.status in CORRECT
        and tests is not None
        and tests.ok
        and tests.not_run is None
        and bool(tests.outcomes)
    )


def verified_result(
    problem: str, problem_type: str, sample: Sample, verdict: Verdict
) -> EvalResultCreate:
    """The stored row of a verified sample: flags, speedups and a summary of the verdict (the
    full step records stay out: a run has thousands of samples)."""
    status = verdict.status
    timed = verdict.timing is not None and status is Status.PASSED
    summary: dict[str, Any] = {
        "status": status.value,
        "reason": verdict.reason,
        "correct": is_correct(verdict),
        "race_free": status is Status.PASSED and is_correct(verdict),
        # A broken reference is the spec's fault, not the model's: left out like a check that
        # could not run, and listed among the report's reasons.
        "not_run": verdict.reason if status in (Status.NOT_RUN, Status.REFERENCE_FAILED) else None,
        "timing": verdict.timing.model_dump(mode="json") if timed and verdict.timing else None,
        "hidden": verdict.hidden.model_dump(mode="json") if verdict.hidden else None,
        "lint": verdict.lint,
        "findings": [f.model_dump(mode="json") for f in (verdict.concurrency.findings[:5])]
        if verdict.concurrency
        else [],
        "stages": stage_seconds(verdict.steps),
        "reused": [
            s.name.removeprefix("reuse ") for s in verdict.steps if s.name.startswith("reuse ")
        ],
        "duration_s": verdict.duration_s,
        "sandbox": verdict.sandbox.model_dump(mode="json") if verdict.sandbox else None,
        "failed_step": None if status is Status.PASSED else _failed_step(verdict),
    }
    return EvalResultCreate(
        problem=problem,
        problem_type=problem_type,
        sample_index=sample.index,
        status=status.value,
        built=verdict.build is not None and verdict.build.ok,
        passed=status is Status.PASSED,
        race=status in RACY,
        # Speedups beyond the cores a run had are implausible and not counted (`Timing`).
        speedups={
            str(n): s
            for n, s in verdict.timing.speedup.items()
            if n not in verdict.timing.above_cores
        }
        if timed and verdict.timing
        else {},
        verdict=summary,
        source=sample.source,
        call=sample.call,
    )


def unverified_result(problem: str, problem_type: str, sample: Sample) -> EvalResultCreate:
    """The stored row of a sample before verification, or of one that could not be produced."""
    failed = not (sample.source or "").strip()
    return EvalResultCreate(
        problem=problem,
        problem_type=problem_type,
        sample_index=sample.index,
        status=GENERATION_FAILED if failed else GENERATED,
        built=False,
        passed=False,
        verdict={
            "status": GENERATION_FAILED,
            "reason": sample.error or "the sample holds no code",
            "correct": False,
        }
        if failed
        else {},
        source=sample.source,
        call=sample.call,
    )


def is_finished(row: EvalResultRow) -> bool:
    """Whether a stored sample needs no more work (verified, or impossible to produce)."""
    return row.status != GENERATED


def outcome(row: EvalResultRow) -> SampleOutcome:
    """A finished row as the metrics see it."""
    verdict = row.verdict or {}
    not_run = verdict.get("not_run")
    return SampleOutcome(
        problem=row.problem,
        problem_type=row.problem_type or "unknown",
        sample=row.sample_index,
        built=None if not_run and not row.built else row.built,
        correct=bool(verdict.get("correct", row.passed)),
        race_free=row.passed,
        speedups={int(n): float(s) for n, s in row.speedups.items()},
        status=row.status,
        not_run=not_run,
    )
