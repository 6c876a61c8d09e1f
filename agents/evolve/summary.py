"""What an evolution run reports to people: the result its `evolution` step stored, reduced to
the keys the CLI and the API promise (the contract with the engine), with defaults for any that
an older or interrupted run did not write."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

LINEAGE_KEYS = ("candidate_id", "operator", "label", "speedup", "confidence", "over_best")
"""What each step of the best candidate's lineage says (`agents.evolve.record.lineage`)."""


def evolution_summary(result: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The `evolution` object of `parforge translate --json` from the stored result of the
    task's last `evolution` step; None when the task did not evolve."""
    if result is None:
        return None
    lineage = result.get("lineage") or []
    return {
        "generations": result.get("generations", 0),
        "evaluations": result.get("evaluations", 0),
        "first_speedup": result.get("first_speedup", 0.0),
        "best_speedup": result.get("best_speedup", 0.0),
        "best_candidate_id": result.get("best_candidate_id"),
        "best_confidence": result.get("best_confidence"),
        "first_candidate_id": result.get("first_candidate_id"),
        "lineage": [
            {key: entry.get(key) for key in LINEAGE_KEYS}
            for entry in lineage
            if isinstance(entry, Mapping)
        ],
        "stopped": result.get("stopped", ""),
        "seed": result.get("seed", 0),
    }
