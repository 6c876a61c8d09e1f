from sandbox.checkers.omp_rewrite import with_runtime_schedule
from sandbox.checkers.omp_static import check_source


def _wrap(body: str) -> str:
    return (
        "int main(void) {\n  double a[100], b[100], c[100], s = 0, t;\n  int n = 100, k = 3;\n"
        + body
        + "\n}\n"
    )


def kinds(body: str) -> list[tuple[str, int | None, str | None]]:
    return [(f.kind, f.line, f.variable) for f in check_source(_wrap(body))]


def test_flow_dependence_in_simd_is_reported_at_the_later_access():
    body = "  #pragma omp simd\n  for (int i = 1; i < n; i++)\n    a[i] = a[i - 1] + b[i];"
    assert kinds(body) == [("simd dependence", 6, "a")]


def test_forward_read_before_the_store_is_safe_but_not_after_it():
    safe = "  #pragma omp simd\n  for (int i = 0; i < n - 1; i++)\n    a[i] = a[i + 1] + b[i];"
    unsafe = "  #pragma omp simd\n  for (int i = 0; i < n - 1; i++) {\n    a[i] = b[i];\n    c[i] = a[i + 1];\n  }"
    assert kinds(safe) == []
    assert kinds(unsafe) == [("simd dependence", 7, "a")]


def test_safelen_at_or_below_the_distance_is_safe():
    body = (
        "  #pragma omp simd safelen({})\n  for (int i = 4; i < n; i++)\n    a[i] = a[i - 4] * 0.5;"
    )
    assert kinds(body.format(4)) == []
    assert kinds(body.format(8)) == [("simd dependence", 6, "a")]


def test_shared_scalar_writes_unless_reduction_private_or_declared_inside():
    acc = "  #pragma omp simd{}\n  for (int i = 0; i < n; i++)\n    s += a[i];"
    assert kinds(acc.format("")) == [("simd shared write", 6, "s")]
    assert kinds(acc.format(" reduction(+: s)")) == []
    tmp = "  #pragma omp simd{}\n  for (int i = 0; i < n; i++) {{ t = a[i] * 2; b[i] = t; }}"
    assert kinds(tmp.format("")) == [("simd shared write", 5, "t")]
    assert kinds(tmp.format(" private(t)")) == []
    declared = (
        "  #pragma omp simd\n  for (int i = 0; i < n; i++) { const double u = a[i] * 2; b[i] = u; }"
    )
    assert kinds(declared) == []


def test_all_lanes_writing_one_element_is_reported():
    body = "  #pragma omp simd\n  for (int i = 0; i < n; i++)\n    c[0] = a[i];"
    assert kinds(body) == [("simd shared write", 6, "c")]


def test_unreadable_subscripts_and_symbolic_offsets_are_left_alone():
    body = (
        "  #pragma omp simd\n  for (int i = 0; i < n / 2; i++)\n    a[2 * i] = a[2 * i + 1];\n"
        "  #pragma omp simd\n  for (int i = 0; i < n - k; i++)\n    a[i] = a[i + k] + a[i];\n"
    )
    assert kinds(body) == []


def test_inner_simd_of_a_parallel_row_loop():
    body = (
        "  double m[10][100];\n  #pragma omp parallel for\n  for (int r = 0; r < 10; r++) {\n"
        "    #pragma omp simd\n    for (int j = 1; j < n; j++)\n      m[r][j] = m[r][j] + m[r][j - 1];\n  }"
    )
    assert kinds(body) == [("simd dependence", 9, "m")]


def test_comments_and_non_simd_loops_are_ignored():
    body = (
        "  // #pragma omp simd\n  for (int i = 1; i < n; i++) a[i] = a[i - 1];\n"
        "  #pragma omp parallel for\n  for (int i = 1; i < n; i++) b[i] = a[i];"
    )
    assert kinds(body) == []


ORPHAN = """\
static int out[8]; static int pos;
static void emit(int v) {
  #pragma omp ordered
  { out[pos++] = v; }
}
int main(void) {
  #pragma omp parallel for{}
  for (int i = 0; i < 8; i++) emit(i);
}
"""


def test_orphaned_ordered_called_from_a_loop_without_the_clause():
    [f] = check_source(ORPHAN.replace("{}", ""))
    assert (f.kind, f.line) == ("ordered misuse", 8)
    assert check_source(ORPHAN.replace("{}", " ordered")) == []


LASTPRIVATE = """\
int main(void) {
  int last = 0, seen[64];
  #pragma omp parallel
  {
    #pragma omp for lastprivate(last){}
    for (int i = 0; i < 100; i++) last = i;
    seen[omp_get_thread_num()] = last;
  }
}
"""


def test_lastprivate_of_a_nowait_loop_used_before_a_barrier():
    [f] = check_source(LASTPRIVATE.replace("{}", " nowait"))
    assert (f.kind, f.line, f.variable) == ("lastprivate race", 7, "last")
    assert check_source(LASTPRIVATE.replace("{}", "")) == []
    with_barrier = LASTPRIVATE.replace("{}", " nowait").replace(
        "    seen", "    #pragma omp barrier\n    seen"
    )
    assert check_source(with_barrier) == []


TASK = """\
int main(void) {
  long r = 0, shown = 0;
  #pragma omp parallel
  #pragma omp single
  {
    #pragma omp task shared(r)CLAUSE
    r = 42;
    SYNCshown = r;
  }
}
"""


def test_task_result_read_before_taskwait():
    def task(clause: str = "", sync: str = "") -> str:
        return TASK.replace("CLAUSE", clause).replace("SYNC", sync)

    [f] = check_source(task())
    assert (f.kind, f.line, f.variable) == ("task race", 8, "r")
    assert check_source(task(sync="#pragma omp taskwait\n    ")) == []
    # A dependence orders sibling tasks, never the code that created them.
    assert [f.line for f in check_source(task(clause=" depend(out: r)"))] == [8]


def test_runtime_schedule_rewrite_keeps_lines_and_explicit_schedules():
    source = (
        "#pragma omp parallel for // note\nfor(;;);\n"
        "#pragma omp for schedule(static) nowait\nfor(;;);\n"
        "#pragma omp parallel \\\n    for reduction(+:s)\nfor(;;);\n"
        "#pragma omp taskloop\nfor(;;);\n#pragma omp simd\nfor(;;);\n"
    )
    out, n = with_runtime_schedule(source)
    assert n == 2
    assert out.count("\n") == source.count("\n")
    lines = out.splitlines()
    assert lines[0] == "#pragma omp parallel for schedule(runtime) // note"
    assert lines[2] == "#pragma omp for schedule(static) nowait"
    assert lines[5] == "    for reduction(+:s) schedule(runtime)"
    assert "runtime" not in lines[7] + lines[9]


ORDERED_LOOP = """\
int main(void) {
  long total = 0, trace = 0;
  #pragma omp parallel for ordered schedule(dynamic)CLAUSE
  for (int i = 0; i < 100; i++) {
    long v = i * 3;
    total += v;
    #pragma omp ordered
    trace = trace * 31 + v;
  }
}
"""


def test_shared_write_outside_the_ordered_region():
    [f] = check_source(ORDERED_LOOP.replace("CLAUSE", ""))
    assert (f.kind, f.line, f.variable) == ("ordered race", 6, "total")
    assert check_source(ORDERED_LOOP.replace("CLAUSE", " reduction(+: total)")) == []
    inside = (
        ORDERED_LOOP.replace("CLAUSE", "")
        .replace("    total += v;\n", "")
        .replace("trace = trace * 31 + v;", "{ total += v; trace = trace * 31 + v; }")
    )
    assert check_source(inside) == []
