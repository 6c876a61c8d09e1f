"""Settings of the prompt-mode runner: sampling, and how candidates are verified."""

from __future__ import annotations

from pydantic import Field

from agents.judge import Checks


class PromptModeConfig(Checks):
    """`PARFORGE_PROMPT_MODE__<FIELD>`: how the prompt-mode runner samples and verifies.

    The task decides K (`budgets.samples`), the completion length (`budgets.max_tokens`) and
    the wall-clock limit (`budgets.time_s`); everything else comes from here.
    """

    temperature: float = Field(default=0.7, ge=0)
    """Sampling temperature: K samples of one prompt need some to differ."""
    top_p: float | None = Field(default=0.95, gt=0, le=1)
    max_tokens: int = Field(default=2048, ge=1)
    """Completion tokens per sample when the task does not say."""
    one_request: bool = True
    """Ask for the K samples in one request with `n=K` (vLLM); False: K requests of one sample
    each (endpoints without `n`). A server that rejects `n` gets K requests anyway."""
    prompt_tests: int = Field(default=4, ge=0)
    """Test inputs shown to the model (the first ones), so it knows how the program is run."""
