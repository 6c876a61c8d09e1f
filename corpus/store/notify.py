"""In-process wake-ups, so that event streams and idle workers react at once to local writes.

The database stays the source of truth: a subscriber that misses a wake-up (the write happened
in another process) finds the change on its next poll anyway. Safe to call `notify` from any
thread; subscribers wake on their own event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager

QUEUE = "queue"
"""The key notified when a job is queued."""


def task_key(task_id: str) -> str:
    return f"task:{task_id}"


class Subscription:
    """Armed at creation: a notify that comes between creation and `wait` is not lost."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()

    def _fire(self) -> None:
        self._loop.call_soon_threadsafe(self._event.set)

    async def wait(self, seconds: float) -> bool:
        """True when notified since the last wait, False after `seconds` without."""
        try:
            await asyncio.wait_for(self._event.wait(), seconds)
        except TimeoutError:
            return False
        self._event.clear()
        return True


class Notifier:
    """Keyed wake-ups for subscribers in this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[str, set[Subscription]] = {}

    @contextmanager
    def subscribe(self, key: str) -> Iterator[Subscription]:
        subscription = Subscription()
        with self._lock:
            self._subscribers.setdefault(key, set()).add(subscription)
        try:
            yield subscription
        finally:
            with self._lock:
                subscribers = self._subscribers.get(key, set())
                subscribers.discard(subscription)
                if not subscribers:
                    self._subscribers.pop(key, None)

    def notify(self, key: str) -> None:
        with self._lock:
            subscribers = list(self._subscribers.get(key, ()))
        for subscription in subscribers:
            # A RuntimeError means its loop has closed: the subscriber is gone.
            with contextlib.suppress(RuntimeError):
                subscription._fire()
