"""Candidates that try to fake their verdict, against the real Docker sandbox: none may pass.

Each test is an attack that passed the verifier before the integrity fixes of issue 9; the
candidates are the sum-of-squares program of `test_verify_openmp` with a twist.
"""

from __future__ import annotations

import pytest

from corpus.formats import Target as SuiteTarget
from corpus.suites import load_suite
from sandbox.config import RaceCheckConfig, VerifyOptions
from sandbox.models import Command
from sandbox.spec import Candidate, Spec, Target, TestCase
from sandbox.verdict import Status
from sandbox.verify import verify
from sandbox.verify.race import check_program
from tests.fakes.programs import OPENMP_GOOD, OPENMP_TEMPLATE, openmp_spec

pytestmark = pytest.mark.docker

TIMED = TestCase(name="big", args=["30000000"])


def openmp(source: str) -> Candidate:
    return Candidate(target=Target.OPENMP, source=source)


TIMER = """
    struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < 50; r++) {  /* a kernel that dominates the set-up (and its noise) */
        s = 0;  /* the last repetition's sum: one reduction's rounding */
BODY
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double kernel = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    fprintf(stderr, "PARFORGE_TIME_S=%.9f\\n", kernel / DIVISOR);
"""
TIMED_TEMPLATE = OPENMP_TEMPLATE.replace("BODY", TIMER).replace(
    "#include <omp.h>", "#include <omp.h>\n#include <time.h>"
)
TIMED_REFERENCE = TIMED_TEMPLATE.replace(
    "BODY", "    for (int i = 0; i < n; i++) s += x[i] * x[i];"
).replace("DIVISOR", "1")
FORGED_TIME = TIMED_TEMPLATE.replace("BODY", OPENMP_GOOD).replace("DIVISOR", "1000")
HONEST_TIME = TIMED_TEMPLATE.replace("BODY", OPENMP_GOOD).replace("DIVISOR", "1")


async def test_a_printed_kernel_time_is_not_trusted(verify_sandbox):
    timed = openmp_spec(timing=TIMED, reference=TIMED_REFERENCE)
    light = VerifyOptions(race=RaceCheckConfig.single_run())  # timing is what this is about
    honest = await verify(verify_sandbox, timed, openmp(HONEST_TIME), options=light)
    assert honest.timing is not None and honest.timing.source == "kernel", honest.timing
    v = await verify(verify_sandbox, timed, openmp(FORGED_TIME), options=light)
    assert v.timing is not None
    assert v.timing.source == "wall" and any("wall time used" in n for n in v.timing.notes)
    assert v.speedup <= 2 * 1.15  # the cores the sandbox has, with the noise margin


async def test_a_time_forged_beside_the_drivers_is_not_trusted(verify_sandbox):
    """ParEval's axpy in its driver: a correct OpenMP solution plus a global whose destructor
    prints a fake kernel time after the driver's. It was accepted at 17,761x; now the solution
    is rejected when it names stderr or the marker, and a marker spelled out of sight (string
    pieces on std::cerr) leaves two kernel times in the run, so wall time is used."""
    task = load_suite("pareval").task("03_dense_la_axpy")
    axpy = Spec.model_validate(task.spec_for(SuiteTarget.OPENMP))
    good = task.target(SuiteTarget.OPENMP).solutions[0].source
    light = VerifyOptions(race=RaceCheckConfig.single_run())
    plain = good + (
        '\nstruct F { ~F() { std::fprintf(stderr, "PARFORGE_TIME_S=0.000001\\n"); } } f_;\n'
    )
    v = await verify(verify_sandbox, axpy, openmp(plain), options=light)
    assert v.status is Status.SANITIZER_ERROR and "`stderr`" in v.reason, v.reason
    hidden = good + (
        '\nstruct F { ~F() { std::cerr << "PARFORGE_" "TIME_S=0.000001" << std::endl; } } f_;\n'
    )
    v = await verify(verify_sandbox, axpy, openmp(hidden), options=light)
    assert v.timing is not None and v.timing.source == "wall", v.timing
    assert "more than one kernel time" in v.timing.notes[0]
    assert v.speedup <= 2 * 1.15


RACY = """
    #pragma omp parallel for
    for (int i = 0; i < n; i++) s += x[i] * x[i];
"""

HOOKS = {
    "default options": 'const char *__tsan_default_options(void) { return "report_bugs=0"; }\n',
    "guarded hook": "#if defined(__has_feature)\n#if __has_feature(thread_sanitizer)\n"
    'const char *__tsan_default_options(void) { return "report_bugs=0"; }\n#endif\n#endif\n',
    "pasted name": "#define CAT(a, b) a##b\n"
    'const char *CAT(__tsan_default, _options)(void) { return "report_bugs=0"; }\n',
    "environment": '#include <stdlib.h>\nstatic int checked(void) { return getenv("TSAN_OPTIONS") != 0; }\n',
}


@pytest.mark.parametrize("hook", list(HOOKS))
async def test_a_racy_candidate_cannot_silence_the_race_checker(verify_sandbox, hook):
    source = HOOKS[hook] + OPENMP_TEMPLATE.replace("BODY", RACY)
    v = await verify(verify_sandbox, openmp_spec(), openmp(source), timing=False)
    assert v.status is Status.SANITIZER_ERROR, (v.status, v.reason)
    assert "rejected" in v.reason


async def test_the_instrumentation_is_checked_not_assumed(verify_sandbox):
    # A hook hidden from the source check and from nm (its name built at run time is not
    # possible, so: a program that deletes TSan's log after start-up) is `not run`, not clean.
    deleting = OPENMP_TEMPLATE.replace(
        "BODY",
        RACY
        + """
    { FILE *p = fopen(".tmp/x", "w"); if (p) fclose(p); }
    system("rm -f /work/.tmp/race-*");
""",
    )
    v = await verify(verify_sandbox, openmp_spec(), openmp(deleting), timing=False)
    assert v.status is not Status.PASSED


EXEC_REFERENCE = """
#include <unistd.h>
#include <omp.h>
int main(int argc, char **argv) {
    #pragma omp parallel
    { }
    char *args[] = {"../ref/prog", argv[1], 0};
    execv(args[0], args);
    return 1;
}
"""

READ_REFERENCE = """
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
int main(int argc, char **argv) {
    #pragma omp parallel
    { }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "../ref/prog %s", argv[1]);
    FILE *p = popen(cmd, "r");
    if (!p) return 1;
    int c;
    while ((c = fgetc(p)) != EOF) putchar(c);
    return pclose(p);
}
"""

SHELL_REFERENCE = """
#include <stdio.h>
#include <omp.h>
int main(int argc, char **argv) {
    #pragma omp parallel
    { }
    FILE *f = fopen("../ref/prog", "rb");
    printf("%s\\n", f ? "the reference is readable" : "sum 0");
    return f == 0;
}
"""


@pytest.mark.parametrize("source", [EXEC_REFERENCE, READ_REFERENCE, SHELL_REFERENCE])
async def test_the_candidate_cannot_reach_the_reference(verify_sandbox, source):
    v = await verify(verify_sandbox, openmp_spec(), openmp(source), timing=False)
    assert v.status is not Status.PASSED, v.reason


PROBE_REFERENCE = OPENMP_TEMPLATE.replace(
    "BODY",
    OPENMP_GOOD
    + """
    fprintf(stderr, "reference %s\\n", access("../ref/prog", F_OK) == 0 ? "seen" : "unseen");
""",
).replace("#include <omp.h>", "#include <omp.h>\n#include <unistd.h>")


async def test_the_reference_stays_out_of_the_candidates_reach(verify_sandbox):
    """The reference stays in the workspace for the paired timing, in a directory no candidate
    command may enter: a candidate cannot even see that it is there."""
    v = await verify(verify_sandbox, openmp_spec(), openmp(PROBE_REFERENCE), timing=False)
    assert v.status is Status.PASSED, v.reason
    runs = [s for s in v.steps if s.name.startswith("run candidate [tiny]")]
    assert runs and all("reference unseen" in s.stderr for s in runs), [s.stderr for s in runs]


# A correct reduction whose run lasts hours on any machine (2^45 iterations): under the race
# checker's short limit it can only time out. (4*10^9 iterations finished within the limit on a
# fast CI host: the loop body touches no memory, so TSan barely slows it.)
PI = r"""
#include <stdio.h>
int main(void) {
    long n = 1L << 45;
    double pi = 0;
    #pragma omp parallel for reduction(+:pi)
    for (long i = 0; i < n; i++) pi += (i % 2 ? -4.0 : 4.0) / (2 * i + 1);
    printf("%.6f\n", pi);
    return 0;
}
"""


async def test_a_hang_under_the_race_checker_is_not_a_race(verify_sandbox):
    config = RaceCheckConfig(threads=[2], schedules=["default"], timeout_s=2, static=False)
    result = await check_program(verify_sandbox, PI, "pi.c", config=config)
    assert result.race is None, result.findings
    assert result.not_run and "timed out" in result.not_run


BREAK_WORKSPACE = OPENMP_TEMPLATE.replace(
    "BODY",
    OPENMP_GOOD
    + """
    system("rm -rf /work/.tmp && ln -s / /work/.tmp");
""",
)
FILL_WORKSPACE = OPENMP_TEMPLATE.replace(
    "BODY",
    OPENMP_GOOD
    + """
    { FILE *f = fopen("/work/fill", "w"); static char b[1 << 20];
      for (int k = 0; f && k < 4096 && fwrite(b, 1, sizeof b, f) == sizeof b; k++) {}
      if (f) fclose(f); }
""",
)


@pytest.mark.parametrize("source", [BREAK_WORKSPACE, FILL_WORKSPACE])
async def test_a_broken_workspace_is_the_candidates_verdict(verify_sandbox, source):
    # Integrity checks aside (system() is itself a reason to reject), a candidate that breaks
    # its workspace gets a verdict and the sandbox keeps serving.
    v = await verify(verify_sandbox, openmp_spec(), openmp(source), timing=False)
    assert v.status is not Status.PASSED
    after = await verify(
        verify_sandbox,
        openmp_spec(),
        openmp(OPENMP_TEMPLATE.replace("BODY", OPENMP_GOOD)),
        timing=False,
    )
    assert after.status is Status.PASSED, after.reason


LIST_PROCESSES = "import os; print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))"


async def test_no_process_survives_its_command(verify_sandbox):
    async with verify_sandbox.workspace() as ws:
        daemon = "setsid sh -c 'sleep 300' </dev/null >/dev/null 2>&1 &"
        started = await ws.run(Command(argv=["sh", "-c", daemon], timeout_s=2))
        assert started.timed_out  # the command is its whole tree: held to its time-out
        listed = await ws.run(Command(argv=["python3", "-c", LIST_PROCESSES]))
    pids = eval(listed.stdout)  # a list of ints printed by the line above
    assert len(pids) == 2, pids  # the agent (PID 1) and the lister: the daemon is gone


async def test_no_shared_memory_survives_the_command(verify_sandbox):
    """A System V segment outlives its creator's exit: it goes with the command's identity,
    before the next command (of this job or another) could attach to it."""
    make = "import ctypes; print(ctypes.CDLL(None).shmget(0, 4096, 0o1666))"
    async with verify_sandbox.workspace() as ws:
        made = await ws.run(Command(argv=["python3", "-c", make]))
        assert int(made.stdout) >= 0, made
        table = await ws.run(Command(argv=["cat", "/proc/sysvipc/shm"]))
    assert table.stdout.strip().count("\n") == 0, table.stdout  # the header line only


MQUEUE = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
queue = libc.mq_open(b"/parforge-channel", os.O_CREAT | os.O_RDWR, 0o666, None)
print(queue, os.strerror(ctypes.get_errno()) if queue < 0 else "open")
message = libc.msgget(0x5150, 0o1666)
print(message, os.strerror(ctypes.get_errno()) if message < 0 else "open")
"""


async def test_no_message_queue_can_carry_anything_between_jobs(verify_sandbox):
    """A POSIX message queue written in one job was read by the next in the same warm
    container (the wipe cleared System V IPC only): a channel between jobs and between
    tenants. No queue of either kind can be created at all now."""
    async with verify_sandbox.workspace() as ws:
        made = await ws.run(Command(argv=["python3", "-c", MQUEUE]))
    posix, system_v = made.stdout.splitlines()
    assert posix.startswith("-1 ") and system_v.startswith("-1 "), made.stdout


# No false rejection: a call the reference makes itself is the candidate's to make too.
SCALED = '    double scale = getenv("SCALE") ? atof(getenv("SCALE")) : 1.0;\n'
SCALED_REFERENCE = OPENMP_TEMPLATE.replace(
    "BODY", SCALED + "    for (int i = 0; i < n; i++) s += scale * x[i] * x[i];"
)
SCALED_GOOD = OPENMP_TEMPLATE.replace(
    "BODY",
    SCALED
    + "    #pragma omp parallel for reduction(+:s)\n"
    + "    for (int i = 0; i < n; i++) s += scale * x[i] * x[i];",
)


async def test_a_call_the_reference_makes_is_no_reason_to_reject(verify_sandbox):
    passed = await verify(
        verify_sandbox, openmp_spec(reference=SCALED_REFERENCE), openmp(SCALED_GOOD), timing=False
    )
    assert passed.status is Status.PASSED, (passed.status, passed.reason)
    refused = await verify(verify_sandbox, openmp_spec(), openmp(SCALED_GOOD), timing=False)
    assert refused.status is Status.SANITIZER_ERROR and "getenv" in refused.reason
