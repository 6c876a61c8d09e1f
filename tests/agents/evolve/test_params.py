"""Parameter mutations: neighbours of a candidate written by rule, without a model call (the
annotation choices' neighbours, and the OpenMP kit's edits of directives a model wrote)."""

from __future__ import annotations

import pytest

from agents.analysis import LoopChoice, analyse, apply_choices, directive
from agents.evolve.params import choice_mutations, crossover
from agents.targets import Mutation, kit
from sandbox.spec import Language, Target

OPENMP = kit(Target.OPENMP)

TRIANGLE = """#include <stdio.h>

void lower(int n, double *a, const double *b) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++) {
            a[i * n + j] = b[i * n + j] * 2.0;
        }
    }
}

void twice(int n, double *a) {
    for (int i = 0; i < n; i++)
        a[i] = a[i] * 2;
}
"""
"""L1 (rows of a triangle, row i costs i + 1), L2 nested in it, L3 independent."""

CARRIED = """void prefix(int n, double *a, const double *b) {
    for (int i = 1; i < n; i++)
        a[i] = a[i - 1] * 0.5 + b[i];
}

void rows(int n, double *a) {
    for (int i = 1; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = a[(i - 1) * n + j] + 1.0;
}
"""
"""L1 carries a[i - 1] to the next iteration; so does L2 (row i reads row i - 1), around L3,
whose iterations (the columns of a row) are independent."""

CARRIED_OMP = """void prefix(int n, double *a, const double *b) {
    #pragma omp parallel for
    for (int i = 1; i < n; i++)
        a[i] = a[i - 1] * 0.5 + b[i];
}
"""

INDEPENDENT_OMP = """void twice(int n, double *a) {
    #pragma omp parallel for schedule(static) // rows
    for (int i = 0; i < n; i++)
        a[i] = a[i] * 2;
}
"""


@pytest.fixture(scope="module")
def triangle():
    return analyse(TRIANGLE, Language.C)


def by(mutations: list[Mutation], operator: str) -> list[Mutation]:
    return [m for m in mutations if m.operator == operator]


def pragma_above(source: str, loop_line: str) -> str:
    lines = source.split("\n")
    at = next(i for i, row in enumerate(lines) if row.strip() == loop_line)
    return lines[at - 1].strip()


def test_an_imbalanced_static_loop_gets_a_dynamic_neighbour(triangle) -> None:
    mutations = choice_mutations(TRIANGLE, triangle, [LoopChoice(loop="L1")])
    dynamic = [m for m in by(mutations, "schedule") if m.label == "L1: schedule static -> dynamic"]
    assert len(dynamic) == 1
    assert "schedule(dynamic" in dynamic[0].source
    assert dynamic[0].choices == (LoopChoice(loop="L1", schedule="dynamic"),)
    chunks = [m.label for m in by(mutations, "chunk")]
    assert chunks[:2] == ["L1: schedule static -> static,1", "L1: schedule static -> static,4"]


def test_every_neighbour_is_valid_distinct_and_not_the_parent(triangle) -> None:
    choices = [LoopChoice(loop="L1"), LoopChoice(loop="L3")]
    parent = apply_choices(TRIANGLE, triangle, choices)
    mutations = choice_mutations(TRIANGLE, triangle, choices)
    sources = [m.source for m in mutations]
    assert parent not in sources
    assert len(set(sources)) == len(sources)
    for m in mutations:
        assert m.choices is not None
        assert apply_choices(TRIANGLE, triangle, m.choices) == m.source


def test_a_naive_inner_loop_choice_moves_out_to_the_enclosing_loop(triangle) -> None:
    mutations = choice_mutations(TRIANGLE, triangle, [LoopChoice(loop="L2")])
    (outer,) = by(mutations, "outer")
    assert outer.choices == (LoopChoice(loop="L1"),)
    assert pragma_above(outer.source, "for (int i = 0; i < n; i++) {").startswith(
        "#pragma omp parallel for"
    )
    assert pragma_above(outer.source, "for (int j = 0; j <= i; j++) {") == (
        "for (int i = 0; i < n; i++) {"
    )
    (inner,) = by(choice_mutations(TRIANGLE, triangle, [LoopChoice(loop="L1")]), "inner")
    assert inner.choices == (LoopChoice(loop="L2"),)


def test_simd_is_offered_for_independent_lanes(triangle) -> None:
    mutations = choice_mutations(TRIANGLE, triangle, [LoopChoice(loop="L3")])
    (simd,) = by(mutations, "simd")
    assert "#pragma omp parallel for simd" in simd.source
    (written,) = by(OPENMP.mutations(INDEPENDENT_OMP, Language.C), "simd")
    assert "#pragma omp parallel for simd schedule(static) // rows" in written.source


def test_a_wrong_simd_on_a_loop_carried_dependence_is_rejected() -> None:
    program = analyse(CARRIED, Language.C)
    assert [program.loop(i).dependence.annotatable for i in ("L1", "L2", "L3")] == [
        False,
        False,
        True,
    ]
    mutations = choice_mutations(CARRIED, program, [LoopChoice(loop="L3")])
    assert by(mutations, "simd")  # the independent columns may take simd
    assert by(mutations, "outer") == []  # the carried rows may not run in parallel
    assert {c.loop for m in mutations for c in m.choices or ()} == {"L3"}
    written = OPENMP.mutations(CARRIED_OMP, Language.C)
    assert written  # the schedule and proc_bind of the model's directive still vary
    assert by(written, "simd") == []
    assert not any("simd" in m.source for m in written)


def test_proc_bind_goes_into_the_directive(triangle) -> None:
    choice = LoopChoice(loop="L3", schedule="dynamic", chunk=16, proc_bind="close")
    assert directive(triangle.loop("L3"), choice) == (
        "#pragma omp parallel for schedule(dynamic,16) proc_bind(close)"
    )
    # A model's choices never carry it, so their dump still matches the model's schema.
    assert "proc_bind" not in LoopChoice(loop="L3").model_dump()
    labels = [m.label for m in by(choice_mutations(TRIANGLE, triangle, [choice]), "proc_bind")]
    assert labels == ["L3: proc_bind close -> none", "L3: proc_bind close -> spread"]
    written = by(OPENMP.mutations(INDEPENDENT_OMP, Language.C), "proc_bind")
    assert [m.source.split("\n")[1].strip() for m in written] == [
        "#pragma omp parallel for schedule(static) proc_bind(close) // rows",
        "#pragma omp parallel for schedule(static) proc_bind(spread) // rows",
    ]


def test_source_schedules_cover_the_menu_but_the_current_one() -> None:
    mutations = by(OPENMP.mutations(INDEPENDENT_OMP, Language.C), "schedule")
    assert len(mutations) == 3 * 6 - 1
    assert mutations[0].label == "line 2: schedule static -> static,1"
    assert "schedule(static,1) // rows" in mutations[0].source


def test_ordered_and_continued_directives_are_left_alone() -> None:
    ordered = INDEPENDENT_OMP.replace("schedule(static)", "ordered")
    assert OPENMP.mutations(ordered, Language.C) == []
    continued = INDEPENDENT_OMP.replace("schedule(static)", "\\\n        schedule(static)")
    assert OPENMP.mutations(continued, Language.C) == []


def test_crossover_mixes_two_parents_loop_by_loop(triangle) -> None:
    a = [LoopChoice(loop="L1"), LoopChoice(loop="L3")]
    b = [LoopChoice(loop="L1", schedule="dynamic"), LoopChoice(loop="L3", chunk=64)]
    children = crossover(TRIANGLE, triangle, a, b)
    assert [c.choices for c in children] == [
        (a[0], b[1]),
        (b[0], a[1]),
    ]
    assert all(c.operator == "crossover" for c in children)
    assert "schedule(static,64)" in children[0].source


def test_crossover_of_parents_differing_in_one_loop_or_a_nest_is_empty(triangle) -> None:
    a = [LoopChoice(loop="L1"), LoopChoice(loop="L3")]
    b = [LoopChoice(loop="L1", schedule="dynamic"), LoopChoice(loop="L3")]
    assert crossover(TRIANGLE, triangle, a, b) == []
    nested = [LoopChoice(loop="L2", schedule="guided"), LoopChoice(loop="L3", chunk=4)]
    assert crossover(TRIANGLE, triangle, a, nested) == []


def test_the_same_input_gives_the_same_list(triangle) -> None:
    choices = [LoopChoice(loop="L2"), LoopChoice(loop="L3", simd=True)]
    assert choice_mutations(TRIANGLE, triangle, choices) == choice_mutations(
        TRIANGLE, analyse(TRIANGLE, Language.C), choices
    )
    assert OPENMP.mutations(INDEPENDENT_OMP, Language.C) == OPENMP.mutations(
        INDEPENDENT_OMP, Language.C
    )


ARGMIN = """#include <vector>

int argmin(std::vector<double> const& x) {
    double best = 1e300;
    int at = -1;
    for (int i = 0; i < (int)x.size(); i++) {
        if (x[i] < best) { best = x[i]; at = i; }
    }
    return at;
}
"""


def test_a_region_the_rewrite_opens_takes_the_binding_not_its_worksharing_loop() -> None:
    program = analyse(ARGMIN, Language.CPP)
    mutations = choice_mutations(ARGMIN, program, [LoopChoice(loop="L1")])
    # An argmin keeps static blocks in thread order: only the binding may vary.
    assert [m.operator for m in mutations] == ["proc_bind", "proc_bind"]
    pragmas = [row.strip() for row in mutations[0].source.split("\n") if "#pragma omp" in row]
    assert [p for p in pragmas if "proc_bind" in p] == [
        "#pragma omp parallel firstprivate(my_best, my_at, my_best_found) proc_bind(close)"
    ]
