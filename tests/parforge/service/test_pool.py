"""The worker pool over a real store, with the scripted runner of `tests/fakes/runners.py`."""

from __future__ import annotations

import asyncio
from threading import Event

import pytest
from sqlmodel import Session, col, select

from corpus.runner import RunOutcome
from corpus.store import Notifier, tasks
from corpus.store.models import CandidateRow, JobStatus, StepRow, VerdictRow
from parforge.service.pool import WorkerPool
from parforge.settings import ServiceConfig
from tests.fakes.pool import TWO_WORKERS, submit_tasks, until, wait_status
from tests.fakes.runners import ScriptedRunner


async def _wait_steps(engine, task_id):
    await until(engine, lambda s: s.exec(select(StepRow).where(StepRow.task_id == task_id)).first())


async def test_pool_runs_tasks_and_stores_every_step(engine):
    ids = submit_tasks(engine, 5)
    runner = ScriptedRunner(samples=3)
    pool = WorkerPool(engine, runner, TWO_WORKERS)
    await pool.start()
    try:
        for task_id in ids:
            task = await wait_status(engine, task_id, {JobStatus.SUCCEEDED})
            assert task.reason == "1 of 3 passed"
            assert task.best_speedup == 2.5
    finally:
        await pool.stop()
    with Session(engine) as s:
        for task_id in ids:
            steps = s.exec(
                select(StepRow).where(StepRow.task_id == task_id).order_by(col(StepRow.id))
            ).all()
            assert [st.seq for st in steps] == list(range(1, 7))
            assert [st.kind for st in steps] == ["llm_call", "tool_call"] * 3
            assert steps[1].parent_id == steps[0].id
            cands = s.exec(
                select(CandidateRow)
                .where(CandidateRow.task_id == task_id)
                .order_by(col(CandidateRow.id))
            ).all()
            verdicts = s.exec(
                select(VerdictRow).where(VerdictRow.task_id == task_id).order_by(col(VerdictRow.id))
            ).all()
            assert len(cands) == 3 and [v.passed for v in verdicts] == [True, False, False]
            task = tasks.get(s, task_id)
            assert task is not None and task.best_candidate_id == cands[0].id
            [run] = tasks.runs(s, task_id)
            assert run.model == "scripted-model" and run.status == JobStatus.SUCCEEDED
            kinds = [k for _, k, _ in tasks.events_after(s, task_id)]
            assert kinds[:3] == ["status", "status", "run"]  # queued, running, run started
            assert kinds[-1] == "status"


async def test_runner_error_fails_the_task_with_reason_and_keeps_steps(engine):
    [task_id] = submit_tasks(engine)
    pool = WorkerPool(engine, ScriptedRunner(samples=3, fail="model server went away"), TWO_WORKERS)
    await pool.start()
    try:
        task = await wait_status(engine, task_id, {JobStatus.FAILED})
    finally:
        await pool.stop()
    assert task.reason == "runner error: RuntimeError: model server went away"
    with Session(engine) as s:
        assert len(s.exec(select(StepRow).where(StepRow.task_id == task_id)).all()) == 2


async def test_cancel_running_task(engine):
    [task_id] = submit_tasks(engine)
    notifier = Notifier()
    pool = WorkerPool(engine, ScriptedRunner(samples=50, delay_s=0.05), TWO_WORKERS, notifier)
    await pool.start()
    try:
        await wait_status(engine, task_id, {JobStatus.RUNNING})
        await asyncio.sleep(0.2)
        with Session(engine) as s:
            assert tasks.request_cancel(s, task_id) == tasks.CancelOutcome.REQUESTED
        task = await wait_status(engine, task_id, {JobStatus.CANCELLED}, limit_s=5)
    finally:
        await pool.stop()
    assert task.reason == "cancelled on request"
    with Session(engine) as s:
        steps = s.exec(select(StepRow).where(StepRow.task_id == task_id)).all()
        assert 0 < len(steps) < 100
        [run] = tasks.runs(s, task_id)
        assert run.status == JobStatus.CANCELLED


async def test_stop_requeues_and_next_pool_resumes(engine):
    [task_id] = submit_tasks(engine)
    first = WorkerPool(engine, ScriptedRunner(samples=40, delay_s=0.02), TWO_WORKERS)
    await first.start()
    await wait_status(engine, task_id, {JobStatus.RUNNING})
    await _wait_steps(engine, task_id)  # mid-run, some steps stored (not a fixed 0.1 s: a
    # loaded host may store none in that time)
    await first.stop()
    with Session(engine) as s:
        task = tasks.get(s, task_id)
        assert task is not None and task.status == JobStatus.QUEUED
        assert task.attempts == 0 and "server stopped" in task.reason
        before = len(s.exec(select(StepRow).where(StepRow.task_id == task_id)).all())
    assert before > 0
    runner = ScriptedRunner(samples=2)
    second = WorkerPool(engine, runner, TWO_WORKERS)
    await second.start()
    try:
        task = await wait_status(engine, task_id, {JobStatus.SUCCEEDED})
    finally:
        await second.stop()
    assert runner.contexts[0].attempt == 1
    with Session(engine) as s:
        steps = s.exec(select(StepRow).where(StepRow.task_id == task_id)).all()
        assert len(steps) == before + 4  # nothing of the first run was lost
        assert [r.status for r in tasks.runs(s, task_id)] == ["cancelled", "succeeded"]


class _SlowClaims(WorkerPool):
    """A pool whose claims and run starts wait for the test's go, as on a loaded host."""

    def __init__(self, *args, slow: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.slow, self.entered, self.go, self.done = slow, Event(), Event(), Event()

    def _delayed(self, call, *args):
        self.entered.set()
        assert self.go.wait(10)
        try:
            return call(*args)
        finally:
            self.done.set()

    def _claim(self, key):
        if self.slow != "claim":
            return super()._claim(key)
        return self._delayed(super()._claim, key)

    def _start_run(self, task, runner):
        if self.slow != "run":
            return super()._start_run(task, runner)
        return self._delayed(super()._start_run, task, runner)


@pytest.mark.parametrize("slow", ["claim", "run"])
async def test_a_stop_during_a_claim_or_run_start_puts_the_task_back(engine, slow):
    """A thread runs on when the loop that awaits it is cancelled: a stop must wait for the
    claim (or the run's start) to land and put the task back, or the task stays held by a loop
    that no longer runs it until its lease runs out (this failed CI once, in the export tests)."""
    [task_id] = submit_tasks(engine)
    pool = _SlowClaims(
        engine, ScriptedRunner(samples=1), TWO_WORKERS.model_copy(update={"workers": 1}), slow=slow
    )
    await pool.start()
    assert await asyncio.to_thread(pool.entered.wait, 10)
    stopping = asyncio.create_task(pool.stop())
    await asyncio.sleep(0.2)
    pool.go.set()
    await stopping
    assert await asyncio.to_thread(pool.done.wait, 10)
    await asyncio.sleep(0.1)  # a claim the stop abandoned would land about now
    with Session(engine) as s:
        task = tasks.get(s, task_id)
        assert task is not None
        assert (task.status, task.attempts, task.claimed_by) == (JobStatus.QUEUED, 0, None)
        assert "server stopped" in task.reason
        runs = tasks.runs(s, task_id)
        assert [r.status for r in runs] == (["cancelled"] if slow == "run" else [])
    again = WorkerPool(engine, ScriptedRunner(samples=1), TWO_WORKERS)
    await again.start()
    try:
        await wait_status(engine, task_id, {JobStatus.SUCCEEDED})
    finally:
        await again.stop()


async def test_two_pools_share_the_queue(engine):
    ids = submit_tasks(engine, 12)
    a, b = ScriptedRunner(samples=1, delay_s=0.01), ScriptedRunner(samples=1, delay_s=0.01)
    pools = [WorkerPool(engine, a, TWO_WORKERS), WorkerPool(engine, b, TWO_WORKERS)]
    for pool in pools:
        await pool.start()
    try:
        for task_id in ids:
            await wait_status(engine, task_id, {JobStatus.SUCCEEDED})
    finally:
        for pool in pools:
            await pool.stop()
    ran = [c.task.id for c in a.contexts + b.contexts]
    assert sorted(ran) == sorted(ids)  # every task ran exactly once


async def test_a_runner_error_is_stored_without_internal_addresses_or_ids(engine):
    [task_id] = submit_tasks(engine)
    container = "c0ffee" * 10 + "abcd"
    fail = f"exec in {container} failed: http+docker://localhost/v1.43/exec/{container}/start"
    pool = WorkerPool(engine, ScriptedRunner(samples=1, fail=fail), TWO_WORKERS)
    await pool.start()
    try:
        task = await wait_status(engine, task_id, {JobStatus.FAILED})
    finally:
        await pool.stop()
    assert (
        task.reason == "runner error: RuntimeError: exec in <container> failed: <internal address>"
    )


async def test_a_cancel_not_yet_delivered_when_the_server_stops_ends_the_task_cancelled(engine):
    [task_id] = submit_tasks(engine)
    # A slow keeper: the request below is still undelivered when the pool stops.
    slow = ServiceConfig(workers=1, poll_s=0.05, heartbeat_s=30, lease_s=60)
    runner = ScriptedRunner(samples=50, delay_s=0.05)
    pool = WorkerPool(engine, runner, slow)
    await pool.start()
    try:
        for _ in range(500):  # until the runner has the task
            if runner.contexts:
                break
            await asyncio.sleep(0.02)
        with Session(engine) as s:
            assert tasks.request_cancel(s, task_id) is tasks.CancelOutcome.REQUESTED
    finally:
        await pool.stop()
    with Session(engine) as s:
        task = tasks.get(s, task_id)
        assert task is not None and task.status == JobStatus.CANCELLED
        assert task.reason == "cancelled on request"


async def test_a_run_where_nothing_passed_ends_no_verified_candidate(engine):
    [task_id] = submit_tasks(engine)
    pool = WorkerPool(engine, ScriptedRunner(samples=2, passes=0), TWO_WORKERS)
    await pool.start()
    try:
        task = await wait_status(engine, task_id, {JobStatus.NO_VERIFIED_CANDIDATE})
    finally:
        await pool.stop()
    assert task.reason == "0 of 2 passed"
    assert task.best_candidate_id is None and task.best_speedup is None
    with Session(engine) as s:
        [run] = tasks.runs(s, task_id)
        assert run.status == JobStatus.NO_VERIFIED_CANDIDATE
        _, kind, data = tasks.events_after(s, task_id)[-1]
        assert kind == "status" and data["status"] == "no_verified_candidate"


@pytest.mark.parametrize("status", [JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.CANCELLED])
def test_a_runner_cannot_end_a_task_as_the_pool_would(status):
    with pytest.raises(ValueError, match="cannot end a task"):
        RunOutcome(status)
