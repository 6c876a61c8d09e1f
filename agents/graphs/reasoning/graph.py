"""Parallel reasoning threads, a subgraph of the translate graph:

START → outline → think → fingerprint → verify → END
                                 ↑                 ↓ no candidate passed, a thread pruned
                                 └──── revive ─────┘   as converged not yet run again

- outline: K strategy outlines as schema-constrained JSON; duplicates merged, free places
  filled from the catalogue (a reply that is not a valid outline list: the catalogue alone).
- think: one streamed completion per outline, all at once, seeded with one shared prefix (the
  prefix cache serves it); threads that converge are pruned while they stream.
- fingerprint: each finished thread's program built and run on tiny inputs; candidates that
  compute the same thing the same way are merged; a probe that fails is the verdict.
- verify: the survivors verified in parallel; the translate graph's join ranks them.
- revive: pruning is a bet that converged threads would have written one program; when no
  candidate of the task passed, the threads pruned as converged run again, unpruned, one at a
  time until one passes (each at most once).

The translate graph compiles it in its own `build()` and owns the node that runs it.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agents.graphs.reasoning import nodes
from agents.graphs.reasoning.state import ReasoningState
from agents.graphs.shared.context import RunContext


def build() -> CompiledStateGraph[Any, Any, Any, Any]:
    graph = StateGraph(ReasoningState, context_schema=RunContext)
    graph.add_node("outline", nodes.outline)
    graph.add_node("think", nodes.think)
    graph.add_node("fingerprint", nodes.fingerprint)
    graph.add_node("verify", nodes.verify)
    graph.add_node("revive", nodes.revive)
    graph.add_edge(START, "outline")
    graph.add_edge("outline", "think")
    graph.add_edge("think", "fingerprint")
    graph.add_edge("fingerprint", "verify")
    graph.add_conditional_edges(
        "verify", lambda state: "revive" if state.get("revive") else END, ["revive", END]
    )
    graph.add_edge("revive", "fingerprint")
    return graph.compile()
