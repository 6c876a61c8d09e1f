"""`analyse`: the loops of a function and what the dependence analysis says about each."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from agents.analysis.report import reduction_tags
from agents.tools.base import ToolContext, ToolError


class AnalyseArgs(BaseModel):
    function: str | None = None
    """None: every function."""


class LoopFacts(BaseModel):
    id: str
    function: str
    line: int
    depth: int
    dependence: str
    reductions: list[str]
    private: list[str]
    lastprivate: list[str]
    """Variables whose last value is kept; `conditional:x` for the last iteration assigning x."""
    reason: str
    assumptions: list[str] = []
    """What the verdict takes for granted or checks at run time (that two pointers do not
    overlap, ...)."""


class AnalyseResult(BaseModel):
    loops: list[LoopFacts]
    parallelisable: list[str]
    """Ids of the loops whose iterations may run at once."""
    searches: list[str] = []
    """Ids of the first-match searches: `annotate` parallelises them with a min reduction over
    the first index that exits."""
    scans: list[str] = []
    """Ids of the loops with a running value (`acc += x[i]; y[i] = acc;`): `annotate`
    parallelises them as two-pass blocked scans."""


class Analyse:
    name: ClassVar[str] = "analyse"
    description: ClassVar[str] = (
        "List a function's loops with their dependences (independent, reduction, "
        "loop-carried, first-match search, running-value scan) and the variables to privatise."
    )
    Args: ClassVar[type[BaseModel]] = AnalyseArgs

    async def run(self, args: AnalyseArgs, ctx: ToolContext) -> AnalyseResult:
        if args.function is not None and ctx.view.program.function(args.function) is None:
            raise ToolError(f"no function {args.function!r} in the program")
        loops = [
            loop
            for loop in ctx.view.program.loops
            if args.function is None or loop.function == args.function
        ]
        return AnalyseResult(
            loops=[
                LoopFacts(
                    id=loop.id,
                    function=loop.function,
                    line=loop.line,
                    depth=loop.depth,
                    dependence=loop.dependence.kind,
                    reductions=reduction_tags(loop.dependence),
                    private=list(loop.dependence.private),
                    lastprivate=list(loop.dependence.lastprivate)
                    + [f"conditional:{v}" for v in loop.dependence.last_assigned],
                    reason=loop.dependence.reason,
                    assumptions=list(loop.dependence.assumptions),
                )
                for loop in loops
            ],
            parallelisable=[loop.id for loop in loops if loop.dependence.parallelisable],
            searches=[loop.id for loop in loops if loop.dependence.first_match],
            scans=[loop.id for loop in loops if loop.dependence.scan is not None],
        )
