"""The translate graph: analyse, plan and run tools in parallel, join, repair or replan."""

from agents.graphs.translate.config import GraphConfig
from agents.graphs.translate.graph import build, route
from agents.graphs.translate.state import TranslateContext, TranslateState

__all__ = ["GraphConfig", "TranslateContext", "TranslateState", "build", "route"]
