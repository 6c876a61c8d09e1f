"""Tasks: submit, look up, list, cancel, and their event log.

Every function takes a `Session` and commits its own unit of work. `owner` scopes a lookup to one
API key's tasks; `ANY_OWNER` (the CLI, the workers) sees them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from sqlalchemy import func, update
from sqlmodel import Session, col, select

from corpus.store import queue
from corpus.store.models import (
    CandidatePublic,
    CandidateRow,
    CandidateWithVerdict,
    EventKind,
    JobStatus,
    ParallelTarget,
    RunPublic,
    RunRow,
    StepPublic,
    StepRow,
    TaskCreate,
    TaskEventRow,
    TaskRow,
    VerdictPublic,
    VerdictRow,
    utcnow,
)
from corpus.store.queue import CancelOutcome


class AnyOwner:
    def __repr__(self) -> str:
        return "ANY_OWNER"


ANY_OWNER: Final = AnyOwner()
Owner = int | None | AnyOwner
"""An API key id, None for tasks submitted without a key, or `ANY_OWNER`."""


def _owned(statement: Any, owner: Owner) -> Any:
    if isinstance(owner, AnyOwner):
        return statement
    if owner is None:
        return statement.where(col(TaskRow.owner_key_id).is_(None))
    return statement.where(TaskRow.owner_key_id == owner)


def add_event(
    session: Session,
    task_id: str,
    kind: EventKind,
    ref_id: int | None = None,
    data: dict[str, Any] | None = None,
) -> None:
    """Append to the task's log (in the caller's transaction)."""
    session.add(TaskEventRow(task_id=task_id, kind=kind, ref_id=ref_id, data=data or {}))


def status_event(session: Session, task_id: str, status: JobStatus, reason: str = "") -> None:
    add_event(session, task_id, EventKind.STATUS, data={"status": status, "reason": reason})


def submit(session: Session, create: TaskCreate, owner_key_id: int | None = None) -> TaskRow:
    """Queue a new task."""
    task = TaskRow.model_validate(create.model_dump(mode="json") | {"owner_key_id": owner_key_id})
    session.add(task)
    session.flush()
    status_event(session, task.id, JobStatus.QUEUED)
    session.commit()
    session.refresh(task)
    return task


def get(session: Session, task_id: str, owner: Owner = ANY_OWNER) -> TaskRow | None:
    return session.exec(_owned(select(TaskRow).where(TaskRow.id == task_id), owner)).first()


def matching_ids(
    session: Session, prefix: str, owner: Owner = ANY_OWNER, limit: int = 2
) -> list[str]:
    """The ids of `owner`'s tasks that start with `prefix` (at most `limit`): what a shortened
    id, as `tasks list` shows them, can stand for."""
    query = _owned(
        select(TaskRow.id).where(col(TaskRow.id).startswith(prefix, autoescape=True)), owner
    )
    return list(session.exec(query.order_by(col(TaskRow.id)).limit(limit)).all())


Row = TypeVar("Row")


@dataclass(frozen=True)
class Page(Generic[Row]):
    """A page of rows and how many there are in all."""

    items: list[Row]
    total: int


def list_tasks(
    session: Session,
    owner: Owner = ANY_OWNER,
    *,
    status: JobStatus | None = None,
    target: ParallelTarget | None = None,
    limit: int = 50,
    offset: int = 0,
) -> Page[TaskRow]:
    """Newest first."""
    query = _owned(select(TaskRow), owner)
    if status is not None:
        query = query.where(TaskRow.status == status)
    if target is not None:
        query = query.where(TaskRow.target == target)
    total = session.exec(select(func.count()).select_from(query.subquery())).one()
    items = session.exec(
        query.order_by(col(TaskRow.created_at).desc(), col(TaskRow.id)).offset(offset).limit(limit)
    ).all()
    return Page(items=list(items), total=int(total))


def request_cancel(session: Session, task_id: str, owner: Owner = ANY_OWNER) -> CancelOutcome:
    """Cancel the task now if it is queued (with its status event), else ask its worker to."""
    task = get(session, task_id, owner)
    if task is None:
        return CancelOutcome.NOT_FOUND
    outcome = queue.request_cancel(session, TaskRow, task_id)
    if outcome is CancelOutcome.CANCELLED:
        status_event(session, task_id, JobStatus.CANCELLED, queue.CANCELLED_ON_REQUEST)
    session.commit()
    return outcome


def claim(session: Session, worker: str, task_id: str | None = None) -> TaskRow | None:
    """Claim the oldest queued task (or `task_id`) for `worker`, logging its new status."""
    task = queue.claim(session, TaskRow, worker, task_id)
    if task is not None:
        status_event(session, task.id, JobStatus.RUNNING)
        session.commit()
        session.refresh(task)
    else:
        session.commit()
    return task


def start_run(session: Session, task: TaskRow, runner: str, worker: str) -> RunRow:
    run = RunRow(
        task_id=task.id,
        attempt=task.attempts,
        runner=runner,
        worker=worker,
        budgets=dict(task.budgets),
    )
    session.add(run)
    session.flush()
    assert run.id is not None
    add_event(session, task.id, EventKind.RUN, run.id, {"attempt": run.attempt})
    session.commit()
    return run


def finish(
    session: Session,
    task_id: str,
    run_id: int | None,
    worker: str,
    status: JobStatus,
    reason: str = "",
    best_candidate_id: int | None = None,
) -> bool:
    """End a task and its run (None: no run was started); the best candidate defaults to the
    fastest passing one."""
    best = _best(session, task_id, best_candidate_id)
    ended = queue.finish(
        session,
        TaskRow,
        task_id,
        worker,
        status,
        reason,
        best_candidate_id=best[0] if best else None,
        best_speedup=best[1] if best else None,
    )
    if run_id is not None:
        _end_run(session, run_id, status, reason)
    if ended:
        status_event(session, task_id, status, reason)
    session.commit()
    return ended


def _best(session: Session, task_id: str, chosen: int | None) -> tuple[int, float] | None:
    query = select(VerdictRow.candidate_id, VerdictRow.best_speedup).where(
        VerdictRow.task_id == task_id
    )
    if chosen is not None:
        query = query.where(VerdictRow.candidate_id == chosen)
    else:
        query = query.where(col(VerdictRow.passed))
    row = session.exec(
        query.order_by(col(VerdictRow.best_speedup).desc(), col(VerdictRow.id).desc())
    ).first()
    if row is None:
        return (chosen, 0.0) if chosen is not None else None
    return (row[0], row[1])


def _end_run(session: Session, run_id: int, status: JobStatus, reason: str) -> None:
    session.execute(
        update(RunRow)
        .where(col(RunRow.id) == run_id, col(RunRow.status) == JobStatus.RUNNING)
        .values(status=status, reason=reason, finished_at=utcnow())
        .execution_options(synchronize_session=False)
    )


def recover(session: Session, *, lease_s: float, max_attempts: int) -> list[queue.Recovered]:
    """Take back tasks of dead workers (see `queue.recover`) and close their open runs."""
    recovered = queue.recover(session, TaskRow, lease_s=lease_s, max_attempts=max_attempts)
    for item in recovered:
        open_runs = session.exec(
            select(RunRow.id).where(
                RunRow.task_id == item.job_id, RunRow.status == JobStatus.RUNNING
            )
        ).all()
        for run_id in open_runs:
            assert run_id is not None
            _end_run(session, run_id, JobStatus.FAILED, f"worker {item.worker} stopped")
        status_event(session, item.job_id, item.status, item.reason)
    session.commit()
    return recovered


def candidates(
    session: Session, task_id: str, *, limit: int | None = None, offset: int = 0
) -> list[CandidateWithVerdict]:
    """The task's candidates in creation order (a page of them), each with its latest verdict."""
    rows = session.exec(
        select(CandidateRow)
        .where(CandidateRow.task_id == task_id)
        .order_by(col(CandidateRow.id))
        .offset(offset)
        .limit(limit)
    ).all()
    ids = [c.id for c in rows]
    verdicts: dict[int, VerdictRow] = {}
    for verdict in session.exec(
        select(VerdictRow).where(col(VerdictRow.candidate_id).in_(ids)).order_by(col(VerdictRow.id))
    ):
        verdicts[verdict.candidate_id] = verdict
    return [
        CandidateWithVerdict.model_validate(
            CandidatePublic.model_validate(c).model_dump()
            | {"verdict": _public(VerdictPublic, verdicts.get(c.id or -1))}
        )
        for c in rows
    ]


def count_candidates(session: Session, task_id: str) -> int:
    query = select(func.count()).where(CandidateRow.task_id == task_id)
    return int(session.exec(query).one())


def runs(
    session: Session, task_id: str, *, limit: int | None = None, offset: int = 0
) -> list[RunPublic]:
    """The task's runs (one per attempt) in order, or a page of them."""
    rows = session.exec(
        select(RunRow)
        .where(RunRow.task_id == task_id)
        .order_by(col(RunRow.id))
        .offset(offset)
        .limit(limit)
    ).all()
    return [RunPublic.model_validate(r) for r in rows]


def count_runs(session: Session, task_id: str) -> int:
    query = select(func.count()).where(RunRow.task_id == task_id)
    return int(session.exec(query).one())


def _public(model: Any, row: Any) -> Any:
    return None if row is None else model.model_validate(row)


_REFS: dict[EventKind, tuple[Any, Any]] = {
    EventKind.STEP: (StepRow, StepPublic),
    EventKind.CANDIDATE: (CandidateRow, CandidatePublic),
    EventKind.VERDICT: (VerdictRow, VerdictPublic),
    EventKind.RUN: (RunRow, RunPublic),
}


def events_after(
    session: Session, task_id: str, after: int = 0, limit: int = 100
) -> list[tuple[int, EventKind, dict[str, Any]]]:
    """The task's events with id > `after`, oldest first, each with the object it refers to."""
    events = session.exec(
        select(TaskEventRow)
        .where(TaskEventRow.task_id == task_id, col(TaskEventRow.id) > after)
        .order_by(col(TaskEventRow.id))
        .limit(limit)
    ).all()
    out = []
    for event in events:
        assert event.id is not None
        payload: dict[str, Any] = dict(event.data)
        if event.kind in _REFS and event.ref_id is not None:
            table, public = _REFS[EventKind(event.kind)]
            row = session.get(table, event.ref_id)
            if row is not None:
                payload = public.model_validate(row).model_dump(mode="json")
        out.append((event.id, EventKind(event.kind), payload))
    return out


def release(
    session: Session, task_id: str, run_id: int | None, worker: str, why: str
) -> JobStatus | None:
    """Put a task this worker holds back in the queue (shutdown), returning its attempt, and end
    its run (`None`: it was claimed but no run began); one whose cancellation was requested ends
    cancelled instead. The status it got, None if this worker no longer held it."""
    status = queue.release(session, TaskRow, task_id, worker, f"{why}; re-queued")
    if run_id is not None:
        _end_run(session, run_id, JobStatus.CANCELLED, why)
    if status is not None:
        task = session.get(TaskRow, task_id, populate_existing=True)
        assert task is not None
        status_event(session, task_id, status, task.reason)
    session.commit()
    return status


def steps_of(session: Session, task_id: str) -> list[StepRow]:
    """Every step of every run of a task, in the order they were stored."""
    return list(
        session.exec(
            select(StepRow)
            .where(StepRow.task_id == task_id)
            .order_by(col(StepRow.run_id), col(StepRow.seq))
        ).all()
    )
