from agents.graphs.evolve.graph import build, wanted

__all__ = ["build", "wanted"]
