"""The front end: functions, loop ids and headers, bad input."""

from __future__ import annotations

import pytest

from agents.analysis import AnalysisError, InputError, analyse, function_source
from sandbox.spec import Language

SOURCE = """#define N 100
const int M = 8;

static void fill(double *x) {
    for (int i = 0; i < N; i++) x[i] = i;
}

int count(int n, int *x) {
    int c = 0;
    for (int i = n; i > 0; i -= 2)
        for (int j = 0; j <= M; ++j)
            c += x[i] + j;
    int k = 0;
    while (k < n) k++;
    return c + k;
}

int main(void) {
    double x[N];
    fill(x);
    return 0;
}
"""


@pytest.fixture(scope="module")
def program():
    return analyse(SOURCE, Language.C)


def test_functions_in_source_order(program) -> None:
    assert [f.name for f in program.functions] == ["fill", "count", "main"]
    assert program.has_main
    count = program.function("count")
    assert count is not None
    assert (count.start_line, count.end_line, count.params) == (8, 16, ("n", "x"))
    assert program.function("nope") is None
    assert program.syntax_errors == ()


def test_loops_are_numbered_across_the_program(program) -> None:
    loops = program.loops
    assert [(lp.id, lp.function, lp.line, lp.kind, lp.depth, lp.parent) for lp in loops] == [
        ("L1", "fill", 5, "for", 0, None),
        ("L2", "count", 10, "for", 0, None),
        ("L3", "count", 11, "for", 1, "L2"),
        ("L4", "count", 14, "while", 0, None),
    ]
    assert [lp.id for lp in program.function("count").loops] == ["L2", "L3", "L4"]
    assert program.loop("L3").end_line == 12
    with pytest.raises(AnalysisError):
        program.loop("L5")


def test_headers_give_bounds_and_trip_counts(program) -> None:
    fill, outer, inner, spin = program.loops
    assert (fill.var, fill.lower, fill.upper, fill.trip_count) == ("i", "0", "N", 100)
    assert (outer.var, outer.lower, outer.upper, outer.trip_count) == ("i", "n", "0", None)
    assert (inner.var, inner.trip_count, inner.canonical) == ("j", 9, True)
    assert (spin.var, spin.canonical) == (None, False)


def test_accesses_and_calls(program) -> None:
    outer = program.loop("L2")
    assert [str(a) for a in outer.writes] == ["c"]
    assert "x[i]" in [str(a) for a in outer.reads]
    assert outer.dependence.kind == "reduction"
    assert program.function("main").loops == ()


def test_trip_count_of_a_downward_loop() -> None:
    program = analyse("void f(int *x) { for (int i = 10; i >= 1; --i) x[i] = 0; }", Language.C)
    assert program.loops[0].trip_count == 10


def test_calls_are_listed() -> None:
    source = '#include <math.h>\n#include <stdio.h>\nvoid f(int n, double *x) { for (int i = 0; i < n; i++) { x[i] = sqrt(x[i]); printf("%f", x[i]); } }'
    assert analyse(source, Language.C).loops[0].calls == ("sqrt", "printf")


def test_function_source_is_the_definition(program) -> None:
    text = function_source(SOURCE, program, "fill")
    assert text.startswith("static void fill(double *x) {") and text.endswith("}")
    with pytest.raises(InputError):
        function_source(SOURCE, program, "nope")


def test_cpp_methods_and_namespaces() -> None:
    source = """#include <vector>
namespace ns {
struct Grid {
    std::vector<double> v;
    void scale(double k) { for (size_t i = 0; i < v.size(); ++i) v[i] *= k; }
};
template <typename T> T total(std::vector<T> const& x) {
    T s = 0;
    for (auto const& e : x) s += e;
    return s;
}
}
"""
    program = analyse(source, Language.CPP)
    assert [f.name for f in program.functions] == ["scale", "total"]
    scale, total = program.loops
    assert scale.dependence.kind == "independent"
    assert total.dependence.kind == "reduction" and total.range_over == "x"


def test_cuda_sources_parse_with_the_cpp_grammar() -> None:
    source = """__global__ void saxpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
void run(int n, float *x, float *y) {
    for (int r = 0; r < 3; r++) saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
}
"""
    program = analyse(source, Language.CUDA)
    assert [f.name for f in program.functions] == ["saxpy", "run"]
    # The kernel launch is not C++: the loop around it is not known to be safe.
    assert program.loops[0].dependence.kind == "unknown"
    assert "could not read line 6" in program.loops[0].dependence.reason


def test_syntax_errors_are_reported_by_line() -> None:
    source = "int f(int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++) s += i\n  return s;\n}\n"
    program = analyse(source, Language.C)
    assert program.syntax_errors and all(2 <= line <= 4 for line in program.syntax_errors)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("", "empty"),
        ("   \n\t", "empty"),
        ("Hello, could you parallelise my program? It is slow & big!!", "does not look like C"),
        ("int x = 3;\n", "no function"),
    ],
)
def test_bad_input_is_an_input_error(source: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        analyse(source, Language.C)


def test_markdown_and_python_are_not_c() -> None:
    python = "def main():\n    for i in range(10):\n        print(i)\n\nif __name__ == '__main__':\n    main()\n"
    with pytest.raises(InputError):
        analyse(python, Language.C)


def test_a_range_for_over_a_vector_is_canonical_without_bounds() -> None:
    source = (
        "#include <vector>\n"
        "void f(std::vector<std::vector<int>> &m) {\n"
        "  for (auto &row : m)\n"
        "    for (auto &a : row) a = 0;\n"
        "}\n"
    )
    outer, inner = analyse(source, Language.CPP).loops
    assert (outer.canonical, outer.var, outer.upper, outer.trip_count) == (True, "row", "m", None)
    assert outer.dependence.kind == "independent"
    # OpenMP does not collapse range-based loops, so each is a nest of one.
    assert outer.perfect_nest == 1 and inner.perfect_nest == 1
    assert not inner.canonical and "not known to be random access" in inner.dependence.reason
