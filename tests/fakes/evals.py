"""Eval runs written straight into a real store, as an eval worker would leave them."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from corpus.store import evals as stored_evals
from corpus.store import keys, open_store
from corpus.store.models import EvalResultCreate, EvalRunCreate, JobStatus


def stored_eval(
    store_url: str,
    token: str,
    statuses: dict[str, str],
    model: str,
    summary: dict[str, Any] | None = None,
) -> int:
    """An eval run of `token`'s key with one sample per problem (its verdict's status); with
    `summary`, finished with it."""
    engine = open_store(store_url)
    with Session(engine) as s:
        key = keys.authenticate(s, token)
        assert key is not None
        run = stored_evals.submit(
            s, EvalRunCreate(suite="pareval", target="openmp", model=model), key.id
        )
        assert run.id is not None
        run_id = run.id
        stored_evals.save_results(
            s,
            run_id,
            [
                EvalResultCreate(
                    problem=problem,
                    problem_type=problem.split("_")[1],
                    sample_index=0,
                    status=status,
                    built=status != "build_failed",
                    passed=status == "passed",
                    race=status == "race",
                )
                for problem, status in statuses.items()
            ],
        )
        if summary is not None:
            stored_evals.claim(s, "tests", run_id)
            stored_evals.finish(
                s, run_id, "tests", JobStatus.SUCCEEDED, f"{len(statuses)} samples", summary
            )
    engine.dispose()
    return run_id
