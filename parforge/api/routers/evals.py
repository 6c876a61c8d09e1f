"""/v1/evals: queue a batch evaluation, read its results."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, status

from corpus.store import evals, queue
from corpus.store.models import EvalRunCreate, EvalRunDetail, EvalRunPublic, EvalRunRow
from corpus.store.notify import QUEUE
from evals.sources.replay import replayed_run
from parforge.api.deps import OwnerDep, ServicesDep, SessionDep, refuse
from parforge.api.limits import PAGE_MAX
from parforge.app.limits import eval_refusal

router = APIRouter(prefix="/v1/evals", tags=["evals"])


@router.post("", status_code=status.HTTP_202_ACCEPTED)
def submit_eval(
    body: EvalRunCreate, session: SessionDep, owner: OwnerDep, services: ServicesDep
) -> EvalRunPublic:
    """Queue an eval run for the evals runner.

    `model = replay:run=ID` replays a stored run: only one that the caller's key can see.
    """
    try:
        replayed = replayed_run(body.model)
    except ValueError as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(exc)) from None
    if replayed is not None and evals.get(session, replayed, owner) is None:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            f"{body.model}: no eval run {replayed} that this API key can see",
        )
    active = None if owner is None else queue.active(session, EvalRunRow, owner)
    refuse(eval_refusal(active, services.settings.server.limits))
    run = evals.submit(session, body, owner)
    services.notifier.notify(QUEUE)
    return EvalRunPublic.model_validate(run)


@router.get("/{eval_id}")
def get_eval(
    eval_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    session: SessionDep,
    owner: OwnerDep,
    limit: Annotated[int, Query(ge=1, le=PAGE_MAX)] = PAGE_MAX,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> EvalRunDetail:
    """The run with a page of its results (by problem, then sample); `results_total` says how
    many there are."""
    run = evals.get(session, eval_id, owner)
    if run is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no eval run {eval_id}")
    return EvalRunDetail.model_validate(
        EvalRunPublic.model_validate(run).model_dump()
        | {
            "results": evals.results(session, eval_id, limit=limit, offset=offset),
            "results_total": evals.count_results(session, eval_id),
        }
    )
