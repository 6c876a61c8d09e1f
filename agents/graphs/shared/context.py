"""The run's context: what every node of the translate graph and its subgraphs gets injected
through LangGraph's runtime context. Fixed for the run; what changes lives in the state."""

from __future__ import annotations

from dataclasses import dataclass, field

from agents.core import Budget
from agents.graphs.shared.config import GraphConfig
from agents.reasoning import Pruning
from agents.tools import Registry, ToolContext


@dataclass(frozen=True)
class RunContext:
    """Clients, tools and settings of one run."""

    tools: ToolContext
    registry: Registry
    config: GraphConfig
    budget: Budget
    reasoning_threads: int = 0
    pruning: Pruning = field(default_factory=Pruning)
    evolve: bool = False
