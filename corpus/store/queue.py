"""A durable job queue in a table: claim, heartbeat, finish, recover.

`claim`, `finish` and `recover` leave the commit to the caller, so that the status change and
what goes with it (the task's event, its run's end) land in one transaction.

Works for any table with `QueueFields` (tasks, eval runs). A claim is one `UPDATE ... WHERE id =
(SELECT ... FOR UPDATE SKIP LOCKED)` statement, so several workers, in one process or many, never
claim the same row: PostgreSQL skips rows another transaction holds, and SQLite runs the single
statement under its database write lock.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Table, case, func, select, update
from sqlmodel import Session

from corpus.store.models import EvalRunRow, JobStatus, TaskRow, utcnow

Job = TypeVar("Job", TaskRow, EvalRunRow)


def _table(model: type[TaskRow | EvalRunRow]) -> Table:
    table: Table = getattr(model, "__table__")  # noqa: B009 - SQLModel does not type it
    return table


def claim(session: Session, model: type[Job], worker: str, job_id: Any = None) -> Job | None:
    """Mark the oldest queued job (or `job_id`, if queued) as running for `worker`; None if none."""
    table = _table(model)
    c = table.c
    pick = (
        select(c.id)
        .where(c.status == JobStatus.QUEUED, c.cancel_requested.is_(False))
        .order_by(c.created_at, c.id)
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    if job_id is not None:
        pick = pick.where(c.id == job_id)
    now = utcnow()
    claimed = session.execute(
        update(table)
        .where(c.id == pick.scalar_subquery(), c.status == JobStatus.QUEUED)
        .values(
            status=JobStatus.RUNNING,
            claimed_by=worker,
            heartbeat_at=now,
            started_at=func.coalesce(c.started_at, now),
            attempts=c.attempts + 1,
        )
        .returning(c.id)
    ).scalar_one_or_none()
    return None if claimed is None else session.get(model, claimed)


def active(session: Session, model: type[Job], owner_key_id: int) -> int:
    """How many jobs of one API key are queued or running."""
    c = _table(model).c
    count = session.execute(
        select(func.count())
        .select_from(_table(model))
        .where(
            c.owner_key_id == owner_key_id,
            c.status.in_([JobStatus.QUEUED, JobStatus.RUNNING]),
        )
    ).scalar_one()
    return int(count)


class CancelOutcome(StrEnum):
    NOT_FOUND = "not_found"
    CANCELLED = "cancelled"
    """It was still queued: it is cancelled now."""
    REQUESTED = "requested"
    """It is running: its worker stops it within a heartbeat."""
    FINISHED = "finished"
    """It had already ended."""


def request_cancel(session: Session, model: type[Job], job_id: Any) -> CancelOutcome:
    """Cancel a queued job at once, or flag a running one for its worker's keeper (which acts
    on its next beat); the caller commits (with the task's status event, for a task)."""
    table = _table(model)
    c = table.c
    dequeued = session.execute(
        update(table)
        .where(c.id == job_id, c.status == JobStatus.QUEUED)
        .values(status=JobStatus.CANCELLED, reason=CANCELLED_ON_REQUEST, finished_at=utcnow())
    ).rowcount  # type: ignore[attr-defined]
    if dequeued:
        return CancelOutcome.CANCELLED
    flagged = session.execute(
        update(table)
        .where(c.id == job_id, c.status == JobStatus.RUNNING)
        .values(cancel_requested=True)
    ).rowcount  # type: ignore[attr-defined]
    return CancelOutcome.REQUESTED if flagged else CancelOutcome.FINISHED


@dataclass(frozen=True)
class Beat:
    """What a heartbeat learned about the jobs a worker holds."""

    held: set[Any]
    """Jobs still running under this worker (one missing was taken away by recovery)."""
    cancel: set[Any]
    """Held jobs whose cancellation was requested."""


def heartbeat(session: Session, model: type[Job], worker: str, jobs: Collection[Any]) -> Beat:
    """Renew the worker's lease on `jobs`, those of its running jobs it is working on; report
    which it still holds and which to cancel.

    Only named jobs are renewed: one the worker claimed but lost track of (it failed between
    the claim and the run) goes silent, and recovery takes it back.
    """
    table = _table(model)
    c = table.c
    mine = (c.claimed_by == worker, c.status == JobStatus.RUNNING, c.id.in_(list(jobs)))
    session.execute(update(table).where(*mine).values(heartbeat_at=utcnow()))
    rows = session.execute(select(c.id, c.cancel_requested).where(*mine)).all()
    session.commit()
    return Beat(held={r[0] for r in rows}, cancel={r[0] for r in rows if r[1]})


def finish(
    session: Session,
    model: type[Job],
    job_id: Any,
    worker: str,
    status: JobStatus,
    reason: str = "",
    **values: Any,
) -> bool:
    """End a running job held by `worker`; False when it no longer holds it (nothing written)."""
    table = _table(model)
    c = table.c
    done = session.execute(
        update(table)
        .where(c.id == job_id, c.claimed_by == worker, c.status == JobStatus.RUNNING)
        .values(status=status, reason=reason, finished_at=utcnow(), **values)
    ).rowcount  # type: ignore[attr-defined]
    return bool(done)


CANCELLED_ON_REQUEST = "cancelled on request"


def _unless_cancelled(c: Any, value: Any, cancelled: Any) -> ColumnElement[Any]:
    """`value`, or `cancelled` for a job whose cancellation was requested: such a job never
    goes back to the queue, where no worker would claim it and it would wait forever."""
    return case((c.cancel_requested.is_(True), cancelled), else_=value)


def release(
    session: Session, model: type[Job], job_id: Any, worker: str, reason: str
) -> JobStatus | None:
    """Put a running job held by `worker` back in the queue without spending an attempt (the
    server stops; the job is fine), or end it cancelled if that was requested meanwhile.

    The status it got; None when `worker` no longer holds it (nothing written).
    """
    c = _table(model).c
    now = utcnow()
    released = session.execute(
        update(_table(model))
        .where(c.id == job_id, c.claimed_by == worker, c.status == JobStatus.RUNNING)
        .values(
            status=_unless_cancelled(c, JobStatus.QUEUED, JobStatus.CANCELLED),
            reason=_unless_cancelled(c, reason, CANCELLED_ON_REQUEST),
            finished_at=_unless_cancelled(c, None, now),
            claimed_by=None,
            attempts=c.attempts - 1,
        )
        .returning(c.status)
    ).scalar_one_or_none()
    return None if released is None else JobStatus(released)


@dataclass(frozen=True)
class Recovered:
    """A job taken back from a worker that stopped."""

    job_id: Any
    worker: str
    status: JobStatus
    """QUEUED when it will run again, FAILED when it has used up its attempts, CANCELLED when
    its cancellation had been requested."""
    reason: str


def recover(
    session: Session,
    model: type[Job],
    *,
    lease_s: float,
    max_attempts: int,
) -> list[Recovered]:
    """Take back running jobs whose worker has been silent past the lease (it died, or lost the
    database): heartbeats are the only sign of life, since worker ids say nothing about hosts.

    Each comes back queued while it has attempts left, otherwise failed with the reason; one
    whose cancellation was requested ends cancelled. Queued jobs flagged for cancellation
    (left so by an older version) are cancelled too.
    """
    table = _table(model)
    c = table.c
    stale_before = utcnow() - timedelta(seconds=lease_s)
    rows = session.execute(
        select(c.id, c.claimed_by, c.heartbeat_at, c.attempts).where(c.status == JobStatus.RUNNING)
    ).all()
    recovered = []
    for row in rows:
        seen = Seen(*row)
        silent = seen.heartbeat_at is None or seen.heartbeat_at < stale_before
        if seen.owner is not None and not silent:
            continue
        item = take_back(session, model, seen, "stopped answering", max_attempts)
        if item is not None:
            recovered.append(item)
    now = utcnow()
    stuck = session.execute(
        update(table)
        .where(c.status == JobStatus.QUEUED, c.cancel_requested.is_(True))
        .values(status=JobStatus.CANCELLED, reason=CANCELLED_ON_REQUEST, finished_at=now)
        .returning(c.id)
    ).scalars()
    recovered += [Recovered(i, "-", JobStatus.CANCELLED, CANCELLED_ON_REQUEST) for i in stuck]
    return recovered


@dataclass(frozen=True)
class Seen:
    """A running job as recovery read it."""

    job_id: Any
    owner: str | None
    heartbeat_at: datetime | None
    attempts: int


def take_back(
    session: Session, model: type[Job], seen: Seen, why: str, max_attempts: int
) -> Recovered | None:
    """Take a running job from its worker, if it is still as `seen`; None if it is not.

    A compare-and-set on the owner and the heartbeat: a worker that beat since (it was merely
    slow) keeps its job, and two recovering processes do not both take the same one.
    """
    c = _table(model).c
    attempt = f"during attempt {seen.attempts} of {max_attempts}"
    if seen.attempts < max_attempts:
        planned, reason = JobStatus.QUEUED, f"worker {seen.owner} {why} {attempt}; re-queued"
    else:
        planned, reason = JobStatus.FAILED, f"worker {seen.owner} {why} {attempt}; giving up"
    same_beat = (
        c.heartbeat_at.is_(None)
        if seen.heartbeat_at is None
        else c.heartbeat_at == seen.heartbeat_at
    )
    same_owner = c.claimed_by.is_(None) if seen.owner is None else c.claimed_by == seen.owner
    finished = utcnow() if planned is JobStatus.FAILED else None
    taken = session.execute(
        update(_table(model))
        .where(c.id == seen.job_id, c.status == JobStatus.RUNNING, same_owner, same_beat)
        .values(
            status=_unless_cancelled(c, planned, JobStatus.CANCELLED),
            reason=_unless_cancelled(
                c, reason, f"{CANCELLED_ON_REQUEST}; worker {seen.owner} {why}"
            ),
            finished_at=_unless_cancelled(c, finished, utcnow()),
            claimed_by=None,
        )
        .returning(c.status, c.reason)
    ).one_or_none()
    if taken is None:
        return None
    return Recovered(seen.job_id, seen.owner or "?", JobStatus(taken[0]), taken[1])
