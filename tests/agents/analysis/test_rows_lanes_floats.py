"""Flattened rows: `a[r * n + c]` of different rows are different elements only where the
column provably stays inside its row (0 <= c < n); a column that may run past the row's end
reaches the next row, which another iteration writes."""

from __future__ import annotations

import pytest

from agents.analysis import analyse, annotatable, choice_schema
from sandbox.spec import Language


def _outer(source: str, language: Language = Language.C):
    program = analyse(source, language)
    return program.loops[0]


@pytest.mark.parametrize(
    "header",
    [
        "for (int j = 0; j < 2 * n; j++)",  # the column runs into the next row
        "for (int j = 0; j <= n; j++)",  # one past the row's end
        "for (int j = -1; j < n; j++)",  # one before the row's start
        "for (int j = 0; j < m; j++)",  # a bound unrelated to the row length
        "for (int j = 0; j < n; j++, j++) for (;;)",  # not a header of the counted form
    ],
)
def test_a_column_that_may_leave_its_row_is_refused(header: str) -> None:
    source = f"void f(int n, int m, int *a) {{ for (int i = 0; i < n; i++) {header} a[i * n + j] += 1; }}"
    loop = _outer(source)
    assert loop.dependence.kind != "independent", loop.dependence.reason


def test_the_issue_example_is_refused_with_a_reason() -> None:
    source = (
        "void f(int n, int *a) { for (int i = 0; i < n; i++) "
        "for (int j = 0; j < 2 * n; j++) a[i * n + j] += 1; }"
    )
    loop = _outer(source)
    assert loop.dependence.kind == "carried"
    assert "a[i * n + j]" in loop.dependence.reason


def test_an_inner_variable_added_without_a_row_is_refused() -> None:
    source = "void f(int n, int *a) { for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) a[i + j] += 1; }"
    assert _outer(source).dependence.kind != "independent"


def test_a_column_the_body_changes_is_refused() -> None:
    source = (
        "void f(int n, int *a) { for (int i = 0; i < n; i++) "
        "for (int j = 0; j < n; j++) { j += 2; a[i * n + j] = 1; } }"
    )
    assert _outer(source).dependence.kind != "independent"


def test_a_column_read_after_its_loop_is_refused() -> None:
    # After `for (j = 0; j < n; j++)`, j is n: a[i * n + j] is the next row's first element.
    source = (
        "void f(int n, int *a) { int j; for (int i = 0; i < n; i++) { "
        "for (j = 0; j < n; j++) a[i * n + j] = 0; a[i * n + j] = 1; } }"
    )
    assert _outer(source).dependence.kind != "independent"


def test_rows_apart_need_both_columns_in_their_rows() -> None:
    # Reading a[i * n + j + 1]'s shape through a column past the row: the next row's start.
    source = (
        "void f(int n, int *a, int *b) { for (int i = 0; i < n; i++) "
        "for (int j = 0; j < n; j++) { a[i * n + j] = 1; b[j] = a[i * n + n]; } }"
    )
    assert _outer(source).dependence.kind != "independent"


@pytest.mark.parametrize(
    "header",
    [
        "for (int j = 0; j < n; j++)",
        "for (size_t j = 0; j < n; ++j)",
        "for (int j = 1; j < n - 1; j++)",
        "for (int j = 0; j <= i; j++)",  # triangular: j <= i < n
        "for (int j = i + 1; j < n; j++)",
    ],
)
def test_columns_inside_their_rows_stay_independent(header: str) -> None:
    source = (
        f"void f(size_t n, int *a) {{ for (int i = 0; i < n; i++) {header} a[i * n + j] = 1; }}"
    )
    assert _outer(source).dependence.kind == "independent"


def test_gemm_stays_independent_with_collapse_offered() -> None:
    source = """#include <vector>
void gemm(std::vector<double> const& A, std::vector<double> const& B, std::vector<double> &C,
          size_t M, size_t K, size_t N) {
    for (size_t i = 0; i < M; ++i) {
        for (size_t j = 0; j < N; ++j) {
            double sum = 0;
            for (size_t k = 0; k < K; ++k) {
                sum += A[i * K + k] * B[k * N + j];
            }
            C[i * N + j] = sum;
        }
    }
}
"""
    program = analyse(source, Language.CPP)
    outer = program.loops[0]
    assert outer.dependence.kind == "independent", outer.dependence.reason
    schema = choice_schema([outer])
    [loop_schema] = schema["properties"]["choices"]["items"]["anyOf"]
    assert loop_schema["properties"]["collapse"]["enum"] == [1, 2]


def test_a_literal_column_needs_a_literal_row_length() -> None:
    inside = "void f(int n, int *a) { for (int i = 0; i < n; i++) { a[i * 4 + 3] = 1; a[i * 4 + 0] = 2; } }"
    # Column 4 is the next row's column 0, which the next iteration writes; column 5 is the
    # next row's column 1, which no iteration writes (4x + 5 = 4y has no integer solution).
    outside = "void f(int n, int *a) { for (int i = 0; i < n; i++) { a[i * 4 + 4] = 1; a[i * 4 + 0] = 2; } }"
    apart = "void f(int n, int *a) { for (int i = 0; i < n; i++) { a[i * 4 + 5] = 1; a[i * 4 + 0] = 2; } }"
    assert _outer(inside).dependence.kind == "independent"
    assert _outer(outside).dependence.kind != "independent"
    assert _outer(apart).dependence.kind == "independent"


def _simd_menu(source: str, language: Language = Language.C) -> list[bool]:
    program = analyse(source, language)
    [loop_schema] = choice_schema([program.loops[0]])["properties"]["choices"]["items"]["anyOf"]
    return loop_schema["properties"]["simd"]["enum"]


def test_simd_is_offered_for_a_proven_independent_loop() -> None:
    source = "void f(int n, double *a) { for (int i = 0; i < n; i++) a[i] = a[i] * 2.0; }"
    assert _simd_menu(source) == [False, True]


def test_simd_is_offered_inside_a_run_time_overlap_check() -> None:
    # The annotated version runs only when the pointers' ranges do not overlap: lanes are as
    # independent there as threads (GCC's vectoriser multiversions loops the same way).
    source = (
        "void f(int n, double *a, double *b) { for (int i = 0; i < n; i++) a[i] = b[i] * 2.0; }"
    )
    program = analyse(source, Language.C)
    assert program.loops[0].dependence.overlap_checks
    assert _simd_menu(source) == [False, True]


def test_simd_is_refused_for_an_atomic_histogram() -> None:
    # A histogram of run-time length updates the shared copy atomically.
    source = (
        "#include <vector>\n"
        "std::vector<long> counts(std::vector<int> const& x, int nb) { std::vector<long> h(nb);\n"
        "  for (size_t i = 0; i < x.size(); i++) if (x[i] >= 0) h[x[i] % nb] += 2;\n"
        "  return h; }"
    )
    program = analyse(source, Language.CPP)
    assert any(a.atomic for a in program.loops[0].dependence.array_reductions)
    assert _simd_menu(source, Language.CPP) == [False]


def test_simd_is_refused_for_a_call_to_the_programs_own_function() -> None:
    source = (
        "static double twice(double v) { return 2.0 * v; }\n"
        "void f(int n, double *a) { for (int i = 0; i < n; i++) a[i] = twice(a[i]); }"
    )
    program = analyse(source, Language.C)
    loop = next(loop for loop in program.loops if loop.function == "f")
    assert loop.dependence.kind == "independent", loop.dependence.reason
    [loop_schema] = choice_schema([loop])["properties"]["choices"]["items"]["anyOf"]
    assert loop_schema["properties"]["simd"]["enum"] == [False]
    library = "#include <math.h>\nvoid f(int n, double *a) { for (int i = 0; i < n; i++) a[i] = sqrt(a[i]); }"
    assert _simd_menu(library) == [False, True]


@pytest.mark.parametrize(
    ("declaration", "op", "reassociates"),
    [
        ("float s = 0", "s += a[i]", True),
        ("double s = 0", "s = s * a[i]", True),
        ("long double s = 0", "s += a[i]", True),
        ("int s = 0", "s += a[i]", False),
        ("unsigned long s = 0", "s += a[i]", False),
        # min picks a value, but which of -0.0 and 0.0 depends on the order
        ("float s = 0", "s = s < a[i] ? s : a[i]", True),
        ("int s = 0", "s = s < a[i] ? s : a[i]", False),
    ],
)
def test_floating_point_sums_and_products_are_marked_reassociating(
    declaration: str, op: str, reassociates: bool
) -> None:
    source = f"double f(int n, const int *a) {{ {declaration}; for (int i = 0; i < n; i++) {op}; return s; }}"
    dep = _outer(source).dependence
    assert dep.kind == "reduction", dep.reason
    assert [r.reassociates for r in dep.reductions] == [reassociates]
    assert any("floating-point" in a for a in dep.assumptions) == reassociates


def test_a_reduction_into_a_variable_of_unseen_type_counts_as_reassociating() -> None:
    source = "typedef float real;\nreal s;\nvoid f(int n, const real *a) { for (int i = 0; i < n; i++) s += a[i]; }"
    dep = _outer(source).dependence
    assert [r.reassociates for r in dep.reductions] == [True]


def test_a_task_asking_for_exact_numbers_is_offered_no_reassociated_reduction() -> None:
    source = (
        "double f(int n, const double *x) { double s = 0; long c = 0;\n"
        "  for (int i = 0; i < n; i++) s += x[i];\n"
        "  for (int i = 0; i < n; i++) c += i;\n"
        "  return s + c; }"
    )
    program = analyse(source, Language.C)
    assert [loop.id for loop in annotatable(program)] == ["L1", "L2"]
    # The integer sum gives the same result in any order; the double one may not.
    assert [loop.id for loop in annotatable(program, reassociate=False)] == ["L2"]
