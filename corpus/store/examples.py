"""Verified candidates of earlier tasks, found by the loop patterns their strategy names.

The translate agent's annotated candidates carry their loop patterns in their strategy
(`annotate[reduction:+,independent]:L1/static`), so a later task with a `reduction:+` loop can
be shown how one was parallelised before. Only passed verdicts count.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, or_
from sqlmodel import Session, col, select

from corpus.store.models import CandidateRow, VerdictRow


def search(
    engine: Engine, target: str, patterns: list[str], limit: int, exclude_task: str | None = None
) -> list[dict[str, Any]]:
    """Up to `limit` passed candidates for `target` whose strategy names one of `patterns`,
    newest first, at most one per task."""
    if not patterns:
        return []
    query = (
        select(CandidateRow)
        .join(VerdictRow, col(VerdictRow.candidate_id) == col(CandidateRow.id))
        .where(
            col(CandidateRow.target) == target,
            col(VerdictRow.status) == "passed",
            or_(*(col(CandidateRow.strategy).contains(p) for p in patterns)),
        )
        .order_by(col(CandidateRow.id).desc())
        .limit(limit * 5)
    )
    if exclude_task is not None:
        query = query.where(col(CandidateRow.task_id) != exclude_task)
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    with Session(engine) as session:
        for row in session.exec(query):
            if row.task_id in seen:
                continue
            seen.add(row.task_id)
            found.append({"task_id": row.task_id, "strategy": row.strategy, "source": row.source})
            if len(found) == limit:
                break
    return found
