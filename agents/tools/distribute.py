"""`distribute`: an MPI candidate from the loops the analysis proves (no model-written code).

The MPI counterpart of `annotate`: the program stays replicated on every rank and each chosen
loop runs as rank blocks, with the collective calls its facts call for (`Allgatherv` of the
rows it writes, `Allreduce` of its reductions and histograms, a rank-order merge of its
argmin; see `agents.analysis.distribute`). The model, where asked, only picks which of the
offered loops to divide; `mode="analysis"` divides every offered loop.
"""

from __future__ import annotations

import json
from typing import ClassVar, Literal

from pydantic import BaseModel

from agents.analysis import AnnotationError
from agents.analysis.distribute import distributable, distribute
from agents.llm import ChatRequest, JsonSchema, Sampling
from agents.prompts.translate import distribute_messages
from agents.tools.annotate import CandidateResult
from agents.tools.base import ToolContext, ToolError
from agents.tools.calls import ask, keep, reserve
from corpus.store.models import StepKind
from sandbox.spec import Target


class DistributeArgs(BaseModel):
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
    Args: ClassVar[type[BaseModel]] = DistributeArgs

    async def run(self, args: DistributeArgs, ctx: ToolContext) -> CandidateResult:
        if ctx.view.target is not Target.MPI:
            raise ToolError("distribute makes MPI candidates only")
        view = ctx.view
        loops = distributable(view.source, view.program, args.function or view.function)
        if not loops:
            raise ToolError("no loop the analysis can prove fit for a rank-block version")
        reserve(ctx, "candidate")
        note = ""
        ids = [loop.id for loop in loops]
        if args.mode == "analysis":
            async with ctx.deps.trace.step(
                StepKind.TOOL_CALL, "distribute", {"mode": "analysis"}
            ) as step:
                step.result = {"loops": ids}
            assert step.id is not None
            step_id = step.id
        else:
            request = ChatRequest(
                messages=distribute_messages(view.source, view.language, view.program, loops),
                sampling=Sampling(
                    max_tokens=ctx.deps.settings.annotate_tokens,
                    temperature=ctx.deps.settings.temperature,
                ),
                response_schema=JsonSchema(json_schema=_schema(ids), name="loops"),
            )
            text, step_id = await ask(ctx, request, "distribute")
            picked, note = _parse(text, ids)
            ids = picked or ids
        try:
            source = distribute(view.source, view.program, ids)
        except AnnotationError as exc:
            raise ToolError(f"cannot distribute: {exc}") from exc
        tags = sorted({t for loop in loops if loop.id in ids for t in loop.dependence.patterns})
        strategy = f"distribute[{','.join(tags)}]:{','.join(ids)}/block"[:200]
        made = await keep(ctx, source, strategy, step_id)
        made.assumptions = [
            a for loop in loops if loop.id in ids for a in loop.dependence.assumptions
        ]
        return CandidateResult(candidate_id=made.candidate_id, strategy=strategy, note=note)


def _schema(ids: list[str]) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {
            "loops": {"type": "array", "items": {"enum": ids}, "minItems": 1, "uniqueItems": True}
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
