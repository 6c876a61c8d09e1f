"""The reasoning-threads subgraph of the translate graph (see `graph`)."""

from agents.graphs.reasoning.graph import build, reason

__all__ = ["build", "reason"]
