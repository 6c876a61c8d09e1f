"""Preference pairs from evolution histories: a child against its first parent.

Evolution verifies every child and measures it side by side with its parent, and its stored
`evolution` step keeps one history row per child (status, correctness, speedup, and the
confidence that the child is faster than its first parent). Those rows give two kinds of pairs:

- `faster`: both correct, one faster with confidence (the child when `confidence >= 0.95`, the
  parent when `confidence <= 0.05`): chosen the faster, rejected the slower;
- `correct`: a child that is not correct (build failure, wrong output, race...) of a correct
  parent: chosen the parent, rejected the child.

The pairing is pure (`evolution_pairs`); `evolution_records` streams the store one evolution step
at a time and loads only the candidates that step's history names.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, and_, func, select
from sqlalchemy.orm import aliased
from sqlmodel import Session, col

from corpus.export.filters import ExportFilter, Split, split_of
from corpus.export.formats import METADATA
from corpus.export.rows import matching
from corpus.store.models import CandidateRow, RunRow, StepKind, StepRow, TaskRow, VerdictRow
from corpus.store.tasks import Owner

EVOLUTION_STEP = "evolution"
"""The name of the step evolution stores its account (and history) under."""
CONFIDENT = 0.95
"""A child is faster than its parent when the confidence is at least this, slower when the
confidence is at most 1 - this (the same bar evolution uses to replace an incumbent)."""
BATCH = 100
"""Evolution steps fetched per round trip."""

_LANGUAGE = {"c": "C", "cpp": "C++", "cuda": "CUDA C++"}
_TARGET = {"openmp": "OpenMP", "mpi": "MPI", "cuda": "CUDA"}
SYSTEM = (
    "You are an expert in high-performance computing. You turn sequential C and C++ programs "
    "into correct, fast parallel programs. Answer with one complete program in one fenced "
    "code block."
)


@dataclass(frozen=True)
class EvolvedTask:
    """One stored `evolution` step with what the prompt needs of its task."""

    task_id: str
    language: str
    target: str
    source: str
    history: list[dict[str, Any]]


@dataclass(frozen=True)
class Side:
    """A candidate as a pair needs it: its code and its latest verdict."""

    candidate_id: int
    source: str
    passed: bool
    speedup: float


def _fence(language: str, target: str) -> str:
    return "cuda" if target == "cuda" else language


def evolution_prompt(source: str, language: str, target: str) -> list[dict[str, Any]]:
    """A short system and user message asking for a parallel version of the task's source.

    A pure function of the stored task: the prompt-mode prompt also depends on the runner's
    configuration (thread and rank counts, tests shown), which the store does not keep.
    """
    lang = _LANGUAGE.get(language, language)
    name = _TARGET.get(target, target)
    user = (
        f"Parallelise this {lang} program with {name}; print exactly the same output.\n\n"
        f"```{language}\n{source.rstrip()}\n```"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def _answer(source: str, fence: str) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": f"```{fence}\n{source.rstrip()}\n```"}]


def _same(a: str, b: str) -> bool:
    return "".join(a.split()) == "".join(b.split())


def _float(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _orientation(row: Mapping[str, Any]) -> tuple[str, bool, float | None] | None:
    """(kind, child chosen, confidence that chosen is faster) for a history row, or None."""
    confidence = _float(row.get("confidence"))
    if not row.get("correct"):
        return "correct", False, None
    if confidence is None:
        return None
    if confidence >= CONFIDENT:
        return "faster", True, confidence
    if confidence <= 1 - CONFIDENT:
        return "faster", False, round(1 - confidence, 4)
    return None


def history_ids(history: Sequence[Mapping[str, Any]]) -> set[int]:
    """Every candidate a history's pairs may need: the children and their first parents."""
    ids: set[int] = set()
    for row in history:
        parents = row.get("parents") or []
        if isinstance(row.get("candidate_id"), int) and parents and isinstance(parents[0], int):
            ids.update((row["candidate_id"], parents[0]))
    return ids


def evolution_pairs(
    task: EvolvedTask, sides: Mapping[int, Side], filters: ExportFilter
) -> Iterator[dict[str, Any]]:
    """The `faster` and `correct` pairs of one evolution history (see the module)."""
    measured = {
        row.get("candidate_id"): value
        for row in task.history
        if row.get("correct") and (value := _float(row.get("speedup"))) is not None
    }
    prompt = evolution_prompt(task.source, task.language, task.target)
    fence = _fence(task.language, task.target)
    for row in task.history:
        parents = row.get("parents") or []
        child_id, parent_id = row.get("candidate_id"), parents[0] if parents else None
        if not isinstance(child_id, int) or not isinstance(parent_id, int):
            continue
        child, parent = sides.get(child_id), sides.get(parent_id)
        if child is None or parent is None or not parent.passed:
            continue
        way = _orientation(row)
        if way is None:
            continue
        kind, child_chosen, confidence = way
        chosen, rejected = (child, parent) if child_chosen else (parent, child)
        if _same(chosen.source, rejected.source):
            continue
        speed = {
            child.candidate_id: (_float(row.get("speedup")) or 0.0) if row.get("correct") else 0.0,
            parent.candidate_id: measured.get(parent.candidate_id, parent.speedup),
        }
        if filters.min_speedup is not None and speed[chosen.candidate_id] < filters.min_speedup:
            continue
        yield {
            "prompt": prompt,
            "chosen": _answer(chosen.source, fence),
            "rejected": _answer(rejected.source, fence),
            METADATA: {
                "task_id": task.task_id,
                "chosen_candidate_id": chosen.candidate_id,
                "rejected_candidate_id": rejected.candidate_id,
                "kind": kind,
                "chosen_speedup": speed[chosen.candidate_id],
                "rejected_speedup": speed[rejected.candidate_id],
                "confidence": confidence,
            },
        }


def stream_evolutions(engine: Engine, filters: ExportFilter, owner: Owner) -> Iterator[EvolvedTask]:
    """Every stored `evolution` step that matches, in task order, fetched in batches."""
    query = (
        select(
            col(StepRow.task_id),
            col(StepRow.result),
            col(TaskRow.language),
            col(TaskRow.target),
            col(TaskRow.source),
        )
        .join(TaskRow, col(TaskRow.id) == StepRow.task_id)
        .join(RunRow, col(RunRow.id) == StepRow.run_id)
        .where(col(StepRow.kind) == StepKind.TOOL_CALL, col(StepRow.name) == EVOLUTION_STEP)
        .order_by(col(StepRow.task_id), col(StepRow.id))
    )
    query = matching(query, filters, owner)
    with Session(engine) as session:
        for r in session.execute(query.execution_options(yield_per=BATCH)):
            history = r[1].get("history") if isinstance(r[1], dict) else None
            if isinstance(history, list) and history:
                rows = [h for h in history if isinstance(h, dict)]
                yield EvolvedTask(r[0], str(r[2]), str(r[3]), r[4], rows)


def load_sides(engine: Engine, task_id: str, ids: set[int]) -> dict[int, Side]:
    """The candidates `ids` of one task with their latest verdicts."""
    if not ids:
        return {}
    latest = (
        select(func.max(col(VerdictRow.id)))
        .where(col(VerdictRow.candidate_id) == col(CandidateRow.id))
        .correlate(CandidateRow)
        .scalar_subquery()
    )
    verdict = aliased(VerdictRow)
    query = (
        select(
            col(CandidateRow.id),
            col(CandidateRow.source),
            col(verdict.passed),
            col(verdict.best_speedup),
        )
        .outerjoin(
            verdict, and_(col(verdict.candidate_id) == CandidateRow.id, col(verdict.id) == latest)
        )
        .where(col(CandidateRow.task_id) == task_id, col(CandidateRow.id).in_(sorted(ids)))
    )
    with Session(engine) as session:
        return {
            r[0]: Side(r[0], r[1], bool(r[2]), float(r[3] or 0.0)) for r in session.execute(query)
        }


def evolution_records(
    engine: Engine, filters: ExportFilter, owner: Owner
) -> Iterator[dict[str, Any]]:
    """The pairs of every matching evolution, one evolution step in memory at a time."""
    for task in stream_evolutions(engine, filters, owner):
        wanted = filters.split
        if (
            wanted is not Split.ALL
            and split_of(task.task_id, filters.validation_fraction) is not wanted
        ):
            continue
        sides = load_sides(engine, task.task_id, history_ids(task.history))
        yield from evolution_pairs(task, sides, filters)
