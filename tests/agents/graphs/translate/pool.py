"""Running stored translate tasks to their end through the service's worker pool, for the
end-to-end tests."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from agents.runners import GraphRunner
from corpus.store import tasks
from parforge.service.pool import WorkerPool
from parforge.settings import ServiceConfig


def run_to_end(engine: Engine, ids: dict[str, str], make_runner: Any) -> dict[str, Any]:
    """Runs the stored tasks `ids` (by name) two at a time with the runner `make_runner()`
    builds (inside the event loop), and returns each one's (task, candidates, steps) by name."""

    async def run_all() -> None:
        runner: GraphRunner = make_runner()
        pool = WorkerPool(engine, runner, ServiceConfig(workers=2, poll_s=0.1, heartbeat_s=0.5))
        try:
            await asyncio.gather(*(pool.run_task(i) for i in ids.values()))
        finally:
            await runner.aclose()

    asyncio.run(run_all())
    found: dict[str, Any] = {}
    with Session(engine) as s:
        for name, task_id in ids.items():
            task = tasks.get(s, task_id)
            found[name] = (task, tasks.candidates(s, task_id), tasks.steps_of(s, task_id))
    engine.dispose()
    return found
