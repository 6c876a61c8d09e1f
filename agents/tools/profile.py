"""`profile`: where a verified candidate's time goes, per thread or rank count.

The timings are the verifier's own (medians of its timing runs); efficiency is speedup over
workers. The hot loops are a static estimate from the analysis (deepest nests with the most
iterations first), not a measurement, and say so.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from agents.tools.base import CandidateRef, ToolContext, ToolError
from agents.tools.verify import verify_made


class ProfileArgs(BaseModel):
    candidate: CandidateRef


class ProfileResult(BaseModel):
    candidate_id: int
    reference_s: float | None
    seconds: dict[int, float]
    efficiency: dict[int, float]
    hot_loops: list[str]
    """Static estimate: loops by nesting depth and known trip counts."""


class Profile:
    name: ClassVar[str] = "profile"
    description: ClassVar[str] = (
        "Per-thread (or rank) timings and efficiency of a candidate, and the loops that "
        "likely carry the work."
    )
    Args: ClassVar[type[BaseModel]] = ProfileArgs

    async def run(self, args: ProfileArgs, ctx: ToolContext) -> ProfileResult:
        made = ctx.work.made.get(args.candidate)
        if made is None:
            raise ToolError(f"no candidate {args.candidate} in this task")
        verdict, _ = await verify_made(ctx, made)
        timing = verdict.timing
        seconds = dict(timing.candidate_s) if timing else {}
        speedup = dict(timing.speedup) if timing else {}
        loops = sorted(
            ctx.view.program.loops,
            key=lambda loop: (-(loop.perfect_nest + loop.depth), -(loop.trip_count or 0)),
        )
        return ProfileResult(
            candidate_id=made.candidate_id,
            reference_s=timing.reference_s if timing else None,
            seconds=seconds,
            efficiency={n: round(s / n, 3) for n, s in speedup.items() if n > 0},
            hot_loops=[f"{loop.id} (line {loop.line})" for loop in loops[:3]],
        )
