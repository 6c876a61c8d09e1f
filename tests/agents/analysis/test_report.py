"""The report `parforge analyse` prints: each loop's pattern, clauses, assumptions and the
ranges of the elements it touches, on loops whose verdicts do not depend on fine points."""

from __future__ import annotations

import pytest

from agents.analysis import analyse
from agents.analysis.report import LoopReport, affine, report
from sandbox.spec import Language

PROGRAM = """
#include <stddef.h>

void scale(double *restrict y, const double *restrict x, int n) {
    for (int i = 0; i < n; i++) y[i] = 2.0 * x[i];
}

long total(const int *v, int n) {
    long s = 0;
    for (int i = 0; i < n; i++) s += v[i];
    return s;
}

void counts(const unsigned char *pixels, int n, long bins[256]) {
    long local[256] = {0};
    for (int i = 0; i < n; i++) local[pixels[i]]++;
    for (int k = 0; k < 256; k++) bins[k] = local[k];
}

int smallest(const double *d, int n) {
    double best = d[0];
    int at = 0;
    for (int i = 1; i < n; i++) {
        if (d[i] < best) { best = d[i]; at = i; }
    }
    return at;
}

void prefix(const int *x, int *y, int n) {
    int acc = 0;
    for (int i = 0; i < n; i++) {
        acc += x[i];
        y[i] = acc;
    }
}

void decay(double *a, int n) {
    for (int i = 1; i <= n; i++) a[i] = 0.5 * a[i - 1] * a[i - 1];
}

#define N 64
double u[N][N], next[N][N];

void blur(void) {
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++)
            next[i][j] = u[i - 1][j] + u[i][j + 1];
}

void rows(double *restrict out, const double *restrict u, int n) {
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            out[j] = u[j - 1];
}
"""

SEARCH = """
int find(const int *x, int n, int key) {
    for (int i = 0; i < n; i++) {
        if (x[i] == key) return i;
    }
    return -1;
}
"""


@pytest.fixture(scope="module")
def loops() -> dict[tuple[str, int], LoopReport]:
    """The reports by (function, position of the loop in it)."""
    # A search keeps its first index with std::numeric_limits: C++ only.
    found = report(analyse(PROGRAM, Language.C)).loops + report(analyse(SEARCH, Language.CPP)).loops
    by_function: dict[str, list[LoopReport]] = {}
    for loop in found:
        by_function.setdefault(loop.function, []).append(loop)
    return {(f, n): loop for f, each in by_function.items() for n, loop in enumerate(each)}


@pytest.mark.parametrize(
    ("function", "kind", "parallelisable"),
    [
        ("scale", "independent", True),
        ("total", "reduction", True),
        ("counts", "histogram", True),
        ("smallest", "argmin", True),
        ("prefix", "scan", True),
        ("find", "search", True),
        ("decay", "carried", False),
    ],
)
def test_each_pattern_gets_its_kind(
    loops: dict[tuple[str, int], LoopReport], function: str, kind: str, parallelisable: bool
) -> None:
    loop = loops[function, 0]
    assert (loop.kind, loop.parallelisable) == (kind, parallelisable), loop.reason


def test_an_independent_loop_reading_neighbours_of_an_array_it_does_not_write_is_a_stencil(
    loops: dict[tuple[str, int], LoopReport],
) -> None:
    assert loops["blur", 0].kind == "stencil"  # u[i - 1][j]
    assert loops["blur", 1].kind == "stencil"  # u[i][j + 1]
    flat = report(
        analyse(
            "void f(double *restrict v, const double *restrict u, int n) {"
            " for (int i = 1; i < n - 1; i++) for (int j = 1; j < n - 1; j++)"
            " v[i * n + j] = u[(i - 1) * n + j] + u[(i + 1) * n + j]; }",
            Language.C,
        )
    )
    assert [loop.kind for loop in flat.loops] == ["stencil", "independent"]  # rows apart
    # Reading its own elements of an array it does not write is no stencil.
    assert loops["scale", 0].kind == "independent"


def test_clauses_are_the_default_directives(loops: dict[tuple[str, int], LoopReport]) -> None:
    assert loops["scale", 0].clauses == ("schedule(static)",)
    assert loops["total", 0].clauses == ("reduction(+:s)", "schedule(static)")
    assert loops["counts", 0].clauses == ("reduction(+:local)", "schedule(static)")
    assert loops["find", 0].clauses == ("reduction(min:first_i)", "schedule(static)")
    assert loops["decay", 0].clauses == ()
    assert loops["total", 0].reductions == ("+:s",)
    assert loops["smallest", 0].reductions == ("min-loc:best,at",)
    assert loops["prefix", 0].reductions == ("scan:+:acc",)


def test_only_the_outer_loop_of_a_nest_is_chosen(loops: dict[tuple[str, int], LoopReport]) -> None:
    assert loops["blur", 0].chosen and not loops["blur", 1].chosen
    assert loops["blur", 1].clauses == ("schedule(static)",)  # its own, if it were chosen
    assert not loops["decay", 0].chosen


def test_assumptions_come_from_the_verdict(loops: dict[tuple[str, int], LoopReport]) -> None:
    program = analyse(PROGRAM, Language.C)
    for (function, _), loop in loops.items():
        if function == "find":
            continue  # another program
        assert loop.assumptions == program.loop(loop.id).dependence.assumptions
    assert loops["decay", 0].reason


def test_ranges_of_affine_subscripts_come_from_the_loop_bounds(
    loops: dict[tuple[str, int], LoopReport],
) -> None:
    decay = loops["decay", 0].accesses["a"]
    assert [(s.index, s.ranges) for s in decay.reads] == [(("i - 1",), (("0", "n - 1"),))]
    assert [(s.index, s.ranges) for s in decay.writes] == [(("i",), (("1", "n"),))]
    assert loops["scale", 0].accesses["x"].reads[0].ranges == (("0", "n - 1"),)


def test_a_triangular_nest_gives_exact_ranges_and_the_outer_variable_stays_a_symbol(
    loops: dict[tuple[str, int], LoopReport],
) -> None:
    outer, inner = loops["rows", 0], loops["rows", 1]
    assert outer.accesses["u"].reads[0].ranges == (("0", "n - 2"),)
    assert outer.accesses["out"].writes[0].ranges == (("1", "n - 1"),)
    assert inner.accesses["u"].reads[0].ranges == (("i", "n - 2"),)


def test_subscripts_that_are_not_affine_or_not_fixed_are_unknown(
    loops: dict[tuple[str, int], LoopReport],
) -> None:
    assert loops["counts", 0].accesses["local"].writes[0].ranges == ("unknown",)
    program = analyse(
        "void f(double *x, int n, int m) {"
        " for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) x[i * m + j] = 0; }",
        Language.C,
    )
    assert report(program).loops[0].accesses["x"].writes[0].ranges == ("unknown",)  # i * m
    program = analyse(
        "void f(int *x, int n) { int k = 0; for (int i = 0; i < n; i++) { x[k] = i; k++; } }",
        Language.C,
    )
    (loop,) = report(program).loops
    assert loop.accesses["x"].writes[0].ranges == ("unknown",)  # k changes as it runs


def test_a_downward_loop_runs_from_its_bound_to_its_start() -> None:
    program = analyse(
        "void f(int *x, int n) { for (int i = n - 1; i >= 2; i -= 1) x[i] = x[i] + 1; }",
        Language.C,
    )
    (loop,) = report(program).loops
    assert loop.accesses["x"].writes[0].ranges == (("2", "n - 1"),)


def test_affine_forms() -> None:
    assert affine("2 * ( i + 1 ) - n") == {"": 2, "i": 2, "n": -1}
    assert affine("x.size() - 1") == {"x.size()": 1, "": -1}
    assert affine("i * n") is None
    assert affine("idx [ i ]") is None
    assert affine("-i") == {"i": -1}


def test_each_dimension_of_a_two_dimensional_array_has_its_range(
    loops: dict[tuple[str, int], LoopReport],
) -> None:
    reads = {s.index: s.ranges for s in loops["blur", 0].accesses["u"].reads}
    assert reads[("i - 1", "j")] == (("0", "N - 3"), ("1", "N - 2"))
    assert reads[("i", "j + 1")] == (("1", "N - 2"), ("2", "N - 1"))


def test_a_function_filter_keeps_its_loops_only() -> None:
    found = report(analyse(PROGRAM, Language.C), "total")
    assert [loop.function for loop in found.loops] == ["total"]
    assert found.language == "c"
