"""The export query: LLM calls with their candidate's verdict, streamed in task order; an agent
run's candidates come with the tool-call conversation that led to them (see `agent`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, Select, and_, func, select
from sqlalchemy.orm import aliased
from sqlmodel import Session, col

from corpus.export.agent import StepNode, children, planning_call, tool_turn
from corpus.export.filters import ExportFilter
from corpus.store.models import (
    DEFAULT_AGENT,
    CandidateRow,
    RunRow,
    StepKind,
    StepRow,
    TaskRow,
    VerdictRow,
)
from corpus.store.tasks import AnyOwner, Owner

BATCH = 500
"""Rows fetched per round trip (a server-side cursor on PostgreSQL)."""


@dataclass(frozen=True)
class SampleRow:
    task_id: str
    step_id: int
    run_id: int
    parent_id: int | None
    """The step this LLM call was made under (a tool call of an agent), if any."""
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
    verdict: str | None = None
    """The latest verdict's status (`passed`, `race`, `build_failed`, ...)."""
    agent: str | None = None
    """The agent the task ran on (`graph`, `prompt`)."""
    target: str | None = None


step_model = func.coalesce(col(StepRow.model), col(RunRow.model))
"""The model of a step: its own, else its run's."""
step_adapter = func.coalesce(col(StepRow.adapter), col(RunRow.adapter))


def matching(query: Select[Any], filters: ExportFilter, owner: Owner) -> Select[Any]:
    """`query` (over steps joined with their task and run) narrowed to what the filters and the
    owner allow: target, task, model, adapter, the step's time, whose tasks."""
    if not isinstance(owner, AnyOwner):
        query = query.where(
            col(TaskRow.owner_key_id).is_(None)
            if owner is None
            else col(TaskRow.owner_key_id) == owner
        )
    if filters.target is not None:
        query = query.where(col(TaskRow.target) == filters.target)
    if filters.task_id is not None:
        query = query.where(col(TaskRow.id) == filters.task_id)
    if filters.model is not None:
        query = query.where(step_model == filters.model)
    if filters.adapter is not None:
        query = query.where(step_adapter == filters.adapter)
    if filters.since is not None:
        query = query.where(col(StepRow.created_at) >= filters.since)
    if filters.until is not None:
        query = query.where(col(StepRow.created_at) < filters.until)
    return query


def stream_rows(
    engine: Engine, filters: ExportFilter, owner: Owner, *, dpo: bool = False
) -> Iterator[SampleRow]:
    """Every LLM call that matches, ordered by task then step, fetched in batches."""
    latest = (
        select(func.max(col(VerdictRow.id)))
        .where(col(VerdictRow.candidate_id) == col(CandidateRow.id))
        .correlate(CandidateRow)
        .scalar_subquery()
    )
    verdict = aliased(VerdictRow)
    query = (
        select(
            col(StepRow.task_id),
            col(StepRow.id),
            col(StepRow.run_id),
            col(StepRow.parent_id),
            col(StepRow.messages),
            col(StepRow.response),
            col(StepRow.tools),
            step_model,
            step_adapter,
            col(StepRow.created_at),
            col(CandidateRow.id),
            col(verdict.passed),
            col(verdict.best_speedup),
            col(verdict.status),
            col(TaskRow.agent),
            col(TaskRow.target),
        )
        .join(TaskRow, col(TaskRow.id) == StepRow.task_id)
        .join(RunRow, col(RunRow.id) == StepRow.run_id)
        .outerjoin(CandidateRow, col(CandidateRow.step_id) == StepRow.id)
        .outerjoin(
            verdict, and_(col(verdict.candidate_id) == CandidateRow.id, col(verdict.id) == latest)
        )
        .where(
            col(StepRow.kind) == StepKind.LLM_CALL,
            col(StepRow.messages).is_not(None),
            col(StepRow.response).is_not(None),
        )
        .order_by(col(StepRow.task_id), col(StepRow.id), col(CandidateRow.id))
    )
    query = matching(query, filters, owner)
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
                run_id=r[2],
                parent_id=r[3],
                messages=r[4],
                response=r[5],
                tools=r[6],
                model=r[7],
                adapter=r[8],
                created_at=r[9],
                candidate_id=r[10],
                passed=r[11],
                speedup=r[12] or 0.0,
                verdict=r[13],
                agent=r[14] or DEFAULT_AGENT,
                target=str(r[15]),
            )


def with_tool_turns(engine: Engine, rows: Iterable[SampleRow]) -> Iterator[SampleRow]:
    """`rows`, where a candidate written under an agent's tool call becomes the conversation
    from the planning prompt through the tool calls and their results to the call that wrote it.

    Loads the steps of one run at a time, and only for runs that have such candidates.
    """
    run_id: int | None = None
    nodes: dict[int, StepNode] = {}
    kids: dict[int, list[StepNode]] = {}
    for row in rows:
        if row.parent_id is None or row.candidate_id is None:
            yield row
            continue
        if row.run_id != run_id:
            run_id, nodes = row.run_id, _run_steps(engine, row.run_id)
            kids = children(nodes)
        plan = planning_call(row.step_id, nodes, kids)
        if plan is None:
            yield row
            continue
        messages, tools = _call(engine, plan)
        if messages is None:
            yield row
            continue
        yield replace(row, messages=[*messages, *tool_turn(plan, kids)], tools=tools)


def _run_steps(engine: Engine, run_id: int) -> dict[int, StepNode]:
    query = select(
        col(StepRow.id),
        col(StepRow.parent_id),
        col(StepRow.kind),
        col(StepRow.name),
        col(StepRow.tool_name),
        col(StepRow.tool_call_id),
        col(StepRow.arguments),
        col(StepRow.result),
        col(StepRow.error),
    ).where(col(StepRow.run_id) == run_id)
    with Session(engine) as session:
        return {r[0]: StepNode(*r) for r in session.execute(query)}


def _call(
    engine: Engine, step_id: int
) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]] | None]:
    """The messages an LLM call sent and the tools it offered."""
    with Session(engine) as session:
        row = session.execute(
            select(col(StepRow.messages), col(StepRow.tools)).where(col(StepRow.id) == step_id)
        ).one()
    return row[0], row[1]
