"""OpenMP annotation: a small model picks options from a schema, the tool writes the directive.

Data-sharing clauses (reduction, private) come from the dependence analysis, never from the
model, so a choice can only make a loop faster or slower, never wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.analysis.errors import AnnotationError
from agents.analysis.model import Loop, Program

CHUNKS: tuple[int | None, ...] = (None, 1, 4, 16, 64, 256)
"""The chunk sizes a choice may name (None: the schedule's default)."""
SCHEDULES = ("static", "dynamic", "guided")


class LoopChoice(BaseModel):
    """How to parallelise one loop: the options a model picks from."""

    model_config = ConfigDict(extra="forbid")

    loop: str
    parallel: bool = True
    schedule: Literal["static", "dynamic", "guided"] = "static"
    chunk: Literal[None, 1, 4, 16, 64, 256] = None
    collapse: int = Field(default=1, ge=1)
    simd: bool = False


def annotatable(program: Program, function: str | None = None) -> list[Loop]:
    """Canonical loops with parallelisable iterations, outermost first, then in source order."""
    loops = [
        loop
        for loop in program.loops
        if loop.canonical
        and loop.dependence.parallelisable
        and (function is None or loop.function == function)
    ]
    return sorted(loops, key=lambda loop: (loop.depth, int(loop.id[1:])))


def choice_schema(loops: Sequence[Loop]) -> dict[str, Any]:
    """JSON schema of `{"choices": [LoopChoice, ...]}` for these loops: one object schema per
    loop (its id as a constant, its own collapse menu), so structured decoding cannot name
    another loop or an impossible collapse."""
    if not loops:
        raise AnnotationError("no loop can be annotated: none is a parallelisable canonical loop")
    return {
        "type": "object",
        "properties": {
            "choices": {
                "type": "array",
                "minItems": 1,
                "maxItems": len(loops),
                "items": {"anyOf": [_loop_schema(loop) for loop in loops]},
            }
        },
        "required": ["choices"],
        "additionalProperties": False,
    }


def _loop_schema(loop: Loop) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "loop": {"type": "string", "const": loop.id},
            "parallel": {"type": "boolean"},
            "schedule": {"type": "string", "enum": list(SCHEDULES)},
            "chunk": {"enum": list(CHUNKS)},
            "collapse": {"type": "integer", "enum": list(range(1, loop.perfect_nest + 1))},
            # g++ rejects `simd` on a range-based loop over a class (its iterator is no integer).
            "simd": {"type": "boolean", "enum": [False] if loop.range_over else [False, True]},
        },
        "required": ["loop", "parallel", "schedule", "chunk", "collapse", "simd"],
        "additionalProperties": False,
    }


def default_choices(loops: Sequence[Loop]) -> list[LoopChoice]:
    """The baseline: every loop of `loops` not nested in another of them, parallel, static."""
    ids = {loop.id for loop in loops}
    return [LoopChoice(loop=loop.id) for loop in loops if not ids & set(loop.ancestors)]


def directive(loop: Loop, choice: LoopChoice) -> str:
    """The `#pragma omp parallel for ...` line for a loop (no indentation, no newline)."""
    words = ["#pragma omp parallel for"]
    if choice.simd:
        words[0] += " simd"
    by_op: dict[str, list[str]] = {}
    for reduction in loop.dependence.reductions:
        by_op.setdefault(reduction.op, []).append(reduction.var)
    words += [f"reduction({op}:{','.join(names)})" for op, names in by_op.items()]
    if loop.dependence.private:
        words.append(f"private({','.join(loop.dependence.private)})")
    chunk = f",{choice.chunk}" if choice.chunk is not None else ""
    words.append(f"schedule({choice.schedule}{chunk})")
    if choice.collapse > 1:
        words.append(f"collapse({choice.collapse})")
    return " ".join(words)


def apply_choices(source: str, program: Program, choices: Sequence[LoopChoice]) -> str:
    """Insert one directive per chosen loop on its own line above the loop, indented like it.

    Raises AnnotationError for an unknown loop, a loop whose iterations are not parallelisable,
    a collapse deeper than the loop's perfect nest, a loop chosen twice or one nested in
    another chosen loop. Choices with `parallel` false add nothing.
    """
    known = {loop.id: loop for loop in program.loops}
    chosen: dict[str, LoopChoice] = {}
    for choice in choices:
        loop = known.get(choice.loop)
        if loop is None:
            raise AnnotationError(f"the program has no loop {choice.loop}")
        if choice.loop in chosen:
            raise AnnotationError(f"loop {choice.loop} is chosen twice")
        if choice.parallel:
            _check(loop, choice)
            chosen[choice.loop] = choice
    for loop_id in chosen:
        nested = [a for a in known[loop_id].ancestors if a in chosen]
        if nested:
            raise AnnotationError(f"loop {loop_id} is nested inside loop {nested[0]}, also chosen")
    lines = source.split("\n")
    # Bottom-up, so that inserting lines leaves the positions still to use unchanged.
    for loop_id in sorted(chosen, key=lambda i: (known[i].line, known[i].column), reverse=True):
        loop = known[loop_id]
        lines[loop.line - 1 : loop.line] = _insert(lines[loop.line - 1], loop, chosen[loop_id])
    return "\n".join(lines)


def _check(loop: Loop, choice: LoopChoice) -> None:
    if not loop.canonical or not loop.dependence.parallelisable:
        raise AnnotationError(
            f"loop {loop.id} (line {loop.line}) cannot run its iterations in parallel: "
            f"{loop.dependence.reason}"
        )
    if choice.simd and loop.range_over is not None:
        raise AnnotationError(
            f"loop {loop.id} is a range-based for loop, which cannot take simd "
            "(its iterator is not an integer)"
        )
    if choice.collapse > loop.perfect_nest:
        raise AnnotationError(
            f"loop {loop.id} has {loop.perfect_nest} perfectly nested parallel loop(s); "
            f"collapse({choice.collapse}) is too deep"
        )


def _insert(text: str, loop: Loop, choice: LoopChoice) -> list[str]:
    """The loop's line with the directive above it; split the line when code precedes the loop."""
    # Columns are bytes in the parser's UTF-8 input.
    raw = text.encode()
    before, rest = raw[: loop.column].decode(), raw[loop.column :].decode()
    indent = before[: len(before) - len(before.lstrip())]
    pragma = indent + directive(loop, choice)
    if before.strip():
        return [before.rstrip(), pragma, indent + rest]
    return [pragma, text]
