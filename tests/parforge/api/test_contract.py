"""The API's contract: every error is problem details (RFC 9457), every status a route answers
is in its OpenAPI entry (a walk over every route), every list is one page shape, accepted jobs
say where they are, and evals are listed, cancelled and followed like tasks."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from sqlmodel import Session

from corpus.store import evals as store_evals
from corpus.store import open_store
from corpus.store.models import EvalResultCreate
from parforge.api.problems import MEDIA_TYPE
from parforge.settings import KeyLimits

EVAL = {"suite": "pareval", "target": "openmp", "problems": ["55_transform_relu"]}
TASK = {"source": "int main() { return 0; }", "target": "openmp"}
ABSENT = {"task_id": "0" * 32, "eval_id": "2147483000", "fmt": "sft"}
MALFORMED = {"task_id": "not-an-id", "eval_id": "x", "fmt": "yaml"}


def is_problem(r: httpx.Response, status: int) -> dict[str, Any]:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"] == MEDIA_TYPE, r.headers
    body = r.json()
    assert body["status"] == status and body["title"] and isinstance(body["detail"], str), body
    assert "\n" not in body["detail"]
    return body


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, op)
        for path, item in schema["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]


def concrete(path: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)


async def test_routing_and_validation_errors_are_problem_details(api_factory):
    async with api_factory(max_body_bytes=4096) as api:
        c = api.client
        body = is_problem(await c.get("/v1/nothing-here"), 404)
        assert body["detail"] == "no such resource: /v1/nothing-here"
        assert body["instance"] == "/v1/nothing-here"
        r = await c.delete("/v1/tasks")
        body = is_problem(r, 405)
        assert r.headers["Allow"] and "DELETE is not allowed on /v1/tasks" in body["detail"]
        r = await c.get("/v1/tasks", headers={"Authorization": ""})
        body = is_problem(r, 401)
        assert r.headers["WWW-Authenticate"] == "Bearer" and "API key" in body["detail"]
        r = await c.get("/v1/tasks", params={"limit": 0, "offset": -1})
        body = is_problem(r, 422)
        assert {e["field"] for e in body["errors"]} == {"query.limit", "query.offset"}
        assert body["detail"].startswith("invalid request: query.")
        r = await c.post("/v1/tasks", json={"target": "openmp", "sorce": "int main(){}"})
        body = is_problem(r, 422)
        assert body["field"] == "body.source"
        assert "body.sorce: Extra inputs are not permitted" in body["detail"]
        is_problem(await c.post("/v1/tasks", content=b"{" * 5000), 413)
        is_problem(await c.get("/v1/tasks", params={"status": "a\0b"}), 400)
        is_problem(await c.get(f"/v1/tasks/{'0' * 32}"), 404)
        is_problem(await c.post("/v1/evals", json=EVAL | {"suite": "/etc"}), 422)


async def test_limits_say_when_to_retry_and_accepted_jobs_say_where_they_are(api_factory):
    async with api_factory(limits=KeyLimits(active_tasks=1, active_evals=1)) as api:
        c = api.client
        r = await c.post("/v1/tasks", json=TASK)
        assert r.status_code == 202 and r.headers["Location"] == f"/v1/tasks/{r.json()['id']}"
        assert (await c.get(r.headers["Location"])).json()["id"] == r.json()["id"]
        r = await c.post("/v1/tasks", json=TASK)
        is_problem(r, 429)
        assert int(r.headers["Retry-After"]) > 0
        r = await c.post("/v1/evals", json=EVAL)
        assert r.status_code == 202 and r.headers["Location"] == f"/v1/evals/{r.json()['id']}"
        assert (await c.get(r.headers["Location"])).json()["id"] == r.json()["id"]
        r = await c.post("/v1/evals", json=EVAL)
        is_problem(r, 429)
        assert int(r.headers["Retry-After"]) > 0


async def test_every_route_answers_only_statuses_its_openapi_entry_documents(api_factory):
    """Walk every operation: as it should be called, as an anonymous caller, with ids that do
    not exist and ids that are malformed, as it should be called again, and with a page size
    out of range."""
    async with api_factory() as api:
        schema = (await api.client.get("/openapi.json")).json()
        assert schema["components"]["schemas"]["Problem"]
        assert "HTTPValidationError" not in schema["components"]["schemas"]
        task_id = (await api.client.post("/v1/tasks", json=TASK)).json()["id"]
        eval_id = str((await api.client.post("/v1/evals", json=EVAL)).json()["id"])
        present = {"task_id": task_id, "eval_id": eval_id, "fmt": "sft"}
        bodies = {"/v1/tasks": TASK, "/v1/evals": EVAL}
        seen: list[tuple[str, str, int]] = []
        for path, method, op in operations(schema):
            documented = {int(code) for code in op["responses"]}
            for code, response in op["responses"].items():
                # /healthz answers 503 with its health report, for load balancers.
                if int(code) >= 400 and path != "/healthz":
                    ref = response["content"][MEDIA_TYPE]["schema"]["$ref"]
                    assert ref.endswith("/Problem"), (path, method, code)
            attempts: list[tuple[str, dict[str, Any], dict[str, str]]] = [
                (concrete(path, present), {}, {}),
                (concrete(path, present), {}, {"Authorization": ""}),
                (concrete(path, ABSENT), {}, {}),
                (concrete(path, MALFORMED), {}, {}),
                (concrete(path, present), {}, {}),  # again: a cancelled job is 409
            ]
            if any(p["name"] == "limit" for p in op.get("parameters", [])):
                attempts.append((concrete(path, present), {"limit": "0"}, {}))
            for url, params, headers in attempts:
                request: dict[str, Any] = {"params": params | {"follow": "false"}}
                if method == "post":
                    request["json"] = bodies.get(path, {})
                r = await api.client.request(
                    method.upper(), url, headers=headers or None, **request
                )
                seen.append((path, method, r.status_code))
                assert r.status_code in documented, (method, url, r.status_code, r.text)
                if r.status_code >= 400:
                    is_problem(r, r.status_code)
            # Every list is a page of one shape.
            ok = op["responses"].get("200", {}).get("content", {}).get("application/json", {})
            assert ok.get("schema", {}).get("type") != "array", (path, method)
        statuses = {code for _, _, code in seen}
        assert {200, 202, 401, 404, 409, 422, 429} <= statuses, statuses


async def test_lists_are_pages_of_one_shape(api_factory):
    async with api_factory() as api:
        c = api.client
        task_id = (await c.post("/v1/tasks", json=TASK)).json()["id"]
        (await c.post("/v1/evals", json=EVAL)).json()
        for url in (
            "/v1/tasks",
            "/v1/evals",
            f"/v1/tasks/{task_id}/candidates",
            f"/v1/tasks/{task_id}/runs",
        ):
            page = (await c.get(url, params={"limit": 1})).json()
            assert set(page) == {"items", "total", "limit", "offset"}, (url, page)
            assert page["limit"] == 1 and page["offset"] == 0 and len(page["items"]) <= 1


async def test_evals_are_listed_cancelled_and_followed_like_tasks(api_factory):
    async with api_factory() as api:
        c = api.client
        first = (await c.post("/v1/evals", json=EVAL)).json()["id"]
        second = (await c.post("/v1/evals", json=EVAL | {"samples_k": 2})).json()["id"]
        other = {"Authorization": f"Bearer {api.new_key('other')}"}
        assert (await c.get("/v1/evals", headers=other)).json()["total"] == 0
        page = (await c.get("/v1/evals")).json()
        assert [r["id"] for r in page["items"]] == [second, first] and page["total"] == 2
        queued = (await c.get("/v1/evals", params={"status": "queued"})).json()
        assert queued["total"] == 2
        is_problem(await c.post(f"/v1/evals/{first}/cancel", headers=other), 404)

        # A verified sample while it is queued: the stream sends it, then the run's end.
        engine = open_store(api.store_url)
        with Session(engine) as s:
            sample = EvalResultCreate(
                problem="55_transform_relu",
                sample_index=0,
                status="passed",
                built=True,
                passed=True,
                speedups={"2": 1.5},
            )
            store_evals.save_results(s, first, [sample])
        engine.dispose()
        r = await c.post(f"/v1/evals/{first}/cancel")
        assert r.status_code == 200, r.text
        assert r.json() == {"id": str(first), "status": "cancelled", "detail": "cancelled"}
        body = is_problem(await c.post(f"/v1/evals/{first}/cancel"), 409)
        assert body["detail"] == f"eval run {first} has already cancelled"

        r = await c.get(f"/v1/evals/{first}/events")
        assert r.headers["content-type"].startswith("text/event-stream")
        events = [
            (line.split(":", 1)[1].strip(), json.loads(data.split(":", 1)[1]))
            for line, data in zip(r.text.splitlines(), r.text.splitlines()[1:], strict=False)
            if line.startswith("event:") and data.startswith("data:")
        ]
        kinds = [k for k, _ in events]
        assert kinds[0] == "status" and kinds[-1] == "summary", kinds
        assert events[0][1]["status"] == "cancelled"
        [result] = [d for k, d in events if k == "result"]
        assert result["problem"] == "55_transform_relu" and result["speedups"] == {"2": 1.5}
        # A queued run's stream without follow: what there is so far, and no summary.
        r = await c.get(f"/v1/evals/{second}/events", params={"follow": "false"})
        assert "event: status" in r.text and "event: summary" not in r.text


async def test_an_eval_takes_the_clis_options_checked_like_the_cli(api_factory):
    async with api_factory(limits=KeyLimits(active_evals=10)) as api:
        c = api.client
        options = {"agent": "graph", "temperature": 0.7, "reasoning_threads": 2}
        options |= {"translate_from": "serial", "max_tokens": 512}
        r = await c.post("/v1/evals", json=EVAL | {"options": options})
        assert r.status_code == 202, r.text
        stored = r.json()["options"]
        assert stored["agent"] == "graph" and stored["reasoning_threads"] == 2
        assert stored["sampling"]["temperature"] == 0.7 and stored["sampling"]["max_tokens"] == 512
        assert stored["translate_from"] == "serial" and r.json()["problems"] == EVAL["problems"]
        # Unset options are the server's defaults; the host's own are not the caller's to set.
        defaults = (await c.post("/v1/evals", json=EVAL)).json()["options"]
        assert defaults["agent"] == "prompt" and defaults["sampling"]["temperature"] == 0.2
        for bad, field in (
            ({"reasoning_threads": 2}, "options.reasoning_threads"),
            ({"agent": "graph", "generations": 3, "_timing": False}, "timing"),
            ({"evolve": True}, "options.evolve"),
        ):
            timing = bad.pop("_timing", True)
            r = await c.post("/v1/evals", json=EVAL | {"options": bad, "timing": timing})
            assert is_problem(r, 422)["field"] == field, r.text
        r = await c.post("/v1/evals", json=EVAL | {"options": {"url": "http://elsewhere/v1"}})
        assert is_problem(r, 422)["field"] == "body.options.url"
        r = await c.post("/v1/evals", json=EVAL | {"problems": ["no_such_*"]})
        body = is_problem(r, 422)
        assert body["field"] == "problems" and "no_such_*" in body["detail"]
        # Globs are resolved to the names the run will do.
        r = await c.post("/v1/evals", json=EVAL | {"problems": ["55_transform_*"]})
        assert r.status_code == 202 and r.json()["problems"] == ["55_transform_relu"], r.text


def _verified(problem: str, passed: bool) -> EvalResultCreate:
    return EvalResultCreate(
        problem=problem,
        problem_type="transform",
        sample_index=0,
        status="passed" if passed else "wrong_answer",
        built=True,
        passed=passed,
        verdict={"status": "passed" if passed else "wrong_answer", "correct": passed},
    )


async def test_a_runs_report_is_served_as_one_page(api_factory):
    async with api_factory(limits=KeyLimits(active_evals=10)) as api:
        c = api.client
        new, old = [(await c.post("/v1/evals", json=EVAL)).json()["id"] for _ in range(2)]
        body = is_problem(await c.get(f"/v1/evals/{new}/report"), 422)
        assert "no finished samples yet" in body["detail"]
        engine = open_store(api.store_url)
        with Session(engine) as s:
            store_evals.save_results(s, new, [_verified(f"p{i}", i < 3) for i in range(4)])
            store_evals.save_results(s, old, [_verified(f"p{i}", i < 1) for i in range(4)])
        engine.dispose()
        r = await c.get(f"/v1/evals/{new}/report", params={"compare": old, "k": 1})
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        page = r.text
        assert 'src="data:image/png;base64,' in page and "Against run" in page
        assert "75.0% [" in page and "(+50.0 pp)" in page and "McNemar (exact)" in page
        md = await c.get(f"/v1/evals/{new}/report", params={"format": "markdown", "k": 1})
        assert md.headers["content-type"].startswith("text/markdown") and "| **all** |" in md.text
        other = {"Authorization": f"Bearer {api.new_key('other')}"}
        is_problem(await c.get(f"/v1/evals/{new}/report", headers=other), 404)
