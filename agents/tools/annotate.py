"""`annotate`: OpenMP directives chosen per loop from a schema the analysis built.

The small-model way to write a candidate: the model never writes code, it picks per loop from
the options that are sound for that loop (which loops, schedule, chunk, collapse, simd); the
reduction and private clauses come from the dependence analysis, and the tool inserts the
directive at the loop's line. Loops with a loop-carried dependence (a scan) are not in the
schema, so they cannot be annotated naively. `mode="analysis"` skips the model and takes the
first option of every loop: what the analysis alone achieves.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ValidationError

from agents.analysis import AnnotationError, LoopChoice, annotatable, apply_choices, choice_schema
from agents.analysis import default_choices as first_options
from agents.llm import ChatRequest, JsonSchema, Sampling
from agents.prompts.translate import annotate_messages
from agents.targets import kit
from agents.tools.base import StepOutput, ToolContext, ToolError
from agents.tools.calls import ask, keep, reserve
from agents.tools.examples import example_sources
from corpus.store.models import StepKind


class AnnotateArgs(BaseModel):
    function: str | None = None
    """Only the loops of this function (None: every function)."""
    mode: Literal["model", "analysis"] = "model"
    examples: StepOutput = None
    """The result of an `examples` step (verified code of similar loops), or nothing."""


class CandidateResult(BaseModel):
    """A candidate a tool made (verify it with `{"candidate": "$N"}`)."""

    candidate_id: int
    strategy: str
    note: str = ""


class Annotate:
    name: ClassVar[str] = "annotate"
    description: ClassVar[str] = (
        "Make an OpenMP candidate by choosing directives for the loops the analysis found safe; "
        'mode "model" lets the model choose, "analysis" takes the plain default.'
    )
    Args: ClassVar[type[BaseModel]] = AnnotateArgs

    async def run(self, args: AnnotateArgs, ctx: ToolContext) -> CandidateResult:
        return await annotate(
            ctx,
            args.function or ctx.view.function,
            args.mode,
            examples=example_sources(args.examples),
        )


async def annotate(
    ctx: ToolContext,
    function: str | None,
    mode: str,
    *,
    evidence: str = "",
    previous: list[LoopChoice] | None = None,
    parent_candidate: int | None = None,
    examples: list[dict[str, Any]] | None = None,
) -> CandidateResult:
    """Choose, insert, keep; shared by the tool and by repair (`evidence` of a failed choice)."""
    if "annotate" not in kit(ctx.view.target).tools:
        raise ToolError(f"annotate makes no {kit(ctx.view.target).name} candidates")
    # A task that asks for exact numbers (rtol = atol = 0) gets no reassociated reduction. One
    # with no tolerance is compared as printed text: a reassociated sum passes only where its
    # printed digits match, and the verify step says so (`assumptions`).
    tolerance = ctx.view.spec.tolerance
    loops = annotatable(
        ctx.view.program,
        function,
        reassociate=tolerance is None or tolerance.rtol > 0 or tolerance.atol > 0,
    )
    if not loops:
        raise ToolError(
            "no loop the analysis can prove safe to parallelise"
            + (f" in {function}()" if function else "")
        )
    reserve(ctx, "candidate")
    note = ""
    if mode == "analysis":
        choices = first_options(loops)
        step_id = await _record_choice(ctx, choices)
    else:
        messages = annotate_messages(
            ctx.view.source,
            ctx.view.language,
            ctx.view.program,
            loops,
            evidence,
            examples or ctx.work.found_examples,
        )
        if previous:
            messages[-1] = messages[-1].model_copy(
                update={
                    "content": (messages[-1].content or "")
                    + "\nThe failed choice was: "
                    + json.dumps([c.model_dump() for c in previous])
                }
            )
        request = ChatRequest(
            messages=messages,
            sampling=Sampling(
                max_tokens=ctx.deps.settings.annotate_tokens,
                temperature=ctx.deps.settings.temperature,
            ),
            response_schema=JsonSchema(json_schema=choice_schema(loops), name="choices"),
        )
        text, step_id = await ask(ctx, request, "annotate")
        choices, note = _parse(text, loops)
    try:
        source = apply_choices(ctx.view.source, ctx.view.program, choices)
    except AnnotationError as exc:
        choices, note = first_options(loops), f"the model's choice was unusable ({exc})"
        source = apply_choices(ctx.view.source, ctx.view.program, choices)
    strategy = label(ctx, choices)
    made = await keep(ctx, source, strategy, step_id, parent=parent_candidate)
    made.choices = choices
    made.assumptions = assumptions(ctx, choices)
    return CandidateResult(candidate_id=made.candidate_id, strategy=strategy, note=note)


def assumptions(ctx: ToolContext, choices: list[LoopChoice]) -> list[str]:
    """What the chosen loops' verdicts take for granted; for a reassociated floating-point
    reduction, with the tolerance the outputs are compared within."""
    found: list[str] = []
    reassociates = False
    for choice in choices:
        if choice.parallel:
            dependence = ctx.view.program.loop(choice.loop).dependence
            found += dependence.assumptions
            reassociates |= any(r.reassociates for r in dependence.reductions)
    tolerance = ctx.view.spec.tolerance
    if reassociates and tolerance is not None:
        found.append(
            f"outputs compared within rtol={tolerance.rtol:g}, atol={tolerance.atol:g}, "
            "which the reassociated reduction must stay inside"
        )
    elif reassociates:
        found.append(
            "outputs compared exactly as printed (the task gives no tolerance): the reassociated "
            "reduction passes only where its printed digits match the sequential program's"
        )
    return list(dict.fromkeys(found))


def _parse(text: str, loops: list[Any]) -> tuple[list[LoopChoice], str]:
    """The model's choices, or the first options (with why) when its reply is not usable."""
    try:
        raw = json.loads(text)
        choices = [LoopChoice.model_validate(c) for c in raw["choices"]]
    except (ValueError, KeyError, TypeError, ValidationError) as exc:
        return first_options(loops), f"the model's reply was not a valid choice ({exc})"[:300]
    if not any(c.parallel for c in choices):
        return first_options(loops), "the model parallelised nothing"
    return choices, ""


async def _record_choice(ctx: ToolContext, choices: list[LoopChoice]) -> int:
    """The analysis-only choice as a tool step, so its candidate hangs below something."""
    async with ctx.deps.trace.step(StepKind.TOOL_CALL, "annotate", {"mode": "analysis"}) as step:
        step.result = {"choices": [c.model_dump() for c in choices]}
    assert step.id is not None
    return step.id


def label(ctx: ToolContext, choices: list[LoopChoice]) -> str:
    """`annotate[reduction:+,independent]:L1/static,L3/dynamic`: the loop patterns first, so
    later tasks can retrieve this candidate as an example (see `corpus.store.examples`)."""
    chosen = [c for c in choices if c.parallel]
    tags: list[str] = []
    for choice in chosen:
        dep = ctx.view.program.loop(choice.loop).dependence
        tags += [t for t in dep.patterns if t not in tags]
    loops = ",".join(f"{c.loop}/{c.schedule}{'+simd' if c.simd else ''}" for c in chosen)
    return f"annotate[{','.join(tags)}]:{loops}"[:200]
