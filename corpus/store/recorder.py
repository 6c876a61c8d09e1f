"""The write side of a run: every step, candidate and verdict committed the moment it is reported.

A `Recorder` belongs to one run of one task. Its writes go through a single thread of their own,
so they reach the database in the order they were made even when parallel branches of an agent
report at once, and the event loop never blocks on the database. A write that has started is
finished even if the coroutine that asked for it is cancelled.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy import Engine, update
from sqlmodel import Session, col

from corpus.store.models import (
    CandidateCreate,
    CandidateRow,
    EventKind,
    RunMeta,
    RunRow,
    StepCreate,
    StepRow,
    VerdictRow,
    verdict_columns,
)
from corpus.store.notify import Notifier, task_key
from corpus.store.tasks import add_event

T = TypeVar("T")


class Recorder:
    """Writes one run's trajectory. Made by the worker pool; handed to the runner."""

    def __init__(
        self, engine: Engine, task_id: str, run_id: int, notifier: Notifier | None = None
    ) -> None:
        self.task_id = task_id
        self.run_id = run_id
        self._engine = engine
        self._notifier = notifier
        self._seq = 0
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"recorder-{run_id}")
        self._pending: set[asyncio.Future[Any]] = set()

    async def set_run(self, meta: RunMeta) -> None:
        """Say which model and adapter the run uses and its budgets (fields left None are kept)."""
        values = meta.model_dump(exclude_none=True, exclude_unset=True)
        if values:
            await self._write(lambda s: self._update_run(s, values))

    async def add_step(self, step: StepCreate) -> int:
        """Store one finished LLM call or tool call; returns its id (a parent for branches)."""
        self._seq += 1
        seq = self._seq
        return await self._write(lambda s: self._insert_step(s, step, seq))

    async def open_step(self, step: StepCreate) -> int:
        """Store a step that has started and not finished yet (a plan still streaming), so that
        what it causes can hang below it at once; `close_step` fills in how it ended."""
        return await self.add_step(step)

    async def close_step(self, step_id: int, step: StepCreate) -> None:
        """Replace a step stored by `open_step` with how it ended (response, tokens, times)."""
        fields = step.model_dump()
        await self._write(lambda s: self._update_step(s, step_id, fields))

    async def add_candidate(self, candidate: CandidateCreate) -> int:
        """Store a candidate program; returns its id (for its verdict and its children)."""
        return await self._write(lambda s: self._insert_candidate(s, candidate))

    async def add_verdict(self, candidate_id: int, verdict: BaseModel | Mapping[str, Any]) -> int:
        """Store the sandbox's verdict on a candidate (a `Verdict` or its `model_dump`)."""
        data = verdict.model_dump(mode="json") if isinstance(verdict, BaseModel) else dict(verdict)
        return await self._write(lambda s: self._insert_verdict(s, candidate_id, data))

    async def aclose(self) -> None:
        """Wait for every write already asked for, then release the writer thread."""
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)
        await asyncio.to_thread(self._thread.shutdown, wait=True)

    async def _write(self, fn: Callable[[Session], T]) -> T:
        def job() -> T:
            with Session(self._engine, expire_on_commit=False) as session:
                result = fn(session)
                session.commit()
                return result

        future = asyncio.get_running_loop().run_in_executor(self._thread, job)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)
        # Shielded: cancelling the runner must not drop a write already handed to the thread.
        result = await asyncio.shield(future)
        if self._notifier is not None:
            self._notifier.notify(task_key(self.task_id))
        return result

    def _update_run(self, session: Session, values: dict[str, Any]) -> None:
        session.execute(
            update(RunRow)
            .where(col(RunRow.id) == self.run_id)
            .values(**values)
            .execution_options(synchronize_session=False)
        )

    def _update_step(self, session: Session, step_id: int, fields: dict[str, Any]) -> None:
        session.execute(
            update(StepRow)
            .where(col(StepRow.id) == step_id, col(StepRow.run_id) == self.run_id)
            .values(**fields)
            .execution_options(synchronize_session=False)
        )

    def _insert_step(self, session: Session, step: StepCreate, seq: int) -> int:
        row = StepRow.model_validate(
            step.model_dump() | {"task_id": self.task_id, "run_id": self.run_id, "seq": seq}
        )
        return self._insert(session, row, EventKind.STEP)

    def _insert_candidate(self, session: Session, candidate: CandidateCreate) -> int:
        row = CandidateRow.model_validate(
            candidate.model_dump() | {"task_id": self.task_id, "run_id": self.run_id}
        )
        return self._insert(session, row, EventKind.CANDIDATE)

    def _insert_verdict(self, session: Session, candidate_id: int, data: dict[str, Any]) -> int:
        row = VerdictRow(
            candidate_id=candidate_id,
            task_id=self.task_id,
            run_id=self.run_id,
            data=data,
            **verdict_columns(data),
        )
        return self._insert(session, row, EventKind.VERDICT)

    def _insert(
        self, session: Session, row: StepRow | CandidateRow | VerdictRow, kind: EventKind
    ) -> int:
        session.add(row)
        session.flush()
        assert row.id is not None
        add_event(session, self.task_id, kind, row.id)
        return row.id
