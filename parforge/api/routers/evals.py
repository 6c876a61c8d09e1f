"""/v1/evals: queue a batch evaluation, read its results."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, status

from corpus.store import evals
from corpus.store.models import EvalRunCreate, EvalRunDetail, EvalRunPublic
from corpus.store.notify import QUEUE
from parforge.api.deps import OwnerDep, ServicesDep, SessionDep

router = APIRouter(prefix="/v1/evals", tags=["evals"])


@router.post("", status_code=status.HTTP_202_ACCEPTED)
def submit_eval(
    body: EvalRunCreate, session: SessionDep, owner: OwnerDep, services: ServicesDep
) -> EvalRunPublic:
    """Queue an eval run for the evals runner."""
    run = evals.submit(session, body, owner)
    services.notifier.notify(QUEUE)
    return EvalRunPublic.model_validate(run)


@router.get("/{eval_id}")
def get_eval(
    eval_id: Annotated[int, Path(ge=1, le=2**31 - 1)], session: SessionDep, owner: OwnerDep
) -> EvalRunDetail:
    run = evals.get(session, eval_id, owner)
    if run is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no eval run {eval_id}")
    return EvalRunDetail.model_validate(
        EvalRunPublic.model_validate(run).model_dump()
        | {"results": evals.results(session, eval_id)}
    )
