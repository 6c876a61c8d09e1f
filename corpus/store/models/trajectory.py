"""What agents did on a task: runs, their steps, the candidates and the verdicts on them.

Every row is written as it happens (see `corpus.store.recorder`), so a process that dies keeps
everything it had done until then.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import String
from sqlmodel import Field, SQLModel

from corpus.store.enums import JobStatus
from corpus.store.models.common import (
    STATUS_LENGTH,
    BigId,
    GeneratedText,
    JSONType,
    UTCDateTime,
    utcnow,
)
from sandbox.spec import Language


class StepKind(StrEnum):
    LLM_CALL = "llm_call"
    TOOL_CALL = "tool_call"


class EventKind(StrEnum):
    """What a task event points at."""

    STATUS = "status"
    RUN = "run"
    STEP = "step"
    CANDIDATE = "candidate"
    VERDICT = "verdict"


class RunMeta(SQLModel):
    """What a runner says about itself: fields it may set once it knows them."""

    model: str | None = Field(default=None, max_length=200)
    adapter: str | None = Field(default=None, max_length=200)
    budgets: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)


class RunRow(RunMeta, table=True):
    """One agent execution of a task (a task re-queued after a crash gets a second run)."""

    __tablename__ = "runs"

    id: int | None = Field(default=None, primary_key=True)
    task_id: str = Field(foreign_key="tasks.id", index=True, max_length=32)
    attempt: int
    runner: str = Field(max_length=200)
    worker: str = Field(max_length=200)
    status: JobStatus = Field(default=JobStatus.RUNNING, sa_type=String(STATUS_LENGTH))
    reason: str = ""
    started_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class RunPublic(RunMeta):
    id: int
    task_id: str
    attempt: int
    runner: str
    status: JobStatus
    reason: str
    started_at: datetime
    finished_at: datetime | None


class StepBase(SQLModel):
    """One LLM call or one tool call, with everything needed to replay it as training data."""

    kind: StepKind = Field(sa_type=String(16))
    name: str = Field(default="", max_length=200)
    """The agent node or purpose (`generate`, `plan`, `verify`)."""
    parent_id: int | None = Field(default=None, sa_type=BigId, foreign_key="steps.id")
    """The step this one branched from, for parallel branches (reasoning threads, fan-out)."""
    model: str | None = Field(default=None, max_length=200)
    adapter: str | None = Field(default=None, max_length=200)
    messages: list[dict[str, Any]] | None = Field(default=None, sa_type=JSONType)
    """The chat messages sent (OpenAI format), for LLM calls."""
    response: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    """The assistant message received (`content`, `tool_calls`), for LLM calls."""
    sampling: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    """Sampling parameters (temperature, top_p, n, max_tokens, seed, response format)."""
    tools: list[dict[str, Any]] | None = Field(default=None, sa_type=JSONType)
    """Tool definitions offered to the model (OpenAI `tools`), for LLM calls."""
    tool_name: str | None = Field(default=None, max_length=200)
    tool_call_id: str | None = Field(default=None, max_length=200)
    """The id of the model's tool call this step executed, linking it to its LLM call."""
    arguments: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    result: Any = Field(default=None, sa_type=JSONType, nullable=True)
    error: str | None = Field(default=None, sa_type=GeneratedText)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    ttft_s: float | None = None
    latency_s: float | None = None
    started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class StepCreate(StepBase):
    """A step as a runner reports it."""


class StepRow(StepBase, table=True):
    __tablename__ = "steps"

    id: int | None = Field(default=None, primary_key=True, sa_type=BigId)
    task_id: str = Field(foreign_key="tasks.id", index=True, max_length=32)
    run_id: int = Field(foreign_key="runs.id", index=True)
    seq: int
    """Order within the run."""
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, index=True)


class StepPublic(StepBase):
    id: int
    task_id: str
    run_id: int
    seq: int
    created_at: datetime


class CandidateBase(SQLModel):
    target: str = Field(max_length=16)
    language: Language | None = Field(default=None, sa_type=String(16))
    source: str = Field(sa_type=GeneratedText)
    strategy: str = Field(default="", max_length=200)
    """How it was made (`prompt`, `mutation`, `repair`, `crossover`)."""
    generation: int = 0
    parent_id: int | None = Field(default=None, foreign_key="candidates.id")
    step_id: int | None = Field(default=None, sa_type=BigId, foreign_key="steps.id")
    """The LLM call that wrote it."""


class CandidateCreate(CandidateBase):
    """A candidate as a runner reports it."""


class CandidateRow(CandidateBase, table=True):
    __tablename__ = "candidates"

    id: int | None = Field(default=None, primary_key=True)
    task_id: str = Field(foreign_key="tasks.id", index=True, max_length=32)
    run_id: int = Field(foreign_key="runs.id", index=True)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class CandidatePublic(CandidateBase):
    id: int
    task_id: str
    run_id: int
    created_at: datetime


class VerdictBase(SQLModel):
    """The sandbox's verdict: its JSON as `data`, plus the columns that filters and ranking use."""

    target: str = Field(max_length=16)
    status: str = Field(max_length=32, index=True)
    passed: bool = Field(index=True)
    best_speedup: float = 0.0
    reason: str = Field(default="", sa_type=GeneratedText)
    duration_s: float = 0.0
    data: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)


class VerdictRow(VerdictBase, table=True):
    __tablename__ = "verdicts"

    id: int | None = Field(default=None, primary_key=True)
    candidate_id: int = Field(foreign_key="candidates.id", index=True)
    task_id: str = Field(foreign_key="tasks.id", index=True, max_length=32)
    run_id: int = Field(foreign_key="runs.id", index=True)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class VerdictPublic(VerdictBase):
    id: int
    candidate_id: int
    created_at: datetime


class CandidateWithVerdict(CandidatePublic):
    """A candidate with its latest verdict, as `GET /v1/tasks/{id}/candidates` lists them."""

    verdict: VerdictPublic | None = None


class TaskEventRow(SQLModel, table=True):
    """The task's log, in write order: what `GET /v1/tasks/{id}/events` replays and follows."""

    __tablename__ = "task_events"

    id: int | None = Field(default=None, primary_key=True, sa_type=BigId)
    task_id: str = Field(foreign_key="tasks.id", index=True, max_length=32)
    kind: EventKind = Field(sa_type=String(16))
    ref_id: int | None = Field(default=None, sa_type=BigId)
    """The step, candidate, verdict or run the event is about."""
    data: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


def verdict_columns(data: dict[str, Any]) -> dict[str, Any]:
    """The indexed columns of a verdict, read from its JSON (a sandbox `Verdict.model_dump`)."""
    status = str(data.get("status", ""))
    passed = status == "passed"
    timing = data.get("timing") or {}
    speedups = [float(v) for v in (timing.get("speedup") or {}).values()]
    return {
        "target": str(data.get("target", "")),
        "status": status,
        "passed": passed,
        "best_speedup": max(speedups, default=0.0) if passed else 0.0,
        "reason": str(data.get("reason", "")),
        "duration_s": float(data.get("duration_s") or 0.0),
    }
