"""The translate graph's nodes: each reads the state, does one thing through the injected
context, and returns a partial update."""

from __future__ import annotations

import asyncio
import json
from typing import Any, TypedDict

from langgraph.runtime import Runtime
from pydantic import BaseModel

from agents.core import PlanStep, decide, run_plan
from agents.failures import infrastructure_failure
from agents.graphs.shared.context import RunContext
from agents.graphs.shared.observations import Judged, as_core, feedback, observation
from agents.graphs.translate.planner import PlanStream, call_id
from agents.graphs.translate.state import TranslateState
from agents.tools import (
    CandidateResult,
    Made,
    ToolContext,
    ToolError,
    annotate,
    rewrite,
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
        "ledger": ctx.tools.work.ledger.snapshot(),
    }


async def plan_and_run(state: TranslateState, runtime: Ctx) -> dict[str, Any]:
    """Plan and execute in one node: steps are dispatched while the plan still streams, and a
    ready step never waits for an unrelated slow one (LangGraph's supersteps would make it)."""
    ctx = runtime.context
    tools = ctx.tools
    parent: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    tools.deps.trace.hang_below(parent)
    before = set(tools.work.made)
    previous = state.get("observations", [])
    plan = PlanStream(ctx, feedback(previous) if state.get("rounds") else "", parent)
    notes = await _run(ctx, plan)
    made_any = any(i not in before for i in tools.work.made)
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


async def _run(ctx: RunContext, plan: PlanStream) -> list[str]:
    """Run a plan's steps as they stream in; what went wrong, as notes."""
    results = await run_plan(
        plan.steps(),
        lambda step, args: _execute(ctx, step, args),
        max_concurrency=ctx.config.concurrency,
    )
    return plan.notes + [
        f"step {r.step.id} ({r.step.tool}) {r.status}: {r.error}"
        for r in results.values()
        if r.status != "ok"
    ]


async def _execute(ctx: RunContext, step: PlanStep, args: dict[str, Any]) -> Any:
    """Run one plan step's tool and store it as a tool call below the plan."""
    tools = ctx.tools
    arguments = json.loads(json.dumps(args, default=_jsonable))
    async with tools.deps.trace.step(
        StepKind.TOOL_CALL, step.tool, arguments, tool_call_id=call_id(tools.view.task.id, step.id)
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
    """A new candidate from a failing one: new loop choices for an annotated one, a corrected
    rewrite for a rewritten one."""
    if made.choices:
        return await annotate(
            tools,
            tools.view.function,
            "model",
            evidence=evidence,
            previous=made.choices,
            parent_candidate=made.candidate_id,
        )
    strategy = made.strategy.split(":", 1)[-1]
    return await rewrite(
        tools,
        strategy,
        strategy,
        evidence=evidence,
        previous=made.source,
        parent_candidate=made.candidate_id,
    )
