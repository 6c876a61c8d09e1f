"""The export query: LLM calls with their candidate's verdict, streamed in task order."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, and_, func, select
from sqlalchemy.orm import aliased
from sqlmodel import Session, col

from corpus.export.filters import ExportFilter
from corpus.store.models import Candidate, Run, Step, StepKind, Task, Verdict
from corpus.store.tasks import Owner, _AnyOwner

BATCH = 500
"""Rows fetched per round trip (a server-side cursor on PostgreSQL)."""


@dataclass(frozen=True)
class SampleRow:
    task_id: str
    step_id: int
    messages: list[dict[str, Any]]
    response: dict[str, Any]
    tools: list[dict[str, Any]] | None
    model: str | None
    adapter: str | None
    created_at: datetime
    candidate_id: int | None
    passed: bool | None
    """None when no verdict (or no candidate) belongs to the call."""
    speedup: float


def stream_rows(
    engine: Engine, filters: ExportFilter, owner: Owner, *, dpo: bool = False
) -> Iterator[SampleRow]:
    """Every LLM call that matches, ordered by task then step, fetched in batches."""
    latest = (
        select(func.max(col(Verdict.id)))
        .where(col(Verdict.candidate_id) == col(Candidate.id))
        .correlate(Candidate)
        .scalar_subquery()
    )
    verdict = aliased(Verdict)
    model = func.coalesce(Step.model, Run.model)
    adapter = func.coalesce(Step.adapter, Run.adapter)
    query = (
        select(
            col(Step.task_id),
            col(Step.id),
            col(Step.messages),
            col(Step.response),
            col(Step.tools),
            model,
            adapter,
            col(Step.created_at),
            col(Candidate.id),
            col(verdict.passed),
            col(verdict.best_speedup),
        )
        .join(Task, col(Task.id) == Step.task_id)
        .join(Run, col(Run.id) == Step.run_id)
        .outerjoin(Candidate, col(Candidate.step_id) == Step.id)
        .outerjoin(
            verdict, and_(col(verdict.candidate_id) == Candidate.id, col(verdict.id) == latest)
        )
        .where(
            col(Step.kind) == StepKind.LLM_CALL,
            col(Step.messages).is_not(None),
            col(Step.response).is_not(None),
        )
        .order_by(col(Step.task_id), col(Step.id), col(Candidate.id))
    )
    if not isinstance(owner, _AnyOwner):
        query = query.where(
            col(Task.owner_key_id).is_(None) if owner is None else col(Task.owner_key_id) == owner
        )
    if filters.target is not None:
        query = query.where(col(Task.target) == filters.target)
    if filters.model is not None:
        query = query.where(model == filters.model)
    if filters.adapter is not None:
        query = query.where(adapter == filters.adapter)
    if filters.since is not None:
        query = query.where(col(Step.created_at) >= filters.since)
    if filters.until is not None:
        query = query.where(col(Step.created_at) < filters.until)
    if not dpo:
        # For DPO the failing candidates are the `rejected` side: keep them in the stream.
        if filters.verified_only or filters.min_speedup is not None:
            query = query.where(col(verdict.passed))
        if filters.min_speedup is not None:
            query = query.where(col(verdict.best_speedup) >= filters.min_speedup)
    with Session(engine) as session:
        result = session.execute(query.execution_options(yield_per=BATCH))
        for r in result:
            yield SampleRow(
                task_id=r[0],
                step_id=r[1],
                messages=r[2],
                response=r[3],
                tools=r[4],
                model=r[5],
                adapter=r[6],
                created_at=r[7],
                candidate_id=r[8],
                passed=r[9],
                speedup=r[10] or 0.0,
            )
