"""The pool's loops outlive database errors and report when they die; worker ids are random."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import socket

import pytest
from sqlalchemy.exc import OperationalError

from corpus.store.models import JobStatus
from parforge.service import identity
from parforge.service.jobs import backoff_s
from parforge.service.pool import WorkerPool
from tests.fakes.pool import TWO_WORKERS, submit_tasks, wait_status
from tests.fakes.runners import ScriptedRunner


def _db_error() -> OperationalError:
    return OperationalError("SELECT 1", {}, Exception("server closed the connection"))


class FlakyPool(WorkerPool):
    """The database fails the first `failures` claims and heartbeats."""

    def __init__(self, *args, failures: int, **kw) -> None:
        super().__init__(*args, **kw)
        self.claims = self.beats = failures

    def _claim(self, key):
        if self.claims > 0:
            self.claims -= 1
            raise _db_error()
        return super()._claim(key)

    def _beat(self, jobs):
        if self.beats > 0:
            self.beats -= 1
            raise _db_error()
        return super()._beat(jobs)


@pytest.mark.parametrize("failures", [1, 2, 5, 40])
def test_backoff_grows_to_a_cap_and_is_jittered(failures):
    ceiling = min(8.0, 0.1 * 2 ** (failures - 1))
    assert backoff_s(failures, 0.1, 8.0, 0.0) == 0.0
    assert backoff_s(failures, 0.1, 8.0, 0.5) == pytest.approx(ceiling / 2)
    assert backoff_s(failures, 0.1, 8.0, 0.999) <= 8.0


async def test_worker_and_keeper_survive_database_errors(engine, caplog):
    [task_id] = submit_tasks(engine)
    pool = FlakyPool(engine, ScriptedRunner(samples=2), TWO_WORKERS, failures=3)
    with caplog.at_level(logging.WARNING, logger="parforge.service.jobs"):
        await pool.start()
        try:
            task = await wait_status(engine, task_id, {JobStatus.SUCCEEDED})
            # The keeper beats on its own clock: a fast task can end before its third failure.
            async with asyncio.timeout(5):
                while pool.beats > 0:  # noqa: ASYNC110 - polls the pool
                    await asyncio.sleep(0.02)
            assert pool.dead_loops() == []
        finally:
            await pool.stop()
    assert task.reason == "1 of 2 passed"
    assert pool.claims == pool.beats == 0
    retried = [r.getMessage() for r in caplog.records if "database error" in r.getMessage()]
    assert any(m.startswith("task worker") for m in retried)
    assert any(m.startswith("task keeper") for m in retried)


async def test_a_loop_that_dies_is_reported(engine):
    pool = WorkerPool(engine, ScriptedRunner(), TWO_WORKERS)
    await pool.start()
    try:

        def broken(key):
            raise RuntimeError("a bug, not the database")

        pool._claim = broken  # type: ignore[method-assign]
        async with asyncio.timeout(5):
            while len(pool.dead_loops()) < TWO_WORKERS.workers:  # noqa: ASYNC110 - polls the pool
                await asyncio.sleep(0.02)
        assert pool.dead_loops() == ["task-worker-0: RuntimeError", "task-worker-1: RuntimeError"]
    finally:
        await pool.stop()


def test_worker_ids_are_random_and_name_no_host_or_pid(monkeypatch):
    # A random hex id can contain the pid's digits by chance; the id's shape is the contract:
    # `worker-` and 16 hex digits, and nothing read from the host goes into it.
    monkeypatch.setattr(socket, "gethostname", lambda: pytest.fail("the id read the host name"))
    monkeypatch.setattr(os, "getpid", lambda: pytest.fail("the id read the pid"))
    ids = {identity.worker_id() for _ in range(100)}
    assert len(ids) == 100
    assert all(re.fullmatch(r"worker-[0-9a-f]{16}", worker) for worker in ids)
