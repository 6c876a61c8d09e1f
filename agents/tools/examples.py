"""`examples`: verified candidates of earlier tasks whose loops follow the same patterns.

Patterns are the dependence kinds of the program's loops (`reduction:+`, `independent`, ...);
annotated candidates carry theirs in their strategy, so the store can find them again.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field

from agents.analysis import Program
from agents.tools.base import ToolContext


class ExamplesArgs(BaseModel):
    limit: int = Field(default=2, ge=1, le=5)


class ExamplesResult(BaseModel):
    patterns: list[str]
    examples: list[dict[str, Any]]


def patterns(program: Program) -> list[str]:
    """The loop patterns of a program, most specific first (pure)."""
    found: list[str] = []
    for loop in program.loops:
        found += [t for t in loop.dependence.patterns if t not in found]
    return found


class Examples:
    name: ClassVar[str] = "examples"
    description: ClassVar[str] = (
        "Retrieve verified parallel code of earlier tasks with the same loop patterns."
    )
    Args: ClassVar[type[BaseModel]] = ExamplesArgs

    async def run(self, args: ExamplesArgs, ctx: ToolContext) -> ExamplesResult:
        wanted = patterns(ctx.view.program)
        found: list[dict[str, Any]] = []
        if ctx.deps.examples is not None and wanted:
            found = await ctx.deps.examples.search(
                ctx.view.target, wanted, args.limit, ctx.view.task.id
            )
        ctx.work.found_examples = found
        return ExamplesResult(patterns=wanted, examples=found)


def example_sources(value: Any) -> list[dict[str, Any]]:
    """The examples an `examples` step's result carries (its model, its dict, or the list),
    as a later step's `$N` argument hands it over; anything else carries none."""
    if isinstance(value, BaseModel):
        value = value.model_dump()
    if isinstance(value, dict):
        value = value.get("examples", [])
    return (
        [v for v in value if isinstance(v, dict) and "source" in v]
        if isinstance(value, list)
        else []
    )
