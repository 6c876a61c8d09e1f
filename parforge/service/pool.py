"""The worker pool: claims queued tasks, runs each through its agent's `TaskRunner`, ends them.

One asyncio task per worker slot, plus the keeper of `jobs.JobPool` that renews leases,
delivers cancellations and takes back tasks whose worker died.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from sqlalchemy import Engine
from sqlmodel import Session

from corpus.runner import TaskContext, TaskRunner
from corpus.store import tasks as store_tasks
from corpus.store.models import JobStatus, TaskDetail, TaskRow
from corpus.store.notify import Notifier, task_key
from corpus.store.queue import Recovered
from corpus.store.recorder import Recorder
from parforge.service.jobs import CANCEL, LEASE_LOST, JobPool, Running, landed
from parforge.service.reasons import public_reason, scrub
from parforge.service.runners import Runners, ServiceError
from parforge.settings import ServiceConfig

__all__ = ["CANCEL", "WorkerPool"]

log = logging.getLogger(__name__)


class WorkerPool(JobPool[TaskRow, str]):
    """`config.workers` concurrent task runs over one store."""

    model = TaskRow
    kind = "task"

    def __init__(
        self,
        engine: Engine,
        runners: Runners | TaskRunner,
        config: ServiceConfig,
        notifier: Notifier | None = None,
    ) -> None:
        """`runners`: the runner of each agent, or one runner for every task."""
        super().__init__(engine, config, config.workers, notifier)
        self.runners = runners if isinstance(runners, Runners) else Runners.one(runners)

    async def run_task(self, task_id: str) -> bool:
        """Claim one given task and run it here (the CLI's `--wait`); False if it was not queued."""
        task = await self._claimed(task_id)
        if task is None:
            return False
        async with self._kept():
            await self._execute(task)
        return True

    async def _execute(self, task: TaskRow) -> None:
        self.notifier.notify(task_key(task.id))
        try:
            runner = self.runners.get(task.agent)
        except ServiceError as exc:
            # Nothing ran: the task fails with the reason, and the service goes on.
            log.error("task %s: %s", task.id, exc)
            reason = f"cannot run it: {scrub(str(exc))}"
            await self._retried(
                "finish", self._finish, task.id, None, JobStatus.FAILED, reason, None
            )
            self.notifier.notify(task_key(task.id))
            return

        async def put_back(run: int) -> None:
            await self._retried("release", self._release, task.id, run, "server stopped")

        run = await landed(self._start_run, task, runner.name, undo=put_back)
        recorder = Recorder(self.engine, task.id, run, self.notifier)
        running = Running()
        context = TaskContext(
            task=TaskDetail.model_validate(task),
            run_id=run,
            attempt=task.attempts,
            recorder=recorder,
            cancel_requested=lambda: running.why is not None,
        )
        running.job = job = asyncio.create_task(runner.run(context), name=f"task-{task.id}")
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
            reason = public_reason(exc)
        finally:
            await recorder.aclose()
            del self._running[task.id]
        if running.why is not None:
            # Cancelled by the pool: that, not what the runner made of it, decides the status.
            status, reason = JobStatus.CANCELLED, running.why
        if running.requeue:
            await self._retried("release", self._release, task.id, run, running.why or "")
        elif running.why == LEASE_LOST:
            log.warning("task %s was taken back from this worker; its result is dropped", task.id)
        else:
            await self._retried("finish", self._finish, task.id, run, status, reason, best)
        self.notifier.notify(task_key(task.id))
        if stopping:
            raise asyncio.CancelledError

    def _recovered(self, item: Recovered) -> None:
        self.notifier.notify(task_key(item.job_id))

    # Blocking database work, run in threads.

    def _claim(self, key: str | None) -> TaskRow | None:
        with Session(self.engine, expire_on_commit=False) as session:
            return store_tasks.claim(session, self.worker, key)

    def _start_run(self, task: TaskRow, runner: str) -> int:
        with Session(self.engine) as session:
            run = store_tasks.start_run(session, task, runner, self.worker)
            assert run.id is not None
            return run.id

    def _recover_sync(self) -> list[Recovered]:
        with Session(self.engine) as session:
            return store_tasks.recover(
                session,
                lease_s=self.config.lease_s,
                max_attempts=self.config.max_attempts,
            )

    def _finish(
        self, task_id: str, run_id: int | None, status: JobStatus, reason: str, best: int | None
    ) -> None:
        with Session(self.engine) as session:
            store_tasks.finish(session, task_id, run_id, self.worker, status, reason, best)

    def _unclaim(self, row: TaskRow, why: str) -> None:
        self._release(row.id, None, why)

    def _release(self, task_id: str, run_id: int | None, why: str) -> None:
        """Back to the queue without spending an attempt: the task did nothing wrong."""
        with Session(self.engine) as session:
            store_tasks.release(session, task_id, run_id, self.worker, why)
