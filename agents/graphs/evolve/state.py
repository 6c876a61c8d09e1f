"""The evolve subgraph's state: what it reads from the translate graph, what it hands back."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from agents.graphs.shared.observations import Judged
from agents.graphs.shared.state import latest_spending


class EvolveInput(TypedDict, total=False):
    observations: list[Judged]
    """The translate graph's verified candidates: the passing ones seed the population."""
    evolution: dict[str, Any]
    """The record of an evolution already under way (a resumed run), else absent."""


class EvolveOutput(TypedDict, total=False):
    evolution: dict[str, Any]
    """The record (`agents.evolve.record`): archive, best, history, counters, why it stopped."""
    ledger: Annotated[dict[str, Any], latest_spending]


class EvolveState(EvolveInput, EvolveOutput, total=False):
    pass
