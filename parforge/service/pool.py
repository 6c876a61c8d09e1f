"""The worker pool: claims queued tasks, runs them through the `TaskRunner`, ends them.

One asyncio task per worker slot, plus one keeper that renews the leases of the running tasks,
delivers cancellations, and takes back tasks whose worker died (in this process or another).
Database calls run in threads; the runner runs on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlmodel import Session

from corpus.runner import RunOutcome, TaskContext, TaskRunner
from corpus.store import tasks as store_tasks
from corpus.store.models import JobStatus, Task, TaskDetail
from corpus.store.notify import QUEUE, Notifier, task_key
from corpus.store.queue import heartbeat
from corpus.store.recorder import Recorder
from parforge.service import identity
from parforge.service.config import ServerConfig

log = logging.getLogger(__name__)

CANCEL = "cancel"
"""Notifier key the API pokes after a cancel request, so the keeper acts before its next beat."""


LEASE_LOST = "lease lost"


@dataclass
class _Running:
    job: asyncio.Task[RunOutcome] | None = None
    why: str | None = None
    """Why the pool cancelled it: a user request, a lost lease, or shutdown."""
    requeue: bool = False


@dataclass
class PoolStats:
    """Counters for /metrics."""

    finished: dict[str, int] = field(default_factory=dict)
    recovered: int = 0


class WorkerPool:
    """`config.workers` concurrent task runs over one store."""

    def __init__(
        self,
        engine: Engine,
        runner: TaskRunner,
        config: ServerConfig,
        notifier: Notifier | None = None,
    ) -> None:
        self.engine = engine
        self.runner = runner
        self.config = config
        self.notifier = notifier or Notifier()
        self.worker = identity.worker_id()
        self.stats = PoolStats()
        self._running: dict[str, _Running] = {}
        self._loops: list[asyncio.Task[None]] = []

    @property
    def busy(self) -> int:
        return len(self._running)

    async def start(self) -> None:
        """Take back what dead workers left running, then start the workers and the keeper."""
        await self.recover()
        self._loops = [
            asyncio.create_task(self._work(), name=f"worker-{i}")
            for i in range(self.config.workers)
        ]
        self._loops.append(asyncio.create_task(self._keep(), name="keeper"))

    async def stop(self) -> None:
        """Stop claiming; put running tasks back in the queue for the next start."""
        for loop in self._loops:
            loop.cancel()
        await asyncio.gather(*self._loops, return_exceptions=True)
        self._loops = []

    async def run_task(self, task_id: str) -> bool:
        """Claim one given task and run it here (the CLI's `--wait`); False if it was not queued."""
        task = await asyncio.to_thread(self._claim, task_id)
        if task is None:
            return False
        keeper = asyncio.create_task(self._keep())
        try:
            await self._execute(task)
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        return True

    async def recover(self) -> None:
        recovered = await asyncio.to_thread(self._recover)
        for item in recovered:
            log.warning("task %s: %s", item.job_id, item.reason)
            self.notifier.notify(task_key(item.job_id))
            if item.status is JobStatus.QUEUED:
                self.notifier.notify(QUEUE)
        self.stats.recovered += len(recovered)

    async def _work(self) -> None:
        while True:
            with self.notifier.subscribe(QUEUE) as wake:
                task = await asyncio.to_thread(self._claim, None)
                if task is None:
                    await wake.wait(self.config.poll_s)
                    continue
            await self._execute(task)

    async def _execute(self, task: Task) -> None:
        self.notifier.notify(task_key(task.id))
        run = await asyncio.to_thread(self._start_run, task)
        recorder = Recorder(self.engine, task.id, run, self.notifier)
        running = _Running()
        context = TaskContext(
            task=TaskDetail.model_validate(task),
            run_id=run,
            attempt=task.attempts,
            recorder=recorder,
            cancel_requested=lambda: running.why is not None,
        )
        running.job = job = asyncio.create_task(self.runner.run(context), name=f"task-{task.id}")
        self._running[task.id] = running
        status, reason, best, stopping = JobStatus.FAILED, "", None, False
        try:
            # Shielded, so that cancelling this worker loop is seen here and not only in the job.
            outcome = await asyncio.shield(job)
            status, reason, best = outcome.status, outcome.reason, outcome.best_candidate_id
        except asyncio.CancelledError:
            me = asyncio.current_task()
            if me is not None and me.cancelling():
                stopping, running.requeue = True, True
                running.why = running.why or "server stopped"
                job.cancel()
                with contextlib.suppress(BaseException):
                    await job
        except Exception as exc:
            log.exception("task %s: runner failed", task.id)
            reason = f"runner error: {type(exc).__name__}: {exc}"
        finally:
            await recorder.aclose()
            del self._running[task.id]
        if running.why is not None:
            # Cancelled by the pool: that, not what the runner made of it, decides the status.
            status, reason = JobStatus.CANCELLED, running.why
        if running.requeue:
            await asyncio.to_thread(self._release, task.id, run, running.why or "")
        elif running.why == LEASE_LOST:
            log.warning("task %s was taken back from this worker; its result is dropped", task.id)
        else:
            await asyncio.to_thread(self._finish, task.id, run, status, reason, best)
            self.stats.finished[status] = self.stats.finished.get(status, 0) + 1
        self.notifier.notify(task_key(task.id))
        if stopping:
            raise asyncio.CancelledError

    async def _keep(self) -> None:
        beats = 0
        while True:
            with self.notifier.subscribe(CANCEL) as poke:
                # Only tasks registered before the beat can be judged by it: one claimed while
                # the beat was in flight would look taken away.
                before = dict(self._running)
                beat = await asyncio.to_thread(self._beat)
                for task_id, running in before.items():
                    if running.why is not None:
                        continue
                    if task_id not in beat.held:
                        running.why = LEASE_LOST
                    elif task_id in beat.cancel:
                        running.why = "cancelled on request"
                    else:
                        continue
                    if running.job is not None:
                        running.job.cancel()
                beats += 1
                if beats * self.config.heartbeat_s >= self.config.lease_s / 2:
                    beats = 0
                    await self.recover()
                await poke.wait(self.config.heartbeat_s)

    # Blocking database work, run in threads.

    def _claim(self, task_id: str | None) -> Task | None:
        with Session(self.engine, expire_on_commit=False) as session:
            return store_tasks.claim(session, self.worker, task_id)

    def _start_run(self, task: Task) -> int:
        with Session(self.engine) as session:
            run = store_tasks.start_run(session, task, self.runner.name, self.worker)
            assert run.id is not None
            return run.id

    def _beat(self) -> store_tasks.queue.Beat:
        with Session(self.engine) as session:
            return heartbeat(session, Task, self.worker)

    def _recover(self) -> list[store_tasks.queue.Recovered]:
        with Session(self.engine) as session:
            return store_tasks.recover(
                session,
                lease_s=self.config.lease_s,
                max_attempts=self.config.max_attempts,
                alive=lambda w: w == self.worker or identity.alive(w),
            )

    def _finish(
        self, task_id: str, run_id: int, status: JobStatus, reason: str, best: int | None
    ) -> None:
        with Session(self.engine) as session:
            store_tasks.finish(session, task_id, run_id, self.worker, status, reason, best)

    def _release(self, task_id: str, run_id: int, why: str) -> None:
        """Back to the queue without spending an attempt: the task did nothing wrong."""
        with Session(self.engine) as session:
            store_tasks.release(session, task_id, run_id, self.worker, why)
