"""`as_loops`: the rewrites that write a function's standard algorithms, searches and loops
over elements as the counted loops they run (for the CUDA writer and the MPI kit). Each must
keep the function's sequential meaning exactly; these are the wrong-rewrite classes a review
found, each now left alone or rewritten right (compiled beside the original with g++ and
compared)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agents.analysis import analyse
from agents.analysis.kernels import as_loops
from sandbox.spec import Language

_LEFT_ALONE = {
    "an algorithm under a branch of ?:": (
        "double f(const std::vector<double>& x) {\n"
        "  return x.size() == 0 ? 0.0 : *std::max_element(x.begin(), x.end());\n}\n"
    ),
    "an algorithm on the right of &&": (
        "bool f(const std::vector<int>& v, int n) {\n"
        "  return n > 0 && std::count(v.begin(), v.begin() + n, 1) > 2;\n}\n"
    ),
    "the largest element bound to a reference": (
        "void f(std::vector<int>& v) {\n  int& m = *std::max_element(v.begin(), v.end());\n"
        "  m = 0;\n}\n"
    ),
    "a counted value with an effect (evaluated once by the library)": (
        "int tick() { static int t = 0; return t++ % 3; }\n"
        "long f(const std::vector<int>& v) {\n  return std::count(v.begin(), v.end(), tick());\n}\n"
    ),
    "a transform's lambda holding a copy of the vector it writes": (
        "void f(std::vector<int>& a) {\n"
        "  std::transform(a.begin(), a.end(), a.begin(), [a](int v) { return v - a[0]; });\n}\n"
    ),
    "a for_each's lambda copying everything, the vector it writes too": (
        "void f(std::vector<double>& a) {\n"
        "  std::for_each(a.begin(), a.end(), [=](double& e) { e = e / a[0]; });\n}\n"
    ),
    "a fill value reading the vector filled": (
        "void f(std::vector<int>& a) {\n  std::fill(a.begin(), a.end(), a[0] + 1);\n}\n"
    ),
    "a search loop without a bound": (
        "bool f(const std::vector<int>& x, int t) {\n"
        "  for (size_t i = 0; ; ++i) {\n    if (x[i] == t) return true;\n  }\n  return false;\n}\n"
    ),
    "a search loop stepping by two": (
        "bool f(const std::vector<int>& x, int t) {\n"
        "  for (size_t i = 0; i < x.size(); i += 2) {\n    if (x[i] == t) return true;\n  }\n"
        "  return false;\n}\n"
    ),
    "an index argmin whose header steps another name": (
        "int f(const std::vector<int>& x, int j) {\n  int best = 0;\n"
        "  for (int i = 0; i < 3; ++i, j = -j)\n    if (x[i] * j < x[best] * j) best = i;\n"
        "  return best;\n}\n"
    ),
    "a static index argmin": (
        "int f(const std::vector<int>& x) {\n  static int best = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i)\n    if (x[i] < x[best]) best = i;\n"
        "  return best;\n}\n"
    ),
    "a static while search": (
        "int f(const std::vector<int>& v) {\n  static int i = 0;\n"
        "  while (i < v.size() && v[i] != 0) ++i;\n  return i;\n}\n"
    ),
    "an index argmin through a call whose type is not read": (
        "int f(const std::vector<int>& x) {\n  int best = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i)\n"
        "    if (std::tanh(x[i]) > std::tanh(x[best])) best = i;\n  return best;\n}\n"
    ),
    "an index argmin over long doubles": (
        "int f(const std::vector<long double>& x) {\n  int best = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i)\n    if (x[i] > x[best]) best = i;\n"
        "  return best;\n}\n"
    ),
    "a checked read whose throw the function catches": (
        "int f(const std::vector<int>& x, int i) {\n"
        "  try {\n    return x.at(i);\n  } catch (const std::out_of_range&) {\n    return -1;\n  }\n}\n"
    ),
    "a map's checked read": (
        "int f(std::map<int, std::vector<int>>& m, int k) {\n"
        "  try { return (int)m.at(k).size(); } catch (const std::out_of_range&) { return -1; }\n}\n"
    ),
    "the library's begin and end of a C array": (
        "int f(int n) {\n  int a[4] = {1, 2, 3, n};\n"
        "  return std::accumulate(std::begin(a), std::end(a), 0);\n}\n"
    ),
    "a struct defined in a declaration of two names": (
        "int f(int n) {\n  struct P { int a; } p{n}, q{2 * n};\n  return p.a + q.a;\n}\n"
    ),
    "a search whose test declares a name": (
        "bool f(const std::vector<int>& x, int t) {\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n    if (int d = x[i] - t; d == 0) return true;\n"
        "  }\n  return false;\n}\n"
    ),
    "a count a goto jumps past": (
        "long f(const std::vector<int>& v, int t) {\n  long c = -1;\n  if (t < 0) goto done;\n"
        "  c = std::count(v.begin(), v.end(), t);\ndone:\n  return c;\n}\n"
    ),
    "a transform into a local list": (
        "int f(const std::vector<int>& a) {\n  std::list<int> out(a.size());\n"
        "  std::transform(a.begin(), a.end(), out.begin(), [](int v) { return v * 2; });\n"
        "  return out.back();\n}\n"
    ),
    "the largest of vectors of vectors": (
        "std::vector<int> f(const std::vector<std::vector<int>>& rows) {\n"
        "  return *std::max_element(rows.begin(), rows.end());\n}\n"
    ),
    "an inner product whose plus converts to another type": (
        "double f(const std::vector<double>& x, const std::vector<double>& y) {\n"
        "  return std::inner_product(x.begin(), x.end(), y.begin(), 0.0, std::plus<int>(),\n"
        "                            [](double a, double b) { return a * b; });\n}\n"
    ),
    "a flag search whose counter outlives the loop": (
        "bool f(std::vector<int> const &x, int v) {\n  bool found = false;\n  size_t i;\n"
        "  for (i = 0; i < x.size(); ++i) {\n    if (x[i] == v) { found = true; break; }\n  }\n"
        "  return found && i > 2;\n}\n"
    ),
    # Loops counted by hand (`while`) that are not the `for` loop their shape suggests.
    "a counted while whose body continues (the step would be skipped)": (
        "int f(std::vector<int>& x) {\n  int i = 0;\n  while (i < (int)x.size()) {\n"
        "    if (x[i] < 0) { i += 2; continue; }\n    x[i] = 1;\n    i++;\n  }\n  return i;\n}\n"
    ),
    "a counted while stepping a counter its body declares again": (
        "int f(std::vector<int>& x) {\n  int i = 0;\n  while (i < 4) {\n    int i = 3;\n"
        "    x[i] = 1;\n    i++;\n  }\n  return i;\n}\n"
    ),
    "a counted while whose step is not its last statement": (
        "void f(std::vector<int>& x) {\n  int i = 0;\n  while (i < (int)x.size()) {\n"
        "    i++;\n    x[i - 1] = i;\n  }\n}\n"
    ),
    "a counted while whose start a statement between changes": (
        "void f(std::vector<int>& x, int n) {\n  int i = n;\n  int m = n++;\n"
        "  while (i < m + 4) {\n    x[i] = m;\n    i++;\n  }\n}\n"
    ),
    "a counted while whose step reads an effect": (
        "int step() { static int s = 0; return ++s; }\n"
        "void f(std::vector<int>& x) {\n  int i = 0;\n  while (i < (int)x.size()) {\n"
        "    x[i] = 1;\n    i += step();\n  }\n}\n"
    ),
    # A review's wrong rewrites, each now left alone: the `for` runs its step after the body
    # and its start after what lies between.
    "a counted while whose step reads a name its body declares": (
        "int f(int n) {\n  int d = 1;\n  int s = 0;\n  int i = 0;\n  while (i < n) {\n"
        "    int d = 2;\n    s += i;\n    i += d;\n  }\n  return s;\n}\n"
    ),
    "a counted while whose step reads a type its body defines": (
        "int f(int n) {\n  int s = 0;\n  int i = 0;\n  while (i < 8 * n) {\n"
        "    typedef char T;\n    s += i;\n    i += sizeof(T);\n  }\n  return s;\n}\n"
    ),
    "a counted while continued through a macro": (
        "#define NEXT continue\nint f(int n) {\n  int s = 0;\n  int i = 0;\n"
        "  while (i < 3 * n) {\n    if (i % 3 == 1) { i += 2; NEXT; }\n    s += i;\n    i++;\n"
        "  }\n  return s;\n}\n"
    ),
    "a counted while whose counter a macro reads after it": (
        "int i = 100;\n#define R i\nint f(int n) {\n  int s = 0;\n  int i = 0;\n"
        "  while (i < n) {\n    s += i;\n    i++;\n  }\n  return s * 1000 + R;\n}\n"
    ),
    "a counted while whose start has an effect a declaration between reads": (
        "int g_c = 0;\nint next() { return g_c++; }\nint f(int n) {\n  g_c = n;\n"
        "  int i = next();\n  int m = g_c + 2;\n  int s = 0;\n  while (i < m) {\n    s += i;\n"
        "    i++;\n  }\n  return s * 100 + m;\n}\n"
    ),
    "a counted while whose counter a declaration between reads through a pointer": (
        "int f(int n) {\n  int i = -5;\n  int *q = &i;\n  i = n;\n  int m = *q + 3;\n"
        "  int s = 0;\n  while (i < m) {\n    s += i;\n    i++;\n  }\n  return s * 100 + m;\n}\n"
    ),
    "a counted while after a declaration whose constructor runs code": (
        "int g_c = 0;\nstruct Bump { Bump() { g_c += 10; } };\nint f(int n) {\n  g_c = n;\n"
        "  int i = g_c;\n  Bump b;\n  int s = 0;\n  while (i < 20) {\n    s += i;\n    i++;\n"
        "  }\n  return s;\n}\n"
    ),
    "a counted while whose start is another loop's initialiser": (
        "int f(int n) {\n  int s = 0;\n  for (int i = 0;;) while (i < n || 1) {\n    s += i;\n"
        "    if (i > n + 2) return s;\n    i++;\n  }\n}\n"
    ),
    "a counted while in a case whose counter a later case reads": (
        "int f(int n) {\n  int s = 0;\n  switch (n % 2) {\n  case 0:\n    s = 1;\n    int i;\n"
        "    i = 0;\n    while (i < n) {\n      s += i;\n      i++;\n    }\n    break;\n"
        "  case 1:\n    i = 7;\n    s = i;\n  }\n  return s;\n}\n"
    ),
    "a counted while over a class without a default constructor, read after": (
        "struct C { int v; C(int x) : v(x) {} bool operator<(int n) const { return v < n; }\n"
        "  C &operator+=(int k) { v += k; return *this; } };\nint f(int n) {\n  C c = 0;\n"
        "  int s = 0;\n  while (c < n) {\n    s += c.v;\n    c += 1;\n  }\n  return s + c.v;\n}\n"
    ),
    "a while whose counter's start is a const": (
        "void f(std::vector<int>& x) {\n  const int i = 0;\n  int k = 0;\n"
        "  while (k < i + 3) {\n    x[k] = i;\n    k--;\n    x[0] = k;\n  }\n}\n"
    ),
}


@pytest.mark.parametrize("case", sorted(_LEFT_ALONE))
def test_what_no_rewrite_may_change_is_left_as_it_is(case: str) -> None:
    source = _LEFT_ALONE[case]
    lowered, _ = as_loops(source, analyse(source, Language.CPP), "f")
    assert lowered == source, lowered


_REWRITTEN = {
    "part of a vector from begin plus two terms": (
        "int f(const std::vector<int>& v, int i) {\n"
        "  return std::accumulate(v.begin() + i + 1, v.end(), 0);\n}\n",
        "std::vector<int> v{1, 2, 3, 4, 5};\n"
        "for (int i = 0; i < 4; i++) if (seq::f(v, i) != f(v, i)) return 1;",
    ),
    "counts over rows, in a loop": (
        "int f(const std::vector<int>& A, std::vector<int>& deg, int n) {\n"
        "  for (int i = 0; i < n; ++i) {\n"
        "    deg[i] = std::count(A.begin() + i * n, A.begin() + i * n + n, 1);\n  }\n  return 0;\n}\n",
        "std::vector<int> A{1, 1, 0, 0, 1, 1, 1, 1, 1}, d1(3), d2(3);\n"
        "seq::f(A, d1, 3); f(A, d2, 3); if (d1 != d2) return 1;",
    ),
    "counts subtracted in a wider type than the result": (
        "unsigned f(const std::vector<int>& v) {\n"
        "  long d = std::count(v.begin(), v.end(), 1) - std::count(v.begin(), v.end(), 0);\n"
        "  return d < 0 ? 0 : d;\n}\n",
        "for (auto v : {std::vector<int>{0, 0, 1}, std::vector<int>{1, 1, 0}})\n"
        "  if (seq::f(v) != f(v)) return 1;",
    ),
    "an index argmin whose subscript adds an unsigned offset": (
        "int f(const std::vector<int>& x, size_t off, int n) {\n  int best = 0;\n"
        "  for (int i = 0; i < n; ++i)\n    if (x[i + off] < x[best + off]) best = i;\n"
        "  return best;\n}\n",
        "std::vector<int> x{0, 3, -5, 2};\nif (seq::f(x, 1, 3) != f(x, 1, 3)) return 1;",
    ),
    "an index argmax through a cast to double": (
        "int f(const std::vector<int>& x) {\n  int best = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i)\n"
        "    if ((double)x[i] / 3 > (double)x[best] / 3) best = i;\n  return best;\n}\n",
        "std::vector<int> x{4, 5, 2};\nif (seq::f(x) != f(x)) return 1;",
    ),
    "a counted while whose counter's address the body keeps (declared before it still)": (
        "int f(int n) {\n  int z = -1;\n  int *p = &z;\n  int i = 0;\n  while (i < n) {\n"
        "    p = &i;\n    i++;\n  }\n  return *p;\n}\n",
        "for (int n : {0, 1, 2, 5}) if (seq::f(n) != f(n)) return 1;",
    ),
    "loops counted by hand: declared, assigned, down, by two, nested, read after": (
        "long f(std::vector<int>& x, int n) {\n  int i = 0;\n  while (i < n) {\n"
        "    x[i] = i * 3 % 7;\n    i++;\n  }\n  long s = 0;\n  long k = 1;\n"
        "  /* odd places */\n  while (k < n) {\n    s += x[k];\n    k += 2;\n  }\n"
        "  int j, r = 0;\n  j = n - 1;\n  while (j >= 0) {\n    int c = 0;\n"
        "    while (c < 3) {\n      r += x[j] * c;\n      c = c + 1;\n    }\n    --j;\n  }\n"
        "  return s * 1000 + r * 10 + i + j;\n}\n",
        "for (int n : {0, 1, 2, 7, 8}) {\n  std::vector<int> a(8), b(8);\n"
        "  if (seq::f(a, n) != f(b, n) || a != b) return 1;\n}",
    ),
}


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_REWRITTEN))
def test_a_rewrite_computes_what_the_original_does(case: str, tmp_path: Path) -> None:
    source, check = _REWRITTEN[case]
    lowered, _ = as_loops(source, analyse(source, Language.CPP), "f")
    assert lowered != source, "no rewrite"
    includes = "#include <algorithm>\n#include <cstdio>\n#include <numeric>\n#include <vector>\n"
    whole = f"{includes}namespace seq {{\n{source}\n}}\n{lowered}\nint main() {{\n{check}\nreturn 0;\n}}\n"
    (tmp_path / "both.cpp").write_text(whole)
    built = subprocess.run(
        ["g++", "-std=c++17", "-O1", "-o", str(tmp_path / "both"), str(tmp_path / "both.cpp")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    ran = subprocess.run([str(tmp_path / "both")], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, (lowered, ran.stdout, ran.stderr)
