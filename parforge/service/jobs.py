"""What the task pool and the eval pool share: worker loops that claim queued jobs from the
store and run them, and a keeper that renews the leases of running jobs, delivers
cancellations and takes back jobs whose worker died (in this process or another).

Database calls run in threads; the jobs run on the event loop. Subclasses say how to claim,
run and recover their kind of job.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Hashable
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from sqlalchemy import Engine
from sqlmodel import Session

from corpus.store.models import EvalRun, JobStatus, Task
from corpus.store.notify import QUEUE, Notifier
from corpus.store.queue import Beat, Recovered, heartbeat
from parforge.service import identity
from parforge.service.config import ServerConfig

log = logging.getLogger(__name__)

CANCEL = "cancel"
"""Notifier key the API pokes after a cancel request, so the keeper acts before its next beat."""

LEASE_LOST = "lease lost"

Row = TypeVar("Row", Task, EvalRun)
Key = TypeVar("Key", bound=Hashable)


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
        self, engine: Engine, config: ServerConfig, workers: int, notifier: Notifier | None
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

    async def start(self) -> None:
        """Take back what dead workers left running, then start the workers and the keeper."""
        await self.recover()
        self._loops = [
            asyncio.create_task(self._work(), name=f"{self.kind}-worker-{i}")
            for i in range(self.workers)
        ]
        self._loops.append(asyncio.create_task(self._keep(), name=f"{self.kind}-keeper"))

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

    async def _work(self) -> None:
        while True:
            with self.notifier.subscribe(QUEUE) as wake:
                row = await asyncio.to_thread(self._claim, None)
                if row is None:
                    await wake.wait(self.config.poll_s)
                    continue
            await self._execute(row)

    async def _keep(self) -> None:
        beats = 0
        while True:
            with self.notifier.subscribe(CANCEL) as poke:
                # Only jobs registered before the beat can be judged by it: one claimed while
                # the beat was in flight would look taken away.
                before = dict(self._running)
                beat = await asyncio.to_thread(self._beat)
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

    def _beat(self) -> Beat:
        with Session(self.engine) as session:
            return heartbeat(session, self.model, self.worker)

    def _alive(self, worker: str) -> bool:
        return worker == self.worker or identity.alive(worker)

    def _recovered(self, item: Recovered) -> None:
        """Called for every job taken back from a dead worker."""

    @abstractmethod
    def _claim(self, key: Key | None) -> Row | None:
        """Claim the oldest queued job, or the given one (blocking)."""

    @abstractmethod
    async def _execute(self, row: Row) -> None:
        """Run a claimed job to its end, registered in `_running` while it runs."""

    @abstractmethod
    def _recover_sync(self) -> list[Recovered]:
        """Take back the jobs of dead or silent workers (blocking)."""
