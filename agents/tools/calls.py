"""The two things most tools do: ask the model (recorded as a step), and keep a candidate."""

from __future__ import annotations

import re
from typing import Literal

from agents.analysis import normalise
from agents.llm import ChatRequest, ContextOverflow
from agents.targets import kit
from agents.tools.base import Made, ToolContext, ToolError
from corpus.store.models import CandidateCreate


class BudgetSpent(ToolError):
    """The task's budget has no room for what the step wanted to do."""


def reserve(ctx: ToolContext, kind: Literal["candidate", "sandbox_run"]) -> None:
    """Charge one candidate or sandbox run before starting it; `BudgetSpent` when none is left.
    Checked and charged with no await in between, so steps that start together cannot all
    squeeze through the last unit of the budget."""
    spent = ctx.work.ledger.exhausted(kind)
    if spent is not None:
        raise BudgetSpent(f"not run: the {spent}")
    if kind == "candidate":
        ctx.work.ledger.charge_candidate()
    else:
        ctx.work.ledger.charge_sandbox_run()


def token_estimate(request: ChatRequest) -> int:
    """What a call may cost at most, before it starts: its prompt (about three characters a
    token, generously) and every sample's `max_tokens`."""
    prompt = sum(len(m.content or "") for m in request.messages) // 3 + 8 * len(request.messages)
    return prompt + request.sampling.max_tokens * request.sampling.n


def hold_tokens(ctx: ToolContext, request: ChatRequest) -> int:
    """Hold a call's estimate in the task's token budget (`BudgetSpent` when it does not fit
    beside what is spent and what calls in flight hold); settle with `settle_tokens`."""
    estimate = token_estimate(request)
    if not ctx.work.ledger.reserve_tokens(estimate):
        left = ctx.work.ledger.tokens_free()
        raise BudgetSpent(
            f"not run: the token budget has {left} tokens free, this call may take {estimate}"
        )
    return estimate


async def ask(ctx: ToolContext, request: ChatRequest, name: str) -> tuple[str, int]:
    """One model call, stored as an `llm_call` step named `name` below the plan. Its estimate
    is held in the task's token budget while it runs, then settled with what it used. Returns
    the reply and the step's id; a failed call is stored too, then raised."""
    estimate = hold_tokens(ctx, request)
    used = 0
    try:
        record, error = await ctx.deps.llm.call(request)
        if record.usage is not None:
            used = record.usage.prompt_tokens + record.usage.completion_tokens
    finally:
        ctx.work.ledger.settle_tokens(estimate, used)
    step_id = await ctx.deps.trace.llm_call(record, name)
    if isinstance(error, ContextOverflow):
        # this one request is too long for the model (a long program, a small window): the
        # step fails, the run goes on with what the tools and other steps make
        raise ToolError(f"the prompt does not fit the model's context window: {error}") from error
    if error is not None:
        raise error
    return (record.choices[0].text if record.choices else ""), step_id


async def keep(
    ctx: ToolContext, source: str, strategy: str, step_id: int, parent: int | None = None
) -> Made:
    """Store a candidate program made by `strategy` (below the step that wrote it)."""
    language = kit(ctx.view.target).language(ctx.view.task.language)
    candidate_id = await ctx.deps.trace.candidate(
        CandidateCreate(
            target=ctx.view.target.value,
            language=language,
            source=source,
            strategy=strategy,
            step_id=step_id,
            parent_id=parent,
            generation=0 if parent is None else ctx.work.made[parent].generation + 1,
        )
    )
    made = Made(candidate_id, source, strategy, normalise(source, ctx.view.language), step_id)
    made.generation = 0 if parent is None else ctx.work.made[parent].generation + 1
    ctx.work.made[candidate_id] = made
    return made


_TOOL_LABEL = re.compile(r"(\w+)\[([^\]]*)\]:(.*)", re.S)
_ASKED = ("rewrite", "repair", "evolve")
_TOOLS_WORK = {
    "annotate": "OpenMP directives",
    "distribute": "an MPI decomposition",
    "offload": "CUDA kernels",
}


def strategy_of(label: str) -> str:
    """What a candidate's strategy label (as `keep` stored it) asks a model to follow, in
    words: `rewrite:tasks` and `repair:tasks` are `tasks`; a tool's label
    (`annotate[reduction:+,independent]:L1/static,L3/dynamic`) names what the tool wrote, on
    which loops, with which patterns; a mutation's (`evolve:chunk`) says so."""
    kind, _, rest = label.partition(":")
    if kind in _ASKED and rest and not _TOOL_LABEL.fullmatch(label):
        return strategy_of(rest) if rest.split(":", 1)[0] in _ASKED else rest
    match = _TOOL_LABEL.fullmatch(label)
    if match is None:
        return label
    tool, tags, loops = match.groups()
    work = _TOOLS_WORK.get(tool, f"the {tool} tool's code")
    shown = ", ".join(loops.split(",")) or "no loop"
    patterns = f" (patterns: {tags.replace(',', ', ')})" if tags else ""
    return (
        f"keep {work} on loops {shown}{patterns} as the analysis proved them, and improve on them"
    )
