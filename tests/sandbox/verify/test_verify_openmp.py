"""verify() on planted OpenMP candidates: one per verdict, with real compilers in a real sandbox."""

from __future__ import annotations

import pytest

from sandbox.backends import open_sandbox
from sandbox.config import LocalConfig
from sandbox.spec import Candidate, Target, TestCase
from sandbox.verdict import Status
from sandbox.verify import verify
from sandbox.verify.race import check_program
from tests.fakes.programs import OPENMP_GOOD, OPENMP_REFERENCE, OPENMP_TEMPLATE, openmp_spec


def candidate(body: str) -> Candidate:
    return Candidate(target=Target.OPENMP, source=OPENMP_TEMPLATE.replace("BODY", body))


async def test_good_candidate_passes_with_steps_and_timing(verify_sandbox):
    # A timing input above the 50 ms floor (smaller ones are reported as too short to time).
    v = await verify(
        verify_sandbox,
        openmp_spec(timing=TestCase(name="big", args=["30000000"])),
        candidate(OPENMP_GOOD),
    )
    assert v.status is Status.PASSED, v.reason
    assert v.build and v.build.ok
    assert v.source_check and v.source_check.found == ["#pragma omp parallel for reduction(+:s)"]
    # Two tests and two hidden inputs drawn from their shapes, at three thread counts.
    assert v.equivalence and len(v.equivalence.outcomes) == 12 and v.equivalence.ok
    assert v.concurrency and v.concurrency.ok and v.concurrency.runs >= 4
    assert v.concurrency.tools == ["archer-tsan", "static"]
    assert v.timing is not None and set(v.timing.speedup) == {1, 2, 4}
    assert v.timing.source == "wall"
    names = [s.name for s in v.steps]
    assert "build candidate" in names and "run candidate [tiny] 4 threads" in names
    build = next(s for s in v.steps if s.name == "build candidate")
    assert "clang -O2 -fopenmp" in build.command and build.exit_code == 0
    assert v.sandbox is not None and v.duration_s > 0


async def test_compile_error_gives_diagnostics_with_places(verify_sandbox):
    v = await verify(
        verify_sandbox, openmp_spec(), candidate(OPENMP_GOOD.replace("x[i];", "x[i]")), timing=False
    )
    assert v.status is Status.BUILD_FAILED
    assert v.build is not None and not v.build.ok
    errors = [d for d in v.build.diagnostics if d.severity == "error"]
    assert errors and errors[0].file == "main.c" and errors[0].line == 12
    assert "main.c:12" in v.reason
    assert v.equivalence is None


async def test_serial_code_is_not_parallel(verify_sandbox):
    v = await verify(
        verify_sandbox,
        openmp_spec(),
        Candidate(target=Target.OPENMP, source=OPENMP_REFERENCE),
        timing=False,
    )
    assert v.status is Status.NOT_PARALLEL


async def test_wrong_answer_names_test_threads_and_line(verify_sandbox):
    v = await verify(
        verify_sandbox, openmp_spec(), candidate(OPENMP_GOOD + "    s = s * 2;\n"), timing=False
    )
    assert v.status is Status.WRONG_ANSWER
    assert v.reason.startswith("test 'tiny' at 1 threads: line 1: expected 1.4")


@pytest.mark.parametrize(
    ("factor", "status"), [("1.0000000001", Status.PASSED), ("1.000001", Status.WRONG_ANSWER)]
)
async def test_float_within_and_outside_tolerance(verify_sandbox, factor, status):
    v = await verify(
        verify_sandbox,
        openmp_spec(),
        candidate(OPENMP_GOOD + f"    s = s * {factor};\n"),
        timing=False,
    )
    assert v.status is status, v.reason
    if status is Status.WRONG_ANSWER:
        assert "relative error" in v.reason


async def test_crash_and_time_out(verify_sandbox):
    crash = await verify(
        verify_sandbox,
        openmp_spec(),
        candidate(OPENMP_GOOD + "    if (n > 10) abort();\n"),
        timing=False,
    )
    assert crash.status is Status.CRASHED
    assert "SIGABRT" in crash.reason and "'small'" in crash.reason
    hang = "    #pragma omp parallel\n    { volatile int spin = 1; while (spin) { } }\n"
    slow = await verify(
        verify_sandbox, openmp_spec(timeout_s=2), candidate(OPENMP_GOOD + hang), timing=False
    )
    assert slow.status is Status.TIMED_OUT
    # one hang is enough: the other runs are not started after it
    assert len(slow.equivalence.outcomes) <= 2


RACY = {
    "missing reduction": (
        """
    #pragma omp parallel for
    for (int i = 0; i < n; i++) s += x[i] * x[i];
""",
        "s",
    ),
    "missing private": (
        """
    double t;
    #pragma omp parallel for reduction(+:s)
    for (int i = 0; i < n; i++) { t = x[i] * x[i]; s += t; }
""",
        "t",
    ),
    "lastprivate": (
        """
    int seen[64] = {0}, last = 0;
    #pragma omp parallel
    {
        #pragma omp for lastprivate(last) reduction(+:s) nowait
        for (int i = 0; i < n; i++) { s += x[i] * x[i]; last = i; }
        seen[omp_get_thread_num() % 64] = last;
    }
""",
        "last",
    ),
    "task dependence": (
        """
    #pragma omp parallel
    #pragma omp single
    {
        #pragma omp task shared(s)
        for (int i = 0; i < n / 2; i++) s += x[i] * x[i];
        #pragma omp task shared(s)
        for (int i = n / 2; i < n; i++) s += x[i] * x[i];
    }
""",
        "s",
    ),
}


@pytest.mark.parametrize("kind", sorted(RACY))
async def test_races_of_several_kinds_are_found(verify_sandbox, kind):
    body, variable = RACY[kind]
    program = candidate(body)
    v = await verify(verify_sandbox, openmp_spec(), program, timing=False)
    if v.status is Status.WRONG_ANSWER:
        # The race spoiled the answer at some thread count before the race checker ran (any race
        # on a variable the output reads can; a loaded host makes it likelier): rejected all the
        # same, by the tests. The checker must still find it on its own.
        assert "depends on the thread count" in v.reason, v.reason
        checked = await check_program(
            verify_sandbox, program.source, "main.c", case=TestCase(name="small", args=["40"])
        )
        assert checked.race is True, checked
        findings = checked.findings
    else:
        assert v.status is Status.RACE, (v.status, v.reason)
        assert v.concurrency is not None and not v.concurrency.ok
        findings = v.concurrency.findings
    assert any(f.variable == variable for f in findings), findings
    assert all(f.line for f in findings)


SAFE = {
    "missing reduction": OPENMP_GOOD,
    "missing private": """
    double t;
    #pragma omp parallel for reduction(+:s) private(t)
    for (int i = 0; i < n; i++) { t = x[i] * x[i]; s += t; }
""",
    "lastprivate": RACY["lastprivate"][0].replace(" nowait", ""),
    "task dependence": RACY["task dependence"][0].replace(
        "task shared(s)", "task shared(s) depend(inout: s)"
    ),
}


@pytest.mark.parametrize("kind", sorted(SAFE))
async def test_race_free_programs_of_the_same_shapes_pass(verify_sandbox, kind):
    v = await verify(verify_sandbox, openmp_spec(), candidate(SAFE[kind]), timing=False)
    assert v.status is Status.PASSED, (v.status, v.reason)


async def test_broken_reference_is_the_specs_fault(verify_sandbox):
    broken = await verify(
        verify_sandbox,
        openmp_spec(reference=OPENMP_REFERENCE.replace("return 0;", "return")),
        candidate(OPENMP_GOOD),
    )
    assert broken.status is Status.REFERENCE_FAILED
    assert broken.reason.startswith("the reference does not build")
    crashing = openmp_spec(reference=OPENMP_REFERENCE.replace("return 0;", "return 2;"))
    v = await verify(verify_sandbox, crashing, candidate(OPENMP_GOOD))
    assert v.status is Status.REFERENCE_FAILED and "exit 2" in v.reason


DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "solution.inc"
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    double *x = malloc(n * sizeof *x);
    for (int i = 0; i < n; i++) x[i] = (i % 10) * 0.1;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    double s = sumsq(x, n);
    clock_gettime(CLOCK_MONOTONIC, &b);
    fprintf(stderr, "PARFORGE_TIME_S=%.9f\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9);
    printf("sum %.12f\n", s);
    free(x);
    return 0;
}
"""
SOLUTION = """
double sumsq(const double *x, int n) {
    double s = 0;
    #pragma omp parallel for reduction(+:s)
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    return s;
}
"""


async def test_function_candidates_go_through_the_driver(verify_sandbox):
    s = openmp_spec(driver=DRIVER, timing=TestCase(name="big", args=["200000"]), threads=[1, 2])
    v = await verify(verify_sandbox, s, Candidate(target=Target.OPENMP, source=SOLUTION))
    assert v.status is Status.PASSED, v.reason
    # the reference prints no kernel time, so whole-process times are compared
    assert (
        v.timing is not None and v.timing.source == "wall" and set(v.timing.candidate_s) == {1, 2}
    )
    racy = SOLUTION.replace(" reduction(+:s)", "")
    r = await verify(verify_sandbox, s, Candidate(target=Target.OPENMP, source=racy), timing=False)
    assert r.status in (Status.RACE, Status.WRONG_ANSWER)
    if r.status is Status.RACE:
        assert r.concurrency.findings[0].file == "solution.inc"


async def test_local_backend_gives_the_same_verdicts():
    """Hosts without Docker (a bare GPU machine) verify with the local backend: same answers."""
    sandbox = open_sandbox(LocalConfig())
    try:
        good = await verify(sandbox, openmp_spec(), candidate(OPENMP_GOOD), timing=False)
        racy = await verify(
            sandbox, openmp_spec(), candidate(RACY["missing reduction"][0]), timing=False
        )
    finally:
        await sandbox.aclose()
    assert good.status is Status.PASSED, (good.status, good.reason)
    # The missing reduction may also spoil a run's answer on a busy host; either way it fails.
    assert racy.status in (Status.RACE, Status.WRONG_ANSWER), (racy.status, racy.reason)
    assert good.sandbox is not None and good.sandbox.backend == "local"
