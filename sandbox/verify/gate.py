"""A timing gate: timed runs have the sandbox to themselves, the rest of the work shares it.

Verifications that run at once (an eval verifies as many as the pool holds) would otherwise time
their candidates while other jobs compile and test beside them, and report the contention as
slowness. With one `TimingGate` passed to all of them, every command takes the gate: ordinary
commands together, each timing run alone. A timing run waits for the commands in flight to
finish, and no new command starts while it waits or runs (so timing is never starved). Only one
command holds the gate at a time in exclusive mode and nothing is acquired while holding it, so
the gate cannot deadlock with other locks (such as the reference cache's).

A gate may also be given a `quiet` hook: an async context manager entered around every timing
run, which holds back other load its owner controls (ParForge passes one that pauses the
embedded model server; the sandbox itself knows nothing of it). What load remains is measured
by the sandbox and flagged (`sandbox.verify.speedup`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

Quiet = Callable[[], AbstractAsyncContextManager[None]]
"""Holds back load its owner controls while a timing run has the sandbox."""


class TimingGate:
    """A writer-preferring readers-writer lock for one event loop."""

    def __init__(self, quiet: Quiet | None = None) -> None:
        self._changed = asyncio.Condition()
        self._shared = 0
        self._exclusive = False
        self._waiting = 0
        self.quiet = quiet

    @property
    def holders(self) -> tuple[int, bool]:
        """(commands holding it together, whether a timing run holds it alone)."""
        return self._shared, self._exclusive

    @asynccontextmanager
    async def shared(self) -> AsyncIterator[None]:
        """Hold the gate with other ordinary commands."""
        async with self._changed:
            await self._changed.wait_for(lambda: not self._exclusive and self._waiting == 0)
            self._shared += 1
        try:
            yield
        finally:
            async with self._changed:
                self._shared -= 1
                self._changed.notify_all()

    @asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """Hold the gate alone (a timing run)."""
        async with self._changed:
            self._waiting += 1
            try:
                await self._changed.wait_for(lambda: not self._exclusive and self._shared == 0)
            finally:
                self._waiting -= 1
                # A cancelled waiter must wake the commands it was holding back.
                self._changed.notify_all()
            self._exclusive = True
        try:
            if self.quiet is None:
                yield
            else:
                async with self.quiet():
                    yield
        finally:
            async with self._changed:
                self._exclusive = False
                self._changed.notify_all()
