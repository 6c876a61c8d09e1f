"""`rewrite`: the model writes the whole program again following a named strategy.

The strong-model way to write a candidate (and the only one for MPI and CUDA, and for loops
the analysis cannot annotate, such as a scan that needs a two-pass blocked rewrite).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from agents.analysis.errors import InputError
from agents.analysis.parse import parse
from agents.extract import extract_code
from agents.llm import ChatRequest, Sampling
from agents.prompts.translate import loop_facts, rewrite_messages
from agents.targets import kit
from agents.tools.annotate import CandidateResult
from agents.tools.base import StepOutput, TaskView, ToolContext, ToolError
from agents.tools.calls import ask, keep, reserve
from agents.tools.examples import example_sources


class RewriteArgs(BaseModel):
    strategy: str = ""
    """How to parallelise (empty: the target's first strategy)."""
    examples: StepOutput = None


class Rewrite:
    name: ClassVar[str] = "rewrite"
    description: ClassVar[str] = (
        "Have the model write a complete parallel program following a named strategy."
    )
    Args: ClassVar[type[BaseModel]] = RewriteArgs

    async def run(self, args: RewriteArgs, ctx: ToolContext) -> CandidateResult:
        strategy = args.strategy.strip() or kit(ctx.view.target).strategies[0]
        found = example_sources(args.examples) or ctx.work.found_examples
        hint = strategy
        if found:
            hint += ". A verified translation of a similar loop:\n" + found[0]["source"][:1500]
        return await rewrite(ctx, strategy, hint)


def seed_for(view: TaskView, strategy: str) -> str:
    """The target's own tool's program, when `strategy` is the one that starts from it."""
    target_kit = kit(view.target)
    if strategy != target_kit.seeded:
        return ""
    return target_kit.seed(view.source, view.program, view.spec.signature) or ""


async def rewrite(
    ctx: ToolContext,
    strategy: str,
    hint: str,
    *,
    evidence: str = "",
    previous: str = "",
    parent_candidate: int | None = None,
    improve: bool = False,
) -> CandidateResult:
    """Ask, extract, keep; shared by the tool, by repair (`previous` code and `evidence`) and
    by evolution (`improve`: `previous` passed, make it faster)."""
    reserve(ctx, "candidate")
    spec = ctx.view.spec
    request = ChatRequest(
        messages=rewrite_messages(
            ctx.view.source,
            ctx.view.language,
            ctx.view.target,
            ctx.view.task_tests,
            threads=spec.threads,
            ranks=spec.ranks,
            tolerance=spec.tolerance,
            strategy=hint,
            analysis=loop_facts(ctx.view.program.loops),
            evidence=evidence,
            previous=previous,
            function_only=spec.driver is not None,
            signature=spec.signature,
            improve=improve,
            start=seed_for(ctx.view, strategy) if not previous else "",
        ),
        sampling=Sampling(
            max_tokens=ctx.deps.settings.rewrite_tokens, temperature=ctx.deps.settings.temperature
        ),
    )
    kind = "evolve" if improve else "repair" if previous else "rewrite"
    text, step_id = await ask(ctx, request, kind)
    extracted = extract_code(text)
    try:  # prose, an empty reply or mostly garbage is no candidate: it would only cost a build
        parse(extracted.code, ctx.view.language)
    except InputError as exc:
        raise ToolError(f"the model's reply holds no program ({extracted.how}): {exc}") from exc
    label = f"{kind}:{strategy[:150]}"
    made = await keep(ctx, extracted.code, label, step_id, parent=parent_candidate)
    return CandidateResult(candidate_id=made.candidate_id, strategy=label)
