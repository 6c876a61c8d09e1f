"""The one writer of a run's trajectory: every step, candidate and verdict an agent stores goes
through a `Trace`, which owns the times, the error, the latency and the parent link of a step.

    async with trace.step(StepKind.TOOL_CALL, "analyse", {}) as step:
        step.result = await analyse()       # stored when the block ends, with its times

An exception raised in the block is stored as the step's error and raised on. A step whose
children must hang below it while it is still running (a plan that streams, an evolution
generation) is `open_step`: stored when the block starts, completed when it ends.

Steps hang below the step their branch hangs below (`hang_below`). That is a context variable,
because parallel branches share one trace but not their parent: a plan's steps hang below the
plan's model call, a repair branch's below the step of the candidate it repairs.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from agents.identity import Identity
from agents.llm import CallRecord
from agents.trajectory import llm_steps
from corpus.store.models import CandidateCreate, RunMeta, StepCreate, StepKind
from corpus.store.recorder import Recorder

_PARENT: ContextVar[asyncio.Future[int] | None] = ContextVar("parforge_parent_step", default=None)


class _Inherit:
    """The default parent: the step this branch hangs below."""


INHERIT = _Inherit()


@dataclass
class Step:
    """A step while its block runs: the body sets `result` (and `fields`, the columns of an LLM
    call: response, tokens, model); `id` is known once it is stored."""

    kind: StepKind
    name: str
    arguments: dict[str, Any] | None
    started_at: datetime
    tool: str | None = None
    """The tool a tool call ran (its name, unless several steps share one tool)."""
    result: Any = None
    error: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    id: int | None = None
    discarded: bool = False

    def discard(self) -> None:
        """Store nothing for this step (what it did turned out to be no step: a probe that
        found nothing wrong verifies nothing)."""
        self.discarded = True

    def row(
        self, parent_id: int | None, tool_call_id: str | None = None, *, finished: bool = True
    ) -> StepCreate:
        """The stored row: as it ended, or (`finished=False`) as it started."""
        tool = (self.tool or self.name) if self.kind is StepKind.TOOL_CALL else None
        values: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name,
            "tool_name": tool,
            "tool_call_id": tool_call_id,
            "parent_id": parent_id,
            "arguments": self.arguments,
            "started_at": self.started_at,
        }
        if finished:
            end = datetime.now(UTC)
            values |= {
                "result": _jsonable(self.result),
                "error": self.error,
                "latency_s": (end - self.started_at).total_seconds(),
                "finished_at": end,
            }
        return StepCreate.model_validate(values | self.fields)

    @contextmanager
    def failing(self) -> Iterator[None]:
        """An exception raised in the block becomes the step's error (unless the body set a
        more precise one) and is raised on."""
        try:
            yield
        except Exception as exc:
            self.error = self.error or f"{type(exc).__name__}: {exc}"
            raise


class Trace:
    """Writes one run's trajectory through its `Recorder`, as the run's `identity`."""

    def __init__(self, recorder: Recorder, identity: Identity) -> None:
        self.recorder = recorder
        self.identity = identity

    def hang_below(self, step: int | asyncio.Future[int]) -> None:
        """Steps stored from this asyncio task (and the tasks it starts) hang below `step`: a
        stored step's id, or a future one's (the plan's call before it is stored)."""
        if isinstance(step, int):
            stored: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            stored.set_result(step)
            step = stored
        _PARENT.set(step)

    async def parent_id(self) -> int | None:
        """The step this branch's steps hang below; waits until it is stored."""
        step = _PARENT.get()
        return None if step is None else await asyncio.shield(step)

    @asynccontextmanager
    async def step(
        self,
        kind: StepKind,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        parent: int | _Inherit | None = INHERIT,
        tool: str | None = None,
        tool_call_id: str | None = None,
    ) -> AsyncIterator[Step]:
        """A step stored when the block ends (also when it raises: with the error)."""
        step = Step(kind, name, arguments, datetime.now(UTC), tool)
        try:
            with step.failing():
                yield step
        finally:
            if not step.discarded:
                parent_id = await self._parent(parent)
                step.id = await self.recorder.add_step(step.row(parent_id, tool_call_id))

    @asynccontextmanager
    async def open_step(
        self,
        kind: StepKind,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        parent: int | _Inherit | None = INHERIT,
        tool: str | None = None,
        fields: Mapping[str, Any] | None = None,
    ) -> AsyncIterator[Step]:
        """A step stored when the block starts, so that what it causes can hang below it at
        once (`step.id`), and completed with its result, error and times when the block ends."""
        step = Step(kind, name, arguments, datetime.now(UTC), tool, fields=dict(fields or {}))
        parent_id = await self._parent(parent)
        step.id = await self.recorder.open_step(step.row(parent_id, finished=False))
        try:
            with step.failing():
                yield step
        finally:
            await self.recorder.close_step(step.id, step.row(parent_id))

    async def llm_call(
        self,
        record: CallRecord | None,
        name: str,
        *,
        parent: int | _Inherit | None = INHERIT,
        update: Mapping[str, Any] | None = None,
    ) -> int:
        """A finished (or failed) model call as one `llm_call` step: its first choice, its
        times and tokens as the client measured them (None: a call that never started)."""
        if record is None:
            row = StepCreate(kind=StepKind.LLM_CALL, name=name, model=self.identity.model)
        else:
            row = llm_steps(record, self.identity)[0]
        values = {"name": name, "parent_id": await self._parent(parent)} | dict(update or {})
        return await self.recorder.add_step(row.model_copy(update=values))

    async def llm_choices(
        self, record: CallRecord, name: str, *, parent: int | _Inherit | None = INHERIT
    ) -> list[tuple[int, str | None]]:
        """A model call with `n` choices as `n` steps (exports pair the samples of one prompt):
        each step's id and reply (None for a call that failed and left no choice)."""
        parent_id = await self._parent(parent)
        stored = []
        for row in llm_steps(record, self.identity):
            step_id = await self.recorder.add_step(
                row.model_copy(update={"name": name, "parent_id": parent_id})
            )
            reply = None if row.response is None else str(row.response.get("content") or "")
            stored.append((step_id, reply))
        return stored

    async def candidate(self, candidate: CandidateCreate) -> int:
        """Store a candidate program; returns its id."""
        return await self.recorder.add_candidate(candidate)

    async def verdict(self, candidate_id: int, verdict: BaseModel | Mapping[str, Any]) -> int:
        """Store the sandbox's verdict on a candidate."""
        return await self.recorder.add_verdict(candidate_id, verdict)

    async def run_meta(self, meta: RunMeta) -> None:
        """Say which model and adapter the run uses and its budgets."""
        await self.recorder.set_run(meta)

    async def _parent(self, parent: int | _Inherit | None) -> int | None:
        return await self.parent_id() if isinstance(parent, _Inherit) else parent


def _jsonable(value: Any) -> Any:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value
