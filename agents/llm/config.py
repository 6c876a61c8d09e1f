"""How the client reaches a served model: any OpenAI-compatible endpoint (vLLM or hosted)."""

from __future__ import annotations

from pydantic import BaseModel, Field, SecretStr


class LLMConfig(BaseModel):
    """Endpoint, credentials, time-outs, retries and the concurrency limit of one client."""

    url: str | None = None
    """Base URL ending in `/v1`, e.g. `http://gpu-host:8000/v1`; None = ParForge's own server."""
    model: str | None = None
    """Model (or LoRA adapter) name sent with each request; None = the endpoint's first base model."""
    api_key: SecretStr | None = None
    """Sent as a bearer token; vLLM checks it only when started with `--api-key`."""
    connect_timeout_s: float = Field(default=5.0, gt=0)
    read_timeout_s: float = Field(default=120.0, gt=0)
    """Longest silence between two chunks of a response before the call fails."""
    call_timeout_s: float = Field(default=900.0, gt=0)
    """Deadline for one whole call, retries included."""
    max_retries: int = Field(default=3, ge=0)
    """Retries after a connection error, a 5xx or a 429, before any output was received."""
    backoff_initial_s: float = Field(default=0.5, ge=0)
    backoff_max_s: float = Field(default=8.0, ge=0)
    context_window: int | None = Field(default=None, ge=256)
    """Tokens the served model's context holds, where the endpoint does not say (vLLM reports
    `max_model_len` in `/models`, which wins); sizes the per-call token caps."""
    max_concurrency: int = Field(default=16, ge=1)
    """Calls in flight at once from this client (each one is an HTTP connection)."""
