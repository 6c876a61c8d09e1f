"""A call is trusted as free of side effects by what it resolves to, not by its name: the
program's own function or method named like a library one (`max`, `count`) is pure only when
the analysis finds it pure (issue: purity decided by name)."""

from __future__ import annotations

import pytest

from agents.analysis import analyse
from agents.analysis.purity import is_pure
from sandbox.spec import Language

OWN_MAX = """
int calls = 0;
int max(int a, int b) { calls++; return a > b ? a : b; }
void clip(int n, int *a, const int *b) {
    for (int i = 0; i < n; i++) a[i] = max(b[i], 0);
}
"""

COUNTING_METHOD = """
struct Counter { int n = 0; int count() { return ++n; } };
void stamp(int n, int *a, Counter &c) {
    for (int i = 0; i < n; i++) a[i] = c.count();
}
"""

COUNTING_METHOD_OUTSIDE = """
struct Counter { int n = 0; int count(); };
int Counter::count() { return ++n; }
void stamp(int n, int *a, Counter &c) {
    for (int i = 0; i < n; i++) a[i] = c.count();
}
"""


@pytest.mark.parametrize(
    ("source", "language"),
    [
        (OWN_MAX, Language.C),
        (COUNTING_METHOD, Language.CPP),
        (COUNTING_METHOD_OUTSIDE, Language.CPP),
    ],
    ids=["own-max-writes-a-global", "method-count-increments", "method-defined-outside"],
)
def test_an_own_function_with_a_library_name_and_side_effects_is_not_trusted(
    source: str, language: Language
) -> None:
    (loop,) = analyse(source, language).loops
    assert not loop.dependence.annotatable
    assert "side effects" in loop.dependence.reason


def test_an_own_pure_function_with_a_library_name_stays_trusted() -> None:
    (loop,) = analyse(OWN_MAX.replace("calls++; ", ""), Language.C).loops
    assert loop.dependence.annotatable


def test_the_library_spelled_with_std_is_the_librarys() -> None:
    assert is_pure("std::max", frozenset(), frozenset({"max"}))
    assert not is_pure("max", frozenset(), frozenset({"max"}))
    assert is_pure("max", frozenset({"max"}), frozenset({"max"}))
    assert is_pure("sqrt") and is_pure("size")
