import pytest

from sandbox.checkers.tsan import parse_tsan, tsan_failure, variable_at

# Captured from clang 14 + Archer runs (BuildIds removed), paths shortened by strip_path_prefix.
STACK_RACE = """\
==================
WARNING: ThreadSanitizer: data race (pid=756)
  Write of size 4 at 0x7ffc79b0094c by thread T1:
    #0 .omp_outlined._debug__ main.c:8:32 (mainr+0xd02b5)
    #1 .omp_outlined. main.c:7:3 (mainr+0xd02b5)
    #2 __kmp_invoke_microtask <null> (libomp.so.5+0xd55a2)
    #3 main main.c:7:3 (mainr+0xd0176)

  Previous write of size 4 at 0x7ffc79b0094c by main thread:
    #0 .omp_outlined._debug__ main.c:8:32 (mainr+0xd02b5)
    #1 .omp_outlined. main.c:7:3 (mainr+0xd02b5)
    #2 __kmp_invoke_microtask <null> (libomp.so.5+0xd55a2)
    #3 main main.c:7:3 (mainr+0xd0176)

  Location is stack of main thread.

  Location is global '??' at 0x7ffc79ae2000 ([stack]+0x1e94c)

  Thread T1 (tid=760, running) created by main thread at:
    #0 pthread_create <null> (mainr+0x513dd)
    #1 <null> <null> (libomp.so.5+0xaee17)

SUMMARY: ThreadSanitizer: data race main.c:8:32 in .omp_outlined._debug__
==================
ThreadSanitizer: reported 1 warnings
"""
STACK_SOURCE = {
    "main.c": "\n" * 7 + "  for (int i=0;i<1000;i++) sum += a[i];\n",
}

GLOBAL_AND_HEAP = """\
==================
WARNING: ThreadSanitizer: data race (pid=20221)
  Write of size 4 at 0x562e056f2258 by thread T1:
    #0 .omp_outlined._debug__ g.c:8:42 (g+0xd02b0)
    #1 .omp_outlined. g.c:7:3 (g+0xd02b0)

  Previous write of size 4 at 0x562e056f2258 by main thread:
    #0 .omp_outlined._debug__ g.c:8:42 (g+0xd02b0)

  Location is global 'counter' of size 4 at 0x562e056f2258 (g+0x1476258)

SUMMARY: ThreadSanitizer: data race g.c:8:42 in .omp_outlined._debug__
==================
==================
WARNING: ThreadSanitizer: data race (pid=20221)
  Write of size 4 at 0x7b0400000000 by thread T1:
    #0 .omp_outlined._debug__ g.c:8:51 (g+0xd02c4)
    #1 .omp_outlined. g.c:7:3 (g+0xd02c4)

  Previous write of size 4 at 0x7b0400000000 by main thread:
    #0 .omp_outlined._debug__ g.c:8:51 (g+0xd02c4)

  Location is heap block of size 16 at 0x7b0400000000 allocated by main thread:
    #0 malloc <null> (g+0x4fc21)
    #1 main g.c:5:12 (g+0xd0126)

SUMMARY: ThreadSanitizer: data race g.c:8:51 in .omp_outlined._debug__
==================
==================
WARNING: ThreadSanitizer: data race (pid=20221)
  Write of size 4 at 0x7b0400000000 by thread T2:
    #0 .omp_outlined._debug__ g.c:8:51 (g+0xd02c4)

  Previous write of size 4 at 0x7b0400000000 by thread T1:
    #0 .omp_outlined._debug__ g.c:8:51 (g+0xd02c4)

SUMMARY: ThreadSanitizer: data race g.c:8:51 in .omp_outlined._debug__
==================
ThreadSanitizer: reported 3 warnings
"""
G_SOURCE = {"g.c": "\n" * 7 + "  for (int i = 0; i < 100; i++) { counter++; h[0] += i; }\n"}

NO_LINE = """\
WARNING: ThreadSanitizer: data race (pid=2)
  Read of size 8 at 0x7ffcb49405c8 by thread T2:
    #0 .omp_outlined._debug__ main.c (prog+0xd0318)
    #1 .omp_outlined. main.c:7:3 (prog+0xd0318)

  Previous write of size 8 at 0x7ffcb49405c8 by main thread:
    #0 .omp_outlined._debug__ main.c:8:32 (prog+0xd0354)
    #1 .omp_outlined. main.c:7:3 (prog+0xd0354)

  Location is stack of main thread.
"""

TASK_REDUCTION = """\
==================
WARNING: ThreadSanitizer: data race (pid=13119)
  Read of size 8 at 0x7b3800000080 by main thread:
    #0 .red_comb. tl.c:7:36 (tl+0xd05bb)
    #1 <null> <null> (libomp.so.5+0x69fa5)
    #2 .omp_outlined._debug__ tl.c:7:54 (tl+0xd032b)

  Previous write of size 8 at 0x7b3800000080 by thread T1:
    #0 .omp_outlined. tl.c:8:30 (tl+0xd0800)
    #1 .omp_task_entry. tl.c:7:3 (tl+0xd0800)

SUMMARY: ThreadSanitizer: data race tl.c:7:36 in .red_comb.
==================
"""


def test_stack_race_names_the_variable_from_the_source_column():
    [f] = parse_tsan(STACK_RACE, STACK_SOURCE)
    assert (f.kind, f.file, f.line, f.variable, f.tool) == (
        "data race",
        "main.c",
        8,
        "sum",
        "archer-tsan",
    )
    assert (
        "write by thread T1 at main.c:8 vs previous write by main thread at main.c:8" in f.message
    )


def test_global_names_come_from_tsan_heap_ones_from_the_source_and_duplicates_merge():
    found = parse_tsan(GLOBAL_AND_HEAP, G_SOURCE)
    assert [(f.line, f.variable) for f in found] == [(8, "counter"), (8, "h")]


def test_without_sources_non_system_frames_are_used():
    [f] = parse_tsan(STACK_RACE)
    assert (f.file, f.line, f.variable) == ("main.c", 8, None)


def test_an_access_without_a_line_defers_to_the_other_one():
    [f] = parse_tsan(NO_LINE, STACK_SOURCE)
    assert (f.line, f.variable) == (8, "sum")
    assert "read by thread T2 at main.c vs previous write by main thread at main.c:8" in f.message


def test_static_locals_are_named_without_their_function():
    text = GLOBAL_AND_HEAP.replace("global 'counter'", "global 'main.counter'")
    assert parse_tsan(text, G_SOURCE)[0].variable == "counter"


TASK_MEMORY = """\
WARNING: ThreadSanitizer: data race (pid=2)
  Write of size 4 at 0x7f97c904e5e8 by main thread:
    #0 .omp_outlined._debug__ tasks.c:12:13 (prog+0xd0296)
    #1 .omp_outlined..1 tasks.c:8:5 (prog+0xd0296)

  Previous read of size 4 at 0x7f97c904e5e8 by thread T1:
    #0 .omp_outlined. tasks.c:13:17 (prog+0xd01ee)
    #1 .omp_task_entry. tasks.c:12:13 (prog+0xd01ee)
    #2 <null> <null> (libomp.so.5+0x66ff5)

  Location is heap block of size 1048576 at 0x7f97c8f51000 allocated by main thread:
    #0 malloc <null> (prog+0x4fc61)
    #1 <null> <null> (libomp.so.5+0x20919)
    #2 __kmp_invoke_microtask <null> (libomp.so.5+0xd55a2)
    #3 main tasks.c:8:5 (prog+0xd017b)

SUMMARY: ThreadSanitizer: data race tasks.c:12:13 in .omp_outlined._debug__
"""


def test_races_on_memory_the_runtime_allocated_can_be_skipped():
    assert len(parse_tsan(TASK_MEMORY)) == 1
    assert parse_tsan(TASK_MEMORY, skip_runtime_internals=True) == []
    # a heap block the program allocated itself is never skipped
    assert len(parse_tsan(GLOBAL_AND_HEAP, G_SOURCE, skip_runtime_internals=True)) == 2


def test_task_reduction_reports_can_be_skipped():
    assert len(parse_tsan(TASK_REDUCTION)) == 1
    assert parse_tsan(TASK_REDUCTION, skip_runtime_internals=True) == []


def test_other_report_kinds_keep_their_kind():
    text = "WARNING: ThreadSanitizer: lock-order-inversion (potential deadlock) (pid=1)\n  Cycle in lock order graph\n"
    [f] = parse_tsan(text)
    assert f.kind == "lock-order-inversion (potential deadlock)"


def test_runtime_failure_is_recognized():
    assert tsan_failure("FATAL: ThreadSanitizer: unexpected memory mapping 0x7f-0x80\n").startswith(
        "unexpected"
    )
    assert tsan_failure(STACK_RACE) is None


@pytest.mark.parametrize(
    ("line", "column", "name"),
    [
        ("  for (int i=0;i<1000;i++) sum += a[i];", 32, "sum"),  # compound store: at the operator
        ("    b[i] = a[i + 1] * 2;", 10, "b"),  # store through a subscript
        ("    b[i] = a[i + 1] * 2;", 12, "a"),  # load: at the array name
        ("    m[i][j] = 0;", 13, "m"),
        ("    count++;", 10, "count"),
        ("    ++count;", 5, "count"),
        ("    x = 1;", 7, "x"),
        ("", 3, None),
        ("    return 0;", 5, None),
    ],
)
def test_variable_at_a_column(line, column, name):
    assert variable_at(line, column) == name


def test_openmp_runs_do_not_let_libomp_probe_cpu_affinity_or_start_helpers() -> None:
    # libomp's start-up topology probe (sched_setaffinity to each CPU in turn) stalled 28 of 40
    # instrumented runs for tens of seconds on a 2-vCPU VM, so correct programs timed out under
    # the race check; with binding off, 0 of 40 did. Plain runs use the same runtime (libomp)
    # and the same settings; helper threads would blur the count of the team's threads.
    from sandbox.models import COLLECT
    from sandbox.spec import Language, TestCase
    from sandbox.toolchains.base import Paths, Sources
    from sandbox.toolchains.openmp import OpenMPToolchain, tsan_run

    program = Sources("race-x", "main.c", Language.C, (), ())
    command = tsan_run(program, TestCase(name="t"), 4, None, 60, Paths("/work"))
    plain = OpenMPToolchain().run(program, TestCase(name="t"), 4, 60, Paths("/work"))
    for made in (command, plain):
        assert made.env["KMP_AFFINITY"] == "disabled"
        assert made.env["LIBOMP_USE_HIDDEN_HELPER_TASK"] == "0"
        assert made.env["OMP_NUM_THREADS"] == "4"
    # The tools' logs go to the run's own tool-log directory, never the program's output.
    assert command.collect and f"log_path={COLLECT}/tsan" in command.env["TSAN_OPTIONS"]
