"""Typed settings, read from the environment in this one place.

Every variable is `PARFORGE_<FIELD>`; nested fields use `__`, for example
`PARFORGE_SANDBOX__TYPE=local` or `PARFORGE_SANDBOX__POOL_SIZE=4`.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from agents.graphs.translate.config import GraphConfig
from agents.runners.config import PromptModeConfig
from corpus.store.config import StoreConfig
from evals.config import EvalSettings
from parforge.model_server.config import ModelSettings
from parforge.service.config import ServerConfig
from sandbox.config import DockerConfig, SandboxConfig
from sandbox.verify import VerifyOptions


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
    server: ServerConfig = Field(default_factory=ServerConfig)
    verify: VerifyOptions = Field(default_factory=VerifyOptions)
    """Race-checker depth, wait policy, CUDA arch (`PARFORGE_VERIFY__RACE__THREADS='[2,4]'`)."""

    model: ModelSettings = Field(default_factory=ModelSettings)
    """The served model: the endpoint agents call and the server `parforge model serve` runs."""
    prompt_mode: PromptModeConfig = Field(default_factory=PromptModeConfig)
    """The prompt-mode task runner: sampling, test counts, time-outs, output tolerance."""
    graph: GraphConfig = Field(default_factory=GraphConfig)
    """The translate graph: planner, sampling per call, budgets, repairs, generated tests."""
    evals: EvalSettings = Field(default_factory=EvalSettings)
    """Batch evaluations: eval workers of `parforge serve`, sampling and harness defaults."""

    @property
    def store_url(self) -> str:
        return self.store.url_for(self.data_dir)


def load_settings() -> Settings:
    """Read settings from the environment (the CLI and the API call this once at start-up)."""
    settings = Settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return settings
