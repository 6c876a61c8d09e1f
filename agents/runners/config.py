"""Settings of the prompt-mode runner: sampling, and how candidates are verified."""

from __future__ import annotations

from pydantic import BaseModel, Field

from sandbox.spec import Tolerance


class PromptModeConfig(BaseModel):
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
    threads: list[int] = Field(default_factory=lambda: [1, 2, 4], min_length=1)
    """OpenMP thread counts of the equivalence runs and the timing."""
    ranks: list[int] = Field(default_factory=lambda: [1, 2, 4], min_length=1)
    """MPI rank counts of the equivalence runs and the timing."""
    timeout_s: float = Field(default=20.0, gt=0)
    """Wall-clock limit of one program run."""
    timing_repeats: int = Field(default=5, ge=1)
    tolerance: Tolerance | None = None
    """None: outputs must match the sequential program's exactly. Programs that print
    floating-point sums that a parallel reduction reassociates need a small `rtol`
    (`PARFORGE_PROMPT_MODE__TOLERANCE='{"rtol": 1e-9}'`)."""
    timing: bool = True
    """Time passing candidates against the sequential program (speedups)."""
    prompt_tests: int = Field(default=4, ge=0)
    """Test inputs shown to the model (the first ones), so it knows how the program is run."""
