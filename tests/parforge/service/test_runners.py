"""Runners per agent: chosen by the task's agent, built on first use, a broken one fails only
its tasks; the override runs everything."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from corpus.store import Notifier, tasks
from corpus.store.config import StoreConfig
from corpus.store.models import JobStatus, RunRow, TaskCreate, TaskRow
from parforge.service.pool import WorkerPool
from parforge.service.runners import Runners, ServiceError
from parforge.settings import ServiceConfig, Settings
from tests.fakes.runners import ScriptedRunner

HERE = "tests.parforge.service.test_runners"
BUILT: list[str] = []
"""The names of the runners the factories below built, in order."""


class NamedRunner(ScriptedRunner):
    def __init__(self, name: str, **options: Any) -> None:
        super().__init__(**options)
        self.name = name
        self.closed = False

    async def aclose(self) -> None:
        self.closed = True


def build_graph(settings: Settings) -> NamedRunner:
    BUILT.append("graph")
    return NamedRunner("scripted-graph", **settings.server.runner_options)


def build_prompt(settings: Settings) -> NamedRunner:
    BUILT.append("prompt")
    return NamedRunner("scripted-prompt", **settings.server.runner_options)


def build_broken(settings: Settings) -> NamedRunner:
    raise RuntimeError("no model configured")


def build_a_string(settings: Settings) -> str:
    return "prompt mode"


def settings_with(tmp_path: Path, **server: Any) -> Settings:
    config = {"poll_s": 0.05, "heartbeat_s": 0.05, "lease_s": 5, **server}
    return Settings(
        data_dir=tmp_path, store=StoreConfig(url="sqlite://"), server=ServiceConfig(**config)
    )


PATHS = {"graph": f"{HERE}:build_graph", "prompt": f"{HERE}:build_prompt"}


@pytest.fixture(autouse=True)
def _no_runners_built():
    BUILT.clear()


def _submit(engine, *agents: str | None) -> list[str]:
    ids = []
    with Session(engine) as s:
        for agent in agents:
            create = TaskCreate(target="openmp", source="int f();", agent=agent or "graph")
            task = tasks.submit(s, create)
            if agent is None:  # a task stored before tasks named their agent
                task.agent = None
                s.add(task)
                s.commit()
            ids.append(task.id)
    return ids


async def _run_all(
    engine, runners: Runners, ids: list[str], config: ServiceConfig
) -> list[TaskRow]:
    pool = WorkerPool(engine, runners, config)
    await pool.start()
    try:
        async with asyncio.timeout(10):
            while True:
                with Session(engine) as s:
                    done = [tasks.get(s, i) for i in ids]
                if all(t is not None and JobStatus(t.status).terminal for t in done):
                    return [t for t in done if t is not None]
                await asyncio.sleep(0.02)
    finally:
        await pool.stop()


def _runner_names(engine, task_id: str) -> list[str]:
    with Session(engine) as s:
        return [r.runner for r in s.exec(select(RunRow).where(RunRow.task_id == task_id)).all()]


async def test_each_task_runs_on_its_agents_runner_built_once_on_first_use(engine, tmp_path):
    settings = settings_with(tmp_path, runners=PATHS, runner_options={"samples": 1})
    runners = Runners.from_settings(settings)
    assert runners is not None and BUILT == []  # nothing is built before a task needs it
    ids = _submit(engine, "prompt", "graph", "prompt", None)
    done = await _run_all(engine, runners, ids, settings.server)
    assert [t.status for t in done] == [JobStatus.SUCCEEDED] * 4
    assert [_runner_names(engine, i) for i in ids] == [
        ["scripted-prompt"],
        ["scripted-graph"],
        ["scripted-prompt"],
        ["scripted-graph"],  # no agent stored: the default agent
    ]
    assert sorted(BUILT) == ["graph", "prompt"]
    built = [runners.get("graph"), runners.get("prompt")]
    await runners.aclose()
    assert all(isinstance(r, NamedRunner) and r.closed for r in built)


@pytest.mark.parametrize(
    ("path", "why"),
    [
        (f"{HERE}:build_nothing", "cannot load the task runner"),
        ("no_such_package.runners:build", "cannot load the task runner"),
        (f"{HERE}:build_broken", "failed: no model configured"),
        (f"{HERE}:build_a_string", "gave str, not a TaskRunner"),
    ],
)
async def test_a_runner_that_cannot_be_built_fails_only_its_tasks(engine, tmp_path, path, why):
    settings = settings_with(tmp_path, runners={**PATHS, "graph": path})
    runners = Runners.from_settings(settings)
    assert runners is not None
    ids = _submit(engine, "graph", "prompt", "graph")
    broken, fine, again = await _run_all(engine, runners, ids, settings.server)
    assert fine.status == JobStatus.SUCCEEDED
    for task in (broken, again):  # each task of that agent tries, and says why it could not
        assert task.status == JobStatus.FAILED
        assert task.reason.startswith("cannot run it: ") and why in task.reason
        assert path in task.reason
        assert _runner_names(engine, task.id) == []  # nothing ran
    await runners.aclose()


async def test_an_agent_without_a_runner_fails_its_tasks(engine, tmp_path):
    settings = settings_with(tmp_path, runners={"prompt": PATHS["prompt"]})
    runners = Runners.from_settings(settings)
    assert runners is not None
    with pytest.raises(ServiceError, match="no runner for agent 'graph' here"):
        runners.get("graph")
    [task] = await _run_all(engine, runners, _submit(engine, "graph"), settings.server)
    assert task.status == JobStatus.FAILED and "agents: prompt" in task.reason


async def test_the_override_runs_every_task_whatever_its_agent(engine, tmp_path):
    settings = settings_with(tmp_path, runners=PATHS, runner=f"{HERE}:build_prompt")
    runners = Runners.from_settings(settings)
    assert runners is not None and runners.label == f"{HERE}:build_prompt"
    ids = _submit(engine, "graph", "prompt")
    await _run_all(engine, runners, ids, settings.server)
    assert [_runner_names(engine, i) for i in ids] == [["scripted-prompt"]] * 2
    assert BUILT == ["prompt"]
    await runners.aclose()


@pytest.mark.parametrize("value", ["none", "", "None"])
def test_runner_none_means_this_process_runs_no_tasks(tmp_path, value):
    assert Runners.from_settings(settings_with(tmp_path, runner=value)) is None


def test_the_default_agents_and_their_runners_from_the_environment(monkeypatch):
    server = Settings().server
    assert server.runner is None
    assert server.runners == {
        "graph": "parforge.service.runners:build_graph_runner",
        "prompt": "parforge.service.runners:build_prompt_runner",
    }
    monkeypatch.setenv("PARFORGE_SERVER__RUNNERS", '{"prompt": "x:y"}')
    assert Settings().server.runners == {"prompt": "x:y"}


async def test_cancel_stops_a_runner_built_for_the_agent(engine, tmp_path):
    options = {"samples": 100, "delay_s": 0.05}
    settings = settings_with(tmp_path, runners=PATHS, runner_options=options)
    runners = Runners.from_settings(settings)
    assert runners is not None
    [task_id] = _submit(engine, "prompt")
    pool = WorkerPool(engine, runners, settings.server, Notifier())
    await pool.start()
    try:
        async with asyncio.timeout(10):
            while True:
                with Session(engine) as s:
                    task = tasks.get(s, task_id)
                    assert task is not None
                    if task.status == JobStatus.RUNNING:
                        break
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.1)
            with Session(engine) as s:
                assert tasks.request_cancel(s, task_id) == tasks.CancelOutcome.REQUESTED
            while True:
                with Session(engine) as s:
                    task = tasks.get(s, task_id)
                    assert task is not None
                    if JobStatus(task.status).terminal:
                        break
                await asyncio.sleep(0.02)
    finally:
        await pool.stop()
        await runners.aclose()
    assert task.status == JobStatus.CANCELLED
    with Session(engine) as s:
        [run] = tasks.runs(s, task_id)
    assert run.runner == "scripted-prompt" and run.status == JobStatus.CANCELLED


async def test_every_runner_a_process_builds_times_under_one_gate(engine, tmp_path):
    """Graph, prompt and eval runners (and the eval's own graph agent), and the judge that
    checks submitted programs, share one timing gate and one model pause: with a gate each,
    one runner's timing run would share the cores with another's builds, and its release
    resume the model under the other's timing run."""
    from parforge.app import sandbox_judge
    from parforge.service.evals import build_eval_runner
    from parforge.service.runners import build_graph_runner, build_prompt_runner

    settings = settings_with(tmp_path)
    graph, prompt = build_graph_runner(settings), build_prompt_runner(settings)
    evals, judge = build_eval_runner(settings, engine), sandbox_judge(settings)
    try:
        gate = graph.judge.gate
        assert prompt.judge.gate is gate and evals.gate is gate and judge.gate is gate
        assert gate.quiet is not None  # the embedded model server's pause, once
        entered = asyncio.Event()

        async def ordinary_command() -> None:
            async with evals.gate.shared():
                entered.set()

        async with prompt.judge.gate.exclusive():  # the prompt runner's timing run
            waiting = asyncio.create_task(ordinary_command())
            await asyncio.sleep(0.05)
            assert not entered.is_set()  # the eval's build waits for it
        await asyncio.wait_for(waiting, 5)
    finally:
        await graph.aclose()
        await prompt.aclose()
        await evals.aclose()
        await judge.aclose()
    # another event loop (another `asyncio.run`) has a gate of its own: an asyncio lock is
    # bound to its loop
    other = await asyncio.to_thread(lambda: asyncio.run(_gate_in_a_loop(settings)))
    assert other is not gate
    # another model (here another data directory, so another server to pause) another gate;
    # a stopping service forgets its loop's
    from parforge.service.runners import release_timing_gates, timing_gate

    elsewhere = settings_with(tmp_path / "other")
    assert timing_gate(elsewhere) is not gate and timing_gate(settings) is gate
    release_timing_gates()
    assert timing_gate(settings) is not gate


async def _gate_in_a_loop(settings: Settings) -> object:
    from parforge.service.runners import timing_gate

    return timing_gate(settings)
