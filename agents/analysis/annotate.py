"""OpenMP annotation: a small model picks options from a schema, the tool writes the directive.

Data-sharing clauses (reduction, private) come from the dependence analysis, never from the
model, so a choice can only make a loop faster or slower, never wrong.

A histogram over a `std::array` (`bins[k]++`) needs one rewrite besides the directive: OpenMP
reduces arrays and pointers, not classes, so the loop counts through a pointer to the array's
data, declared with the directive in a block of its own:

    {
    size_t *bins_data = bins.data();
    #pragma omp parallel for reduction(+:bins_data[:256]) schedule(static)
    for (auto const& pixel : image) { bins_data[pixel]++; }
    }

A histogram into a `std::vector` gets an `omp atomic` above each update instead (see
`ArrayReduction.atomic`), and an argmin (`Dependence.best_updates`) becomes a parallel region
whose threads keep their own best and merge them in thread order (`_best_so_far`).

A first-match search (a loop whose only dependence is its early exit, see
`Dependence.first_match`) is rewritten too: every exit becomes "note this index, next
iteration", a `min` reduction keeps the first index noted, and that one iteration runs again
alone after the loop, where it takes its exit (`return`, or `break` out of a `do ... while (0)`):

    {
    size_t first_i = std::numeric_limits<size_t>::max();
    #pragma omp parallel for reduction(min:first_i) schedule(static)
    for (size_t i = 0; i < x.size(); ++i) {
        if (x[i] % 2 == 0) { if (i < first_i) first_i = i; continue; }
    }
    if (first_i != std::numeric_limits<size_t>::max()) {
    size_t i = first_i;
    do {
        if (x[i] % 2 == 0) return i;
    } while (0);
    }
    }

A scan (`Dependence.scan`: a running value such as `acc += x[i]; y[i] = acc;`) becomes a
two-pass blocked scan in one parallel region (`_blocked_scan`): each thread totals its static
block with the statements that update the value, then runs its block again from the totals of
the blocks before it. OpenMP's own `omp scan` directive does the same, but measured on ParEval's
running minimum GCC's version ran 4-7x slower than the sequential loop.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from tree_sitter import Node

from agents.analysis.accesses import exit_block
from agents.analysis.errors import AnnotationError
from agents.analysis.model import PACKED_CHUNK, ArrayReduction, Loop, Program
from agents.analysis.parse import body_statements, cut, syntax_tree, text
from agents.analysis.purity import is_pure
from agents.analysis.reductions import (
    counting_only,
    match_best_update,
    match_pack,
    match_recurrence,
    match_reduction,
    previous_of,
)
from sandbox.spec import Language

CHUNKS: tuple[int | None, ...] = (None, 1, 4, 16, 64, 256)
"""The chunk sizes a choice may name (None: the schedule's default)."""
SCHEDULES = ("static", "dynamic", "guided")


class LoopChoice(BaseModel):
    """How to parallelise one loop: the options a model picks from."""

    model_config = ConfigDict(extra="forbid")

    loop: str
    parallel: bool = True
    schedule: Literal["static", "dynamic", "guided"] = "static"
    chunk: Literal[None, 1, 4, 16, 64, 256, 512] = None
    """512 (`PACKED_CHUNK`) only for, and then required by, loops writing a std::vector<bool>."""
    collapse: int = Field(default=1, ge=1)
    simd: bool = False
    proc_bind: Literal[None, "close", "spread"] = Field(
        default=None, exclude_if=lambda value: value is None
    )
    """Where the threads run: set only by evolution, never offered to the model (no schema
    entry); left out of a dump when unset, so a model's choices still match its schema."""


def annotatable(
    program: Program, function: str | None = None, *, reassociate: bool = True
) -> list[Loop]:
    """Canonical loops with parallelisable iterations (or first-match searches and blocked
    scans), outermost first, then in source order.

    `reassociate`: whether the task compares outputs within a tolerance (a non-zero `rtol` or
    `atol`). A floating-point sum or product reduced by threads adds in another order and may
    differ in the last digits, so without a tolerance a loop with such a reduction is left out:
    offering it would only make candidates the comparison must refuse."""
    loops = [
        loop
        for loop in program.loops
        if loop.canonical
        and loop.dependence.annotatable
        and (function is None or loop.function == function)
        and (reassociate or not any(r.reassociates for r in loop.dependence.reductions))
        and not (loop.counter_kept and _needs_region(loop))
        and not _NARROW_COUNTER.search(loop.declared_type or loop.counter_type or "")
        and loop.directive is None
        and loop.openmp_form is None
    ]
    return sorted(loops, key=lambda loop: (loop.depth, int(loop.id[1:])))


_NARROW_COUNTER = re.compile(
    r"\b(?:char|short|bool|_Bool|u?int(?:_least|_fast)?(?:8|16)_t|float|double|enum)\b"
)
"""A counter narrower than `int`: GCC's OpenMP runs no iteration of `for (signed char c =
-100; c < 100; c++)` (its count, 200, past the counter's type), so such loops get no
directive; nor does a floating one (OpenMP takes integers and pointers only: "invalid type
for iteration variable") or an enumeration (GCC 12 stopped with an internal error)."""


def _needs_region(loop: Loop) -> bool:
    """Whether the loop is rewritten into a region of its own (a search, a best, a scan, a
    histogram through a pointer) rather than given a directive: such a rewrite leaves no
    counter's end, so a loop whose counter is read after it is not offered there."""
    dep = loop.dependence
    return dep.first_match or bool(dep.best_updates) or dep.scan is not None or _rewritten(loop)


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
    fixed, packed = _static_blocks(loop), bool(loop.dependence.packed)
    schedules = (
        ["static"]
        if fixed or loop.static_only
        else ["static", "dynamic"]
        if packed
        else list(SCHEDULES)
    )
    chunks = [None] if fixed else [PACKED_CHUNK] if packed else list(CHUNKS)
    nest = 1 if packed else loop.perfect_nest
    return {
        "type": "object",
        "properties": {
            "loop": {"type": "string", "const": loop.id},
            "parallel": {"type": "boolean"},
            "schedule": {"type": "string", "enum": schedules},
            "chunk": {"enum": chunks},
            "collapse": {"type": "integer", "enum": list(range(1, nest + 1))},
            "simd": {"type": "boolean", "enum": [False, True] if _simd_allowed(loop) else [False]},
        },
        "required": ["loop", "parallel", "schedule", "chunk", "collapse", "simd"],
        "additionalProperties": False,
    }


def _static_blocks(loop: Loop) -> bool:
    """Whether the rewrite needs each thread to run one block of iterations in thread order:
    a best update merges the threads' bests in that order, a blocked scan runs the same blocks
    in both of its passes."""
    return bool(loop.dependence.best_updates) or loop.dependence.scan is not None


def _simd_allowed(loop: Loop) -> bool:
    """Whether lanes may run the loop's iterations at once: only where the verdict proves that
    no iteration depends on another.

    simd runs several iterations in lock step, interleaving their statements, so every
    dependence between iterations (not only one a thread schedule would expose) breaks it:
    - what a verdict assumes is either checked at run time (a multiversioned loop runs its
      annotated version only when the ranges it reaches do not overlap, which is what lanes
      need too) or a floating-point reduction's reassociation, which lanes do as threads do
      and the task's tolerance accepts for both; nothing is taken on faith;
    - an atomic update (a histogram) orders lanes through memory: simd does not promise it
      runs per lane, and a lane-wise read-modify-write of one element loses updates;
    - a call other than a side-effect-free library function (`sqrt`, `x.size()`): a program's
      own function was judged for threads, not lanes, and keeping simd to functions known to
      vectorise or serialise safely keeps the promise small;
    - g++ rejects `simd` on a range-based loop over a class (its iterator is no integer); a
      search's `continue` leaves a lane's iteration, which simd loops do not promise to allow;
      a best update's ties and a scan's running value need the iterations in order; lanes
      writing bits of one std::vector<bool> word would each write the whole word.
    """
    dep = loop.dependence
    return (
        dep.kind in ("independent", "reduction")
        and not any(a.atomic for a in dep.array_reductions)
        and all(is_pure(call) for call in loop.calls)
        and loop.range_over is None
        and not dep.first_match
        and not dep.packed
        and not _static_blocks(loop)
    )


def default_choices(loops: Sequence[Loop]) -> list[LoopChoice]:
    """The baseline: every loop of `loops` not nested in another of them, parallel, static;
    loops whose histograms need atomic updates only when there is nothing else to choose
    (an atomic update costs several plain ones: the model may still choose them)."""
    plain = [loop for loop in loops if not any(a.atomic for a in loop.dependence.array_reductions)]
    loops = plain or loops
    ids = {loop.id for loop in loops}
    return [
        LoopChoice(loop=loop.id, chunk=PACKED_CHUNK if loop.dependence.packed else None)
        for loop in loops
        if not ids & set(loop.ancestors)
    ]


def directive(
    loop: Loop, choice: LoopChoice, aliases: dict[str, str] | None = None, first: str = ""
) -> str:
    """The `#pragma omp parallel for ...` line for a loop (no indentation, no newline);
    `aliases` names the pointers that `std::array` histograms are counted through, `first` the
    variable a first-match search keeps its first index in."""
    words = ["#pragma omp parallel for"]
    if choice.simd:
        words[0] += " simd"
    by_op: dict[str, list[str]] = {}
    for reduction in loop.dependence.reductions:
        by_op.setdefault(reduction.op, []).append(reduction.var)
    for array in loop.dependence.array_reductions:
        if array.atomic:
            continue  # updated atomically in place (see `ArrayReduction.atomic`)
        name = (aliases or {}).get(array.var, array.var)
        # A C array is reduced whole: clang 14 privatises no section `h[:n]` of a file-scope
        # array (its threads then race on the shared one), while `reduction(+:h)` is correct
        # under it and GCC alike. Pointers to a `std::array`'s data need the section.
        whole = not array.container and name == array.var
        by_op.setdefault(array.op, []).append(name if whole else f"{name}[:{array.length}]")
    if first:
        by_op.setdefault("min", []).append(first)
    words += [f"reduction({op}:{','.join(names)})" for op, names in by_op.items()]
    words += loop.dependence.sharing_clauses
    if loop.counter_kept and loop.var:
        # the counter declared before the loop, read after it: its sequential end (OpenMP's
        # `lastprivate` of a loop's own variable leaves what the sequential loop leaves)
        words.append(f"lastprivate({loop.var})")
    chunk = f",{choice.chunk}" if choice.chunk is not None else ""
    words.append(f"schedule({choice.schedule}{chunk})")
    if choice.collapse > 1:
        words.append(f"collapse({choice.collapse})")
    words += _binding(choice)
    return " ".join(words)


def _binding(choice: LoopChoice) -> list[str]:
    return [f"proc_bind({choice.proc_bind})"] if choice.proc_bind else []


def _worksharing(loop: Loop, choice: LoopChoice) -> str:
    """The directive as an `omp for` inside a parallel region the rewrite opens itself: the
    binding belongs to that region's `omp parallel` (an `omp for` cannot take proc_bind)."""
    unbound = choice.model_copy(update={"proc_bind": None})
    return directive(loop, unbound).replace("#pragma omp parallel for", "#pragma omp for", 1)


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
    spans = _loop_spans(source, program, [known[i] for i in chosen])
    names = _identifiers(source, program) if spans else set()
    lines = source.split("\n")
    # Bottom-up, so that inserting lines leaves the positions still to use unchanged.
    for loop_id in sorted(chosen, key=lambda i: (known[i].line, known[i].column), reverse=True):
        loop = known[loop_id]
        original = lines
        if loop.dependence.first_match:
            lines = _first_match(
                lines, loop, chosen[loop_id], spans[loop_id], names, program.language
            )
        elif loop.dependence.best_updates:
            lines = _best_so_far(
                lines, loop, chosen[loop_id], spans[loop_id], names, program.language
            )
        elif loop.dependence.scan is not None:
            cpp = program.language is Language.CPP
            lines = _blocked_scan(lines, loop, chosen[loop_id], spans[loop_id], names, cpp)
        elif _rewritten(loop):
            lines = _through_pointers(lines, loop, chosen[loop_id], spans[loop_id], names)
        else:
            lines = [*lines]
            lines[loop.line - 1 : loop.line] = _insert(lines[loop.line - 1], loop, chosen[loop_id])
        if loop.dependence.overlap_checks:
            lines = _multiversioned(original, lines, loop, spans[loop_id])
    scans = [scan for i in chosen if (scan := known[i].dependence.scan) is not None]
    cpp = program.language is Language.CPP
    headers = {
        "limits": cpp
        and (
            any(known[i].dependence.first_match for i in chosen)
            or any(scan.op in ("min", "max") for scan in scans)
        ),
        "omp.h": any(known[i].dependence.best_updates for i in chosen) or bool(scans),
        "vector": cpp and bool(scans),
        "type_traits": cpp and any(scan.recurrence for scan in scans),
    }
    for header, needed in headers.items():
        if needed and not any(row.replace(" ", "") == f"#include<{header}>" for row in lines):
            lines.insert(0, f"#include <{header}>")
    return "\n".join(lines)


def _rewritten(loop: Loop) -> bool:
    """Whether the loop's histograms need more than a directive (a pointer or atomic updates)."""
    return any(a.container or a.atomic for a in loop.dependence.array_reductions)


_Span = tuple[int, list[tuple[int, str]]]


def _loop_spans(source: str, program: Program, loops: Sequence[Loop]) -> dict[str, _Span]:
    """For the loops a directive alone cannot parallelise, the loop's length in bytes and
    (offset from its start, text) of the nodes the rewrite replaces, from a parse of `source`:
    for histograms every identifier naming a `std::array` one and every update of one that
    becomes atomic; for first-match searches the body, then every exit statement; for best
    updates what `_best_uses` marks."""
    wanted = {
        (loop.line - 1, loop.column): loop
        for loop in loops
        if loop.dependence.first_match
        or loop.dependence.best_updates
        or loop.dependence.scan is not None
        or loop.dependence.overlap_checks
        or _rewritten(loop)
    }
    if not wanted:
        return {}
    spans: dict[str, _Span] = {}
    stack = [syntax_tree(source, program.language).root_node]
    while stack:
        node = stack.pop()
        loop = wanted.get(node.start_point)
        if loop is not None and node.type in ("for_statement", "for_range_loop"):
            if loop.dependence.first_match:
                marked = [(n, text(n)) for n in _exits(node)]
            elif loop.dependence.best_updates:
                marked = _best_uses(node, loop)
            elif loop.dependence.scan is not None:
                marked = _scan_phases(node, loop)
            elif not _rewritten(loop):
                marked = []
            else:
                arrays = {a.var: a for a in loop.dependence.array_reductions}
                marked = [
                    (n, text(n)) for n in _walk(node) if _names(n, arrays) or _updates(n, arrays)
                ]
            offsets = [(n.start_byte - node.start_byte, shown) for n, shown in marked]
            spans[loop.id] = (node.end_byte - node.start_byte, offsets)
        stack.extend(node.children)
    missing = [loop.id for loop in wanted.values() if loop.id not in spans]
    if missing:
        raise AnnotationError(f"cannot find loop {missing[0]} in the source it was analysed from")
    return spans


def _walk(node: Node) -> list[Node]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(current.children)
    return found


def _exits(loop: Node) -> list[Node]:
    """The loop's body and the statements in it that leave the loop: every `return` (outside
    lambdas) and every `break` outside inner loops and switches, or the block that runs
    straight into one (`{ found = i; break; }`: its writes happen only when the loop ends)."""
    body = loop.child_by_field_name("body")
    if body is None:
        raise AnnotationError(f"the loop at line {loop.start_point.row + 1} has no body")
    found = [body]

    def visit(node: Node, breakable: bool) -> None:
        if node.type == "lambda_expression":
            return
        if (
            node.type == "return_statement"
            or (node.type == "break_statement" and breakable)
            or exit_block(node, breakable)
        ):
            found.append(node)
            return
        inner = node.type in ("for_statement", "for_range_loop", "while_statement", "do_statement")
        for child in node.children:
            visit(child, breakable and not (inner or node.type == "switch_statement"))

    visit(body, True)
    return found


def _first_match(
    lines: list[str],
    loop: Loop,
    choice: LoopChoice,
    span: _Span,
    names: set[str],
    language: Language,
) -> list[str]:
    """Replace a search loop by a block: the loop with each exit turned into "note the index,
    go on", a min reduction over the noted index, then the first noted iteration run again.

    "None found" is a value no iteration notes: the counter type's largest in C++; in C, which
    has no `std::numeric_limits` for a type named in the source, the loop's bound (the loop
    counts up with `<`, so every index it notes is below it, and a canonical loop's bound is
    the same before and after it)."""
    var, kind = loop.var, loop.counter_type
    if var is None or kind is None or (language is Language.C and loop.upper is None):
        raise AnnotationError(f"loop {loop.id} does not count a declared variable up to a bound")
    first = _fresh(f"first_{var}", names)
    at = _locate(lines, loop, span)
    (body_at, _), exits = span[1][0], span[1][1:]
    body = at.loop[body_at:]
    searched = bytearray(at.loop)
    noted = f"{{ if ({var} < {first}) {first} = {var}; continue; }}".encode()
    for offset, statement in sorted(exits, reverse=True):
        searched[offset : offset + len(statement.encode())] = noted
    indent = at.indent
    none = (
        f"std::numeric_limits<{kind}>::max()" if language is not Language.C else f"({loop.upper})"
    )
    block = [
        "{",
        f"{indent}{kind} {first} = {none};",
        indent + directive(loop, choice, first=first),
        indent + searched.decode(),
        f"{indent}if ({first} != {none}) {{",
        f"{indent}{kind} {var} = {first};",
        f"{indent}do {body.decode()} while (0);",
        f"{indent}}}",
        f"{indent}}}",
    ]
    return at.replaced("\n".join(block))


def _best_uses(loop: Node, info: Loop) -> list[tuple[Node, str]]:
    """(node, text) of every identifier naming a best update's scalar, and (the `{` of each
    best update's block, "{" + the update's best): where the thread notes that it found one."""
    kept = {u.best for u in info.dependence.best_updates}
    names = {name for u in info.dependence.best_updates for name in (u.best, *u.others)}
    found = [(n, text(n)) for n in _walk(loop) if n.type == "identifier" and text(n) in names]
    for node in _walk(loop):
        matched = match_best_update(node) if node.type == "if_statement" else None
        if matched is not None and matched[0].best in kept:
            found.append((matched[2].children[0], "{" + matched[0].best))
    return found


def _best_so_far(
    lines: list[str],
    loop: Loop,
    choice: LoopChoice,
    span: _Span,
    names: set[str],
    language: Language,
) -> list[str]:
    """Replace an argmin loop by a parallel region: each thread runs its static block of the
    loop on its own (firstprivate) copies of the best update's scalars, then the threads' bests
    are merged in thread order (an `ordered` loop with one iteration per thread) with the
    loop's own test.

    Exact, ties included: a thread that found nothing merges nothing, and a block's best beats
    the best of the blocks before it exactly when the sequential loop would have replaced that
    best by it (its scan, started from the initial value, found the same first or last best).

    The copies are declared with the scalars' own types: `auto` in C++, `__typeof__` in C
    (where `auto` is a storage class and the copy would silently become an `int`), and the
    flags as `_Bool` set to 0 and 1 in C, which needs no header.
    """
    updates = loop.dependence.best_updates
    mine = {n: _fresh(f"my_{n}", names) for u in updates for n in (u.best, *u.others)}
    found = {u.best: _fresh(f"my_{u.best}_found", names) for u in updates}
    thread = _fresh("thread", names)
    cpp = language is not Language.C
    yes, no = ("true", "false") if cpp else ("1", "0")
    at = _locate(lines, loop, span)
    body = bytearray(at.loop)
    for offset, name in sorted(span[1], reverse=True):
        if name.startswith("{"):
            body[offset : offset + 1] = f"{{ {found[name[1:]]} = {yes};".encode()
        else:
            body[offset : offset + len(name.encode())] = mine[name].encode()
    indent = at.indent
    inner = _worksharing(loop, choice)
    merges = []
    for u in updates:
        test = u.merge.format(mine=mine[u.best])
        kept = "; ".join(f"{n} = {mine[n]}" for n in (u.best, *u.others))
        merges.append(f"{indent}if ({found[u.best]} && {test}) {{ {kept}; }}")
    # Each thread copies the starting values at the region's start (firstprivate): reading
    # the shared scalars there would race with a thread that already merges into them.
    copies = ", ".join([*mine.values(), *found.values()])
    block = [
        "{",
        *(f"{indent}{'auto' if cpp else f'__typeof__({n})'} {mine[n]} = {n};" for n in mine),
        *(f"{indent}{'bool' if cpp else '_Bool'} {flag} = {no};" for flag in found.values()),
        " ".join([f"{indent}#pragma omp parallel firstprivate({copies})", *_binding(choice)]),
        f"{indent}{{",
        f"{indent}{inner} nowait",
        indent + body.decode(),
        f"{indent}// Each thread's best, merged in thread order as the loop would have kept it.",
        f"{indent}#pragma omp for schedule(static) ordered",
        f"{indent}for (int {thread} = 0; {thread} < omp_get_num_threads(); ++{thread}) {{",
        f"{indent}#pragma omp ordered",
        f"{indent}{{",
        *merges,
        f"{indent}}}",
        f"{indent}}}",
        f"{indent}}}",
        f"{indent}}}",
    ]
    return at.replaced("\n".join(block))


def _scan_phases(loop: Node, info: Loop) -> list[tuple[Node, str]]:
    """(node, text) of the loop's block and of its first statement of the scan phase; for a
    recurrence, of the recurrence's statement, then of the element it writes and of its term."""
    scan = info.dependence.scan
    assert scan is not None and info.var is not None
    body = loop.child_by_field_name("body")
    statements = body_statements(body)
    if (
        body is None
        or len(statements) < scan.split
        or (len(statements) == scan.split and not scan.exclusive)
    ):
        raise AnnotationError(f"the loop at line {loop.start_point.row + 1} is not the scan found")
    if scan.exclusive:
        # an exclusive scan: the block, then each statement the first pass leaves out (those
        # reading the value before the update, and the scan phase after it)
        left_out = [*(statements[k] for k in scan.exclusive), *statements[scan.split :]]
        return [(body, text(body)), *((n, text(n)) for n in left_out)]
    marked = [(body, text(body)), (statements[scan.split], text(statements[scan.split]))]
    if scan.recurrence:
        matched = match_recurrence(statements[scan.split], info.var)
        if matched is None or (matched.first is not None) != scan.first:
            raise AnnotationError(f"the loop at line {loop.start_point.row + 1} is no recurrence")
        marked += [(matched.element, text(matched.element)), (matched.term, text(matched.term))]
        if matched.first is not None:
            condition, _, value = matched.first
            marked += [(condition, text(condition)), (value, text(value))]
    elif scan.packs:
        split = statements[scan.split]
        pack = match_pack(split, scan.var)
        if pack is None or pack.arrays != scan.packs:
            raise AnnotationError(f"the loop at line {loop.start_point.row + 1} is no compaction")
        marked.append((split, counting_only(split, pack)))
    return marked


_IDENTITY = {
    "+": "({t})0",
    "*": "({t})1",
    "min": "std::numeric_limits<{t}>::has_infinity ? std::numeric_limits<{t}>::infinity() "
    ": std::numeric_limits<{t}>::max()",
    "max": "std::numeric_limits<{t}>::has_infinity ? -std::numeric_limits<{t}>::infinity() "
    ": std::numeric_limits<{t}>::lowest()",
}
"""What a block's total starts from, per operator, for a running value of type `{t}`."""


def _blocked_scan(
    lines: list[str], loop: Loop, choice: LoopChoice, span: _Span, names: set[str], cpp: bool
) -> list[str]:
    """Replace a scan loop by a two-pass blocked scan in one parallel region. Pass 1: each
    thread runs the input phase alone over its static block, from the operator's identity,
    which gives the block's total. Pass 2: each thread starts from the value before the loop
    combined with the totals of the blocks before its own, and runs the whole body over the
    same block (the same static schedule over the same iterations gives each thread the same
    block). The last thread's value is the loop's final one.

    Exact for `min` and `max` and for integers; floating-point sums are reassociated, as any
    parallel reduction does. Only for bodies whose input phase writes nothing but the running
    value and its own locals (`dependence._scan`), since that phase runs twice. In C the types
    come from `__typeof__` (GCC and Clang) and the block totals live in a variable-length
    array."""
    typeof = "decltype" if cpp else "__typeof__"
    scan = loop.dependence.scan
    assert scan is not None
    at = _locate(lines, loop, span)
    indent = at.indent
    (block_at, _), (split_at, split) = span[1][:2]
    before = at.loop[:split_at].decode()
    after = at.loop[split_at + len(split.encode()) :].decode()
    if block_at == split_at:  # a body of one statement, without braces: the rewrite adds them
        before, after = before + "{ ", " }" + after
    prelude = []
    if scan.recurrence:
        # The previous element, carried in a scalar: `a[i] = a[i - 1] + e` becomes
        # `run = run + (e); a[i] = run;`, which starts from a[lower - 1] when the loop runs;
        # with a first iteration of its own, `run = run + (i == lower ? e0 : e)` from the
        # identity.
        (_, element), (_, term) = span[1][2:4]
        acc = _fresh(f"{scan.var}_run", names)
        kind = f"{typeof}({acc})"
        declared = (
            f"std::decay_t<decltype({scan.var}[0])> {acc}{{}};"
            if cpp
            else f"__typeof__({scan.var}[0]) {acc} = 0;"
        )
        if scan.first:
            (_, condition), (_, value) = span[1][4:6]
            update = f"{acc} = {acc} {scan.op} ({condition} ? ({value}) : ({term}));"
            prelude = [declared, f"{acc} = {_IDENTITY[scan.op].format(t=kind)};"]
        else:
            update = f"{acc} = {acc} {scan.op} ({term});"
            prelude = [
                declared,
                f"if (({loop.lower}) {loop.test} ({loop.upper})) {acc} = {previous_of(scan.var, loop.lower or '', scan.offset)};",
            ]
        whole = f"{before}{update} {element} = {acc};{after}"
        totalling = before + update + "\n" + indent + "}"
    elif scan.exclusive:
        # An exclusive scan (`e[i] = ex; ex += x[i];`): the first pass runs the body without
        # the statements that read the running value.
        acc = scan.var
        whole = at.loop.decode()
        totalling = cut(at.loop, span[1][1:]).decode()
    elif scan.packs:
        # A compaction: the first pass runs the statement that counts and stores with its
        # stores removed (`if (c) y[k++] = e;` counts as `if (c) k++;`).
        acc = scan.var
        whole = at.loop.decode()
        counting = span[1][2][1]
        totalling = before + counting + ("\n" + indent + "}" if block_at != split_at else " }")
    else:
        acc = scan.var
        whole = at.loop.decode()
        totalling = before.rstrip() + "\n" + indent + "}"
    kind = f"{typeof}({acc})"
    start, last = _fresh(f"{acc}_start", names), _fresh(f"{acc}_last", names)
    totals, block = _fresh(f"{acc}_blocks", names), _fresh("block", names)
    identity = _IDENTITY[scan.op].format(t=kind)
    if scan.op in ("min", "max"):
        test = "<" if scan.op == "min" else ">"
        combine = f"if ({totals}[{block}] {test} {acc}) {acc} = {totals}[{block}];"
    else:
        combine = f"{acc} = {acc} {scan.op} {totals}[{block}];"
    inner = _worksharing(loop, choice)
    # The last thread ends with the loop's final value, which the code after the loop may read
    # (not for a recurrence: its scalar is the rewrite's own, the array holds the values).
    keeps = not scan.recurrence
    region = [
        "{",
        *prelude,
        f"{kind} {start} = {acc}" + (f", {last} = {acc};" if keeps else ";"),
        *(
            [f"std::vector<{kind}> {totals};"]
            if cpp
            else [f"{kind} {totals}[omp_get_max_threads()];"]
        ),
        " ".join([f"#pragma omp parallel private({acc})", *_binding(choice)]),
        "{",
        *(
            ["#pragma omp single", f"{totals}.assign(omp_get_num_threads(), {identity});"]
            if cpp
            else []
        ),
        f"// Pass 1: each thread totals its block with the statements that update {acc}.",
        f"{acc} = {identity};",
        "#pragma omp for schedule(static) nowait",
        totalling,
        f"{totals}[omp_get_thread_num()] = {acc};",
        "#pragma omp barrier",
        "// Pass 2: each thread runs its block again from the totals of the blocks before it.",
        f"{acc} = {start};",
        f"for (int {block} = 0; {block} < omp_get_thread_num(); ++{block}) {combine}",
        inner,
        whole,
        *(
            [f"if (omp_get_thread_num() == omp_get_num_threads() - 1) {last} = {acc};"]
            if keeps
            else []
        ),
        "}",
        *([f"{acc} = {last};"] if keeps else []),
        "}",
    ]
    return at.replaced("\n".join([region[0], *(indent + row for row in region[1:])]))


@dataclass(frozen=True)
class _Located:
    """A chosen loop's text in the source as it stands, for a rewrite that replaces it."""

    before: str
    loop: bytes
    """The loop, from its keyword to its end, as the UTF-8 bytes the span's offsets count."""
    after: str
    indent: str
    """The indentation of the loop's first line."""

    def replaced(self, text: str) -> list[str]:
        """The source's lines with the loop replaced by `text`."""
        return (self.before + text + self.after).split("\n")


def _locate(lines: list[str], loop: Loop, span: _Span) -> _Located:
    source = "\n".join(lines).encode()
    start = sum(len(row.encode()) + 1 for row in lines[: loop.line - 1]) + loop.column
    end = start + span[0]
    row = lines[loop.line - 1]
    return _Located(
        before=source[:start].decode(),
        loop=source[start:end],
        after=source[end:].decode(),
        indent=row[: len(row) - len(row.lstrip())],
    )


def _fresh(name: str, names: set[str]) -> str:
    """`name`, or `name_`, `name__`, ...: the first the program does not use yet (now taken)."""
    while name in names:
        name += "_"
    names.add(name)
    return name


def _names(node: Node, arrays: dict[str, ArrayReduction]) -> bool:
    """An identifier naming a `std::array` histogram (counted through a pointer)."""
    array = arrays.get(text(node)) if node.type == "identifier" else None
    return array is not None and array.container and not array.atomic


def _updates(node: Node, arrays: dict[str, ArrayReduction]) -> bool:
    """A statement updating an element of a histogram whose updates become atomic."""
    found = match_reduction(node) if node.type == "expression_statement" else None
    array = arrays.get(found[0]) if found is not None else None
    return array is not None and array.atomic


def _identifiers(source: str, program: Program) -> set[str]:
    return {
        text(n)
        for n in _walk(syntax_tree(source, program.language).root_node)
        if n.type == "identifier"
    }


def _through_pointers(
    lines: list[str], loop: Loop, choice: LoopChoice, span: _Span, names: set[str]
) -> list[str]:
    """Replace the loop by a block that declares a pointer to each `std::array` histogram's
    data, the directive reducing through those pointers, and the loop counting through them;
    each update of a histogram of run-time length gets an `omp atomic` line above it."""
    aliases: dict[str, str] = {}
    declarations = []
    for array in loop.dependence.array_reductions:
        if not array.container or array.atomic:
            continue
        alias = _fresh(f"{array.var}_data", names)
        aliases[array.var] = alias
        declarations.append(f"{array.element} *{alias} = {array.var}.data();")
    at = _locate(lines, loop, span)
    body = bytearray(at.loop)
    for offset, found in sorted(span[1], reverse=True):
        size = len(found.encode())
        if found in aliases:
            body[offset : offset + size] = aliases[found].encode()
            continue
        # An update of an atomic histogram: the pragma on a line of its own, in a block of its
        # own (the statement may be the body of an `if` without braces).
        line_start = body.rfind(b"\n", 0, offset) + 1
        before = body[line_start:offset].decode()
        lead = before[: len(before) - len(before.lstrip())]
        inner = lead + ("    " if before.strip() else "")
        body[offset : offset + size] = (
            f"{{\n{inner}#pragma omp atomic\n{inner}{found}\n{lead}}}".encode()
        )
    indent = at.indent
    if not declarations:
        return at.replaced(directive(loop, choice) + "\n" + indent + body.decode())
    block = [
        "{",
        *(indent + d for d in declarations),
        indent + directive(loop, choice, aliases),
        indent + body.decode(),
        indent + "}",
    ]
    return at.replaced("\n".join(block))


def _multiversioned(
    original: list[str], rewritten: list[str], loop: Loop, span: _Span
) -> list[str]:
    """The rewritten source with the parallel version of the loop (whatever its rewrite) under
    `if (<its overlap checks>)` and the original loop, run sequentially, under `else`."""
    at = _locate(original, loop, span)
    before = at.before.encode()
    line_start = before.rfind(b"\n") + 1
    prefix = before[line_start:].decode()
    lead = prefix.rstrip()
    source = "\n".join(rewritten).encode()
    tail = at.after.encode()
    if not source.endswith(tail) or not source.startswith(before[:line_start]):
        raise AnnotationError(f"cannot multiversion loop {loop.id}: its rewrite moved the code")
    region = source[line_start : len(source) - len(tail)].decode()
    parallel = region[len(lead) :]
    sequential = prefix[len(lead) :] + at.loop.decode()
    indent = at.indent
    condition = " && ".join(f"({check})" for check in loop.dependence.overlap_checks)
    wrapped = (
        f"{lead}\n" if lead else ""
    ) + f"{indent}if ({condition}) {{\n{parallel}\n{indent}}} else {{\n{sequential}\n{indent}}}"
    return (before[:line_start].decode() + wrapped + at.after).split("\n")


def _check(loop: Loop, choice: LoopChoice) -> None:
    if not loop.canonical or not loop.dependence.annotatable:
        raise AnnotationError(
            f"loop {loop.id} (line {loop.line}) cannot run its iterations in parallel: "
            f"{loop.dependence.reason}"
        )
    if loop.openmp_form is not None:
        raise AnnotationError(
            f"loop {loop.id} (line {loop.line}) gets no directive: {loop.openmp_form}"
        )
    if loop.static_only and choice.schedule != "static":
        raise AnnotationError(
            f"loop {loop.id} counts down in an unsigned type narrower than 64 bits: GCC's "
            "OpenMP runs none of its iterations under any schedule but static"
        )
    if loop.directive is not None:
        raise AnnotationError(
            f"loop {loop.id} (line {loop.line}) is already under the program's own directive "
            f"on line {loop.directive}: left as written"
        )
    if _static_blocks(loop) and (choice.schedule != "static" or choice.chunk):
        raise AnnotationError(
            f"loop {loop.id} gives each thread one block of iterations in thread order (a best "
            "update or a scan), which needs schedule(static) without a chunk"
        )
    if loop.dependence.packed and (
        choice.chunk != PACKED_CHUNK or choice.schedule == "guided" or choice.collapse > 1
    ):
        raise AnnotationError(
            f"loop {loop.id} writes the bits of a std::vector<bool> ("
            f"{', '.join(loop.dependence.packed)}): each thread must take chunks of "
            f"{PACKED_CHUNK} iterations (whole words), static or dynamic, without collapse"
        )
    if choice.simd and not _simd_allowed(loop):
        raise AnnotationError(
            f"loop {loop.id} cannot take simd: it updates "
            "atomically or calls a function not known lane-safe, or it is a range-based for "
            "loop, a search, a best update or a scan"
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
