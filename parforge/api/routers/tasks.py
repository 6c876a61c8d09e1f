"""/v1/tasks: submit, look up, list, cancel, follow and inspect translation tasks."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, HTTPException, Path, Query, Response, status
from sse_starlette import EventSourceResponse

from corpus.store import tasks
from corpus.store.models import (
    CandidateWithVerdict,
    JobStatus,
    ParallelTarget,
    RunPublic,
    TaskAccepted,
    TaskCreate,
    TaskDetail,
    TaskPublic,
)
from corpus.store.queue import CancelOutcome
from parforge.api.deps import OwnerDep, ServicesDep, SessionDep, event_stream
from parforge.api.limits import PAGE_MAX
from parforge.api.problems import error_responses
from parforge.api.schemas import CancelResult, Page
from parforge.app import TaskSummary, submit, summarize
from parforge.service.events import follow, to_sse
from parforge.service.pool import CANCEL

router = APIRouter(prefix="/v1/tasks", tags=["tasks"], responses=error_responses(401, 500))

TaskId = Annotated[str, Path(pattern="^[0-9a-f]{32}$", description="A task id.")]


def _not_found(task_id: str) -> HTTPException:
    return HTTPException(status.HTTP_404_NOT_FOUND, f"no task {task_id}")


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    responses={
        202: {"headers": {"Location": {"description": "The task's URL.", "schema": {}}}},
        **error_responses(413, 422, 429, 503),
    },
)
async def submit_task(
    body: TaskCreate, owner: OwnerDep, services: ServicesDep, response: Response
) -> TaskAccepted:
    """Queue a translation task for its agent (`graph` unless it names `prompt`); its URL is in
    `Location`; follow it with `GET /v1/tasks/{id}/events`.

    The original program is built and run on its tests in the sandbox first: input that cannot
    be translated is answered 422, too many tasks at once 429, both as problem details (RFC
    9457: `application/problem+json`, the reason in `detail`)."""
    task = await submit(
        body,
        engine=services.engine,
        judge=services.judge,
        settings=services.settings,
        owner=owner,
        notifier=services.notifier,
    )
    services.metrics.submitted.inc()
    response.headers["Location"] = f"/v1/tasks/{task.id}"
    return TaskAccepted(id=task.id, status=JobStatus(task.status))


@router.get("", responses=error_responses(422))
def list_tasks(
    session: SessionDep,
    owner: OwnerDep,
    status_: Annotated[JobStatus | None, Query(alias="status")] = None,
    target: ParallelTarget | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> Page[TaskPublic]:
    """The caller's tasks, newest first."""
    page = tasks.list_tasks(
        session, owner, status=status_, target=target, limit=limit, offset=offset
    )
    return Page[TaskPublic](
        items=[TaskPublic.model_validate(t) for t in page.items],
        total=page.total,
        limit=limit,
        offset=offset,
    )


@router.get("/{task_id}", responses=error_responses(404, 422))
def get_task(task_id: TaskId, session: SessionDep, owner: OwnerDep) -> TaskDetail:
    task = tasks.get(session, task_id, owner)
    if task is None:
        raise _not_found(task_id)
    return TaskDetail.model_validate(task)


@router.get("/{task_id}/summary", responses=error_responses(404, 422))
def task_summary(task_id: TaskId, session: SessionDep, owner: OwnerDep) -> TaskSummary:
    """The task's result in brief: status, the best candidate with its verdict, counts, and
    what reasoning threads and evolution did (what `parforge translate --json` prints)."""
    summary = summarize(session, task_id, owner)
    if summary is None:
        raise _not_found(task_id)
    return summary


@router.post("/{task_id}/cancel", responses=error_responses(404, 409, 422))
def cancel_task(
    task_id: TaskId, session: SessionDep, owner: OwnerDep, services: ServicesDep
) -> CancelResult:
    """Cancel a queued task at once, or ask the worker running it to stop."""
    outcome = tasks.request_cancel(session, task_id, owner)
    if outcome is CancelOutcome.NOT_FOUND:
        raise _not_found(task_id)
    task = tasks.get(session, task_id, owner)
    assert task is not None
    if outcome is CancelOutcome.FINISHED:
        raise HTTPException(status.HTTP_409_CONFLICT, f"task {task_id} has already {task.status}")
    services.notifier.notify(CANCEL)
    detail = "cancelled" if outcome is CancelOutcome.CANCELLED else "cancellation requested"
    return CancelResult(id=task_id, status=JobStatus(task.status), detail=detail)


@router.get("/{task_id}/candidates", responses=error_responses(404, 422))
def list_candidates(
    task_id: TaskId,
    session: SessionDep,
    owner: OwnerDep,
    limit: Annotated[int, Query(ge=1, le=PAGE_MAX)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> Page[CandidateWithVerdict]:
    """The task's candidates with their verdicts, in the order they were made, a page at a
    time."""
    if tasks.get(session, task_id, owner) is None:
        raise _not_found(task_id)
    return Page[CandidateWithVerdict](
        items=tasks.candidates(session, task_id, limit=limit, offset=offset),
        total=tasks.count_candidates(session, task_id),
        limit=limit,
        offset=offset,
    )


@router.get("/{task_id}/runs", responses=error_responses(404, 422))
def list_runs(
    task_id: TaskId,
    session: SessionDep,
    owner: OwnerDep,
    limit: Annotated[int, Query(ge=1, le=PAGE_MAX)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> Page[RunPublic]:
    """The task's runs (one per attempt of a worker), in order, a page at a time."""
    if tasks.get(session, task_id, owner) is None:
        raise _not_found(task_id)
    return Page[RunPublic](
        items=tasks.runs(session, task_id, limit=limit, offset=offset),
        total=tasks.count_runs(session, task_id),
        limit=limit,
        offset=offset,
    )


@router.get(
    "/{task_id}/events",
    response_class=EventSourceResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "Server-sent events"},
        **error_responses(404, 422, 429),
    },
)
def task_events(
    task_id: TaskId,
    session: SessionDep,
    owner: OwnerDep,
    services: ServicesDep,
    after: Annotated[int, Query(ge=0, le=2**62)] = 0,
    follow_: Annotated[bool, Query(alias="follow")] = True,
    last_event_id: Annotated[str | None, Header()] = None,
) -> EventSourceResponse:
    """Server-sent events: `status`, `run`, `step`, `candidate`, `verdict`, as they are written.

    Replays from the start (or after `after` / `Last-Event-ID`), then follows the task until it
    ends; `follow=false` stops after the replay. A key has at most `limits.event_streams` open
    at once (429 beyond).
    """
    if tasks.get(session, task_id, owner) is None:
        raise _not_found(task_id)
    if last_event_id is not None and last_event_id.isdigit():
        after = max(after, int(last_event_id))
    stream = follow(
        services.engine,
        services.notifier,
        task_id,
        after=after,
        follow=follow_,
        poll_s=services.settings.server.poll_s,
    )
    return event_stream(services, owner, (to_sse(event) async for event in stream))
