"""Annotation-choice mutations: the neighbours of an annotated candidate that cost no model call.

An evolutionary search spends model calls on new ideas; the knobs of an idea it already has
are cheaper to turn here, by rule, and let the verifier's timings choose. For an annotated
candidate (`agents.analysis.annotate` choices) the neighbours are each chosen loop's
schedule kind, chunk, collapse depth, `simd` and `proc_bind`, the enclosing loop instead of
the chosen one ("outer": the fix for a parallelised inner loop) or the loops nested in it
("inner"), and crossovers of two annotated parents. Every such value comes from the loop's
own menu (`_loop_schema`, the one the model picks from), so the menus cannot drift apart, and
every neighbour is written by `apply_choices`, which rejects what a loop cannot take (`simd`
only where the dependence analysis proves a loop's iterations independent). A program a model
rewrote has no choices to vary; its neighbours are its target kit's `mutations`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from agents.analysis.annotate import LoopChoice, _loop_schema, apply_choices
from agents.analysis.errors import AnnotationError
from agents.analysis.model import PACKED_CHUNK, Loop, Program
from agents.targets import Kept, Mutation
from agents.targets.openmp import BINDINGS, can_annotate, schedule_text


def choice_mutations(
    source: str, program: Program, choices: Sequence[LoopChoice]
) -> list[Mutation]:
    """Every single-parameter neighbour of an annotated candidate: `source` is the sequential
    program the choices apply to (`program = analyse(source, language)`). Loops in choice order,
    then the operators in the order of the module docstring, values in menu order; neighbours
    that `apply_choices` rejects or that write the parent's program again are left out.

    Raises AnnotationError when the parent's own choices do not apply."""
    kept = Kept(apply_choices(source, program, choices))
    for index, choice in enumerate(choices):
        if choice.parallel:
            for operator, label, changed in _neighbours(program, choices, index):
                kept.keep(_applied(source, program, operator, label, changed))
    return kept.mutations


def crossover(
    source: str, program: Program, a: Sequence[LoopChoice], b: Sequence[LoopChoice]
) -> list[Mutation]:
    """Children of two annotated parents that take, loop by loop, one parent's choice where
    they differ: for each cut of the differing loops (in the parents' order) the first part
    from one parent and the rest from the other, both ways round. None when the parents differ
    in fewer than two loops (a child would be a parent) or choose different loops nested in one
    another (a child could choose a loop and one inside it)."""
    mine = {c.loop: c for c in a if c.parallel}
    theirs = {c.loop: c for c in b if c.parallel}
    if any(_nested(program, x, y) for x in mine for y in theirs):
        return []
    loops = [*mine, *(loop for loop in theirs if loop not in mine)]
    differ = [loop for loop in loops if mine.get(loop) != theirs.get(loop)]
    if len(differ) < 2:
        return []
    kept = Kept(apply_choices(source, program, a), apply_choices(source, program, b))
    parents = {"a": mine, "b": theirs}
    for cut in range(1, len(differ)):
        for first, rest in (("a", "b"), ("b", "a")):
            taken = {loop: first if loop in differ[:cut] else rest for loop in differ}
            child = [
                c for loop in loops if (c := parents[taken.get(loop, "a")].get(loop)) is not None
            ]
            label = "crossover: " + ", ".join(f"{loop} from {p}" for loop, p in taken.items())
            kept.keep(_applied(source, program, "crossover", label, child))
    return kept.mutations


def _applied(
    source: str, program: Program, operator: str, label: str, choices: Sequence[LoopChoice]
) -> Mutation | None:
    """The mutation the choices write, or None when `apply_choices` rejects them."""
    try:
        mutated = apply_choices(source, program, choices)
    except AnnotationError:
        return None
    return Mutation(operator, label, mutated, tuple(choices))


_Neighbour = tuple[str, str, list[LoopChoice]]


def _neighbours(
    program: Program, choices: Sequence[LoopChoice], index: int
) -> Iterator[_Neighbour]:
    choice = choices[index]
    loop = program.loop(choice.loop)
    menu = _loop_schema(loop)["properties"]
    name = loop.id

    def changed(**update: Any) -> list[LoopChoice]:
        new = LoopChoice.model_validate({**choice.model_dump(), **update})
        return _replaced(program, choices, index, [new])

    for kind in menu["schedule"]["enum"]:
        if kind != choice.schedule:
            shown = schedule_text(kind, choice.chunk)
            label = f"{name}: schedule {schedule_text(choice.schedule, choice.chunk)} -> {shown}"
            yield "schedule", label, changed(schedule=kind)
    for chunk in menu["chunk"]["enum"]:
        if chunk != choice.chunk:
            shown = schedule_text(choice.schedule, chunk)
            label = f"{name}: schedule {schedule_text(choice.schedule, choice.chunk)} -> {shown}"
            yield "chunk", label, changed(chunk=chunk)
    for depth in menu["collapse"]["enum"]:
        if depth != choice.collapse:
            yield (
                "collapse",
                f"{name}: collapse {choice.collapse} -> {depth}",
                changed(collapse=depth),
            )
    if True in menu["simd"]["enum"]:
        label = f"{name}: simd {_on(choice.simd)} -> {_on(not choice.simd)}"
        yield "simd", label, changed(simd=not choice.simd)
    for bind in BINDINGS:
        if bind != choice.proc_bind:
            label = f"{name}: proc_bind {choice.proc_bind or 'none'} -> {bind or 'none'}"
            yield "proc_bind", label, changed(proc_bind=bind)
    outer = next((a for a in map(program.loop, reversed(loop.ancestors)) if can_annotate(a)), None)
    if outer is not None:
        label = f"{name} -> {outer.id}: the enclosing loop (line {outer.line})"
        yield "outer", label, _replaced(program, choices, index, [_moved(choice, outer)])
    inner = [c for c in program.loops if c.parent == loop.id and can_annotate(c)]
    for child in inner:
        label = f"{name} -> {child.id}: a loop nested in it (line {child.line})"
        yield "inner", label, _replaced(program, choices, index, [_moved(choice, child)])
    if len(inner) > 1:
        label = f"{name} -> {', '.join(c.id for c in inner)}: the loops nested in it"
        moved = [_moved(choice, child) for child in inner]
        yield "inner", label, _replaced(program, choices, index, moved)


def _replaced(
    program: Program, choices: Sequence[LoopChoice], index: int, new: list[LoopChoice]
) -> list[LoopChoice]:
    """The choices with the one at `index` replaced by `new`, less any other choice of one of
    the new loops or of a loop nested in one (they would be chosen twice or inside another)."""
    ids = {c.loop for c in new}
    out: list[LoopChoice] = []
    for i, c in enumerate(choices):
        if i == index:
            out += new
        elif c.loop not in ids and not ids & set(program.loop(c.loop).ancestors):
            out.append(c)
    return out


def _moved(choice: LoopChoice, loop: Loop) -> LoopChoice:
    """The choice for another loop: its parameters where that loop's menu has them (collapse
    aside, which counts the old loop's nest), else that loop's default."""
    menu = _loop_schema(loop)["properties"]
    fits = all(getattr(choice, key) in menu[key]["enum"] for key in ("schedule", "chunk", "simd"))
    if fits:
        return choice.model_copy(update={"loop": loop.id, "collapse": 1})
    packed = PACKED_CHUNK if loop.dependence.packed else None
    return LoopChoice(loop=loop.id, chunk=packed, proc_bind=choice.proc_bind)


def _nested(program: Program, x: str, y: str) -> bool:
    return x in program.loop(y).ancestors or y in program.loop(x).ancestors


def _on(flag: bool) -> str:
    return "on" if flag else "off"
