"""A task's event log as a live stream: replay from the database, then follow.

Works across processes because it reads the database; a write made in this process wakes the
stream at once through the notifier, a write made elsewhere is seen at the next poll.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

from sqlalchemy import Engine
from sqlmodel import Session

from corpus.store import Notifier, tasks
from corpus.store.models import EventKind, JobStatus
from corpus.store.notify import task_key


@dataclass(frozen=True)
class Event:
    id: int
    kind: EventKind
    data: dict[str, object]

    def is_terminal(self) -> bool:
        status = self.data.get("status")
        return self.kind is EventKind.STATUS and JobStatus(str(status)).terminal


async def follow(
    engine: Engine,
    notifier: Notifier,
    task_id: str,
    *,
    after: int = 0,
    follow: bool = True,
    poll_s: float = 1.0,
) -> AsyncIterator[Event]:
    """Events with id > `after`; with `follow`, until the task reaches a final status."""

    def read(cursor: int) -> list[tuple[int, EventKind, dict[str, object]]]:
        with Session(engine) as session:
            return tasks.events_after(session, task_id, cursor)

    with notifier.subscribe(task_key(task_id)) as wake:
        while True:
            batch = await asyncio.to_thread(read, after)
            for event_id, kind, data in batch:
                after = event_id
                event = Event(event_id, kind, data)
                yield event
                if follow and event.is_terminal():
                    return
            if len(batch) == 100:
                continue  # a full page: more may be waiting
            if not follow:
                return
            await wake.wait(poll_s)


def to_sse(event: Event) -> dict[str, str]:
    return {"id": str(event.id), "event": event.kind.value, "data": json.dumps(event.data)}
