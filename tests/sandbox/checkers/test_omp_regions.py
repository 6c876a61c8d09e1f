"""The static rules for master/masked, critical names, teams, flags, static locals and
conditional writes in worksharing loops."""

from sandbox.checkers.omp_rewrite import without_teams
from sandbox.checkers.omp_static import check_source
from sandbox.checkers.tsan import tool_crash


def found(source: str) -> list[tuple[str, int | None, str | None]]:
    return [(f.kind, f.line, f.variable) for f in check_source(source)]


MASTER = """\
#include <omp.h>
int main(void) {
  int base = 0, out[8] = {0};
  #pragma omp parallel
  {
    EARLY
    #pragma omp DIRECTIVE
    base = 100;
    SYNC
    int t = omp_get_thread_num();
    out[t % 8] = base + t;
  }
  return out[0];
}
"""


def master(directive: str = "master", sync: str = "", early: str = "") -> str:
    return MASTER.replace("DIRECTIVE", directive).replace("SYNC", sync).replace("EARLY", early)


def test_master_and_masked_without_a_barrier():
    assert found(master()) == [("master race", 11, "base")]
    assert found(master("masked")) == [("masked race", 11, "base")]
    assert found(master("masked filter(1)")) == [("masked race", 11, "base")]
    assert found(master("single nowait")) == [("single race", 11, "base")]
    assert found(master(sync="#pragma omp barrier")) == []
    assert found(master("single")) == []  # its implicit barrier


def test_a_read_before_the_master_block_races_too():
    assert found(master(early="out[1] = base;", sync="#pragma omp barrier")) == [
        ("master race", 8, "base")
    ]


def test_master_writing_a_private_variable_is_fine():
    source = (
        master()
        .replace("  int base = 0, out", "  int out")
        .replace("  {\n", "  {\n  int base = 0;\n", 1)
    )
    assert found(source) == []


CRITICALS = """\
int main(void) {
  long balance = 0;
  #pragma omp parallel for
  for (int i = 0; i < 100; i++) {
    if (i % 2) {
      #pragma omp critical(A)
      balance += 3;
    } else {
      #pragma omp critical(B)
      balance -= 1;
    }
  }
  return (int)balance;
}
"""


def test_critical_sections_of_different_names_on_one_location():
    assert found(CRITICALS) == [("critical race", 10, "balance")]
    assert found(CRITICALS.replace("critical(B)", "critical(A)")) == []
    sections = """\
int size = 0;
int main(void) {
  #pragma omp parallel sections
  {
    #pragma omp section
    {
      #pragma omp critical(produce)
      size++;
    }
    #pragma omp section
    {
      #pragma omp critical(consume)
      size--;
    }
  }
}
"""
    assert found(sections) == [("critical race", 13, "size")]


def test_different_critical_names_in_phases_apart_are_fine():
    source = """\
int main(void) {
  long total = 0;
  #pragma omp parallel
  {
    #pragma omp for
    for (int i = 0; i < 100; i++) {
      #pragma omp critical(first)
      total += i;
    }
    #pragma omp for
    for (int i = 0; i < 100; i++) {
      #pragma omp critical(second)
      total -= 1;
    }
  }
  return (int)total;
}
"""
    assert found(source) == []
    assert found(
        source.replace(
            "#pragma omp for\n    for (int i = 0; i < 100; i++) {\n      #pragma omp critical(first)",
            "#pragma omp for nowait\n    for (int i = 0; i < 100; i++) {\n      #pragma omp critical(first)",
        )
    ) == [("critical race", 13, "total")]


TEAMS_CRITICAL = """\
int hits = 0;
int main(void) {
  #pragma omp target teams distribute parallel for map(tofrom: hits) TEAMS
  for (int i = 0; i < 100; i++) {
    #pragma omp critical
    hits++;
  }
  return hits;
}
"""


def test_critical_inside_teams_excludes_one_team_only():
    assert found(TEAMS_CRITICAL.replace("TEAMS", "")) == [("teams critical race", 6, "hits")]
    assert found(TEAMS_CRITICAL.replace("TEAMS", "num_teams(1)")) == []
    atomic = TEAMS_CRITICAL.replace("TEAMS", "").replace("critical", "atomic")
    assert found(atomic) == []


DISTRIBUTE = """\
float a[64], b[64];
int main(void) {
  #pragma omp target teams map(tofrom: a, b)
  {
    #pragma omp distribute
    for (int i = 0; i < 64; i++)
      b[i] = a[i] * 2;
    #pragma omp distribute
    for (int i = SECOND)
      a[i] = b[i] + 1;
  }
}
"""


def test_distribute_loops_share_no_barrier():
    backwards = DISTRIBUTE.replace("SECOND", "63; i >= 0; i--")
    assert found(backwards) == [("teams race", 10, "a")]
    # The same iterations, the same elements: each team touches only its own.
    assert found(DISTRIBUTE.replace("SECOND", "0; i < 64; i++")) == []


FLAG = """\
#include <omp.h>
int main(void) {
  int data = 0, ready = 0, got = 0;
  #pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) {
      data = 42;
      FENCE
      #pragma omp atomic write WRITE
      ready = 1;
    } else {
      int go = 0;
      while (!go) {
        #pragma omp atomic read READ
        go = ready;
      }
      got = data;
    }
  }
  return got;
}
"""


def flag(write: str = "", read: str = "acquire", fence: str = "") -> str:
    return FLAG.replace("WRITE", write).replace("READ", read).replace("FENCE", fence)


def test_a_flag_orders_data_only_with_release_and_acquire():
    assert found(flag()) == [("flag race", 17, "data")]
    assert "no release" in check_source(flag())[0].message
    assert found(flag(write="release", read="")) == [("flag race", 17, "data")]
    assert found(flag(write="release")) == []
    assert found(flag(write="seq_cst", read="seq_cst")) == []
    assert found(flag(fence="#pragma omp flush")) == []


def test_static_locals_in_a_region_or_a_function_it_calls():
    region = """\
int main(void) {
  int out[100];
  #pragma omp parallel
  {
    STORAGE int scratch;
    #pragma omp for
    for (int i = 0; i < 100; i++) { scratch = i * 2; out[i] = scratch; }
  }
  return out[3];
}
"""
    assert found(region.replace("STORAGE", "static")) == [("static local race", 7, "scratch")]
    assert found(region.replace("STORAGE", "")) == []
    assert found(region.replace("STORAGE", "static const")) == []


CONDITIONAL = """\
int main(int argc, char **argv) {
  int n = argc > 1 ? 20000 : 10, flag = 0;
  int v[20000];
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    v[i] = i;
    if (COND)
      TARGET = -1;
  }
  return v[0] + flag;
}
"""


def conditional(cond: str, target: str = "v[0]") -> list[tuple[str, int | None, str | None]]:
    return found(CONDITIONAL.replace("COND", cond).replace("TARGET", target))


def test_a_write_every_iteration_makes_once_its_condition_holds():
    assert conditional("n > 5000") == [("shared write race", 8, "v")]
    assert conditional("n > 5000", "flag") == [("shared write race", 8, "flag")]
    assert conditional("n > 5000 && i == 0") == []  # one iteration
    assert conditional("v[i] < 0") == []  # depends on the iteration
    assert conditional("check(n)") == []  # a call may answer per iteration
    assert conditional("n > 5000", "v[i]") == []


def test_teams_run_as_one_team_of_threads_for_the_dynamic_check():
    source = (
        "#pragma omp target teams num_teams(4) \\\n  map(tofrom: a[0:n]) thread_limit(8)\n{\n"
        "#pragma omp distribute dist_schedule(static, 2)\nfor(;;);\n"
        "#pragma omp distribute parallel for simd private(j)\nfor(;;);\n}\n"
        "#pragma omp target teams distribute parallel for reduction(+: s) map(to: x) nowait\n"
        "for(;;) t = omp_get_team_num() + omp_get_num_teams();\n"
        "#pragma omp target data map(tofrom: a)\n{}\n"
        "#pragma omp declare target\nint f(int);\n#pragma omp end declare target\n"
    )
    out, n = without_teams(source)
    assert n == 5 and out.count("\n") == source.count("\n")
    lines = out.splitlines()
    assert lines[0] == "#pragma omp parallel num_threads(4)" and lines[1] == ""
    assert lines[3] == "#pragma omp for nowait"
    assert lines[5] == "#pragma omp for simd nowait private(j)"
    assert lines[8] == "#pragma omp parallel for reduction(+: s)"
    assert lines[9] == "for(;;) t = omp_get_thread_num() + omp_get_num_threads();"
    assert lines[10] == "" and lines[12] == "#pragma omp declare target"
    assert without_teams("#pragma omp parallel for\nfor(;;);\n") == (
        "#pragma omp parallel for\nfor(;;);\n",
        0,
    )


CRASH = """\
***** Running under ThreadSanitizer v3 (pid 10) *****
==10==ERROR: ThreadSanitizer: SEGV on unknown address 0x000000000000 (pc 0x7f T10)
==10==The signal is caused by a READ memory access.
    #0 <null> <null> (FRAME+0x4254) (BuildId: 3e10)
    #1 <null> <null> (libomp.so.5+0x43285) (BuildId: e9e0)
    #2 __kmpc_fork_teams <null> (libomp.so.5+0x2e18b) (BuildId: e9e0)
    #3 main /w/t.c:8:5 (p+0xd01ad) (BuildId: f1e9)

ThreadSanitizer can not provide additional info.
SUMMARY: ThreadSanitizer: SEGV
"""


def test_a_crash_inside_archer_is_the_checkers_not_the_programs():
    assert tool_crash(CRASH.replace("FRAME", "libarcher.so")) == (
        "SEGV in libarcher.so (under __kmpc_fork_teams)"
    )
    assert tool_crash(CRASH.replace("FRAME", "t")) is None  # the program's own crash
    assert tool_crash("WARNING: ThreadSanitizer: data race (pid=3)\n") is None
