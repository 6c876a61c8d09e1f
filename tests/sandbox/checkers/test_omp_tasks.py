"""The static task rules: sibling dependences, the creator's accesses, descendants, mergeable."""

from sandbox.checkers.omp_static import check_source


def found(source: str) -> list[tuple[str, int | None, str | None]]:
    return [(f.kind, f.line, f.variable) for f in check_source(source)]


SIBLINGS = """\
int main(void) {
  int x = 0, y = 0, z = 0;
  #pragma omp parallel
  #pragma omp single
  {
    #pragma omp task FIRST
    x = 1;
    #pragma omp task SECOND
    x += y;
  }
  return x + z;
}
"""


def siblings(first: str, second: str) -> list[tuple[str, int | None, str | None]]:
    return found(SIBLINGS.replace("FIRST", first).replace("SECOND", second))


def test_sibling_tasks_unordered_by_their_dependences_race():
    assert siblings("", "") == [("task dependence race", 9, "x")]
    assert siblings("depend(out: x)", "depend(in: y)") == [("task dependence race", 9, "x")]
    assert siblings("depend(in: x)", "depend(in: x)") == [("task dependence race", 9, "x")]


def test_each_kind_of_dependence_that_orders_two_tasks():
    for first, second in [
        ("depend(out: x)", "depend(in: x)"),
        ("depend(in: x)", "depend(inout: x)"),
        ("depend(inout: x)", "depend(mutexinoutset: x)"),
        ("depend(mutexinoutset: x)", "depend(in: x)"),
        ("depend(inoutset: x)", "depend(in: x)"),
        ("depend(out: x) depend(in: z)", "depend(out: z)"),  # through a second item
        ("depend(out: x[0:4])", "depend(in: x[2])"),  # sections the pass cannot tell apart
        ("depend(depobj: o)", ""),  # unknown: ordered, silently
        ("if(0)", ""),  # undeferred: done before the next is created
    ]:
        assert siblings(first, second) == [], (first, second)


def test_mutexinoutset_tasks_exclude_each_other():
    assert siblings("depend(mutexinoutset: x)", "depend(mutexinoutset: x)") == []


def test_a_chain_through_a_third_task_orders_the_pair():
    source = SIBLINGS.replace(
        "    #pragma omp task SECOND",
        "    #pragma omp task depend(in: x) depend(out: z)\n    z = 1;\n"
        "    #pragma omp task depend(in: z)",
    ).replace("FIRST", "depend(out: x)")
    assert found(source) == []


def test_taskwait_or_barrier_between_siblings_orders_them():
    for sync in ("#pragma omp taskwait", "#pragma omp barrier"):
        source = SIBLINGS.replace(
            "    #pragma omp task SECOND", f"    {sync}\n    #pragma omp task"
        )
        assert found(source.replace("FIRST", "")) == []


def test_private_copies_and_locked_tasks_are_not_shared_accesses():
    assert siblings("firstprivate(x)", "") == []
    source = SIBLINGS.replace(
        "    x += y;", "    { omp_set_lock(&l); x += y; omp_unset_lock(&l); }"
    )
    assert found(source.replace("FIRST", "").replace("SECOND", "")) == []


def test_tasks_outside_any_parallel_region_have_no_other_thread():
    source = SIBLINGS.replace("  #pragma omp parallel\n  #pragma omp single\n", "")
    assert found(source.replace("FIRST", "").replace("SECOND", "")) == []


DEPWAIT = """\
#include <stdio.h>
static void step(void) {
  int count = 0, scale = 1;
  #pragma omp task depend(inout: count) shared(count)
  count += 5;
  #pragma omp task SCALE shared(scale)
  scale *= 3;
  #pragma omp task depend(in: WAITED) if(0)
  {}
  printf("%d %d\\n", count, scale);
  #pragma omp taskwait
}
int main(void) {
  #pragma omp parallel
  #pragma omp single
  step();
}
"""


def test_an_undeferred_task_waits_only_for_what_it_depends_on():
    source = DEPWAIT.replace("SCALE", "").replace("WAITED", "count")
    assert found(source) == [("task race", 10, "scale")]
    both = DEPWAIT.replace("SCALE", "depend(inout: scale)").replace("WAITED", "count, scale")
    assert found(both) == []


GRANDCHILD = """\
int main(void) {
  int part[2] = {0, 0}, sum = 0;
  #pragma omp parallel
  #pragma omp single
  {
    OPEN
    #pragma omp task shared(part)
    {
      #pragma omp task shared(part)
      part[1] = 2;
      INNER
      part[0] = 1;
    }
    CLOSE
    #pragma omp taskwait
    sum = part[0] + part[1];
  }
  return sum;
}
"""


def test_taskwait_does_not_wait_for_a_childs_own_tasks():
    def program(open_: str = "", close: str = "", inner: str = "") -> str:
        return GRANDCHILD.replace("OPEN", open_).replace("CLOSE", close).replace("INNER", inner)

    [(kind, line, name)] = found(program())
    assert (kind, line, name) == ("task race", 16, "part")
    assert "own child" in check_source(program())[0].message
    assert found(program(inner="#pragma omp taskwait")) == []
    assert found(program(open_="#pragma omp taskgroup\n    {", close="}")) == []


def test_instances_of_a_task_in_a_loop_write_one_location():
    source = """\
int main(void) {
  int hits = 0;
  #pragma omp parallel
  #pragma omp single
  for (int i = 0; i < 8; i++) {
    #pragma omp task CLAUSE
    hits++;
  }
  return hits;
}
"""
    assert found(source.replace("CLAUSE", "shared(hits)")) == [("task dependence race", 7, "hits")]
    assert found(source.replace("CLAUSE", "shared(hits) depend(inout: hits)")) == []
    assert found(source.replace("CLAUSE", "shared(hits) if(0)")) == []
    atomic = source.replace("CLAUSE", "shared(hits)").replace(
        "    hits++;", "    {\n#pragma omp atomic\n    hits++;}"
    )
    assert found(atomic) == []


def test_a_mergeable_task_writing_its_firstprivate_copy():
    source = """\
#include <stdio.h>
int main(void) {
  int level = 7;
  #pragma omp task mergeable CLAUSE
  level += 2;
  #pragma omp taskwait
  printf("%d\\n", level);
}
"""
    [f] = check_source(source.replace("CLAUSE", ""))
    assert (f.kind, f.line, f.variable) == ("mergeable task race", 7, "level")
    assert "lines" not in f.message and "line 5" in f.message and "line 7" in f.message
    assert found(source.replace("CLAUSE", "shared(level)")) == []
    assert found(source.replace("mergeable CLAUSE", "")) == []  # a firstprivate copy, never merged
