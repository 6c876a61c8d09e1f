"""Eval runs as stored, turned into what reports and tables read."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session

from corpus.store import evals as store
from corpus.store.models import EvalRunRow, JobStatus
from evals.config import RunOptions
from evals.errors import EvalSetupError
from evals.outcomes import is_finished, outcome
from evals.plan import kind_label
from evals.report import RunData, RunInfo


def run_notes(run: EvalRunRow) -> str:
    """How the run's numbers were obtained, in a sentence or two."""
    notes = []
    if run.status != JobStatus.SUCCEEDED:
        why = f" ({run.reason})" if run.reason else ""
        notes.append(f"The run is {run.status}{why}: the tables cover its finished samples.")
    if not run.timing:
        notes.append("Speed was not measured (run without timing).")
    elif RunOptions.model_validate(run.options or {}).reference_cache:
        notes.append(
            "Each task's reference was timed once (median of its timing repeats) and every "
            "sample's speedup is measured against that one baseline."
        )
    return " ".join(notes)


def load_run(engine: Engine, run_id: int) -> RunData:
    """A stored run and its finished samples; `EvalSetupError` when there is no such run."""
    with Session(engine) as session:
        run = store.get(session, run_id)
        if run is None:
            raise EvalSetupError(f"no eval run {run_id}")
        rows = store.rows(session, run_id)
    info = RunInfo(
        id=str(run_id),
        suite=run.suite,
        target=kind_label(run.target, (run.options or {}).get("translate_from")),
        model=run.model or "(configured model)",
        samples=run.samples_k,
        created=run.created_at.strftime("%Y-%m-%d %H:%M UTC"),
        notes=run_notes(run),
    )
    return RunData(
        info=info,
        outcomes=[outcome(r) for r in rows if is_finished(r)],
        unverified=sum(not is_finished(r) for r in rows),
    )
