from agents.graphs.evolve.graph import build, evolve_from, wanted

__all__ = ["build", "evolve_from", "wanted"]
