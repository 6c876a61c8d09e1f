"""The reasoning-threads subgraph of the translate graph (see `graph`)."""

from agents.graphs.reasoning.graph import build

__all__ = ["build"]
