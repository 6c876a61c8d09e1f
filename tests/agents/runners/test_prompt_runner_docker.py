"""Prompt mode through the API with a scripted strong model and the real Docker sandbox:
a known-good OpenMP program passes (with speedups), a racy one does not."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session

from agents.llm import LLMClient
from agents.runners import PromptModeConfig, PromptRunner, SandboxJudge
from corpus.store import keys, open_store
from parforge.api import create_app
from sandbox.config import DockerConfig
from sandbox.verify.verifier import open_verifier
from tests.fakes.api import settings_for
from tests.fakes.llm import Reply

pytestmark = pytest.mark.docker

PROGRAMS = Path(__file__).parent / "programs"
SERIAL = (PROGRAMS / "primes.c").read_text()
GOOD = (PROGRAMS / "primes_omp.c").read_text()
# The same loop without the reduction: threads race on `count` and `sum`.
RACY = GOOD.replace(" reduction(+ : count, sum)", "")
TESTS = [
    {"name": "small", "args": ["1000"]},
    {"name": "odd", "args": ["4099"]},
    {"name": "timed", "args": ["1000000"]},
]


async def _until_done(client: httpx.AsyncClient, task_id: str, limit_s: float) -> dict[str, Any]:
    async with asyncio.timeout(limit_s):
        while True:
            task: dict[str, Any] = (await client.get(f"/v1/tasks/{task_id}")).json()
            if task["status"] in ("succeeded", "failed", "cancelled"):
                return task
            await asyncio.sleep(0.2)


async def test_a_known_good_program_passes_with_speedups(
    sandbox_image: str, tmp_path: Path, fake_llm: Any, llm_config: Any
) -> None:
    assert GOOD != RACY
    fake_llm.script(
        Reply(texts=[f"```c\n{RACY}```\nShared counters.", f"Parallel:\n```c\n{GOOD}```"])
    )
    runner = PromptRunner(
        LLMClient(llm_config, transport=fake_llm.transport()),
        SandboxJudge(open_verifier(DockerConfig(pool_size=2))),
        PromptModeConfig(threads=[1, 2], timing_repeats=3),
    )
    url = f"sqlite:///{tmp_path / 'store.db'}"
    app = create_app(settings_for(url, tmp_path), runner=runner)
    try:
        async with app.router.lifespan_context(app):
            engine = open_store(url)
            with Session(engine) as s:
                token = keys.create(s, "docker-test").token
            engine.dispose()
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport,
                base_url="http://test",
                headers={"Authorization": f"Bearer {token}"},
            ) as client:
                body = {
                    "name": "primes",
                    "language": "c",
                    "target": "openmp",
                    "source": SERIAL,
                    "tests": TESTS,
                    "budgets": {"samples": 2},
                }
                accepted = await client.post("/v1/tasks", json=body)
                assert accepted.status_code == 202, accepted.text
                task_id = accepted.json()["id"]
                task = await _until_done(client, task_id, limit_s=600)
                candidates = (await client.get(f"/v1/tasks/{task_id}/candidates")).json()["items"]
    finally:
        await runner.aclose()

    assert task["status"] == "succeeded", task["reason"]
    racy, good = candidates
    assert racy["source"] == RACY and good["source"] == GOOD
    assert good["verdict"]["status"] == "passed", good["verdict"]["reason"]
    assert racy["verdict"]["status"] in ("race", "wrong_answer"), racy["verdict"]["reason"]
    assert task["best_candidate_id"] == good["id"]
    speedup = good["verdict"]["data"]["timing"]["speedup"]
    assert set(speedup) == {"1", "2"} and all(s > 0 for s in speedup.values())
    assert task["reason"].startswith("1 of 2 candidates passed; best ")
    assert task["best_speedup"] == max(speedup.values())
