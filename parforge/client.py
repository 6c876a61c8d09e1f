"""A small Python client for the ParForge HTTP API (`parforge serve`), kept by hand beside it.

    from parforge.client import Client

    with Client("http://127.0.0.1:8080", key="pf_...") as api:
        accepted = api.submit_task(source=open("sum.c").read(), target="openmp", language="c")
        summary = api.wait(accepted["id"])          # follows the task's events to its end
        print(summary["status"], summary["best"]["speedup"] if summary["best"] else None)
        for candidate in api.candidates(accepted["id"]):
            print(candidate["id"], candidate["verdict"]["status"])

Answers are the API's JSON as dicts (the OpenAPI document at `/openapi.json` describes them);
lists are iterated across pages for you. An error answer raises `ApiError`, with the problem
details (RFC 9457) the server sent: `status`, `detail`, `field` and, for 429 and 503, how long
to wait (`retry_after_s`). Only httpx is needed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import TracebackType
from typing import Any

import httpx

TERMINAL = {"succeeded", "no_verified_candidate", "failed", "cancelled"}


class ApiError(Exception):
    """An error answer: the problem details the server sent."""

    def __init__(self, status: int, problem: dict[str, Any], retry_after_s: float | None) -> None:
        self.status = status
        self.problem = problem
        self.detail = str(problem.get("detail") or problem.get("title") or f"HTTP {status}")
        self.field: str | None = problem.get("field")
        self.retry_after_s = retry_after_s
        super().__init__(f"{status}: {self.detail}")


class Client:
    """The API at `url` (`http://host:port`), as the holder of `key` (None: no key, for a
    server that does not require one)."""

    def __init__(
        self,
        url: str,
        key: str | None = None,
        *,
        timeout_s: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = httpx.Client(
            base_url=url.rstrip("/"), headers=headers, timeout=timeout_s, transport=transport
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    # ---- tasks ---------------------------------------------------------------------------

    def submit_task(self, source: str, target: str, **fields: Any) -> dict[str, Any]:
        """Queue a translation task (`language`, `tests`, `budgets`, `agent`, `options`, `name`
        as `POST /v1/tasks` takes them); `{"id", "status"}`."""
        return self._json("POST", "/v1/tasks", json={"source": source, "target": target} | fields)

    def task(self, task_id: str) -> dict[str, Any]:
        return self._json("GET", f"/v1/tasks/{task_id}")

    def summary(self, task_id: str) -> dict[str, Any]:
        """The result in brief, as `parforge translate --json` prints it."""
        return self._json("GET", f"/v1/tasks/{task_id}/summary")

    def tasks(self, *, status: str | None = None, target: str | None = None) -> Iterator[dict]:
        """This key's tasks, newest first."""
        return self._pages("/v1/tasks", {"status": status, "target": target})

    def candidates(self, task_id: str) -> Iterator[dict[str, Any]]:
        """The task's candidates with their verdicts, in the order they were made."""
        return self._pages(f"/v1/tasks/{task_id}/candidates")

    def runs(self, task_id: str) -> Iterator[dict[str, Any]]:
        return self._pages(f"/v1/tasks/{task_id}/runs")

    def cancel_task(self, task_id: str) -> dict[str, Any]:
        return self._json("POST", f"/v1/tasks/{task_id}/cancel")

    def task_events(
        self, task_id: str, *, after: int = 0, follow: bool = True
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """`(kind, data)` of the task's events after event `after`; with `follow`, until the
        task ends."""
        params = {"after": after, "follow": str(follow).lower()}
        return self._events(f"/v1/tasks/{task_id}/events", params)

    def wait(self, task_id: str) -> dict[str, Any]:
        """Follow the task until it ends; its summary."""
        for kind, data in self.task_events(task_id):
            if kind == "status" and data.get("status") in TERMINAL:
                break
        return self.summary(task_id)

    # ---- evals ---------------------------------------------------------------------------

    def submit_eval(self, suite: str, target: str, **fields: Any) -> dict[str, Any]:
        """Queue an eval run (`problems`, `samples_k`, `model`, `timing`, `options` as
        `POST /v1/evals` takes them); the queued run."""
        return self._json("POST", "/v1/evals", json={"suite": suite, "target": target} | fields)

    def eval(self, eval_id: int) -> dict[str, Any]:
        return self._json("GET", f"/v1/evals/{eval_id}")

    def evals(self, *, status: str | None = None) -> Iterator[dict[str, Any]]:
        """This key's eval runs, newest first."""
        return self._pages("/v1/evals", {"status": status})

    def eval_results(self, eval_id: int) -> Iterator[dict[str, Any]]:
        """The run's per-sample results, by problem then sample."""
        return self._pages(f"/v1/evals/{eval_id}/results")

    def cancel_eval(self, eval_id: int) -> dict[str, Any]:
        return self._json("POST", f"/v1/evals/{eval_id}/cancel")

    def eval_events(
        self, eval_id: int, *, follow: bool = True
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """`(kind, data)`: `status`, `progress`, `result` per verified sample, and `summary`
        when the run ends."""
        return self._events(f"/v1/evals/{eval_id}/events", {"follow": str(follow).lower()})

    # ---- exports and health ----------------------------------------------------------------

    def export(self, fmt: str, **filters: Any) -> Iterator[dict[str, Any]]:
        """Fine-tuning lines (`openai`, `sft`, `dpo`, ...) of this key's tasks, streamed."""
        params = {k: _param(v) for k, v in filters.items() if v is not None}
        with self._http.stream("GET", f"/v1/exports/{fmt}", params=params) as r:
            self._check(r)
            for line in r.iter_lines():
                if line.strip():
                    yield json.loads(line)

    def health(self) -> dict[str, Any]:
        """The server's health (`status` is `ok` or `unhealthy`; no key needed)."""
        r = self._http.get("/healthz")
        if r.status_code not in (200, 503):
            self._check(r)
        body: dict[str, Any] = r.json()
        return body

    # ---- plumbing --------------------------------------------------------------------------

    def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        r = self._http.request(method, path, **kwargs)
        self._check(r)
        body: dict[str, Any] = r.json()
        return body

    def _pages(self, path: str, params: dict[str, Any] | None = None) -> Iterator[dict]:
        query = {k: v for k, v in (params or {}).items() if v is not None}
        offset = 0
        while True:
            page = self._json("GET", path, params=query | {"offset": offset})
            yield from page["items"]
            offset += len(page["items"])
            if not page["items"] or offset >= page["total"]:
                return

    def _events(self, path: str, params: dict[str, Any]) -> Iterator[tuple[str, dict]]:
        with self._http.stream("GET", path, params=params, timeout=None) as r:
            self._check(r)
            kind, data = "message", list[str]()
            for line in r.iter_lines():
                if not line:
                    if data:
                        yield kind, json.loads("\n".join(data))
                    kind, data = "message", []
                elif line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].strip())

    @staticmethod
    def _check(r: httpx.Response) -> None:
        if r.status_code < 400:
            return
        r.read()
        try:
            problem = r.json()
        except ValueError:
            problem = {"detail": r.text.strip()[:500] or r.reason_phrase}
        if not isinstance(problem, dict):
            problem = {"detail": str(problem)}
        retry = r.headers.get("Retry-After")
        raise ApiError(r.status_code, problem, float(retry) if retry and retry.isdigit() else None)


def _param(value: Any) -> Any:
    return str(value).lower() if isinstance(value, bool) else value
