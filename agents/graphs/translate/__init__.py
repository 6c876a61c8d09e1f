"""The translate graph: analyse, plan and run tools in parallel, join, repair or replan."""

from agents.graphs.translate.graph import build, route
from agents.graphs.translate.state import TranslateState

__all__ = ["TranslateState", "build", "route"]
