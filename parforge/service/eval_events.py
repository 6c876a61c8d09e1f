"""An eval run as a live stream, read from the store: its status, its progress, each sample as
it is verified, and its summary when it ends.

Eval runs keep no event log (a run writes thousands of samples, each replaced once verified):
the stream polls the run's row and its verified results, and sends what changed. Samples are
verified out of order, so there is no event id to resume from: a reconnect sends the run's
state again, every verified sample included (a client keys them by problem and sample).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from corpus.store import evals
from corpus.store.models import EvalResultRow, JobStatus

GENERATED = "generated"
"""A sample's status while it waits for verification (not sent)."""


@dataclass(frozen=True)
class EvalEvent:
    kind: str
    """`status`, `progress`, `result` or `summary`."""
    data: dict[str, Any]

    def sse(self) -> dict[str, str]:
        return {"event": self.kind, "data": json.dumps(self.data)}


@dataclass
class _Snapshot:
    status: str
    reason: str
    progress: dict[str, Any]
    summary: dict[str, Any]
    results: list[EvalResultRow]


def _read(engine: Engine, eval_id: int, sent: set[int]) -> _Snapshot | None:
    with Session(engine) as session:
        run = evals.get(session, eval_id)
        if run is None:
            return None
        query = (
            select(EvalResultRow)
            .where(EvalResultRow.eval_run_id == eval_id, EvalResultRow.status != GENERATED)
            .order_by(col(EvalResultRow.id))
        )
        fresh = [r for r in session.exec(query).all() if r.id not in sent]
        return _Snapshot(run.status, run.reason, dict(run.progress), dict(run.summary), fresh)


def _result(row: EvalResultRow) -> dict[str, Any]:
    return {
        "problem": row.problem,
        "sample_index": row.sample_index,
        "status": row.status,
        "built": row.built,
        "passed": row.passed,
        "race": row.race,
        "speedups": row.speedups,
        "task_id": row.task_id,
    }


async def follow_eval(
    engine: Engine,
    eval_id: int,
    *,
    follow: bool = True,
    poll_s: float = 1.0,
) -> AsyncIterator[EvalEvent]:
    """The run's events so far; with `follow`, until it ends (its `summary` is the last)."""
    sent: set[int] = set()
    status = progress = None
    while True:
        snap = await asyncio.to_thread(_read, engine, eval_id, sent)
        if snap is None:
            return
        if snap.status != status:
            status = snap.status
            yield EvalEvent("status", {"status": snap.status, "reason": snap.reason})
        for row in snap.results:
            assert row.id is not None
            sent.add(row.id)
            yield EvalEvent("result", _result(row))
        if snap.progress != progress:
            progress = snap.progress
            yield EvalEvent("progress", snap.progress)
        ended = JobStatus(snap.status).terminal
        if ended:
            yield EvalEvent("summary", {"status": snap.status, "summary": snap.summary})
        if ended or not follow:
            return
        await asyncio.sleep(poll_s)
