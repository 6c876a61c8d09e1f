"""Submitting through the application layer with a scripted judge: the original is checked
after the cheap checks and before anything is stored; a refusal is a typed error with the
reason and the field; an accepted task is stored, queued, and announced to the workers."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from corpus.store import Notifier, keys, tasks
from corpus.store.models import TaskCreate, TaskRow
from corpus.store.notify import QUEUE
from parforge.app import OverLimit, Rejected, submit
from parforge.settings import KeyLimits
from sandbox.spec import Target
from sandbox.verdict import BuildReport, Diagnostic, Status, Verdict
from tests.fakes.api import settings_for
from tests.fakes.judge import ScriptedJudge, judging_originals

SOURCE = "int main(void) { return 0; }\n"


def _stored(engine: Engine) -> list[TaskRow]:
    with Session(engine) as session:
        return list(session.exec(select(TaskRow)).all())


@pytest.fixture
def settings(store_url: str, tmp_path: Path):
    return settings_for(store_url, tmp_path, limits=KeyLimits(active_tasks=1))


async def test_a_good_original_is_stored_queued_and_announced(engine, settings):
    judge = judging_originals()
    notifier = Notifier()
    with notifier.subscribe(QUEUE) as queued:
        task = await submit(
            TaskCreate(source=SOURCE, target="openmp"),
            engine=engine,
            judge=judge,
            settings=settings,
            notifier=notifier,
        )
        assert await queued.wait(1)
    assert judge.sources == [SOURCE]  # the original, checked against itself
    assert task.status == "queued" and task.source == SOURCE
    assert [t.id for t in _stored(engine)] == [task.id]


async def test_an_original_that_does_not_build_is_rejected_and_nothing_stored(engine, settings):
    broken = Verdict(
        target=Target.SERIAL,
        status=Status.BUILD_FAILED,
        build=BuildReport(ok=False, diagnostics=[Diagnostic(severity="error", message="no x")]),
    )
    notifier = Notifier()
    with notifier.subscribe(QUEUE) as queued:
        with pytest.raises(Rejected) as refused:
            await submit(
                TaskCreate(source=SOURCE, target="openmp"),
                engine=engine,
                judge=ScriptedJudge(lambda source: broken),
                settings=settings,
                notifier=notifier,
            )
        assert not await queued.wait(0.05)
    assert refused.value.reason == "the original program does not build: no x"
    assert refused.value.field == "source"
    assert _stored(engine) == []


async def test_an_original_that_crashes_is_rejected(engine, settings):
    with pytest.raises(Rejected) as refused:
        await submit(
            TaskCreate(source=SOURCE, target="openmp"),
            engine=engine,
            judge=judging_originals(Status.CRASHED, "exit status 139"),
            settings=settings,
        )
    assert refused.value.reason == "the original program fails on its own tests: exit status 139"
    assert _stored(engine) == []


@pytest.mark.parametrize(
    ("create", "reason", "field"),
    [
        (TaskCreate(source="int f(void) { return 1; }\n", target="openmp"), "no main()", "source"),
        (
            TaskCreate(source=SOURCE, target="openmp", options={"function": "f"}),
            "no function 'f'",
            "options.function",
        ),
        (TaskCreate(source=SOURCE, target="openmp", agent="evolve"), "unknown agent", "agent"),
        (TaskCreate(source=SOURCE * 10_000, target="openmp"), "the limit is 200000", "source"),
    ],
)
async def test_the_cheap_checks_refuse_before_the_sandbox_runs(
    engine, settings, create, reason, field
):
    judge = judging_originals()
    with pytest.raises(Rejected) as refused:
        await submit(create, engine=engine, judge=judge, settings=settings)
    assert reason in refused.value.reason and refused.value.field == field
    assert judge.sources == []


async def test_a_key_at_its_limit_is_over_it(engine, settings):
    with Session(engine) as session:
        owner = keys.create(session, "k").id
        tasks.submit(session, TaskCreate(source=SOURCE, target="openmp"), owner)
    judge = judging_originals()
    with pytest.raises(OverLimit, match="1 tasks queued or running; the limit is 1"):
        await submit(
            TaskCreate(source=SOURCE, target="openmp"),
            engine=engine,
            judge=judge,
            settings=settings,
            owner=owner,
        )
    assert judge.sources == []
