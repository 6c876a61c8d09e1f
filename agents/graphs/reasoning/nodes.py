"""The reasoning subgraph's nodes: thin wrappers over `agents.reasoning` and the tools."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from agents.analysis.errors import InputError
from agents.analysis.parse import parse
from agents.extract import extract_code
from agents.graphs.reasoning.state import ReasoningState
from agents.graphs.shared.context import RunContext
from agents.graphs.shared.observations import observation
from agents.llm import ChatRequest, JsonSchema, Sampling
from agents.prompts.translate import loop_facts, outline_messages, rewrite_messages
from agents.reasoning import (
    Outline,
    OutlineError,
    Pruning,
    Thread,
    ThreadBudget,
    behaviour_key,
    complete,
    merge,
    outline_schema,
    parse_outlines,
    probe_spec,
    run_threads,
    saved_per_thread,
    structure,
    tokens_saved,
)
from agents.tools import Made, ToolContext, ToolError, probe_made, verify_made
from agents.tools.calls import ask, keep, reserve, token_estimate
from agents.tools.rewrite import seed_for
from agents.tools.verify import checked_spec
from corpus.store.models import StepKind
from sandbox.verdict import Status, Verdict

Ctx = Runtime[RunContext]


async def outline(state: ReasoningState, runtime: Ctx) -> dict[str, Any]:
    """K outlines from the model, merged and completed from the catalogue."""
    ctx = runtime.context
    tools, k = ctx.tools, state["k"]
    notes: list[str] = []
    proposed: list[Outline] = []
    step_id: int | None = None
    if (spent := tools.work.ledger.exhausted()) is not None:
        return {"outlines": [], "outline_step": None, "notes": [f"no reasoning threads: {spent}"]}
    request = ChatRequest(
        messages=outline_messages(
            tools.view.source, tools.view.language, tools.view.target, tools.view.program, k
        ),
        sampling=Sampling(max_tokens=ctx.config.plan_tokens, temperature=ctx.config.temperature),
        response_schema=JsonSchema(
            json_schema=outline_schema(tools.view.target, k), name="outlines"
        ),
    )
    try:
        text, step_id = await ask(tools, request, "outline")
        proposed = parse_outlines(text, tools.view.target)
    except (OutlineError, ToolError) as exc:  # no outlines read, or a prompt past the window
        notes.append(f"outlines: {exc}; the catalogue's strategies instead")
    kept, merged = merge(proposed)
    if merged:
        notes.append(f"{len(merged)} of {len(proposed)} outlines merged as duplicates")
    outlines = complete(kept, tools.view.target, k)
    return {
        "outlines": [o.model_dump() for o in outlines],
        "outline_step": step_id,
        "notes": notes,
    }


def _request(ctx: RunContext, outline: Outline, logprobs: bool) -> ChatRequest:
    """A thread's request: the rewrite prompt (one prefix for all threads), its outline last."""
    tools, spec = ctx.tools, ctx.tools.view.spec
    hint = outline.strategy + (f" ({outline.detail})" if outline.detail else "")
    return ChatRequest(
        messages=rewrite_messages(
            tools.view.source,
            tools.view.language,
            tools.view.target,
            tools.view.task_tests,
            threads=spec.threads,
            ranks=spec.ranks,
            tolerance=spec.tolerance,
            strategy=hint,
            analysis=loop_facts(tools.view.program.loops),
            function_only=spec.driver is not None,
            signature=spec.signature,
            start=seed_for(tools.view, outline.strategy),
        ),
        sampling=Sampling(
            max_tokens=ctx.config.thread_tokens,
            temperature=ctx.config.temperature,
            logprobs=5 if logprobs else None,
        ),
    )


async def think(state: ReasoningState, runtime: Ctx) -> dict[str, Any]:
    """Every outline's thread at once, pruned while it streams; finished ones become
    candidates."""
    ctx = runtime.context
    outlines = [Outline.model_validate(o) for o in state.get("outlines", [])]
    if not outlines:
        return {"threads": [], "candidates": []}
    return await _run(ctx, state, list(enumerate(outlines)), ctx.pruning)


async def revive(state: ReasoningState, runtime: Ctx) -> dict[str, Any]:
    """Pruning bets that a thread which converged on another would have written the same
    program. When no candidate of the task passed, the bet may have lost (the thread kept was
    wrong where the pruned one would not have been): the next thread pruned as converged runs
    again from its outline, unpruned, and its program goes to the probe and the verifier; one
    at a time, until one passes or none is left. What they cost comes off the tokens pruning
    saved."""
    ctx = runtime.context
    index = unrevived(state)[0]
    outline = Outline.model_validate(state.get("outlines", [])[index])
    result = await _run(ctx, state, [(index, outline)], Pruning(rule="none"), revived=True)
    return result | {
        "threads": [*state.get("threads", []), *result["threads"]],
        "tokens_generated": state.get("tokens_generated", 0) + result["tokens_generated"],
        "tokens_saved": state.get("tokens_saved", 0) - result["tokens_generated"],
        "revived": [*state.get("revived", []), index],
        "notes": [*result["notes"], f"no candidate passed: thread {index} ran again, unpruned"],
    }


def unrevived(state: ReasoningState) -> list[int]:
    """Threads pruned as converged on another that have not run again."""
    done = set(state.get("revived", []))
    return [
        t["index"]
        for t in state.get("threads", [])
        if t.get("pruned_by") is not None and t["index"] not in done
    ]


def revive_wanted(state: ReasoningState, ctx: RunContext) -> bool:
    """When a thread pruned as converged has not run again, no candidate of the task has
    passed (the plan's beside these included) and the budget has room."""
    if not unrevived(state) or ctx.tools.work.ledger.exhausted() is not None:
        return False
    return not any(
        m.verdict is not None and m.verdict.status is Status.PASSED
        for m in ctx.tools.work.made.values()
    )


async def _run(
    ctx: RunContext,
    state: ReasoningState,
    outlines: list[tuple[int, Outline]],
    pruning: Pruning,
    *,
    revived: bool = False,
) -> dict[str, Any]:
    """Threads for (index, outline) pairs, run at once under `pruning`, stored as steps; the
    finished ones kept as candidates."""
    tools = ctx.tools
    logprobs = pruning.rule in ("confidence", "both")
    threads = [Thread(i, o, _request(ctx, o, logprobs), tools.view.language) for i, o in outlines]
    # The threads' estimates are held in the task's budget while they stream (as far as it
    # has room: the thread runner stops them at what was held), then settled with their use.
    ledger = tools.work.ledger
    free = ledger.tokens_free()
    estimate = sum(token_estimate(t.request) for t in threads)
    held = estimate if free is None else min(estimate, free)
    ledger.reserve_tokens(held)
    used = 0
    try:
        await run_threads(
            tools.deps.llm, threads, pruning, ThreadBudget(tokens=None if free is None else held)
        )
    finally:
        used = sum(_prompt_tokens(t) + t.tokens for t in threads)
        ledger.settle_tokens(held, used)
    notes: list[str] = []
    summaries: list[dict[str, Any]] = []
    candidates: list[int] = []
    for thread, saved in zip(threads, saved_per_thread(threads), strict=True):
        step_id = await _store_thread(tools, thread, state.get("outline_step"), saved, revived)
        candidate_id = None
        if thread.status == "finished":
            try:
                candidate_id = await _keep(tools, thread, step_id)
                candidates.append(candidate_id)
            except ToolError as exc:
                notes.append(f"thread {thread.index}: {exc}")
        summaries.append(
            {
                "index": thread.index,
                "strategy": thread.outline.strategy,
                "origin": thread.outline.origin,
                "status": thread.status,
                "reason": thread.reason,
                "tokens": thread.tokens,
                "pruned_by": thread.pruned_by,
                "step_id": step_id,
                "candidate_id": candidate_id,
                "revived": revived,
            }
        )
    return {
        "threads": summaries,
        "tokens_generated": sum(t.tokens for t in threads),
        "tokens_saved": tokens_saved(threads),
        "candidates": candidates,
        "notes": notes,
    }


def _prompt_tokens(thread: Thread) -> int:
    usage = thread.record.usage if thread.record is not None else None
    return usage.prompt_tokens if usage is not None else 0


async def _store_thread(
    tools: ToolContext, thread: Thread, parent: int | None, saved: int, revived: bool
) -> int:
    """One `thread` step below the outline call: what it wrote (also when pruned), its cost,
    why it ended, when pruned the tokens it would still have spent (`think` charged its
    tokens), and whether it is a second run of a pruned thread (`revive`)."""
    record = thread.record
    return await tools.deps.trace.llm_call(
        record,
        "thread",
        parent=parent,
        update={
            "response": {"role": "assistant", "content": thread.text},
            "completion_tokens": thread.tokens,
            "result": {
                "outline": thread.outline.model_dump(),
                "status": thread.status,
                "reason": thread.reason,
                "pruned_by": thread.pruned_by,
                "tokens_saved": saved,
                "finish_reason": thread.finish_reason,
                "revived": revived,
            },
        }
        | ({"error": thread.reason} if record is None else {}),
    )


async def _keep(tools: ToolContext, thread: Thread, step_id: int) -> int:
    extracted = extract_code(thread.text)
    try:  # prose or an empty reply is no candidate: it would only cost a build
        parse(extracted.code, tools.view.language)
    except InputError as exc:
        raise ToolError(f"the reply holds no program ({extracted.how}): {exc}") from exc
    reserve(tools, "candidate")
    made = await keep(tools, extracted.code, f"thread:{thread.outline.strategy}"[:200], step_id)
    return made.candidate_id


async def fingerprint(state: ReasoningState, runtime: Ctx) -> dict[str, Any]:
    """Probe every thread's candidate on tiny inputs; merge those that behave alike."""
    tools = runtime.context.tools
    made = [tools.work.made[c] for c in state.get("candidates", [])]
    if not made:
        return {"survivors": [], "merged": {}}
    spec = probe_spec(checked_spec(tools))
    arguments = {"candidates": [m.candidate_id for m in made], "tests": len(spec.tests)}
    async with tools.deps.trace.step(
        StepKind.TOOL_CALL, "fingerprint", arguments, parent=state.get("outline_step")
    ) as step:
        results = await asyncio.gather(
            *(probe_made(tools, m, spec) for m in made), return_exceptions=True
        )
        notes: list[str] = []
        groups: dict[str, int] = {}
        merged: dict[str, int] = {}
        survivors: list[int] = []
        failed: dict[str, str] = {}
        for m, result in zip(made, results, strict=True):
            if isinstance(result, ToolError):
                notes.append(f"candidate {m.candidate_id} not probed: {result}")
                continue
            if isinstance(result, BaseException):
                raise result
            if result.status is not Status.PASSED:
                failed[str(m.candidate_id)] = result.status.value  # its probe is its verdict
                continue
            key = _behaviour(m, result, tools)
            if key in groups:
                merged[str(m.candidate_id)] = groups[key]
            else:
                groups[key] = m.candidate_id
                survivors.append(m.candidate_id)
        step.result = {"survivors": survivors, "merged": merged, "failed": failed}
    return {"survivors": survivors, "merged": merged, "notes": notes}


def _behaviour(made: Made, verdict: Verdict, tools: ToolContext) -> str:
    return behaviour_key(verdict, structure(made.source, tools.view.language))


async def verify(state: ReasoningState, runtime: Ctx) -> dict[str, Any]:
    """The survivors verified in parallel; every thread candidate with a verdict goes to the
    join (a failed probe is a verdict too, for repair)."""
    tools = runtime.context.tools
    survivors = [tools.work.made[c] for c in state.get("survivors", [])]
    results = await asyncio.gather(
        *(verify_made(tools, m) for m in survivors), return_exceptions=True
    )
    notes: list[str] = []
    for m, result in zip(survivors, results, strict=True):
        if isinstance(result, ToolError):
            notes.append(f"candidate {m.candidate_id} not verified: {result}")
        elif isinstance(result, BaseException):
            raise result
    merged = set(state.get("merged", {}))
    observations = [
        observation(tools.work.made[c])
        for c in state.get("candidates", [])
        if str(c) not in merged and tools.work.made[c].verdict is not None
    ]
    revive = revive_wanted(state, runtime.context)
    return {"observations": observations, "notes": notes, "revive": revive}
