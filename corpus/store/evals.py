"""Eval runs: queued by the API (or created by the CLI), claimed and filled by the evals runner."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import Session, col, func, select

from corpus.store import queue
from corpus.store.models import (
    EvalResultCreate,
    EvalResultPublic,
    EvalResultRow,
    EvalRunCreate,
    EvalRunRow,
    JobStatus,
    utcnow,
)
from corpus.store.queue import CancelOutcome
from corpus.store.tasks import ANY_OWNER, AnyOwner, Owner, Page


def submit(
    session: Session,
    create: EvalRunCreate,
    owner_key_id: int | None = None,
    options: dict[str, Any] | None = None,
) -> EvalRunRow:
    run = EvalRunRow.model_validate(
        create.model_dump(mode="json") | {"owner_key_id": owner_key_id, "options": options or {}}
    )
    session.add(run)
    session.commit()
    session.refresh(run)
    return run


def get(session: Session, eval_id: int, owner: Owner = ANY_OWNER) -> EvalRunRow | None:
    run = session.get(EvalRunRow, eval_id)
    if run is None or isinstance(owner, AnyOwner) or run.owner_key_id == owner:
        return run
    return None


def page(
    session: Session,
    owner: Owner = ANY_OWNER,
    *,
    status: JobStatus | None = None,
    limit: int = 50,
    offset: int = 0,
) -> Page[EvalRunRow]:
    """The runs `owner` can see, newest first, a page of them."""
    query = select(EvalRunRow)
    if not isinstance(owner, AnyOwner):
        query = query.where(EvalRunRow.owner_key_id == owner)
    if status is not None:
        query = query.where(EvalRunRow.status == status)
    total = session.exec(select(func.count()).select_from(query.subquery())).one()
    items = session.exec(query.order_by(col(EvalRunRow.id).desc()).offset(offset).limit(limit))
    return Page(items=list(items.all()), total=int(total))


def request_cancel(session: Session, eval_id: int, owner: Owner = ANY_OWNER) -> CancelOutcome:
    """Cancel the run now if it is queued, else ask the eval worker running it to stop (the
    samples it verified stay; `parforge eval run --resume` continues it)."""
    if get(session, eval_id, owner) is None:
        return CancelOutcome.NOT_FOUND
    outcome = queue.request_cancel(session, EvalRunRow, eval_id)
    session.commit()
    return outcome


def list_runs(session: Session, limit: int = 50) -> list[EvalRunRow]:
    """The newest runs first."""
    return list(
        session.exec(select(EvalRunRow).order_by(col(EvalRunRow.id).desc()).limit(limit)).all()
    )


def save_results(
    session: Session,
    eval_id: int,
    results: list[EvalResultCreate],
    progress: dict[str, Any] | None = None,
) -> None:
    """Insert or replace the rows of some samples (a generated sample is replaced once
    verified) and update the run's progress, all in one transaction."""
    # The run's row is locked first (before the inserts take their foreign-key locks on it),
    # so that concurrent writers queue up instead of deadlocking, and the count cannot go back.
    run = session.get(EvalRunRow, eval_id, with_for_update=True) if progress is not None else None
    for result in results:
        row = session.exec(
            select(EvalResultRow).where(
                EvalResultRow.eval_run_id == eval_id,
                EvalResultRow.problem == result.problem,
                EvalResultRow.sample_index == result.sample_index,
            )
        ).first()
        if row is None:
            session.add(
                EvalResultRow.model_validate(result.model_dump() | {"eval_run_id": eval_id})
            )
        else:
            for name, value in result.model_dump().items():
                setattr(row, name, value)
            session.add(row)
    if progress is not None and run is not None and _count(progress) >= _count(run.progress):
        run.progress = progress
        session.add(run)
    session.commit()


def _count(progress: dict[str, Any] | None) -> tuple[int, int]:
    progress = progress or {}
    return int(progress.get("finished", 0)), int(progress.get("generated", 0))


def set_progress(session: Session, eval_id: int, progress: dict[str, Any]) -> None:
    run = session.get(EvalRunRow, eval_id)
    if run is not None:
        run.progress = progress
        session.add(run)
        session.commit()


def set_model(session: Session, eval_id: int, model: str) -> None:
    """Record which model a run that named none turned out to use."""
    run = session.get(EvalRunRow, eval_id)
    if run is not None:
        run.model = model
        session.add(run)
        session.commit()


def rows(session: Session, eval_id: int) -> list[EvalResultRow]:
    """Every stored sample of a run, table rows (for the runner and reports)."""
    return list(
        session.exec(
            select(EvalResultRow)
            .where(EvalResultRow.eval_run_id == eval_id)
            .order_by(col(EvalResultRow.problem), col(EvalResultRow.sample_index))
        ).all()
    )


def results(
    session: Session, eval_id: int, *, limit: int | None = None, offset: int = 0
) -> list[EvalResultPublic]:
    """A page of a run's results, in the order of `rows`."""
    query = (
        select(EvalResultRow)
        .where(EvalResultRow.eval_run_id == eval_id)
        .order_by(col(EvalResultRow.problem), col(EvalResultRow.sample_index))
        .offset(offset)
        .limit(limit)
    )
    return [EvalResultPublic.model_validate(r) for r in session.exec(query).all()]


def count_results(session: Session, eval_id: int) -> int:
    query = select(func.count()).where(EvalResultRow.eval_run_id == eval_id)
    return int(session.exec(query).one())


def reopen(session: Session, eval_id: int, lease_s: float) -> EvalRunRow | None:
    """Put a stopped run back in the queue so that its missing samples get done; None if there
    is no such run. A run whose worker beat within `lease_s` comes back unchanged (still
    `running`); one whose worker has gone silent is taken over."""
    run = session.get(EvalRunRow, eval_id)
    if run is None or run.status == JobStatus.QUEUED:
        return run
    fresh = run.heartbeat_at is not None and run.heartbeat_at > utcnow() - timedelta(
        seconds=lease_s
    )
    if run.status == JobStatus.RUNNING and run.claimed_by and fresh:
        return run
    run.status = JobStatus.QUEUED
    run.reason = "resumed"
    run.claimed_by = None
    run.finished_at = None
    run.cancel_requested = False
    session.add(run)
    session.commit()
    session.refresh(run)
    return run


def claim(session: Session, worker: str, eval_id: int | None = None) -> EvalRunRow | None:
    """Claim the oldest queued run (or `eval_id`, if queued) for `worker`."""
    run = queue.claim(session, EvalRunRow, worker, eval_id)
    session.commit()
    if run is not None:
        session.refresh(run)
    return run


def finish(
    session: Session,
    eval_id: int,
    worker: str,
    status: JobStatus,
    reason: str,
    summary: dict[str, Any] | None = None,
) -> bool:
    """End a run `worker` holds; False when it no longer holds it (nothing written)."""
    values = {} if summary is None else {"summary": summary}
    ended = queue.finish(session, EvalRunRow, eval_id, worker, status, reason, **values)
    session.commit()
    return ended


def release(session: Session, eval_id: int, worker: str, why: str) -> JobStatus | None:
    """Back to the queue without spending an attempt (the server stops; the run is fine), or
    cancelled if that was requested; None if `worker` no longer held it."""
    status = queue.release(session, EvalRunRow, eval_id, worker, f"{why}; re-queued")
    session.commit()
    return status


def recover(session: Session, *, lease_s: float, max_attempts: int) -> list[queue.Recovered]:
    """Take back runs of silent workers (see `queue.recover`)."""
    recovered = queue.recover(session, EvalRunRow, lease_s=lease_s, max_attempts=max_attempts)
    session.commit()
    return recovered
