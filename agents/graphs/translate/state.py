"""The translate graph's state (its run context is `agents.graphs.shared.RunContext`)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from agents.graphs.shared.observations import Judged, by_candidate
from agents.graphs.shared.state import latest_spending


class TranslateState(TypedDict, total=False):
    """What is checkpointed between nodes. Plain JSON-able values, so a re-queued task resumes
    from the last finished node in a new process."""

    observations: Annotated[list[Judged], by_candidate]
    """One per verified candidate (fan-in from parallel repairs): id, code, strategy, verdict."""
    notes: Annotated[list[str], operator.add]
    """What the user should know: fallbacks taken, steps that failed."""
    rounds: int
    """Plans run so far (1 + replans)."""
    repair_rounds: int
    ledger: Annotated[dict[str, Any], latest_spending]
    """The budget ledger's snapshot after the last node (or parallel nodes)."""
    decision: dict[str, Any]
    """The last join decision: action, reason, the candidates to repair."""
    reasoning_threads: int
    """Reasoning threads this run starts beside the first plan (0: none)."""
    reasoning: dict[str, Any]
    """What the reasoning threads did (threads, pruned, tokens generated and saved)."""
    evolve: bool
    """Evolve the passing candidates for speed once the join finishes."""
    speed_target: float
    """Hunt for speed when the best verified candidate is slower than this (0: never)."""
    evolution: dict[str, Any]
    """The evolution's record (`agents.evolve.record`): archive, best, history, counters."""
