"""The default runner end to end, real everything: the API (ASGI transport, app factory),
SQLite, the embedded vLLM server and the Docker sandbox. Nothing is assumed about whether the
tiny model's code passes; everything it did must be stored, verified and exportable."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from sqlmodel import Session, col, select

from corpus.export import ExportFormat, schema_for
from corpus.store import keys, open_store
from corpus.store.config import StoreConfig
from corpus.store.models import StepRow
from parforge.api import create_app
from parforge.model_server import ModelConfig
from parforge.settings import ServiceConfig, Settings
from sandbox.config import DockerConfig
from tests.fakes.paths import RUNNER_PROGRAMS

pytestmark = [pytest.mark.vllm, pytest.mark.docker]

SOURCE = (RUNNER_PROGRAMS / "primes.c").read_text()


async def test_a_task_runs_on_the_embedded_model_and_the_docker_sandbox(
    vllm_config: Any, sandbox_image: str, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    settings = Settings(
        data_dir=tmp_path,
        store=StoreConfig(url=url),
        server=ServiceConfig(poll_s=0.1, heartbeat_s=0.5),  # each agent's runner from settings
        model=ModelConfig(endpoint=vllm_config),
        sandbox=DockerConfig(pool_size=2),
    )
    assert settings.server.runners["prompt"] == "parforge.service.runners:build_prompt_runner"
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        engine = open_store(url)
        with Session(engine) as s:
            token = keys.create(s, "e2e").token
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport,
            base_url="http://test",
            headers={"Authorization": f"Bearer {token}"},
            timeout=60,
        ) as client:
            health = (await client.get("/healthz")).json()
            assert health["runner"] == "graph, prompt"
            body = {
                "agent": "prompt",
                "name": "primes",
                "language": "c",
                "target": "openmp",
                "source": SOURCE,
                "tests": [{"name": "small", "args": ["1000"]}, {"name": "odd", "args": ["4099"]}],
                "budgets": {"samples": 2, "max_tokens": 384, "time_s": 600},
            }
            accepted = await client.post("/v1/tasks", json=body)
            assert accepted.status_code == 202, accepted.text
            task_id = accepted.json()["id"]
            async with asyncio.timeout(660):
                while True:
                    task = (await client.get(f"/v1/tasks/{task_id}")).json()
                    if task["status"] not in ("queued", "running"):
                        break
                    await asyncio.sleep(0.5)
            candidates = (await client.get(f"/v1/tasks/{task_id}/candidates")).json()["items"]
            [run] = (await client.get(f"/v1/tasks/{task_id}/runs")).json()["items"]
            exports = {
                fmt: [
                    json.loads(line)
                    for line in (await client.get(f"/v1/exports/{fmt.value}")).text.splitlines()
                ]
                for fmt in ExportFormat
            }
            everything = [
                json.loads(line)
                for line in (
                    await client.get("/v1/exports/sft", params={"verified_only": False})
                ).text.splitlines()
            ]
        with Session(engine) as s:
            steps = s.exec(
                select(StepRow).where(StepRow.task_id == task_id).order_by(col(StepRow.seq))
            ).all()
        engine.dispose()

    # The infrastructure worked, so the run did its job whatever the model wrote.
    passed = sum(bool(c["verdict"] and c["verdict"]["passed"]) for c in candidates)
    assert task["status"] == ("succeeded" if passed else "no_verified_candidate"), task["reason"]
    assert task["reason"].split(" candidates passed")[0] in ("0 of 2", "1 of 2", "2 of 2")
    assert run["runner"] == "prompt" and run["model"] == vllm_config.model

    llm = [st for st in steps if st.kind == "llm_call"]
    tools = [st for st in steps if st.kind == "tool_call"]
    assert len(llm) == 2 and len(tools) == 2
    for st in llm:
        assert st.messages and st.messages[0]["role"] == "system"
        assert SOURCE.strip() in st.messages[1]["content"]
        assert st.response is not None and st.response["role"] == "assistant"
        assert st.sampling and st.sampling["n"] == 2 and st.sampling["max_tokens"] == 384
        assert st.latency_s and st.ttft_s and st.model == vllm_config.model
    assert llm[0].prompt_tokens and llm[0].completion_tokens
    assert {t.parent_id for t in tools} == {st.id for st in llm}
    assert all(t.tool_name == "verify" and t.result and not t.error for t in tools)

    assert [c["step_id"] for c in candidates] == [st.id for st in llm]
    for candidate in candidates:
        verdict = candidate["verdict"]
        assert verdict is not None, candidate
        assert verdict["status"] != "reference_failed", verdict["reason"]
        if candidate["source"].strip():
            assert verdict["data"]["steps"], "verified in the sandbox, with its commands"

    distinct = len({json.dumps(st.response, sort_keys=True) for st in llm})  # export dedupes
    assert len(everything) == distinct
    # By default only the samples whose candidate passed are training data.
    assert len(exports[ExportFormat.SFT]) == len(exports[ExportFormat.OPENAI]) <= passed
    for fmt, lines in exports.items():
        for line in lines:
            jsonschema.validate(line, schema_for(fmt))
