"""Batch evaluations: a model (or adapter) over a benchmark suite, and one row per sample."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import ConfigDict, model_validator
from sqlalchemy import String, UniqueConstraint
from sqlmodel import Field, SQLModel

from corpus.store.enums import JobStatus
from corpus.store.models.common import (
    GeneratedText,
    JSONType,
    QueueFields,
    UTCDateTime,
    reject_nul,
    utcnow,
)
from sandbox.spec import Target


class EvalRunBase(SQLModel):
    suite: str = Field(min_length=1, max_length=100)
    """Benchmark suite name (`pareval`)."""
    target: Target = Field(sa_type=String(16))
    model: str | None = Field(default=None, max_length=200)
    """None: the configured model."""
    adapter: str | None = Field(default=None, max_length=200)
    samples_k: int = Field(default=1, ge=1, le=100)
    """Samples per problem (the k of pass@k)."""
    problems: list[str] | None = Field(default=None, max_length=10_000, sa_type=JSONType)
    """A subset of the suite's problems; None = all."""
    timing: bool = True
    """Measure speedups (off: correctness and race checks only, much faster)."""


class EvalRunCreate(EvalRunBase):
    """What `POST /v1/evals` accepts."""

    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    @model_validator(mode="before")
    @classmethod
    def _no_nul(cls, data: Any) -> Any:
        return reject_nul(data)


class EvalRunRow(EvalRunBase, QueueFields, table=True):
    __tablename__ = "eval_runs"

    id: int | None = Field(default=None, primary_key=True)
    owner_key_id: int | None = Field(default=None, foreign_key="api_keys.id", index=True)
    summary: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    """Aggregate metrics (pass@k, build@k, speedup_n@k, efficiency_n@k), set by the evals runner."""
    options: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    """How the runner generates samples (endpoint, sampling, concurrency), so a resumed run
    continues as it started."""
    progress: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    """Samples planned, generated and verified so far, kept current while the run works."""


class EvalRunPublic(EvalRunBase):
    id: int
    status: JobStatus
    reason: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    summary: dict[str, Any]
    options: dict[str, Any]
    progress: dict[str, Any]


class EvalResultBase(SQLModel):
    """One sample of one problem, verified."""

    problem: str = Field(max_length=200)
    problem_type: str = Field(default="", max_length=100)
    sample_index: int = Field(ge=0)
    status: str = Field(max_length=32)
    """The verdict's status (`passed`, `build_failed`, `race`, ...), `generated` while the
    sample waits for verification, `generation_failed` when the model gave nothing to verify."""
    built: bool
    passed: bool
    race: bool = False
    """A data race or deadlock was found."""
    speedups: dict[str, float] = Field(default_factory=dict, sa_type=JSONType)
    """Speedup over the sequential reference by resource count (threads, ranks): {"4": 3.1}."""
    verdict: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    """A summary of the verdict (status, reason, timing), not its full step records."""
    source: str | None = Field(default=None, sa_type=GeneratedText)
    call: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    """The model call that produced the sample (an `agents.llm.CallRecord`), when one did."""
    task_id: str | None = Field(default=None, foreign_key="tasks.id", max_length=32)
    """The task whose trajectory produced the sample, when the eval went through tasks."""


class EvalResultCreate(EvalResultBase):
    """A result as the evals runner reports it."""


class EvalResultRow(EvalResultBase, table=True):
    __tablename__ = "eval_results"
    __table_args__ = (
        UniqueConstraint("eval_run_id", "problem", "sample_index", name="uq_eval_results_sample"),
    )

    id: int | None = Field(default=None, primary_key=True)
    eval_run_id: int = Field(foreign_key="eval_runs.id", index=True)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class EvalResultPublic(EvalResultBase):
    id: int
    eval_run_id: int
    created_at: datetime
