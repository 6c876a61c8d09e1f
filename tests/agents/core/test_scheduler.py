"""The task-fetching scheduler: eager dispatch, failures as data, cancellation, limits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from agents.core import PlanError, PlanStep, SchedulerEvent, StepResult, run_plan

Behaviour = Callable[[dict[str, Any]], Awaitable[Any]]


def step(id: int, **args: Any) -> PlanStep:
    return PlanStep(id=id, tool="t", args=args)


async def stream(*steps: PlanStep) -> AsyncIterator[PlanStep]:
    for s in steps:
        yield s


def tools(behaviours: dict[int, Behaviour]) -> Callable[[PlanStep, dict[str, Any]], Awaitable[Any]]:
    async def execute(s: PlanStep, args: dict[str, Any]) -> Any:
        return await behaviours[s.id](args)

    return execute


async def value(args: dict[str, Any]) -> Any:
    return args


async def test_a_fast_chain_does_not_wait_for_a_slow_sibling():
    chain_done = asyncio.Event()

    async def slow(args):
        # Finishes only after the chain's second step ran: a scheduler that waited for all
        # first-level steps before starting their successors would never get there.
        await chain_done.wait()
        await asyncio.sleep(0.02)
        return "slow"

    async def second(args):
        chain_done.set()
        return args["x"] + 1

    async def first(args):
        return 1

    plan = stream(step(1), step(2), step(3, x="$2"), step(4, a="$1", b="$3"))
    behaviours = {1: slow, 2: first, 3: second, 4: value}
    async with asyncio.timeout(5):
        results = await run_plan(plan, tools(behaviours))
    assert results[3].started < results[1].finished
    assert results[2].finished <= results[3].started
    assert results[4].started >= results[1].finished
    assert results[4].value == {"a": "slow", "b": 2}
    assert all(r.status == "ok" for r in results.values())


async def test_steps_run_while_the_plan_is_still_streaming():
    first_started = asyncio.Event()
    yielded: list[int] = []

    async def streaming() -> AsyncIterator[PlanStep]:
        yielded.append(1)
        yield step(1)
        # The rest of the plan arrives only once step 1 runs (as a model would keep writing).
        await first_started.wait()
        yielded.append(2)
        yield step(2, x="$1")

    async def one(args):
        assert yielded == [1]
        first_started.set()
        return "a"

    async with asyncio.timeout(5):
        results = await run_plan(streaming(), tools({1: one, 2: value}))
    assert results[2].value == {"x": "a"}


async def test_failures_skip_their_dependants_and_nothing_else():
    async def boom(args):
        raise ValueError("boom")

    plan = stream(
        step(1),
        step(2, x="$1"),
        step(3, prompt="fix $2"),
        step(4, y=4),
        step(5, x="$9"),
        step(6, x="$7"),
        step(7, x="$6"),
        step(8, x="$4.missing"),
        step(10, x="$8", y="$4"),
        step(11, z="$11"),
    )
    behaviours: dict[int, Behaviour] = {1: boom, 4: value, 8: value, 10: value}
    results = await run_plan(plan, tools(behaviours))
    status = {i: (r.status, r.error) for i, r in results.items()}
    assert status == {
        1: ("error", "ValueError: boom"),
        2: ("skipped", "needs $1, which failed (ValueError: boom)"),
        3: ("skipped", "needs $2, which was skipped (needs $1, which failed (ValueError: boom))"),
        4: ("ok", ""),
        5: ("skipped", "unknown step $9"),
        6: ("skipped", "circular reference: waits on $7, which wait on it"),
        7: ("skipped", "needs $6, which was skipped (circular reference: waits on $7, which wait on it)"),
        8: ("error", "$4 has no key 'missing'"),
        10: ("skipped", "needs $8, which failed ($4 has no key 'missing')"),
        11: ("skipped", "circular reference: waits on $11, which wait on it"),
    }  # fmt: skip
    skipped = results[5]
    assert skipped.started == skipped.finished


async def test_cancelling_the_run_cancels_every_running_step():
    running: set[int] = set()
    cancelled: set[int] = set()
    both = asyncio.Event()

    async def hang(s: PlanStep, args: dict[str, Any]) -> None:
        running.add(s.id)
        if len(running) == 2:
            both.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.add(s.id)
            raise

    async def streaming() -> AsyncIterator[PlanStep]:
        yield step(1)
        yield step(2)
        yield step(3, x="$1")
        await asyncio.Event().wait()  # the planner is still writing

    events: list[SchedulerEvent] = []
    run = asyncio.create_task(run_plan(streaming(), hang, on_event=events.append))
    async with asyncio.timeout(5):
        await both.wait()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert cancelled == running == {1, 2}
    finished = {e.step.id: e.result.status for e in events if e.result is not None}
    assert finished == {1: "cancelled", 2: "cancelled"}  # step 3 never started


async def test_a_tool_that_raises_cancelled_by_itself_only_ends_its_own_step():
    async def gives_up(args):
        raise asyncio.CancelledError

    plan = stream(step(1), step(2, x="$1"), step(3))
    results = await run_plan(plan, tools({1: gives_up, 3: value}))
    assert [results[i].status for i in (1, 2, 3)] == ["cancelled", "skipped", "ok"]
    assert results[2].error == "needs $1, which was cancelled"


async def test_at_most_max_concurrency_steps_run_at_once():
    now = peak = 0

    async def counted(args):
        nonlocal now, peak
        now += 1
        peak = max(peak, now)
        await asyncio.sleep(0.01)
        now -= 1
        return args

    plan = stream(*(step(i) for i in range(1, 8)), step(8, x="$7"))
    behaviours: dict[int, Behaviour] = dict.fromkeys(range(1, 9), counted)
    results = await run_plan(plan, tools(behaviours), max_concurrency=2)
    assert peak == 2
    assert all(r.status == "ok" for r in results.values())
    ordered = sorted(results.values(), key=lambda r: r.started)
    # never more than two intervals overlap at any start time
    for r in ordered:
        assert sum(o.started <= r.started < o.finished for o in ordered) <= 2
    with pytest.raises(ValueError, match="at least 1"):
        await run_plan(stream(), tools({}), max_concurrency=0)


async def test_events_tell_when_each_step_starts_and_finishes():
    events: list[SchedulerEvent] = []
    results = await run_plan(
        stream(step(1), step(2, x="$1"), step(3, x="$5")),
        tools({1: value, 2: value}),
        on_event=events.append,
    )
    kinds = [(e.step.id, e.kind) for e in events]
    # step 3 is skipped when the plan ends (before step 1 even starts); a skipped step only finishes
    assert sorted(kinds, key=lambda k: k[0]) == [
        (1, "started"), (1, "finished"), (2, "started"), (2, "finished"), (3, "finished"),
    ]  # fmt: skip
    assert kinds.index((1, "finished")) < kinds.index((2, "started"))
    finished = {e.step.id: e.result for e in events if e.kind == "finished"}
    assert finished == results
    assert all(isinstance(r, StepResult) and e.at == r.finished for e in events if (r := e.result))


async def test_a_repeated_step_id_is_a_plan_error():
    with pytest.raises(PlanError, match="step id 1 is used twice"):
        await run_plan(stream(step(1), step(1)), tools({1: value}))


async def test_an_empty_plan_runs_nothing():
    assert await run_plan(stream(), tools({})) == {}
