"""Reads and writes through addresses: `*p`, `p->x`, references, pointers a loop declares and
file-scope pointers. None of them names an element, so a loop that also writes storage such a
read may reach is unknown (or runs behind a run-time check where one can be written). The
hazards below were found by the differential fuzzer (`evals.fuzz`); each gave a wrong result
at 2 threads when annotated."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agents.analysis import analyse, annotatable, apply_choices, default_choices
from agents.analysis.dependence import outside_elements
from sandbox.spec import Language

HAZARDS = {
    "a scalar read through a pointer parameter": (
        Language.C,
        "void f(unsigned *v, const unsigned *s, int m) {\n"
        "    for (int i = 0; i < m; i++) v[i] = v[i] * 3u + *s;\n}\n",
        "reads * s",
    ),
    "a scalar reference parameter beside a written pointer": (
        Language.CPP,
        "void f(unsigned *v, int n, const unsigned& s) {\n"
        "    for (int i = 0; i < n; ++i) v[i] = v[i] * 3u + s;\n}\n",
        "s, a reference or an object that may view other storage",
    ),
    "pointer arithmetic reaching the next element": (
        Language.C,
        "unsigned b[1001];\nvoid f(void) {\n"
        "    for (int i = 0; i < 1000; i++) b[i] = *(b + i + 1) * 3u;\n}\n",
        "may point into b",
    ),
    "a pointer the function points one element on": (
        Language.C,
        "void f(unsigned *v, int m) {\n    unsigned *e = v + 1;\n"
        "    for (int i = 0; i < m; i++) v[i] = *e + 1u;\n}\n",
        "reads * e",
    ),
    "a member read through a pointer to an element": (
        Language.C,
        "struct P { int x; };\nstruct P pts[100];\nvoid f(struct P *q) {\n"
        "    for (int i = 0; i < 100; i++) pts[i].x = q->x + i;\n}\n",
        "q -> x",
    ),
    "a write through a pointer declared in the loop": (
        Language.C,
        "unsigned b[1001];\nvoid f(void) {\n"
        "    for (int i = 0; i < 1000; i++) { unsigned *q = b + i + 1; q[0] = b[i] * 3u; }\n}\n",
        "through q, a pointer or reference declared in the loop",
    ),
    "a write through a reference declared in the loop": (
        Language.CPP,
        "unsigned b[1001];\nvoid f() {\n"
        "    for (int i = 0; i < 1000; i++) { unsigned &r = b[i + 1]; r = b[i] * 3u; }\n}\n",
        "through r",
    ),
    "a file-scope pointer read in a helper": (
        Language.C,
        "unsigned b[1001], a[1000];\nunsigned *gp = b;\n"
        "unsigned peek(int k) { return gp[k + 1]; }\nvoid f(void) {\n"
        "    for (int i = 0; i < 1000; i++) b[i] = peek(i) / 2u + a[i];\n}\n",
        "reads gp, which may share storage with b",
    ),
    "a helper reading through a pointer it declares": (
        Language.C,
        "unsigned b[1001];\n"
        "unsigned get(const unsigned *x, int k) { const unsigned *q = x + 1; return q[k]; }\n"
        "void f(void) {\n    for (int i = 0; i < 1000; i++) b[i] = get(b, i) / 2u;\n}\n",
        "calls get, which reads b",
    ),
    "a helper writing through a pointer it declares": (
        Language.C,
        "unsigned b[1001];\nvoid set(unsigned *y, int k) { unsigned *q = y; q[k + 1] = 3u; }\n"
        "void f(void) {\n    for (int i = 0; i < 999; i++) set(b, i);\n}\n",
        "calls set, which may have side effects",
    ),
    # A bound read from memory the body writes: the sequential loop reads it again every
    # iteration, a parallel one once (found by a helper's probe of the MPI and CUDA tools:
    # each wrote 90,000 elements where the sequential loop stopped at 5,001).
    "a bound read through a pointer parameter": (
        Language.C,
        "void f(int *a, const int *n) {\n    for (int i = 0; i < *n; i++) a[i] = i % 3;\n}\n",
        "its header reads n",
    ),
    "a bound read through pointer arithmetic on the written array": (
        Language.C,
        "int a[100000];\nvoid f(void) {\n"
        "    for (int i = 0; i < *(a + 5000); i++) a[i] = i % 3;\n}\n",
        "its header reads a",
    ),
    "a bound whose subscript names its array second": (
        Language.C,
        "int a[100000], g = 5000;\nvoid f(int k) {\n"
        "    for (int i = 0; i < 5000[a] + k[a] + g[a]; i++) a[i] = i % 3;\n}\n",
        "its header reads a",
    ),
    # References the parser or the old rules did not see as references (a helper's probe):
    # each read as a plain number made the loop independent while `n` was an element of `v`.
    "a reference declared in parentheses": (
        Language.CPP,
        "#include <vector>\nvoid f(std::vector<int> &v) {\n    int (&n) = v[5000];\n"
        "    for (int i = 0; i < 100000; i++) v[i] = v[i] * 3 + n;\n}\n",
        "reads n, a reference",
    ),
    "a reference the parser reads as a function declaration": (
        Language.CPP,
        "#include <vector>\nvoid f(std::vector<int> &v) {\n    int &n(v[5000]);\n"
        "    for (int i = 0; i < 100000; i++) v[i] = v[i] * 3 + n;\n}\n",
        "reads n, a reference",
    ),
    "a reference through a typedef": (
        Language.CPP,
        "#include <vector>\ntypedef int &IR;\nvoid f(std::vector<int> &v) {\n"
        "    IR n = v[5000];\n    for (int i = 0; i < 100000; i++) v[i] = v[i] * 3 + n;\n}\n",
        "reads n, a reference",
    ),
    "a reference parameter spelled in parentheses": (
        Language.CPP,
        "void f(int *v, const int (&n)) {\n"
        "    for (int i = 0; i < 100000; i++) v[i] = v[i] * 3 + n;\n}\n",
        "reads n, a reference",
    ),
    "a lambda's reference parameter": (
        Language.CPP,
        "#include <vector>\nvoid f(std::vector<int> &v) {\n"
        "    auto step = [&](const int &n) {\n"
        "        for (int i = 0; i < 100000; i++) v[i] = v[i] * 3 + n;\n    };\n"
        "    step(v[5000]);\n}\n",
        "reads n, a reference",
    ),
    "an integer reference beside a written row of a vector of vectors": (
        Language.CPP,
        "#include <vector>\nvoid f(std::vector<std::vector<int>> &g, const int &n) {\n"
        "    for (int i = 0; i < 100000; i++) g[1][i] = g[1][i] * 3 + n;\n}\n",
        "reads n, a reference",
    ),
    "a bound read through a pointer to a pointer": (
        Language.C,
        "int a[100000];\nvoid f(int **lenp) {\n"
        "    for (int i = 0; i < **lenp; i++) a[i] = i % 3;\n}\n",
        "its header reads lenp",
    ),
    "a bound read through a reference parameter": (
        Language.CPP,
        "void f(int *v, const int &n) {\n    for (int i = 0; i < n; i++) v[i] = i % 3;\n}\n",
        "its header reads n",
    ),
    "a bound read through a local reference to an element": (
        Language.CPP,
        "void f(int *v) {\n    int &n = v[5000];\n"
        "    for (int i = 0; i < n; i++) v[i] = i % 3;\n}\n",
        "its header reads n",
    ),
    "a bound a helper reads from the written global": (
        Language.C,
        "int a[100000];\nint len(void) { return a[6000]; }\nvoid f(void) {\n"
        "    for (int i = 0; i < len(); i++) a[i] = i % 3;\n}\n",
        "its header reads a",
    ),
    "a bound from the size() of a class that takes a container": (
        Language.CPP,
        "#include <vector>\ntemplate <class T> struct Counted { T data; "
        "int size() const { return data[5000]; } };\nCounted<std::vector<int>> w;\n"
        "void f() {\n    for (int i = 0; i < w.size(); i++) w.data[i] = i % 3;\n}\n",
        "its header reads w",
    ),
    "a bound from a size() method of the program's own": (
        Language.CPP,
        "struct S { int d[10000]; int size() const { return d[5000]; } };\nS s;\n"
        "void f() {\n    for (int i = 0; i < s.size(); i++) s.d[i] = i % 3;\n}\n",
        "its header reads s",
    ),
    # Locals that hold an address though no `*` or `&` declares them (a helper's probe: each
    # was called independent, and each gave another answer at 2 threads than at 1).
    "a pointer declared through a typedef in the loop": (
        Language.C,
        "typedef unsigned *uptr;\nunsigned b[1001];\nvoid f(void) {\n"
        "    for (int i = 0; i < 1000; i++) { uptr q = b + i + 1; q[0] = b[i] * 3u; }\n}\n",
        "through q, a pointer or reference declared in the loop",
    ),
    "a pointer read through a typedef in the loop": (
        Language.C,
        "typedef unsigned *uptr;\nunsigned b[1001];\nvoid f(void) {\n"
        "    for (int i = 0; i < 1000; i++) { uptr q = b + i + 1; b[i] = *q + 1u; }\n}\n",
        "reads * q",
    ),
    "a pointer declared with __typeof__": (
        Language.C,
        "unsigned b[1001];\nvoid f(unsigned *a) {\n"
        "    for (int i = 0; i < 1000; i++) { __typeof__(a) p = a + i + 1; a[i] = *p + 1u; }\n}\n",
        "reads * p",
    ),
    "a pointer to an array in parentheses": (
        Language.C,
        "unsigned b[1004];\nvoid f(void) {\n    for (int i = 0; i < 1000; i++) {\n"
        "        unsigned (*r)[2] = (unsigned (*)[2])(b + i + 1);\n        b[i] = (*r)[0] + 1u;\n"
        "    }\n}\n",
        "may point into b",
    ),
    "an auto pointer into a vector": (
        Language.CPP,
        "#include <vector>\nvoid f(std::vector<int> &v) {\n"
        "    for (int i = 0; i < 999; i++) { auto p = v.data() + i + 1; v[i] = p[0] + 1; }\n}\n",
        "reads p[0]",
    ),
    "an iterator declared in the loop": (
        Language.CPP,
        "#include <vector>\nvoid f(std::vector<int> &v) {\n"
        "    for (int i = 0; i < 999; i++) { auto it = v.begin() + i + 1; v[i] = *it + 1; }\n}\n",
        "reads * it",
    ),
    "an iterator of a named type": (
        Language.CPP,
        "#include <vector>\nvoid f(std::vector<int> &v) {\n    for (int i = 0; i < 999; i++) {\n"
        "        std::vector<int>::iterator it = v.begin() + i + 1;\n        v[i] = *it + 1;\n"
        "    }\n}\n",
        "reads * it",
    ),
    # The review of those rules found more of the same class.
    "a member array's address in an auto local": (
        Language.CPP,
        "struct Buf { int d[1001]; };\nBuf g;\nvoid f() {\n"
        "    for (int i = 0; i < 1000; i++) { auto p = g.d; p[i + 1] = p[i] + 1; }\n}\n",
        "through p, a pointer or reference declared in the loop",
    ),
    "a decltype of an element, a reference": (
        Language.CPP,
        "void f(double *x, int n) {\n"
        "    for (int i = 0; i < n - 1; i++) { decltype(x[0]) r = x[i + 1]; r = x[i] * 2; }\n}\n",
        "through r",
    ),
    "an array's address by unary plus": (
        Language.CPP,
        "int b[1001];\nvoid f() {\n"
        "    for (int i = 0; i < 1000; i++) { auto p = +b; p[i + 1] = p[i] + 1; }\n}\n",
        "through p",
    ),
    "a vector of pointers behind a typedef": (
        Language.CPP,
        "#include <vector>\ntypedef int *iptr;\nint b[1001];\nvoid f() {\n"
        "    for (int i = 0; i < 1000; i++) {\n        std::vector<iptr> ps(1, b + i + 1);\n"
        "        ps[0][0] = b[i] + 1;\n    }\n}\n",
        "through ps",
    ),
    "a range-based loop beside an element read through a pointer": (
        Language.CPP,
        "#include <vector>\nvoid f(std::vector<int> &v, const int *p) {\n"
        "    for (auto &e : v) e += p[0];\n}\n",
        "may point into it",
    ),
    "a struct holding a pointer, declared in the loop": (
        Language.C,
        "struct H { unsigned *p; };\nunsigned b[1001];\nvoid f(void) {\n"
        "    for (int i = 0; i < 1000; i++) { struct H h = {b + i + 1}; b[i] = h.p[0] + 1u; }\n}\n",
        "may point into b",
    ),
}


def test_a_counter_hidden_by_a_declaration_in_the_body_is_not_the_counter() -> None:
    """`{ int k = z[0]; y[k + h] += 1; }` in a loop over `k`: that `k` is the block's own,
    the same element every iteration, not the counter's (a review found it called
    independent); a local copy of the counter under another name stays parallel."""
    source = (
        "int y[100], z[4];\n"
        "void f(int h) {\n    for (int k = 0; k < h; k++) { { int k = z[0]; y[k + h] += 1; } }\n}\n"
        "void g(int h) {\n    for (int k = 0; k < h; k++) { int j = k; y[j] = 1; }\n}\n"
    )
    verdicts = {loop.function: loop.dependence for loop in analyse(source, Language.C).loops}
    assert verdicts["f"].kind == "unknown" and "hides the loop's counter" in verdicts["f"].reason
    assert verdicts["g"].parallelisable, verdicts["g"].reason


def test_a_bound_that_is_an_element_a_range_based_loop_takes_by_reference() -> None:
    """`for (int &n : lens) for (i < n) lens[i] = 0;`: `n` is `lens`'s element, which the
    inner loop may overwrite; `y[k] = y[k + h]` for `k < h` with `h` such an element is no
    butterfly either. An element taken by value, or a range the inner loop does not write,
    leaves the inner loop parallel."""
    source = (
        "#include <vector>\nvoid f(std::vector<int> &lens) {\n"
        "    for (int &n : lens) {\n        for (int i = 0; i < n; i++) lens[i] = 0;\n    }\n}\n"
        "void g(std::vector<int> &v) {\n"
        "    for (int &h : v) {\n        for (int k = 0; k < h; k++) v[k] = v[k + h];\n"
        "        break;\n    }\n}\n"
        "void ok(std::vector<int> &lens, std::vector<int> &out) {\n"
        "    for (int n : lens) {\n        for (int i = 0; i < n; i++) out[i] = 0;\n    }\n}\n"
    )
    inner = {
        loop.function: loop.dependence for loop in analyse(source, Language.CPP).loops if loop.depth
    }
    assert inner["f"].kind == "unknown" and "its header reads lens" in inner["f"].reason
    assert inner["g"].kind == "unknown" and "its header reads v" in inner["g"].reason
    assert inner["ok"].parallelisable, inner["ok"].reason


def test_an_offset_that_is_an_element_a_range_based_loop_takes_by_reference() -> None:
    """`for (int &h : v) for (k) v[k + h] = 0;`: `h` is `v`'s element, which an iteration may
    overwrite, so that later ones write elsewhere (in parallel, where `h` said before the
    loop); the same holds for a read `w[k + h]` beside writes to `v`. Another container the
    caller may pass twice is checked at run time; the function's own, or an element taken by
    value, leave the inner loop parallel."""
    source = (
        "#include <vector>\nvoid f(std::vector<int> &v) {\n"
        "    for (int &h : v) {\n        for (int k = 0; k < 100; k++) v[k + h] = 0;\n"
        "        break;\n    }\n}\n"
        "void g(std::vector<int> &v, std::vector<int> &w) {\n"
        "    for (int &h : v) {\n        for (int k = 0; k < 100; k++) v[k] = w[k + h];\n"
        "        break;\n    }\n}\n"
        "void checked(std::vector<int> &v, std::vector<int> &w) {\n"
        "    for (int &h : v) {\n        for (int k = 0; k < 100; k++) w[k] = k + h;\n    }\n}\n"
        "void own(std::vector<int> &v) {\n    std::vector<int> w(100);\n"
        "    for (int &h : v) {\n        for (int k = 0; k < 100; k++) w[k] = k + h;\n    }\n}\n"
        "void copied(std::vector<int> &v) {\n"
        "    for (int h : v) {\n        for (int k = 0; k < 100; k++) v[k + h] = 0;\n"
        "        break;\n    }\n}\n"
    )
    inner = {
        loop.function: loop.dependence for loop in analyse(source, Language.CPP).loops if loop.depth
    }
    for unsound in ("f", "g"):
        assert inner[unsound].kind == "unknown", inner[unsound].reason
        assert "reads h, an element of v" in inner[unsound].reason
    assert inner["checked"].parallelisable, inner["checked"].reason
    assert inner["checked"].overlap_checks == ("(const void *)&v != (const void *)&w",)
    for sound in ("own", "copied"):
        assert inner[sound].parallelisable and not inner[sound].overlap_checks, sound


def test_references_to_numbers_of_any_spelling_and_type_are_checked_alike() -> None:
    """`const int (&n)` is `const int &n`, and `const double &a` a number too: each is
    checked against the vector the loop writes; an element of another type's reference (a
    class) still leaves the loop unknown."""
    source = (
        "#include <vector>\nstruct P { int n; };\n"
        "void f(std::vector<int> &v, const int (&n)) {\n"
        "    for (int i = 0; i < 1000; i++) v[i] = v[i] * 3 + n;\n}\n"
        "void g(std::vector<double> &y, const double &a) {\n"
        "    for (int i = 0; i < 1000; i++) y[i] = a * y[i];\n}\n"
        "void h(std::vector<int> &v, const P &p) {\n"
        "    for (int i = 0; i < 1000; i++) v[i] = v[i] * 3 + p.n;\n}\n"
    )
    verdicts = {loop.function: loop.dependence for loop in analyse(source, Language.CPP).loops}
    assert verdicts["f"].overlap_checks == (outside_elements("n", "v"),)
    assert verdicts["g"].overlap_checks == (outside_elements("a", "y"),)
    assert verdicts["h"].kind == "unknown", verdicts["h"].reason


def test_a_range_based_element_through_an_alias_or_a_row() -> None:
    """`auto &u = v;` then `for (int &h : v) for (k) u[k] += h`: `u` may be `v` (checked at run
    time, where the two are the same); `for (auto &row : g) for (int &h : row) for (k)
    g[1][k] += h`: `h` is storage of `g`'s as well as of `row`'s."""
    source = (
        "#include <vector>\nvoid alias() {\n    std::vector<int> v(3000, 1);\n"
        "    auto &u = v;\n    for (int &h : v)\n"
        "        for (int k = 0; k < 3000; k++) u[k] = (u[k] * 3 + h) % 1000;\n}\n"
        "void rows(std::vector<std::vector<int>> &g) {\n    for (auto &row : g)\n"
        "        for (int &h : row)\n"
        "            for (int k = 0; k < 3000; k++) g[1][k] = (g[1][k] * 3 + h) % 1000;\n}\n"
    )
    program = analyse(source, Language.CPP)
    innermost = {loop.function: loop.dependence for loop in program.loops if loop.depth}
    assert innermost["alias"].overlap_checks == ("(const void *)&u != (const void *)&v",)
    assert innermost["rows"].kind == "unknown", innermost["rows"].reason
    assert "an element of g" in innermost["rows"].reason


@pytest.mark.parametrize("case", sorted(HAZARDS))
def test_reads_and_writes_through_addresses_are_not_called_parallel(case: str) -> None:
    language, source, said = HAZARDS[case]
    dependence = analyse(source, language).loop("L1").dependence
    assert dependence.kind == "unknown", dependence.reason
    assert said in dependence.reason


SAFE = {
    "a dereference of a distinct array": (
        Language.C,
        "unsigned a[1000], b[1000];\nvoid f(void) {\n"
        "    for (int i = 0; i < 1000; i++) a[i] = *(b + i) * 3u;\n}\n",
    ),
    "a row pointer declared in the loop that only reads": (
        Language.C,
        "double m[100 * 64], rs[100];\nvoid f(void) {\n    for (int i = 0; i < 100; i++) {\n"
        "        const double *row = m + i * 64;\n        double s = 0;\n"
        "        for (int j = 0; j < 64; j++) s += row[j];\n        rs[i] = s;\n    }\n}\n",
    ),
    "a bound from the size of a vector the file declares": (
        Language.CPP,
        "#include <vector>\nstd::vector<int> g(100);\nstruct S { int size() const; };\n"
        "void f() {\n    for (std::size_t i = 0; i < g.size(); i++) g[i] = (int)i;\n}\n",
    ),
    "a bound from the size of a vector parameter": (
        Language.CPP,
        "#include <vector>\nvoid f(std::vector<int> &v) {\n"
        "    for (std::size_t i = 0; i < v.size(); i++) v[i] = (int)i;\n}\n",
    ),
    "a helper reading a const table": (
        Language.C,
        "const double w[4] = {1, 2, 3, 4};\ndouble at(int k) { return w[k & 3]; }\n"
        "void f(int n, double *b) {\n    for (int i = 0; i < n; i++) b[i] = at(i) * 2;\n}\n",
    ),
    # Locals of a deduced or named type that holds no address stay the body's own values.
    "locals deduced from numbers, elements and members": (
        Language.CPP,
        "#include <cmath>\n#include <vector>\nstruct Pt { double x, y; };\n"
        "std::vector<Pt> p;\nstd::vector<double> out;\ndouble w[1000];\nvoid f() {\n"
        "    for (std::size_t i = 1; i < out.size(); i++) {\n"
        "        auto dx = p[i].x - p[i - 1].x;\n        auto dy = p[i].y - p[i - 1].y;\n"
        "        auto d = std::sqrt(dx * dx + dy * dy);\n        const auto k = w[i] * 2 + d;\n"
        "        Pt q = p[i];\n        auto r = q;\n        out[i] = k + r.x + (double)i;\n    }\n}\n",
    ),
    "values and owning containers of named types": (
        Language.CPP,
        "#include <array>\n#include <complex>\n#include <vector>\ntypedef double real;\n"
        "void f(std::vector<double> &out, int m) {\n"
        "    for (int i = 0; i < (int)out.size(); i++) {\n        real s = 0;\n"
        "        std::vector<real> t(m, 1.0);\n        std::array<int, 3> a{1, 2, 3};\n"
        "        std::complex<double> z(i, 1);\n"
        "        for (int k = 0; k < m; k++) s += t[k] * a[k % 3];\n"
        "        out[i] = s + z.real();\n    }\n}\n",
    ),
}


@pytest.mark.parametrize("case", sorted(SAFE))
def test_reads_through_addresses_that_cannot_reach_a_write_stay_parallel(case: str) -> None:
    language, source = SAFE[case]
    dependence = analyse(source, language).loop("L1").dependence
    assert dependence.parallelisable, dependence.reason
    assert not dependence.overlap_checks


def test_an_element_reference_into_a_container_reference_is_checked_at_run_time() -> None:
    source = (
        "#include <vector>\nstruct Pt { double x, y; };\n"
        "void f(const std::vector<Pt>& pts, std::vector<double>& out) {\n"
        "    for (std::size_t i = 0; i < out.size(); ++i) {\n"
        "        const Pt &p = pts[i];\n        out[i] = p.x * p.y;\n    }\n}\n"
    )
    dependence = analyse(source, Language.CPP).loop("L1").dependence
    assert dependence.parallelisable, dependence.reason
    assert "(const void *)&out != (const void *)&pts" in dependence.overlap_checks


GLOBAL_POINTER = """#include <stdio.h>
static unsigned a[200000], b[200001];
static unsigned *gp = b;
void shift(void) {
    for (int i = 0; i < 200000; i++) b[i] = gp[i + 1] / 2u + a[i];
}
int main(void) {
    for (int i = 0; i < 200001; i++) b[i] = (unsigned)i * 2654435761u;
    for (int i = 0; i < 200000; i++) a[i] = (unsigned)(i % 97);
    shift();
    unsigned long long h = 0;
    for (int i = 0; i < 200001; i++) h = h * 1099511628211ull + b[i];
    printf("%llu\\n", h);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc with OpenMP")
def test_a_file_scope_pointer_into_the_written_array_runs_sequentially(tmp_path: Path) -> None:
    """The loop reads `gp[i + 1]`, which is `b[i + 1]`: the run-time check sees the overlap
    and runs the loop as written, so the output is the sequential one at any thread count."""
    program = analyse(GLOBAL_POINTER, Language.C)
    loop = program.loop("L1")
    assert loop.dependence.overlap_checks, loop.dependence.reason
    annotated = apply_choices(GLOBAL_POINTER, program, default_choices(annotatable(program)))
    outputs = _outputs(GLOBAL_POINTER, annotated, Language.C, tmp_path)
    assert len(set(outputs)) == 1, outputs


def _outputs(source: str, annotated: str, language: Language, work: Path) -> list[str]:
    """What `source` prints, then what `annotated` prints at 1 and 4 threads (`static,1`)."""
    compiler, suffix = ("gcc", "c") if language is Language.C else ("g++", "cpp")
    outputs = []
    for name, text in (("seq", source), ("par", annotated)):
        (work / f"{name}.{suffix}").write_text(text)
        subprocess.run(
            [compiler, "-O2", "-fopenmp", "-o", str(work / name), str(work / f"{name}.{suffix}")],
            check=True,
        )
        for threads in ("1", "4") if name == "par" else ("1",):
            run = subprocess.run(
                [str(work / name)],
                env={"OMP_NUM_THREADS": threads, "OMP_SCHEDULE": "static,1"},
                capture_output=True,
                text=True,
                check=True,
            )
            outputs.append(run.stdout)
    return outputs


REFERENCES = """#include <cstdio>
#include <utility>
#include <vector>
static void fill(std::vector<int> &v, const int &n) {
    for (int i = 0; i < n; i++) v[i] = (i * 7) % 1000 + 1;
}
static void scale(std::vector<unsigned> &v, const unsigned &s) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = v[i] * 3u + s;
}
static void moved(std::vector<int> &w, const int &n) {
    std::vector<int> v = std::move(w);  /* v holds the caller's buffer, n among it */
    for (int i = 0; i < (int)v.size(); i++) v[i] = (v[i] * 3 + n) % 1000;
    w.swap(v);
}
static long kept(const int &n, int depth) {
    static std::vector<int> v(100000, 5);  /* outlives the call: n may be one of its elements */
    for (int i = 0; i < 100000; i++) v[i] = (v[i] * 3 + n) % 1000;
    long s = v[7];
    return depth > 0 ? s + kept(v[12500], depth - 1) : s;
}
static void shift(std::vector<double> &y, const double &a) {
    for (std::size_t i = 0; i < y.size(); i++) y[i] = y[i] * 0.5 + a;
}
static long weighted(const std::vector<int> &v, const int &k) {
    long s = 0;
    for (std::size_t i = 0; i < v.size(); i++) s += v[i] * (long)k;
    return s;
}
static void own(const int &n, std::vector<int> &out) {
    std::vector<int> w(n);
    for (int i = 0; i < n; i++) w[i] = i % 5;
    out.assign(w.begin(), w.end());
}
int main() {
    std::vector<int> v(200000, 150000), w;
    std::vector<unsigned> u(100000, 1u);
    int n = 190000;
    fill(v, n);
    fill(v, v[5000]);  /* the bound is an element the loop overwrites at i = 5000 */
    scale(u, u[40000]);  /* so is the added value, at i = 40000 */
    own(n, w);
    moved(v, v[25000]);
    std::vector<double> y(50000, 3.0);
    shift(y, y[20000]);  /* a double reference into the vector it shifts */
    long k = kept(n, 2) + weighted(v, v[9]) + (long)(y[49999] * 1000.0);
    unsigned long long h = (unsigned long long)k;
    for (int x : v) h = h * 1099511628211ull + (unsigned)x;
    for (unsigned x : u) h = h * 1099511628211ull + x;
    for (int x : w) h = h * 1099511628211ull + (unsigned)x;
    std::printf("%llu\\n", h);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ with OpenMP")
def test_an_integer_reference_is_checked_at_run_time_against_a_written_vector(
    tmp_path: Path,
) -> None:
    """`const int &n` bounding a loop that writes a vector, or read in its body, may be one of
    the vector's elements: the loop runs in parallel only when a run-time check finds `n`'s
    object outside the vector's elements (here it is not, five times: the output is the
    sequential one at any thread count), a local vector too (it may hold a buffer moved in);
    against a number of the function's own no check is needed."""
    program = analyse(REFERENCES, Language.CPP)
    verdicts = {loop.function: loop.dependence for loop in program.loops if loop.function != "main"}
    assert verdicts["fill"].overlap_checks == (outside_elements("n", "v"),)
    assert verdicts["scale"].overlap_checks == (outside_elements("s", "v"),)
    # a local vector may hold a caller's buffer too (moved in): checked; a local number not
    assert verdicts["own"].overlap_checks == (outside_elements("n", "w"),)
    assert verdicts["weighted"].reductions and not verdicts["weighted"].overlap_checks
    for hazard in ("moved", "kept"):
        assert verdicts[hazard].overlap_checks == (outside_elements("n", "v"),), hazard
    assert verdicts["shift"].overlap_checks == (outside_elements("a", "y"),)
    annotated = apply_choices(REFERENCES, program, default_choices(annotatable(program)))
    assert annotated.count("#pragma omp parallel for") >= 3
    outputs = _outputs(REFERENCES, annotated, Language.CPP, tmp_path)
    assert len(set(outputs)) == 1, outputs


ELEMENTWISE = """
static int a[1000], out[1001];
static int g;
static void set(int *y, int k, int v) { y[k] = v * 2 - k % 3; }
static void bump(int *y, int k) { y[k] = y[k] + y[k + 1]; }
static void tick(int *y, int k) { y[k] = g; g++; }
void own(void) { for (int i = 0; i < 1000; i++) set(out, i, a[i]); }
void neighbour(void) { for (int i = 0; i < 1000; i++) set(out, i + 1, out[i]); }
void reads_next(void) { for (int i = 0; i < 1000; i++) bump(out, i); }
void state(void) { for (int i = 0; i < 1000; i++) tick(out, i); }
void same(void) { for (int i = 0; i < 1000; i++) set(out, 5, a[i]); }
void through(int *p) { for (int i = 0; i < 1000; i++) set(p, i, a[i]); }
"""


def test_a_helper_writing_its_array_at_its_index_argument_is_that_element_write() -> None:
    """`set(out, i, v)` writes `out[i]` and nothing else: the loop's dependence test sees the
    element. A helper that reads another element, touches a global, or is called at an index
    shared by all iterations stays what it is."""
    program = analyse(ELEMENTWISE, Language.C)
    kinds = {loop.function: loop.dependence for loop in program.loops}
    assert kinds["own"].kind == "independent", kinds["own"].reason
    assert kinds["neighbour"].kind == "carried"
    assert kinds["reads_next"].kind == "unknown"
    assert kinds["state"].kind == "unknown"
    assert kinds["same"].kind == "carried"
    assert kinds["through"].parallelisable and kinds["through"].overlap_checks


def test_strided_writes_the_gcd_test_keeps_apart() -> None:
    source = (
        "int a[1000], out[2000];\nvoid f(void) {\n    for (int i = 0; i < 1000; i++) "
        "{ out[2 * i] = a[i]; out[2 * i + 1] = -a[i]; }\n}\n"
        "void g(void) {\n    for (int i = 0; i < 999; i++) { out[2 * i] = a[i]; out[2 * i + 2] = 1; }\n}\n"
    )
    program = analyse(source, Language.C)
    assert program.loop("L1").dependence.kind == "independent"
    assert program.loop("L2").dependence.kind == "carried"


def test_halves_a_loops_span_apart_are_kept_apart() -> None:
    """`y[k]` and `y[k + h]` for `0 <= k < h` (an FFT's butterfly, `h` the half length): two
    iterations meet only `h` apart, and no two are. Each way the reasoning fails is a real
    conflict: a bound past `h`, a first value below 0, `h` changed by the body, `<=`."""
    source = (
        "double y[2000];\nint h = 1000;\n"
        "void ok(void) {\n    for (int k = 0; k < h / 2; k++) "
        "{ double u = y[k], t = y[k + h / 2]; y[k] = u + t; y[h / 2 + k] = u - t; }\n}\n"
        "void past(void) {\n    for (int k = 0; k < h / 2 + 1; k++) "
        "{ double u = y[k]; y[k + h / 2] = u; }\n}\n"
        "void below(void) {\n    for (int k = -1; k < h; k++) { y[k + 1] = y[k + 1 + h] + 1; }\n}\n"
        "void moved(void) {\n    for (int k = 0; k < h; k++) { y[k] = y[k + h]; h = h - 1; }\n}\n"
        "void inclusive(void) {\n    for (int k = 0; k <= h; k++) { y[k] = y[k + h] + 1; }\n}\n"
        "void offset(int s) {\n    for (int k = 0; k < h; k++) { y[s + k] = y[s + k + h] * 2; }\n}\n"
    )
    program = analyse(source, Language.C)
    verdicts = {loop.function: loop.dependence for loop in program.loops}
    assert verdicts["ok"].kind == "independent", verdicts["ok"].reason
    assert verdicts["offset"].kind == "independent", verdicts["offset"].reason
    for name in ("past", "below", "moved", "inclusive"):
        assert not verdicts[name].parallelisable, (name, verdicts[name].reason)


@pytest.mark.parametrize("qualifier", ["restrict", "__restrict", "__restrict__"])
def test_restrict_pointers_need_no_run_time_check(qualifier: str) -> None:
    """The caller of `f(double *restrict y, const double *restrict x)` promises that what is
    written through one is reached through nothing else: no overlap check is needed. A plain
    pointer beside them still gets one, and a pointer the function derives from a restrict
    one may overlap it."""
    language = Language.C if qualifier == "restrict" else Language.CPP
    source = (
        f"void f(int n, double *{qualifier} y, const double *{qualifier} x, const double *z) {{\n"
        "    for (int i = 0; i < n; i++) y[i] = x[i] * 2;\n"
        "    for (int i = 0; i < n; i++) y[i] = z[i] * 2;\n"
        "    for (int i = 0; i < n; i++) y[i] = *x + 1;\n"
        f"    double *{qualifier} w = y + 1;\n"
        "    for (int i = 0; i < n - 1; i++) w[i] = y[i] + 1;\n"
        "}\n"
    )
    program = analyse(source, language)
    plain, mixed, scalar, derived = (program.loop(f"L{k}").dependence for k in range(1, 5))
    assert plain.kind == "independent" and not plain.overlap_checks, plain.reason
    assert mixed.kind == "independent" and not mixed.overlap_checks, mixed.reason
    assert scalar.kind == "independent" and not scalar.overlap_checks, scalar.reason
    assert not derived.parallelisable or derived.overlap_checks, derived.reason


FRESH = """#include <stdlib.h>
double run(int n) {
    double *u = malloc(n * sizeof *u);
    double *v = (double *)calloc(n, sizeof(double));
    double *w = malloc(n * sizeof *w);
    for (int i = 0; i < n; i++) u[i] = i * 0.5;
    for (int i = 1; i < n - 1; i++) v[i] = u[i - 1] + u[i + 1];
    double *t = w;
    w = u;
    u = t;
    for (int i = 0; i < n; i++) u[i] = w[i] * 2;
    double s = v[3] + u[2];
    free(u); free(v); free(w);
    return s;
}
"""


def test_distinct_allocations_need_no_overlap_check_until_a_pointer_moves() -> None:
    """`v` points to its own `calloc` all along: nothing else reaches it. `u` and `w` are
    swapped, so after the swap either may be anything: their loop keeps its run-time check."""
    program = analyse(FRESH.replace("w = u;", "w = w;").replace("u = t;", ""), Language.C)
    for loop in program.loops[:2]:
        assert loop.dependence.parallelisable and not loop.dependence.overlap_checks
    swapped = analyse(FRESH, Language.C).loop("L3").dependence
    assert swapped.parallelisable and swapped.overlap_checks, swapped.reason


RANGE_WRITES = """#include <cstdio>
#include <vector>
void add(std::vector<int> &v, const int &k) {
    for (auto &e : v) e += k;
}
void first(std::vector<int> &v, std::vector<int> &w) {
    for (auto &e : v) e = e + w[0];
}
int main() {
    std::vector<int> v(3000), u(3000);
    for (int i = 0; i < 3000; i++) v[i] = u[i] = i % 17;
    add(v, v[777]);
    first(u, u);
    unsigned long t = 0;
    for (int i = 0; i < 3000; i++) t = t * 31 + v[i] * 7 + u[i];
    std::printf("%lu\\n", t);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ with OpenMP")
def test_a_range_based_loop_writing_its_elements_checks_what_else_it_reads(
    tmp_path: Path,
) -> None:
    """`for (auto &e : v) e += k` with `k` one of `v`'s elements, and `e = e + w[0]` with `w`
    the same vector as `v`: writes through the element are writes of `v`, so the reference
    and the other container are checked against it at run time as for `v[i] += k` (a
    helper's probe found both called independent with no check, and both wrong at 2
    threads)."""
    program = analyse(RANGE_WRITES, Language.CPP)
    add, first = program.loop("L1").dependence, program.loop("L2").dependence
    assert add.parallelisable and any("&k" in c and "v.data()" in c for c in add.overlap_checks)
    assert first.parallelisable and first.overlap_checks == (
        "(const void *)&v != (const void *)&w",
    )
    annotated = apply_choices(RANGE_WRITES, program, default_choices(annotatable(program)))
    outputs = _outputs(RANGE_WRITES, annotated, Language.CPP, tmp_path)
    assert len(set(outputs)) == 1, outputs
