"""Evolution, a subgraph of the translate graph (after the join found a correct candidate):

START → seed → generation ⟲ → finish → END

- seed: the archive from the translate graph's passing candidates (a resumed run keeps its own).
- generation: parents, children (parameter mutations, crossovers, model rewrites), the cascade
  (probe, then full verification), the archive; repeated until a budget or a plateau stops it.
  Each generation is one checkpointed step: an interrupted evolution resumes at the next one.
- finish: the `evolution` account stored as a step; the runner reports its best candidate.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agents.graphs.evolve import nodes
from agents.graphs.evolve.state import EvolveInput, EvolveOutput, EvolveState
from agents.graphs.shared.context import RunContext
from agents.graphs.shared.observations import observation
from agents.tools import Made


def more(state: EvolveState) -> str:
    """Another generation while nothing says stop (reads the record only)."""
    return "finish" if (state.get("evolution") or {}).get("stopped") else "generation"


def build() -> CompiledStateGraph[Any, Any, Any, Any]:
    graph = StateGraph(
        EvolveState,
        context_schema=RunContext,
        input_schema=EvolveInput,
        output_schema=EvolveOutput,
    )
    graph.add_node("seed", nodes.seed)
    graph.add_node("generation", nodes.generation)
    graph.add_node("finish", nodes.finish)
    graph.add_edge(START, "seed")
    graph.add_conditional_edges("seed", more, ["generation", "finish"])
    graph.add_conditional_edges("generation", more, ["generation", "finish"])
    graph.add_edge("finish", END)
    return graph.compile()


async def evolve_from(ctx: RunContext, seeds: list[Made]) -> dict[str, Any]:
    """Evolve verified `seeds` outside the translate graph (benchmarks that start from a given
    program); returns the evolution's record. Not checkpointed."""
    limit = 16 + 2 * ctx.config.evolution.generations
    result = await build().ainvoke(
        {"observations": [observation(m) for m in seeds if m.verdict is not None]},
        {"recursion_limit": limit},
        context=ctx,
    )
    return dict(result["evolution"])
