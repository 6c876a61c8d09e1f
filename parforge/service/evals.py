"""Eval workers: claim queued eval runs (`POST /v1/evals`, or the CLI's own) and run them with
the `EvalRunner`, alongside the task workers of `pool.py`, with the same loops and keeper
(`jobs.JobPool`). The CLI runs one eval through the same path (`run_one`), so an API process
sharing the store sees it as held, not abandoned.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from sqlalchemy import Engine
from sqlmodel import Session

from corpus.runner import TaskRunner
from corpus.store import evals as store
from corpus.store.models import EvalRunRow, JobStatus
from corpus.store.notify import Notifier
from corpus.store.queue import Recovered
from evals.errors import EvalError, EvalInterrupted
from evals.runner import EvalRunner, ProgressSink
from parforge.service.jobs import JobPool, Running
from parforge.service.reasons import public_reason, scrub
from parforge.service.runners import close_runner, timing_gate
from parforge.settings import ServiceConfig
from sandbox.config import DockerConfig, RayConfig, SandboxConfig
from sandbox.verify.verifier import open_verifier

if TYPE_CHECKING:
    from parforge.settings import Settings

log = logging.getLogger(__name__)


def pool_size(config: SandboxConfig) -> int:
    """Jobs the configured sandbox runs at once."""
    if isinstance(config, RayConfig):
        return config.max_in_flight
    return config.pool_size if isinstance(config, DockerConfig) else config.max_concurrency


def build_eval_runner(settings: Settings, engine: Engine) -> EvalRunner:
    """The eval runner the settings describe (its sandbox is connected on first use), with the
    translate agent as a sample source (`graph`, and `analysis` without the model)."""
    no_model = settings.graph.model_copy(update={"use_model": False})
    return EvalRunner(
        engine,
        open_verifier(settings.sandbox),
        llm=settings.model.client_config(),
        settings=settings.evals,
        verify_options=settings.verify,
        pool_size=pool_size(settings.sandbox),
        gate=timing_gate(settings),
        agents={
            "graph": AgentTasks(settings, engine),
            "analysis": AgentTasks(settings.model_copy(update={"graph": no_model}), engine),
        },
    )


class AgentTasks:
    """Runs stored tasks with the translate agent for an eval, through the task pool's path.
    The runner (model client, sandbox) is built on first use and closed with the eval runner."""

    def __init__(self, settings: Settings, engine: Engine) -> None:
        self.settings = settings
        self.engine = engine
        self.runner: TaskRunner | None = None

    async def __call__(self, task_id: str) -> None:
        from parforge.service.pool import WorkerPool
        from parforge.service.runners import build_graph_runner

        if self.runner is None:
            self.runner = build_graph_runner(self.settings)
        await WorkerPool(self.engine, self.runner, self.settings.server).run_task(task_id)

    async def aclose(self) -> None:
        if self.runner is not None:
            await close_runner(self.runner)
            self.runner = None


class EvalPool(JobPool[EvalRunRow, int]):
    """`workers` eval runs at once over one store."""

    model = EvalRunRow
    kind = "eval"

    def __init__(
        self,
        engine: Engine,
        runner: EvalRunner,
        config: ServiceConfig,
        workers: int,
        notifier: Notifier | None = None,
    ) -> None:
        super().__init__(engine, config, workers, notifier)
        self.runner = runner

    async def run_one(self, eval_id: int, on_progress: ProgressSink | None = None) -> EvalRunRow:
        """Claim one queued eval and run it here (the CLI); return its final row."""
        run = await self._claimed(eval_id)
        if run is None:
            raise EvalError(f"eval run {eval_id} is not queued")
        async with self._kept():
            await self._execute(run, on_progress, requeue_on_stop=False)
        final = await asyncio.to_thread(self._get, eval_id)
        assert final is not None
        return final

    async def _execute(
        self,
        run: EvalRunRow,
        on_progress: ProgressSink | None = None,
        *,
        requeue_on_stop: bool = True,
    ) -> None:
        assert run.id is not None
        eval_id = run.id
        job = asyncio.create_task(self.runner.run(eval_id, on_progress=on_progress))
        running = self._running[eval_id] = Running(job)
        status, reason, summary, stopping = JobStatus.FAILED, "", None, False
        resume = f"; resume with `parforge eval run --resume {eval_id}`"
        try:
            outcome = await asyncio.shield(job)
            status, reason, summary = JobStatus.SUCCEEDED, outcome.reason, outcome.summary
        except asyncio.CancelledError:
            me = asyncio.current_task()
            stopping = me is not None and me.cancelling() > 0
            running.requeue = stopping and requeue_on_stop
            running.why = running.why or (
                ("server stopped" if requeue_on_stop else "interrupted")
                if stopping
                else "cancelled"
            )
            job.cancel()
            with contextlib.suppress(BaseException):
                await job
        except EvalInterrupted as exc:
            log.warning("eval %s interrupted: %s", eval_id, exc)
            reason = scrub(str(exc)) + resume
        except EvalError as exc:
            reason = scrub(str(exc))
        except Exception as exc:
            log.exception("eval %s: runner failed", eval_id)
            reason = public_reason(exc) + resume
        finally:
            del self._running[eval_id]
        if running.requeue:
            await self._retried("release", self._release, eval_id, running.why or "")
        else:
            if running.why is not None:
                status = JobStatus.CANCELLED
                reason = running.why + (resume if running.why == "interrupted" else "")
            await self._retried("finish", self._finish, eval_id, status, reason, summary)
        if stopping:
            raise asyncio.CancelledError

    # Blocking database work, run in threads.

    def _claim(self, key: int | None) -> EvalRunRow | None:
        with Session(self.engine, expire_on_commit=False) as session:
            return store.claim(session, self.worker, key)

    def _get(self, eval_id: int) -> EvalRunRow | None:
        with Session(self.engine, expire_on_commit=False) as session:
            return store.get(session, eval_id)

    def _recover_sync(self) -> list[Recovered]:
        with Session(self.engine) as session:
            return store.recover(
                session,
                lease_s=self.config.lease_s,
                max_attempts=self.config.max_attempts,
            )

    def _finish(
        self, eval_id: int, status: JobStatus, reason: str, summary: dict[str, object] | None
    ) -> None:
        with Session(self.engine) as session:
            store.finish(session, eval_id, self.worker, status, reason, summary)

    def _unclaim(self, row: EvalRunRow, why: str) -> None:
        assert row.id is not None
        self._release(row.id, why)

    def _release(self, eval_id: int, why: str) -> None:
        with Session(self.engine) as session:
            store.release(session, eval_id, self.worker, why)
