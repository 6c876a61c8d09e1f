"""ParEval's metrics, as pure functions of per-sample outcomes.

For one problem with `n` samples, of which `c` are correct:

- pass@k, build@k and race-free@k use the unbiased estimator of Chen et al. (2021):
  1 - C(n - c, k) / C(n, k), the probability that at least one of k samples drawn without
  replacement succeeds.
- speedup_n@k is the expected best speedup among k samples drawn from the n (Nichols et al.,
  "Can Large Language Models Write Parallel Code?", 2024). With the samples' speedups sorted
  ascending, s_1 <= ... <= s_n, the j-th is the best of a random k-subset with probability
  C(j - 1, k - 1) / C(n, k). Samples that fail (do not build, disagree with the reference, race)
  have speedup 0.
- efficiency_n@k is the same expectation of speedup / n, where n is the resource count (threads or
  ranks) the speedups were measured at.

Every function takes k <= n; asking for more samples than were drawn is an error, not a guess.
Suite-level figures are the mean over problems.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import comb
from statistics import fmean


def _check(n: int, k: int) -> None:
    if n <= 0:
        raise ValueError("no samples: n must be at least 1")
    if not 1 <= k <= n:
        raise ValueError(f"k={k} is outside 1..n={n}: draw at least k samples per problem")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples out of n, c of them good, is good."""
    _check(n, k)
    if not 0 <= c <= n:
        raise ValueError(f"c={c} must lie in 0..n={n}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def expected_max_at_k(values: Sequence[float], k: int) -> float:
    """Expected maximum of a random k-subset of `values` (drawn without replacement)."""
    _check(len(values), k)
    ordered = sorted(values)
    total = comb(len(ordered), k)
    return sum(comb(j - 1, k - 1) * v for j, v in enumerate(ordered, start=1) if j >= k) / total


def speedup_at_k(speedups: Sequence[float], k: int) -> float:
    """speedup_n@k for one problem; failed samples must be given as 0."""
    return expected_max_at_k(speedups, k)


def efficiency_at_k(speedups: Sequence[float], k: int, resources: int) -> float:
    """efficiency_n@k for one problem: speedup_n@k divided by the resource count n."""
    if resources < 1:
        raise ValueError("resources must be at least 1")
    return expected_max_at_k(speedups, k) / resources


def mean_over_problems(per_problem: Iterable[float]) -> float:
    """Suite-level figure: the mean over problems (0 problems is an error)."""
    values = list(per_problem)
    if not values:
        raise ValueError("no problems to average over")
    return fmean(values)
