"""The worker pool's shared pieces: quick service settings, submitting tasks, and waiting for
what the store shows."""

from __future__ import annotations

import asyncio

from sqlmodel import Session

from corpus.store import tasks
from corpus.store.models import TaskCreate
from parforge.settings import ServiceConfig

ONE_WORKER = ServiceConfig(workers=1, poll_s=0.05, heartbeat_s=0.05, lease_s=5)
"""Quick polls and heartbeats, one worker."""
TWO_WORKERS = ServiceConfig(workers=2, poll_s=0.05, heartbeat_s=0.05, lease_s=5)
"""Quick polls and heartbeats, two workers."""


def submit_tasks(engine, n=1) -> list[str]:
    with Session(engine) as s:
        return [
            tasks.submit(s, TaskCreate(target="openmp", source=f"int f{i}();")).id for i in range(n)
        ]


async def until(engine, found, limit_s=10.0):
    """Poll the store until `found(session)` returns something, and return that."""
    async with asyncio.timeout(limit_s):
        while True:
            with Session(engine) as s:
                if (hit := found(s)) is not None:
                    return hit
            await asyncio.sleep(0.02)


async def wait_status(engine, task_id, statuses, limit_s=10.0):
    def status(s):
        task = tasks.get(s, task_id)
        assert task is not None
        return task if task.status in statuses else None

    return await until(engine, status, limit_s)
