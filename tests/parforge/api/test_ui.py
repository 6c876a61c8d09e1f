"""The web UI in-process against the real app and store: signing in and out, what a session
may see and post, and hostile text shown as text (the browser test is `test_ui_browser.py`)."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from sqlmodel import Session

from corpus.store import keys, open_store, tasks
from corpus.store.models import TaskCreate
from parforge.api.ui import CSP
from parforge.api.ui.auth import COOKIE, RedactKeys
from tests.fakes.api import Api, ApiFactory
from tests.fakes.evals import stored_eval

HOSTILE = (
    '#include <stdio.h>\n/* </script><script>alert("owned")</script> <img src=x onerror=alert(1)> */\n'
    'int main(void) { printf("</pre><b>bold</b>\\n"); return 0; }\n'
)


@asynccontextmanager
async def browser(api: Api) -> AsyncIterator[httpx.AsyncClient]:
    """A client with its own cookie jar and no API key header: what a browser sends."""
    transport = httpx.ASGITransport(app=api.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


async def signed_in(client: httpx.AsyncClient, token: str) -> None:
    answer = await client.get("/ui/login", params={"key": token})
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"] == "/ui/"


def store_task(api: Api, token: str, source: str = HOSTILE, name: str = "mine") -> str:
    engine = open_store(api.store_url)
    with Session(engine) as s:
        key = keys.authenticate(s, token)
        assert key is not None
        task = tasks.submit(
            s, TaskCreate(name=name, language="c", target="openmp", source=source), key.id
        )
        task_id = task.id
    engine.dispose()
    return task_id


def new_run(s: Session, task_id: str) -> Any:
    """A graph run of the task, flushed (its id set), for steps and candidates to hang on."""
    from corpus.store.models import RunRow

    run = RunRow(task_id=task_id, attempt=1, runner="graph", worker="t")
    s.add(run)
    s.flush()
    assert run.id is not None
    return run


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found is not None, page[:500]
    return found.group(1)


async def test_pages_need_a_session_and_the_login_link_leaves_no_key_behind(
    api_factory: ApiFactory,
) -> None:
    async with api_factory() as api, browser(api) as client:
        for path in ("/ui/", "/ui/evals", "/ui/tasks/new", f"/ui/tasks/{'0' * 32}"):
            answer = await client.get(path)
            assert answer.status_code == 303 and answer.headers["location"] == "/ui/login", path
        refused = await client.get("/ui/login", params={"key": "pf_not-a-key"})
        assert refused.headers["location"] == "/ui/login?failed=1"
        assert COOKIE not in refused.headers.get("set-cookie", "")
        answer = await client.get("/ui/login", params={"key": api.token})
        assert answer.status_code == 303 and api.token not in answer.headers["location"]
        cookie = answer.headers["set-cookie"]
        assert api.token not in cookie
        for attribute in ("HttpOnly", "SameSite=strict", "Path=/ui"):
            assert attribute.lower() in cookie.lower(), cookie
        home = await client.get("/ui/")
        assert home.status_code == 200 and "Tasks" in home.text
        assert home.headers["content-security-policy"] == CSP
        assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP
        assert home.headers["x-frame-options"] == "DENY"
        assert home.headers["referrer-policy"] == "no-referrer"


async def test_the_login_form_signs_in_and_logout_ends_the_session(api_factory: ApiFactory) -> None:
    async with api_factory() as api, browser(api) as client:
        answer = await client.post("/ui/login", data={"key": api.token})
        assert answer.status_code == 303 and answer.headers["location"] == "/ui/"
        token = client.cookies[COOKIE]
        page = (await client.get("/ui/")).text
        out = await client.post("/ui/logout", data={"csrf": csrf_of(page)})
        assert out.status_code == 303 and out.headers["location"] == "/ui/login"
        # The old cookie, sent again (as a stolen copy would be), no longer works.
        client.cookies.set(COOKIE, token, domain="test", path="/ui")
        assert (await client.get("/ui/")).status_code == 303


async def test_revoking_a_key_ends_its_sessions(api_factory: ApiFactory) -> None:
    async with api_factory() as api, browser(api) as client:
        other = api.new_key("revoked-later")
        await signed_in(client, other)
        assert (await client.get("/ui/")).status_code == 200
        engine = open_store(api.store_url)
        with Session(engine) as s:
            assert keys.revoke(s, "revoked-later") is not None
        engine.dispose()
        assert (await client.get("/ui/")).status_code == 303


async def test_a_key_sees_only_its_own_tasks(api_factory: ApiFactory) -> None:
    async with api_factory() as api, browser(api) as first, browser(api) as second:
        second_token = api.new_key("second")
        mine = store_task(api, api.token, name="first-keys-task")
        await signed_in(first, api.token)
        await signed_in(second, second_token)
        assert "first-keys-task" in (await first.get("/ui/")).text
        listed = await second.get("/ui/")
        assert "first-keys-task" not in listed.text and mine not in listed.text
        for path in (f"/ui/tasks/{mine}", f"/ui/tasks/{mine}/json", f"/ui/tasks/{mine}/export"):
            assert (await second.get(path)).status_code == 404, path
        page = (await second.get("/ui/")).text
        cancel = await second.post(f"/ui/tasks/{mine}/cancel", data={"csrf": csrf_of(page)})
        assert cancel.status_code == 303
        assert (await first.get(f"/ui/tasks/{mine}/json")).json()["task"]["status"] == "queued"


async def test_forms_without_the_sessions_token_are_refused(api_factory: ApiFactory) -> None:
    async with api_factory() as api, browser(api) as client:
        mine = store_task(api, api.token)
        await signed_in(client, api.token)
        for data in ({}, {"csrf": "forged"}):
            answer = await client.post(f"/ui/tasks/{mine}/cancel", data=data)
            assert answer.status_code == 403
            assert (await client.post("/ui/logout", data=data)).status_code == 403
        task = (await client.get(f"/ui/tasks/{mine}/json")).json()["task"]
        assert task["status"] == "queued" and not task["cancel_requested"]
        page = (await client.get(f"/ui/tasks/{mine}")).text
        answer = await client.post(f"/ui/tasks/{mine}/cancel", data={"csrf": csrf_of(page)})
        assert answer.status_code == 303
        assert (await client.get(f"/ui/tasks/{mine}/json")).json()["task"]["status"] == "cancelled"


async def test_a_hostile_source_is_shown_as_text(api_factory: ApiFactory) -> None:
    async with api_factory() as api, browser(api) as client:
        mine = store_task(api, api.token, name='<script>alert("name")</script>')
        await signed_in(client, api.token)
        for path in ("/ui/", f"/ui/tasks/{mine}"):
            page = (await client.get(path)).text
            assert "<script>alert" not in page and "<img src=x" not in page, path
            assert "<b>bold</b>" not in page
        page = (await client.get(f"/ui/tasks/{mine}")).text
        assert "&lt;/script&gt;&lt;script&gt;alert(" in page
        # The only scripts the page loads are the package's own.
        assert re.findall(r"<script[^>]*>", page) == ['<script src="/ui/static/ui.js" defer>']


async def test_the_submit_form_queues_a_task_or_says_why_not(api_factory: ApiFactory) -> None:
    async with api_factory() as api, browser(api) as client:
        await signed_in(client, api.token)
        form = (await client.get("/ui/tasks/new")).text
        csrf = csrf_of(form)
        refused = await client.post(
            "/ui/tasks", data={"csrf": csrf, "source": "", "target": "openmp", "agent": "graph"}
        )
        assert refused.status_code == 422 and 'id="submit-error"' in refused.text
        unknown = await client.post(
            "/ui/tasks",
            data={"csrf": csrf, "source": "int main(void){return 0;}", "target": "fortran"},
        )
        assert unknown.status_code == 422 and "target" in unknown.text
        source = '#include <stdio.h>\nint main(void) { printf("1\\n"); return 0; }\n'
        made = await client.post(
            "/ui/tasks",
            data={"csrf": csrf, "language": "c", "target": "openmp", "agent": "graph",
                  "tests": "3\n4 5", "rtol": "1e-6", "timing": "on"},
            files={"upload": ("prog.c", source.encode(), "text/x-c")},
        )  # fmt: skip
        assert made.status_code == 303, made.text
        task_id = made.headers["location"].rsplit("/", 1)[1]
        task = (await client.get(f"/ui/tasks/{task_id}/json")).json()["task"]
        assert task["source"] == source
        assert [t["args"] for t in task["tests"]] == [["3"], ["4", "5"]]
        assert task["options"]["rtol"] == 1e-6 and task["options"]["timing"] is True
        page = await client.get(f"/ui/tasks/{task_id}")
        assert page.status_code == 200 and 'data-events="/ui/tasks/' in page.text


def test_access_logs_never_show_a_key() -> None:
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, "", 0, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", "/ui/login?key=pf_secret123&x=1", "1.1", 303), None,
    )  # fmt: skip
    assert RedactKeys().filter(record)
    assert "pf_secret123" not in record.getMessage()
    assert "key=[redacted]&x=1" in record.getMessage()


@pytest.mark.parametrize("path", ["/ui/static/ui.js", "/ui/static/ui.css"])
async def test_the_assets_are_the_packages_own(api_factory: ApiFactory, path: str) -> None:
    async with api_factory() as api, browser(api) as client:
        answer = await client.get(path)
        assert answer.status_code == 200 and answer.headers["x-content-type-options"] == "nosniff"
        assert "http://" not in answer.text and "https://" not in answer.text


def store_eval(api: Api, token: str, statuses: dict[str, str], model: str) -> int:
    return stored_eval(api.store_url, token, statuses, model)


async def test_two_runs_compared_problem_by_problem(api_factory: ApiFactory) -> None:
    async with api_factory() as api, browser(api) as client:
        problems = [f"{i:02d}_type{i % 3}_p" for i in range(12)]
        before = store_eval(api, api.token, {p: "wrong_output" for p in problems}, "small")
        after = store_eval(
            api, api.token, {p: "passed" if i < 10 else "wrong_output" for i, p in
                             enumerate(problems)}, "large<script>",
        )  # fmt: skip
        theirs = store_eval(api, api.new_key("other"), {problems[0]: "passed"}, "x")
        await signed_in(client, api.token)
        page = (await client.get(f"/ui/evals/{after}")).text
        assert 'id="compare-form"' in page and f'<option value="{before}">' in page
        assert f'<option value="{theirs}">' not in page
        answer = await client.get(f"/ui/evals/{after}/compare", params={"baseline": before})
        assert answer.status_code == 200
        tests = re.search(r'<table class="grid" id="tests">(.*?)</table>', answer.text, re.S)
        assert tests is not None
        assert "pass@1" in tests.group(1) and "McNemar" in tests.group(1)
        assert "significant at 5 %" in tests.group(1)  # 10 gained, none lost
        assert answer.text.count(">gained<") == 10 and ">lost<" not in answer.text
        assert "large<script>" not in answer.text and "large&lt;script&gt;" in answer.text
        other = await client.get(f"/ui/evals/{after}/compare", params={"baseline": theirs})
        assert other.status_code == 404


def test_the_best_speedup_per_generation_is_a_running_best() -> None:
    from datetime import UTC, datetime

    from corpus.store.models import CandidateWithVerdict, VerdictPublic
    from parforge.api.ui.views import bar_chart, best_per_generation

    def made(generation: int, speedup: float, passed: bool = True) -> CandidateWithVerdict:
        verdict = VerdictPublic(
            id=1, candidate_id=1, created_at=datetime.now(UTC), target="openmp",
            status="passed" if passed else "wrong_output", passed=passed,
            best_speedup=speedup if passed else 0.0,
        )  # fmt: skip
        return CandidateWithVerdict(
            id=1, task_id="t", run_id=1, created_at=datetime.now(UTC), target="openmp",
            source="", generation=generation, verdict=verdict,
        )  # fmt: skip

    found = best_per_generation(
        [made(0, 1.2), made(1, 1.1), made(1, 1.5), made(2, 9.0, passed=False), made(3, 1.7)]
    )
    assert found == [("0", 1.2), ("1", 1.5), ("2", 1.5), ("3", 1.7)]
    assert best_per_generation([made(0, 1.2)]) == []  # no evolution
    chart = bar_chart(found)
    assert [b.over_one for b in chart.bars] == [True] * 4
    assert chart.bars[3].height > chart.bars[0].height


async def test_an_evolved_task_page_shows_its_generations_and_lineage(
    api_factory: ApiFactory,
) -> None:
    from corpus.store.models import (
        CandidateRow,
        StepKind,
        StepRow,
        VerdictRow,
        verdict_columns,
    )

    async with api_factory() as api, browser(api) as client:
        task_id = store_task(api, api.token, source="int main(void) { return 0; }\n")
        engine = open_store(api.store_url)
        with Session(engine) as s:
            run = new_run(s, task_id)
            parent = None
            for generation, speedup in enumerate((1.1, 1.3, 1.6)):
                candidate = CandidateRow(
                    task_id=task_id, run_id=run.id, target="openmp", generation=generation,
                    source=f"int main(void) {{ return 0; }} /* {generation} */\n",
                    strategy=f"evolve[schedule]:g{generation}", parent_id=parent,
                )  # fmt: skip
                s.add(candidate)
                s.flush()
                parent = candidate.id
                data = {"target": "openmp", "status": "passed", "build": {"ok": True},
                        "timing": {"reference_s": 1.0, "speedup": {"2": speedup}}}  # fmt: skip
                s.add(VerdictRow(candidate_id=candidate.id, task_id=task_id, run_id=run.id,
                                 data=data, **verdict_columns(data)))  # fmt: skip
            lineage = [{"candidate_id": 1, "operator": "start", "speedup": 1.1},
                       {"candidate_id": 3, "operator": "schedule", "label": "dynamic",
                        "speedup": 1.6, "confidence": 0.97, "over_best": 1.23}]  # fmt: skip
            s.add(StepRow(task_id=task_id, run_id=run.id, seq=0, kind=StepKind.TOOL_CALL,
                          name="evolution", result={"generations": 2, "evaluations": 3,
                          "first_speedup": 1.1, "best_speedup": 1.6, "lineage": lineage,
                          "stopped": "generations spent"}))  # fmt: skip
            s.commit()
        engine.dispose()
        await signed_in(client, api.token)
        page = await client.get(f"/ui/tasks/{task_id}")
        assert page.status_code == 200, page.text[-2000:]
        assert 'id="generations"' in page.text and "1.60x" in page.text
        assert "schedule dynamic" in page.text and "generations spent" in page.text
        # Each evolved child sits below its parent in the candidates' tree.
        assert page.text.count("↳") == 2


def test_threads_lie_on_one_token_axis_and_a_pruned_one_stops_where_it_was_cut() -> None:
    from corpus.store.models import StepKind, StepRow
    from parforge.api.ui.views import thread_chart

    def thread(seq: int, tokens: int, status: str, **result: object) -> StepRow:
        return StepRow(
            task_id="t", run_id=1, seq=seq, kind=StepKind.LLM_CALL, name="thread",
            completion_tokens=tokens, sampling={"max_tokens": 400},
            result={"outline": {"strategy": f"s{seq}"}, "status": status, **result},
        )  # fmt: skip

    chart = thread_chart(
        [
            thread(2, 100, "pruned", reason="converged", pruned_by=0, tokens_saved=300),
            thread(1, 400, "finished", reason="wrote a program"),
            StepRow(task_id="t", run_id=1, seq=3, kind=StepKind.TOOL_CALL, name="verify"),
        ]
    )
    assert [lane.label for lane in chart.lanes] == ["1. s1", "2. s2"]  # threads only, in order
    done, cut = chart.lanes
    assert done.written_w == chart.plot_w and done.saved_w == 0  # the full budget, no cut
    assert cut.written_w == chart.plot_w / 4 and cut.saved_w == 3 * chart.plot_w / 4
    assert cut.saved_x == chart.left + cut.written_w  # the outline starts at the cut
    assert cut.note == "pruned at 100 of 400 tokens · converged on thread 1 · converged"
    assert chart.ticks[-1][1] == "400"
    assert thread_chart([]).lanes == []


async def test_the_reasoning_threads_picture_shows_each_cut_and_escapes_its_reason(
    api_factory: ApiFactory,
) -> None:
    from corpus.store.models import StepKind, StepRow

    async with api_factory() as api, browser(api) as client:
        task_id = store_task(api, api.token, source="int main(void) { return 0; }\n")
        engine = open_store(api.store_url)
        with Session(engine) as s:
            run = new_run(s, task_id)
            for seq, (status, tokens, reason) in enumerate(
                [("finished", 300, "stop"), ("pruned", 90, "<script>alert(1)</script> loops")]
            ):
                s.add(StepRow(task_id=task_id, run_id=run.id, seq=seq, kind=StepKind.LLM_CALL,
                              name="thread", completion_tokens=tokens,
                              sampling={"max_tokens": 300},
                              result={"outline": {"strategy": "collapse"}, "status": status,
                                      "reason": reason, "tokens_saved": 300 - tokens}))  # fmt: skip
            s.commit()
        engine.dispose()
        await signed_in(client, api.token)
        page = await client.get(f"/ui/tasks/{task_id}")
        assert page.status_code == 200, page.text[-2000:]
        assert 'id="threads"' in page.text and 'class="cut"' in page.text
        assert "pruned at 90 of 300 tokens" in page.text
        assert "<script>alert(1)" not in page.text and "&lt;script&gt;alert(1)" in page.text
