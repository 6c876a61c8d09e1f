"""The web UI's pages under `/ui`: server-rendered HTML (Jinja2, every value escaped), one small
script for live status, no asset from outside the package. Each page reads the store as the
API does, for the signed-in key only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, Request, UploadFile, status
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from jinja2 import Environment, FileSystemLoader, select_autoescape
from pydantic import ValidationError
from sqlmodel import Session, col, select

from corpus.export import ExportFilter, ExportFormat, export_lines
from corpus.store import evals as stored_evals
from corpus.store import sessions, tasks
from corpus.store.models import (
    EvalResultRow,
    EvalRunRow,
    JobStatus,
    TaskCreate,
    TaskDetail,
    TestInput,
)
from corpus.store.queue import CancelOutcome
from evals.report import ProblemChange, comparison_of
from evals.stats import Comparison
from evals.stored import load_run
from evals.summary import OVERALL
from parforge.api.deps import ServicesDep, SessionDep, event_stream
from parforge.api.ui import views
from parforge.api.ui.auth import COOKIE, PREFIX, Posted, SignedIn, set_cookie, sign_in
from parforge.app import Rejected, SubmitError, submit, summarize, summary_of
from parforge.service.events import follow, to_sse
from parforge.service.pool import CANCEL

HERE = Path(__file__).parent
templates = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=select_autoescape(["html"], default=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
templates.filters["json"] = lambda value: json.dumps(value, indent=2, sort_keys=True)

router = APIRouter(prefix=PREFIX, include_in_schema=False)


def page(
    request: Request, name: str, ui: sessions.UiSession | None, code: int = 200, **context: Any
) -> HTMLResponse:
    body = templates.get_template(name).render(request=request, ui=ui, prefix=PREFIX, **context)
    return HTMLResponse(body, status_code=code)


# Signing in and out -------------------------------------------------------------------------


@router.get("/login")
def login_form(request: Request, db: SessionDep, services: ServicesDep, key: str = "") -> Response:
    """The form; with `?key=`, the login link: the key becomes a session and the address the
    browser keeps no longer holds it."""
    if key:
        return _signed_in(request, db, services, key)
    failed = request.query_params.get("failed") == "1"
    return page(request, "login.html", None, failed=failed)


@router.post("/login")
def login(
    request: Request, db: SessionDep, services: ServicesDep, key: Annotated[str, Form()] = ""
) -> Response:
    return _signed_in(request, db, services, key)


def _signed_in(request: Request, db: Session, services: ServicesDep, key: str) -> Response:
    token = sign_in(db, key, services.settings.server.ui_session_hours)
    if token is None:
        return RedirectResponse(f"{PREFIX}/login?failed=1", status.HTTP_303_SEE_OTHER)
    response = RedirectResponse(f"{PREFIX}/", status.HTTP_303_SEE_OTHER)
    set_cookie(request, response, token)
    return response


@router.post("/logout")
def logout(request: Request, db: SessionDep, ui: Posted) -> Response:
    token = request.cookies.get(COOKIE)
    if token:
        sessions.end(db, token)
    response = RedirectResponse(f"{PREFIX}/login", status.HTTP_303_SEE_OTHER)
    response.delete_cookie(COOKIE, path=PREFIX)
    return response


# Tasks -------------------------------------------------------------------------------------


@router.get("/")
def task_list(request: Request, db: SessionDep, ui: SignedIn, offset: int = 0) -> HTMLResponse:
    offset = max(offset, 0)
    found = tasks.list_tasks(db, ui.key_id, limit=50, offset=offset)
    return page(
        request,
        "tasks.html",
        ui,
        tasks=found.items,
        total=found.total,
        offset=offset,
        live=[t.id for t in found.items if not JobStatus(t.status).terminal][:4],
    )


_TARGETS = ("openmp", "mpi", "cuda")


@router.get("/tasks/new")
def new_task(request: Request, ui: SignedIn, services: ServicesDep) -> HTMLResponse:
    return page(
        request, "submit.html", ui, agents=sorted(services.settings.server.runners), form={}
    )


@router.post("/tasks")
async def submit_task(
    request: Request,
    ui: Posted,
    services: ServicesDep,
    source: Annotated[str, Form()] = "",
    upload: Annotated[UploadFile | None, File()] = None,
    name: Annotated[str, Form()] = "task",
    language: Annotated[str, Form()] = "cpp",
    target: Annotated[str, Form()] = "openmp",
    agent: Annotated[str, Form()] = "graph",
    tests: Annotated[str, Form()] = "",
    rtol: Annotated[str, Form()] = "",
    evolve: Annotated[str, Form()] = "",
    timing: Annotated[str, Form()] = "",
) -> Response:
    """The form's task, submitted as the API submits one; a refusal comes back on the form
    with its reason (422), the form as filled in."""
    form = {"name": name, "language": language, "target": target, "agent": agent,
            "tests": tests, "rtol": rtol, "evolve": evolve, "timing": timing, "source": source}  # fmt: skip
    if upload is not None and upload.filename:
        raw = await upload.read(services.settings.server.max_source_chars * 4 + 1)
        source = raw.decode("utf-8", errors="replace")
        form["source"] = source
    try:
        create = TaskCreate.model_validate(
            {
                "name": name or "task",
                "language": language,
                "target": target,
                "agent": agent,
                "source": source,
                "tests": _tests(tests),
                "options": {
                    "rtol": float(rtol) if rtol.strip() else None,
                    "evolve": evolve == "on" or None,
                    "timing": timing == "on",
                },
            }
        )
        task = await submit(
            create,
            engine=services.engine,
            judge=services.judge,
            settings=services.settings,
            owner=ui.key_id,
            notifier=services.notifier,
        )
    except (ValidationError, ValueError) as exc:
        reason = _first_error(exc)
        return _refused(request, ui, services, form, reason)
    except SubmitError as exc:
        code = 422 if isinstance(exc, Rejected) else 429
        return _refused(request, ui, services, form, exc.reason, code)
    services.metrics.submitted.inc()
    return RedirectResponse(f"{PREFIX}/tasks/{task.id}", status.HTTP_303_SEE_OTHER)


def _tests(text: str) -> list[dict[str, Any]] | None:
    """One test per line: its command-line arguments, separated by spaces."""
    lines = [line.split() for line in text.splitlines() if line.strip()]
    return [TestInput(name=f"t{i}", args=args).model_dump() for i, args in enumerate(lines)] or None


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error.get("loc", ()))
        return f"{where}: {error.get('msg', 'invalid')}" if where else str(error.get("msg"))
    return str(exc)


def _refused(
    request: Request, ui: sessions.UiSession, services: ServicesDep, form: dict[str, str],
    reason: str, code: int = 422,
) -> HTMLResponse:  # fmt: skip
    agents = sorted(services.settings.server.runners)
    return page(request, "submit.html", ui, code, agents=agents, form=form, error=reason)


@router.get("/tasks/{task_id}")
def task_page(request: Request, task_id: str, db: SessionDep, ui: SignedIn) -> HTMLResponse:
    task = tasks.get(db, task_id, ui.key_id)
    if task is None:
        return page(request, "missing.html", ui, 404, what=f"task {task_id}")
    candidates = tasks.candidates(db, task_id)
    steps = tasks.steps_of(db, task_id)
    summary = summary_of(task, candidates, steps)
    best = next((c for c in candidates if c.id == task.best_candidate_id), None)
    verdict = best.verdict.data if best is not None and best.verdict is not None else None
    evolution = summary.evolution
    return page(
        request,
        "task.html",
        ui,
        task=task,
        summary=summary,
        steps=views.step_tree(steps),
        threads=views.thread_chart(steps),
        candidates=views.candidate_rows(candidates, task.best_candidate_id),
        best=best,
        diff=views.diff(task.source, best.source) if best is not None else [],
        chart=views.bar_chart(views.speedups(verdict)),
        generations=views.bar_chart(views.best_per_generation(candidates)),
        evolution=evolution,
        terminal=JobStatus(task.status).terminal,
    )


@router.get("/tasks/{task_id}/json")
def task_json(task_id: str, db: SessionDep, ui: SignedIn) -> Response:
    """The task and its summary as the API gives them."""
    task = tasks.get(db, task_id, ui.key_id)
    if task is None:
        return JSONResponse({"detail": f"no task {task_id}"}, 404)
    summary = summarize(db, task_id, ui.key_id)
    body = {
        "task": TaskDetail.model_validate(task).model_dump(mode="json"),
        "summary": summary.model_dump(mode="json") if summary is not None else None,
    }
    return JSONResponse(body)


@router.get("/tasks/{task_id}/export")
def task_export(task_id: str, db: SessionDep, ui: SignedIn, services: ServicesDep) -> Response:
    """The task's trajectories as OpenAI chat JSON lines, failures included (as
    `/v1/exports/openai?task_id=...&verified_only=false`)."""
    if tasks.get(db, task_id, ui.key_id) is None:
        return JSONResponse({"detail": f"no task {task_id}"}, 404)
    filters = ExportFilter(task_id=task_id, verified_only=False)
    lines = export_lines(services.engine, ExportFormat.OPENAI, filters, ui.key_id)
    return StreamingResponse(
        lines,
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="task-{task_id[:8]}.jsonl"'},
    )


@router.get("/tasks/{task_id}/events")
def task_events(task_id: str, db: SessionDep, ui: SignedIn, services: ServicesDep) -> Response:
    """The task's events (as `/v1/tasks/{id}/events`), for the page's live status."""
    if tasks.get(db, task_id, ui.key_id) is None:
        return JSONResponse({"detail": f"no task {task_id}"}, 404)
    stream = follow(
        services.engine, services.notifier, task_id, poll_s=services.settings.server.poll_s
    )
    return event_stream(services, ui.key_id, (to_sse(event) async for event in stream))


@router.post("/tasks/{task_id}/cancel")
def cancel(task_id: str, db: SessionDep, ui: Posted, services: ServicesDep) -> Response:
    outcome = tasks.request_cancel(db, task_id, ui.key_id)
    if outcome is not CancelOutcome.NOT_FOUND and outcome is not CancelOutcome.FINISHED:
        services.notifier.notify(CANCEL)
    return RedirectResponse(f"{PREFIX}/tasks/{task_id}", status.HTTP_303_SEE_OTHER)


# Evals -------------------------------------------------------------------------------------


@router.get("/evals")
def eval_list(request: Request, db: SessionDep, ui: SignedIn) -> HTMLResponse:
    """The key's eval runs, and a leaderboard of the finished ones at k = 1."""
    runs = db.exec(
        select(EvalRunRow)
        .where(EvalRunRow.owner_key_id == ui.key_id)
        .order_by(col(EvalRunRow.created_at).desc())
        .limit(200)
    ).all()
    board = sorted(
        ((run, row) for run in runs if (row := _overall(run, 1)) is not None),
        key=lambda pair: (-(pair[1].get("passed") or 0.0), -(pair[1].get("build") or 0.0)),
    )
    return page(request, "evals.html", ui, runs=runs, board=board)


def _overall(run: EvalRunRow, k: int) -> dict[str, Any] | None:
    for row in (run.summary or {}).get("rows") or []:
        if row.get("group") == OVERALL and row.get("k") == k:
            return dict(row)
    return None


@router.get("/evals/{eval_id}")
def eval_page(request: Request, eval_id: int, db: SessionDep, ui: SignedIn) -> HTMLResponse:
    run = stored_evals.get(db, eval_id, ui.key_id)
    if run is None:
        return page(request, "missing.html", ui, 404, what=f"eval {eval_id}")
    results = db.exec(
        select(EvalResultRow)
        .where(EvalResultRow.eval_run_id == eval_id)
        .order_by(col(EvalResultRow.problem), col(EvalResultRow.sample_index))
    ).all()
    grid: dict[str, list[EvalResultRow]] = {}
    for result in results:
        grid.setdefault(result.problem, []).append(result)
    rows = [r for r in (run.summary or {}).get("rows") or [] if isinstance(r, dict)]
    others = db.exec(
        select(EvalRunRow.id, EvalRunRow.suite, EvalRunRow.model)
        .where(EvalRunRow.owner_key_id == ui.key_id, EvalRunRow.id != eval_id)
        .order_by(col(EvalRunRow.id).desc())
        .limit(100)
    ).all()
    return page(request, "eval.html", ui, run=run, grid=grid, rows=rows, others=others)


@router.get("/evals/{eval_id}/compare")
def compare_page(
    request: Request,
    eval_id: int,
    db: SessionDep,
    ui: SignedIn,
    services: ServicesDep,
    baseline: Annotated[int, Query(ge=1, le=2**31 - 1)],
) -> HTMLResponse:
    """The run against a baseline run of the same key at k = 1: per problem what was gained
    and lost, and the paired tests of pass@1 and race-free@1 (as the report writes them)."""
    for wanted in (eval_id, baseline):
        if stored_evals.get(db, wanted, ui.key_id) is None:
            return page(request, "missing.html", ui, 404, what=f"eval {wanted}")
    run, base = load_run(services.engine, eval_id), load_run(services.engine, baseline)
    tests: dict[str, Comparison] = {}
    changes: list[ProblemChange] = []
    if run.outcomes and base.outcomes:
        tests, changes = comparison_of(run, base, 1)
    return page(
        request, "compare.html", ui, run=run, base=base, tests=tests, changes=changes,
        eval_id=eval_id, baseline=baseline,
    )  # fmt: skip
