"""Settings of the translate graph (`PARFORGE_GRAPH__<FIELD>`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from agents.judge import Checks


class EvolveConfig(BaseModel):
    """How far evolution goes (`PARFORGE_GRAPH__EVOLUTION__<FIELD>`); see `agents.evolve`."""

    generations: int = Field(default=5, ge=1, le=100)
    evaluations: int = Field(default=24, ge=1)
    """Children evaluated (probed, and verified when the probe passes) over the whole run."""
    children: int = Field(default=4, ge=1, le=32)
    """Children per generation, parameter mutations and model mutations together."""
    model_children: int = Field(default=1, ge=0, le=32)
    """Of those, written by the model from the parent and its measurements (0: parameters only)."""
    parents: int = Field(default=2, ge=1, le=16)
    """Parents per generation: the best, and cells of the archive drawn at random."""
    seed: int = 0
    plateau: int = Field(default=3, ge=1)
    """Stop after this many generations without a confident improvement of the best."""
    time_s: float | None = Field(default=None, gt=0)
    """Wall-clock budget of evolution (the task's own time budget bounds it too)."""
    min_confidence: float = Field(default=0.95, ge=0.5, le=1)
    """How sure a child's timing runs must make it that it is faster than what it replaces."""
    min_gain: float = Field(default=1.03, ge=1)
    """...and by how much at least (median speedup ratio)."""
    confirm: bool = True
    """A child that beats the best must beat it again when both are verified anew."""


class GraphConfig(Checks):
    """How the translate agent plans, samples, repairs and how far it may go.

    A task's own budgets win where it sets them (`budgets.time_s`, `budgets.max_tokens` as the
    token budget, `budgets.samples` as the candidate budget).
    """

    planner: bool = True
    """Ask the model for the plan (False: always the default plan)."""
    use_model: bool = True
    """False: no model call at all; the default plan keeps only what the analysis does alone
    (the first schema option of every loop), with no rewrites, repairs or replans. The baseline
    that says what the model adds."""
    temperature: float = Field(default=0.7, ge=0)
    plan_tokens: int = Field(default=600, ge=16)
    annotate_tokens: int = Field(default=300, ge=16)
    rewrite_tokens: int = Field(default=1536, ge=16)
    max_steps: int = Field(default=10, ge=1, le=32)
    """Steps one plan may have."""
    tokens: int | None = Field(default=60_000, ge=1)
    """Token budget of a task (prompt + completion, every call)."""
    candidates: int | None = Field(default=10, ge=1)
    sandbox_runs: int | None = Field(default=14, ge=1)
    replans: int = Field(default=1, ge=0)
    repairs: int = Field(default=2, ge=0)
    """Repair rounds."""
    repair_width: int = Field(default=2, ge=1)
    """Failing candidates repaired at once in one round."""
    extra_tests: int = Field(default=3, ge=0, le=8)
    """Generated test inputs (0: none)."""
    concurrency: int = Field(default=4, ge=1)
    """Plan steps running at once (the sandbox pool and the model server bound them too)."""
    reasoning_threads: int = Field(default=0, ge=0, le=16)
    """Parallel reasoning threads beside the plan (0: none); a task's own option wins."""
    pruning: Literal["none", "fingerprint", "confidence", "both"] = "fingerprint"
    """How converging threads are stopped while they stream."""
    thread_tokens: int = Field(default=1024, ge=16)
    """Completion tokens one reasoning thread may write."""
    size_to_window: bool = True
    """Size the caps and the token budget for the served model's context window (`for_model`);
    False keeps them as configured, whatever the window."""
    evolve: bool = False
    """Evolve the first verified candidate for speed; a task's own option wins."""
    evolution: EvolveConfig = Field(default_factory=EvolveConfig)
    speed_target: float = Field(default=1.2, ge=0)
    """A run whose best verified candidate is slower than this at the highest thread or rank
    count the host's cores allow hunts for a faster one (0: never), within `speed_hunt`."""
    speed_hunt: EvolveConfig = Field(
        default_factory=lambda: EvolveConfig(
            generations=1, evaluations=3, children=3, parents=1, plateau=1, time_s=30.0
        )
    )
    """The speed hunt's own budget: one short evolution (parameter mutations and, with a
    model, a faster rewrite), bounded so a run that already verified stays within about 30 s
    of it. A task that asks for evolution evolves instead."""

    def for_model(self, window: int | None, source_chars: int) -> GraphConfig:
        """These settings with the per-call token caps and the task's token budget sized for
        a served model whose context holds `window` tokens (None: unknown, the caps as
        configured, as they are when `size_to_window` is off) and a program of `source_chars`
        characters.

        The configured caps are the floor (the defaults are the embedded 135M model's, and a
        4k window leaves them as they are); a larger window raises the plan's and the loop
        choices' caps with it (a sixteenth and a thirty-second of the window, up to 4,096 and
        2,048), and a rewrite's to room for the whole program twice over or an eighth of the
        window, whichever is more, within what the window leaves after the prompt. A reasoning
        thread's cap and the task's token budget grow by the rewrite cap's factor."""
        if window is None or not self.size_to_window:
            return self
        program = source_chars // 3 + 1  # C source runs about three characters a token
        room = max(0, window - (2 * program + 1024))  # the prompt shows the program, and more
        writing = min(room, max(2 * program + 512, window // 8))
        rewrite = max(self.rewrite_tokens, writing)
        update = {
            "plan_tokens": max(self.plan_tokens, min(window // 16, 4096)),
            "annotate_tokens": max(self.annotate_tokens, min(window // 32, 2048)),
            "rewrite_tokens": rewrite,
            "thread_tokens": self.thread_tokens * rewrite // self.rewrite_tokens,
        }
        if self.tokens is not None:
            update["tokens"] = max(self.tokens, self.tokens * rewrite // self.rewrite_tokens)
        return self.model_copy(update=update)
