"""Column types, enums and the queue fields shared by the store's tables."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, Integer, String, TypeDecorator
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlmodel import Field, SQLModel

JSONType = JSON().with_variant(JSONB(), "postgresql")
"""JSON on SQLite, JSONB on PostgreSQL."""

BigId = BigInteger().with_variant(Integer(), "sqlite")
"""64-bit ids on PostgreSQL; SQLite only auto-increments an `INTEGER PRIMARY KEY`."""


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every backend (SQLite hands back naive values)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    """Public ids are random, so one key cannot guess another key's tasks."""
    return uuid.uuid4().hex


class JobStatus(StrEnum):
    """Life of a queued job (a task or an eval run)."""

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def terminal(self) -> bool:
        return self in (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)


class ExecutionTarget(StrEnum):
    """Execution model of a program (mirrors the sandbox's `Target`, which corpus cannot import)."""

    SERIAL = "serial"
    OPENMP = "openmp"
    MPI = "mpi"
    CUDA = "cuda"


class ParallelTarget(StrEnum):
    """Execution models a task can ask for."""

    OPENMP = "openmp"
    MPI = "mpi"
    CUDA = "cuda"


class SourceLanguage(StrEnum):
    C = "c"
    CPP = "cpp"
    CUDA = "cuda"


class QueueFields(SQLModel):
    """Columns that make a table a durable queue: claimed by one worker, kept alive by heartbeats."""

    status: JobStatus = Field(default=JobStatus.QUEUED, index=True, sa_type=String(16))
    reason: str = Field(default="")
    """Why the job ended as it did (or was re-queued); empty while all goes well."""
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, index=True)
    started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    attempts: int = Field(default=0)
    """How many times a worker has claimed it."""
    claimed_by: str | None = Field(default=None, max_length=200, index=True)
    heartbeat_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    cancel_requested: bool = Field(default=False)


def reject_nul(value: Any) -> Any:
    """Refuse NUL characters anywhere in a value: PostgreSQL cannot store them in text or JSON."""
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError("text must not contain NUL characters")
    elif isinstance(value, dict):
        for key, item in value.items():
            reject_nul(key)
            reject_nul(item)
    elif isinstance(value, list | tuple):
        for item in value:
            reject_nul(item)
    return value
