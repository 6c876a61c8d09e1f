"""Parallel reasoning threads: K strategy outlines, one streamed completion per outline from a
shared prefix, online pruning of threads that converge, and a behaviour fingerprint that merges
candidates computing the same thing the same way before the verifier joins the survivors.

The pure parts (outlines, fingerprints, confidence, the pruner) have their own tests; `threads`
runs the streams; the subgraph that wires it into the translate graph is
`agents.graphs.reasoning`.
"""

from agents.reasoning.behaviour import behaviour_key, probe_spec
from agents.reasoning.confidence import WindowConfidence, token_confidence
from agents.reasoning.fingerprint import (
    code_part,
    converged,
    looping,
    shape,
    similarity,
    structure,
)
from agents.reasoning.outlines import (
    Outline,
    OutlineError,
    complete,
    merge,
    outline_schema,
    parse_outlines,
)
from agents.reasoning.threads import (
    Pruning,
    Thread,
    ThreadBudget,
    estimate_saved,
    reasoning_summary,
    run_threads,
    saved_per_thread,
    tokens_saved,
)

__all__ = [
    "Outline",
    "OutlineError",
    "Pruning",
    "Thread",
    "ThreadBudget",
    "WindowConfidence",
    "behaviour_key",
    "code_part",
    "complete",
    "converged",
    "estimate_saved",
    "looping",
    "merge",
    "outline_schema",
    "parse_outlines",
    "probe_spec",
    "reasoning_summary",
    "run_threads",
    "saved_per_thread",
    "shape",
    "similarity",
    "structure",
    "token_confidence",
    "tokens_saved",
]
