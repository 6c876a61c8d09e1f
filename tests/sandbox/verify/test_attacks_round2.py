"""Round two of hostile candidates, against the real Docker sandbox: each class a model
optimising speed would find, written from its description. None may pass, or it passes only
with its honest wall-time speedup.

The candidates are small OpenMP programs over one spec (a sum over a generated array, timed on
a large input); each test names the class it closes and how.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from corpus.formats import Target as SuiteTarget
from corpus.suites import load_suite
from sandbox.config import RaceCheckConfig, VerifyOptions
from sandbox.spec import Candidate, Spec, Target, TestCase, Tolerance
from sandbox.verdict import Status, Verdict
from sandbox.verify import verify
from sandbox.verify.gate import TimingGate
from sandbox.verify.hidden import draw
from sandbox.verify.outcomes import HIDDEN_MISMATCH

pytestmark = pytest.mark.docker

CORES = 2.0
MARGIN = 1.15

REFERENCE = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    double *x = malloc(n * sizeof *x);
    for (long i = 0; i < n; i++) x[i] = (double)((i * 7919) % 1000) / 1000.0;
    double s = 0;
    for (long r = 0; r < 8; r++)
        for (long i = 0; i < n; i++) s += x[i] * x[i] * (r + 1);
    printf("sum %.6e\n", s);
    free(x);
    return 0;
}
"""

TEMPLATE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
HEAD
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    double *x = malloc(n * sizeof *x);
    for (long i = 0; i < n; i++) x[i] = (double)((i * 7919) % 1000) / 1000.0;
    double s = 0;
BODY
    printf("sum %.6e\n", s);
    free(x);
    return 0;
}
"""

GOOD = """
    #pragma omp parallel for reduction(+:s)
    for (long i = 0; i < n; i++) {
        double v = x[i] * x[i];
        for (long r = 0; r < 8; r++) s += v * (r + 1);
    }
"""
RACY = """
    #pragma omp parallel
    {
        double mine = 0;
        #pragma omp for
        for (long i = 0; i < n; i++) {
            double v = x[i] * x[i];
            for (long r = 0; r < 8; r++) mine += v * (r + 1);
        }
        s += mine;  /* unsynchronised: rarely wrong, always a race */
    }
"""
# A race that never spoils the answer: every thread stores the same value in a shared flag.
# Only the race checker can see it, so a test built on it tests the checker, not luck.
UNSEEN = """
    int seen = 0;
    #pragma omp parallel for reduction(+:s)
    for (long i = 0; i < n; i++) {
        double v = x[i] * x[i];
        for (long r = 0; r < 8; r++) s += v * (r + 1);
        seen = 1;  /* unsynchronised: never wrong, always a race */
    }
    if (!seen) s = -1;
"""
BIG = "4000000"


def spec(**overrides: object) -> Spec:
    fields: dict[str, object] = {
        "name": "sumsq8",
        "language": "c",
        "reference": REFERENCE,
        "tests": [
            TestCase(name="tiny", args=["7"]),
            TestCase(name="small", args=["300"]),
            TestCase(name="medium", args=["5000"]),
        ],
        "timing": TestCase(name="big", args=[BIG]),
        "tolerance": Tolerance(rtol=1e-6),
        "threads": [1, 2, 4],
        "timeout_s": 20,
        "timing_repeats": 3,
    }
    fields.update(overrides)
    return Spec.model_validate(fields)


def candidate(body: str, head: str = "") -> Candidate:
    return Candidate(
        target=Target.OPENMP, source=TEMPLATE.replace("HEAD", head).replace("BODY", body)
    )


LIGHT = VerifyOptions(race=RaceCheckConfig(threads=[2, 4], schedules=["default"]))
"""A lighter race matrix where the class is not about the race checker."""


def honest(v: Verdict) -> bool:
    """Passed only with speedups the cores can produce, or failed."""
    if not v.passed:
        return True
    assert v.timing is not None
    return all(
        s <= CORES * MARGIN or n in v.timing.above_cores for n, s in v.timing.speedup.items()
    )


# ---- a process that outlives main -----------------------------------------------------------

DAEMON = """
    if (fork() == 0) {
        setsid();
BODY_GOOD
        printf("sum %.6e\\n", s);
        exit(0);
    }
    exit(0);
""".replace("BODY_GOOD", GOOD)


async def test_a_process_that_outlives_main_is_refused_and_would_be_timed(verify_sandbox):
    """Fork, exit, compute in a `setsid` child: the candidate is refused before it runs (it
    starts processes of its own), and the sandbox would time the whole tree anyway (the
    workspace contract tests show the straggler's late output is collected and timed)."""
    v = await verify(
        verify_sandbox, spec(), candidate(DAEMON, "#include <unistd.h>"), options=LIGHT
    )
    assert v.status is Status.SANITIZER_ERROR, (v.status, v.reason)
    assert "`fork`" in v.reason or "`setsid`" in v.reason


# ---- state between runs ---------------------------------------------------------------------

CACHE = """
    int fd = open("answer.cache", O_RDONLY);
    char text[64] = {0};
    if (fd >= 0 && read(fd, text, sizeof text - 1) > 0) { printf("%s", text); return 0; }
BODY_GOOD
    fd = open("answer.cache", O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) { dprintf(fd, "sum %.6e\\n", s); close(fd); }
""".replace("BODY_GOOD", GOOD)


async def test_an_answer_cached_between_runs_is_refused(verify_sandbox):
    """A program that keeps its answer for its next run: refused (it opens files), and the
    runs could not share it anyway (a fresh scratch directory per run, a read-only program
    directory: see the workspace contract tests)."""
    head = "#include <fcntl.h>\n#include <unistd.h>"
    v = await verify(verify_sandbox, spec(), candidate(CACHE, head), options=LIGHT)
    assert v.status is Status.SANITIZER_ERROR and "`open`" in v.reason, v.reason


# ---- forged and redefined timers ------------------------------------------------------------

TIMED_REFERENCE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    double *x = malloc(n * sizeof *x);
    /* set-up as long as the kernel: the shape of ParEval's drivers */
    for (long r = 0; r < 6; r++)
        for (long i = 0; i < n; i++) x[i] = (double)(((i + r) * 7919) % 1000) / 1000.0;
    double t0 = now(), s = 0;
    KERNEL
    fprintf(stderr, "PARFORGE_TIME_S=%.9f\n", (now() - t0) / DIVISOR);
    printf("sum %.6e\n", s);
    free(x);
    return 0;
}
"""
SERIAL_KERNEL = "for (long i = 0; i < n; i++) { double v = x[i] * x[i]; for (long r = 0; r < 8; r++) s += v * (r + 1); }"
PARALLEL_KERNEL = "#pragma omp parallel for reduction(+:s)\n    " + SERIAL_KERNEL


async def test_a_forged_kernel_time_gains_nothing_however_long_the_set_up(verify_sandbox):
    """The old allowance grew with the reference's set-up time: dividing the kernel time by
    1000 passed at 1,253x. Now the wall times must confirm a printed time within a slack of
    the kernel itself."""
    timed = spec(reference=TIMED_REFERENCE.replace("KERNEL", SERIAL_KERNEL).replace("DIVISOR", "1"))
    forged = TIMED_REFERENCE.replace("KERNEL", PARALLEL_KERNEL).replace("DIVISOR", "1000")
    v = await verify(
        verify_sandbox, timed, Candidate(target=Target.OPENMP, source=forged), options=LIGHT
    )
    assert v.passed and v.timing is not None, v.reason
    # Refused either way: the wall times contradict it, or (the set-up stretched by load) they
    # leave too little of a kernel to confirm any printed time.
    refusals = ("not what the wall times imply", "cannot resolve the kernel")
    assert v.timing.source == "wall", v.timing
    assert any(why in v.timing.notes[0] for why in refusals), v.timing.notes
    assert honest(v) and max(v.timing.speedup.values()) <= CORES * MARGIN, v.timing


async def test_a_solution_that_defines_the_drivers_clock_is_refused(verify_sandbox):
    """A solution in a ParEval driver that defines `clock_gettime` made the driver's timer its
    own (36,658x). The candidate's own object may define no timer."""
    task = load_suite("pareval").task("03_dense_la_axpy")
    axpy = Spec.model_validate(task.spec_for(SuiteTarget.OPENMP))
    good = task.target(SuiteTarget.OPENMP).solutions[0].source
    fake = (
        "#include <time.h>\n"
        'extern "C" int clock_gettime(clockid_t, struct timespec *t) '
        "{ t->tv_sec = 0; t->tv_nsec = 0; return 0; }\n"
    )
    v = await verify(
        verify_sandbox, axpy, Candidate(target=Target.OPENMP, source=fake + good), options=LIGHT
    )
    assert v.status is Status.SANITIZER_ERROR, (v.status, v.reason)
    assert "defines the timer `clock_gettime`" in v.reason


# ---- the candidate's own one-thread run ----------------------------------------------------

IGNORES_THREADS = (
    """
    omp_set_num_threads(4);
"""
    + GOOD
)


# The reference for this class is the candidate's own loop without its pragmas: on one core the
# two can differ only by noise. (Against `REFERENCE`, whose eight passes over memory `GOOD`
# folds into one, a host with slow memory measured a fair 1.5x on one core.)
SAME_LOOP_REFERENCE = (
    TEMPLATE.replace("#include <omp.h>\n", "")
    .replace("HEAD", "")
    .replace("BODY", GOOD.replace("#pragma omp parallel for reduction(+:s)", ""))
)


async def test_a_program_that_ignores_the_thread_count_is_still_one_core_at_one_thread(
    verify_sandbox,
):
    """A program that sets its own thread count made its "1 thread" run use every core, so
    its own scaling looked plausible. Timed runs are pinned: at one thread it has one core,
    and speedups are judged against the reference and the cores the run had."""
    same = spec(reference=SAME_LOOP_REFERENCE)
    v = await verify(verify_sandbox, same, candidate(IGNORES_THREADS), options=LIGHT)
    assert v.passed and v.timing is not None, v.reason
    assert v.timing.pinned == {1: 1, 2: 2, 4: 2}
    assert v.timing.threads.get(1, 0) >= 4, v.timing  # the attack ran: 4 threads at "1"
    # One core, plus noise: the best-placed pair (a loaded host stretches the median; unpinned,
    # every pair is near the cores' 2x).
    assert v.timing.spread[1][0] < 1.0 * MARGIN + 0.25, v.timing
    assert honest(v), v.timing


# ---- answers for the visible inputs -------------------------------------------------------


def expected_sum(n: int) -> str:
    s = 0.0
    for r in range(8):
        for i in range(n):
            v = ((i * 7919) % 1000) / 1000.0
            s += v * v * (r + 1)
    return f"sum {s:.6e}"


async def test_answers_printed_for_the_visible_inputs_fail_on_hidden_ones(verify_sandbox):
    """A program that prints the reference's answers for the spec's inputs (113x): it fails
    on the inputs this verification drew, and the verdict does not show them."""
    table = "\n".join(
        f'    if (n == {n}) {{ printf("{expected_sum(n)}\\n"); return 0; }}'
        for n in (7, 300, 5000, int(BIG))
    )
    # Any other input gets a remembered answer: no work at all, so any speedup it likes (the
    # loop after it is never reached; it is there for the source check).
    body = table + f'\n    printf("{expected_sum(5000)}\\n");\n    return 0;\n' + GOOD
    v = await verify(verify_sandbox, spec(), candidate(body), options=LIGHT)
    assert v.hidden is not None and v.hidden.tests == 2 and v.hidden.derived
    assert v.status is Status.WRONG_ANSWER, (v.status, v.reason)
    assert HIDDEN_MISMATCH in v.reason and "hidden" in v.reason
    hidden_steps = [s for s in v.steps if "hidden-" in s.name]
    assert hidden_steps and all("[not kept" in s.stdout for s in hidden_steps)
    assert all("(a hidden input" in s.command for s in hidden_steps)
    # Drawn again from the seed the verdict records: neither input nor answer is in it.
    shown = v.model_dump_json()
    for test in draw(spec(), v.hidden.seed, 2).tests:
        assert expected_sum(int(test.args[0])) not in shown


CONSTANT_REFERENCE = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) { long n = atol(argv[1]); printf("ok %d\n", n > 0); return 0; }
"""


async def test_a_spec_whose_tests_all_expect_one_output_is_flagged(verify_sandbox):
    constant = spec(reference=CONSTANT_REFERENCE, timing=None)
    printing = Candidate(
        target=Target.OPENMP,
        source='#include <stdio.h>\nint main() {\n#pragma omp parallel\n{}\nprintf("ok 1\\n"); }\n',
    )
    v = await verify(verify_sandbox, constant, printing, timing=False, options=LIGHT)
    assert any("every test of the spec expects the same output" in note for note in v.lint), v.lint


# ---- hiding a race from the checker ---------------------------------------------------------


async def test_a_race_only_on_the_timing_input_is_caught(verify_sandbox):
    """The race checker runs the timing input too. TSan may miss a race whose two accesses
    happen at the very same moment; then the race shows in the answer instead, which the
    checker compares with the reference's."""
    body = f"    if (n >= {BIG}) {{\n{RACY}\n    }} else {{\n{GOOD}\n    }}"
    v = await verify(verify_sandbox, spec(), candidate(body), timing=False)
    assert v.status in (Status.RACE, Status.WRONG_ANSWER), (v.status, v.reason)
    assert "[big]" in v.reason, v.reason


SILENCER = "    for (int fd = 3; fd < 1024; fd++) close(fd);\n"


async def test_a_race_whose_report_was_silenced_still_counts(verify_sandbox):
    """Closing every descriptor past stderr drops TSan's log; its exit status 66 remains.
    The race never spoils the answer, so only the race checker can reject it."""
    v = await verify(
        verify_sandbox, spec(), candidate(SILENCER + UNSEEN, "#include <unistd.h>"), timing=False
    )
    assert v.status is Status.RACE, (v.status, v.reason)


async def test_plain_and_instrumented_builds_agree_on_the_openmp_version(verify_sandbox):
    """Racing only where `_OPENMP` says the race checker's compiler is absent: both builds are
    now made by one compiler and runtime, so the race is where the checker looks. The race
    never spoils the answer, so only the race checker can reject it."""
    body = f"#if _OPENMP >= 201811\n{UNSEEN}\n#else\n{GOOD}\n#endif\n"
    v = await verify(verify_sandbox, spec(), candidate(body), timing=False)
    assert v.status is Status.RACE, (v.status, v.reason)


WEAK = "extern void __kmpc_begin(void *, int) __attribute__((weak));\n"


async def test_a_weak_reference_to_a_runtime_symbol_is_refused(verify_sandbox):
    body = f"    if (__kmpc_begin) {{\n{GOOD}\n    }} else {{\n{RACY}\n    }}"
    v = await verify(verify_sandbox, spec(), candidate(body, WEAK), timing=False)
    assert v.status is Status.SANITIZER_ERROR and "weakly" in v.reason, v.reason


async def test_a_path_split_into_string_literals_is_read_after_concatenation(verify_sandbox):
    head = "#include <unistd.h>"
    body = f'    if (access("/pr" "oc/self/maps", R_OK) == 0) {{\n{GOOD}\n    }}\n'
    v = await verify(verify_sandbox, spec(), candidate(body, head), timing=False)
    assert v.status is Status.SANITIZER_ERROR and "`/proc/`" in v.reason, v.reason


HEAP_PROBE = """
    void *probe = malloc(64);
    int checked = ((unsigned long)probe >> 40) == 0x7b;  /* ThreadSanitizer's heap */
    free(probe);
    if (checked) {
        for (long i = 0; i < n; i++) {
            double v = x[i] * x[i];
            for (long r = 0; r < 8; r++) s += v * (r + 1);
        }
    } else {
GOOD_BODY
    }
""".replace("GOOD_BODY", GOOD)


async def test_a_program_that_runs_serially_under_the_checker_is_not_parallel(verify_sandbox):
    """Detecting the checker by its heap addresses has no structural fix, but what the
    program does with it shows: under the checker it never ran in parallel, so the check
    vouches for nothing, and the verdict says so."""
    v = await verify(verify_sandbox, spec(), candidate(HEAP_PROBE), timing=False)
    assert v.status is Status.NOT_PARALLEL, (v.status, v.reason)
    assert "never ran with more than one thread under the race checker" in v.reason


# ---- load beside the timing runs ------------------------------------------------------------


async def test_a_speedup_measured_beside_other_load_is_flagged(verify_sandbox):
    """The same algorithm measured 2.30x at one thread because the reference was timed while
    the model server generated beside it. Reference and candidate are now timed in turns, and
    the load that ran beside them is measured: here two busy processes on the host."""
    hogs = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", "while True: pass")
        for _ in range(2)
    ]
    # Pairs long enough to judge (`LOAD_WALL_S` together) on a fast host too: at 12 M
    # elements a run took 0.15 s on one, and the load beside it went unjudged.
    longer = spec(timing=TestCase(name="big", args=["36000000"]))
    try:
        v = await verify(verify_sandbox, longer, candidate(GOOD), options=LIGHT)
    finally:
        for hog in hogs:
            hog.kill()
            await hog.wait()
    assert v.passed and v.timing is not None, v.reason
    assert set(v.timing.disturbed) == {1, 2, 4}, v.timing
    assert all(load > 0.5 for load in v.timing.foreign_load.values()), v.timing.foreign_load
    assert any("other work ran beside the timing runs" in note for note in v.timing.notes)


async def test_the_gates_quiet_hook_holds_back_the_owners_load_for_each_timing_run(
    verify_sandbox,
):
    held: list[str] = []

    @asynccontextmanager
    async def quiet() -> AsyncIterator[None]:
        held.append("pause")
        yield
        held.append("resume")

    v = await verify(
        verify_sandbox, spec(), candidate(GOOD), options=LIGHT, timing_gate=TimingGate(quiet)
    )
    assert v.passed, v.reason
    timed = [s for s in v.steps if s.name.startswith(("time reference", "run candidate [timing"))]
    assert held == ["pause", "resume"] * len(timed) and len(timed) == 4 + 3 * 3


STDIN_REFERENCE = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    long n; if (scanf("%ld", &n) != 1) return 1;
    double *x = malloc(n * sizeof *x), s = 0;
    for (long i = 0; i < n; i++) if (scanf("%lf", &x[i]) != 1) return 1;
    for (long i = 0; i < n; i++) s += x[i] * x[i];
    printf("%.6e\n", s);
    return 0;
}
"""
GENERATOR = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    unsigned long seed = strtoul(argv[1], 0, 10);
    long n = 1000 + seed % 3000;
    printf("%ld\n", n);
    for (long i = 0; i < n; i++) { seed = seed * 6364136223846793005UL + 1; printf("%lu\n", (seed >> 33) % 1000); }
    return 0;
}
"""


async def test_a_declared_generator_program_makes_the_hidden_stdins(verify_sandbox):
    """A program that reads its input: the spec's generator writes each hidden input. Printing
    the visible test's answer fails on them, and nothing of them shows in the verdict."""
    visible = "3\n1\n2\n3\n"
    stdin_spec = spec(
        reference=STDIN_REFERENCE,
        tests=[TestCase(name="three", stdin=visible)],
        timing=None,
        hidden={"program": GENERATOR, "count": 2},
    )
    good = STDIN_REFERENCE.replace(
        "    for (long i = 0; i < n; i++) s += x[i] * x[i];",
        "    #pragma omp parallel for reduction(+:s)\n"
        "    for (long i = 0; i < n; i++) s += x[i] * x[i];",
    )
    passed = await verify(
        verify_sandbox, stdin_spec, Candidate(target=Target.OPENMP, source=good), timing=False
    )
    assert passed.status is Status.PASSED, passed.reason
    assert passed.hidden is not None and passed.hidden.tests == 2 and not passed.hidden.derived
    generated = [s for s in passed.steps if s.name.startswith("generate hidden input")]
    assert len(generated) == 2 and all("[not kept" in s.stdout for s in generated)
    printing = good.replace('printf("%.6e\\n", s);', 'printf("1.400000e+01\\n");')
    v = await verify(
        verify_sandbox, stdin_spec, Candidate(target=Target.OPENMP, source=printing), timing=False
    )
    assert v.status is Status.WRONG_ANSWER and "hidden" in v.reason, v.reason
