"""Submitting a translation task, once for every edge (the API, `parforge tasks submit`,
`parforge translate`).

A submission is checked, cheapest first, then stored and announced: its size, its agent, the
caller's per-key limits, what the front end reads in it (C/C++, `main`, the function it names,
its spec), and last the original program itself, built and run on its own tests in the sandbox
through the `Judge`. A submission turned down raises one of these, with the reason for people:

    SubmitError              the root: `reason`
    ├── Rejected             the input cannot be translated as given (`field` says where)
    └── OverLimit            the caller has too many tasks queued or running

An infrastructure failure (the sandbox, the store) raises its own package's root error.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from sqlmodel import Session

from agents.judge import SandboxJudge, task_spec
from agents.preflight import InputRejected, check_original, check_task
from corpus.store import queue, tasks
from corpus.store.models import TaskCreate, TaskDetail, TaskRow
from corpus.store.notify import QUEUE
from parforge.app.limits import task_refusal

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from agents.judge import Judge
    from corpus.store import Notifier
    from parforge.settings import Settings


class SubmitError(Exception):
    """A submission turned down; `reason` says why, for the user."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Rejected(SubmitError):
    """The input cannot be translated as given; `field` names the part of it at fault."""

    def __init__(self, reason: str, field: str | None = None) -> None:
        super().__init__(reason)
        self.field = field


class OverLimit(SubmitError):
    """The caller already has as many tasks queued or running as it may."""

    def __init__(self, reason: str, retry_after_s: int | None = None) -> None:
        super().__init__(reason)
        self.retry_after_s = retry_after_s


def sandbox_judge(settings: Settings) -> SandboxJudge:
    """The judge the settings describe: the configured sandbox's verifier with its options,
    under the process's timing gate (its checks of submitted programs are builds and runs like
    the runners', so they wait while a runner's timing run has the sandbox). The caller closes
    it (`aclose`)."""
    from parforge.service.runners import timing_gate
    from sandbox.verify.verifier import open_verifier  # the Docker SDK: only when judging

    return SandboxJudge(
        open_verifier(settings.sandbox), settings.verify, gate=timing_gate(settings)
    )


async def submit(
    create: TaskCreate,
    *,
    engine: Engine,
    judge: Judge,
    settings: Settings,
    owner: int | None = None,
    notifier: Notifier | None = None,
) -> TaskDetail:
    """Check `create` (module docstring), store it as a queued task of `owner` (None: not an
    API key's) and wake the workers of `notifier`; the stored task."""
    limit = settings.server.max_source_chars
    if len(create.source) > limit:
        raise Rejected(f"source is {len(create.source)} characters; the limit is {limit}", "source")
    agents = settings.server.runners
    if create.agent not in agents:
        raise Rejected(
            f"unknown agent {create.agent!r}: use one of {', '.join(sorted(agents))}", "agent"
        )
    # The store and the front end block: off the event loop, which serves other requests.
    active = None if owner is None else await asyncio.to_thread(_active, engine, owner)
    refusal = task_refusal(create, active, settings.server.limits)
    if refusal is not None:
        if refusal.status == 429:
            raise OverLimit(refusal.reason, refusal.retry_after_s)
        raise Rejected(refusal.reason)
    try:
        await asyncio.to_thread(check_task, create)
        # Last, being the dearest: the original must build and pass its own tests, or no
        # candidate could ever be checked against it.
        await check_original(judge, task_spec(create, settings.graph))
    except InputRejected as exc:
        raise Rejected(str(exc), exc.field) from None
    task = await asyncio.to_thread(_store, engine, create, owner)
    if notifier is not None:
        notifier.notify(QUEUE)
    return task


def _active(engine: Engine, owner: int) -> int:
    with Session(engine) as session:
        return queue.active(session, TaskRow, owner)


def _store(engine: Engine, create: TaskCreate, owner: int | None) -> TaskDetail:
    with Session(engine) as session:
        return TaskDetail.model_validate(tasks.submit(session, create, owner))
