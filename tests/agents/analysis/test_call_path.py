"""The call path is part of the loop (issue 22): state a loop reaches through the functions it
calls counts as the loop's own. A `static` local is shared by every iteration, and a helper
that reads or writes an array reads or writes it in the loop that calls it."""

from __future__ import annotations

import pytest

from agents.analysis import analyse
from sandbox.spec import Language

STATIC_IN_BODY = """
void count(int n, int *a) {
    for (int i = 0; i < n; i++) {
        static int calls;
        calls++;
        a[i] = calls;
    }
}
"""

STATIC_IN_HELPER = """
int tick(void) { static int c; return c++; }
void stamp(int n, int *a) {
    for (int i = 0; i < n; i++) a[i] = tick();
}
"""

STATIC_TWO_DEEP = """
int tick(void) { static int c = 0; c += 1; return c; }
int stamp_of(int k) { return k + tick(); }
void stamp(int n, int *a) {
    for (int i = 0; i < n; i++) a[i] = stamp_of(i);
}
"""

STATIC_WRITTEN_FIRST = """
void copy(int n, int *b) {
    for (int i = 0; i < n; i++) {
        static int c;
        c = i;
        b[i] = c;
    }
}
"""

READS_GLOBAL_NEXT = """
double a[1000];
double next(int k) { return a[k + 1]; }
void shift(int n) {
    for (int i = 0; i < n; i++) a[i] = next(i) + 1;
}
"""

READS_PARAMETER_NEXT = """
double next(const double *p, int k) { return p[k + 1]; }
void shift(int n, double *a) {
    for (int i = 0; i < n; i++) a[i] = next(a, i) + 1;
}
"""

READS_OFFSET_ARGUMENT = """
double first(const double *p) { return p[0]; }
void shift(int n, double *a) {
    for (int i = 0; i < n; i++) a[i] = first(a + i + 1) * 2;
}
"""

READS_TWO_HELPERS_DEEP = """
double a[1000];
double peek(int k) { return a[k]; }
double next(int k) { return peek(k + 1); }
void shift(int n) {
    for (int i = 0; i < n; i++) a[i] = next(i) + 1;
}
"""

RECURSIVE_READER = """
double sum_to(const double *p, int k) { return k < 0 ? 0 : p[k] + sum_to(p, k - 1); }
void prefix(int n, double *a) {
    for (int i = 0; i < n; i++) a[i] = sum_to(a, i);
}
"""

READS_GLOBAL_SCALAR = """
int last;
int seen(void) { return last; }
void mark(int n, int *a) {
    for (int i = 0; i < n; i++) { a[i] = seen(); last = i; }
}
"""

METHOD_READS_MEMBER = """
struct Grid { double data[100]; double at(int k) const { return data[k + 1]; } };
void shift(int n, Grid &g) {
    for (int i = 0; i < n; i++) g.data[i] = g.at(i) + 1;
}
"""

READS_MEMBER_THROUGH_REFERENCE = """
struct Grid { double data[100]; };
double at(const Grid &g, int k) { return g.data[k + 1]; }
void shift(int n, Grid &g) {
    for (int i = 0; i < n; i++) g.data[i] = at(g, i) + 1;
}
"""


@pytest.mark.parametrize("source", [METHOD_READS_MEMBER, READS_MEMBER_THROUGH_REFERENCE])
def test_a_helper_that_reads_a_member_the_loop_writes_is_not_parallel(source: str) -> None:
    dependence = analyse(source, Language.CPP).loop("L1").dependence
    assert not dependence.parallelisable, dependence.reason


@pytest.mark.parametrize(
    "source",
    [
        STATIC_IN_BODY,
        STATIC_IN_HELPER,
        STATIC_TWO_DEEP,
        STATIC_WRITTEN_FIRST,
        READS_GLOBAL_NEXT,
        READS_PARAMETER_NEXT,
        READS_OFFSET_ARGUMENT,
        READS_TWO_HELPERS_DEEP,
        RECURSIVE_READER,
        READS_GLOBAL_SCALAR,
    ],
)
@pytest.mark.parametrize("language", [Language.C, Language.CPP])
def test_state_reached_through_the_call_path_is_not_parallel(
    source: str, language: Language
) -> None:
    dependence = analyse(source, language).loop("L1").dependence
    assert not dependence.parallelisable, dependence.reason


READS_OTHER_ARRAY = """
double a[1000], b[1000];
double get(const double *p, int k) { return p[k]; }
void copy(int n) {
    for (int i = 0; i < n; i++) b[i] = get(a, i);
}
"""

READS_A_POINTER_THAT_MAY_ALIAS = """
double get(const double *p, int k) { return p[k + 1]; }
void copy(int n, double *b, const double *a) {
    for (int i = 0; i < n; i++) b[i] = get(a, i);
}
"""

READS_THE_ELEMENT_IT_IS_GIVEN = """
double get(const double *p, int k) { return p[k] * 2; }
void copy(int n, double *b, const double *a) {
    for (int i = 0; i < n; i++) b[i] = get(a, i);
    for (int i = 0; i < n - 1; i++) b[i] = get(b, i + 1);
}
"""

READS_GLOBAL_NOT_WRITTEN = """
double table[1000], b[1000];
double at(int k) { return table[k + 1]; }
void fill(int n) {
    for (int i = 0; i < n; i++) b[i] = at(i) * 2;
}
"""

READS_A_GLOBAL_A_POINTER_MAY_REACH = """
double table[1000];
double at(int k) { return table[k + 1]; }
void fill(int n, double *b) {
    for (int i = 0; i < n; i++) b[i] = at(i) * 2;
}
"""

READS_A_CONST_TABLE = """
const double table[4] = {1, 2, 3, 4};
double at(int k) { return table[k & 3]; }
void fill(int n, double *b) {
    for (int i = 0; i < n; i++) b[i] = at(i) * 2;
}
"""

READS_OWN_ELEMENT = """
double a[1000];
double peek(int k) { return a[k]; }
void scale(int n) {
    for (int i = 0; i < n; i++) a[i] = peek(i) * 2;
}
"""

CONST_STATIC_TABLE = """
int weight(int k) { static const int w[4] = {1, 2, 3, 4}; return w[k & 3]; }
void weigh(int n, int *b, const int *a) {
    for (int i = 0; i < n; i++) b[i] = a[i] * weight(i);
}
"""

STATIC_CONST_IN_BODY = """
void weigh(int n, double *b) {
    for (int i = 0; i < n; i++) {
        static const double w[3] = {1, 2, 3};
        b[i] = w[i % 3];
    }
}
"""

SCALAR_HELPER = """
double sq(double x) { double y = x * x; return y; }
void square(int n, double *b) {
    for (int i = 0; i < n; i++) b[i] = sq(b[i]);
}
"""


def test_a_helper_reading_the_element_it_is_given_is_that_element_read() -> None:
    """`get(a, i)` reads `a[i]` and nothing else of `a`: the loop's own test sees the read, so
    the loop runs behind a run-time check that `a` and `b` do not overlap; `get(b, i + 1)`
    reads the element the next iteration writes."""
    program = analyse(READS_THE_ELEMENT_IT_IS_GIVEN, Language.C)
    checked, shifted = program.loop("L1").dependence, program.loop("L2").dependence
    assert checked.parallelisable and checked.overlap_checks, checked.reason
    assert shifted.kind == "carried", shifted.reason


@pytest.mark.parametrize(
    ("source", "said"),
    [
        (READS_A_POINTER_THAT_MAY_ALIAS, "get, which reads a, which may share storage with b"),
        (READS_A_GLOBAL_A_POINTER_MAY_REACH, "at, which reads table, which may share storage"),
    ],
)
def test_a_helper_reading_what_a_written_pointer_may_reach_is_unknown(
    source: str, said: str
) -> None:
    """`copy(n, x + 1, x)` or `fill(n, table)` would make the helper read an element another
    iteration writes; its read names no element the loop could check at run time."""
    dependence = analyse(source, Language.C).loop("L1").dependence
    assert dependence.kind == "unknown"
    assert said in dependence.reason


@pytest.mark.parametrize(
    "source",
    [
        READS_OTHER_ARRAY,
        READS_GLOBAL_NOT_WRITTEN,
        READS_A_CONST_TABLE,
        CONST_STATIC_TABLE,
        STATIC_CONST_IN_BODY,
        SCALAR_HELPER,
    ],
)
@pytest.mark.parametrize("language", [Language.C, Language.CPP])
def test_helpers_that_only_read_what_the_loop_leaves_alone_stay_parallel(
    source: str, language: Language
) -> None:
    dependence = analyse(source, language).loop("L1").dependence
    assert dependence.parallelisable, dependence.reason


def test_a_static_local_makes_its_function_impure() -> None:
    program = analyse(STATIC_IN_HELPER, Language.C)
    assert "calls tick" in program.loop("L1").dependence.reason


IMPURE_OVERLOAD = """
int calls = 0;
int bump(int k) { return k + 1; }
int bump(int *p) { calls++; return *p; }
void add(int n, int *a, int *b) {
    for (int i = 0; i < n; i++) a[i] = bump(&b[i]);
}
"""

OVERLOAD_READS_ANOTHER_PARAMETER = """
double a[100];
double next(const double *p, int k) { return p[k + 1]; }
double next(int k) { return a[k + 1]; }
void shift(int n, double *b) {
    for (int i = 0; i < n; i++) b[i] = next(b, i) + 1;
}
"""


@pytest.mark.parametrize("source", [IMPURE_OVERLOAD, OVERLOAD_READS_ANOTHER_PARAMETER])
def test_overloads_are_judged_together(source: str) -> None:
    """A call names a function without its parameter types, so it may reach any overload."""
    dependence = analyse(source, Language.CPP).loop("L1").dependence
    assert not dependence.parallelisable, dependence.reason
