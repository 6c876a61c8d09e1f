"""The translate agent's tools, one per file, and the registry the planner chooses from.

Every module here that defines a tool (a class with `name`, `description`, `Args` and `run`)
is found by name; a target's kit names the tools of its own it offers (`annotate` for OpenMP),
so a new tool for one target is its file here and its name in the kit.
"""

import importlib
import pkgutil
from functools import cache
from typing import cast

from agents.targets import kit
from agents.tools.annotate import CandidateResult, annotate
from agents.tools.base import (
    ExampleSearch,
    Made,
    Registry,
    RunDeps,
    TaskView,
    Tool,
    ToolContext,
    ToolError,
    Workbench,
    ref_id,
)
from agents.tools.calls import strategy_of
from agents.tools.rewrite import rewrite
from agents.tools.verify import probe_made, verify_made
from sandbox.spec import Target

COMMON_FIRST = ("analyse", "examples", "tests")
"""Offered for every target, before the target's own tools."""
COMMON_LAST = ("rewrite", "verify", "profile")
"""Offered for every target, after the target's own tools."""


@cache
def tools_by_name() -> dict[str, type[Tool]]:
    """Every tool class defined in this package, by its name."""
    found: dict[str, type[Tool]] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and all(hasattr(value, a) for a in ("name", "description", "Args", "run"))
            ):
                tool = cast("type[Tool]", value)
                found[tool.name] = tool
    return found


def registry(target: Target) -> Registry:
    """The tools for a target: the common ones and the target's own."""
    classes = tools_by_name()
    names = (*COMMON_FIRST, *kit(target).tools, *COMMON_LAST)
    return Registry(classes[name]() for name in names)


__all__ = [
    "CandidateResult",
    "ExampleSearch",
    "Made",
    "Registry",
    "RunDeps",
    "TaskView",
    "Tool",
    "ToolContext",
    "ToolError",
    "Workbench",
    "annotate",
    "probe_made",
    "ref_id",
    "registry",
    "rewrite",
    "strategy_of",
    "tools_by_name",
    "verify_made",
]
