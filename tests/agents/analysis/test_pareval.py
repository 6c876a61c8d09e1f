"""The analysis on real programs: the heat2d example and ParEval's serial sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.analysis import analyse, annotatable
from corpus.suites import builtin_root, load_suite
from sandbox.spec import Language

SUITE = load_suite("pareval")
SERIAL = [t for t in SUITE.translations if t.source_model == "serial"]
CUDA = [t for t in SUITE.translations if t.source_model == "cuda"]
SCANS = sorted((builtin_root() / "pareval" / "problems").glob("3[0-4]_scan_*/serial.cpp"))


def test_the_suite_has_what_these_tests_read() -> None:
    assert len(SERIAL) > 100 and len(CUDA) > 30 and len(SCANS) == 5


@pytest.mark.parametrize("task", SERIAL, ids=[t.name for t in SERIAL])
def test_every_serial_source_parses_cleanly(task) -> None:
    program = analyse(task.source, Language.CPP)
    assert program.syntax_errors == ()
    assert program.function(task.function) is not None


@pytest.mark.parametrize("task", CUDA, ids=[t.name for t in CUDA])
def test_every_cuda_source_yields_its_function(task) -> None:
    program = analyse(task.source, Language.CUDA)
    assert program.function(task.function) is not None


@pytest.mark.parametrize("path", SCANS, ids=[p.parent.name for p in SCANS])
def test_scans_are_never_independent(path: Path) -> None:
    program = analyse(path.read_text(), Language.CPP)
    loops = program.loops
    assert loops
    # The loop that carries the running value is the innermost one of each scan.
    innermost = [loop for loop in loops if not any(loop.id in o.ancestors for o in loops)]
    for loop in innermost:
        assert not loop.dependence.parallelisable, (loop.id, loop.dependence)


def test_scan_translation_sources_are_annotated_only_as_blocked_scans() -> None:
    """No scan is ever a plain `parallel for`: the prefix sums (30, and 32 whose first
    iteration is written apart) and the running minimum (31) are annotatable as blocked
    scans, nothing else in them."""
    scans = [t for t in SERIAL if t.problem_type == "scan" and t.origin == "pareval"]
    assert scans
    found = {}
    for task in scans:
        program = analyse(task.source, Language.CPP)
        loops = annotatable(program, task.function)
        assert not any(loop.dependence.parallelisable for loop in loops), task.name
        found[task.name.split(":")[0]] = [
            (loop.dependence.scan.var, loop.dependence.scan.op)
            for loop in loops
            if loop.dependence.scan
        ]
    assert found["30_scan_prefix_sum"] == [("output", "+")]
    assert found["31_scan_scan_with_min_function"] == [("min", "min")]
    assert found["32_scan_sum_of_prefix_sum_array"] == [("prefix_sum", "+")]


def test_the_largest_subarray_outer_loop_is_a_max_reduction() -> None:
    path = next(p for p in SCANS if p.parent.name.startswith("34_"))
    outer, inner = analyse(path.read_text(), Language.CPP).loops
    assert outer.dependence.kind == "reduction"
    assert [(r.var, r.op) for r in outer.dependence.reductions] == [("largest", "max")]
    assert inner.dependence.kind == "carried" and "scan: sum" in inner.dependence.reason


@pytest.mark.parametrize(
    ("problem", "kind"),
    [
        ("26_reduce_product_of_inverses", "reduction"),
        ("28_reduce_smallest_odd_number", "reduction"),
        ("29_reduce_sum_of_min_of_pairs", "reduction"),
        ("38_search_find_the_first_even_number", "carried"),
        ("55_transform_relu", "independent"),
    ],
)
def test_pareval_verdicts(problem: str, kind: str) -> None:
    task = next(t for t in SERIAL if t.problem == problem and t.target_model == "openmp")
    program = analyse(task.source, Language.CPP)
    assert program.function(task.function).loops[0].dependence.kind == kind


def test_heat2d() -> None:
    source = (Path(__file__).parents[3] / "examples" / "heat2d" / "heat2d.c").read_text()
    program = analyse(source, Language.C)
    assert [f.name for f in program.functions] == ["now", "main"] and program.has_main
    init, steps, rows, cols, total_rows, _ = program.loops
    assert init.dependence.kind == "independent"
    assert steps.dependence.kind == "carried"
    assert (rows.dependence.kind, rows.perfect_nest) == ("independent", 2)
    assert cols.parent == rows.id
    assert total_rows.dependence.kind == "reduction" and total_rows.perfect_nest == 2
    assert {(r.var, r.op) for r in total_rows.dependence.reductions} == {
        ("total", "+"),
        ("hottest", "max"),
    }
    assert [loop.id for loop in annotatable(program)] == ["L1", "L5", "L3", "L6", "L4"]


def test_the_last_short_book_search_keeps_the_last_match() -> None:
    task = next(t for t in SERIAL if t.name.startswith("35_") and t.target.value == "openmp")
    program = analyse(task.source, Language.CPP)
    (loop,) = annotatable(program, task.function)
    assert loop.dependence.last_assigned == ("last_short_book_index",)
    assert loop.dependence.sharing_clauses == ["lastprivate(conditional:last_short_book_index)"]


def test_the_first_even_search_is_a_first_match_search() -> None:
    task = next(t for t in SERIAL if t.name.startswith("38_") and t.target_model == "openmp")
    program = analyse(task.source, Language.CPP)
    (loop,) = annotatable(program, task.function)
    assert loop.dependence.first_match and not loop.dependence.parallelisable
    assert "first-match search" in loop.dependence.reason
