"""Eval workers: claim queued eval runs (`POST /v1/evals`, or the CLI's own) and run them with
the `EvalRunner`, alongside the task workers of `pool.py`.

One asyncio task per worker slot and a keeper that renews the leases of running evals, delivers
cancellations and takes back evals whose worker died. The CLI runs one eval through the same
path (`run_one`), so an API process sharing the store sees it as held, not abandoned.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import Engine
from sqlmodel import Session

from corpus.store import evals as store
from corpus.store.models import EvalRun, JobStatus
from corpus.store.notify import QUEUE, Notifier
from corpus.store.queue import heartbeat
from evals.errors import EvalError, EvalInterrupted
from evals.runner import EvalRunner, ProgressSink
from parforge.service import identity
from parforge.service.config import ServerConfig
from sandbox.config import DockerConfig, SandboxConfig

if TYPE_CHECKING:
    from parforge.settings import Settings

log = logging.getLogger(__name__)


def pool_size(config: SandboxConfig) -> int:
    """Jobs the configured sandbox runs at once."""
    return config.pool_size if isinstance(config, DockerConfig) else config.max_concurrency


def build_eval_runner(settings: Settings, engine: Engine) -> EvalRunner:
    """The eval runner the settings describe (its sandbox is connected on first use)."""
    return EvalRunner(
        engine,
        settings.sandbox.build(),
        llm=settings.model.client_config(),
        settings=settings.evals,
        verify_options=settings.verify,
        pool_size=pool_size(settings.sandbox),
    )


@dataclass
class _Running:
    job: asyncio.Task[object]
    why: str | None = None


class EvalPool:
    """`workers` eval runs at once over one store."""

    def __init__(
        self,
        engine: Engine,
        runner: EvalRunner,
        config: ServerConfig,
        workers: int,
        notifier: Notifier | None = None,
    ) -> None:
        self.engine = engine
        self.runner = runner
        self.config = config
        self.workers = workers
        self.notifier = notifier or Notifier()
        self.worker = identity.worker_id()
        self._running: dict[int, _Running] = {}
        self._loops: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        await self._recover()
        self._loops = [
            asyncio.create_task(self._work(), name=f"eval-worker-{i}") for i in range(self.workers)
        ]
        self._loops.append(asyncio.create_task(self._keep(), name="eval-keeper"))

    async def stop(self) -> None:
        """Stop; running evals go back to the queue and resume where they stopped."""
        for loop in self._loops:
            loop.cancel()
        await asyncio.gather(*self._loops, return_exceptions=True)
        self._loops = []

    async def run_one(self, eval_id: int, on_progress: ProgressSink | None = None) -> EvalRun:
        """Claim one queued eval and run it here (the CLI); return its final row."""
        run = await asyncio.to_thread(self._claim, eval_id)
        if run is None:
            raise EvalError(f"eval run {eval_id} is not queued")
        keeper = asyncio.create_task(self._keep())
        try:
            await self._execute(run, on_progress, requeue_on_stop=False)
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        final = await asyncio.to_thread(self._get, eval_id)
        assert final is not None
        return final

    async def _work(self) -> None:
        while True:
            with self.notifier.subscribe(QUEUE) as wake:
                run = await asyncio.to_thread(self._claim, None)
                if run is None:
                    await wake.wait(self.config.poll_s)
                    continue
            await self._execute(run, None, requeue_on_stop=True)

    async def _execute(
        self, run: EvalRun, on_progress: ProgressSink | None, *, requeue_on_stop: bool
    ) -> None:
        assert run.id is not None
        eval_id = run.id
        job = asyncio.create_task(self.runner.run(eval_id, on_progress=on_progress))
        running = self._running[eval_id] = _Running(job)
        status, reason, summary = JobStatus.FAILED, "", None
        resume = f"; resume with `parforge eval run --resume {eval_id}`"
        try:
            outcome = await asyncio.shield(job)
            status, reason, summary = JobStatus.SUCCEEDED, outcome.reason, outcome.summary
        except asyncio.CancelledError:
            me = asyncio.current_task()
            stopping = me is not None and me.cancelling() > 0
            running.why = running.why or (
                ("server stopped" if requeue_on_stop else "interrupted")
                if stopping
                else "cancelled"
            )
            job.cancel()
            with contextlib.suppress(BaseException):
                await job
            if stopping and requeue_on_stop:
                await asyncio.to_thread(self._release, eval_id, running.why)
            else:
                status = JobStatus.CANCELLED
                reason = running.why + (resume if running.why == "interrupted" else "")
                await asyncio.to_thread(self._finish, eval_id, status, reason, None)
            del self._running[eval_id]
            if stopping:
                raise
            return
        except EvalInterrupted as exc:
            reason = str(exc) + resume
        except EvalError as exc:
            reason = str(exc)
        except Exception as exc:
            log.exception("eval %s: runner failed", eval_id)
            reason = f"runner error: {type(exc).__name__}: {exc}" + resume
        del self._running[eval_id]
        if running.why is not None:
            status, reason = JobStatus.CANCELLED, running.why
        await asyncio.to_thread(self._finish, eval_id, status, reason, summary)

    async def _keep(self) -> None:
        beats = 0
        while True:
            before = dict(self._running)
            beat = await asyncio.to_thread(self._beat)
            for eval_id, running in before.items():
                if running.why is not None:
                    continue
                if eval_id not in beat.held:
                    running.why = "lease lost"
                elif eval_id in beat.cancel:
                    running.why = "cancelled on request"
                else:
                    continue
                running.job.cancel()
            beats += 1
            if beats * self.config.heartbeat_s >= self.config.lease_s / 2:
                beats = 0
                await self._recover()
            await asyncio.sleep(self.config.heartbeat_s)

    async def _recover(self) -> None:
        for item in await asyncio.to_thread(self._recover_sync):
            log.warning("eval %s: %s", item.job_id, item.reason)
            if item.status is JobStatus.QUEUED:
                self.notifier.notify(QUEUE)

    # Blocking database work, run in threads.

    def _claim(self, eval_id: int | None) -> EvalRun | None:
        with Session(self.engine, expire_on_commit=False) as session:
            return store.claim(session, self.worker, eval_id)

    def _get(self, eval_id: int) -> EvalRun | None:
        with Session(self.engine, expire_on_commit=False) as session:
            return store.get(session, eval_id)

    def _beat(self) -> store.queue.Beat:
        with Session(self.engine) as session:
            return heartbeat(session, EvalRun, self.worker)

    def _recover_sync(self) -> list[store.queue.Recovered]:
        with Session(self.engine) as session:
            return store.recover(
                session,
                lease_s=self.config.lease_s,
                max_attempts=self.config.max_attempts,
                alive=lambda w: w == self.worker or identity.alive(w),
            )

    def _finish(
        self, eval_id: int, status: JobStatus, reason: str, summary: dict[str, object] | None
    ) -> None:
        with Session(self.engine) as session:
            store.finish(session, eval_id, self.worker, status, reason, summary)

    def _release(self, eval_id: int, why: str) -> None:
        with Session(self.engine) as session:
            store.release(session, eval_id, self.worker, why)
