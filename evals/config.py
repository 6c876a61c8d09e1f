"""Settings of batch evaluations (`PARFORGE_EVALS__<FIELD>`) and the options a run keeps."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Api = Literal["auto", "completion", "chat"]


class SamplingOptions(BaseModel):
    """How samples are drawn (ParEval's pass@1 settings by default)."""

    temperature: float = Field(default=0.2, ge=0)
    top_p: float = Field(default=0.95, gt=0, le=1)
    max_tokens: int = Field(default=1024, ge=1)


class RunOptions(BaseModel):
    """What a run needs beyond its suite/target/model/samples, stored with it so that a resumed
    run generates and verifies exactly as it started."""

    url: str | None = None
    """OpenAI-compatible endpoint (`.../v1`); None = the configured model endpoint."""
    api: Api = "auto"
    """`completion`: the prompt is continued as text (ParEval's protocol); `chat`: the prompt is
    sent as a user message and the code is taken from the reply; `auto`: completion, falling
    back to chat when the endpoint has no completions."""
    sampling: SamplingOptions = Field(default_factory=SamplingOptions)
    concurrency: int | None = Field(default=None, ge=1)
    """Verifications at once; None = the sandbox's pool size."""
    reference_cache: bool = True
    """Build, run and time each task's reference once per run instead of once per sample."""
    agent: Literal["prompt", "graph", "analysis"] = "prompt"
    """Who writes the samples: `prompt` (the model completes the prompt, as in ParEval), `graph`
    (the translate agent, one stored task per sample), `analysis` (the translate agent with
    no model at all: the dependence analysis's first choice per loop)."""
    reasoning_threads: int | None = Field(default=None, ge=0, le=16)
    """Reasoning threads per task of the `graph` agent (None: the runner's default)."""
    evolve: bool | None = None
    """Evolve each task's first verified candidate for speed (`graph` agent; None: the runner's
    default)."""
    generations: int | None = Field(default=None, ge=1, le=100)
    """Generations of that evolution (None: the runner's default)."""
    translate_from: Literal["serial", "cuda"] | None = None
    """Translation instead of generation: the model completes the suite's translation prompt
    (the `serial` or `cuda` implementation, then the target's prompt) and the candidate is
    verified like any other. Only problems with such a translation task take part."""
    exclusive_timing: bool = True
    """Each timing run has the sandbox to itself while the run's other verifications pause
    between commands (off: timings taken beside other jobs' builds and tests)."""


class EvalConfig(BaseModel):
    """The `evals` section of the settings."""

    workers: int = Field(default=1, ge=0)
    """Eval runs `parforge serve` runs at once (0: queued evals are left to another process)."""
    generate_concurrency: int = Field(default=4, ge=1)
    """Model requests in flight at once (each asks for all missing samples of one task)."""
    defaults: RunOptions = Field(default_factory=RunOptions)
    """Options of runs that do not set their own (API submissions)."""
