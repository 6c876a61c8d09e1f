"""Parallel reasoning threads, a subgraph of the translate graph:

START → outline → think → fingerprint → verify → END

- outline: K strategy outlines as schema-constrained JSON; duplicates merged, free places
  filled from the catalogue (a reply that is not a valid outline list: the catalogue alone).
- think: one streamed completion per outline, all at once, seeded with one shared prefix (the
  prefix cache serves it); threads that converge are pruned while they stream.
- fingerprint: each finished thread's program built and run on tiny inputs; candidates that
  compute the same thing the same way are merged; a probe that fails is the verdict.
- verify: the survivors verified in parallel; the translate graph's join ranks them.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from agents.graphs.reasoning import nodes
from agents.graphs.reasoning.state import ReasoningState
from agents.graphs.translate.state import TranslateContext, TranslateState


def build() -> CompiledStateGraph[Any, Any, Any, Any]:
    graph = StateGraph(ReasoningState, context_schema=TranslateContext)
    graph.add_node("outline", nodes.outline)
    graph.add_node("think", nodes.think)
    graph.add_node("fingerprint", nodes.fingerprint)
    graph.add_node("verify", nodes.verify)
    graph.add_edge(START, "outline")
    graph.add_edge("outline", "think")
    graph.add_edge("think", "fingerprint")
    graph.add_edge("fingerprint", "verify")
    graph.add_edge("verify", END)
    return graph.compile()


_GRAPH = build()


async def reason(state: TranslateState, runtime: Runtime[TranslateContext]) -> dict[str, Any]:
    """The translate graph's `reason` node: run the subgraph, hand its verified candidates to
    the join, and keep its account for the run's summary."""
    ctx = runtime.context
    result = await _GRAPH.ainvoke({"k": ctx.reasoning_threads}, context=ctx)
    threads = result.get("threads", [])
    summary = {
        "threads": len(threads),
        "outlines": len(result.get("outlines", [])),
        "pruned": sum(1 for t in threads if t["status"] == "pruned"),
        "tokens_generated": result.get("tokens_generated", 0),
        "tokens_saved": result.get("tokens_saved", 0),
        "merged": len(result.get("merged", {})),
        "per_thread": threads,
    }
    return {
        "observations": result.get("observations", []),
        "notes": result.get("notes", []),
        "reasoning": summary,
        "ledger": ctx.tools.ledger.snapshot(),
    }
