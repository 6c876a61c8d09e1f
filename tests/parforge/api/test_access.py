"""What one API key may reach and how much it may ask for."""

from __future__ import annotations

EVAL = {"suite": "pareval", "target": "openmp", "problems": ["55_transform_relu"]}


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
