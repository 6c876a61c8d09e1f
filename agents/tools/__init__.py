"""The translate agent's tools, one per file, and the registry the planner chooses from."""

from agents.tools.analyse import Analyse
from agents.tools.annotate import Annotate, CandidateResult, annotate
from agents.tools.base import Examples, Made, Registry, Tool, ToolContext, ToolError, ref_id
from agents.tools.examples import Examples as ExamplesTool
from agents.tools.profile import Profile
from agents.tools.rewrite import STRATEGIES, Rewrite, rewrite
from agents.tools.tests import Tests
from agents.tools.verify import Verify, probe_made, verify_made
from sandbox.spec import Target


def registry(target: Target) -> Registry:
    """The tools for a target (annotation is OpenMP's)."""
    tools: list[Tool] = [Analyse(), ExamplesTool(), Tests()]
    if target is Target.OPENMP:
        tools.append(Annotate())
    tools += [Rewrite(), Verify(), Profile()]
    return Registry(tools)


__all__ = [
    "STRATEGIES",
    "CandidateResult",
    "Examples",
    "Made",
    "Registry",
    "Tool",
    "ToolContext",
    "ToolError",
    "annotate",
    "probe_made",
    "ref_id",
    "registry",
    "rewrite",
    "verify_made",
]
