"""The composition root: the long-lived services the API needs, built once per app."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from sqlalchemy import Engine

from corpus.runner import TaskRunner
from corpus.store import Notifier, open_store
from parforge.api.metrics import Metrics
from parforge.service.evals import EvalPool, build_eval_runner
from parforge.service.pool import WorkerPool
from parforge.service.runners import load_runner
from parforge.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class Services:
    settings: Settings
    engine: Engine
    notifier: Notifier
    metrics: Metrics
    pool: WorkerPool | None
    evals: EvalPool | None = None

    @classmethod
    async def start(cls, settings: Settings, runner: TaskRunner | None = None) -> Services:
        """Open (and migrate) the store, then start the worker pool if there is a runner."""
        engine = await asyncio.to_thread(open_store, settings.store_url, settings.store)
        notifier = Notifier()
        runner = runner or load_runner(settings)
        pool = None
        if runner is None:
            log.warning("no task runner configured: tasks are queued but not run here")
        elif settings.server.workers > 0:
            pool = WorkerPool(engine, runner, settings.server, notifier)
            await pool.start()
        evals = None
        if settings.evals.workers > 0:
            runner_ = build_eval_runner(settings, engine)
            evals = EvalPool(engine, runner_, settings.server, settings.evals.workers, notifier)
            await evals.start()
        return cls(settings, engine, notifier, Metrics(engine, pool), pool, evals)

    async def stop(self) -> None:
        if self.pool is not None:
            await self.pool.stop()
        if self.evals is not None:
            await self.evals.stop()
            await self.evals.runner.aclose()
        self.engine.dispose()
