"""Typed settings, read from the environment in this one place.

Every variable is `PARFORGE_<FIELD>`; nested fields use `__`, for example
`PARFORGE_SANDBOX__TYPE=local` or `PARFORGE_SANDBOX__POOL_SIZE=4`.

One naming rule: each group of settings is a `<Thing>Config` defined beside what it configures
(`DockerConfig` in `sandbox`, `GraphConfig` in `agents`, `ModelConfig` in `model_server`);
`Settings` is the one class that reads the environment, and the service's own groups are here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from agents.graphs.shared.config import GraphConfig
from agents.runners.config import PromptModeConfig
from corpus.store.config import StoreConfig
from evals.config import EvalConfig
from parforge.model_server.config import ModelConfig
from sandbox.config import DockerConfig, SandboxConfig, VerifyOptions


class KeyLimits(BaseModel):
    """What one API key may have at once or ask for (`PARFORGE_SERVER__LIMITS__<FIELD>`).

    The limits per task hold for everyone; those on what is active at once are per key (an
    anonymous caller, when keys are not required, is local use and is not counted).
    """

    active_tasks: int = Field(default=32, ge=1)
    """Tasks queued or running at once; a submission over it is answered 429."""
    active_evals: int = Field(default=2, ge=1)
    """Eval runs queued or running at once."""
    samples_per_task: int = Field(default=16, ge=1)
    """Candidates one task may ask for (`budgets.samples`); more is answered 422."""
    tests_per_task: int = Field(default=64, ge=1)
    """Test inputs one task may carry."""
    event_streams: int = Field(default=8, ge=1)
    """Event streams (`/v1/tasks/{id}/events`) open at once in this process."""


class ServiceConfig(BaseModel):
    """`parforge serve`, the HTTP API and its worker pool (`PARFORGE_SERVER__<FIELD>`)."""

    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, le=65535)
    """8080: the embedded model server has vLLM's 8000."""
    workers: int = Field(default=2, ge=0)
    """Tasks run at once by this process (0: queue only, another process runs them)."""
    runners: dict[str, str] = Field(
        default_factory=lambda: {
            "graph": "parforge.service.runners:build_graph_runner",
            "prompt": "parforge.service.runners:build_prompt_runner",
        }
    )
    """The agents a task may ask for, each with the import path `module:attr` of its runner or
    of a factory `(Settings) -> TaskRunner`, built when its first task runs (JSON in the
    environment). `graph`: the translate agent; `prompt`: prompt mode."""
    runner: str | None = None
    """One runner (`module:attr`, as in `runners`) for every task whatever its agent, for tests
    and deployments that plug their own; `none` (or empty): tasks are queued but no worker of
    this process runs them. Unset: each task runs on its agent's runner."""
    runner_options: dict[str, Any] = Field(default_factory=dict)
    """Free-form options for the runner factories (JSON in the environment)."""
    poll_s: float = Field(default=1.0, gt=0)
    """How often idle workers and event streams look at the database for other processes' writes."""
    heartbeat_s: float = Field(default=2.0, gt=0)
    lease_s: float = Field(default=30.0, gt=0)
    """A running task whose worker has been silent this long is taken back."""
    max_attempts: int = Field(default=2, ge=1)
    """Runs a task gets when its worker dies under it; then it fails with the reason."""
    require_key: bool = True
    """Every /v1 request needs `Authorization: Bearer <key>`; off: anonymous local use."""
    ui_session_hours: float = Field(default=12.0, gt=0, le=24 * 30)
    """How long a web UI sign-in lasts (logging out, or revoking its key, ends it sooner)."""
    max_body_bytes: int = Field(default=2 * 1024 * 1024, ge=1024)
    max_source_chars: int = Field(default=200_000, ge=1)
    limits: KeyLimits = Field(default_factory=KeyLimits)


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "parforge"


class Settings(BaseSettings):
    """Everything configurable about ParForge, with working defaults for one machine."""

    model_config = SettingsConfigDict(env_prefix="PARFORGE_", env_nested_delimiter="__")

    data_dir: Path = Field(default_factory=default_data_dir)
    """Database, model caches, server logs and pid files live here."""
    sandbox: SandboxConfig = Field(default_factory=DockerConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    server: ServiceConfig = Field(default_factory=ServiceConfig)
    verify: VerifyOptions = Field(default_factory=VerifyOptions)
    """Race-checker depth, wait policy, CUDA arch (`PARFORGE_VERIFY__RACE__THREADS='[2,4]'`)."""

    model: ModelConfig = Field(default_factory=ModelConfig)
    """The served model: the endpoint agents call and the server `parforge model serve` runs."""
    prompt_mode: PromptModeConfig = Field(default_factory=PromptModeConfig)
    """The prompt-mode task runner: sampling, test counts, time-outs, output tolerance."""
    graph: GraphConfig = Field(default_factory=GraphConfig)
    """The translate graph: planner, sampling per call, budgets, repairs, generated tests."""
    evals: EvalConfig = Field(default_factory=EvalConfig)
    """Batch evaluations: eval workers of `parforge serve`, sampling and harness defaults."""

    @property
    def store_url(self) -> str:
        return self.store.url_for(self.data_dir)


def load_settings() -> Settings:
    """Read settings from the environment (the CLI and the API call this once at start-up)."""
    settings = Settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return settings
