"""Translation tasks and API keys: base / table / create / public models kept apart."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import ConfigDict, field_validator, model_validator
from sqlalchemy import String, Text
from sqlmodel import Field, SQLModel

from corpus.store.enums import JobStatus, ParallelTarget
from corpus.store.models.common import (
    JSONType,
    QueueFields,
    UTCDateTime,
    new_id,
    reject_nul,
    utcnow,
)
from sandbox.spec import Language


class TestInput(SQLModel):
    """One test input for a task: command-line arguments and stdin (the sandbox's `TestCase`)."""

    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    __test__ = False

    name: str = Field(min_length=1, max_length=200)
    args: list[str] = Field(default_factory=list, max_length=64)
    stdin: str = Field(default="", max_length=1_000_000)


class Budgets(SQLModel):
    """What one run of a task may spend."""

    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    samples: int = Field(default=4, ge=1, le=64)
    """Candidates to ask the model for (K)."""
    max_tokens: int | None = Field(default=None, ge=1, le=131_072)
    """Completion tokens per model call; None = the runner's default."""
    time_s: float | None = Field(default=None, gt=0, le=86_400)
    """Wall-clock limit of one run; None = no limit."""
    tokens: int | None = Field(default=None, ge=1, le=10_000_000)
    """Model tokens (prompt + completion) of every call of one run, for agents; None = the
    runner's default."""


class TaskOptions(SQLModel):
    """How a task is checked and steered beyond its tests and budgets (every field optional)."""

    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    function: str | None = Field(default=None, min_length=1, max_length=200)
    """Parallelise this function only (None: the agent finds the hot loops)."""
    rtol: float | None = Field(default=None, ge=0, le=1)
    """Compare numbers in the output with this relative tolerance (None: exactly)."""
    atol: float | None = Field(default=None, ge=0)
    spec: dict[str, Any] | None = None
    """A verifier spec (the sandbox's `Spec` as JSON) to check candidates against instead of the
    source as a reference program: the source is then a function that the spec's driver
    includes (ParEval-style problems)."""
    reasoning_threads: int | None = Field(default=None, ge=0, le=16)
    """Parallel reasoning threads beside the agent's plan (graph agent; None: the runner's
    default, 0: none)."""
    evolve: bool | None = None
    """Evolve the first verified candidate for speed (graph agent; None: the runner's default)."""
    generations: int | None = Field(default=None, ge=1, le=100)
    """Generations of that evolution (None: the runner's default); asks for evolution."""
    timing: bool | None = None
    """Time verified candidates against the sequential program (None: the runner's default).
    False checks correctness only: no timing runs, no speedups, no hunt for speed and no
    evolution (whose fitness is speed); an eval run without timing asks this of its agent."""

    @model_validator(mode="after")
    def _evolution_needs_timing(self) -> TaskOptions:
        if self.timing is False and (self.evolve or self.generations):
            raise ValueError("evolution needs timing (its fitness is speed): drop timing=false")
        return self


DEFAULT_AGENT = "graph"
"""The agent a task runs on when its submitter names none."""
AGENT_LENGTH = 32


class TaskBase(SQLModel):
    name: str = Field(default="task", min_length=1, max_length=200)
    language: Language = Field(default=Language.CPP, sa_type=String(16))
    target: ParallelTarget = Field(sa_type=String(16), index=True)


class TaskCreate(TaskBase):
    """What a user submits: sequential source, its language, the target model, tests, budgets."""

    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    source: str = Field(min_length=1)
    tests: list[TestInput] | None = Field(default=None, max_length=256)
    budgets: Budgets = Field(default_factory=Budgets)
    agent: str = Field(default=DEFAULT_AGENT, min_length=1, max_length=AGENT_LENGTH)
    """Which agent runs it (`graph`, `prompt`): one of the runners the server is configured with."""
    options: TaskOptions | None = None

    @field_validator("source")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("source is empty")
        return value

    @model_validator(mode="before")
    @classmethod
    def _no_nul(cls, data: Any) -> Any:
        return reject_nul(data)


class TaskRow(TaskBase, QueueFields, table=True):
    __tablename__ = "tasks"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    source: str = Field(sa_type=Text)
    tests: list[dict[str, Any]] | None = Field(default=None, sa_type=JSONType)
    budgets: dict[str, Any] = Field(default_factory=dict, sa_type=JSONType)
    agent: str | None = Field(default=None, max_length=AGENT_LENGTH)
    """None for tasks stored before agents could be chosen: they run on the default agent."""
    options: dict[str, Any] | None = Field(default=None, sa_type=JSONType)
    owner_key_id: int | None = Field(default=None, foreign_key="api_keys.id", index=True)
    """The API key that submitted it; None for tasks submitted locally through the CLI."""
    best_candidate_id: int | None = Field(default=None)
    """Set when the task ends; not a foreign key, to keep tasks ↔ candidates free of a cycle."""
    best_speedup: float | None = Field(default=None)


class TaskPublic(TaskBase):
    """A task as listed: everything but the (possibly long) source and tests."""

    id: str
    status: JobStatus
    reason: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    attempts: int
    cancel_requested: bool
    budgets: Budgets
    agent: str | None
    best_candidate_id: int | None
    best_speedup: float | None


class TaskDetail(TaskPublic):
    """A task as shown on its own."""

    source: str
    tests: list[TestInput] | None
    options: TaskOptions | None = None


class TaskAccepted(SQLModel):
    """The answer to a submission."""

    id: str
    status: JobStatus


class ApiKeyBase(SQLModel):
    name: str = Field(min_length=1, max_length=100)


class ApiKeyRow(ApiKeyBase, table=True):
    """A bearer token's SHA-256 digest: the token itself is shown once and never stored."""

    __tablename__ = "api_keys"

    id: int | None = Field(default=None, primary_key=True)
    prefix: str = Field(max_length=16)
    digest: str = Field(max_length=64, unique=True)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    last_used_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class UiSessionRow(SQLModel, table=True):
    """A signed-in browser of the web UI: the cookie's token as a SHA-256 digest, the key it
    acts for and its form token. Ended by logging out; dead once its key is revoked."""

    __tablename__ = "ui_sessions"

    id: int | None = Field(default=None, primary_key=True)
    digest: str = Field(max_length=64, unique=True)
    key_id: int = Field(foreign_key="api_keys.id", index=True)
    csrf: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    expires_at: datetime = Field(sa_type=UTCDateTime)
    ended_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class ApiKeyPublic(ApiKeyBase):
    id: int
    prefix: str
    created_at: datetime
    revoked_at: datetime | None
    last_used_at: datetime | None


class ApiKeyCreated(ApiKeyPublic):
    """The one time the token is shown."""

    token: str
