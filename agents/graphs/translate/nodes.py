"""The translate graph's nodes: each reads the state, does one thing through the injected
context, and returns a partial update."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, TypedDict

from langgraph.runtime import Runtime
from pydantic import BaseModel

from agents.core import PlanStep, StepResult, decide, run_plan
from agents.failures import infrastructure_failure
from agents.graphs.shared.context import RunContext
from agents.graphs.shared.observations import Judged, as_core, feedback, observation
from agents.graphs.translate.planner import PlanStream, call_id
from agents.graphs.translate.plans import default_plan
from agents.graphs.translate.state import TranslateState
from agents.targets import kit
from agents.tools import (
    CandidateResult,
    Made,
    ToolContext,
    ToolError,
    annotate,
    rewrite,
    strategy_of,
    verify_made,
)
from corpus.store.models import StepKind

Ctx = Runtime[RunContext]


async def analyse(state: TranslateState, runtime: Ctx) -> dict[str, Any]:
    """Store what the front end found (the analysis itself ran before the graph: bad input
    must be refused before anything is stored)."""
    ctx = runtime.context
    async with ctx.tools.deps.trace.step(StepKind.TOOL_CALL, "analyse", {}, parent=None) as step:
        step.result = await ctx.registry.call("analyse", {}, ctx.tools)
    return {
        "rounds": 0,
        "repair_rounds": 0,
        "reasoning_threads": ctx.reasoning_threads,
        "evolve": ctx.evolve,
        "speed_target": ctx.config.speed_target if not ctx.evolve else 0.0,
        "ledger": ctx.tools.work.ledger.snapshot(),
    }


async def plan_and_run(state: TranslateState, runtime: Ctx) -> dict[str, Any]:
    """Plan and execute in one node: steps are dispatched while the plan still streams, and a
    ready step never waits for an unrelated slow one (LangGraph's supersteps would make it).

    In the first round the analysis's own candidate runs as a branch beside the model's plan
    (`_analysis_branch`): the model's plan adds to it and never replaces it, so a confident
    but wrong plan cannot end below the analysis alone."""
    ctx = runtime.context
    tools = ctx.tools
    parent: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    tools.deps.trace.hang_below(parent)
    before = set(tools.work.made)
    previous = state.get("observations", [])
    plan = PlanStream(ctx, feedback(previous) if state.get("rounds") else "", parent)
    first = not state.get("rounds")
    notes, (branch_notes, branch_made) = await asyncio.gather(
        _run(ctx, plan), _analysis_branch(ctx, first)
    )
    notes += branch_notes
    made_any = any(i not in before and i not in branch_made for i in tools.work.made)
    if plan.models_own and not made_any and not tools.work.ledger.can("replan"):
        # A valid plan whose makers all failed (a rewrite with no code in its reply) and no
        # replan left to tell the model: the sound default plan runs in the same round rather
        # than ending the task with nothing.
        fallback: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        tools.deps.trace.hang_below(fallback)
        why = "the model's plan made no candidate"
        notes += await _run(ctx, PlanStream(ctx, "", fallback, fallback=why))
    # Candidates a plan made but never verified are verified now: the join needs verdicts.
    new = [tools.work.made[i] for i in tools.work.made if i not in before]
    notes += await _verify_all([m for m in new if m.verdict is None], ctx)
    return {
        "observations": [observation(m) for m in new if m.verdict is not None],
        "notes": notes,
        "rounds": state.get("rounds", 0) + 1,
        "ledger": tools.work.ledger.snapshot(),
    }


def asks_model(ctx: RunContext) -> bool:
    """Whether the plan comes from the model (otherwise the default plan, which already holds
    the analysis's candidate, runs alone)."""
    return ctx.config.planner and ctx.config.use_model


async def _analysis_branch(ctx: RunContext, first: bool) -> tuple[list[str], set[int]]:
    """In the first round of a model's plan (`first`), the analysis's candidate (the target's
    own tool on every loop it proves, no model call) and its verification, beside the plan; its
    notes and the candidates it made. Its steps hang below an `analysis-branch` step and carry
    no tool-call id: they are not the model's calls, and a trajectory must not teach the model
    that it made them."""
    if not first or not asks_model(ctx):
        return [], set()
    tools = ctx.tools
    view = tools.view
    mechanical = kit(view.target).mechanical(view.source, view.program, view.spec.signature)
    steps = default_plan(view.target, annotatable=mechanical, extra_tests=0, use_model=False)
    if not steps:
        return [], set()
    why = "the analysis's own candidate, beside the model's plan"
    async with tools.deps.trace.step(
        StepKind.TOOL_CALL, "analysis-branch", {"why": why}, parent=None
    ) as stored:
        pass
    assert stored.id is not None
    tools.deps.trace.hang_below(stored.id)  # this task's context only (gather made it a task)

    async def listed() -> AsyncIterator[PlanStep]:
        for step in steps:
            yield step

    results = await _dispatch(ctx, listed(), models=False)
    made = {
        int(r.value["candidate_id"])
        for r in results.values()
        if r.ok and isinstance(r.value, dict) and "candidate_id" in r.value
    }
    return [f"analysis branch: {note}" for note in _failed(results)], made


async def _run(ctx: RunContext, plan: PlanStream) -> list[str]:
    """Run a plan's steps as they stream in; what went wrong, as notes."""
    return plan.notes + _failed(await _dispatch(ctx, plan.steps()))


async def _dispatch(
    ctx: RunContext, steps: AsyncIterator[PlanStep], *, models: bool = True
) -> dict[int, StepResult]:
    """Run steps as they arrive, each its tool stored as a call (see `_execute`)."""
    return await run_plan(
        steps,
        lambda step, args: _execute(ctx, step, args, models=models),
        max_concurrency=ctx.config.concurrency,
    )


def _failed(results: dict[int, StepResult]) -> list[str]:
    return [
        f"step {r.step.id} ({r.step.tool}) {r.status}: {r.error}"
        for r in results.values()
        if r.status != "ok"
    ]


async def _execute(
    ctx: RunContext, step: PlanStep, args: dict[str, Any], *, models: bool = True
) -> Any:
    """Run one plan step's tool and store it as a tool call below the plan (`models`: the
    step is one the model's plan (or the default plan in its place) called, and carries the
    tool-call id its reply names)."""
    tools = ctx.tools
    arguments = json.loads(json.dumps(args, default=_jsonable))
    call = call_id(tools.view.task.id, step.id) if models else None
    async with tools.deps.trace.step(
        StepKind.TOOL_CALL, step.tool, arguments, tool_call_id=call
    ) as stored:
        try:
            result = await ctx.registry.call(step.tool, args, tools)
        except Exception as exc:
            if (failure := infrastructure_failure(exc)) is not None:
                tools.work.failures.append(failure)
            raise
        stored.result = result
    return result.model_dump(mode="json")


def _jsonable(value: Any) -> Any:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else str(value)


async def _verify_all(made: list[Made], ctx: RunContext) -> list[str]:
    """Verify what a plan made but did not verify; what the budget did not allow, as notes."""
    results = await asyncio.gather(
        *(verify_made(ctx.tools, m) for m in made), return_exceptions=True
    )
    notes = []
    for m, result in zip(made, results, strict=True):
        if isinstance(result, ToolError):
            notes.append(f"candidate {m.candidate_id} not verified: {result}")
        elif isinstance(result, BaseException):
            raise result
    return notes


async def join(state: TranslateState, runtime: Ctx) -> dict[str, Any]:
    """Finish, repair or replan: a pure decision over what was verified and what is left."""
    ctx = runtime.context
    observations = [as_core(item) for item in state.get("observations", [])]
    ledger = ctx.tools.work.ledger
    decision = decide(observations, ledger, repair_width=ctx.config.repair_width)
    update: dict[str, Any] = {
        "decision": {
            "action": decision.action,
            "reason": decision.reason,
            "repair": [o.candidate_id for o in decision.repair],
        }
    }
    if decision.action == "repair":
        ledger.charge_repair()
        update["repair_rounds"] = state.get("repair_rounds", 0) + 1
    elif decision.action == "replan":
        ledger.charge_replan()
    update["ledger"] = ledger.snapshot()
    return update


class RepairInput(TypedDict):
    """What `Send` hands one repair branch."""

    observation: Judged
    evidence: str


async def repair(payload: RepairInput, runtime: Ctx) -> dict[str, Any]:
    """One failing candidate goes back with its evidence (fanned out with `Send`)."""
    ctx = runtime.context
    tools = ctx.tools
    item = payload["observation"]
    made = tools.work.made[item["candidate_id"]]  # a resumed run restored it from the state
    tools.deps.trace.hang_below(made.step_id)  # this branch's rows hang below the repaired one's
    try:
        result = await _repair_one(tools, made, payload["evidence"])
        fixed = tools.work.made[result.candidate_id]
        await verify_made(tools, fixed)
    except ToolError as exc:  # the budget ran out, or nothing to repair with: a note, not a crash
        return {"notes": [f"repair of candidate {made.candidate_id}: {exc}"]}
    return {"observations": [observation(fixed)], "ledger": tools.work.ledger.snapshot()}


async def _repair_one(tools: ToolContext, made: Made, evidence: str) -> CandidateResult:
    """A new candidate from a failing one: new loop choices for an annotation the model has not
    yet re-chosen; otherwise (a rewrite, a tool's program, an annotation that failed again
    after new choices) escalated to a rewrite of its code with the evidence, told in words what
    the failing candidate did."""
    if made.choices and made.key not in tools.work.rechosen:
        tools.work.rechosen.add(made.key)
        return await annotate(
            tools,
            tools.view.function,
            "model",
            evidence=evidence,
            previous=made.choices,
            parent_candidate=made.candidate_id,
        )
    strategy = strategy_of(made.strategy)
    return await rewrite(
        tools,
        strategy,
        strategy,
        evidence=evidence,
        previous=made.source,
        parent_candidate=made.candidate_id,
    )
