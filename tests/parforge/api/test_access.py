"""What one API key may reach and how much it may ask for."""

from __future__ import annotations

from sqlmodel import Session

from corpus.store import evals as store_evals
from corpus.store import keys, open_store
from evals.outcomes import unverified_result
from evals.sources import Sample
from parforge.api.limits import PAGE_MAX
from parforge.settings import KeyLimits
from tests.fakes.api import wait_done
from tests.fakes.runners import ScriptedRunner

EVAL = {"suite": "pareval", "target": "openmp", "problems": ["55_transform_relu"]}
TASK = {"source": "int main() { return 0; }", "target": "openmp"}


async def test_an_eval_replays_only_runs_that_the_callers_key_can_see(api_factory):
    async with api_factory() as api:
        r = await api.client.post("/v1/evals", json=EVAL | {"model": "replay:known-good"})
        assert r.status_code == 202, r.text
        mine = r.json()["id"]
        replay = EVAL | {"model": f"replay:run={mine}"}
        assert (await api.client.post("/v1/evals", json=replay)).status_code == 202
        other = {"Authorization": f"Bearer {api.new_key('other')}"}
        r = await api.client.post("/v1/evals", json=replay, headers=other)
        assert r.status_code == 422
        assert r.json()["detail"] == (
            f"replay:run={mine}: no eval run {mine} that this API key can see"
        )
        r = await api.client.post("/v1/evals", json=EVAL | {"model": "replay:run=x"}, headers=other)
        assert r.status_code == 422 and "must be a number" in r.json()["detail"]
        # Beyond what the store's keys hold: a clear 422, not the database's overflow (500).
        for huge in ("99999999999999999999", "0"):
            r = await api.client.post("/v1/evals", json=EVAL | {"model": f"replay:run={huge}"})
            assert r.status_code == 422 and "between 1 and" in r.json()["detail"], r.text


async def test_active_tasks_and_evals_per_key_are_capped_with_429(api_factory):
    limits = KeyLimits(active_tasks=2, active_evals=1)
    async with api_factory(limits=limits) as api:
        for _ in range(2):
            assert (await api.client.post("/v1/tasks", json=TASK)).status_code == 202
        r = await api.client.post("/v1/tasks", json=TASK)
        assert r.status_code == 429
        assert r.json()["detail"] == "this API key has 2 tasks queued or running; the limit is 2"
        other = {"Authorization": f"Bearer {api.new_key('other')}"}
        assert (await api.client.post("/v1/tasks", json=TASK, headers=other)).status_code == 202
        # An ended task no longer counts.
        task_id = (await api.client.get("/v1/tasks")).json()["items"][0]["id"]
        assert (await api.client.post(f"/v1/tasks/{task_id}/cancel")).status_code == 200
        assert (await api.client.post("/v1/tasks", json=TASK)).status_code == 202

        assert (await api.client.post("/v1/evals", json=EVAL)).status_code == 202
        r = await api.client.post("/v1/evals", json=EVAL)
        assert r.status_code == 429 and "1 eval runs queued or running" in r.json()["detail"]


async def test_samples_and_tests_per_task_are_capped_with_422(api_factory):
    limits = KeyLimits(samples_per_task=4, tests_per_task=1)
    async with api_factory(limits=limits) as api:
        r = await api.client.post("/v1/tasks", json=TASK | {"budgets": {"samples": 5}})
        assert r.status_code == 422 and r.json()["detail"] == "5 samples; the limit per task is 4"
        tests = [{"name": "a"}, {"name": "b"}]
        r = await api.client.post("/v1/tasks", json=TASK | {"tests": tests})
        assert r.status_code == 422 and r.json()["detail"] == "2 tests; the limit per task is 1"


async def test_candidates_come_a_page_at_a_time(api_factory):
    async with api_factory(runner=ScriptedRunner(samples=5)) as api:
        task_id = (await api.client.post("/v1/tasks", json=TASK)).json()["id"]
        await wait_done(api.client, task_id)
        r = await api.client.get(
            f"/v1/tasks/{task_id}/candidates", params={"limit": 2, "offset": 1}
        )
        page = r.json()
        assert r.status_code == 200 and (page["total"], page["limit"], page["offset"]) == (5, 2, 1)
        everything = (await api.client.get(f"/v1/tasks/{task_id}/candidates")).json()["items"]
        assert [c["id"] for c in page["items"]] == [c["id"] for c in everything[1:3]]
        assert all(c["verdict"] is not None for c in page["items"])
        too_many = {"limit": PAGE_MAX + 1}
        r = await api.client.get(f"/v1/tasks/{task_id}/candidates", params=too_many)
        assert r.status_code == 422


async def test_eval_results_come_a_page_at_a_time(api_factory):
    async with api_factory() as api:
        eval_id = (await api.client.post("/v1/evals", json=EVAL)).json()["id"]
        engine = open_store(api.store_url)
        with Session(engine) as s:
            samples = [Sample(index=i, source=f"int x{i};") for i in range(3)]
            rows = [unverified_result("55_transform_relu", "transform", x) for x in samples]
            store_evals.save_results(s, eval_id, rows)
        engine.dispose()
        url = f"/v1/evals/{eval_id}/results"
        page = (await api.client.get(url, params={"limit": 1, "offset": 1})).json()
        assert page["total"] == 3
        assert [x["sample_index"] for x in page["items"]] == [1]
        whole = (await api.client.get(url)).json()
        assert [x["sample_index"] for x in whole["items"]] == [0, 1, 2]
        r = await api.client.get(url, params={"limit": PAGE_MAX + 1})
        assert r.status_code == 422


async def test_event_streams_per_key_are_capped_and_freed(api_factory):
    async with api_factory(limits=KeyLimits(event_streams=1)) as api:
        task_id = (await api.client.post("/v1/tasks", json=TASK)).json()["id"]
        url = f"/v1/tasks/{task_id}/events"
        streams = api.app.state.services.streams
        for _ in range(2):  # each stream frees its slot when it ends
            r = await api.client.get(url, params={"follow": "false"})
            assert r.status_code == 200 and "event: status" in r.text
            assert streams.open == {}
        engine = open_store(api.store_url)
        with Session(engine) as s:
            key = keys.authenticate(s, api.token)
        engine.dispose()
        assert key is not None and key.id is not None
        held = streams.acquire(key.id, 1)  # a stream this key has open
        r = await api.client.get(url, params={"follow": "false"})
        assert r.status_code == 429
        assert r.json()["detail"] == "this API key has 1 event streams open; the limit is 1"
        other = {"Authorization": f"Bearer {api.new_key('other')}"}
        assert (
            await api.client.get(url, params={"follow": "false"}, headers=other)
        ).status_code == 404
        held.release()
        assert (await api.client.get(url, params={"follow": "false"})).status_code == 200
