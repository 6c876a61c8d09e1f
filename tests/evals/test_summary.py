"""Aggregation of sample outcomes into per-type and overall metric rows."""

from math import isclose

import pytest

from evals.summary import OVERALL, SampleOutcome, summarize


def outcome(problem: str, ptype: str, i: int, *, built=True, correct=True, race_free=True, s=2.0):
    return SampleOutcome(
        problem=problem,
        problem_type=ptype,
        sample=i,
        built=built,
        correct=correct,
        race_free=race_free,
        speedups={4: s} if race_free else {},
    )


def test_summary_per_type_and_overall() -> None:
    outcomes = [
        outcome("p1", "reduce", 0),
        outcome("p1", "reduce", 1, correct=False, race_free=False),
        outcome("p2", "scan", 0, built=False, correct=False, race_free=False),
        outcome("p2", "scan", 1, race_free=False),  # passes tests but races
    ]
    summary = summarize(outcomes, ks=[1, 2, 5], resources=4)
    assert summary.ks == [1, 2]  # k=5 exceeds the 2 samples per problem
    assert summary.groups == ["reduce", "scan", OVERALL]

    reduce1 = summary.row("reduce", 1)
    assert reduce1.passed == 0.5 and reduce1.build == 1.0 and reduce1.race_free == 0.5
    assert isclose(reduce1.speedup or 0, 1.0)  # mean of {2, 0}
    assert isclose(reduce1.efficiency or 0, 0.25)

    scan = summary.row("scan", 1)
    assert scan.passed == 0.5 and scan.race_free == 0.0 and scan.build == 0.5
    assert scan.correct_but_racy == 1.0
    assert scan.speedup == 0.0

    overall2 = summary.row(OVERALL, 2)
    assert overall2.passed == 1.0 and overall2.race_free == 0.5
    assert overall2.correct_but_racy == 0.5  # 1 of the 2 test-passing samples races


def test_no_samples_or_no_usable_k_is_an_error() -> None:
    with pytest.raises(ValueError):
        summarize([], ks=[1], resources=1)
    with pytest.raises(ValueError, match="exceeds"):
        summarize([outcome("p", "t", 0)], ks=[2], resources=1)


def test_speedup_absent_when_the_run_was_not_timed() -> None:
    row = summarize([outcome("p", "t", 0)], ks=[1], resources=None).row(OVERALL, 1)
    assert row.speedup is None and row.efficiency is None
