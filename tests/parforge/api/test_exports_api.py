"""GET /v1/exports/{format}: a streamed export of the caller's own trajectories."""

from __future__ import annotations

import asyncio
import json

import jsonschema

from corpus.export import ExportFormat, schema_for
from tests.fakes.runners import ScriptedRunner


async def _wait_succeeded(client, task_id, headers):
    async with asyncio.timeout(10):
        while True:
            task = (await client.get(f"/v1/tasks/{task_id}", headers=headers)).json()
            if task["status"] == "succeeded":
                return
            await asyncio.sleep(0.02)


async def test_export_streams_only_the_callers_tasks(api_factory):
    async with api_factory(runner=ScriptedRunner(samples=2)) as api:
        other = {"Authorization": f"Bearer {api.new_key('other')}"}
        mine = (
            await api.client.post(
                "/v1/tasks", json={"source": "int main(void) { return 0; }", "target": "openmp"}
            )
        ).json()["id"]
        theirs = (
            await api.client.post(
                "/v1/tasks",
                json={"source": "int main(void) { return 1; }", "target": "openmp"},
                headers=other,
            )
        ).json()["id"]
        for task_id, headers in ((mine, api.auth), (theirs, other)):
            await _wait_succeeded(api.client, task_id, headers)
        r = await api.client.get("/v1/exports/openai", params={"verified_only": False})
        assert r.status_code == 200 and r.headers["content-type"] == "application/x-ndjson"
        lines = [json.loads(line) for line in r.text.splitlines()]
        assert len(lines) == 2 and all(
            line["messages"][1]["content"] == "int main(void) { return 0; }" for line in lines
        )
        [verified] = [
            json.loads(x) for x in (await api.client.get("/v1/exports/sft")).text.splitlines()
        ]
        assert (
            "// sample 0"
            in verified["messages"][-1]["tool_calls"][0]["function"]["arguments"]["source"]
        )
        for line in lines:
            jsonschema.validate(line, schema_for(ExportFormat.OPENAI))
        r = await api.client.get("/v1/exports/dpo", params={"verified_only": True}, headers=other)
        [pair] = [json.loads(line) for line in r.text.splitlines()]
        assert pair["prompt"][1]["content"] == "int main(void) { return 1; }"
        assert (await api.client.get("/v1/exports/csv")).status_code == 422
        assert (
            await api.client.get("/v1/exports/sft", params={"min_speedup": -1})
        ).status_code == 422


async def test_an_export_of_one_task_holds_only_its_samples(api_factory):
    async with api_factory(runner=ScriptedRunner(samples=2)) as api:
        ids = []
        for code in (0, 1):
            answer = await api.client.post(
                "/v1/tasks",
                json={"source": f"int main(void) {{ return {code}; }}", "target": "openmp"},
            )
            ids.append(answer.json()["id"])
        for task_id in ids:
            await _wait_succeeded(api.client, task_id, api.auth)
        for task_id, code in zip(ids, (0, 1), strict=True):
            r = await api.client.get(
                "/v1/exports/openai", params={"task_id": task_id, "verified_only": False}
            )
            lines = [json.loads(line) for line in r.text.splitlines()]
            assert len(lines) == 2
            assert {line["messages"][1]["content"] for line in lines} == {
                f"int main(void) {{ return {code}; }}"
            }
        # The UI's export of a task is the same lines, for a signed-in browser.
        transport_client = api.client
        signed = await transport_client.get("/ui/login", params={"key": api.token})
        assert signed.status_code == 303
        r = await transport_client.get(f"/ui/tasks/{ids[1]}/export")
        assert r.status_code == 200 and len(r.text.splitlines()) == 2
        assert (
            await api.client.get("/v1/exports/openai", params={"task_id": "not-an-id"})
        ).status_code == 422
