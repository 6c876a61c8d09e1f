"""What the task pool and the eval pool share: worker loops that claim queued jobs from the
store and run them, and a keeper that renews the leases of running jobs, delivers
cancellations and takes back jobs whose worker died (in this process or another).

Database calls run in threads; the jobs run on the event loop. Subclasses say how to claim,
run and recover their kind of job.

The loops outlive database errors (the server restarts, a lock times out): each pass that
fails is logged and tried again after a jittered, growing pause. A loop that ends any other way
is dead, and `dead_loops` (read by `/healthz`) says which.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from corpus.store.models import EvalRunRow, JobStatus, TaskRow
from corpus.store.notify import QUEUE, Notifier
from corpus.store.queue import Beat, Recovered, heartbeat
from parforge.service import identity
from parforge.settings import ServiceConfig

log = logging.getLogger(__name__)

CANCEL = "cancel"
"""Notifier key the API pokes after a cancel request, so the keeper acts before its next beat."""

LEASE_LOST = "lease lost"

Row = TypeVar("Row", TaskRow, EvalRunRow)
Key = TypeVar("Key", bound=Hashable)
T = TypeVar("T")


async def landed(call: Callable[..., T], *args: Any, undo: Callable[[T], Awaitable[object]]) -> T:
    """`call(*args)` in a thread, never abandoned halfway: a thread runs on when the coroutine
    awaiting it is cancelled, so a claim abandoned by a stop would still land and leave a job
    held by a loop that no longer runs it (until its lease ran out, at the cost of an attempt).
    On cancellation this waits for the thread, hands its result to `undo`, then re-raises."""
    work = asyncio.ensure_future(asyncio.to_thread(call, *args))
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):  # a call that failed took nothing
            await undo(await work)
        raise


def backoff_s(failures: int, base_s: float, cap_s: float, jitter: float) -> float:
    """The pause after `failures` failures in a row: "full jitter", `jitter` (in [0, 1)) of an
    exponentially growing ceiling, so that workers that lost the database together do not all
    come back at the same instant."""
    ceiling = min(cap_s, base_s * 2 ** min(failures - 1, 30))
    return jitter * ceiling


@dataclass
class Running:
    """A job this process runs."""

    job: asyncio.Task[Any] | None = None
    why: str | None = None
    """Why the pool cancelled it: a user request, a lost lease, or shutdown."""
    requeue: bool = False


class JobPool(ABC, Generic[Row, Key]):
    """`workers` concurrent jobs of one kind over one store."""

    model: type[Row]
    """The job's table."""
    kind: ClassVar[str]
    """`task` or `eval`: names the loops and the log lines."""

    def __init__(
        self, engine: Engine, config: ServiceConfig, workers: int, notifier: Notifier | None
    ) -> None:
        self.engine = engine
        self.config = config
        self.workers = workers
        self.notifier = notifier or Notifier()
        self.worker = identity.worker_id()
        self._running: dict[Key, Running] = {}
        self._loops: list[asyncio.Task[None]] = []

    @property
    def busy(self) -> int:
        return len(self._running)

    def dead_loops(self) -> list[str]:
        """The loops that ended while they should run, each as `name: ExceptionType`."""
        dead = [loop for loop in self._loops if loop.done() and not loop.cancelled()]
        return [f"{loop.get_name()}: {type(loop.exception()).__name__}" for loop in dead]

    async def start(self) -> None:
        """Take back what dead workers left running, then start the workers and the keeper."""
        await self.recover()
        self._loops = [
            asyncio.create_task(self._work(), name=f"{self.kind}-worker-{i}")
            for i in range(self.workers)
        ]
        self._loops.append(asyncio.create_task(self._keep(), name=f"{self.kind}-keeper"))
        for loop in self._loops:
            loop.add_done_callback(_report_death)

    async def stop(self) -> None:
        """Stop claiming; running jobs go back to the queue for the next start."""
        for loop in self._loops:
            loop.cancel()
        await asyncio.gather(*self._loops, return_exceptions=True)
        self._loops = []

    async def recover(self) -> None:
        for item in await asyncio.to_thread(self._recover_sync):
            log.warning("%s %s: %s", self.kind, item.job_id, item.reason)
            self._recovered(item)
            if item.status is JobStatus.QUEUED:
                self.notifier.notify(QUEUE)

    @contextlib.asynccontextmanager
    async def _kept(self) -> AsyncIterator[None]:
        """A keeper for the duration of one job run outside the worker loops (the CLI's)."""
        keeper = asyncio.create_task(self._keep())
        try:
            yield
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper

    async def _survive(self, what: str, step: Callable[[], Awaitable[None]]) -> None:
        """Run `step` over and over; a database error pauses the loop instead of ending it."""
        failures = 0
        while True:
            try:
                await step()
            except SQLAlchemyError as exc:
                failures += 1
                pause = self._pause(failures)
                log.warning(
                    "%s %s: database error (%s failure(s) in a row), retrying in %.2fs: %s",
                    self.kind,
                    what,
                    failures,
                    pause,
                    exc,
                )
                await asyncio.sleep(pause)
            else:
                failures = 0

    async def _retried(self, what: str, write: Callable[..., T], *args: Any) -> T | None:
        """A job's final write, tried again on database errors while its lease would still
        hold; None when it never landed (recovery then takes the job back)."""
        failures, waited = 0, 0.0
        while True:
            try:
                return await asyncio.to_thread(write, *args)
            except SQLAlchemyError as exc:
                failures += 1
                pause = self._pause(failures)
                if waited + pause > self.config.lease_s:
                    log.error(
                        "%s %s: giving up after %s failures: %s", self.kind, what, failures, exc
                    )
                    return None
                log.warning(
                    "%s %s: database error, retrying in %.2fs: %s", self.kind, what, pause, exc
                )
                waited += pause
                await asyncio.sleep(pause)

    def _pause(self, failures: int) -> float:
        return backoff_s(failures, self.config.poll_s, self.config.lease_s / 4, random.random())

    async def _work(self) -> None:
        await self._survive("worker", self._work_once)

    async def _work_once(self) -> None:
        with self.notifier.subscribe(QUEUE) as wake:
            row = await self._claimed(None)
            if row is None:
                await wake.wait(self.config.poll_s)
                return
        await self._execute(row)

    async def _claimed(self, key: Key | None) -> Row | None:
        """Claim the oldest queued job (or `key`); one claimed while this worker was being
        stopped goes back to the queue, its attempt unspent."""

        async def put_back(row: Row | None) -> None:
            if row is not None:
                await self._retried("release", self._unclaim, row, "server stopped")

        return await landed(self._claim, key, undo=put_back)

    async def _keep(self) -> None:
        beats = 0

        async def once() -> None:
            nonlocal beats
            with self.notifier.subscribe(CANCEL) as poke:
                # Only jobs registered before the beat can be judged by it: one claimed while
                # the beat was in flight would look taken away.
                before = dict(self._running)
                beat = await asyncio.to_thread(self._beat, list(before))
                for key, running in before.items():
                    if running.why is not None:
                        continue
                    if key not in beat.held:
                        running.why = LEASE_LOST
                    elif key in beat.cancel:
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

        await self._survive("keeper", once)

    def _beat(self, jobs: list[Key]) -> Beat:
        with Session(self.engine) as session:
            return heartbeat(session, self.model, self.worker, jobs)

    def _recovered(self, item: Recovered) -> None:
        """Called for every job taken back from a dead worker."""

    @abstractmethod
    def _claim(self, key: Key | None) -> Row | None:
        """Claim the oldest queued job, or the given one (blocking)."""

    @abstractmethod
    def _unclaim(self, row: Row, why: str) -> None:
        """Put a claimed job that never ran back in the queue, its attempt unspent (blocking)."""

    @abstractmethod
    async def _execute(self, row: Row) -> None:
        """Run a claimed job to its end, registered in `_running` while it runs."""

    @abstractmethod
    def _recover_sync(self) -> list[Recovered]:
        """Take back the jobs of dead or silent workers (blocking)."""


def _report_death(loop: asyncio.Task[None]) -> None:
    if not loop.cancelled() and loop.exception() is not None:
        log.error("%s died", loop.get_name(), exc_info=loop.exception())
