"""Normal forms: equal for candidates that differ only in comments, layout or clause order."""

from __future__ import annotations

import pytest

from agents.analysis import normalise
from sandbox.spec import Language

BASE = """#include <stdio.h>
int main(void) {
    double s = 0;
    #pragma omp parallel for reduction(+:s) schedule(static)
    for (int i = 0; i < 10; i++) s += i;
    printf("%f\\n", s);
    return 0;
}
"""

SAME = [
    BASE.replace("double s = 0;", "double s = 0; /* the sum */"),
    BASE.replace(
        "for (int i = 0; i < 10; i++) s += i;", "for (int i=0;i<10;i++)\n        s += i;  // add"
    ),
    BASE.replace("reduction(+:s) schedule(static)", "schedule( static )  reduction(+ : s)"),
    BASE.replace("#pragma omp parallel for", "#pragma  omp   parallel for"),
    BASE.replace("    ", "\t"),
]

DIFFERENT = [
    BASE.replace("schedule(static)", "schedule(dynamic)"),
    BASE.replace("reduction(+:s) ", ""),
    BASE.replace("parallel for", "parallel for simd"),
    BASE.replace('"%f\\n"', '"%f \\n"'),
    BASE.replace("i < 10", "i <= 10"),
    BASE.replace("#include <stdio.h>", "#include <stdlib.h>"),
]


@pytest.mark.parametrize("variant", SAME)
def test_layout_comments_and_clause_order_do_not_count(variant: str) -> None:
    assert normalise(variant, Language.C) == normalise(BASE, Language.C)


@pytest.mark.parametrize("variant", DIFFERENT)
def test_code_differences_count(variant: str) -> None:
    assert normalise(variant, Language.C) != normalise(BASE, Language.C)


def test_the_normal_form_keeps_directives_on_their_own_lines() -> None:
    lines = normalise(BASE, Language.C).split("\n")
    assert lines[0] == "#include <stdio.h>"
    assert "#pragma omp parallel for reduction(+:s) schedule(static)" in lines


def test_cpp_sources_normalise_too() -> None:
    a = "#include <vector>\nint f(std::vector<int> const& x) { return x[0]; } // first\n"
    b = "#include <vector>\n\nint f(std::vector<int> const &x)\n{\n  return x[0];\n}\n"
    assert normalise(a, Language.CPP) == normalise(b, Language.CPP)


@pytest.mark.parametrize(
    "broken",
    ["", "Sure! Here is the parallel code:", "int x = ;", "#pragma omp parallel for\n}}}"],
)
def test_any_text_a_model_writes_normalises_without_error(broken: str) -> None:
    # A candidate is stored and deduplicated before the verifier judges it; a rewrite with no
    # function in it (the embedded model writes those) must become a verdict, not a crash.
    assert normalise(broken, Language.C) == normalise(broken + "\n\n", Language.C)
    assert normalise(broken, Language.CPP) != normalise(BASE, Language.CPP)
