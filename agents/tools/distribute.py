"""`distribute`: an MPI candidate from the loops the analysis proves (no model-written code).

The MPI counterpart of `annotate`: the program stays replicated on every rank and each chosen
loop runs as rank blocks (block-cyclic where its iterations cost unevenly), with the
collective calls its facts call for (`Allgatherv` of the rows it writes, `Allreduce` of its
reductions and histograms, a rank-order merge of its argmin; see
`agents.analysis.distribute`). The model, where asked, only picks which of the
offered loops to divide; `mode="analysis"` divides every offered loop. A function that walks
a graph, whose loops carry the walk's marks, gets its walks run as levels over the ranks
instead (`distributed_walks`); sorts of whole vectors run as rank blocks merged on every
rank, before any loop is chosen (`distributed_sorts`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import ClassVar, Literal

from pydantic import BaseModel

from agents.analysis import AnnotationError, Loop, Program
from agents.analysis.distribute import (
    cycles,
    distributable,
    distribute,
    distributed_walks,
    sorts_first,
    uneven,
)
from agents.llm import ChatRequest, JsonSchema, Sampling
from agents.prompts.translate import pick_loops_messages
from agents.targets.lowered import with_most_loops
from agents.tools.annotate import CandidateResult
from agents.tools.base import ToolContext, ToolError
from agents.tools.calls import ask, keep, reserve
from corpus.store.models import StepKind
from sandbox.spec import Target


class LoopToolArgs(BaseModel):
    function: str | None = None
    """Only the loops of this function (None: every function)."""
    mode: Literal["model", "analysis"] = "model"


class Distribute:
    name: ClassVar[str] = "distribute"
    description: ClassVar[str] = (
        "Make an MPI candidate by running the loops the analysis proves as blocks over ranks, "
        'with the collective calls their reductions and writes need; mode "model" lets the '
        'model pick the loops, "analysis" takes every one it can.'
    )
    Args: ClassVar[type[BaseModel]] = LoopToolArgs

    async def run(self, args: LoopToolArgs, ctx: ToolContext) -> CandidateResult:
        function = args.function or ctx.view.function
        try:
            # Sorts of whole vectors first: rank blocks merged on every rank.
            source, program, sorted_ = sorts_first(ctx.view.source, ctx.view.program)
        except AnnotationError as exc:
            raise ToolError(f"distribute: {exc}") from exc
        offered = distributable(source, program, function)
        if not offered and sorted_ and not program.has_main:
            # A function whose work is its sorts (the driver starts MPI): nothing to choose.
            name = function or next((f.name for f in program.functions), "")
            return await from_function(
                ctx, tool=self.name, function=name, source=source, shape="sort-blocks"
            )
        if not offered:
            # A function whose loops carry a graph walk's marks: its walks as levels over
            # ranks (nothing to choose among), or no candidate.
            try:
                walked = distributed_walks(source, program)
            except AnnotationError as exc:
                raise ToolError(f"distribute: {exc}") from exc
            if walked is not None:
                return await from_function(
                    ctx, tool=self.name, function=walked[0], source=walked[1], shape="walk-levels"
                )
        # Standard algorithms, searches and helper lambdas: the loops they run, offered as any
        # loops are, where that offers more.
        try:
            source, program, offered = with_most_loops(source, program, distributable, function)
        except AnnotationError as exc:
            raise ToolError(f"distribute: {exc}") from exc
        return await from_loops(
            ctx,
            args,
            tool=self.name,
            target=Target.MPI,
            offered=offered,
            write=lambda ids: distribute(source, program, ids),
            shown=(source, program),
            how="run as blocks over MPI ranks (the tool writes the MPI code: each rank runs its "
            "block, then the results are combined on every rank)",
            cost="each divided loop costs one collective call after it, so a short loop is "
            "cheaper left to every rank",
            shape=lambda chosen: (
                "block-cyclic" if any(cycles(x) and uneven(program, x) for x in chosen) else "block"
            ),
        )


async def from_loops(
    ctx: ToolContext,
    args: LoopToolArgs,
    *,
    tool: str,
    target: Target,
    offered: Sequence[Loop],
    write: Callable[[list[str]], str],
    how: str,
    cost: str,
    shape: str | Callable[[list[Loop]], str],
    shown: tuple[str, Program] | None = None,
) -> CandidateResult:
    """A candidate a target's tool writes from the loops it `offered`: all of them, or the
    model's pick of them (`args.mode`), shown the source the loops are in (`shown`, where
    that is not the view's: its algorithms written as loops). Shared by the MPI and CUDA
    tools."""
    if ctx.view.target is not target:
        raise ToolError(f"{tool} makes {target.value} candidates only")
    if not offered:
        raise ToolError(f"no loop the analysis can prove that {tool} can write code for")
    reserve(ctx, "candidate")
    note = ""
    ids = [loop.id for loop in offered]
    if args.mode == "analysis":
        async with ctx.deps.trace.step(StepKind.TOOL_CALL, tool, {"mode": "analysis"}) as step:
            step.result = {"loops": ids}
        assert step.id is not None
        step_id = step.id
    else:
        view = ctx.view
        source, program = shown or (view.source, view.program)
        request = ChatRequest(
            messages=pick_loops_messages(
                source, view.language, program, offered, how=how, cost=cost
            ),
            sampling=Sampling(
                max_tokens=ctx.deps.settings.annotate_tokens,
                temperature=ctx.deps.settings.temperature,
            ),
            response_schema=JsonSchema(json_schema=_schema(ids), name="loops"),
        )
        text, step_id = await ask(ctx, request, tool)
        picked, note = _parse(text, ids)
        ids = picked or ids
    try:
        source = write(ids)
    except AnnotationError as exc:
        raise ToolError(f"{tool}: {exc}") from exc
    chosen = [loop for loop in offered if loop.id in ids]
    tags = sorted({t for loop in chosen for t in loop.dependence.patterns})
    shaped = shape if isinstance(shape, str) else shape(chosen)
    strategy = f"{tool}[{','.join(tags)}]:{','.join(ids)}/{shaped}"[:200]
    made = await keep(ctx, source, strategy, step_id)
    made.assumptions = list(
        dict.fromkeys(a for loop in chosen for a in loop.dependence.assumptions)
    )
    return CandidateResult(candidate_id=made.candidate_id, strategy=strategy, note=note)


async def from_function(
    ctx: ToolContext, *, tool: str, function: str, source: str, shape: str
) -> CandidateResult:
    """A candidate a target's tool wrote for the whole function, from no loop of its (a
    standard algorithm's parallel form): nothing to choose, the tool's call is the step."""
    reserve(ctx, "candidate")
    async with ctx.deps.trace.step(StepKind.TOOL_CALL, tool, {"mode": "analysis"}) as step:
        step.result = {"loops": [], "function": function}
    assert step.id is not None
    strategy = f"{tool}[function]:{function}/{shape}"[:200]
    made = await keep(ctx, source, strategy, step.id)
    return CandidateResult(candidate_id=made.candidate_id, strategy=strategy, note="")


def _schema(ids: list[str]) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {
            "loops": {
                "type": "array",
                "items": {"enum": ids},
                "minItems": 1,
                "maxItems": len(ids),  # a small model otherwise names one loop to max_tokens
                "uniqueItems": True,
            }
        },
        "required": ["loops"],
        "additionalProperties": False,
    }


def _parse(text: str, ids: list[str]) -> tuple[list[str], str]:
    """The loops the model picked, or none (with why) when its reply is not usable."""
    try:
        picked = json.loads(text)["loops"]
    except (ValueError, KeyError, TypeError) as exc:
        return [], f"the model's reply was not a valid choice ({exc})"[:300]
    if not isinstance(picked, list) or not picked:
        return [], "the model picked no loop"
    kept = [i for i in ids if i in picked]
    return kept, "" if kept else "the model picked no offered loop"
