"""The composition root: the long-lived services the API needs, built once per app."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from sqlalchemy import Engine

from agents.judge import Judge
from corpus.runner import TaskRunner
from corpus.store import Notifier, open_store
from parforge.api.limits import StreamSlots
from parforge.api.metrics import Metrics
from parforge.app import sandbox_judge
from parforge.service.evals import EvalPool, build_eval_runner
from parforge.service.pool import WorkerPool
from parforge.service.runners import Runners, release_timing_gates
from parforge.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class Services:
    settings: Settings
    engine: Engine
    notifier: Notifier
    metrics: Metrics
    judge: Judge
    """Checks each submission's original program (`parforge.app.submit`)."""
    pool: WorkerPool | None
    runners: Runners | None = None
    """The task runners of the pool; those built here from the settings are closed on stop."""
    evals: EvalPool | None = None
    streams: StreamSlots = field(default_factory=StreamSlots)
    """Event streams open per API key."""
    owns_judge: bool = False
    """The judge was built here from the settings, so it is closed on stop."""

    @classmethod
    async def start(
        cls, settings: Settings, runner: TaskRunner | None = None, judge: Judge | None = None
    ) -> Services:
        """Open (and migrate) the store, then start the worker pool if there is a runner.

        `runner` runs every task; without it, each task runs on its agent's runner from the
        settings, built when the first task of that agent runs. `judge` checks submissions;
        without it, the configured sandbox does."""
        engine = await asyncio.to_thread(open_store, settings.store_url, settings.store)
        notifier = Notifier()
        runners = pool = None
        if settings.server.workers > 0:
            runners = Runners.one(runner) if runner is not None else Runners.from_settings(settings)
            if runners is None:
                log.warning("no task runner configured: tasks are queued but not run here")
            else:
                pool = WorkerPool(engine, runners, settings.server, notifier)
                await pool.start()
        evals = None
        if settings.evals.workers > 0:
            eval_runner = build_eval_runner(settings, engine)
            evals = EvalPool(engine, eval_runner, settings.server, settings.evals.workers, notifier)
            await evals.start()
        return cls(
            settings,
            engine,
            notifier,
            Metrics(engine, pool, settings.sandbox),
            judge if judge is not None else sandbox_judge(settings),
            pool,
            runners,
            evals,
            owns_judge=judge is None,
        )

    async def stop(self) -> None:
        try:
            if self.pool is not None:
                await self.pool.stop()
            if self.runners is not None:
                await self.runners.aclose()
            if self.evals is not None:
                await self.evals.stop()
                await self.evals.runner.aclose()
            if self.owns_judge:
                await self.judge.aclose()
        finally:
            release_timing_gates()
            self.engine.dispose()
