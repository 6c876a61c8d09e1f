"""Dependence verdicts on tricky loops, against hand labels.

Each case is a C or C++ function; the label is for the loop at the given position (0 = the
first loop in source order) and names the verdict, and the reductions or private scalars the
parallel version needs.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from agents.analysis import analyse
from sandbox.spec import Language

C, CPP = Language.C, Language.CPP


@dataclass(frozen=True)
class Case:
    name: str
    language: Language
    source: str
    kind: str
    loop: int = 0
    reductions: tuple[tuple[str, str], ...] = ()
    private: tuple[str, ...] = ()
    reason: str = ""
    """A phrase the reason must contain."""
    arrays: tuple[tuple[str, str, str], ...] = ()
    """(array, operator, length) of the array reductions (histograms)."""
    lastprivate: tuple[str, ...] = ()
    last_assigned: tuple[str, ...] = ()
    """Scalars whose last assigned value is kept (`lastprivate(conditional:)`)."""
    first_match: bool = False
    """A search: parallel as a min reduction over the first index that exits."""
    scan: tuple[str, str] | None = None
    """(variable, operator) of a running value a blocked scan computes."""
    packed: tuple[str, ...] = ()
    """`std::vector<bool>`s written in chunks of whole words."""


CASES = [
    Case(
        "map",
        C,
        "void f(int n, double *x, const double *y) { for (int i = 0; i < n; i++) x[i] = 2 * y[i] + 1; }",
        "independent",
        # x and y may overlap: the annotation checks their ranges at run time.
        reason="checked at run time",
    ),
    Case(
        "in-place map",
        C,
        "void f(int n, double *x) { for (int i = 0; i < n; ++i) x[i] = x[i] * x[i]; }",
        "independent",
    ),
    Case(
        "sum +=",
        C,
        "double f(int n, double *x) { double s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }",
        "reduction",
        reductions=(("s", "+"),),
    ),
    Case(
        "sum s = s + e",
        C,
        "double f(int n, double *x) { double s = 0; for (int i = 0; i < n; i++) s = s + x[i] * x[i]; return s; }",
        "reduction",
        reductions=(("s", "+"),),
    ),
    Case(
        "sum s = s + e + c, its terms without parentheses",
        C,
        "int f(int n, int *x, int *y) { int s = 0; for (int i = 0; i < n; i++) s = s + x[i] - y[i] + 1; return s; }",
        "reduction",
        reductions=(("s", "+"),),
    ),
    Case(
        "product p = p * a * b",
        C,
        "long f(int n, int *x) { long p = 1; for (int i = 0; i < n; i++) p = p * x[i] * 3; return p; }",
        "reduction",
        reductions=(("p", "*"),),
    ),
    Case(
        "no fold: r = r * 2 + e (two operators), u = u + e * u (another operand reads it)",
        C,
        "int f(int n, int *x) { int r = 0, u = 1; for (int i = 0; i < n; i++) { r = r * 2 + x[i]; u = u + x[i] * u; } return r + u; }",
        "carried",
    ),
    Case(
        "product",
        C,
        "double f(int n, double *x) { double p = 1; for (int i = 0; i < n; i++) p *= 1.0 / x[i]; return p; }",
        "reduction",
        reductions=(("p", "*"),),
    ),
    Case(
        "product p = e * p",
        C,
        "double f(int n, double *x) { double p = 1; for (int i = 0; i < n; i++) p = x[i] * p; return p; }",
        "reduction",
        reductions=(("p", "*"),),
    ),
    Case(
        "min via if",
        C,
        "int f(int n, int *x) { int m = x[0]; for (int i = 0; i < n; i++) { if (x[i] < m) m = x[i]; } return m; }",
        "reduction",
        reductions=(("m", "min"),),
    ),
    Case(
        "min via if with filter",
        C,
        "int f(int n, int *x) { int m = 1 << 30; for (int i = 0; i < n; i++) if (x[i] % 2 == 1 && x[i] < m) m = x[i]; return m; }",
        "reduction",
        reductions=(("m", "min"),),
    ),
    Case(
        "max via fmax",
        C,
        "#include <math.h>\ndouble f(int n, double *x) { double m = x[0]; for (int i = 0; i < n; i++) m = fmax(m, x[i]); return m; }",
        "reduction",
        reductions=(("m", "max"),),
    ),
    Case(
        "max via ternary",
        C,
        "int f(int n, int *x) { int m = 0; for (int i = 0; i < n; i++) m = x[i] > m ? x[i] : m; return m; }",
        "reduction",
        reductions=(("m", "max"),),
    ),
    Case(
        "std::min",
        CPP,
        "#include <vector>\n#include <algorithm>\nint f(std::vector<int> const& x) { int m = x[0]; for (size_t i = 0; i < x.size(); ++i) m = std::min(m, x[i]); return m; }",
        "reduction",
        reductions=(("m", "min"),),
    ),
    Case(
        "bitwise and",
        C,
        "unsigned f(int n, unsigned *x) { unsigned a = ~0u; for (int i = 0; i < n; i++) a &= x[i]; return a; }",
        "reduction",
        reductions=(("a", "&"),),
    ),
    Case(
        "bitwise or",
        C,
        "unsigned f(int n, unsigned *x) { unsigned a = 0; for (int i = 0; i < n; i++) a |= x[i]; return a; }",
        "reduction",
        reductions=(("a", "|"),),
    ),
    Case(
        "xor",
        CPP,
        "bool f(std::vector<bool> const& x) { bool r = false; for (int i = 0; i < x.size(); i++) r = r ^ x[i]; return r; }",
        "reduction",
        reductions=(("r", "^"),),
    ),
    Case(
        "logical and",
        C,
        "int f(int n, int *x) { int ok = 1; for (int i = 0; i < n; i++) ok = ok && x[i] > 0; return ok; }",
        "reduction",
        reductions=(("ok", "&&"),),
    ),
    Case(
        "logical or",
        C,
        "int f(int n, int *x, int v) { int found = 0; for (int i = 0; i < n; i++) found = found || x[i] == v; return found; }",
        "reduction",
        reductions=(("found", "||"),),
    ),
    Case(
        "two reductions",
        C,
        "void f(int n, double *x, double *out) { double s = 0, m = 0; for (int i = 0; i < n; i++) { s += x[i]; if (x[i] > m) m = x[i]; } out[0] = s; out[1] = m; }",
        "reduction",
        reductions=(("s", "+"), ("m", "max")),
    ),
    Case(
        "counter ++",
        C,
        "int f(int n, int *x) { int c = 0; for (int i = 0; i < n; i++) if (x[i] > 0) c++; return c; }",
        "reduction",
        reductions=(("c", "+"),),
    ),
    Case(
        "histogram",
        C,
        "void f(int n, const int *x, int *hist) { for (int i = 0; i < n; i++) hist[x[i]]++; }",
        "carried",
        reason="histogram",
    ),
    Case(
        "indirect write",
        C,
        "void f(int n, const int *idx, double *a, const double *b) { for (int i = 0; i < n; i++) a[idx[i]] = b[i]; }",
        "carried",
        reason="data-dependent",
    ),
    Case(
        "stencil into another array",
        C,
        "void f(int n, const double *u, double *v) { for (int i = 1; i < n - 1; i++) v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3; }",
        "independent",
    ),
    Case(
        "stencil in place",
        C,
        "void f(int n, double *u) { for (int i = 1; i < n - 1; i++) u[i] = (u[i - 1] + u[i] + u[i + 1]) / 3; }",
        "carried",
        reason="u[i - 1]",
    ),
    Case(
        "forward read in place",
        C,
        "void f(int n, double *u) { for (int i = 0; i < n - 1; i++) u[i] = u[i + 1]; }",
        "carried",
    ),
    # Values when a loop ends, followed on through the function (`agents.analysis.liveness`).
    Case(
        "a counter declared before the loop and counted again before any read is the loop's own",
        C,
        "void f(int n, double *a, double *b) { int i;\n"
        "  for (i = 0; i < n; i++) a[i] = i * 0.5;\n  for (i = 0; i < n; i++) b[i] = a[i]; }",
        "independent",
    ),
    Case(
        "C89 counters in sweeps: each row loop's inner counter is counted again before any read",
        C,
        "static double a[64][64], b[64][64];\nvoid f(int n, int steps) { int i, j, s;\n"
        "  for (s = 0; s < steps; s++) {\n"
        "    for (i = 1; i < n - 1; i++)\n      for (j = 1; j < n - 1; j++) b[i][j] = a[i - 1][j] + a[i + 1][j];\n"
        "    for (i = 1; i < n - 1; i++)\n      for (j = 1; j < n - 1; j++) a[i][j] = b[i][j];\n  } }",
        "independent",
        loop=1,
        private=("j",),
    ),
    Case(
        "a value assigned again on one branch only is still read after it: kept",
        C,
        "double f(int n, int c, const double *a, double *b) { double t = 0;\n"
        "  for (int i = 0; i < n; i++) { t = a[i] * 2; b[i] = t; }\n  if (c) t = 0;\n  return t; }",
        "independent",
        lastprivate=("t",),
    ),
    Case(
        "a value assigned again after a break that may skip it: kept",
        C,
        "double f(int n, const double *a, double *b) { double t = 0;\n"
        "  while (n > 0) {\n    for (int i = 0; i < n; i++) { t = a[i] * 2; b[i] = t; }\n"
        "    if (b[0] > 1) break;\n    t = 0;\n    n--;\n  }\n  return t; }",
        "independent",
        loop=1,
        lastprivate=("t",),
    ),
    Case(
        "with a goto in the function, a value named outside the loop at all is kept",
        C,
        "double f(int n, int c, const double *a, double *b) { double t = 0;\n"
        "  for (int i = 0; i < n; i++) { t = a[i] * 2; b[i] = t; }\n"
        "  if (c) t = 0;\n  if (c > 1) goto done;\n  return t;\ndone:\n  return 0; }",
        "independent",
        lastprivate=("t",),
    ),
    Case(
        "a value assigned again on both branches before any read: each iteration's own",
        C,
        "double f(int n, int c, const double *a, double *b) { double t = 0;\n"
        "  for (int i = 0; i < n; i++) { t = a[i] * 2; b[i] = t; }\n"
        "  if (c) t = 1; else t = 2;\n  return t; }",
        "independent",
        private=("t",),
    ),
    Case(
        "prefix sum without braces: the loop's one statement is the recurrence",
        CPP,
        "void f(std::vector<double> const& x, std::vector<double> &y) { y[0] = x[0]; for (int i = 1; i < x.size(); ++i) y[i] = y[i - 1] + x[i]; }",
        "carried",
        reason="(a recurrence)",
        scan=("y", "+"),
    ),
    Case(
        "a range-based sum over a vector declared with a size (parsed as a prototype)",
        CPP,
        "double f(int n) { std::vector<float> v(n); double s = 0; for (float x : v) s += x * x; return s; }",
        "reduction",
        reductions=(("s", "+"),),
    ),
    Case(
        "prefix sum: a recurrence",
        CPP,
        "void f(std::vector<double> const& x, std::vector<double> &y) { y[0] = x[0];\n"
        "  for (int i = 1; i < x.size(); ++i) {\n    y[i] = y[i-1] + x[i];\n  }\n}",
        "carried",
        reason="(a recurrence)",
        scan=("y", "+"),
    ),
    Case(
        "running product recurrence, term first, with statements around it",
        CPP,
        "void f(std::vector<double> const& x, std::vector<double> &y, std::vector<double> &z) {\n"
        "  for (int i = 1; i < x.size(); ++i) { double t = x[i] / 2; y[i] = (t + 1) * y[i - 1]; z[i] = y[i] - t; }\n}",
        "carried",
        reason="(a recurrence)",
        scan=("y", "*"),
    ),
    Case(
        "a recurrence whose array is also read at another element is no blocked scan",
        CPP,
        "void f(std::vector<double> const& x, std::vector<double> &y, std::vector<double> &z) {\n"
        "  for (int i = 1; i < x.size(); ++i) { y[i] = y[i - 1] + x[i]; z[i] = y[i - 1]; }\n}",
        "carried",
    ),
    Case(
        "a recurrence after a statement that writes an array is no blocked scan",
        CPP,
        "void f(std::vector<double> const& x, std::vector<double> &y, std::vector<double> &z) {\n"
        "  for (int i = 1; i < x.size(); ++i) { z[i] = 1; y[i] = y[i - 1] + x[i]; }\n}",
        "carried",
    ),
    Case(
        "a recurrence whose first iteration assigns its own value",
        CPP,
        "double f(std::vector<double> const& x) { double sum = 0; std::vector<double> p(x.size());\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n    if (i == 0) { p[i] = x[i]; } else { p[i] = p[i - 1] + x[i]; }\n"
        "    sum += p[i];\n  }\n  return sum; }",
        "carried",
        reductions=(("sum", "+"),),
        reason="(a recurrence)",
        scan=("p", "+"),
    ),
    Case(
        "a first iteration apart that is not the loop's first is no blocked scan",
        CPP,
        "void f(std::vector<double> const& x, std::vector<double> &p) {\n"
        "  for (size_t i = 0; i < x.size(); ++i) { if (i == 1) p[i] = x[i]; else p[i] = p[i - 1] + x[i]; }\n}",
        "carried",
    ),
    Case(
        "a first iteration apart that writes another array is no blocked scan",
        CPP,
        "void f(std::vector<double> const& x, std::vector<double> &p, std::vector<double> &q) {\n"
        "  for (size_t i = 0; i < x.size(); ++i) { if (i == 0) q[i] = x[i]; else p[i] = p[i - 1] + x[i]; }\n}",
        "carried",
    ),
    Case(
        "a recurrence shape over a stride of two reads elements no iteration writes",
        CPP,
        "void f(std::vector<double> const& x, std::vector<double> &y) {\n"
        "  for (int i = 1; i < x.size(); i += 2) { y[i] = y[i - 1] + x[i]; }\n}",
        "carried",
    ),
    Case(
        "LU's row loop: rows below the pivot row, read from the pivot row",
        CPP,
        "void f(std::vector<double> &A, size_t N) { for (size_t i = 0; i < N; i++) {\n"
        "  for (size_t j = i + 1; j < N; j++) {\n    A[j * N + i] = A[j * N + i] / A[i * N + i];\n"
        "    for (size_t k = i + 1; k < N; k++) { A[j * N + k] = A[j * N + k] - A[j * N + i] * A[i * N + k]; }\n"
        "  }\n} }",
        "independent",
        loop=1,
    ),
    Case(
        "LU's column loop: columns right of the pivot column",
        CPP,
        "void f(std::vector<double> &A, size_t N) { for (size_t i = 0; i < N; i++) {\n"
        "  for (size_t j = i + 1; j < N; j++) {\n    A[j * N + i] = A[j * N + i] / A[i * N + i];\n"
        "    for (size_t k = i + 1; k < N; k++) { A[j * N + k] = A[j * N + k] - A[j * N + i] * A[i * N + k]; }\n"
        "  }\n} }",
        "independent",
        loop=2,
    ),
    Case(
        "LU's pivot loop carries",
        CPP,
        "void f(std::vector<double> &A, size_t N) { for (size_t i = 0; i < N; i++) {\n"
        "  for (size_t j = i + 1; j < N; j++) {\n    A[j * N + i] = A[j * N + i] / A[i * N + i];\n"
        "    for (size_t k = i + 1; k < N; k++) { A[j * N + k] = A[j * N + k] - A[j * N + i] * A[i * N + k]; }\n"
        "  }\n} }",
        "carried",
    ),
    Case(
        "a row loop that starts at the row it reads carries",
        CPP,
        "void f(std::vector<double> &A, size_t N, size_t i) {\n"
        "  for (size_t j = i; j < N; j++) { for (size_t k = 0; k < N; k++) { A[j * N + k] -= A[i * N + k]; } }\n}",
        "carried",
    ),
    Case(
        "a row loop that counts down from past the row it reads carries",
        CPP,
        "void f(std::vector<double> &A, size_t N, size_t i) {\n"
        "  for (long j = i + 1; j >= 0; j--) { for (size_t k = 0; k < N; k++) { A[j * N + k] -= A[i * N + k]; } }\n}",
        "carried",
    ),
    Case(
        "an elimination's rows below the pivot: b[j] written, b[i] read, j from i + 1",
        CPP,
        "void f(std::vector<double> &A, std::vector<double> &b, size_t N) {\n"
        "  for (size_t i = 0; i < N; i++) {\n"
        "  for (size_t j = i + 1; j < N; j++) {\n    double f = A[j * N + i] / A[i * N + i];\n"
        "    for (size_t k = 0; k < N; k++) { A[j * N + k] -= f * A[i * N + k]; }\n"
        "    b[j] -= f * b[i];\n  }\n  }\n}",
        "independent",
        loop=1,
    ),
    Case(
        "an element the loop starts at, not past, carries",
        CPP,
        "void f(std::vector<double> &b, size_t N, size_t i) {\n"
        "  for (size_t j = i; j < N; j++) { b[j] -= b[i]; }\n}",
        "carried",
    ),
    Case(
        "an element the loop starts past but counts down from carries",
        CPP,
        "void f(std::vector<double> &b, long N, long i) {\n"
        "  for (long j = i + 1; j >= 0; j--) { b[j] -= b[i]; }\n}",
        "carried",
    ),
    Case(
        "an element past which the loop starts, moved by the body, is not proven",
        CPP,
        "void f(std::vector<double> &b, size_t N, size_t i) {\n"
        "  for (size_t j = i + 1; j < N; j++) { b[j] -= b[i]; i = j / 2; }\n}",
        "unknown",
    ),
    Case(
        "an element past the start's name but another offset (b[i + 2], j from i + 1) carries",
        CPP,
        "void f(std::vector<double> &b, size_t N, size_t i) {\n"
        "  for (size_t j = i + 1; j < N; j++) { b[j] -= b[i + 2]; }\n}",
        "carried",
    ),
    Case(
        "a start past a shift is the shift of the sum (s << 1 + 1 is s << 2)",
        CPP,
        "void f(std::vector<double> &b, size_t s) {\n"
        "  for (size_t j = s << 1 + 1; j < b.size(); ++j) b[j] = b[s << 1] + 1.0;\n}",
        "carried",
    ),
    Case(
        "a start past a comparison is no start past its left side",
        CPP,
        "void f(std::vector<double> &b, size_t a, size_t i) {\n"
        "  for (size_t j = a == i + 1; j < b.size(); ++j) b[j] = b[a == i] + 1.0;\n}",
        "carried",
    ),
    Case(
        "a first iteration apart behind an if with an initialiser is no blocked scan",
        CPP,
        "void f(std::vector<double> const& x, std::vector<double> &p) {\n"
        "  for (size_t i = 0; i < x.size(); ++i) { if (int t = 0; i == 0) p[i] = x[i]; else p[i] = p[i - 1] + x[i]; }\n}",
        "carried",
    ),
    Case(
        "rows of different lengths are not compared as rows",
        CPP,
        "void f(std::vector<double> &A, size_t N, size_t M, size_t i) {\n"
        "  for (size_t j = i + 1; j < N; j++) { A[j * N + 0] = A[i * M + 0]; }\n}",
        "carried",
    ),
    Case(
        "a std::map read with [] may insert: the race checker caught it in ParEval 49",
        CPP,
        "#include <map>\n#include <vector>\n"
        "void f(std::map<std::pair<size_t, size_t>, double> &m, std::vector<double> &U, size_t N, size_t i) {\n"
        "  for (size_t k = i; k < N; ++k) { U[i * N + k] = m[{i, k}]; }\n}",
        "unknown",
        reason="inserts a missing key",
    ),
    Case(
        "an unordered_map declared in the function, read with []",
        CPP,
        "#include <unordered_map>\n#include <vector>\n"
        "void f(std::vector<int> const& x, std::vector<int> &y) { std::unordered_map<int, int> seen;\n"
        "  for (size_t k = 0; k < x.size(); ++k) { y[k] = seen[x[k]]; }\n}",
        "unknown",
        reason="inserts a missing key",
    ),
    Case(
        "an empty first branch is no first-iteration recurrence",
        CPP,
        "void f(std::vector<double> const& x, std::vector<double> &p) {\n"
        "  for (size_t i = 0; i < x.size(); ++i) { if (i == 0) ; else p[i] = p[i - 1] + x[i]; }\n}",
        "carried",
    ),
    Case(
        "a recurrence whose first iteration is written apart, in C",
        C,
        "void f(int n, const double *x, double *p, double *q) { double s = 0;\n"
        "  for (int i = 0; i < n; ++i) { if (i == 0) { p[i] = x[i]; } else { p[i] = p[i - 1] + x[i]; } s += p[i]; }\n"
        "  q[0] = s; }",
        "carried",
        reductions=(("s", "+"),),
        reason="(a recurrence)",
        scan=("p", "+"),
    ),
    Case(
        "a prefix sum in place: the term is the element's own value",
        CPP,
        "void f(std::vector<long> &a) {\n  for (size_t i = 1; i < a.size(); ++i) a[i] += a[i - 1];\n}",
        "carried",
        reason="a[i] is a[i - 1] + a term (a recurrence)",
        scan=("a", "+"),
    ),
    Case(
        "a CSR row pointer from counts: a recurrence one element on",
        C,
        "void f(int n, const int *count, int *rp) { rp[0] = 0;\n"
        "  for (int i = 0; i < n; ++i) rp[i + 1] = rp[i] + count[i];\n}",
        "carried",
        reason="rp[i + 1] is rp[i] + a term (a recurrence)",
        scan=("rp", "+"),
    ),
    Case(
        "a running product in place one element on, term spelled as the whole element",
        CPP,
        "void f(std::vector<int> &a, int n) {\n"
        "  for (int k = 0; k < n; k++) a[k + 1] = a[k + 1] * a[k];\n}",
        "carried",
        reason="a[k + 1] is a[k] * a term (a recurrence)",
        scan=("a", "*"),
    ),
    Case(
        "a difference in place is no recurrence a scan computes",
        CPP,
        "void f(std::vector<long> &a) {\n  for (size_t i = 1; i < a.size(); ++i) a[i] -= a[i - 1];\n}",
        "carried",
    ),
    Case(
        "a term reading the next element is no recurrence",
        CPP,
        "void f(std::vector<long> &a) {\n"
        "  for (int i = 1; i < (int)a.size() - 1; ++i) a[i] = a[i - 1] + a[i + 1];\n}",
        "carried",
    ),
    Case(
        "one element on, a term reading the previous element again is no recurrence",
        C,
        "void f(int n, int *a) {\n  for (int i = 0; i < n; ++i) a[i + 1] = a[i] + a[i];\n}",
        "carried",
    ),
    Case(
        "in place with more than the previous element added is no recurrence matched",
        C,
        "void f(int n, int *a) {\n  for (int i = 1; i < n; ++i) a[i] += a[i - 1] + 1;\n}",
        "carried",
    ),
    Case(
        "one element on, the previous element read again by another statement",
        C,
        "void f(int n, const int *x, int *a, int *b) {\n"
        "  for (int i = 0; i < n; ++i) { a[i + 1] = a[i] + x[i]; b[i] = a[i]; }\n}",
        "carried",
    ),
    Case(
        "one element on over a stride of two reads elements no iteration writes",
        C,
        "void f(int n, const int *x, int *a) {\n"
        "  for (int i = 0; i < n; i += 2) a[i + 1] = a[i] + x[i];\n}",
        "carried",
    ),
    Case(
        "a compaction: elements packed at a counter the storing iterations count up",
        CPP,
        "size_t f(std::vector<int> const& x, std::vector<int> &y) { size_t k = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i) { if (x[i] > 0) y[k++] = x[i]; }\n  return k; }",
        "carried",
        reason="y packed at k",
        scan=("k", "+"),
    ),
    Case(
        "a compaction of two arrays, the counter incremented after both stores",
        C,
        "int f(int n, const int *x, int *y, int *z) { int k = 0;\n"
        "  for (int i = 0; i < n; i++) { int v = x[i] * 2; if (v > 3) { y[k] = v; z[k] = i; ++k; } }\n"
        "  return k; }",
        "carried",
        reason="y, z packed at k",
        scan=("k", "+"),
    ),
    Case(
        "a compaction whose counter is also read elsewhere is none",
        C,
        "int f(int n, const int *x, int *y, int *z) { int k = 0;\n"
        "  for (int i = 0; i < n; i++) { if (x[i] > 0) y[k++] = x[i]; z[i] = k; }\n  return k; }",
        "carried",
    ),
    Case(
        "packing in place is no compaction: an iteration reads what another stores",
        CPP,
        "size_t f(std::vector<int> &x) { size_t k = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i) { if (x[i] > 0) x[k++] = x[i]; }\n  return k; }",
        "carried",
    ),
    Case(
        "a store every iteration whose counter moves only on some is no compaction",
        C,
        "int f(int n, const int *x, int *y) { int k = 0;\n"
        "  for (int i = 0; i < n; i++) { y[k] = x[i]; k += x[i] > 0; }\n  return k; }",
        "carried",
    ),
    Case(
        "a counter stepped by two is no compaction matched",
        C,
        "int f(int n, const int *x, int *y) { int k = 0;\n"
        "  for (int i = 0; i < n; i++) { if (x[i] > 0) { y[k] = x[i]; k += 2; } }\n  return k; }",
        "carried",
    ),
    Case(
        "a store after the increment is no compaction matched",
        C,
        "int f(int n, const int *x, int *y) { int k = 0;\n"
        "  for (int i = 0; i < n; i++) { if (x[i] > 0) { k++; y[k] = x[i]; } }\n  return k; }",
        "carried",
    ),
    Case(
        "stores in an inner loop are no compaction of the outer one",
        C,
        "int f(int n, const int *x, int *y) { int k = 0;\n"
        "  for (int i = 0; i < n; i++) { for (int j = 0; j < 2; j++) if (x[i] > j) y[k++] = j; }\n"
        "  return k; }",
        "carried",
    ),
    Case(
        "a store in the condition of an if is no compaction",
        C,
        "int f(int n, const int *x, int *y) { int k = 0;\n"
        "  for (int i = 0; i < n; i++) { if (x[i] > 0 && (y[k++] = x[i])) { } }\n  return k; }",
        "carried",
    ),
    Case(
        "one array stored twice at the counter is no compaction",
        C,
        "int f(int n, const int *x, int *y) { int k = 0;\n"
        "  for (int i = 0; i < n; i++) { if (x[i] > 0) { y[k] = x[i]; y[k] = 1; k++; } }\n"
        "  return k; }",
        "carried",
    ),
    Case(
        "a value stored that reads the counter is no compaction matched",
        C,
        "int f(int n, const int *x, int *y) { int k = 0;\n"
        "  for (int i = 0; i < n; i++) { if (x[i] > 0) { y[k] = k; k++; } }\n  return k; }",
        "carried",
    ),
    Case(
        "a floating-point counter is no compaction",
        C,
        "int f(int n, const int *x, int *y) { double k = 0;\n"
        "  for (int i = 0; i < n; i++) { if (x[i] > 0) { y[(int)k] = x[i]; k++; } }\n"
        "  return (int)k; }",
        "carried",
    ),
    Case(
        "a counter whose address is taken is no compaction",
        C,
        "int f(int n, const int *x, int *y) { int k = 0; int *p = &k;\n"
        "  for (int i = 0; i < n; i++) { if (x[i] > 0) y[k++] = x[i]; }\n  return *p; }",
        "carried",
    ),
    Case(
        "a write to another array before the packing statement is no compaction",
        C,
        "int f(int n, const int *x, int *y, int *z) { int k = 0;\n"
        "  for (int i = 0; i < n; i++) { z[i] = 1; if (x[i] > 0) y[k++] = x[i]; }\n  return k; }",
        "carried",
    ),
    Case(
        "a recurrence whose term writes is no scan: a first pass would write it again",
        C,
        "void f(int n, unsigned *a, unsigned *b) {\n"
        "  for (int i = 1; i < n; i++) a[i] = a[i - 1] + (b[i] += 1u);\n}",
        "carried",
    ),
    Case(
        "a recurrence's first iteration that writes is no scan",
        C,
        "void f(int n, unsigned *a, unsigned *b) {\n  for (int i = 1; i < n; i++)\n"
        "    if (i == 1) a[i] = b[i]++; else a[i] = a[i - 1] + b[i];\n}",
        "carried",
    ),
    Case(
        "a recurrence calling a helper that reads the array it writes",
        C,
        "static unsigned a[1000], b[1000];\nstatic unsigned prev(int i) { return a[i - 1]; }\n"
        "void f(void) {\n  for (int i = 1; i < 1000; i++) a[i] = a[i - 1] + prev(i);\n}",
        "unknown",
        reason="calls prev, which reads a, which the loop writes",
    ),
    Case(
        "a compaction calling a helper that reads the array it packs into",
        C,
        "static unsigned x[1000], y[1000];\nstatic unsigned get(int i) { return y[i]; }\n"
        "int f(void) { int k = 0;\n"
        "  for (int i = 0; i < 1000; i++) if (x[i] > 300u) y[k++] = get(i);\n  return k; }",
        "unknown",
        reason="calls get, which reads y, which the loop writes",
    ),
    Case(
        "a compaction counting in an unsigned char wraps: two stores on one element",
        C,
        "int f(int n, const unsigned *x, unsigned *y) { unsigned char k = 0;\n"
        "  for (int i = 0; i < n; i++) if (x[i] & 1u) y[k++] = x[i];\n  return k; }",
        "unknown",
        reason="narrower than the loop it counts",
    ),
    Case(
        "a compaction counting in a short wraps too",
        C,
        "int f(int n, const unsigned *x, unsigned *y) { short k = 0;\n"
        "  for (int i = 0; i < n; i++) if (x[i] & 1u) y[k++] = x[i];\n  return k; }",
        "unknown",
        reason="narrower than the loop it counts",
    ),
    Case(
        "a compaction counting in an unsigned int over a size_t loop may wrap",
        C,
        "#include <stddef.h>\n"
        "unsigned f(size_t n, const unsigned *x, unsigned *y) { unsigned k = 0;\n"
        "  for (size_t i = 0; i < n; i++) if (x[i] & 1u) y[k++] = x[i];\n  return k; }",
        "unknown",
        reason="narrower than the loop it counts",
    ),
    Case(
        "a compaction counting in an unsigned int over an int loop",
        C,
        "unsigned f(int n, const unsigned *x, unsigned *y) { unsigned k = 0;\n"
        "  for (int i = 0; i < n; i++) if (x[i] & 1u) y[k++] = x[i];\n  return k; }",
        "carried",
        reason="y packed at k",
        scan=("k", "+"),
    ),
    Case(
        "an integer recurrence of floating-point terms rounds at every step",
        C,
        "void f(int n, int *a, const int *b) {\n"
        "  for (int i = 1; i < n; i++) a[i] = a[i - 1] + b[i] / 128.0;\n}",
        "unknown",
        reason="integer accumulating floating-point terms",
    ),
    Case(
        "an integer running value of floating-point terms rounds at every step",
        C,
        "void f(int n, const int *x, int *y) { int s = 0;\n"
        "  for (int i = 0; i < n; i++) { s += x[i] * 0.5; y[i] = s; }\n}",
        "unknown",
        reason="integer accumulating floating-point terms",
    ),
    Case(
        "a recurrence over bools saturates",
        C,
        "void f(int n, _Bool *a, const int *x) {\n"
        "  for (int i = 1; i < n; i++) a[i] = a[i - 1] + x[i];\n}",
        "unknown",
        reason="a bool",
    ),
    Case(
        "a recurrence over a std::vector<bool>'s bits is no scan",
        CPP,
        "#include <vector>\nvoid f(std::vector<bool> &v, const std::vector<bool> &w) {\n"
        "  for (size_t i = 1; i < v.size(); ++i) v[i] = v[i - 1] * w[i];\n}",
        "carried",
    ),
    # Bits inside another container share words as a std::vector<bool>'s do (a helper's
    # probe: each lost bits at 2 threads when called independent).
    Case(
        "a row of a vector of std::vector<bool> written bit by bit",
        CPP,
        "#include <vector>\nvoid f(std::vector<std::vector<bool>> &g, const int *a, int n) {\n"
        "  for (int i = 0; i < n; i++) g[0][i] = a[i] > 0;\n}",
        "carried",
        reason="bits packed into shared words",
    ),
    Case(
        "an array of std::vector<bool> written bit by bit",
        CPP,
        "#include <array>\n#include <vector>\n"
        "void f(std::array<std::vector<bool>, 2> &rows, const int *a, int n) {\n"
        "  for (int i = 0; i < n; i++) rows[1][i] = a[i] > 0;\n}",
        "carried",
        reason="bits packed into shared words",
    ),
    Case(
        "rows of a vector of std::vector<bool>, one per iteration",
        CPP,
        "#include <vector>\nstd::vector<std::vector<bool>> g;\nvoid f(int n, int m) {\n"
        "  for (int i = 0; i < n; i++)\n    for (int j = 0; j < m; j++) g[i][j] = (i + j) % 3 > 0;\n}",
        "independent",
    ),
    Case(
        "a vector of bitsets written bit by bit",
        CPP,
        "#include <bitset>\n#include <vector>\n"
        "void f(std::vector<std::bitset<512>> &g, const int *a) {\n"
        "  for (int i = 0; i < 512; i++) g[0][i] = a[i] > 0;\n}",
        "carried",
        reason="bits packed into shared words",
    ),
    Case(
        "pointers kept apart only by a bound that is not an integer: no check is written",
        C,
        "void f(int *a, const int *b, int n) {\n"
        "  for (int i = 0; i < n / 3.0; i++) a[i] = b[i] + 1;\n}",
        "unknown",
        reason="a and b may overlap",
    ),
    Case(
        "a difference is no recurrence a scan computes",
        CPP,
        "void f(std::vector<double> const& x, std::vector<double> &y) {\n"
        "  for (int i = 1; i < x.size(); ++i) { y[i] = y[i - 1] - x[i]; }\n}",
        "carried",
    ),
    Case(
        "running sum scan",
        C,
        "void f(int n, const int *x, int *y) { int sum = 0; for (int i = 0; i < n; i++) { sum += x[i]; y[i] = sum; } }",
        "carried",
        reason="scan",
        scan=("sum", "+"),
    ),
    Case(
        "running max in C: no identity to start a block from",
        C,
        "void f(int n, const int *x, int *y) { int m = x[0]; for (int i = 0; i < n; i++) { if (x[i] > m) m = x[i]; y[i] = m; } }",
        "carried",
        reason="scan",
    ),
    Case(
        "a running sum over a counter declared before the loop is no blocked scan",
        C,
        "void f(int n, const int *x, int *y) { int sum = 0, i; for (i = 0; i < n; i++) { sum += x[i]; y[i] = sum; } }",
        "carried",
        reason="scan",
    ),
    Case(
        "running min scan",
        CPP,
        "void f(std::vector<float> &x) { float m = x[0]; for (int i = 0; i < x.size(); i++) { if (x[i] < m) m = x[i]; x[i] = m; } }",
        "carried",
        reason="scan",
        scan=("m", "min"),
    ),
    Case(
        "running sum scan in C++, beside a sum of the running values",
        CPP,
        "double f(std::vector<double> const& x, std::vector<double> &y) { double acc = 0, total = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n    acc += x[i];\n    y[i] = acc;\n    total += acc;\n  }\n"
        "  return acc + total; }",
        "carried",
        reductions=(("total", "+"),),
        reason="two-pass blocked scan",
        scan=("acc", "+"),
    ),
    Case(
        "running max with a local, the update in an if",
        CPP,
        "void f(std::vector<int> const& x, std::vector<int> &y) { int top = x[0];\n"
        "  for (int i = 0; i < x.size(); ++i) { int v = x[i] * 2; if (v > top) top = v; y[i] = top + v; } }",
        "carried",
        reason="scan",
        scan=("top", "max"),
    ),
    Case(
        "exclusive scan: read before it is updated (the first pass leaves the read out)",
        CPP,
        "void f(std::vector<int> const& x, std::vector<int> &y) { int acc = 0;\n"
        "  for (int i = 0; i < x.size(); ++i) { y[i] = acc; acc += x[i]; } }",
        "carried",
        reason="exclusive scan",
        scan=("acc", "+"),
    ),
    Case(
        "exclusive scan through a local another statement reads before the update",
        CPP,
        "void f(std::vector<int> const& x, std::vector<int> &y) { int acc = 0;\n"
        "  for (int i = 0; i < x.size(); ++i) { int was = acc; y[i] = was; acc += x[i]; } }",
        "carried",
        reason="exclusive scan",
        scan=("acc", "+"),
    ),
    Case(
        "exclusive scan whose update reads what the read stored: no scan",
        CPP,
        "void f(std::vector<int> const& x, std::vector<int> &y) { int acc = 0;\n"
        "  for (int i = 0; i < x.size(); ++i) { y[i] = acc; acc += y[i] + x[i]; } }",
        "carried",
        reason="scan",
    ),
    Case(
        "exclusive scan whose read decides whether the update runs: no scan",
        CPP,
        "void f(std::vector<int> const& x, std::vector<int> &y) { int acc = 0;\n"
        "  for (int i = 0; i < x.size(); ++i) { y[i] = acc; if (acc > 9) break; acc += x[i]; } }",
        "carried",
        reason="scan",
    ),
    Case(
        "a running value read between two updates: no scan",
        CPP,
        "void f(std::vector<int> const& x, std::vector<int> &y) { int acc = 0;\n"
        "  for (int i = 0; i < x.size(); ++i) { acc += x[i]; y[i] = acc; acc += 1; } }",
        "carried",
        reason="scan",
    ),
    Case(
        "a scan whose updating statements also write an array (they would run twice)",
        CPP,
        "void f(std::vector<int> const& x, std::vector<int> &y, std::vector<int> &z) { int acc = 0;\n"
        "  for (int i = 0; i < x.size(); ++i) { acc += x[i]; z[i] = 1; y[i] = acc; } }",
        "carried",
        reason="scan",
    ),
    Case(
        "a running value the caller holds (a reference) is no blocked scan",
        CPP,
        "void f(std::vector<int> const& x, std::vector<int> &y, int &acc) {\n"
        "  for (int i = 0; i < x.size(); ++i) { acc += x[i]; y[i] = acc; } }",
        "carried",
        reason="scan",
    ),
    Case(
        "a running value updated with two operators is no scan",
        CPP,
        "void f(std::vector<int> const& x, std::vector<int> &y) { int acc = 0;\n"
        "  for (int i = 0; i < x.size(); ++i) { acc += x[i]; acc *= 2; y[i] = acc; } }",
        "carried",
        reason="scan",
    ),
    Case(
        "a running value updated in the same statement that reads it is no scan",
        CPP,
        "void f(std::vector<int> const& x, std::vector<int> &y) { int acc = 0;\n"
        "  for (int i = 0; i < x.size(); ++i) { if (x[i] > 0) { acc += x[i]; y[i] = acc; } } }",
        "carried",
        reason="scan",
    ),
    Case(
        "recurrence",
        C,
        "double f(int n, double *x) { double v = 1; for (int i = 0; i < n; i++) v = v * 0.5 + x[i] * v; return v; }",
        "carried",
        reason="scan",
    ),
    Case(
        "printf",
        C,
        '#include <stdio.h>\nvoid f(int n, double *x) { for (int i = 0; i < n; i++) printf("%f\\n", x[i]); }',
        "unknown",
        reason="printf",
    ),
    Case(
        "rand",
        C,
        "#include <stdlib.h>\nvoid f(int n, int *x) { for (int i = 0; i < n; i++) x[i] = rand(); }",
        "unknown",
        reason="rand",
    ),
    Case(
        "pure math calls",
        C,
        "#include <math.h>\nvoid f(int n, double *x) { for (int i = 0; i < n; i++) x[i] = sqrt(fabs(x[i])) + exp(sin(x[i])) + pow(x[i], 2); }",
        "independent",
    ),
    Case(
        "pure function of the program",
        C,
        "static int sq(int v) { return v * v; }\nvoid f(int n, int *x) { for (int i = 0; i < n; i++) x[i] = sq(x[i]); }",
        "independent",
    ),
    Case(
        "impure function of the program",
        C,
        "int calls = 0;\nstatic int sq(int v) { calls++; return v * v; }\nvoid f(int n, int *x) { for (int i = 0; i < n; i++) x[i] = sq(x[i]); }",
        "unknown",
        reason="sq",
    ),
    Case(
        "early exit break",
        C,
        "int f(int n, int *x) { int k = -1; for (int i = 0; i < n; i++) { if (x[i] == 0) { k = i; break; } } return k; }",
        "carried",
        reason="early exit",
        # In C the rewrite's "no match yet" is the loop's bound, in C++ numeric_limits' max.
        first_match=True,
    ),
    Case(
        "early exit return",
        CPP,
        "bool f(std::vector<int> const& x, int v) { for (size_t i = 0; i < x.size(); ++i) if (x[i] == v) return true; return false; }",
        "carried",
        reason="return",
        first_match=True,
    ),
    Case(
        "search: the match's writes happen on the way out",
        CPP,
        "int f(int n, const int *x) { int k = -1; for (int i = 0; i < n; i++) { int y = x[i] * 2; if (y == 8) { k = i; break; } } return k; }",
        "carried",
        reason="first-match search",
        first_match=True,
    ),
    Case(
        "search: a write every iteration is no search",
        CPP,
        "int f(int n, const int *x, int &seen) { for (int i = 0; i < n; i++) { seen = i; if (x[i] == 0) return i; } return -1; }",
        "carried",
        reason="early exit",
    ),
    Case(
        "search: a write under the exit's if but before it is no search",
        CPP,
        "int f(int n, const int *x, int &hits) { for (int i = 0; i < n; i++) { if (x[i] == 0) { hits++; if (x[i + 1] == 0) return i; } } return -1; }",
        "carried",
        reason="early exit",
    ),
    Case(
        "search: a return inside an inner loop is tangled",
        CPP,
        "int f(int n, int m, const int *x) { for (int i = 0; i < n; i++) { for (int j = 0; j < m; j++) { if (x[i * m + j] == 0) return i; } } return -1; }",
        "carried",
        reason="early exit",
    ),
    Case(
        "search: goto is no search",
        CPP,
        "int f(int n, const int *x) { int i; for (int k = 0; k < n; k++) { if (x[k] == 0) { i = k; goto done; } } return -1; done: return i; }",
        "carried",
        reason="goto",
    ),
    Case(
        "search: counting down finds the last match, not the first",
        CPP,
        "int f(int n, const int *x) { for (int i = n - 1; i >= 0; i--) { if (x[i] == 0) return i; } return -1; }",
        "carried",
        reason="early exit",
    ),
    Case(
        "search: an impure call in the body",
        CPP,
        'int f(int n, const int *x) { for (int i = 0; i < n; i++) { printf("%d", x[i]); if (x[i] == 0) return i; } return -1; }',
        "carried",
        reason="early exit",
    ),
    Case(
        "a return inside a lambda leaves the lambda, not the loop",
        CPP,
        "void f(int n, double *x) { for (int i = 0; i < n; i++) { x[i] = [](double v) { return v * v; }(x[i]); } }",
        "unknown",
        reason="calls",
    ),
    Case(
        "break in an inner loop is not an exit",
        C,
        "void f(int n, int m, int *a) { for (int i = 0; i < n; i++) { for (int j = 0; j < m; j++) { if (j > i) break; } a[i] = i; } }",
        "independent",
    ),
    Case(
        "while loop",
        C,
        "int f(int n) { int i = 0; while (i < n) i++; return i; }",
        "unknown",
        reason="canonical",
    ),
    Case(
        "do loop",
        C,
        "int f(int n) { int i = 0; do { i++; } while (i < n); return i; }",
        "unknown",
        reason="canonical",
    ),
    Case(
        "outer independent, inner reduction into a[i]",
        C,
        "void f(int n, int m, double *a, double **b) { for (int i = 0; i < n; i++) { a[i] = 0; for (int j = 0; j < m; j++) a[i] += b[i][j]; } }",
        # A row b[i] may be a itself, and nothing bounds where the rows lie.
        "unknown",
        reason="unbounded",
    ),
    Case(
        "inner accumulation into a[i]",
        C,
        "void f(int n, int m, double *a, double **b) { for (int i = 0; i < n; i++) { a[i] = 0; for (int j = 0; j < m; j++) a[i] += b[i][j]; } }",
        "carried",
        loop=1,
        reason="a[i]",
    ),
    Case(
        "matrix-vector with inner sum",
        C,
        "void f(int n, double A[n][n], double *x, double *y) { for (int i = 0; i < n; i++) { double s = 0; for (int j = 0; j < n; j++) s += A[i][j] * x[j]; y[i] = s; } }",
        "independent",
    ),
    Case(
        "private temporary",
        C,
        "void f(int n, double *x, double *y) { double t; for (int i = 0; i < n; i++) { t = x[i] * 2; y[i] = t + t * t; } }",
        "independent",
        private=("t",),
    ),
    Case(
        "temporary read after the loop",
        C,
        "double f(int n, double *x, double *y) { double t = 0; for (int i = 0; i < n; i++) { t = x[i] * 2; y[i] = t; } return t; }",
        "independent",
        lastprivate=("t",),
        reason="the last iteration's value is kept: t",
    ),
    Case(
        "conditional assignment: the last match is kept",
        C,
        "int f(int n, int *x) { int last = -1; for (int i = 0; i < n; i++) if (x[i] > 0) last = i; return last; }",
        "independent",
        last_assigned=("last",),
    ),
    Case(
        "conditional assignment nobody reads afterwards",
        C,
        "void f(int n, int *x) { int t; for (int i = 0; i < n; i++) if (x[i] > 0) { t = i; x[i] = 0; } }",
        "independent",
        private=("t",),
    ),
    Case(
        "the last match of a ParEval search (size_t, std::vector of structs)",
        CPP,
        "struct Book { int pages; };\n"
        "size_t f(std::vector<Book> const& books) { size_t last = 0; "
        "for (size_t i = 0; i < books.size(); ++i) { if (books[i].pages < 100) { last = i; } } "
        "return last; }",
        "independent",
        last_assigned=("last",),
    ),
    Case(
        "conditional assignment to a global",
        C,
        "int g; void f(int n, int *x) { for (int i = 0; i < n; i++) if (x[i] > 0) g = i; }",
        "carried",
        reason="some iterations",
    ),
    Case(
        "conditional assignment of one member",
        CPP,
        "struct P { int x; int y; };\n"
        "int f(int n, const int *a) { P p{0, 0}; for (int i = 0; i < n; i++) if (a[i] > 0) p.x = i; return p.x; }",
        "carried",
        reason="some iterations",
    ),
    Case(
        # The caller may bind `out` to an element of `w` (`f(n, a, w, w[5])`): it is storage
        # reached through an address, which a write of `w[i]` may change.
        "a reference parameter assigned in every iteration beside writes through a pointer",
        CPP,
        "void f(int n, const int *a, int *w, int &out) { for (int i = 0; i < n; i++) { out = a[i]; w[i] = out; } }",
        "unknown",
        reason="out, a reference parameter",
    ),
    Case(
        # `f(n, a, a[5])`: the write changes what a later iteration reads.
        "a reference parameter assigned in every iteration beside reads through a pointer",
        CPP,
        "void f(int n, const int *a, int &out) { for (int i = 0; i < n; i++) { out = a[i] * 2; } }",
        "unknown",
        reason="writes out, a reference parameter",
    ),
    Case(
        "a reference parameter assigned in every iteration: the caller reads it",
        CPP,
        "int a[100]; void f(int &out) { for (int i = 0; i < 100; i++) { out = a[i] * 2; } }",
        "unknown",
        reason="writes out, a reference parameter",
    ),
    Case(
        "a reference parameter assigned from the loop's own values",
        CPP,
        "void f(int n, int &out) { for (int i = 0; i < n; i++) { int t = i * 2; out = t; } }",
        "independent",
        lastprivate=("out",),
    ),
    Case(
        "a global assigned in every iteration",
        C,
        "int g; void f(int n, const int *a) { for (int i = 0; i < n; i++) g = a[i]; }",
        "independent",
        lastprivate=("g",),
    ),
    Case(
        "a static local assigned in every iteration outlives the call",
        C,
        "void f(int n, const int *a) { static int seen; for (int i = 0; i < n; i++) seen = a[i]; }",
        "independent",
        lastprivate=("seen",),
    ),
    Case(
        "an inner loop's temporary that the outer loop reads before the inner loop",
        C,
        "void f(int n, const double *a, double *w) { double t = 0; "
        "for (int k = 0; k < n; k++) { w[k] = t; for (int i = 0; i < n; i++) { t = a[i]; } } }",
        "independent",
        loop=1,
        lastprivate=("t",),
    ),
    Case(
        "one member assigned, another read: the rest carries over",
        CPP,
        "struct P { int x; int y; };\n"
        "void f(int n, const int *a, int *w) { P p{0, 0}; "
        "for (int i = 0; i < n; i++) { p.x = a[i]; w[i] = p.x + p.y; p.y = a[i]; } }",
        "carried",
        reason="member by member",
    ),
    Case(
        "loop variables declared outside",
        C,
        "void f(int n, int m, double *a) { int i, j; for (i = 0; i < n; i++) for (j = 0; j < m; j++) a[i * m + j] = i + j; }",
        "independent",
        private=("j",),
    ),
    Case(
        "triangular",
        C,
        "void f(int n, double *a) { for (int i = 0; i < n; i++) for (int j = 0; j <= i; j++) a[i * n + j] = 1.0; }",
        "independent",
    ),
    Case(
        "2-D in place by rows",
        C,
        "void f(int n, int m, double a[n][m]) { for (int i = 1; i < n; i++) for (int j = 0; j < m; j++) a[i][j] += a[i - 1][j]; }",
        "carried",
    ),
    Case(
        "2-D in place by rows: the inner loop",
        C,
        "void f(int n, int m, double a[n][m]) { for (int i = 1; i < n; i++) for (int j = 0; j < m; j++) a[i][j] += a[i - 1][j]; }",
        "independent",
        loop=1,
    ),
    Case(
        "write to one element",
        C,
        "void f(int n, double *a, double *x) { for (int i = 0; i < n; i++) a[0] = x[i]; }",
        "carried",
        reason="same element",
    ),
    Case(
        "C++ vectors and size()",
        CPP,
        "#include <vector>\nvoid f(std::vector<int> &x) { for (size_t i = 0; i < x.size(); ++i) x[i] = -x[i]; }",
        "independent",
    ),
    Case(
        "push_back",
        CPP,
        "#include <vector>\nvoid f(std::vector<int> const& x, std::vector<int> &y) { for (size_t i = 0; i < x.size(); ++i) y.push_back(x[i]); }",
        "unknown",
        reason="push_back",
    ),
    Case(
        "range-for sum by value",
        CPP,
        "#include <vector>\nint f(std::vector<int> const& x) { int s = 0; for (int v : x) s += v; return s; }",
        "reduction",
        reductions=(("s", "+"),),
    ),
    Case(
        "range-for map through auto&",
        CPP,
        "#include <vector>\nvoid f(std::vector<double> &x) { for (auto &e : x) { e = 1.0 - 1.0 / e; } }",
        "independent",
        reason="its own element of x",
    ),
    Case(
        "range-for compound write through auto&",
        CPP,
        "#include <array>\nvoid f(std::array<int, 8> &x, int k) { for (auto &e : x) e += k; }",
        "independent",
    ),
    Case(
        "range-for sum over const&",
        CPP,
        "#include <vector>\ndouble f(std::vector<double> const& x) { double sum = 0; for (auto const& v : x) { sum += v; } return sum / x.size(); }",
        "reduction",
        reductions=(("sum", "+"),),
    ),
    Case(
        "range-for xor over const&",
        CPP,
        "#include <vector>\nbool f(std::vector<bool> const& x) { bool result = false; for (auto const& i : x) { result ^= i; } return result; }",
        "reduction",
        reductions=(("result", "^"),),
    ),
    Case(
        "range-for max via if over a local array",
        CPP,
        "int f() { int a[4] = {3, 1, 4, 1}; int m = a[0]; for (const int &v : a) { if (v > m) m = v; } return m; }",
        "reduction",
        reductions=(("m", "max"),),
    ),
    Case(
        "range-for histogram into a std::array",
        CPP,
        "#include <vector>\n#include <array>\nvoid f(std::vector<int> const& image, std::array<size_t, 256> &bins) { for (auto const& pixel : image) bins[pixel]++; }",
        "reduction",
        reason="array reduction",
        arrays=(("bins", "+", "256"),),
    ),
    Case(
        "histogram into a local array of a named length",
        C,
        "#define NB 8\nvoid f(int n, const int *x, double *out) { double h[NB] = {0}; "
        "for (int i = 0; i < n; i++) h[x[i] % NB] += 0.5; for (int b = 0; b < NB; b++) out[b] = h[b]; }",
        "reduction",
        arrays=(("h", "+", "NB"),),
    ),
    Case(
        "fixed bins chosen by branches",
        CPP,
        "#include <array>\nvoid f(int n, const double *x, std::array<int, 2> &bins) { "
        "for (int i = 0; i < n; i++) { if (x[i] < 0) bins[0]++; else bins[1] += 1; } }",
        "reduction",
        arrays=(("bins", "+", "2"),),
    ),
    Case(
        "ranks by binary search in a sorted copy",
        CPP,
        "#include <vector>\n#include <algorithm>\nvoid f(std::vector<float> const& x, std::vector<size_t> &r) { "
        "std::vector<float> s = x; std::sort(s.begin(), s.end()); "
        "for (size_t i = 0; i < x.size(); ++i) r[i] = std::distance(s.begin(), std::lower_bound(s.begin(), s.end(), x[i])); }",
        "independent",
    ),
    Case(
        "complex values constructed in the body",
        CPP,
        "#include <vector>\n#include <complex>\nvoid f(std::vector<double> const& x, std::vector<std::complex<double>> &y) { "
        "for (size_t i = 0; i < x.size(); i++) y[i] = std::exp(std::complex<double>(0, x[i])); }",
        "independent",
    ),
    Case(
        "map into a std::vector<bool> from 0: whole words per chunk of iterations",
        CPP,
        "#include <vector>\nvoid f(std::vector<int> const& x, std::vector<bool> &mask) { "
        "for (int i = 0; i < x.size(); i++) mask[i] = x[i] > 0; }",
        "independent",
        packed=("mask",),
    ),
    Case(
        "map into a std::vector<bool> from 1: chunks would share words",
        CPP,
        "#include <vector>\nvoid f(std::vector<int> const& x, std::vector<bool> &mask) { "
        "for (int i = 1; i < x.size(); i++) mask[i] = x[i] > 0; }",
        "carried",
        reason="bits packed into shared words",
    ),
    Case(
        "a std::vector<bool> written at a neighbour's index",
        CPP,
        "#include <vector>\nvoid f(std::vector<int> const& x, std::vector<bool> &mask) { "
        "for (int i = 0; i < x.size() - 1; i++) mask[i + 1] = x[i] > 0; }",
        "carried",
        reason="bits packed into shared words",
    ),
    Case(
        "map reading a std::vector<bool>",
        CPP,
        "#include <vector>\nvoid f(std::vector<bool> const& keep, std::vector<int> &x) { "
        "for (int i = 0; i < x.size(); i++) x[i] = keep[i] ? x[i] : 0; }",
        "independent",
    ),
    Case(
        "histogram that also uses the whole array",
        CPP,
        "#include <array>\nvoid f(int n, const int *x, std::array<int, 4> &bins, int *out) { "
        "for (int i = 0; i < n; i++) { bins[x[i] % 4]++; out[i] = (int)bins.size(); } }",
        "carried",
        reason="histogram: write to bins",
    ),
    Case(
        "histogram whose bins are also read",
        C,
        "void f(int n, const int *x) { int h[4] = {0}; for (int i = 0; i < n; i++) if (h[x[i]] < 3) h[x[i]]++; }",
        "carried",
        reason="histogram: write to h",
    ),
    Case(
        "histogram indexed by its own bins",
        C,
        "void f(int n, int *x) { int h[4] = {0}; for (int i = 0; i < n; i++) h[h[x[i]] % 4]++; }",
        "carried",
    ),
    Case(
        "histogram of a length only known at run time",
        C,
        "void f(int n, int m, const int *x) { int h[m]; for (int i = 0; i < n; i++) h[x[i]]++; }",
        "carried",
        reason="would need the length of h",
    ),
    Case(
        "histogram of run-time length whose bin the body computes first",
        CPP,
        "#include <vector>\nvoid f(int n, const int *x, std::vector<long> &h) "
        "{ for (int i = 0; i < n; i++) { int b = x[i] % 13; h[b] += 2; } }",
        "reduction",
        reason="each update atomic",
        arrays=(("h", "+", "h.size()"),),
    ),
    Case(
        "every iteration into the one bin a run-time length array names",
        CPP,
        "#include <vector>\nvoid f(int n, int k, const int *x, std::vector<long> &h) "
        "{ for (int i = 0; i < n; i++) { h[k] += x[i]; } }",
        "carried",
        reason="here they all hit the same element",
    ),
    Case(
        "range-for spmm",
        CPP,
        "#include <vector>\nstruct E { size_t row, column; double value; };\n"
        "void f(std::vector<E> const& A, std::vector<E> const& X, std::vector<double> &Ytemp, size_t N) {\n"
        "  for (auto const& a : A) {\n    for (auto const& x : X) {\n"
        "      if (a.column == x.row) { Ytemp[a.row*N + x.column] += a.value * x.value; }\n    }\n  }\n}",
        "reduction",
        reason="each update atomic",
        arrays=(("Ytemp", "+", "Ytemp.size()"),),
    ),
    Case(
        "range-for spmm inner",
        CPP,
        "#include <vector>\nstruct E { size_t row, column; double value; };\n"
        "void f(std::vector<E> const& A, std::vector<E> const& X, std::vector<double> &Ytemp, size_t N) {\n"
        "  for (auto const& a : A) {\n    for (auto const& x : X) {\n"
        "      if (a.column == x.row) { Ytemp[a.row*N + x.column] += a.value * x.value; }\n    }\n  }\n}",
        "reduction",
        loop=1,
        reason="each update atomic",
        arrays=(("Ytemp", "+", "Ytemp.size()"),),
    ),
    Case(
        "argmin: the best value and its index",
        CPP,
        "size_t f(std::vector<double> const& x) { double best = 1e300; size_t at = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i) { double d = x[i] * x[i]; if (d < best) { best = d; at = i; } }\n"
        "  return at; }",
        "reduction",
        reason="best so far (min): best with at",
    ),
    Case(
        "argmax written the other way round, beside a sum",
        C,
        "int f(int n, const double *x, double *total) { double top = -1; int at = -1; double s = 0;\n"
        "  for (int i = 0; i < n; i++) { s += x[i]; if (top <= x[i]) { top = x[i]; at = i; } }\n"
        "  *total = s; return at; }",
        "reduction",
        reductions=(("s", "+"),),
        reason="best so far (max): top with at",
    ),
    Case(
        "argmin whose index is read elsewhere in the body is a scan",
        CPP,
        "size_t f(std::vector<double> const& x, std::vector<size_t> &trail) { double best = 1e300; size_t at = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i) { if (x[i] < best) { best = x[i]; at = i; } trail[i] = at; }\n"
        "  return at; }",
        "carried",
        reason="scan",
    ),
    Case(
        "an argmin into a variable the body declares itself is no best update",
        CPP,
        "size_t f(std::vector<double> const& x) { double best = 1e300; size_t at = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i) { size_t at = 7; if (x[i] < best) { best = x[i]; at = i; } }\n"
        "  return at; }",
        "carried",
        reason="scan",
    ),
    Case(
        "argmin whose candidate reads the index it keeps is no best update",
        CPP,
        "size_t f(std::vector<double> const& x) { double best = 1e300; size_t at = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i) { if (x[i] - x[at] < best) { best = x[i] - x[at]; at = i; } }\n"
        "  return at; }",
        "carried",
        reason="scan",
    ),
    Case(
        "histogram into a std::vector of run-time length: atomic updates",
        CPP,
        "#include <vector>\nstd::vector<long> f(std::vector<int> const& x, int nb) {\n"
        "  std::vector<long> h(nb);\n  for (size_t i = 0; i < x.size(); i++) h[x[i] % nb]++;\n  return h;\n}",
        "reduction",
        reason="each update atomic",
        arrays=(("h", "+", "h.size()"),),
    ),
    Case(
        "every iteration updating one element of a std::vector is no histogram",
        CPP,
        "#include <vector>\nvoid f(std::vector<double> const& x, std::vector<double> &out) {\n"
        "  for (size_t k = 0; k < out.size(); k++) {\n"
        "    for (size_t j = 0; j < x.size(); j++) out[k] += x[j] * k;\n  }\n}",
        "carried",
        loop=1,
        reason="all hit the same element",
    ),
    Case(
        "range-for writes through the element and reads the container",
        CPP,
        "#include <vector>\nvoid f(std::vector<int> &x) { for (auto &e : x) e = x[0] + e; }",
        "carried",
        reason="also uses x[0]",
    ),
    Case(
        "range-for over a std::map",
        CPP,
        "#include <map>\nint f(std::map<int, int> const& m) { int s = 0; for (auto const& kv : m) s += kv.second; return s; }",
        "unknown",
        reason="container type not known to be random access",
    ),
    Case(
        "range-for over a function call",
        CPP,
        "#include <vector>\nstd::vector<int> g();\nint f() { int s = 0; for (int v : g()) s += v; return s; }",
        "unknown",
        reason="not a container named by a variable",
    ),
    Case(
        "range-for over a braced list",
        CPP,
        "int f() { int s = 0; for (int v : {1, 2, 3}) s += v; return s; }",
        "unknown",
        reason="not a container named by a variable",
    ),
    Case(
        "range-for over a container of unknown type",
        CPP,
        "template <typename T> int f(T const& c) { int s = 0; for (int v : c) s += v; return s; }",
        "unknown",
        reason="container type not known to be random access",
    ),
    Case(
        "inner range-for writes a shared container",
        CPP,
        "#include <vector>\nvoid f(int n, std::vector<int> &y) { for (int i = 0; i < n; i++) for (auto &a : y) a = i; }",
        "carried",
        reason="writes all of y through a",
    ),
    Case(
        "nested range-for writes rows and reads the matrix",
        CPP,
        "#include <vector>\nvoid f(std::vector<std::vector<int>> &m) { for (auto &r : m) for (auto &a : r) a = m[0][0]; }",
        "carried",
        reason="also uses m",
    ),
    Case(
        "a helper that fills its argument through a range-for is not pure",
        CPP,
        "#include <vector>\nvoid fill(std::vector<int> &y) { for (auto &a : y) a = 0; }\n"
        "void f(int n, std::vector<int> &y) { for (int i = 0; i < n; i++) fill(y); }",
        "unknown",
        loop=1,
        reason="calls fill",
    ),
    Case(
        "inner range-for writes the outer row",
        CPP,
        "#include <vector>\nvoid f(int n, std::vector<std::vector<int>> &m) { for (int i = 0; i < n; i++) for (auto &a : m[i]) a = i; }",
        "independent",
    ),
    Case(
        "reverse index",
        C,
        "void f(int n, const int *x, int *y) { for (int i = 0; i < n; i++) y[n - 1 - i] = x[i]; }",
        "independent",
    ),
    Case(
        "pointer store",
        C,
        "void f(int n, double *p) { for (int i = 0; i < n; i++) *(p + i) = 0; }",
        "unknown",
        reason="pointer",
    ),
    Case(
        "bound changed in body",
        C,
        "void f(int n, int *x) { for (int i = 0; i < n; i++) { x[i] = 0; n--; } }",
        "unknown",
        reason="changes n",
    ),
    Case(
        "loop variable changed in body",
        C,
        "void f(int n, int *x) { for (int i = 0; i < n; i++) { x[i] = 0; i++; } }",
        "unknown",
        reason="assigns the loop variable",
    ),
    Case(
        "stride two",
        C,
        "void f(int n, int *x) { for (int i = 0; i < n; i += 2) x[i] = x[i + 1]; }",
        "carried",
    ),
    Case(
        "index through a temporary",
        C,
        "void f(int n, int *x, const int *o) { for (int i = 0; i < n; i++) { int k = o[i]; x[i + k] = 1; } }",
        "carried",
    ),
    Case(
        "reduction also read",
        C,
        "void f(int n, double *x) { double s = 0; for (int i = 0; i < n; i++) { s += x[i]; x[i] = x[i] / s; } }",
        "carried",
        reason="scan",
        scan=("s", "+"),
    ),
    # An array inside an array's element (`b[i].p[0]`) is a use of the element `b[i]`, as a
    # scalar member is: not one element `[0]` every iteration writes.
    Case(
        "array members of an array's elements",
        C,
        "typedef struct { double p[3]; double v[3]; } B;\n"
        "static B b[64];\n"
        "void f(void) { for (int i = 0; i < 64; i++) { b[i].p[0] = i; b[i].v[2] = b[i].p[0] * 2; } }",
        "independent",
        reason="own elements (b[i])",
    ),
    Case(
        "array members of a pointer's elements: apart from another pointer only at run time",
        C,
        "typedef struct { double p[3]; } B;\n"
        "void f(int n, const B *b, double *out) { for (int i = 0; i < n; i++) out[i] = b[i].p[0] + b[i].p[2]; }",
        "independent",
        reason="checked at run time",
    ),
    Case(
        "an array member of the element before",
        C,
        "typedef struct { double p[3]; } B;\n"
        "void f(int n, B *b) { for (int i = 1; i < n; i++) b[i].p[0] = b[i - 1].p[1] + 1; }",
        "carried",
        reason="b[i - 1] and b[i] may be the same element",
    ),
    Case(
        "an array member of an element chosen by data",
        C,
        "typedef struct { double p[3]; } B;\n"
        "void f(int n, B *b, const int *k) { for (int i = 0; i < n; i++) b[k[i]].p[0] += 1.0; }",
        "carried",
        reason="data-dependent index",
    ),
    # A pointer member's elements lie wherever it points, another element's pointer perhaps
    # the same place: an address the code computes, not the element's own storage.
    Case(
        "a pointer member of each element, at the counter",
        C,
        "typedef struct { double *ptr; } B;\n"
        "void f(int n, B *b) { for (int i = 0; i < n; i++) b[i].ptr[i] = 1.0; }",
        "unknown",
        reason="writes through a pointer",
    ),
    Case(
        "a member reached through an element's pointer",
        C,
        "typedef struct { double p[3]; } B;\n"
        "void f(int n, B **b) { for (int i = 0; i < n; i++) b[i]->p[0] = 1.0; }",
        "unknown",
        reason="writes through a pointer",
    ),
    Case(
        "a member some struct of the file declares as a pointer, another as an array",
        C,
        "typedef struct { double p[3]; } B;\nstruct Q { double *p; };\n"
        "void f(int n, B *b) { for (int i = 0; i < n; i++) b[i].p[0] = 1.0; }",
        "unknown",
        reason="writes through a pointer",
    ),
    Case(
        "a pointer to rows as a member",
        C,
        "typedef struct { double (*rows)[3]; } B;\n"
        "void f(int n, B *b) { for (int i = 0; i < n; i++) b[i].rows[0][1] = 1.0; }",
        "unknown",
        reason="writes through a pointer",
    ),
    Case(
        "an element's array member indexed by the inner counter",
        C,
        "typedef struct { double v[3]; } B;\n"
        "static B b[64];\n"
        "void f(void) { for (int i = 0; i < 64; i++) for (int k = 0; k < 3; k++) b[i].v[k] = b[i].v[k] * 2 + k; }",
        "independent",
        reason="own elements (b[i])",
    ),
]


def _loop(case: Case):
    program = analyse(case.source, case.language)
    return program.loops[case.loop]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_verdict_matches_the_hand_label(case: Case) -> None:
    dep = _loop(case).dependence
    assert dep.kind == case.kind, dep.reason
    assert tuple((r.var, r.op) for r in dep.reductions) == tuple(case.reductions)
    assert dep.private == case.private
    assert dep.lastprivate == case.lastprivate
    assert dep.last_assigned == case.last_assigned
    assert dep.first_match == case.first_match
    assert ((dep.scan.var, dep.scan.op) if dep.scan else None) == case.scan
    assert dep.packed == case.packed
    assert bool(dep.best_updates) == ("best so far" in case.reason)
    assert case.reason in " ".join((dep.reason, *dep.assumptions))
    assert [(a.var, a.op, a.length) for a in dep.array_reductions] == list(case.arrays)


def test_a_search_that_writes_before_it_leaves_is_no_search() -> None:
    """A search runs every iteration up to its bound, so only what it writes on its way out
    may escape: a write through a reference the body declares (`int &q = found; ... q =
    i;`), or a destructor with side effects, makes it no search; the plain search stays one."""
    source = (
        "int calls = 0;\nstruct Probe { ~Probe() { calls++; } };\n"
        "int f(const int *a, int n) {\n    int found = -1;\n"
        "    for (int i = 0; i < n; i++) { int &q = found; if (a[i] < 0) break; q = i; }\n"
        "    return found;\n}\n"
        "int g(const int *a, int n) {\n    int total = 0;\n"
        "    for (int i = 0; i < n; i++) { int &r = total; if (a[i] < 0) break; r += a[i]; }\n"
        "    return total;\n}\n"
        "int h(const int *a, int n) {\n"
        "    for (int i = 0; i < n; i++) { Probe p; if (a[i] < 0) return i; }\n    return -1;\n}\n"
        "int ok(const int *a, int n) {\n    int found = -1;\n"
        "    for (int i = 0; i < n; i++) { if (a[i] < 0) { found = i; break; } }\n"
        "    return found;\n}\n"
    )
    verdicts = {loop.function: loop.dependence for loop in analyse(source, CPP).loops}
    for name in ("f", "g", "h"):
        assert not verdicts[name].first_match and not verdicts[name].parallelisable, name
    assert verdicts["ok"].first_match


def test_a_counter_read_after_its_loop_is_kept_and_one_counted_again_is_not() -> None:
    """`int i; for (i = 0; ...) ...; if (c) i = 0; *out = i;` reads the loop's end on one way
    on (the counter is kept: its sequential end must be there after a parallel version); the
    next loop's counter is counted again before any read, and the one after that is never
    read again."""
    source = (
        "void f(int n, int c, double *a, int *out) { int i;\n"
        "  for (i = 0; i < n; i++) a[i] = i * 0.5;\n  if (c) i = 0;\n  *out = i;\n"
        "  for (i = 0; i < n; i++) a[i] += 1;\n  for (i = 0; i < n; i++) a[i] *= 2;\n}"
    )
    program = analyse(source, C)
    assert [loop.counter_kept for loop in program.loops] == [True, False, False]
    assert all(loop.dependence.kind == "independent" for loop in program.loops)


def test_parallelisable_means_independent_or_reduction() -> None:
    kinds = {c.kind: _loop(c).dependence.parallelisable for c in CASES}
    assert kinds == {"independent": True, "reduction": True, "carried": False, "unknown": False}


def test_floating_point_scans_and_histograms_say_they_reassociate() -> None:
    """A blocked scan combines its blocks' totals, and a histogram its threads' copies, in
    another order: of doubles, the last digits may differ, and the verdict says so as it does
    for a reduction (a helper's probe found it silent); integers need no such word."""
    source = (
        "void f(int n, const double *x, double *y, const int *a, long *z) {\n"
        "  double s = 0, loc[4] = {0};\n  for (int i = 0; i < n; i++) { s += x[i]; y[i] = s; }\n"
        "  for (int i = 0; i < n; i++) loc[a[i] & 3] -= x[i];\n"
        "  long t = 0;\n  for (int i = 0; i < n; i++) { t += a[i]; z[i] = t; }\n}\n"
    )
    scan, histogram, integers = (loop.dependence for loop in analyse(source, C).loops)
    assert scan.scan is not None and any(
        "scan of s may be floating-point" in a for a in scan.assumptions
    )
    assert histogram.array_reductions, histogram.reason
    assert any("array reduction(loc) of floating-point" in a for a in histogram.assumptions)
    assert integers.scan is not None and not any("floating" in a for a in integers.assumptions)
