"""The per-key limits as pure decisions: each refusal has its status and a reason."""

from __future__ import annotations

from corpus.store.models import TaskCreate
from parforge.api.limits import StreamSlot, StreamSlots
from parforge.app.limits import Refusal, eval_refusal, task_refusal
from parforge.settings import KeyLimits

LIMITS = KeyLimits(active_tasks=2, active_evals=1, samples_per_task=4, tests_per_task=2)


def _task(samples: int = 1, tests: int = 0) -> TaskCreate:
    return TaskCreate(
        target="openmp",
        source="int main() {}",
        budgets={"samples": samples},
        tests=[{"name": f"t{i}"} for i in range(tests)] or None,
    )


def test_tasks_within_the_limits_pass():
    assert task_refusal(_task(samples=4, tests=2), 1, LIMITS) is None
    assert task_refusal(_task(), None, LIMITS) is None  # anonymous: not counted


def test_too_many_tests_or_samples_are_422_too_many_active_429():
    assert task_refusal(_task(tests=3), 0, LIMITS) == Refusal(
        422, "3 tests; the limit per task is 2"
    )
    assert task_refusal(_task(samples=5), None, LIMITS) == Refusal(
        422, "5 samples; the limit per task is 4"
    )
    assert task_refusal(_task(), 2, LIMITS) == Refusal(
        429, "this API key has 2 tasks queued or running; the limit is 2", retry_after_s=30
    )
    assert eval_refusal(0, LIMITS) is None and eval_refusal(None, LIMITS) is None
    assert eval_refusal(1, LIMITS) == Refusal(
        429, "this API key has 1 eval runs queued or running; the limit is 1", retry_after_s=30
    )


def test_stream_slots_are_counted_per_key_and_released_once():
    slots = StreamSlots()
    first = slots.acquire(7, 2)
    second = slots.acquire(7, 2)
    assert isinstance(first, StreamSlot) and isinstance(second, StreamSlot)
    assert slots.acquire(7, 2) == Refusal(
        429, "this API key has 2 event streams open; the limit is 2", retry_after_s=5
    )
    assert isinstance(slots.acquire(8, 2), StreamSlot)  # another key
    first.release()
    first.release()  # twice: freed once
    assert slots.open == {7: 1, 8: 1}
    second.release()
    assert slots.open == {8: 1}
