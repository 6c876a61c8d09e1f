"""Evolution, a subgraph of the translate graph (see `graph`)."""

from agents.graphs.evolve.graph import build, evolve_from

__all__ = ["build", "evolve_from"]
