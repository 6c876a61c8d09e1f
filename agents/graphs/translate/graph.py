"""The translate graph (LLMCompiler's shape with the verifier as the judge):

START → analyse ─┬→ plan_and_run ─┬→ join ─ finish ──────────────→ END
                 └→ reason ───────┘    ├─ replan ─→ plan_and_run     ↑
                    (K > 0)            ├─ repair ×k (Send) ─→ join   │
                                       ├─ evolve (a candidate passed) ┤
                                       └─ hunt (it passed, slowly) ───┘

`reason` runs the reasoning-threads subgraph (`agents.graphs.reasoning`) beside the first
plan when a task asks for threads, and the join ranks both branches' candidates. `evolve` is
the evolution subgraph (`agents.graphs.evolve`): when a task asks for it, the passing
candidates seed a search for faster ones, one checkpointed step per generation. `hunt` is the
same subgraph on the speed hunt's small budget (`GraphConfig.speed_hunt`), taken when no
evolution was asked for and the best verified candidate is slower than the speed target at the
highest count the cores allow: a run does not stop at its first passing candidate however slow.
This graph owns the adapters; the subgraphs know only the shared run context
(`agents.graphs.shared`), and all of them are compiled by `build()`, never at import.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from agents.core import best, evidence, top_speedup
from agents.graphs import evolve, reasoning
from agents.graphs.shared.context import RunContext
from agents.graphs.shared.observations import as_core
from agents.graphs.translate import nodes
from agents.graphs.translate.state import TranslateState
from sandbox.verdict import Verdict


def fan_out(state: TranslateState) -> list[str]:
    """After the analysis: the plan, and the reasoning threads beside it when asked for."""
    return ["plan_and_run", "reason"] if state.get("reasoning_threads") else ["plan_and_run"]


def route(state: TranslateState) -> Any:
    """Where the join's decision leads (reads the state only)."""
    decision = state.get("decision") or {}
    action = decision.get("action")
    if action == "replan":
        return "plan_and_run"
    if action == "repair":
        wanted = set(decision.get("repair", []))
        return [
            Send(
                "repair",
                {
                    "observation": item,
                    "evidence": evidence(Verdict.model_validate(item["verdict"])),
                },
            )
            for item in state.get("observations", [])
            if item["candidate_id"] in wanted
        ] or END
    if evolve_wanted(state):
        return "evolve"
    return "hunt" if hunt_wanted(state) else END


def hunt_wanted(state: TranslateState) -> bool:
    """Whether the run hunts for speed: no evolution asked for or run, a candidate passed and
    was timed, and it is slower than the speed target at the highest count the cores allow."""
    target = state.get("speed_target") or 0.0
    if target <= 0 or state.get("evolve") or state.get("evolution"):
        return False
    winner = best(as_core(item) for item in state.get("observations", []))
    if winner is None or winner.verdict is None or winner.verdict.timing is None:
        return False  # nothing timed (a spec without timing): no speed to hunt for
    return bool(winner.verdict.timing.speedup) and top_speedup(winner.verdict) < target


def hunt_node(evolution: CompiledStateGraph[Any, Any, Any, Any]) -> Any:
    """The `hunt` node: the evolution subgraph on the speed hunt's budget."""

    async def hunt(state: TranslateState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        config = ctx.config.model_copy(update={"evolution": ctx.config.speed_hunt})
        # The hunt's own reserve, beside what the run had: each evaluation may take a candidate,
        # its probe, its verification and two confirming verifications.
        ledger = ctx.tools.work.ledger
        n = config.evolution.evaluations
        room = {
            "candidates": None if ledger.budget.candidates is None else ledger.spent.candidates + n,
            "sandbox_runs": None
            if ledger.budget.sandbox_runs is None
            else ledger.spent.sandbox_runs + 4 * n,
        }
        ledger.budget = ledger.budget.model_copy(update=room)
        try:
            # The hunt's wall clock holds whatever a generation is doing when it runs out (a
            # verification of a child is cancelled): a verified run waits at most this long.
            async with asyncio.timeout(config.evolution.time_s):
                result = await evolution.ainvoke(
                    {"observations": state.get("observations", [])},
                    {"recursion_limit": 16 + 2 * config.evolution.generations},
                    context=replace(ctx, config=config),
                )
        except TimeoutError:
            why = f"the speed hunt stopped at its {config.evolution.time_s:g} s budget"
            return {"notes": [why], "ledger": ledger.snapshot()}
        record = dict(result["evolution"]) | {"hunt": True}
        return {"evolution": record, "ledger": ledger.snapshot()}

    return hunt


def evolve_wanted(state: TranslateState) -> bool:
    """Whether the run goes on to evolve: asked for, and a candidate passed."""
    if not state.get("evolve") or state.get("evolution"):
        return False
    return any(item["verdict"].get("status") == "passed" for item in state.get("observations", []))


def reason_node(threads: CompiledStateGraph[Any, Any, Any, Any]) -> Any:
    """The `reason` node: run the reasoning subgraph, hand its verified candidates to the join,
    and keep its account for the run's summary."""

    async def reason(state: TranslateState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        k = ctx.reasoning_threads
        # Four nodes, then three for each thread run again (`revive`, at most k of them).
        result = await threads.ainvoke({"k": k}, {"recursion_limit": 8 + 3 * k}, context=ctx)
        per_thread = result.get("threads", [])
        summary = {
            "threads": len(per_thread),
            "outlines": len(result.get("outlines", [])),
            "pruned": sum(1 for t in per_thread if t["status"] == "pruned"),
            "revived": sum(1 for t in per_thread if t.get("revived")),
            "tokens_generated": result.get("tokens_generated", 0),
            "tokens_saved": result.get("tokens_saved", 0),
            "merged": len(result.get("merged", {})),
            "per_thread": per_thread,
        }
        return {
            "observations": result.get("observations", []),
            "notes": result.get("notes", []),
            "reasoning": summary,
            "ledger": ctx.tools.work.ledger.snapshot(),
        }

    return reason


def build(
    checkpointer: BaseCheckpointSaver[Any] | None = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled graph; `checkpointer` makes every finished node resumable."""
    graph = StateGraph(TranslateState, context_schema=RunContext)
    graph.add_node("analyse", nodes.analyse)
    graph.add_node("plan_and_run", nodes.plan_and_run)
    graph.add_node("reason", reason_node(reasoning.build()))
    graph.add_node("join", nodes.join)
    # A `Send`-only node takes its own input, not the state; LangGraph's overloads cannot say so.
    graph.add_node("repair", nodes.repair, input_schema=nodes.RepairInput)  # type: ignore[call-overload]
    graph.add_edge(START, "analyse")
    graph.add_conditional_edges("analyse", fan_out, ["plan_and_run", "reason"])
    graph.add_edge("plan_and_run", "join")
    graph.add_edge("reason", "join")
    evolution = evolve.build()
    graph.add_node("evolve", evolution)
    graph.add_node("hunt", hunt_node(evolution))
    graph.add_conditional_edges("join", route, ["plan_and_run", "repair", "evolve", "hunt", END])
    graph.add_edge("repair", "join")
    graph.add_edge("evolve", END)
    graph.add_edge("hunt", END)
    return graph.compile(checkpointer=checkpointer)
