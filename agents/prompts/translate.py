"""The translate agent's messages: the plan, the per-loop annotation choice, a strategy rewrite,
and a repair with the verifier's evidence (pure functions of the task and the analysis).

Every prompt starts with the same prefix (system message, program, analysis), so vLLM's prefix
cache serves it once for all the calls of a task.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agents.analysis import Loop, Program
from agents.core import ToolSpec
from agents.llm import Message
from agents.prompts.program import SYSTEM, build_messages
from agents.targets import kit
from sandbox.spec import Language, Target, TestCase, Tolerance

_FENCE = {Language.C: "c", Language.CPP: "cpp", Language.CUDA: "cuda"}


def numbered(source: str) -> str:
    """The program with line numbers, so the analysis can name lines."""
    return "\n".join(f"{n:4d} | {line}" for n, line in enumerate(source.splitlines(), 1))


def loop_facts(loops: Sequence[Loop]) -> str:
    """One line per loop: id, line, nesting, what the dependence analysis found."""
    lines = []
    for loop in loops:
        dep = loop.dependence
        clauses = ", ".join(
            [f"reduction({r.op}:{r.var})" for r in dep.reductions]
            + [f"reduction({a.op}:{a.var}[:{a.length}])" for a in dep.array_reductions]
        )
        sharing = "".join(f", {clause}" for clause in dep.sharing_clauses)
        trips = f", {loop.trip_count} iterations" if loop.trip_count else ""
        kind = (
            "first-match search"
            if dep.first_match
            else f"scan of {dep.scan.var} ({dep.scan.op}), as a blocked scan"
            if dep.scan is not None
            else dep.kind
        )
        lines.append(
            f"- {loop.id}: line {loop.line} in {loop.function}(), depth {loop.depth}{trips}: "
            f"{kind}{' ' + clauses if clauses else ''}{sharing} ({dep.reason})"
        )
    return "\n".join(lines) or "- (no loops found)"


def _prefix(source: str, language: Language, program: Program) -> list[Message]:
    user = (
        f"The sequential {language.value} program, with line numbers:\n\n"
        f"{numbered(source)}\n\nLoops and what the dependence analysis says about them:\n"
        f"{loop_facts(program.loops)}\n"
    )
    return [Message(role="system", content=SYSTEM), Message(role="user", content=user)]


def plan_messages(
    source: str,
    language: Language,
    target: Target,
    program: Program,
    tools: Sequence[ToolSpec],
    observations: str = "",
) -> list[Message]:
    """Ask for a plan: a JSON list of tool calls, later ones referring to earlier results."""
    catalogue = "\n".join(
        f"- {t.name}: {t.description} Arguments: {json.dumps(t.args_schema.get('properties', {}))}"
        for t in tools
    )
    ask = (
        f"Plan how to turn this program into a correct, faster {target.value} program. "
        f"The tools you can call:\n{catalogue}\n\n"
        'Answer with JSON {"steps": [{"id": 1, "tool": ..., "args": {...}, "why": ...}, ...]}. '
        'An argument may be "$N", the result of step N (an earlier step). Steps that do not '
        "depend on each other run at the same time. Make several candidates in different ways "
        "and verify each one."
    )
    if observations:
        ask += f"\n\nWhat happened with the previous plan:\n{observations}\nPlan differently."
    return [*_prefix(source, language, program), Message(role="user", content=ask)]


def outline_messages(
    source: str,
    language: Language,
    target: Target,
    program: Program,
    k: int,
) -> list[Message]:
    """Ask for up to `k` different strategies, one sentence each (the schema lists them)."""
    ask = (
        f"Before writing any code, outline up to {k} different ways to make this program a "
        f"correct, faster {target.value} program. For each, pick a strategy and say in one "
        "sentence which loops it changes and how. Make the outlines differ from each other. "
        'Answer with JSON {"outlines": [{"strategy": ..., "detail": ...}, ...]}.'
    )
    return [*_prefix(source, language, program), Message(role="user", content=ask)]


def annotate_messages(
    source: str,
    language: Language,
    program: Program,
    loops: Sequence[Loop],
    evidence: str = "",
    examples: Sequence[dict[str, Any]] = (),
) -> list[Message]:
    """Ask which of the analysable loops to parallelise and how (the schema holds the choices)."""
    ask = (
        "Choose OpenMP directives for these loops (only these may be parallelised; the tool "
        "writes the directive with the reduction, private and lastprivate clauses the analysis "
        "found):\n"
        f"{loop_facts(loops)}\n"
        "Parallelise the loops that carry the most work (outer loops of nests, long loops). "
        "Use schedule(static) for uniform iterations, dynamic or guided for uneven ones, and "
        'collapse only for perfectly nested loops. Answer with JSON {"choices": [...]}.'
    )
    if examples:
        shown = "\n\n".join(f"```\n{e['source'][:1500]}\n```" for e in examples[:2])
        ask += f"\n\nVerified translations of similar loops from earlier tasks:\n{shown}"
    if evidence:
        ask += f"\n\nThe previous choice failed verification:\n{evidence}\nChoose differently."
    return [*_prefix(source, language, program), Message(role="user", content=ask)]


def pick_loops_messages(
    source: str,
    language: Language,
    program: Program,
    loops: Sequence[Loop],
    *,
    how: str,
    cost: str,
) -> list[Message]:
    """Ask which of the loops a target's tool can write code for to hand it (the schema holds
    the ids): the MPI tool's rank blocks, the CUDA tool's kernels."""
    ask = (
        f"These loops can {how}:\n"
        f"{loop_facts(loops)}\n"
        f"Pick the loops that carry the most work: {cost}. "
        'Answer with JSON {"loops": ["L1", ...]}.'
    )
    return [*_prefix(source, language, program), Message(role="user", content=ask)]


def rewrite_messages(
    source: str,
    language: Language,
    target: Target,
    tests: Sequence[TestCase],
    *,
    threads: Sequence[int],
    ranks: Sequence[int],
    tolerance: Tolerance | None,
    strategy: str,
    analysis: str = "",
    evidence: str = "",
    previous: str = "",
    function_only: bool = False,
    improve: bool = False,
    signature: str | None = None,
    start: str = "",
) -> list[Message]:
    """Ask for a whole-program rewrite following one named strategy (or a repair of one);
    `analysis`: the dependence analysis's loop facts (`loop_facts`), shown before the strategy
    so that every strategy's prompt shares it as prefix; `function_only`: the code is a
    function that a test driver includes, not a program; `improve`: `previous` passed and
    the ask is a faster version of it (evolution), with what the verifier measured;
    `signature`: what the driver calls instead of the function (a CUDA kernel); `start`: the
    program the target's own tool wrote from the loop facts, to start from."""
    messages = build_messages(
        source,
        language,
        target,
        tests,
        threads=threads,
        ranks=ranks,
        tolerance=tolerance,
        function_only=function_only,
        signature=signature,
    )
    whole = "definitions" if function_only else "program"
    extra = ""
    if analysis:
        extra += f"\n\nLoops and what the dependence analysis says about them:\n{analysis}"
    extra += f"\n\nStrategy to follow: {strategy}."
    if start and not previous:
        fence = _FENCE.get(kit(target).language(language), "")
        extra += (
            "\n\nThe target's own tool wrote this version from the loop facts (correct where "
            "the analysis is, but it may leave loops out or be slow); start from it:\n"
            f"```{fence}\n{start}\n```"
        )
    if previous and improve:
        fence = _FENCE.get(language, "")
        extra += (
            f"\n\nThis version passed verification (same output, no data race):\n```{fence}\n"
            f"{previous}\n```\nWhat the verifier measured:\n{evidence}\n"
            f"Write a faster version (the complete {whole}) with exactly the same results."
        )
    elif previous and evidence:
        fence = _FENCE.get(language, "")
        extra += (
            f"\n\nA previous attempt failed verification:\n```{fence}\n{previous}\n```\n"
            f"What the verifier found:\n{evidence}\nWrite a corrected version (the complete "
            f"{whole})."
        )
    last = messages[-1]
    return [*messages[:-1], last.model_copy(update={"content": (last.content or "") + extra})]
