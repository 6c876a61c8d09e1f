"""Task operations and the queue on a real database (SQLite file and PostgreSQL)."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

from corpus.store import tasks
from corpus.store.models import CandidateRow, JobStatus, RunRow, TaskCreate, TaskRow, VerdictRow
from corpus.store.models.common import NUL_STAND_IN
from corpus.store.queue import heartbeat


def _submit(engine, owner=None, **kw) -> str:
    with Session(engine) as s:
        create = TaskCreate(target="openmp", source="int main() { return 0; }", **kw)
        return tasks.submit(s, create, owner).id


def test_submit_get_list_scoped_by_owner(engine):
    from corpus.store import keys

    with Session(engine) as s:
        k1, k2 = keys.create(s, "one").id, keys.create(s, "two").id
    a = _submit(engine, k1, name="a")
    _submit(engine, k2, name="b")
    local = _submit(engine, None, name="local")
    with Session(engine) as s:
        assert tasks.get(s, a, k1) is not None
        assert tasks.get(s, a, k2) is None
        assert tasks.get(s, a, None) is None
        assert tasks.get(s, local, None) is not None
        page = tasks.list_tasks(s, k1)
        assert page.total == 1 and page.items[0].name == "a"
        assert tasks.list_tasks(s).total == 3
        assert tasks.list_tasks(s, status=JobStatus.RUNNING).total == 0
        assert tasks.list_tasks(s, limit=2).items.__len__() == 2


def test_claim_is_oldest_first_and_exclusive(engine):
    ids = [_submit(engine) for _ in range(20)]
    claimed: list[str] = []
    lock = threading.Lock()

    def worker(name: str) -> None:
        while True:
            with Session(engine) as s:
                task = tasks.claim(s, name)
            if task is None:
                return
            with lock:
                claimed.append(task.id)

    threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(claimed) == sorted(ids)  # each exactly once
    assert len(set(claimed)) == len(ids)
    with Session(engine) as s:
        rows = s.exec(select(TaskRow)).all()
        assert all(t.status == JobStatus.RUNNING and t.attempts == 1 for t in rows)


def test_cancel_queued_and_running(engine):
    queued, running, done = _submit(engine), _submit(engine), _submit(engine)
    with Session(engine) as s:
        # Claim in order: `queued` is the oldest, so claim `running` and `done` by id.
        t = tasks.claim(s, "w", running)
        assert t is not None
        t2 = tasks.claim(s, "w", done)
        assert t2 is not None
        run = tasks.start_run(s, t2, "scripted", "w")
        assert tasks.finish(s, done, run.id, "w", JobStatus.SUCCEEDED)
        assert tasks.request_cancel(s, queued) == tasks.CancelOutcome.CANCELLED
        assert tasks.request_cancel(s, running) == tasks.CancelOutcome.REQUESTED
        assert tasks.request_cancel(s, done) == tasks.CancelOutcome.FINISHED
        assert tasks.request_cancel(s, "nope") == tasks.CancelOutcome.NOT_FOUND
        assert heartbeat(s, TaskRow, "w", [running]).cancel == {running}
        assert heartbeat(s, TaskRow, "w", []).held == set()  # only named jobs are renewed
        # A cancelled task is never claimed.
        assert tasks.claim(s, "w2") is None


def _silence(s: Session, task: TaskRow) -> None:
    """Make the task's worker look silent for two minutes."""
    assert task.heartbeat_at is not None
    s.execute(
        update(TaskRow)
        .where(col(TaskRow.id) == task.id)
        .values(heartbeat_at=task.heartbeat_at - timedelta(seconds=120))
    )
    s.commit()


def test_recover_requeues_then_fails_with_reason(engine):
    task_id = _submit(engine)
    with Session(engine) as s:
        task = tasks.claim(s, "worker-dead")
        assert task is not None
        tasks.start_run(s, task, "scripted", "worker-dead")
        # A fresh heartbeat: left alone, whoever the worker is.
        assert tasks.recover(s, lease_s=60, max_attempts=2) == []
        # Silent past its lease: back to the queue, attempt 1 of 2.
        _silence(s, task)
        [item] = tasks.recover(s, lease_s=60, max_attempts=2)
        assert item.status == JobStatus.QUEUED
        assert (
            item.reason == "worker worker-dead stopped answering during attempt 1 of 2; re-queued"
        )
        again = tasks.claim(s, "worker-other")
        assert again is not None and again.attempts == 2
        # Silent again: attempts used up.
        _silence(s, again)
        [item] = tasks.recover(s, lease_s=60, max_attempts=2)
        assert item.status == JobStatus.FAILED
        s.expire_all()
        task = tasks.get(s, task_id)
        assert task is not None and task.status == JobStatus.FAILED
        assert "stopped answering during attempt 2 of 2; giving up" in task.reason
        assert all(r.status == JobStatus.FAILED for r in tasks.runs(s, task_id))
        kinds = [(k, p.get("status")) for _, k, p in tasks.events_after(s, task_id)]
        assert kinds[0] == ("status", "queued")
        assert kinds[-1] == ("status", "failed")


def test_nul_in_generated_content_is_stored_as_a_stand_in(engine):
    """A candidate that prints NUL (or a model that writes one) is data, on PostgreSQL too."""
    task_id = _submit(engine)
    with Session(engine) as s:
        run = RunRow(task_id=task_id, attempt=1, runner="test", worker="w")
        s.add(run)
        s.flush()
        assert run.id is not None
        cand = CandidateRow(task_id=task_id, run_id=run.id, target="openmp", source="int\x00 x;")
        s.add(cand)
        s.flush()
        assert cand.id is not None
        stdout = {"steps": [{"stdout": "a\x00b", "k\x00": ["\x00"]}]}
        s.add(
            VerdictRow(
                candidate_id=cand.id,
                task_id=task_id,
                run_id=run.id,
                target="openmp",
                status="wrong_answer",
                passed=False,
                reason="got \x00",
                data=stdout,
            )
        )
        s.commit()
    with Session(engine) as s:
        stored = s.exec(select(VerdictRow).where(VerdictRow.task_id == task_id)).one()
        assert stored.reason == f"got {NUL_STAND_IN}"
        assert stored.data == {
            "steps": [{"stdout": f"a{NUL_STAND_IN}b", f"k{NUL_STAND_IN}": [NUL_STAND_IN]}]
        }
        source = s.exec(select(CandidateRow.source).where(CandidateRow.task_id == task_id)).one()
        assert source == f"int{NUL_STAND_IN} x;"
