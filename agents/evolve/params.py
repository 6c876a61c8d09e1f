"""Parameter mutations: the neighbours of a candidate that cost no model call.

An evolutionary search spends model calls on new ideas; the knobs of an idea it already has
are cheaper to turn here, by rule, and let the verifier's timings choose. For an annotated
candidate (`agents.analysis.annotate` choices) the neighbours are each chosen loop's
schedule kind, chunk, collapse depth, `simd` and `proc_bind`, the enclosing loop instead of
the chosen one ("outer": the fix for a parallelised inner loop) or the loops nested in it
("inner"), and crossovers of two annotated parents. Every such value comes from the loop's
own menu (`_loop_schema`, the one the model picks from), so the menus cannot drift apart, and
every neighbour is written by `apply_choices`, which rejects what a loop cannot take. For a
program a model rewrote there are no choices to vary, so the neighbours edit the code: the
`schedule` and `proc_bind` clauses and `simd` of its `omp for` directives (OpenMP), or the
constant its kernels' launches take their block size from (CUDA).

`simd` is offered only where the dependence analysis proves a loop's iterations independent
(its schema offers it, or, for a rewrite, the analysis of the candidate finds the loop under
the directive annotatable and fit for simd): the verifier's ThreadSanitizer sees races between
threads but not dependences between the SIMD lanes of one thread, so a wrong `simd` could pass
every check and still compute garbage on another machine or compiler.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from tree_sitter import Node

from agents.analysis.annotate import (
    CHUNKS,
    SCHEDULES,
    LoopChoice,
    _loop_schema,
    _simd_allowed,
    apply_choices,
)
from agents.analysis.errors import AnalysisError, AnnotationError
from agents.analysis.model import PACKED_CHUNK, Loop, Program
from agents.analysis.parse import declared_name, parse_int, syntax_tree, text
from agents.analysis.program import analyse
from sandbox.spec import Language, Target

BINDINGS: tuple[str | None, ...] = (None, "close", "spread")
"""The `proc_bind` values tried (None: the implementation's default, no clause)."""
BLOCK_SIZES = (64, 128, 256, 512, 1024)
"""CUDA threads per block tried: powers of two (kernels often reduce by halving) up to the
hardware's limit."""


@dataclass(frozen=True)
class Mutation:
    """One neighbour of a candidate."""

    operator: str
    """`schedule`, `chunk`, `collapse`, `simd`, `proc_bind`, `outer`, `inner`, `crossover` or
    `block_size`."""
    label: str
    """What changed, for a person and for the stored lineage (`L3: schedule static -> dynamic`)."""
    source: str
    """The whole mutated program."""
    choices: tuple[LoopChoice, ...] | None = None
    """The new choices, when the parent was annotated."""


def choice_mutations(
    source: str, program: Program, choices: Sequence[LoopChoice]
) -> list[Mutation]:
    """Every single-parameter neighbour of an annotated candidate: `source` is the sequential
    program the choices apply to (`program = analyse(source, language)`). Loops in choice order,
    then the operators in the order of the module docstring, values in menu order; neighbours
    that `apply_choices` rejects or that write the parent's program again are left out.

    Raises AnnotationError when the parent's own choices do not apply."""
    kept = _Kept(apply_choices(source, program, choices))
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
    kept = _Kept(apply_choices(source, program, a), apply_choices(source, program, b))
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


def source_mutations(source: str, language: Language, target: Target) -> list[Mutation]:
    """Neighbours of a program not made by annotation (a model's rewrite), in source order.

    OpenMP: the schedule clause (kinds x chunks) of each `omp for` / `omp parallel for`
    directive, its `proc_bind` (a `parallel for` only) and `simd` (a `parallel for` whose loop
    the analysis proves fit for it). CUDA: each constant a kernel launch takes its block size
    from, set to the other sizes of `BLOCK_SIZES`. MPI (and serial): none, since the number of
    ranks is a parameter of verification, not of the code."""
    if target is Target.OPENMP:
        return _openmp(source, language)
    if target is Target.CUDA:
        return _cuda(source, language)
    return []


class _Kept:
    """Mutations kept so far: each source once, none equal to a parent's."""

    def __init__(self, *parents: str) -> None:
        self.seen = set(parents)
        self.mutations: list[Mutation] = []

    def keep(self, mutation: Mutation | None) -> None:
        if mutation is not None and mutation.source not in self.seen:
            self.seen.add(mutation.source)
            self.mutations.append(mutation)


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
            shown = _schedule(kind, choice.chunk)
            label = f"{name}: schedule {_schedule(choice.schedule, choice.chunk)} -> {shown}"
            yield "schedule", label, changed(schedule=kind)
    for chunk in menu["chunk"]["enum"]:
        if chunk != choice.chunk:
            shown = _schedule(choice.schedule, chunk)
            label = f"{name}: schedule {_schedule(choice.schedule, choice.chunk)} -> {shown}"
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
    outer = next((a for a in map(program.loop, reversed(loop.ancestors)) if _annotatable(a)), None)
    if outer is not None:
        label = f"{name} -> {outer.id}: the enclosing loop (line {outer.line})"
        yield "outer", label, _replaced(program, choices, index, [_moved(choice, outer)])
    inner = [c for c in program.loops if c.parent == loop.id and _annotatable(c)]
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


def _annotatable(loop: Loop) -> bool:
    return loop.canonical and loop.dependence.annotatable


def _nested(program: Program, x: str, y: str) -> bool:
    return x in program.loop(y).ancestors or y in program.loop(x).ancestors


def _schedule(kind: str, chunk: int | None) -> str:
    return kind if chunk is None else f"{kind},{chunk}"


def _on(flag: bool) -> str:
    return "on" if flag else "off"


# --- OpenMP directives a model wrote -------------------------------------------------------

_WORKSHARING = {("parallel", "for"), ("parallel", "for", "simd"), ("for",), ("for", "simd")}
# An ordered loop runs in order, `nowait` loops may rely on two static schedules pairing the
# same iterations with the same threads, and an inscan reduction belongs to a scan directive:
# a different schedule could break any of them.
_UNTOUCHED = frozenset({"ordered", "critical", "atomic", "task", "sections", "nowait"})


@dataclass(frozen=True)
class _Token:
    """A word or clause of a directive: its name, its span in the directive's text and the
    text inside its parentheses (None without them)."""

    name: str
    start: int
    end: int
    args: str | None


@dataclass(frozen=True)
class _Pragma:
    """An `omp for` directive: the span of its text after `#pragma` in the UTF-8 source."""

    row: int
    """0-based line."""
    start: int
    end: int
    text: str
    words: tuple[_Token, ...]
    clauses: tuple[_Token, ...]

    @property
    def simd_free(self) -> bool:
        """A `parallel for` without simd (simd could be added)."""
        return tuple(w.name for w in self.words) == ("parallel", "for")

    def clause(self, name: str) -> _Token | None:
        return next((c for c in self.clauses if c.name == name), None)

    def edited(self, source: bytes, start: int, end: int, new: str) -> str:
        """The source with the directive's text from `start` to `end` replaced by `new`."""
        changed = self.text[:start] + new + self.text[end:]
        return (source[: self.start] + changed.encode() + source[self.end :]).decode()

    def set_clause(self, source: bytes, name: str, value: str | None) -> str:
        """The source with clause `name(value)` set (added at the end when absent), or gone."""
        old = self.clause(name)
        if old is None:
            at = self.clauses[-1].end if self.clauses else self.words[-1].end
            return self.edited(source, at, at, f" {name}({value})")
        if value is None:
            # The separator before it goes too (clauses may be separated by commas).
            start = len(self.text[: old.start].rstrip().removesuffix(",").rstrip())
            return self.edited(source, start, old.end, "")
        return self.edited(source, old.start, old.end, f"{name}({value})")


def _openmp(source: str, language: Language) -> list[Mutation]:
    raw = source.encode()
    found = list(_directives(syntax_tree(source, language).root_node))
    omp_rows = {row for row, _ in found}
    pragmas = [pragma for _, pragma in found if pragma is not None]
    program = None
    if any(pragma.simd_free for pragma in pragmas):
        try:
            program = analyse(source, language)
        except AnalysisError:
            program = None
    kept = _Kept(source)
    for pragma in pragmas:
        line = f"line {pragma.row + 1}"
        schedule = pragma.clause("schedule")
        current = _parsed_schedule(schedule.args if schedule else None)
        was = _schedule(*current) if current else schedule.args if schedule else "none"
        for kind in SCHEDULES:
            for chunk in CHUNKS:
                if (kind, chunk) != current:
                    new = _schedule(kind, chunk)
                    mutated = pragma.set_clause(raw, "schedule", new)
                    kept.keep(Mutation("schedule", f"{line}: schedule {was} -> {new}", mutated))
        if pragma.words[0].name != "parallel":
            continue
        bound = pragma.clause("proc_bind")
        binding = (bound.args or "").strip() if bound else None
        for bind in BINDINGS:
            if bind != binding:
                mutated = pragma.set_clause(raw, "proc_bind", bind)
                label = f"{line}: proc_bind {binding or 'none'} -> {bind or 'none'}"
                kept.keep(Mutation("proc_bind", label, mutated))
        if (
            program is not None
            and pragma.simd_free
            and _simd_fits(program, pragma, source, omp_rows)
        ):
            at = pragma.words[-1].end
            mutated = pragma.edited(raw, at, at, " simd")
            kept.keep(Mutation("simd", f"{line}: parallel for -> parallel for simd", mutated))
    return kept.mutations


def _directives(root: Node) -> Iterator[tuple[int, _Pragma | None]]:
    """Per `#pragma omp` directive, its 0-based first row and, when it is an `omp for` loop
    on one line that this module may edit, the directive (a continued one is not worth the
    risk)."""
    for node in _walk(root):
        directive = node.child_by_field_name("directive")
        argument = node.child_by_field_name("argument")
        if node.type != "preproc_call" or directive is None or argument is None:
            continue
        body = text(argument)
        tokens = _tokens(body)
        if "".join(text(directive).split()) != "#pragma" or body.split()[:1] != ["omp"]:
            continue
        row = argument.start_point.row
        words = tuple(t for t in tokens[1:] if t.name in ("parallel", "for", "simd"))
        clauses = tuple(tokens[1 + len(words) :])
        editable = (
            "\\" not in body
            and argument.end_point.row == row
            and tokens[1 : 1 + len(words)] == list(words)
            and tuple(w.name for w in words) in _WORKSHARING
            and not any(c.name in _UNTOUCHED or "inscan" in (c.args or "") for c in clauses)
        )
        pragma = _Pragma(row, argument.start_byte, argument.end_byte, body, words, clauses)
        yield row, pragma if editable else None


def _tokens(body: str) -> list[_Token]:
    """The words and clauses of a directive's text, up to a comment; empty when something in
    it is neither (the directive is then left alone)."""
    found: list[_Token] = []
    i = 0
    while i < len(body):
        if body[i].isspace() or body[i] == ",":
            i += 1
            continue
        if body.startswith(("//", "/*"), i):
            break
        start = i
        while i < len(body) and (body[i].isalnum() or body[i] == "_"):
            i += 1
        if i == start:
            return []
        name, args = body[start:i], None
        j = i
        while j < len(body) and body[j] == " ":
            j += 1
        if j < len(body) and body[j] == "(":
            depth, k = 0, j
            while k < len(body):
                depth += {"(": 1, ")": -1}.get(body[k], 0)
                k += 1
                if depth == 0:
                    break
            if depth:
                return []
            args, i = body[j + 1 : k - 1], k
        found.append(_Token(name, start, i, args))
    return found


def _parsed_schedule(args: str | None) -> tuple[str, int | None] | None:
    """`static` or `dynamic, 16` as (kind, chunk) when it is one of the menu's; else None."""
    if args is None:
        return None
    kind, _, chunk = (part.strip() for part in args.partition(","))
    size = parse_int(chunk) if chunk else None
    if kind not in SCHEDULES or (chunk and size not in CHUNKS):
        return None
    return kind, size


def _simd_fits(program: Program, pragma: _Pragma, source: str, omp_rows: set[int]) -> bool:
    """Whether the loop under a `parallel for` (on the next non-blank line) may take simd: the
    analysis finds it annotatable and fit for simd, no OpenMP directive inside it (an atomic or
    critical update is no lane-safe reduction), and every reduction the analysis finds named
    in the directive's reduction clauses (else the threads would already race)."""
    lines = source.split("\n")
    row = next((r for r in range(pragma.row + 1, len(lines)) if lines[r].strip()), None)
    here = [loop for loop in program.loops if row is not None and loop.line == row + 1]
    if not here:
        return False
    loop = min(here, key=lambda candidate: candidate.column)
    if not (_annotatable(loop) and _simd_allowed(loop)):
        return False
    if any(loop.line <= r + 1 <= loop.end_line for r in omp_rows):
        return False
    reduced = {
        name.strip().split("[")[0]
        for c in pragma.clauses
        if c.name == "reduction" and c.args
        for name in c.args.partition(":")[2].split(",")
    }
    dep = loop.dependence
    names = [r.var for r in dep.reductions] + [a.var for a in dep.array_reductions]
    return all(name in reduced for name in names)


# --- CUDA launch configurations ------------------------------------------------------------

_INTEGER_TYPES = frozenset({"int", "unsigned", "unsigned int", "long", "size_t"})


def _cuda(source: str, language: Language) -> list[Mutation]:
    raw = source.encode()
    root = syntax_tree(source, language).root_node
    kept = _Kept(source)
    for name in dict.fromkeys(_launch_blocks(source)):
        constant = _constant(root, name)
        if constant is None:
            continue
        node, value = constant
        for size in BLOCK_SIZES:
            if size != value:
                mutated = (raw[: node[0]] + str(size).encode() + raw[node[1] :]).decode()
                label = f"{name}: block size {value} -> {size}"
                kept.keep(Mutation("block_size", label, mutated))
    return kept.mutations


def _constant(root: Node, name: str) -> tuple[tuple[int, int], int] | None:
    """The byte span and value of the integer literal `name` is defined as, when the program
    defines it exactly once (a `#define`, or an integer declaration at file or function scope)
    and never assigns or declares it anywhere else."""
    spans: list[tuple[tuple[int, int], int] | None] = []
    for node in _walk(root):
        if node.type == "preproc_def":
            macro, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if macro is not None and text(macro) == name:
                spans.append(_macro_literal(value))
        elif node.type in ("declaration", "parameter_declaration", "field_declaration"):
            for declarator in node.children_by_field_name("declarator"):
                if declared_name(declarator) == name:
                    spans.append(_declared_literal(node, declarator))
        elif node.type in ("assignment_expression", "update_expression"):
            target = node.child_by_field_name("left") or node.child_by_field_name("argument")
            if target is not None and text(target) == name:
                return None
    return spans[0] if len(spans) == 1 else None


def _macro_literal(value: Node | None) -> tuple[tuple[int, int], int] | None:
    if value is None:
        return None
    body = value.text or b""
    code = body.split(b"//")[0].split(b"/*")[0].strip()
    number = parse_int(code.decode())
    if number is None or not code:
        return None
    start = value.start_byte + body.index(code)
    return (start, start + len(code)), number


def _declared_literal(declaration: Node, declarator: Node) -> tuple[tuple[int, int], int] | None:
    kind = declaration.child_by_field_name("type")
    value = declarator.child_by_field_name("value")
    scope = declaration.parent
    at_scope = scope is not None and (
        scope.type == "translation_unit"
        or (
            scope.type == "compound_statement"
            and scope.parent is not None
            and scope.parent.type == "function_definition"
        )
    )
    if (
        declaration.type != "declaration"
        or not at_scope
        or kind is None
        or " ".join(text(kind).split()) not in _INTEGER_TYPES
        or value is None
        or value.type != "number_literal"
    ):
        return None
    number = parse_int(text(value))
    return None if number is None else ((value.start_byte, value.end_byte), number)


def _walk(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def _launch_blocks(source: str) -> Iterator[str]:
    """The names kernel launches (`k<<<grid, BLOCK, ...>>>`) take their block size from, in
    source order; a literal or an expression is skipped (a literal may also be spelled out in
    the grid's arithmetic, which a change would have to find)."""
    tokens = list(_lex(source))
    for i, token in enumerate(tokens):
        if token != "<<<":
            continue
        depth = 0
        args: list[list[str]] = []
        current: list[str] = []
        for inner in tokens[i + 1 :]:
            if inner == ">>>" and depth == 0:
                args.append(current)
                break
            depth += (inner in ("(", "[", "{")) - (inner in (")", "]", "}"))
            if inner == "," and depth == 0:
                args.append(current)
                current = []
            else:
                current.append(inner)
        else:
            continue  # no `>>>`: not a launch this lexer understands
        if len(args) >= 2 and len(args[1]) == 1 and args[1][0].isidentifier():
            yield args[1][0]


def _lex(source: str) -> Iterator[str]:
    """C tokens enough to find launch configurations: words, `<<<`, `>>>` and single
    characters, with comments, string and character literals and preprocessor lines left out."""
    i, n, line_start = 0, len(source), True
    while i < n:
        ch = source[i]
        if ch == "\n":
            i, line_start = i + 1, True
            continue
        if ch.isspace():
            i += 1
            continue
        if line_start and ch == "#":
            while i < n and (source[i] != "\n" or source[i - 1] == "\\"):
                i += 1
            continue
        line_start = False
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif ch in "\"'":
            i += 1
            while i < n and source[i] != ch:
                i += 2 if source[i] == "\\" else 1
            i += 1
        elif source.startswith(("<<<", ">>>"), i):
            yield source[i : i + 3]
            i += 3
        elif ch.isalnum() or ch == "_":
            start = i
            while i < n and (source[i].isalnum() or source[i] in "_."):
                i += 1
            if source[i - 1] == "R" and source.startswith('"', i):
                end = source.find("(", i)
                close = source.find(")" + source[i + 1 : end] + '"', end)
                i = n if end < 0 or close < 0 else close + end - i + 1
                continue
            yield source[start:i]
        else:
            yield ch
            i += 1
