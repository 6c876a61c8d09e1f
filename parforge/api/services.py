"""The composition root: the long-lived services the API needs, built once per app."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from sqlalchemy import Engine

from corpus.runner import TaskRunner
from corpus.store import Notifier, open_store
from parforge.api.limits import StreamSlots
from parforge.api.metrics import Metrics
from parforge.service.evals import EvalPool, build_eval_runner
from parforge.service.pool import WorkerPool
from parforge.service.runners import close_runner, load_runner
from parforge.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class Services:
    settings: Settings
    engine: Engine
    notifier: Notifier
    metrics: Metrics
    pool: WorkerPool | None
    owned_runner: TaskRunner | None = None
    """A runner built here from the settings (not one handed in), closed on stop."""
    evals: EvalPool | None = None
    streams: StreamSlots = field(default_factory=StreamSlots)
    """Event streams open per API key."""

    @classmethod
    async def start(cls, settings: Settings, runner: TaskRunner | None = None) -> Services:
        """Open (and migrate) the store, then start the worker pool if there is a runner."""
        engine = await asyncio.to_thread(open_store, settings.store_url, settings.store)
        notifier = Notifier()
        owned = pool = None
        if settings.server.workers > 0:
            if runner is None:
                runner = owned = load_runner(settings)
            if runner is None:
                log.warning("no task runner configured: tasks are queued but not run here")
            else:
                pool = WorkerPool(engine, runner, settings.server, notifier)
                await pool.start()
        evals = None
        if settings.evals.workers > 0:
            eval_runner = build_eval_runner(settings, engine)
            evals = EvalPool(engine, eval_runner, settings.server, settings.evals.workers, notifier)
            await evals.start()
        return cls(settings, engine, notifier, Metrics(engine, pool), pool, owned, evals)

    async def stop(self) -> None:
        try:
            if self.pool is not None:
                await self.pool.stop()
            if self.owned_runner is not None:
                await close_runner(self.owned_runner)
            if self.evals is not None:
                await self.evals.stop()
                await self.evals.runner.aclose()
        finally:
            self.engine.dispose()
