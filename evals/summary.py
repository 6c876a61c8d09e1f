"""From per-sample outcomes to the tables of a report: metrics per problem type and overall."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from evals.metrics import efficiency_at_k, mean_over_problems, pass_at_k, speedup_at_k
from evals.stats import bootstrap_mean, rate_interval

OVERALL = "all"


class SampleOutcome(BaseModel):
    """One verified sample, reduced to what the metrics need."""

    problem: str
    problem_type: str
    sample: int
    built: bool | None
    """None: unknown (the sandbox could not even build it, e.g. a missing compiler)."""
    correct: bool
    """Agrees with the reference on every test (ParEval's notion of a passing sample)."""
    race_free: bool
    """Correct *and* clean under the race/deadlock checks: ParForge's stricter notion."""
    speedups: dict[int, float] = Field(default_factory=dict)
    """Speedup over the reference at each resource count; only meaningful when race_free."""
    status: str = ""
    """The verdict's status (`passed`, `race`, `build_failed`, ...), for per-problem tables."""
    not_run: str | None = None
    """Why the tests could not run here (`not run: no GPU`): the sample is neither a pass nor a
    failure, and its problem is left out of every column but build@k."""


class MetricRow(BaseModel):
    """Metrics of one problem type (or of the whole suite) at one k."""

    group: str
    k: int
    problems: int
    samples: int
    build: float | None
    """None when no problem of the group could be built here (every column is None then)."""
    passed: float | None
    """None when no problem of the group had all its samples tested (CUDA without a GPU)."""
    race_free: float | None
    speedup: float | None
    efficiency: float | None
    correct_but_racy: float | None
    """Share of test-passing samples that race: what a harness without a race check would miss."""
    not_run: int = 0
    """Samples whose tests could not run in this sandbox."""
    intervals: dict[str, list[float]] = Field(default_factory=dict)
    """95 % interval [low, high] of `build`, `passed`, `race_free` and `speedup`, over the
    problems (`evals.stats`: Wilson with one sample per problem at k = 1, else a bootstrap)."""


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
    # A problem counts in a column only when every one of its samples was judged for it.
    built_known = [s for s in problems if all(o.built is not None for o in s)]
    judged = [s for s in problems if all(o.not_run is None for o in s)]

    single = k == 1 and all(len(s) == 1 for s in problems)
    intervals: dict[str, list[float]] = {}

    def rate(sets: list[list[SampleOutcome]], flag: str) -> float | None:
        if not sets:
            return None
        estimates = [estimate(s, flag, k) for s in sets]
        intervals[FIELDS.get(flag, flag)] = list(rate_interval(estimates, single))
        return mean_over_problems(estimates)

    def speedups(s: list[SampleOutcome], n: int) -> list[float]:
        return [o.speedups.get(n, 0.0) if o.race_free else 0.0 for o in s]

    timed = resources is not None and bool(judged)
    n = resources or 1
    correct = sum(o.correct for s in judged for o in s)
    racy = sum(o.correct and not o.race_free for s in judged for o in s)
    if timed:
        per_problem = [speedup_at_k(speedups(s, n), k) for s in judged]
        intervals["speedup"] = list(bootstrap_mean(per_problem))
    return MetricRow(
        group=group,
        k=k,
        problems=len(problems),
        samples=sum(len(s) for s in problems),
        build=rate(built_known, "built"),
        passed=rate(judged, "correct"),
        race_free=rate(judged, "race_free"),
        speedup=mean_over_problems(speedup_at_k(speedups(s, n), k) for s in judged)
        if timed
        else None,
        efficiency=mean_over_problems(efficiency_at_k(speedups(s, n), k, n) for s in judged)
        if timed
        else None,
        correct_but_racy=racy / correct if correct else None,
        not_run=sum(o.not_run is not None for s in problems for o in s),
        intervals=intervals,
    )


FIELDS = {"built": "build", "correct": "passed", "race_free": "race_free"}
"""A sample's flag → the row's field that rates it."""


def estimate(samples: Sequence[SampleOutcome], flag: str, k: int) -> float:
    """One problem's pass@k-style estimate of `flag` (`built`, `correct`, `race_free`)."""
    return pass_at_k(len(samples), sum(bool(getattr(o, flag)) for o in samples), k)


def per_problem(outcomes: Iterable[SampleOutcome], flag: str, k: int) -> dict[str, float]:
    """Each judged problem's estimate of `flag` at `k` (problems whose tests could not run
    here, and those with fewer than k samples, left out)."""
    by_problem: dict[str, list[SampleOutcome]] = defaultdict(list)
    for outcome in outcomes:
        by_problem[outcome.problem].append(outcome)
    return {
        name: estimate(samples, flag, k)
        for name, samples in sorted(by_problem.items())
        if len(samples) >= k and all(o.not_run is None for o in samples)
    }


class ProblemRow(BaseModel):
    """One problem of a run: its samples' fate at a glance."""

    problem: str
    problem_type: str
    samples: int
    built: int
    correct: int
    race_free: int
    not_run: int
    best_speedup: float | None
    """Best speedup at the report's resource count among race-free samples (None: none timed)."""
    statuses: dict[str, int]


def problem_rows(outcomes: Iterable[SampleOutcome], resources: int | None) -> list[ProblemRow]:
    """Per-problem counts, in problem order."""
    by_problem: dict[str, list[SampleOutcome]] = defaultdict(list)
    for o in outcomes:
        by_problem[o.problem].append(o)
    rows = []
    for name in sorted(by_problem):
        samples = by_problem[name]
        speeds = [
            o.speedups[resources]
            for o in samples
            if resources is not None and o.race_free and resources in o.speedups
        ]
        rows.append(
            ProblemRow(
                problem=name,
                problem_type=samples[0].problem_type,
                samples=len(samples),
                built=sum(bool(o.built) for o in samples),
                correct=sum(o.correct for o in samples),
                race_free=sum(o.race_free for o in samples),
                not_run=sum(o.not_run is not None for o in samples),
                best_speedup=max(speeds) if speeds else None,
                statuses=dict(Counter(o.status or "?" for o in samples).most_common()),
            )
        )
    return rows


def not_run_reasons(outcomes: Iterable[SampleOutcome]) -> dict[str, int]:
    """How many samples could not be tested, by reason (`not run: no GPU`: 12)."""
    return dict(Counter(o.not_run for o in outcomes if o.not_run is not None).most_common())
