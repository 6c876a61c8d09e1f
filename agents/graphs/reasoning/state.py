"""The reasoning subgraph's state (plain JSON-able values, checkpointed with the parent's)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from agents.graphs.shared.observations import Judged, by_candidate


class ReasoningState(TypedDict, total=False):
    k: int
    """Threads asked for."""
    outlines: list[dict[str, Any]]
    """The outlines threads start from, after merging (strategy, detail, origin)."""
    outline_step: int | None
    """The stored `outline` call the threads hang below."""
    threads: list[dict[str, Any]]
    """Per thread: index, strategy, status, reason, tokens, pruned_by, step_id, candidate_id."""
    tokens_generated: int
    tokens_saved: int
    candidates: list[int]
    """Candidates the finished threads wrote."""
    survivors: list[int]
    """Candidates left after the behaviour fingerprint merged equivalent ones."""
    merged: dict[str, int]
    """Candidate id → the candidate it behaves like (it is not verified on its own)."""
    revive: bool
    """Whether the next thread pruned as converged runs again (`nodes.revive_wanted`)."""
    revived: list[int]
    """Threads that ran again, in order (each at most once)."""
    observations: Annotated[list[Judged], by_candidate]
    notes: Annotated[list[str], operator.add]
