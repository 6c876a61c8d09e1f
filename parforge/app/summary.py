"""A task's result in one object: what `parforge translate` prints (and `--json` writes) and
`GET /v1/tasks/{id}/summary` answers."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError
from sqlmodel import Session

from agents.core import faster
from agents.evolve.summary import evolution_summary
from agents.reasoning import reasoning_summary
from corpus.store import tasks
from corpus.store.models import CandidateWithVerdict, JobStatus, StepRow, TaskRow
from corpus.store.tasks import ANY_OWNER, Owner
from sandbox.verdict import Verdict


class BestVerdict(BaseModel):
    """The best candidate's verdict, in brief."""

    status: str | None
    race_free: bool
    speedup: dict[str, float]
    """Speedup over the original per thread or rank count."""
    faster: bool
    """Faster than the original: at its best plausible count every paired timing run beat
    the original (`agents.core.faster`). False for a verified program that is not: said, not
    hidden behind "verified"."""
    reason: str


class BestCandidate(BaseModel):
    candidate_id: int
    strategy: str
    source: str
    verdict: BestVerdict


class TaskSummary(BaseModel):
    """Status, reason, best candidate with its verdict, counts, and what reasoning threads and
    evolution did."""

    task_id: str
    status: JobStatus
    """The task's status, the one word the store, the API and the CLI use (`succeeded`: a
    candidate was verified)."""
    verified: bool
    """A candidate passed verification (`best` is it)."""
    reason: str
    best: BestCandidate | None
    """None when no candidate was verified."""
    candidates: int
    llm_calls: int
    tool_calls: int
    tokens: int
    reasoning: dict[str, Any] | None
    """`agents.reasoning.reasoning_summary`; None without reasoning threads."""
    evolution: dict[str, Any] | None
    """`agents.evolve.summary.evolution_summary` of the last evolution; None without one."""


def summarize(session: Session, task_id: str, owner: Owner = ANY_OWNER) -> TaskSummary | None:
    """The summary of a stored task that `owner` can see; None if there is none."""
    task = tasks.get(session, task_id, owner)
    if task is None:
        return None
    return summary_of(task, tasks.candidates(session, task_id), tasks.steps_of(session, task_id))


def summary_of(
    task: TaskRow, candidates: list[CandidateWithVerdict], steps: list[StepRow]
) -> TaskSummary:
    """The summary of a task from its candidates and steps, read already."""
    task_id = task.id
    best = next((c for c in candidates if c.id == task.best_candidate_id), None)
    verdict = best.verdict.data if best and best.verdict else None
    evolution = next((s.result for s in reversed(steps) if s.name == "evolution"), None)
    shown = None
    if best is not None and best.id is not None and verdict is not None:
        shown = BestCandidate(
            candidate_id=best.id,
            strategy=best.strategy,
            source=best.source,
            verdict=BestVerdict(
                status=verdict.get("status"),
                race_free=bool((verdict.get("concurrency") or {}).get("ok")),
                speedup=(verdict.get("timing") or {}).get("speedup", {}),
                faster=_faster(verdict),
                reason=verdict.get("reason", ""),
            ),
        )
    return TaskSummary(
        task_id=task_id,
        status=JobStatus(task.status),
        verified=shown is not None and JobStatus(task.status) is JobStatus.SUCCEEDED,
        reason=task.reason,
        best=shown,
        candidates=len(candidates),
        llm_calls=sum(1 for s in steps if s.kind == "llm_call"),
        tool_calls=sum(1 for s in steps if s.kind == "tool_call"),
        tokens=sum((s.prompt_tokens or 0) + (s.completion_tokens or 0) for s in steps),
        reasoning=reasoning_summary(
            [
                (s.result or {}, s.completion_tokens or 0, s.sampling or {})
                for s in steps
                if s.name == "thread"
            ]
        ),
        evolution=evolution_summary(evolution if isinstance(evolution, dict) else None),
    )


def _faster(data: dict[str, Any]) -> bool:
    """`agents.core.faster` of a stored verdict (False for one this version cannot read)."""
    try:
        return faster(Verdict.model_validate(data))
    except ValidationError:
        return False
