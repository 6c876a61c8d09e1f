"""POST /v1/evals is run by the API's eval workers (real Docker sandbox, replay model) and
GET /v1/evals/{id} shows its progress, summary and samples."""

from __future__ import annotations

import asyncio

import pytest

from evals.config import EvalConfig

pytestmark = [pytest.mark.docker, pytest.mark.slow]


async def test_a_submitted_eval_runs_and_reports(api_factory, sandbox_image) -> None:
    async with api_factory(evals=EvalConfig(workers=1)) as api:
        body = {
            "suite": "pareval",
            "target": "openmp",
            "model": "replay:known-good",
            "samples_k": 2,
            "problems": ["55_transform_relu"],
            "timing": False,
        }
        r = await api.client.post("/v1/evals", json=body)
        assert r.status_code == 202, r.text
        eval_id = r.json()["id"]
        seen = set()
        async with asyncio.timeout(240):
            while True:
                detail = (await api.client.get(f"/v1/evals/{eval_id}")).json()
                seen.add((detail["status"], detail["progress"].get("finished")))
                if detail["status"] in ("succeeded", "failed", "cancelled"):
                    break
                await asyncio.sleep(0.2)
        results = (await api.client.get(f"/v1/evals/{eval_id}/results")).json()["items"]
    assert detail["status"] == "succeeded", detail["reason"]
    assert detail["progress"] == {
        "total": 2,
        "generated": 2,
        "finished": 2,
        "statuses": {"passed": 2},
        "correct": 2,
    }
    assert [(s["sample_index"], s["status"], s["problem_type"]) for s in results] == [
        (0, "passed", "transform"),
        (1, "passed", "transform"),
    ]
    assert results[0]["verdict"]["race_free"] is True
    assert detail["reason"].startswith("pass@1 100.0%")
    overall = [r for r in detail["summary"]["rows"] if r["group"] == "all"]
    assert [(r["k"], r["passed"]) for r in overall] == [(1, 1.0), (2, 1.0)]
    assert ("running", 0) in seen or ("running", 1) in seen
