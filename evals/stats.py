"""The statistics of a report: how sure a rate is, and whether two runs differ.

A run's rates are means over problems of per-problem estimates (pass@k of each problem's
samples), so their uncertainty is over problems:

- with one sample per problem at k = 1 a rate is a binomial proportion over problems: the
  Wilson score interval (`scipy.stats.binomtest(...).proportion_ci(method="wilson")`);
- otherwise (several samples, k > 1, speedups): a percentile bootstrap over problems
  (`scipy.stats.bootstrap`, seeded, so a report is reproducible).

Two runs are compared on the problems both did, paired by problem: with one sample each, the
exact McNemar test (a binomial test on the problems one run solved and the other did not);
otherwise the Wilcoxon signed-rank test on the per-problem differences.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

CONFIDENCE = 0.95
RESAMPLES = 2000
SEED = 20261128


def wilson(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of `successes` of `n`."""
    from scipy.stats import binomtest

    if n == 0:
        return (0.0, 1.0)
    ci = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return (float(ci.low), float(ci.high))


def bootstrap_mean(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float]:
    """A percentile bootstrap interval of the mean of `values` (resampled as they are)."""
    import numpy as np
    from scipy.stats import bootstrap

    if not values:
        return (0.0, 0.0)
    if len(set(values)) == 1:
        return (float(values[0]), float(values[0]))
    result = bootstrap(
        (list(values),),
        np.mean,
        confidence_level=confidence,
        n_resamples=RESAMPLES,
        method="percentile",
        random_state=SEED,
    )
    return (float(result.confidence_interval.low), float(result.confidence_interval.high))


def rate_interval(per_problem: Sequence[float], single_draws: bool) -> tuple[float, float]:
    """The interval of a rate that is the mean of `per_problem` estimates; `single_draws`:
    each estimate is one sample's 0 or 1 (Wilson), else a bootstrap over problems."""
    if single_draws:
        return wilson(round(sum(per_problem)), len(per_problem))
    return bootstrap_mean(per_problem)


class Comparison(BaseModel):
    """A run against a baseline on the problems both did."""

    problems: int
    better: int
    """Problems whose estimate rose."""
    worse: int
    same: int
    test: str
    """`McNemar (exact)` or `Wilcoxon signed-rank`; empty when nothing differs."""
    p_value: float | None
    """Two-sided; None when no problem differs (nothing to test)."""

    @property
    def significant(self) -> bool:
        return self.p_value is not None and self.p_value < 1 - CONFIDENCE


def compare(run: Sequence[float], baseline: Sequence[float], single_draws: bool) -> Comparison:
    """Paired per-problem estimates (`run[i]` and `baseline[i]` of one problem) compared."""
    from scipy.stats import binomtest, wilcoxon

    pairs = list(zip(run, baseline, strict=True))
    better = sum(a > b for a, b in pairs)
    worse = sum(a < b for a, b in pairs)
    same = len(pairs) - better - worse
    if better + worse == 0:
        return Comparison(problems=len(pairs), better=0, worse=0, same=same, test="", p_value=None)
    if single_draws:
        p = binomtest(better, better + worse, 0.5).pvalue
        test = "McNemar (exact)"
    else:
        p = wilcoxon([a - b for a, b in pairs], zero_method="wilcox").pvalue
        test = "Wilcoxon signed-rank"
    return Comparison(
        problems=len(pairs), better=better, worse=worse, same=same, test=test, p_value=float(p)
    )
