"""/v1/evals: queue a batch evaluation, list, read, cancel and follow runs, page their results."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Response, status
from fastapi import Path as PathParam
from fastapi.responses import HTMLResponse
from pydantic import Field
from sse_starlette import EventSourceResponse

from corpus.store import evals, queue
from corpus.store.models import EvalResultPublic, EvalRunPublic, EvalRunRow, JobStatus
from corpus.store.notify import QUEUE
from corpus.store.queue import CancelOutcome
from parforge.api.deps import OwnerDep, ServicesDep, SessionDep, event_stream, refuse
from parforge.api.limits import PAGE_MAX
from parforge.api.problems import error_responses
from parforge.api.schemas import CancelResult, Page
from parforge.app.evals import EvalSubmission, check_replay, eval_report, plan, run_options
from parforge.app.limits import eval_refusal
from parforge.service.eval_events import follow_eval
from parforge.service.pool import CANCEL

router = APIRouter(prefix="/v1/evals", tags=["evals"], responses=error_responses(401, 500))

EvalId = Annotated[int, PathParam(ge=1, le=2**31 - 1, description="An eval run id.")]


def _not_found(eval_id: int) -> HTTPException:
    return HTTPException(status.HTTP_404_NOT_FOUND, f"no eval run {eval_id}")


def _get(session: SessionDep, eval_id: int, owner: int | None) -> EvalRunRow:
    run = evals.get(session, eval_id, owner)
    if run is None:
        raise _not_found(eval_id)
    return run


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    responses={
        202: {"headers": {"Location": {"description": "The run's URL.", "schema": {}}}},
        **error_responses(413, 422, 429),
    },
)
def submit_eval(
    body: EvalSubmission,
    session: SessionDep,
    owner: OwnerDep,
    services: ServicesDep,
    response: Response,
) -> EvalRunPublic:
    """Queue an eval run for the evals runner; its URL is in `Location`.

    The run's problems (names or globs; all when absent) are resolved against the built-in
    suite now: a suite or selection with no task for the target is 422. `options` choose the
    agent, the sampling and the translation source; the server's defaults fill the rest.
    `model = replay:run=ID` replays a stored run: only one that the caller's key can see.
    """
    check_replay(session, body, owner)
    options = run_options(body.options, services.settings.evals.defaults, timing=body.timing)
    create = plan(body, options, builtin_only=True)
    active = None if owner is None else queue.active(session, EvalRunRow, owner)
    refuse(eval_refusal(active, services.settings.server.limits))
    run = evals.submit(session, create, owner, options=options.model_dump(mode="json"))
    services.notifier.notify(QUEUE)
    response.headers["Location"] = f"/v1/evals/{run.id}"
    return EvalRunPublic.model_validate(run)


@router.get("", responses=error_responses(422))
def list_evals(
    session: SessionDep,
    owner: OwnerDep,
    status_: Annotated[JobStatus | None, Query(alias="status")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> Page[EvalRunPublic]:
    """The caller's eval runs, newest first."""
    page = evals.page(session, owner, status=status_, limit=limit, offset=offset)
    return Page[EvalRunPublic](
        items=[EvalRunPublic.model_validate(r) for r in page.items],
        total=page.total,
        limit=limit,
        offset=offset,
    )


@router.get("/{eval_id}", responses=error_responses(404, 422))
def get_eval(eval_id: EvalId, session: SessionDep, owner: OwnerDep) -> EvalRunPublic:
    """The run: status, options, progress and, once it has ended, its summary metrics."""
    return EvalRunPublic.model_validate(_get(session, eval_id, owner))


@router.get("/{eval_id}/results", responses=error_responses(404, 422))
def list_results(
    eval_id: EvalId,
    session: SessionDep,
    owner: OwnerDep,
    limit: Annotated[int, Query(ge=1, le=PAGE_MAX)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> Page[EvalResultPublic]:
    """The run's per-sample results, by problem then sample, a page at a time."""
    _get(session, eval_id, owner)
    return Page[EvalResultPublic](
        items=evals.results(session, eval_id, limit=limit, offset=offset),
        total=evals.count_results(session, eval_id),
        limit=limit,
        offset=offset,
    )


@router.get(
    "/{eval_id}/report",
    response_class=HTMLResponse,
    responses={
        200: {
            "content": {"text/html": {}, "text/markdown": {}},
            "description": "The report: one self-contained HTML page, or Markdown",
        },
        **error_responses(404, 422),
    },
)
def eval_report_page(
    eval_id: EvalId,
    session: SessionDep,
    owner: OwnerDep,
    services: ServicesDep,
    compare: Annotated[
        int | None, Query(ge=1, le=2**31 - 1, description="A baseline run to compare with.")
    ] = None,
    k: Annotated[
        list[Annotated[int, Field(ge=1, le=100)]],
        Query(max_length=10, description="k values of pass@k."),
    ] = [1, 5],  # noqa: B006
    resources: Annotated[int | None, Query(ge=1, le=1024)] = None,
    fmt: Annotated[Literal["html", "markdown"], Query(alias="format")] = "html",
) -> Response:
    """The run's report, made now from its stored samples: rates with 95 % intervals over the
    problems, per problem type and overall, plots inline and, against `compare`, the
    per-problem changes with a paired test (as `parforge eval report` writes it). 422 while the
    run has no finished sample."""
    _get(session, eval_id, owner)
    if compare is not None:
        _get(session, compare, owner)
    with tempfile.TemporaryDirectory(prefix="parforge-report-") as directory:
        made = eval_report(
            services.engine,
            eval_id,
            Path(directory),
            compare=compare,
            ks=k,
            resources=resources,
        )
        if fmt == "markdown":
            text = made.files["markdown"].read_text()
            return Response(text, media_type="text/markdown; charset=utf-8")
        return HTMLResponse(made.html.read_text())


@router.post("/{eval_id}/cancel", responses=error_responses(404, 409, 422))
def cancel_eval(
    eval_id: EvalId, session: SessionDep, owner: OwnerDep, services: ServicesDep
) -> CancelResult:
    """Cancel a queued run at once, or ask the worker running it to stop; the samples it has
    verified stay (`parforge eval run --resume ID` continues it)."""
    outcome = evals.request_cancel(session, eval_id, owner)
    if outcome is CancelOutcome.NOT_FOUND:
        raise _not_found(eval_id)
    run = _get(session, eval_id, owner)
    session.refresh(run)
    if outcome is CancelOutcome.FINISHED:
        raise HTTPException(
            status.HTTP_409_CONFLICT, f"eval run {eval_id} has already {run.status}"
        )
    services.notifier.notify(CANCEL)
    detail = "cancelled" if outcome is CancelOutcome.CANCELLED else "cancellation requested"
    return CancelResult(id=str(eval_id), status=JobStatus(run.status), detail=detail)


@router.get(
    "/{eval_id}/events",
    response_class=EventSourceResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "Server-sent events"},
        **error_responses(404, 422, 429),
    },
)
def eval_events(
    eval_id: EvalId,
    session: SessionDep,
    owner: OwnerDep,
    services: ServicesDep,
    follow_: Annotated[bool, Query(alias="follow")] = True,
) -> EventSourceResponse:
    """Server-sent events: `status` when the run's status changes, `progress` as samples are
    generated and verified, `result` for each verified sample, and
    `summary` when the run ends, after which the stream closes; `follow=false` stops after
    what has happened so far. Samples are verified out of order: a reconnect sends the run's
    state again, every verified sample included. Event streams count against the key's
    `limits.event_streams` (429 beyond)."""
    _get(session, eval_id, owner)
    stream = follow_eval(
        services.engine, eval_id, follow=follow_, poll_s=services.settings.server.poll_s
    )
    return event_stream(services, owner, (event.sse() async for event in stream))
