"""Tasks through the HTTP API: lifecycle, events, keys, and bad input answered with 4xx."""

from __future__ import annotations

import asyncio
import json

import httpx

from parforge.api import create_app
from sandbox.verdict import Status
from tests.fakes.api import settings_for, wait_done
from tests.fakes.judge import judging_originals
from tests.fakes.runners import ScriptedRunner

SOURCE = (
    "int sum(const int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }"
    "\nint main(void) { int a[3] = {1, 2, 3}; return sum(a, 3) != 6; }\n"
)


def _sse(text: str) -> list[tuple[str, dict]]:
    events, kind = [], None
    for line in text.splitlines():
        if line.startswith("event:"):
            kind = line.split(":", 1)[1].strip()
        elif line.startswith("data:"):
            events.append((kind, json.loads(line.split(":", 1)[1])))
    return events


async def test_task_lifecycle(api_factory):
    async with api_factory(runner=ScriptedRunner(samples=2)) as api:
        r = await api.client.post(
            "/v1/tasks",
            json={
                "source": SOURCE,
                "target": "openmp",
                "language": "c",
                "tests": [{"name": "small", "args": ["10"]}],
                "budgets": {"samples": 2},
            },
        )
        assert r.status_code == 202, r.text
        task_id = r.json()["id"]
        task = await wait_done(api.client, task_id)
        assert task["status"] == "succeeded" and task["best_speedup"] == 2.5
        assert task["source"] == SOURCE and task["tests"][0]["args"] == ["10"]

        cands = (await api.client.get(f"/v1/tasks/{task_id}/candidates")).json()["items"]
        assert [c["verdict"]["status"] for c in cands] == ["passed", "race"]
        assert task["best_candidate_id"] == cands[0]["id"]

        r = await api.client.get(f"/v1/tasks/{task_id}/events")
        assert r.headers["content-type"].startswith("text/event-stream")
        events = _sse(r.text)
        kinds = [k for k, _ in events]
        assert kinds[:3] == ["status", "status", "run"]
        assert kinds[3:-1] == ["step", "step", "candidate", "verdict"] * 2
        assert events[-1] == ("status", {"status": "succeeded", "reason": "1 of 2 passed"})
        step = events[3][1]
        assert step["kind"] == "llm_call" and step["messages"][1]["content"] == SOURCE

        # Resuming after an event id replays only what came later.
        r = await api.client.get(f"/v1/tasks/{task_id}/events", headers={"Last-Event-ID": "3"})
        assert len(_sse(r.text)) == len(events) - 3

        page = (await api.client.get("/v1/tasks", params={"limit": 1})).json()
        assert page["total"] == 1 and page["items"][0]["id"] == task_id
        assert "source" not in page["items"][0]
        assert (await api.client.post(f"/v1/tasks/{task_id}/cancel")).status_code == 409


async def test_events_follow_a_running_task(api_factory):
    async with api_factory(runner=ScriptedRunner(samples=3, delay_s=0.05)) as api:
        task_id = (
            await api.client.post("/v1/tasks", json={"source": SOURCE, "target": "mpi"})
        ).json()["id"]
        r = await api.client.get(f"/v1/tasks/{task_id}/events")
        assert _sse(r.text)[-1][1]["status"] == "succeeded"


async def test_queued_task_cancels_at_once(api_factory):
    async with api_factory(runner=None) as api:  # no runner: tasks stay queued
        task_id = (
            await api.client.post("/v1/tasks", json={"source": SOURCE, "target": "cuda"})
        ).json()["id"]
        r = await api.client.post(f"/v1/tasks/{task_id}/cancel")
        assert r.status_code == 200 and r.json()["status"] == "cancelled"
        task = (await api.client.get(f"/v1/tasks/{task_id}")).json()
        assert task["status"] == "cancelled" and task["reason"] == "cancelled on request"
        assert (await api.client.post(f"/v1/tasks/{'0' * 32}/cancel")).status_code == 404


async def test_running_task_cancels(api_factory):
    async with api_factory(runner=ScriptedRunner(samples=200, delay_s=0.02)) as api:
        task_id = (
            await api.client.post("/v1/tasks", json={"source": SOURCE, "target": "openmp"})
        ).json()["id"]
        async with asyncio.timeout(5):
            while True:
                status = (await api.client.get(f"/v1/tasks/{task_id}")).json()["status"]
                if status == "running":
                    break
                await asyncio.sleep(0.02)
        r = await api.client.post(f"/v1/tasks/{task_id}/cancel")
        assert r.json()["detail"] == "cancellation requested"
        task = await wait_done(api.client, task_id)
        assert task["status"] == "cancelled"


async def test_keys_scope_tasks(api_factory):
    async with api_factory(runner=None) as api:
        other = {"Authorization": f"Bearer {api.new_key('other')}"}
        task_id = (
            await api.client.post("/v1/tasks", json={"source": SOURCE, "target": "openmp"})
        ).json()["id"]
        assert (await api.client.get(f"/v1/tasks/{task_id}", headers=other)).status_code == 404
        assert (
            await api.client.get(f"/v1/tasks/{task_id}/events", headers=other)
        ).status_code == 404
        assert (
            await api.client.post(f"/v1/tasks/{task_id}/cancel", headers=other)
        ).status_code == 404
        assert (await api.client.get("/v1/tasks", headers=other)).json()["total"] == 0
        no_key = await api.client.get("/v1/tasks", headers={"Authorization": ""})
        assert no_key.status_code == 401 and "API key is required" in no_key.json()["detail"]
        bad = await api.client.get("/v1/tasks", headers={"Authorization": "Bearer pf_nope"})
        assert bad.status_code == 401


async def test_bad_input_is_a_4xx_with_a_reason(api_factory):
    async with api_factory(runner=None, max_body_bytes=64 * 1024, max_source_chars=1000) as api:
        c = api.client

        async def post(**kw):
            return await c.post("/v1/tasks", **kw)

        r = await post(json={"source": SOURCE, "target": "fortran"})
        assert r.status_code == 422 and "openmp" in r.text
        r = await post(json={"source": "", "target": "openmp"})
        assert r.status_code == 422 and "source" in r.text
        r = await post(json={"source": "  \n ", "target": "openmp"})
        assert r.status_code == 422 and "source is empty" in r.text
        r = await post(json={"source": "x" * 1001, "target": "openmp"})
        assert r.status_code == 422 and "limit is 1000" in r.text
        r = await post(json={"source": "a\u0000b", "target": "openmp"})
        assert r.status_code == 422 and "NUL" in r.text
        r = await post(
            json={"source": SOURCE, "target": "openmp", "options": {"reasoning_threads": 17}}
        )
        assert r.status_code == 422 and "reasoning_threads" in r.text
        for generations in (0, 1000):
            r = await post(
                json={"source": SOURCE, "target": "openmp", "options": {"generations": generations}}
            )
            assert r.status_code == 422 and "generations" in r.text
        r = await post(
            content=b'{"source": "x", "target": ', headers={"content-type": "application/json"}
        )
        assert r.status_code == 422 and "JSON" in r.text
        r = await post(json={"source": "x" * 100_000, "target": "openmp"})
        assert r.status_code == 413 and "limit of 65536 bytes" in r.text

        async def chunks():
            for _ in range(100):
                yield b"x" * 1024

        r = await post(content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413
        # What the agents cannot work on is refused before it is stored, with the reason.
        r = await post(json={"source": "print('not C')\n" * 5, "target": "openmp"})
        assert r.status_code == 422 and "not a cpp program" in r.text
        r = await post(json={"source": SOURCE.split("\nint main")[0], "target": "openmp"})
        assert r.status_code == 422 and "no main()" in r.text
        r = await post(json={"source": SOURCE, "target": "openmp", "options": {"function": "f"}})
        assert r.status_code == 422 and "no function 'f'" in r.text
        r = await post(json={"source": SOURCE, "target": "openmp", "options": {"spec": {"x": 1}}})
        assert r.status_code == 422 and "not a valid verifier spec" in r.text
        r = await post(json={"source": SOURCE, "target": "openmp", "budgets": {"samples": 10**9}})
        assert r.status_code == 422
        assert (await c.get("/v1/tasks/not-an-id")).status_code == 422
        assert (await c.get("/v1/tasks", params={"limit": 0})).status_code == 422
        r = await c.get("/v1/exports/openai", params={"model": "a\u0000b"})
        assert r.status_code == 400 and "NUL" in r.text


async def test_evolution_options_are_stored_and_returned_with_the_task(api_factory):
    async with api_factory(runner=None) as api:
        options = {"evolve": True, "generations": 3}
        r = await api.client.post(
            "/v1/tasks", json={"source": SOURCE, "target": "openmp", "options": options}
        )
        assert r.status_code == 202, r.text
        task = (await api.client.get(f"/v1/tasks/{r.json()['id']}")).json()
        assert task["options"]["evolve"] is True and task["options"]["generations"] == 3


async def test_evals_health_and_metrics(api_factory):
    async with api_factory(runner=ScriptedRunner(samples=1)) as api:
        r = await api.client.post(
            "/v1/evals", json={"suite": "pareval", "target": "openmp", "samples_k": 5}
        )
        assert r.status_code == 202 and r.json()["status"] == "queued"
        eval_id = r.json()["id"]
        detail = (await api.client.get(f"/v1/evals/{eval_id}")).json()
        assert detail["samples_k"] == 5 and detail["problems"] and detail["options"]
        results = (await api.client.get(f"/v1/evals/{eval_id}/results")).json()
        assert results == {"items": [], "total": 0, "limit": 100, "offset": 0}
        other = {"Authorization": f"Bearer {api.new_key('other')}"}
        assert (await api.client.get(f"/v1/evals/{eval_id}", headers=other)).status_code == 404
        assert (
            await api.client.post("/v1/evals", json={"suite": "x", "target": "vhdl"})
        ).status_code == 422

        health = (await api.client.get("/healthz", headers={"Authorization": ""})).json()
        assert health["status"] == "ok" and health["runner"] == "scripted"
        await api.client.post("/v1/tasks", json={"source": SOURCE, "target": "openmp"})
        text = (await api.client.get("/metrics")).text
        assert "parforge_tasks_submitted_total 1.0" in text
        assert (
            'parforge_http_requests_total{method="POST",route="/v1/tasks",status="202"} 1.0' in text
        )
        assert 'parforge_tasks{status="queued"}' in text


async def test_healthz_answers_503_naming_a_dead_loop(api_factory):
    async with api_factory(runner=ScriptedRunner(), workers=1) as api:
        pool = api.app.state.services.pool

        def broken(key):
            raise RuntimeError("a bug")

        pool._claim = broken
        async with asyncio.timeout(5):
            while not pool.dead_loops():  # noqa: ASYNC110 - polls the pool
                await asyncio.sleep(0.02)
        r = await api.client.get("/healthz", headers={"Authorization": ""})
        assert r.status_code == 503
        assert r.json()["status"] == "unhealthy"
        assert r.json()["problems"] == ["task-worker-0: RuntimeError"]


async def test_no_verified_candidate_is_a_status_of_its_own(api_factory):
    async with api_factory(runner=ScriptedRunner(samples=2, passes=0)) as api:
        task_id = (
            await api.client.post("/v1/tasks", json={"source": SOURCE, "target": "openmp"})
        ).json()["id"]
        async with asyncio.timeout(10):
            events = _sse((await api.client.get(f"/v1/tasks/{task_id}/events")).text)
        assert events[-1] == (
            "status",
            {"status": "no_verified_candidate", "reason": "0 of 2 passed"},
        )
        task = (await api.client.get(f"/v1/tasks/{task_id}")).json()
        assert task["status"] == "no_verified_candidate" and task["best_candidate_id"] is None
        [run] = (await api.client.get(f"/v1/tasks/{task_id}/runs")).json()["items"]
        assert run["status"] == "no_verified_candidate"
        page = (
            await api.client.get("/v1/tasks", params={"status": "no_verified_candidate"})
        ).json()
        assert [t["id"] for t in page["items"]] == [task_id]
        assert (await api.client.get("/v1/tasks", params={"status": "succeeded"})).json()[
            "total"
        ] == 0
        text = (await api.client.get("/metrics")).text
        assert 'parforge_tasks{status="no_verified_candidate"} 1.0' in text
        assert 'parforge_tasks{status="succeeded"} 0.0' in text


async def test_a_task_names_its_agent(api_factory):
    async with api_factory(runner=None) as api:
        post = api.client.post
        r = await post("/v1/tasks", json={"source": SOURCE, "target": "openmp", "agent": "prompt"})
        assert r.status_code == 202, r.text
        assert (await api.client.get(f"/v1/tasks/{r.json()['id']}")).json()["agent"] == "prompt"
        r = await post("/v1/tasks", json={"source": SOURCE, "target": "openmp"})
        assert (await api.client.get(f"/v1/tasks/{r.json()['id']}")).json()["agent"] == "graph"
        items = (await api.client.get("/v1/tasks")).json()["items"]
        assert sorted(t["agent"] for t in items) == ["graph", "prompt"]
        r = await post("/v1/tasks", json={"source": SOURCE, "target": "openmp", "agent": "evolve"})
        assert r.status_code == 422
        assert r.json()["detail"] == "unknown agent 'evolve': use one of graph, prompt"
        r = await post("/v1/tasks", json={"source": SOURCE, "target": "openmp", "agent": ""})
        assert r.status_code == 422 and "agent" in r.text
        assert (await api.client.get("/v1/tasks")).json()["total"] == 2  # nothing half-stored


async def test_the_server_runs_each_task_on_its_agents_runner(store_url, tmp_path):
    here = "tests.parforge.service.test_runners"
    runners = {"graph": f"{here}:build_graph", "prompt": f"{here}:build_broken"}
    settings = settings_for(store_url, tmp_path, runner=None, runners=runners, require_key=False)
    app = create_app(settings, judge=judging_originals())
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            assert (await client.get("/healthz")).json()["runner"] == "graph, prompt"
            ids = {}
            for agent in ("graph", "prompt"):
                body = {"source": SOURCE, "target": "openmp", "agent": agent}
                ids[agent] = (await client.post("/v1/tasks", json=body)).json()["id"]
            graph = await wait_done(client, ids["graph"])
            prompt = await wait_done(client, ids["prompt"])
            # The broken factory failed its task, not the server.
            assert (await client.get("/healthz")).json()["status"] == "ok"
    assert graph["status"] == "succeeded"
    assert prompt["status"] == "failed" and "failed: no model configured" in prompt["reason"]


async def test_a_refused_original_is_answered_as_a_problem(api_factory):
    judge = judging_originals(Status.CRASHED, "exit status 134")
    async with api_factory(runner=None, judge=judge) as api:
        r = await api.client.post("/v1/tasks", json={"source": SOURCE, "target": "openmp"})
        assert r.status_code == 422
        assert r.headers["content-type"] == "application/problem+json"
        problem = r.json()
        assert problem["type"] == "about:blank" and problem["status"] == 422
        assert problem["detail"] == "the original program fails on its own tests: exit status 134"
        assert problem["field"] == "source"
        assert judge.sources == [SOURCE]
        assert (await api.client.get("/v1/tasks")).json()["total"] == 0


async def test_the_summary_is_the_one_translate_prints(api_factory):
    async with api_factory(runner=ScriptedRunner(samples=2)) as api:
        r = await api.client.post("/v1/tasks", json={"source": SOURCE, "target": "openmp"})
        task_id = r.json()["id"]
        await wait_done(api.client, task_id)
        summary = (await api.client.get(f"/v1/tasks/{task_id}/summary")).json()
        assert summary["status"] == "succeeded" and summary["verified"]
        assert summary["reason"] == "1 of 2 passed"
        assert summary["candidates"] == 2 and summary["best"]["verdict"]["status"] == "passed"
        assert summary["evolution"] is None and summary["reasoning"] is None
        other = {"Authorization": f"Bearer {api.new_key('other')}"}
        r = await api.client.get(f"/v1/tasks/{task_id}/summary", headers=other)
        assert r.status_code == 404
