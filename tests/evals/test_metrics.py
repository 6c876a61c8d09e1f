"""Metric functions against hand-computed cases."""

from math import isclose

import pytest

from evals.metrics import (
    efficiency_at_k,
    expected_max_at_k,
    mean_over_problems,
    pass_at_k,
    speedup_at_k,
)


def test_pass_at_k_no_correct_sample_is_zero() -> None:
    assert pass_at_k(n=10, c=0, k=1) == 0.0
    assert pass_at_k(n=10, c=0, k=10) == 0.0


def test_pass_at_k_all_correct_is_one() -> None:
    assert pass_at_k(n=5, c=5, k=1) == 1.0
    assert pass_at_k(n=5, c=5, k=5) == 1.0


def test_pass_at_1_is_the_fraction_correct() -> None:
    assert isclose(pass_at_k(n=20, c=7, k=1), 7 / 20)


def test_pass_at_k_hand_computed() -> None:
    # n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10
    assert isclose(pass_at_k(n=5, c=2, k=2), 0.7)
    # n - c < k: every k-subset holds a correct sample
    assert pass_at_k(n=5, c=4, k=2) == 1.0


def test_k_larger_than_n_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"outside 1\.\.n"):
        pass_at_k(n=3, c=1, k=4)
    with pytest.raises(ValueError, match=r"outside 1\.\.n"):
        speedup_at_k([1.0, 2.0], k=3)


def test_bad_counts_are_errors() -> None:
    with pytest.raises(ValueError):
        pass_at_k(n=3, c=4, k=1)
    with pytest.raises(ValueError):
        pass_at_k(n=0, c=0, k=1)
    with pytest.raises(ValueError):
        mean_over_problems([])


def test_speedup_at_1_is_the_mean_speedup() -> None:
    assert isclose(speedup_at_k([0.0, 2.0, 4.0], k=1), 2.0)


def test_speedup_at_n_is_the_best_speedup() -> None:
    assert isclose(speedup_at_k([0.0, 2.0, 4.0], k=3), 4.0)


def test_speedup_at_2_hand_computed() -> None:
    # subsets of {0, 2, 4}: max(0,2)=2, max(0,4)=4, max(2,4)=4 -> mean 10/3
    assert isclose(speedup_at_k([4.0, 0.0, 2.0], k=2), 10 / 3)


def test_expected_max_matches_brute_force() -> None:
    from itertools import combinations

    values = [0.0, 1.5, 0.0, 3.0, 2.25, 0.5]
    for k in range(1, len(values) + 1):
        subsets = list(combinations(values, k))
        brute = sum(max(s) for s in subsets) / len(subsets)
        assert isclose(expected_max_at_k(values, k), brute)


def test_efficiency_divides_by_resources() -> None:
    assert isclose(efficiency_at_k([0.0, 2.0, 4.0], k=3, resources=4), 1.0)
    with pytest.raises(ValueError):
        efficiency_at_k([1.0], k=1, resources=0)
