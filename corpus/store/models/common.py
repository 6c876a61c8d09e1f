"""Column types and the queue fields shared by the store's tables (the enums are in
`corpus.store.enums`)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, Integer, String, Text, TypeDecorator
from sqlalchemy.engine import Dialect
from sqlmodel import Field, SQLModel

from corpus.store.enums import JobStatus

NUL_STAND_IN = "\ufffd"
"""What a NUL character in generated content (model output, program output) is stored as:
PostgreSQL's text and JSONB cannot hold NUL, and a candidate that prints one must be a verdict,
not a failed write."""


def scrub_nul(value: Any) -> Any:
    """`value` with every NUL in its strings (dict keys included) replaced by `NUL_STAND_IN`."""
    if isinstance(value, str):
        return value.replace("\x00", NUL_STAND_IN) if "\x00" in value else value
    if isinstance(value, dict):
        return {scrub_nul(k): scrub_nul(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_nul(v) for v in value]
    return value


class _ScrubbedJSON(TypeDecorator[Any]):
    # Python's None is SQL NULL, not the JSON value `null`: `IS NULL` then means "no value"
    # (a failed call's response) on both backends, as the queries written against it expect.
    impl = JSON(none_as_null=True)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> Any:
        if dialect.name != "postgresql":
            return dialect.type_descriptor(JSON(none_as_null=True))
        # The PostgreSQL dialect's modules are imported only by an engine that uses them.
        from sqlalchemy.dialects.postgresql import JSONB

        return dialect.type_descriptor(JSONB(none_as_null=True))

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        return scrub_nul(value)


class GeneratedText(TypeDecorator[str]):
    """Text written by models or programs: NULs are replaced (see `NUL_STAND_IN`)."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return scrub_nul(value)


JSONType = _ScrubbedJSON()
"""JSON on SQLite, JSONB on PostgreSQL; NULs in strings are replaced (see `NUL_STAND_IN`)."""

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


STATUS_LENGTH = 32
"""Width of the job status columns (tasks, runs, eval runs): room for `no_verified_candidate`."""


class QueueFields(SQLModel):
    """Columns that make a table a durable queue: claimed by one worker, kept alive by heartbeats."""

    status: JobStatus = Field(default=JobStatus.QUEUED, index=True, sa_type=String(STATUS_LENGTH))
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
