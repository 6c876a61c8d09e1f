"""A subscript through a local integer (`const size_t idx = i * n + j; out[idx] = ...`) is judged
as the expression the local holds, a bound cast to a signed integer (`j < (int)n`) as the
bound, and a counter widened by a cast (`(size_t)i * n + j`) as the counter: held-out
spellings of flattened loops that were called carried. Each hazard is a local whose value at
the access is not its initializer (another local of the same name, a change after the
declaration, a reference, a call, input, a name declared again, memory read, a narrower or
`static` local, a floating value), a cast that may grow the bound or narrow the counter; each
must stay sequential, and the annotated safe program must print the sequential output."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agents.analysis import analyse, annotatable, apply_choices, default_choices
from sandbox.spec import Language
from tests.agents.analysis.test_hidden_accesses import c_outputs

C, CPP = Language.C, Language.CPP

SAFE = {
    "a flattened index in a const local": (
        CPP,
        "#include <vector>\n#include <cstddef>\n"
        "void f(std::vector<double> const &a, std::vector<double> &out, std::size_t n) {\n"
        "    for (std::size_t i = 0; i < n; ++i)\n"
        "        for (std::size_t j = 0; j < n; ++j) {\n"
        "            const std::size_t idx = i * n + j;\n"
        "            out[idx] = a[idx] * 2.0;\n"
        "        }\n}\n",
        ("L1", "L2"),
    ),
    "a flattened index in a local only read": (
        C,
        "void f(const double *a, const double *b, double *out, int n) {\n"
        "    for (int i = 0; i < n; i++)\n"
        "        for (int j = 0; j < n; j++) {\n"
        "            int idx = i * n + j;\n"
        "            out[idx] = a[idx] + (b[idx] > 0 ? b[idx] : -b[idx]);\n"
        "        }\n}\n",
        ("L1", "L2"),
    ),
    "the loop variable under another name": (
        C,
        "void f(const int *a, int *out, int n) {\n"
        "    for (int i = 0; i < n; i++) {\n"
        "        const int k = i;\n"
        "        if (a[k] > 0) out[k] = a[k];\n"
        "    }\n}\n",
        ("L1",),
    ),
    "bounds cast to int": (
        CPP,
        "#include <vector>\n#include <cstddef>\n"
        "void f(std::vector<int> &out, std::size_t n) {\n"
        "    for (int i = 0; i < (int)n; ++i)\n"
        "        for (int j = 0; j < (int)n; ++j) out[i * n + j] = i - j;\n}\n",
        ("L1", "L2"),
    ),
    "a bound cast with static_cast": (
        CPP,
        "#include <vector>\n#include <cstddef>\n"
        "void f(std::vector<int> &out, std::size_t rows, std::size_t n) {\n"
        "    for (long i = 0; i < static_cast<long>(rows); ++i)\n"
        "        for (long j = 0; j < static_cast<long>(n); ++j) out[i * n + j] = 1;\n}\n",
        ("L1", "L2"),
    ),
    "a row start in a local": (
        CPP,
        "#include <vector>\n#include <cstddef>\n"
        "void f(std::vector<double> const &a, std::vector<double> &out, std::size_t n) {\n"
        "    for (std::size_t i = 0; i < n; ++i) {\n"
        "        const std::size_t row = i * n;\n"
        "        for (std::size_t j = 0; j < n; ++j) out[row + j] = a[row + j] * 2.0;\n"
        "    }\n}\n",
        ("L1", "L2"),
    ),
    "an index built from a row start in a local": (
        C,
        "void f(const double *a, double *out, int n) {\n"
        "    for (int i = 0; i < n; i++) {\n"
        "        const int row = i * n;\n"
        "        for (int j = 0; j < n; j++) { const int idx = row + j; out[idx] = a[idx] + 1; }\n"
        "    }\n}\n",
        ("L1", "L2"),
    ),
    "a row start and an index declared in one block": (
        CPP,
        "#include <vector>\n#include <cstddef>\n"
        "void f(std::vector<double> &out, std::size_t n) {\n"
        "    for (std::size_t i = 0; i < n; ++i)\n"
        "        for (std::size_t j = 0; j < n; ++j) {\n"
        "            const std::size_t row = i * n;\n"
        "            const std::size_t idx = row + j;\n"
        "            out[idx] = 1.0 * i;\n"
        "        }\n}\n",
        ("L1", "L2"),
    ),
    "a row length named by a macro": (
        C,
        "#define N 64\n"
        "void f(float *out) {\n"
        "    for (int i = 0; i < N; i++)\n"
        "        for (int j = 0; j < N; j++) { int idx = i * N + j; out[idx] = i + j; }\n}\n",
        ("L1", "L2"),
    ),
    "a row index widened by a cast": (
        CPP,
        "#include <vector>\n#include <cstddef>\n"
        "void f(std::vector<double> &out, int n) {\n"
        "    for (int i = 0; i < n; i++)\n"
        "        for (int j = 0; j < n; j++) out[static_cast<std::size_t>(i) * n + j] = 1.0 * j;\n}\n",
        ("L1", "L2"),
    ),
    "a row index widened by a C cast": (
        C,
        "#include <stddef.h>\n"
        "static double out[4096];\n"
        "void f(int n) {\n"
        "    for (int i = 0; i < n; i++)\n"
        "        for (int j = 0; j < n; j++) out[(size_t)i * n + j] = i - j;\n}\n",
        ("L1", "L2"),
    ),
}

HAZARDS = {
    "a row index narrowed by a cast": (
        C,
        "void f(int *out, int n) {\n"
        "    for (int i = 0; i < n; i++)\n"
        "        for (int j = 0; j < n; j++) out[(unsigned char)i * n + j] = i;\n}\n",
        "L1",
    ),
    "a counter narrowed by a cast": (
        C,
        "void f(int *out, long n) {\n    for (long i = 0; i < n; i++) out[(int)i] = (int)i;\n}\n",
        "L1",
    ),
    "a local narrower than its value": (
        C,
        "void f(int *out, int n) {\n"
        "    for (int i = 0; i < n; i++) { const unsigned char idx = i; out[idx] = i; }\n}\n",
        "L1",
    ),
    "a short flattened index": (
        C,
        "void f(int *out, int n) {\n"
        "    for (int i = 0; i < n; i++)\n"
        "        for (int j = 0; j < n; j++) { const short idx = i * n + j; out[idx] = i; }\n}\n",
        "L1",
    ),
    "a 32-bit local of a 64-bit value": (
        C,
        "#include <stddef.h>\n"
        "void f(int *out, size_t n) {\n"
        "    for (size_t i = 0; i < n; i++)\n"
        "        for (size_t j = 0; j < n; j++) { const int idx = i * n + j; out[idx] = 1; }\n}\n",
        "L1",
    ),
    "a static local": (
        CPP,
        "void f(int *out, int n) {\n"
        "    for (int i = 0; i < n; i++) { static const int idx = i; out[idx] = i; }\n}\n",
        "L1",
    ),
    "a floating literal in the value": (
        C,
        "void f(int *out, int n) {\n"
        "    for (int i = 0; i < n; i++) { const int idx = i * 1e-7; out[idx] = out[idx] * 3 + i; }\n}\n",
        "L1",
    ),
    "a floating name in the value": (
        C,
        "void f(int *out, int n, double s) {\n"
        "    for (int i = 0; i < n; i++)\n"
        "        for (int j = 0; j < s; j++) { const int idx = i * s + j; out[idx] = i; }\n}\n",
        "L1",
    ),
    "a row start changed inside the inner loop": (
        C,
        "void f(double *out, int n) {\n"
        "    for (int i = 0; i < n; i++) {\n"
        "        int row = i * n;\n"
        "        for (int j = 0; j < n; j++) { out[row + j] = i; row = row + 1; }\n"
        "    }\n}\n",
        "L1",
    ),
    "row starts of one name in two blocks": (
        C,
        "void f(double *out, int n) {\n"
        "    for (int i = 0; i < n; i++) {\n"
        "        { const int row = i * n; for (int j = 0; j < n; j++) out[row + j] = 1; }\n"
        "        { const int row = i * n + 1; for (int j = 0; j < n; j++) out[row + j] = 2; }\n"
        "    }\n}\n",
        "L1",
    ),
    "a row start too short for its columns": (
        C,
        "void f(double *out, int n) {\n"
        "    for (int i = 0; i < n; i++) {\n"
        "        const int row = i * n;\n"
        "        for (int j = 0; j <= n; j++) out[row + j] = i;\n"
        "    }\n}\n",
        "L1",
    ),
    "two blocks declaring locals of one name": (
        C,
        "void f(int *out, int n) {\n"
        "    for (int i = 0; i < n; i++) {\n"
        "        { const int idx = i; out[idx] = 1; }\n"
        "        { const int idx = i + 1; out[idx] = 2; }\n"
        "    }\n}\n",
        "L1",
    ),
    "a local assigned after its declaration": (
        C,
        "void f(int *out, int n) {\n"
        "    for (int i = 0; i < n; i++) { int idx = i; idx = 0; out[idx] = i; }\n}\n",
        "L1",
    ),
    "a local written through a reference": (
        CPP,
        "void f(int *out, int n) {\n"
        "    for (int i = 0; i < n; i++) { int idx = i; int &r = idx; r = 0; out[idx] = i; }\n}\n",
        "L1",
    ),
    "a local a call may change": (
        CPP,
        "void zero(int &v) { v = 0; }\n"
        "void f(int *out, int n) {\n"
        "    for (int i = 0; i < n; i++) { int idx = i; zero(idx); out[idx] = i; }\n}\n",
        "L1",
    ),
    "a local read from input": (
        CPP,
        "#include <iostream>\n"
        "void f(int *out, int n) {\n"
        "    for (int i = 0; i < n; i++) { int idx = i; std::cin >> idx; out[idx] = i; }\n}\n",
        "L1",
    ),
    "a local a lambda may change": (
        CPP,
        "void f(int *out, int n) {\n"
        "    for (int i = 0; i < n; i++) {\n"
        "        int idx = i;\n"
        "        auto reset = [&] { idx = 0; };\n"
        "        reset();\n"
        "        out[idx] = i;\n"
        "    }\n}\n",
        "L1",
    ),
    "a name of the initializer declared again before the use": (
        C,
        "void f(int *out, int n) {\n"
        "    for (int i = 0; i < n; i++)\n"
        "        for (int j = 0; j < n; j++) {\n"
        "            const int idx = i * n + j;\n"
        "            { int j = 0; out[idx] = out[i * n + j] + 1; }\n"
        "        }\n}\n",
        "L2",
    ),
    "a name of the initializer changed after the declaration": (
        C,
        "void f(int *out, int n) {\n"
        "    for (int i = 0; i < n; i++) {\n"
        "        int k = i;\n"
        "        const int idx = k;\n"
        "        k = k + 1;\n"
        "        out[idx] = out[k];\n"
        "    }\n}\n",
        "L1",
    ),
    "an initializer that reads memory": (
        C,
        "void f(const int *perm, int *out, int n) {\n"
        "    for (int i = 0; i < n; i++) { const int idx = perm[i]; out[idx] = i; }\n}\n",
        "L1",
    ),
    "a bound cast to unsigned": (
        C,
        "void f(int *out, int m, int n) {\n"
        "    for (int i = 0; i < m; i++)\n"
        "        for (int j = 0; j < (unsigned)n; j++) out[i * n + j] = i;\n}\n",
        "L1",
    ),
    "a bound cast to double": (
        C,
        "void f(int *out, int m, long n) {\n"
        "    for (int i = 0; i < m; i++)\n"
        "        for (long j = 0; j < (double)n; j++) out[i * n + j] = i;\n}\n",
        "L1",
    ),
}


@pytest.mark.parametrize("case", sorted(SAFE))
def test_locals_and_cast_bounds_are_read_as_what_they_hold(case: str) -> None:
    language, source, loops = SAFE[case]
    program = analyse(source, language)
    for loop in loops:
        dependence = program.loop(loop).dependence
        assert dependence.parallelisable, f"{loop}: {dependence.reason}"


@pytest.mark.parametrize("case", sorted(HAZARDS))
def test_a_local_that_may_not_hold_its_initializer_proves_nothing(case: str) -> None:
    language, source, loop = HAZARDS[case]
    dependence = analyse(source, language).loop(loop).dependence
    assert not dependence.parallelisable, dependence.reason


FLATTENED = """#include <stdio.h>
#include <stdlib.h>
int main(void) {
    const int n = 700;
    double *a = malloc(sizeof(double) * n * n), *out = malloc(sizeof(double) * n * n);
    for (int k = 0; k < n * n; k++) a[k] = (k * 37 % 101) - 50;
    for (int i = 0; i < (int)n; i++)
        for (int j = 0; j < n; j++) {
            const int idx = i * n + j;
            out[idx] = a[idx] * 0.5 + (j > 0 ? a[idx - 1] : 0.0);
        }
    double h = 0;
    for (int k = 0; k < n * n; k++) h = h * 0.999 + out[k];
    printf("%.6f\\n", h);
    free(a);
    free(out);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc with OpenMP")
def test_the_annotated_flattened_program_prints_the_sequential_output(tmp_path: Path) -> None:
    program = analyse(FLATTENED, C)
    assert program.loop("L2").dependence.parallelisable, program.loop("L2").dependence.reason
    annotated = apply_choices(FLATTENED, program, default_choices(annotatable(program)))
    assert "#pragma omp parallel for" in annotated
    seq, par = c_outputs(tmp_path, FLATTENED, annotated)
    assert seq == par
