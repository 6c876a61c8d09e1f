"""Fitness and the confidence of an improvement, on verdicts shaped like the sandbox's."""

from __future__ import annotations

import pytest

from agents.evolve.fitness import compare, fitness, improvement_confidence, speedup_samples
from sandbox.spec import Target
from sandbox.verdict import ConcurrencyReport, Status, StepRecord, Timing, Verdict


def timed(
    runs: dict[int, list[float]], reference: float = 1.0, status: Status = Status.PASSED
) -> Verdict:
    """A verdict whose timing runs took `runs[n]` seconds at n threads."""
    steps = [
        StepRecord(
            name=f"run candidate [timing #{k + 1}] {n} threads",
            command="./cand",
            exit_code=0,
            duration_s=s,
        )
        for n, times in runs.items()
        for k, s in enumerate(times)
    ]
    medians = {n: sorted(t)[len(t) // 2] for n, t in runs.items()}
    timing = Timing(
        reference_s=reference,
        candidate_s=medians,
        speedup={n: round(reference / m, 3) for n, m in medians.items()},
        ratios={n: [round(reference / s, 4) for s in t] for n, t in runs.items()},
    )
    return Verdict(
        target=Target.OPENMP,
        status=status,
        timing=timing,
        steps=steps,
        concurrency=ConcurrencyReport(ok=status is Status.PASSED),
    )


def test_fitness_is_zero_unless_correct_and_then_the_best_plausible_speedup() -> None:
    assert fitness(None).value == 0
    assert fitness(timed({2: [0.5] * 5}, status=Status.RACE)).value == 0
    passed = timed({1: [1.0] * 5, 2: [0.5] * 5})
    assert fitness(passed).value == pytest.approx(2.0)
    assert fitness(passed) > fitness(timed({1: [1.0] * 5, 2: [0.8] * 5}))
    # Correct beats incorrect whatever the incorrect one's timing said.
    assert fitness(timed({2: [2.0] * 5})) > fitness(timed({2: [0.1] * 5}, status=Status.RACE))


def test_samples_are_the_paired_speedups_at_the_best_count() -> None:
    verdict = timed({1: [1.0, 1.0, 1.0], 2: [0.5, 0.4, 0.5]})
    assert speedup_samples(verdict) == [2.0, 2.5, 2.0]
    assert speedup_samples(verdict, workers=1) == [1.0, 1.0, 1.0]


def test_a_child_measured_beside_other_load_never_replaces_a_correct_incumbent() -> None:
    parent = timed({2: [1.0] * 5})
    child = timed({2: [0.4] * 5})
    assert compare(child, parent).better
    assert child.timing is not None
    child.timing.disturbed = [2]
    verdict = compare(child, parent)
    assert not verdict.better and verdict.confidence == 0.5
    # Against an incorrect incumbent, being correct is what counts.
    assert compare(child, timed({2: [1.0] * 5}, status=Status.RACE)).better


def test_confidence_separates_a_real_gain_from_noise() -> None:
    assert improvement_confidence([2.0] * 5, [1.0] * 5) > 0.99
    # Five clearly faster runs against five slower: the exact test's best p is 1/252.
    assert improvement_confidence(
        [2.1, 2.2, 2.0, 2.3, 2.15], [1.0, 1.1, 0.9, 1.05, 1.2]
    ) == pytest.approx(1 - 1 / 252, abs=1e-4)
    interleaved = improvement_confidence([1.0, 1.2, 1.4, 1.6, 1.8], [1.1, 1.3, 1.5, 1.7, 1.9])
    assert interleaved < 0.6
    assert improvement_confidence([], [1.0]) == 0.5
    # Many samples: the normal approximation agrees in direction.
    assert (
        improvement_confidence(
            [2.0 + i / 100 for i in range(15)], [1.0 + i / 100 for i in range(15)]
        )
        > 0.99
    )


def test_compare_needs_a_confident_and_large_enough_gain() -> None:
    parent = timed({2: [0.50, 0.52, 0.49, 0.51, 0.50]})
    faster = timed({2: [0.30, 0.31, 0.29, 0.30, 0.32]})
    noisy = timed({2: [0.49, 0.53, 0.47, 0.52, 0.50]})
    assert compare(faster, parent).better
    assert not compare(noisy, parent).better
    assert not compare(parent, faster).better
    racy = timed({2: [0.1] * 5}, status=Status.RACE)
    assert not compare(racy, parent).better  # an incorrect child never wins, however fast
    assert compare(parent, racy).better  # and any correct child beats an incorrect incumbent
    tiny_gain = timed({2: [0.49, 0.495, 0.488, 0.492, 0.49]})
    assert not compare(tiny_gain, timed({2: [0.50, 0.501, 0.502, 0.503, 0.504]})).better
