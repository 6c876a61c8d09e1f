"""Reasoning threads end to end, real everything: K = 6 threads from the embedded vLLM server
beside the plan, pruned while they stream, the survivors probed and verified in the Docker
sandbox, every thread stored below its outline."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from agents.graphs.shared.config import GraphConfig
from agents.llm import LLMClient
from agents.reasoning import reasoning_summary
from agents.runners import GraphRunner, SandboxJudge
from corpus.store import open_store, tasks
from corpus.store.models import JobStatus, TaskCreate, TaskOptions, TestInput
from parforge.service.pool import WorkerPool
from parforge.settings import ServiceConfig
from sandbox.config import DockerConfig
from sandbox.verify.verifier import open_verifier
from tests.fakes.paths import GRAPH_PROGRAMS

pytestmark = [pytest.mark.vllm, pytest.mark.docker, pytest.mark.slow]


def test_six_threads_on_a_simple_loop(
    vllm_server: Any, model_pause: Any, sandbox_image: str, tmp_path: Path
) -> None:
    from parforge.model_server import ModelConfig

    engine = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    create = TaskCreate(
        name="reduce",
        language="c",
        target="openmp",
        source=(GRAPH_PROGRAMS / "reduce.c").read_text(),
        tests=[TestInput(name=f"t{i}", args=[n]) for i, n in enumerate(["1000", "3000000"])],
        budgets={"time_s": 600},
        options=TaskOptions(reasoning_threads=6),
    )
    with Session(engine) as s:
        task_id = tasks.submit(s, create).id

    async def run() -> None:
        llm = LLMClient(ModelConfig().client_config())
        verifier = SandboxJudge(open_verifier(DockerConfig(pool_size=2)), quiet=model_pause)
        # Threads at a low temperature, as reasoning threads from one prefix tend to be.
        config = GraphConfig(
            planner=False,
            thread_tokens=320,
            rewrite_tokens=320,
            repairs=0,
            replans=0,
            temperature=0.2,
            size_to_window=False,  # 320 tokens a thread, not the 4k window's 900
        )
        runner = GraphRunner(llm, verifier, config)
        pool = WorkerPool(engine, runner, ServiceConfig(workers=1, poll_s=0.1, heartbeat_s=0.5))
        try:
            assert await pool.run_task(task_id)
        finally:
            await runner.aclose()

    asyncio.run(run())
    with Session(engine) as s:
        task = tasks.get(s, task_id)
        candidates = tasks.candidates(s, task_id)
        steps = tasks.steps_of(s, task_id)
    engine.dispose()

    reasons = [c.verdict.data.get("reason") for c in candidates if c.verdict is not None]
    assert task is not None and task.status == JobStatus.SUCCEEDED, (task and task.reason, reasons)
    best = next(c for c in candidates if c.id == task.best_candidate_id)
    assert best.verdict is not None and best.verdict.data["status"] == "passed"
    assert best.verdict.data["concurrency"]["ok"]

    outline = next(s for s in steps if s.name == "outline")
    threads = [s for s in steps if s.name == "thread"]
    assert len(threads) == 6 and all(t.parent_id == outline.id for t in threads)
    statuses = [t.result["status"] for t in threads]
    assert "pruned" in statuses, [t.result for t in threads]
    summary = reasoning_summary(
        [(t.result, t.completion_tokens or 0, t.sampling or {}) for t in threads]
    )
    assert summary is not None and summary["pruned"] >= 1 and summary["tokens_saved"] > 0
    # Every finished thread's program is a candidate below its thread, with a verdict or
    # merged into one that behaves the same.
    fingerprint = next((s for s in steps if s.name == "fingerprint"), None)
    merged = set((fingerprint.result or {}).get("merged", {})) if fingerprint else set()
    for thread in threads:
        mine = [c for c in candidates if c.step_id == thread.id]
        for candidate in mine:
            assert candidate.verdict is not None or str(candidate.id) in merged
