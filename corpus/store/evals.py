"""Eval runs: queued by the API, claimed and filled by the evals runner."""

from __future__ import annotations

from sqlmodel import Session, col, select

from corpus.store.models import (
    EvalResult,
    EvalResultCreate,
    EvalResultPublic,
    EvalRun,
    EvalRunCreate,
)
from corpus.store.tasks import ANY_OWNER, Owner, _AnyOwner


def submit(session: Session, create: EvalRunCreate, owner_key_id: int | None = None) -> EvalRun:
    run = EvalRun.model_validate(create.model_dump(mode="json") | {"owner_key_id": owner_key_id})
    session.add(run)
    session.commit()
    session.refresh(run)
    return run


def get(session: Session, eval_id: int, owner: Owner = ANY_OWNER) -> EvalRun | None:
    run = session.get(EvalRun, eval_id)
    if run is None or isinstance(owner, _AnyOwner) or run.owner_key_id == owner:
        return run
    return None


def add_result(session: Session, eval_id: int, result: EvalResultCreate) -> EvalResult:
    row = EvalResult.model_validate(result.model_dump() | {"eval_run_id": eval_id})
    session.add(row)
    session.commit()
    session.refresh(row)
    return row


def results(session: Session, eval_id: int) -> list[EvalResultPublic]:
    rows = session.exec(
        select(EvalResult)
        .where(EvalResult.eval_run_id == eval_id)
        .order_by(col(EvalResult.problem), col(EvalResult.sample_index))
    ).all()
    return [EvalResultPublic.model_validate(r) for r in rows]
