"""Fitness, and how sure a measured improvement is (pure).

Fitness is what the sandbox measured, nothing else: zero unless the candidate built, answered
like the sequential program and was checked race-free (`Verdict.passed`); otherwise its best
plausible speedup under the timing gate (`Timing.best_speedup`, which already leaves out
speedups above the cores a run had).

Two verdicts are measured at different moments on a shared, noisy host, so a child whose
median beats its parent's by a few percent has often just run on a quieter second. An
improvement is believed only when the child's paired speedups (each of its timing runs against
the reference runs timed around it, `sandbox.verify.speedup`) beat the parent's in a one-sided
Mann-Whitney test (exact for the handful of repeats the verifier makes) and its median gain
clears a floor. A child whose timing the sandbox flagged as disturbed (other load beside it) is
never taken as an improvement, whatever it measured.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from sandbox.verdict import Verdict
from sandbox.verify.steps import median

MIN_CONFIDENCE = 0.95
"""A child must beat the incumbent with at least this confidence to replace it."""
MIN_GAIN = 1.03
"""...and by at least this factor in median speedup (smaller gains are not worth a change)."""

_EXACT_LIMIT = 20
"""Samples (both sides together) up to which the test enumerates every split exactly."""


@dataclass(frozen=True, order=True)
class Fitness:
    """Correct first, then faster: orders candidates the way evolution ranks them."""

    correct: bool
    speedup: float

    @property
    def value(self) -> float:
        """The scalar fitness: 0 unless correct, else the speedup."""
        return self.speedup if self.correct else 0.0


def fitness(verdict: Verdict | None) -> Fitness:
    if verdict is None or not verdict.passed:
        return Fitness(False, 0.0)
    return Fitness(True, verdict.speedup)


def best_workers(verdict: Verdict) -> int | None:
    """The thread or rank count of the verdict's best plausible speedup."""
    return verdict.timing.best_workers if verdict.timing is not None else None


def speedup_samples(verdict: Verdict, workers: int | None = None) -> list[float]:
    """The paired speedups of the timing runs at `workers` (default: the best count)."""
    timing = verdict.timing
    if timing is None:
        return []
    workers = workers if workers is not None else best_workers(verdict)
    if workers is None:
        return []
    return list(timing.ratios.get(workers, []))


def disturbed(verdict: Verdict | None) -> bool:
    """Whether the sandbox flagged the verdict's best speedup as measured under other load."""
    if verdict is None or verdict.timing is None:
        return False
    return best_workers(verdict) in verdict.timing.disturbed


def improvement_confidence(child: list[float], parent: list[float]) -> float:
    """1 - p of the one-sided Mann-Whitney test that `child`'s samples are larger than
    `parent`'s (ties count half); 0.5 when either side has no samples."""
    if not child or not parent:
        return 0.5
    observed = _u(child, parent)
    pooled = child + parent
    n = len(child)
    if len(pooled) <= _EXACT_LIMIT:
        splits = list(itertools.combinations(range(len(pooled)), n))
        at_least = 0
        for chosen in splits:
            picked = set(chosen)
            mine = [pooled[i] for i in chosen]
            rest = [pooled[i] for i in range(len(pooled)) if i not in picked]
            at_least += _u(mine, rest) >= observed - 1e-9
        p = at_least / len(splits)
    else:  # the normal approximation, with a continuity correction
        m = len(parent)
        mean, sd = n * m / 2, math.sqrt(n * m * (n + m + 1) / 12)
        z = (observed - 0.5 - mean) / sd if sd > 0 else 0.0
        p = 0.5 * math.erfc(z / math.sqrt(2))
    return round(1.0 - p, 4)


def _u(xs: list[float], ys: list[float]) -> float:
    return sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in xs for y in ys)


@dataclass(frozen=True)
class Contest:
    """A child against the candidate it would replace."""

    better: bool
    confidence: float
    gain: float
    """The child's median speedup sample over the incumbent's (its fitness ratio without
    samples); 0 when the child is not correct."""


def compare(
    child: Verdict | None,
    incumbent: Verdict | None,
    min_confidence: float = MIN_CONFIDENCE,
    min_gain: float = MIN_GAIN,
) -> Contest:
    """Whether `child` should replace `incumbent`: a correct child always beats an incorrect
    incumbent; between correct ones, only a confident and large enough gain counts."""
    mine, theirs = fitness(child), fitness(incumbent)
    if not mine.correct:
        return Contest(False, 0.0, 0.0)
    if disturbed(child) and theirs.correct:
        return Contest(False, 0.5, 1.0)  # measured beside other load: no evidence either way
    if not theirs.correct:
        return Contest(True, 1.0, math.inf)
    assert child is not None and incumbent is not None
    a, b = speedup_samples(child), speedup_samples(incumbent)
    if a and b:
        gain = median(a) / median(b) if median(b) > 0 else math.inf
        confidence = improvement_confidence(a, b)
    else:  # no timing runs to compare (too short to time): only the fitness values
        gain = mine.speedup / theirs.speedup if theirs.speedup > 0 else 1.0
        confidence = 0.5
    better = gain >= min_gain and confidence >= min_confidence
    return Contest(better, confidence, round(gain, 4))
