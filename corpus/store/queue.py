"""A durable job queue in a table: claim, heartbeat, finish, recover.

`claim`, `finish` and `recover` leave the commit to the caller, so that the status change and
what goes with it (the task's event, its run's end) land in one transaction.

Works for any table with `QueueFields` (tasks, eval runs). A claim is one `UPDATE ... WHERE id =
(SELECT ... FOR UPDATE SKIP LOCKED)` statement, so several workers, in one process or many, never
claim the same row: PostgreSQL skips rows another transaction holds, and SQLite runs the single
statement under its database write lock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

from sqlalchemy import Table, func, select, update
from sqlmodel import Session

from corpus.store.models import EvalRun, JobStatus, Task, utcnow

Job = TypeVar("Job", Task, EvalRun)


def _table(model: type[Task | EvalRun]) -> Table:
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


@dataclass(frozen=True)
class Beat:
    """What a heartbeat learned about the jobs a worker holds."""

    held: set[Any]
    """Jobs still running under this worker (one missing was taken away by recovery)."""
    cancel: set[Any]
    """Held jobs whose cancellation was requested."""


def heartbeat(session: Session, model: type[Job], worker: str) -> Beat:
    """Renew the worker's lease on its running jobs; report which it holds and which to cancel."""
    table = _table(model)
    c = table.c
    mine = (c.claimed_by == worker, c.status == JobStatus.RUNNING)
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


def release(session: Session, model: type[Job], job_id: Any, worker: str, reason: str) -> bool:
    """Put a running job held by `worker` back in the queue without spending an attempt (the
    server stops; the job is fine). False when it no longer holds it (nothing written)."""
    c = _table(model).c
    released = session.execute(
        update(_table(model))
        .where(c.id == job_id, c.claimed_by == worker, c.status == JobStatus.RUNNING)
        .values(status=JobStatus.QUEUED, reason=reason, claimed_by=None, attempts=c.attempts - 1)
    ).rowcount  # type: ignore[attr-defined]
    return bool(released)


@dataclass(frozen=True)
class Recovered:
    """A job taken back from a worker that stopped."""

    job_id: Any
    worker: str
    status: JobStatus
    """QUEUED when it will run again, FAILED when it has used up its attempts."""
    reason: str


def recover(
    session: Session,
    model: type[Job],
    *,
    lease_s: float,
    max_attempts: int,
    alive: Callable[[str], bool],
) -> list[Recovered]:
    """Take back running jobs whose worker is dead (`alive` says no) or silent past the lease.

    Each comes back queued while it has attempts left, otherwise failed with the reason. The
    update is conditional on the old owner, so a worker that was merely slow keeps nothing it
    lost and two recovering processes do not both take the same job.
    """
    table = _table(model)
    c = table.c
    stale_before = utcnow() - timedelta(seconds=lease_s)
    rows = session.execute(
        select(c.id, c.claimed_by, c.heartbeat_at, c.attempts).where(c.status == JobStatus.RUNNING)
    ).all()
    recovered = []
    for job_id, owner, beat, attempts in rows:
        silent = beat is None or beat < stale_before
        if owner is not None and not silent and alive(owner):
            continue
        why = "stopped answering" if silent else "died"
        if attempts < max_attempts:
            status = JobStatus.QUEUED
            reason = f"worker {owner} {why} during attempt {attempts} of {max_attempts}; re-queued"
        else:
            status = JobStatus.FAILED
            reason = f"worker {owner} {why} during attempt {attempts} of {max_attempts}; giving up"
        taken = session.execute(
            update(table)
            .where(c.id == job_id, c.claimed_by == owner, c.status == JobStatus.RUNNING)
            .values(
                status=status,
                reason=reason,
                claimed_by=None,
                finished_at=utcnow() if status is JobStatus.FAILED else None,
            )
        ).rowcount  # type: ignore[attr-defined]
        if taken:
            recovered.append(Recovered(job_id, owner or "?", status, reason))
    return recovered
