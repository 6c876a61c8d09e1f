"""Harness fidelity on fixed stratified samples of the ParEval suite, so that every kind of
problem is covered: the verifier accepts every known-good solution of the first problem of each
type (its race checker lighter, `HARNESS`), and catches the planted mutants of one problem per
type and target. Runs the real verifier in the Docker sandbox; the whole suite, every
known-good solution and every mutant, is `benchmarks/fidelity.py` (too long for the test suite
on a small host)."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from corpus.suites import load_suite
from sandbox.base import Sandbox
from sandbox.config import RaceCheckConfig, VerifyOptions
from sandbox.spec import Candidate, Spec, Target
from sandbox.verdict import Verdict
from sandbox.verify import verify
from sandbox.verify.refcache import ReferenceCache
from tests.fakes.pareval import cases, source_of, suite

pytestmark = pytest.mark.slow

KILL_RATE = 0.95


HARNESS = VerifyOptions(race=RaceCheckConfig(threads=[2, 4], schedules=["default"]))
"""For the known-good solutions: the race checker at two thread counts and the loops' own
schedule. What they test is the harness (drivers, tests, hidden inputs, tolerances); the full
checker's precision is `tests/sandbox/verify/test_race_checker.py`'s on its labelled programs
and `benchmarks/fidelity.py`'s on every solution. The mutants meet the full checker."""


async def verify_one(
    sandbox: Sandbox,
    task_name: str,
    target: Target,
    source: str,
    options: VerifyOptions | None = None,
    cache: ReferenceCache | None = None,
) -> Verdict:
    spec = Spec.model_validate(suite().task(task_name).spec_for(target))
    # Correctness is what this test is about; speed is measured by the benchmarks.
    candidate = Candidate(target=target.value, source=source)
    return await verify(
        sandbox, spec, candidate, timing=False, options=options, reference_cache=cache
    )


def first_of_each_type() -> list[str]:
    """The first problem of each type, in suite order (without a GPU a CUDA build is all this
    host can check, and nvcc is the slowest step; on a GPU host `benchmarks/cuda_gpu.py` and
    `verdict_gpu.py` run every CUDA solution)."""
    firsts: dict[str, str] = {}
    for task in load_suite("pareval").tasks:
        firsts.setdefault(task.problem_type, task.name)
    return list(firsts.values())


@pytest.mark.parametrize("task_name", first_of_each_type())
async def test_reference_and_known_good_solutions_pass(
    verify_sandbox: Sandbox, task_name: str
) -> None:
    """The serial reference as a candidate and every known-good OpenMP and MPI solution, and
    the CUDA ones built, verified at once."""
    task = suite().task(task_name)
    checks = [(Target.SERIAL, "reference", task.reference)] + [
        (target, name, source_of(task_name, target, name))
        for name_task, target, name in cases("good")
        if name_task == task_name
    ]
    cache = ReferenceCache()  # the reference's visible runs, once per spec, as an eval does
    verdicts = await asyncio.gather(
        *(
            verify_one(verify_sandbox, task_name, target, source, HARNESS, cache)
            for target, _, source in checks
        )
    )
    failures = []
    for (target, name, _), verdict in zip(checks, verdicts, strict=True):
        if target is Target.CUDA and not (verdict.sandbox and verdict.sandbox.gpu):
            # No GPU here: the CUDA solution must build; running it is for GPU hosts.
            assert verdict.build is not None and verdict.build.ok, verdict.reason
            assert verdict.equivalence is None or verdict.equivalence.not_run or verdict.passed
        elif not verdict.passed:
            failures.append(f"{target.value}/{name}: {verdict.status}: {verdict.reason}")
    assert not failures, failures


def stratified_mutants() -> list[tuple[str, Target, str]]:
    """The first mutant of each (problem type, target), the problems taken in order: fixed, and
    every type of problem represented."""
    picked: dict[tuple[str, Target], tuple[str, Target, str]] = {}
    for task_name, target, name in cases("mutant"):
        key = (suite().task(task_name).problem_type, target)
        if target is not Target.CUDA and key not in picked:
            picked[key] = (task_name, target, name)
    return list(picked.values())


@pytest.mark.timeout(3600)
async def test_planted_mutants_are_caught(verify_sandbox: Sandbox) -> None:
    mutants = stratified_mutants()
    assert len(mutants) >= 20
    verdicts = await asyncio.gather(
        *(
            verify_one(verify_sandbox, t, target, source_of(t, target, n))
            for t, target, n in mutants
        )
    )
    survived = [c for c, v in zip(mutants, verdicts, strict=True) if v.passed]
    broken = [
        (c, v.status, v.reason)
        for c, v in zip(mutants, verdicts, strict=True)
        if v.status in {"build_failed", "reference_failed"}
    ]
    assert not broken, f"mutants that do not build or break the reference: {broken}"
    statuses = Counter(str(v.status) for v in verdicts)
    rate = 1 - len(survived) / len(mutants)
    assert rate >= KILL_RATE, f"caught {rate:.1%} ({statuses}); survived: {survived}"
