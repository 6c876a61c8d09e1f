"""`gather_limited`: a stage's parallel runs, bounded, and never left running after one fails."""

from __future__ import annotations

import asyncio
import gc
import warnings

import pytest

from sandbox.verify import gather_limited


async def test_results_in_order_and_at_most_limit_at_once() -> None:
    running, peak = 0, 0

    async def run(k: int) -> int:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.01 * (5 - k))
        running -= 1
        return k * k

    assert await gather_limited(2, *(run(k) for k in range(5))) == [0, 1, 4, 9, 16]
    assert peak == 2


async def test_a_failure_cancels_and_waits_for_the_others() -> None:
    ended: list[str] = []

    async def slow(name: str) -> None:
        try:
            await asyncio.sleep(30)
        finally:
            ended.append(name)  # a command's cleanup: it has run before the error goes on

    async def fails() -> None:
        await asyncio.sleep(0.01)
        raise RuntimeError("the container is gone")

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an unawaited coroutine would warn when collected
        with pytest.raises(RuntimeError, match="container is gone"):
            # two run beside the failure; two more wait for a slot and never start
            await gather_limited(3, slow("a"), slow("b"), fails(), slow("c"), slow("d"))
        gc.collect()
    assert sorted(ended) == ["a", "b"]


async def test_cancelling_the_caller_cancels_every_run() -> None:
    started = asyncio.Event()
    ended: list[int] = []

    async def run(k: int) -> None:
        started.set()
        try:
            await asyncio.sleep(30)
        finally:
            ended.append(k)

    caller = asyncio.create_task(gather_limited(2, *(run(k) for k in range(4))))
    await started.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert sorted(ended) == [0, 1]
