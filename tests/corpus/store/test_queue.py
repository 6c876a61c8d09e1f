"""The queue's recovery and release on a real database (SQLite file and PostgreSQL): a
cancellation is never lost on the way back to the queue, and recovery takes a job only if the
heartbeat it saw is still the latest."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update
from sqlmodel import Session, col

from corpus.store import evals, queue, tasks
from corpus.store.models import EvalRunCreate, JobStatus, TaskCreate, TaskRow

ALL_DEAD = {"lease_s": 0, "max_attempts": 2}
"""A lease of 0: every worker counts as silent."""


def _running(engine, worker="w1") -> tuple[str, int]:
    with Session(engine) as s:
        task_id = tasks.submit(s, TaskCreate(target="openmp", source="int main() {}")).id
        task = tasks.claim(s, worker, task_id)
        assert task is not None
        run = tasks.start_run(s, task, "scripted", worker)
        assert run.id is not None
        return task_id, run.id


def _status_events(s: Session, task_id: str) -> list[object]:
    return [p["status"] for _, k, p in tasks.events_after(s, task_id) if k == "status"]


def test_a_task_cancelled_while_running_ends_cancelled_when_its_worker_dies(engine):
    task_id, _ = _running(engine)
    with Session(engine) as s:
        assert tasks.request_cancel(s, task_id) is tasks.CancelOutcome.REQUESTED
        [item] = tasks.recover(s, **ALL_DEAD)
        assert item.status is JobStatus.CANCELLED
        task = tasks.get(s, task_id)
        assert task is not None and task.status == JobStatus.CANCELLED
        assert task.reason.startswith("cancelled on request") and task.finished_at is not None
        assert tasks.claim(s, "w2") is None
        assert _status_events(s, task_id)[-1] == "cancelled"
        assert [r.status for r in tasks.runs(s, task_id)] == [JobStatus.FAILED]


def test_a_task_cancelled_while_running_ends_cancelled_when_the_server_stops(engine):
    task_id, run_id = _running(engine)
    with Session(engine) as s:
        tasks.request_cancel(s, task_id)
        assert tasks.release(s, task_id, run_id, "w1", "server stopped") is JobStatus.CANCELLED
        task = tasks.get(s, task_id)
        assert task is not None and task.status == JobStatus.CANCELLED
        assert task.reason == "cancelled on request" and task.attempts == 0
        assert _status_events(s, task_id)[-1] == "cancelled"
        # Without a cancellation, a release re-queues.
    other, other_run = _running(engine)
    with Session(engine) as s:
        assert tasks.release(s, other, other_run, "w1", "server stopped") is JobStatus.QUEUED
        assert tasks.release(s, other, other_run, "w1", "again") is None  # no longer held


def test_an_eval_cancelled_while_running_ends_cancelled_when_released(engine):
    with Session(engine) as s:
        run = evals.submit(s, EvalRunCreate(suite="pareval", target="openmp"))
        assert run.id is not None
        assert evals.claim(s, "w1", run.id) is not None
        s.execute(update(queue._table(type(run))).values(cancel_requested=True))
        s.commit()
        assert evals.release(s, run.id, "w1", "server stopped") is JobStatus.CANCELLED


def test_a_queued_task_flagged_for_cancellation_is_cancelled_by_recovery(engine):
    with Session(engine) as s:
        task_id = tasks.submit(s, TaskCreate(target="openmp", source="int main() {}")).id
        # What an older version left behind: queued, flagged, never to be claimed.
        s.execute(update(TaskRow).where(col(TaskRow.id) == task_id).values(cancel_requested=True))
        s.commit()
        [item] = tasks.recover(s, **ALL_DEAD)
        assert (item.job_id, item.status) == (task_id, JobStatus.CANCELLED)
        task = tasks.get(s, task_id)
        assert task is not None and task.status == JobStatus.CANCELLED


def test_recovery_takes_a_job_only_if_the_heartbeat_it_saw_is_still_the_latest(engine):
    task_id, _ = _running(engine)
    c = TaskRow.__table__.c  # type: ignore[attr-defined]
    with Session(engine) as s:
        old = s.execute(
            select(c.id, c.claimed_by, c.heartbeat_at, c.attempts).where(c.id == task_id)
        ).one()
        seen = queue.Seen(*old)
        # The worker beats between recovery's read and its write: it keeps its job.
        s.execute(
            update(TaskRow)
            .where(col(TaskRow.id) == task_id)
            .values(heartbeat_at=seen.heartbeat_at + timedelta(seconds=1))
        )
        s.commit()
        assert queue.take_back(s, TaskRow, seen, "stopped answering", 2) is None
        s.commit()
        task = tasks.get(s, task_id)
        assert task is not None and task.status == JobStatus.RUNNING and task.claimed_by == "w1"
        fresh = queue.Seen(
            *s.execute(
                select(c.id, c.claimed_by, c.heartbeat_at, c.attempts).where(c.id == task_id)
            ).one()
        )
        item = queue.take_back(s, TaskRow, fresh, "stopped answering", 2)
        assert item is not None and item.status is JobStatus.QUEUED
