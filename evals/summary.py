"""From per-sample outcomes to the tables of a report: metrics per problem type and overall."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from evals.metrics import efficiency_at_k, mean_over_problems, pass_at_k, speedup_at_k

OVERALL = "all"


class SampleOutcome(BaseModel):
    """One verified sample, reduced to what the metrics need."""

    problem: str
    problem_type: str
    sample: int
    built: bool
    correct: bool
    """Agrees with the reference on every test (ParEval's notion of a passing sample)."""
    race_free: bool
    """Correct *and* clean under the race/deadlock checks: ParForge's stricter notion."""
    speedups: dict[int, float] = Field(default_factory=dict)
    """Speedup over the reference at each resource count; only meaningful when race_free."""


class MetricRow(BaseModel):
    """Metrics of one problem type (or of the whole suite) at one k."""

    group: str
    k: int
    problems: int
    samples: int
    build: float
    passed: float
    race_free: float
    speedup: float | None
    efficiency: float | None
    correct_but_racy: float | None
    """Share of test-passing samples that race: what a harness without a race check would miss."""


class Summary(BaseModel):
    resources: int | None
    ks: list[int]
    rows: list[MetricRow]

    def row(self, group: str, k: int) -> MetricRow:
        return next(r for r in self.rows if r.group == group and r.k == k)

    @property
    def groups(self) -> list[str]:
        return list(dict.fromkeys(r.group for r in self.rows))


def summarize(
    outcomes: Iterable[SampleOutcome], ks: Sequence[int], resources: int | None
) -> Summary:
    """Metrics per problem type and overall, for each k that every problem has samples for.

    `resources` is the thread/rank count n of speedup_n@k and efficiency_n@k; None when the
    run did not measure speed (those columns are then left empty, not reported as zero).
    """
    by_problem: dict[str, list[SampleOutcome]] = defaultdict(list)
    for outcome in outcomes:
        by_problem[outcome.problem].append(outcome)
    if not by_problem:
        raise ValueError("no samples to summarize")
    fewest = min(len(samples) for samples in by_problem.values())
    usable = [k for k in sorted(set(ks)) if 1 <= k <= fewest]
    if not usable:
        raise ValueError(f"every k in {list(ks)} exceeds the {fewest} samples of some problem")

    groups: dict[str, list[list[SampleOutcome]]] = defaultdict(list)
    for samples in by_problem.values():
        groups[samples[0].problem_type].append(samples)
        groups[OVERALL].append(samples)

    rows = [
        _row(group, problems, k, resources)
        for group, problems in sorted(groups.items(), key=lambda g: (g[0] == OVERALL, g[0]))
        for k in usable
    ]
    return Summary(resources=resources, ks=usable, rows=rows)


def _row(
    group: str, problems: list[list[SampleOutcome]], k: int, resources: int | None
) -> MetricRow:
    def rate(flag: str) -> float:
        return mean_over_problems(
            pass_at_k(len(s), sum(getattr(o, flag) for o in s), k) for s in problems
        )

    def speedups(s: list[SampleOutcome], n: int) -> list[float]:
        return [o.speedups.get(n, 0.0) if o.race_free else 0.0 for o in s]

    correct = sum(o.correct for s in problems for o in s)
    racy = sum(o.correct and not o.race_free for s in problems for o in s)
    return MetricRow(
        group=group,
        k=k,
        problems=len(problems),
        samples=sum(len(s) for s in problems),
        build=rate("built"),
        passed=rate("correct"),
        race_free=rate("race_free"),
        speedup=None
        if resources is None
        else mean_over_problems(speedup_at_k(speedups(s, resources), k) for s in problems),
        efficiency=None
        if resources is None
        else mean_over_problems(
            efficiency_at_k(speedups(s, resources), k, resources) for s in problems
        ),
        correct_but_racy=racy / correct if correct else None,
    )
