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
