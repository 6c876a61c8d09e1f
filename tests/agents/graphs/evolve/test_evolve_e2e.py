"""Evolution end to end in the real Docker sandbox, without a model: the analysis annotates a
skewed loop (row i costs i*i/n) with a plain static schedule (the first correct candidate), and
parameter mutations alone must find a schedule that balances it, measured by the sandbox's
timing runs and believed only with confidence. The verifier says so, not the test.

The skew is quadratic, not triangular, so that the gap a balanced schedule opens is wide on a
noisy two-core host: block-static gives the last thread 7/8 of the work on two threads (at
most 1.14x), a cyclic or dynamic schedule splits it evenly. A triangle's 1.33x against 2x left
too little room for confidence when a neighbour took a core."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlmodel import Session

from agents.graphs.shared.config import EvolveConfig, GraphConfig
from agents.llm import LLMClient, LLMConfig
from agents.runners import GraphRunner, SandboxJudge
from corpus.store import open_store, tasks
from corpus.store.models import JobStatus, TaskCreate, TestInput
from parforge.service.pool import WorkerPool
from parforge.settings import ServiceConfig
from sandbox.config import DockerConfig
from sandbox.verify.verifier import open_verifier
from tests.fakes.graphs import RoutedLLM
from tests.fakes.llm import FakeLLMServer, Reply
from tests.fakes.pool import ONE_WORKER

pytestmark = [pytest.mark.docker, pytest.mark.slow]

SKEWED = """#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    double total = 0.0;
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j < (long)i * i / n; j++)
            s += (double)(j % 7) / (i + 1);
        total += s;
    }
    printf("%.6e\\n", total);
    return 0;
}
"""


def submit_skewed(engine: Any, timed: str) -> str:
    """The skewed loop as a task: a small test, and `timed` rows as the timing input."""
    create = TaskCreate(
        name="skewed",
        language="c",
        target="openmp",
        source=SKEWED,
        tests=[TestInput(name="small", args=["300"]), TestInput(name="big", args=[timed])],
        options={"rtol": 1e-5},
    )
    with Session(engine) as s:
        return tasks.submit(s, create).id


@pytest.fixture(scope="module")
def evolved(sandbox_image: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    url = f"sqlite:///{tmp_path_factory.mktemp('evolve') / 'store.db'}"
    engine = open_store(url)
    task_id = submit_skewed(engine, timed="16000")

    async def run() -> None:
        config = GraphConfig(
            use_model=False,
            planner=False,
            threads=[1, 2],
            evolve=True,
            evolution=EvolveConfig(generations=2, children=3, model_children=0, seed=3),
        )
        llm = LLMClient(LLMConfig(url="http://127.0.0.1:9/v1"))  # never called: no model
        verifier = SandboxJudge(open_verifier(DockerConfig(pool_size=2)))
        runner = GraphRunner(llm, verifier, config)
        pool = WorkerPool(engine, runner, ServiceConfig(workers=1, poll_s=0.1, heartbeat_s=0.5))
        try:
            await pool.run_task(task_id)
        finally:
            await runner.aclose()

    asyncio.run(run())
    with Session(engine) as s:
        task = tasks.get(s, task_id)
        found = {
            "task": task,
            "candidates": tasks.candidates(s, task_id),
            "steps": tasks.steps_of(s, task_id),
        }
    engine.dispose()
    return found


def test_parameter_mutations_balance_a_skewed_loop(evolved: dict[str, Any]) -> None:
    task = evolved["task"]
    assert task.status == JobStatus.SUCCEEDED, task.reason
    evolution = next(s.result for s in evolved["steps"] if s.name == "evolution")
    first, best = evolution["first_candidate_id"], evolution["best_candidate_id"]
    by_id = {c.id: c for c in evolved["candidates"]}
    assert "schedule(static)" in by_id[first].source  # the analysis's plain first choice
    assert best != first, evolution["history"]
    assert task.best_candidate_id == best
    assert evolution["best_speedup"] > evolution["first_speedup"] * 1.15
    chain = evolution["lineage"]
    assert chain[-1]["candidate_id"] == best and evolution["best_confidence"] >= 0.95
    pragma = next(line for line in by_id[best].source.splitlines() if "#pragma omp" in line)
    assert "schedule(static)" not in pragma
    assert evolution["evaluations"] == len(evolution["history"]) <= 6


RACY = SKEWED.replace(
    "    for (int i = 0; i < n; i++) {",
    "    #pragma omp parallel for schedule(dynamic)\n    for (int i = 0; i < n; i++) {",
)
"""What a careless model writes: a faster schedule, and `total` updated by every thread."""


class RacyModel(RoutedLLM):
    """The scripted model: asked for a faster version of verified code, it answers `RACY`."""

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        if b"passed verification" in request.content:
            self.replies.appendleft(Reply(texts=[f"```c\n{RACY}```"]))
            return await FakeLLMServer.handle(self, request)
        return await super().handle(request)


async def test_a_racy_model_child_never_wins(
    sandbox_image: str, tmp_path: Path, llm_config: Any
) -> None:
    engine = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    # Too short to time: this test is about correctness, and the timing runs are its cost.
    task_id = submit_skewed(engine, timed="1500")
    config = GraphConfig(
        planner=False,
        threads=[1, 2],
        extra_tests=0,
        evolve=True,
        evolution=EvolveConfig(generations=1, children=1, model_children=1),
    )
    llm = LLMClient(llm_config, transport=RacyModel().transport())
    runner = GraphRunner(llm, SandboxJudge(open_verifier(DockerConfig(pool_size=2))), config)
    try:
        assert await WorkerPool(engine, runner, ONE_WORKER).run_task(task_id)
    finally:
        await runner.aclose()
    with Session(engine) as s:
        task = tasks.get(s, task_id)
        steps = tasks.steps_of(s, task_id)
        candidates = {c.id: c for c in tasks.candidates(s, task_id)}
    engine.dispose()
    assert task is not None and task.status == JobStatus.SUCCEEDED, task and task.reason
    evolution = next(s.result for s in steps if s.name == "evolution")
    (child,) = evolution["history"]
    assert (
        child["operator"] == "model"
        and candidates[child["candidate_id"]].source.strip() == RACY.strip()
    )
    # The sandbox, not the test, says what is wrong with it: a race, or the wrong total.
    assert not child["correct"] and child["status"] in ("race", "wrong_answer"), child
    assert not child["best"] and evolution["best_candidate_id"] == evolution["first_candidate_id"]
    assert task.best_candidate_id == evolution["first_candidate_id"]
