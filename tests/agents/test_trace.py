"""The trajectory writer owns what every stored step has: times, latency, the error, the parent
link; a step that is discarded is not stored; an open step is stored first and completed."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agents.identity import Identity
from agents.trace import Trace
from corpus.store.models import StepCreate, StepKind


class Recorded:
    """The recorder's step calls, in order: a stand-in for the store's `Recorder`."""

    def __init__(self) -> None:
        self.steps: dict[int, StepCreate] = {}
        self.calls: list[str] = []

    async def add_step(self, step: StepCreate) -> int:
        self.calls.append("add")
        self.steps[len(self.steps) + 1] = step
        return len(self.steps)

    async def open_step(self, step: StepCreate) -> int:
        self.calls.append("open")
        self.steps[len(self.steps) + 1] = step
        return len(self.steps)

    async def close_step(self, step_id: int, step: StepCreate) -> None:
        self.calls.append("close")
        self.steps[step_id] = step


def trace() -> tuple[Trace, Recorded]:
    recorded = Recorded()
    return Trace(recorded, Identity("m")), recorded  # type: ignore[arg-type]


async def test_a_step_is_stored_with_its_times_result_and_inherited_parent() -> None:
    t, recorded = trace()
    t.hang_below(7)
    async with t.step(StepKind.TOOL_CALL, "analyse", {"x": 1}) as step:
        step.result = {"loops": 2}
    stored = recorded.steps[step.id or 0]
    assert (stored.name, stored.tool_name, stored.parent_id) == ("analyse", "analyse", 7)
    assert stored.result == {"loops": 2} and stored.error is None
    assert stored.started_at and stored.finished_at and stored.latency_s is not None
    assert stored.finished_at >= stored.started_at


async def test_an_exception_is_stored_as_the_error_and_raised_on() -> None:
    t, recorded = trace()
    with pytest.raises(RuntimeError):
        async with t.step(StepKind.TOOL_CALL, "verify", {}, parent=None, tool="check"):
            raise RuntimeError("engine down")
    [stored] = recorded.steps.values()
    assert stored.error == "RuntimeError: engine down" and stored.tool_name == "check"


async def test_a_discarded_step_is_not_stored() -> None:
    t, recorded = trace()
    async with t.step(StepKind.TOOL_CALL, "verify", {}) as step:
        step.discard()
    assert recorded.steps == {} and step.id is None


async def test_an_open_step_is_stored_first_and_its_children_hang_below_it() -> None:
    t, recorded = trace()
    async with t.open_step(StepKind.TOOL_CALL, "generation", {}, parent=None) as gen:
        assert gen.id is not None and recorded.calls == ["open"]
        t.hang_below(gen.id)
        async with t.step(StepKind.TOOL_CALL, "verify", {}):
            pass
        gen.result = {"best": 3}
    assert recorded.calls == ["open", "add", "close"]
    child = recorded.steps[2]
    assert child.parent_id == gen.id
    assert recorded.steps[gen.id].result == {"best": 3}


async def test_parallel_branches_keep_their_own_parent() -> None:
    t, recorded = trace()

    async def branch(parent: int) -> Any:
        t.hang_below(parent)
        await asyncio.sleep(0)
        async with t.step(StepKind.TOOL_CALL, "repair", {}) as step:
            pass
        return recorded.steps[step.id or 0].parent_id

    assert await asyncio.gather(branch(10), branch(20)) == [10, 20]
