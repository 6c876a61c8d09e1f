"""MPI from loop facts: the loops the dependence analysis proves, run as blocks over ranks.

The program stays replicated: every rank runs all of it, on identical data, and only the chosen
loops are divided. Each rank runs its block of the iterations, then collective calls put every
rank back in the same state, so the code after the loop, including the next chosen loop and
any output, sees what the sequential program would have:

- an array the loop writes at its own element (`a[i]`, `a[i + 1]`) or its own row
  (`m[i * w + j]` for `j` inside the row) is assembled with `MPI_Allgatherv`, each rank sending
  its block in place (only numbers: the generated code checks at compile time that no pointer
  moves between processes);
- a scalar reduction starts from its operator's identity on every rank but rank 0, which keeps
  the value before the loop, and is combined with `MPI_Allreduce` (its datatype chosen by the
  compiler from the variable's own type);
- an array reduction (a histogram) likewise, element by element, with one `MPI_Allreduce`;
- an argmin or argmax keeps its best per rank, marks whether it found one, and the ranks' bests
  are merged in rank order with the loop's own comparison (exact, ties included, as for
  OpenMP in `agents.analysis.annotate`);
- a value the last iteration assigns (`lastprivate`) comes from the rank that ran it, and a
  value the last assigning iteration assigns (`if (...) last = i;`) from the rank whose last
  assignment has the largest iteration (`MPI_MAXLOC`, then `MPI_Bcast`);
- a first-match search notes each rank's first exiting iteration, takes the smallest with a
  `MIN` reduction, and every rank runs that iteration again to take its exit;
- a scan runs twice over each rank's block: the running value's total, every rank's total to
  every rank, then the whole body from the totals of the ranks before it;
- a range-based loop over a container runs over its block of elements;
- a loop counting down by 1 (`for (int i = n - 1; i >= 0; --i)`) whose order matters to
  nothing (no search, scan, best or last value: those stay on every rank) is divided as its
  values from the smallest up, each rank running its block from the top;
- a stencil sweep that the loop around it repeats with only a swap of its two buffers beside
  it exchanges its halo with the neighbouring ranks (`MPI_Sendrecv`, as wide as the furthest
  row the stencil reads) instead of gathering, and both buffers are gathered whole once after
  the loop around (`Sweep`).

Whole programs get `MPI_Init` first thing in `main` and `MPI_Finalize` at exit; ranks other
than 0 write their standard output and error into a buffer nobody reads, and a program that
reads standard input has rank 0 read all of it and every rank read that copy through the C
library's `stdin` (reads of descriptor 0 itself are refused: no copy can reach them). A
function (ParEval's contract: MPI already initialised, every rank holds the inputs, the result
on rank 0) gets the loop code alone.

A function that walks a graph (`agents.analysis.traversal`: components counted, the largest, a
breadth-first distance), whose loops carry the walk's marks from step to step, is run as the
levels of a breadth-first search instead (`distributed_walks`): every rank keeps every
vertex's level, tests the rows of its block of each level's vertices, and the vertices the
ranks found are combined on every rank with one `MPI_Allreduce` (logical or) per level, so
every rank takes the same next level, the same next walk and returns the same result.

A loop gets no mechanical version unless every write it makes is one of those forms (a scatter
or a write through a pointer of unknown reach leaves it to every
rank), nor when it is a method of a class or in a function that a chosen loop calls (some ranks
would enter a collective call that others skip), nor under `SHORT` iterations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from tree_sitter import Node

from agents.analysis.annotate import _IDENTITY as _SCAN_IDENTITY
from agents.analysis.annotate import _exits
from agents.analysis.errors import AnnotationError
from agents.analysis.loops import _SIGNED_INTEGERS
from agents.analysis.model import BestUpdate, Loop, Program
from agents.analysis.parse import (
    body_statements,
    cut,
    declared_name,
    function_definitions,
    function_name,
    function_params,
    is_method,
    root_of,
    syntax_tree,
    text,
    unwrap,
    walk,
)
from agents.analysis.program import analyse
from agents.analysis.reductions import (
    counting_only,
    match_best_update,
    match_pack,
    match_recurrence,
    previous_of,
)
from agents.analysis.traversal import Walks, read_walks
from sandbox.spec import Language

_OPS = {
    "+": "MPI_SUM", "*": "MPI_PROD", "min": "MPI_MIN", "max": "MPI_MAX", "&": "MPI_BAND",
    "|": "MPI_BOR", "^": "MPI_BXOR", "&&": "MPI_LAND", "||": "MPI_LOR",
}  # fmt: skip
_IDENTITY = {"+": "0", "*": "1", "|": "0", "^": "0", "||": "0", "&&": "1"}
"""What ranks other than 0 start a reduction from (`&` sets every bit, min and max need none:
combining the value before the loop again changes nothing)."""

SHORT = 64
"""Loops with fewer iterations than this (known from the source) stay on every rank: dividing
them saves less than the collective call after them costs."""

CYCLIC_ROUNDS = 16
"""Rounds a loop whose iterations cost unevenly (an inner loop's bound moves with its counter,
or an inner loop's trip count is unknown) runs in: each rank's share comes in this many
pieces spread over the range (block-cyclic), so no rank holds only the dear end of a
triangle. Evolution tries the other counts in `ROUND_CHOICES`."""
ROUND_CHOICES = (1, 4, CYCLIC_ROUNDS, 64)

_STDIN_NAMES = frozenset({"stdin", "cin"})
_STDIN_CALLS = re.compile(r"^(?:v?w?scanf|getw?char(?:_unlocked)?|gets|getline|getdelim|gets_s)$")
"""Calls that read standard input without naming it (`stdin` itself is in `_STDIN_NAMES`)."""
_WIDE_STDIN = re.compile(
    r"^(?:v?f?wscanf|getwchar(?:_unlocked)?|fgetw[cs](?:_unlocked)?|getwc(?:_unlocked)?)$"
)
"""Wide reads of standard input: the memory stream a rank's copy of it is has no wide side."""
_BELOW_STDIO = frozenset({"read", "pread", "readv", "fdopen"})
"""Reads of a descriptor: of descriptor 0 (or any mention of `STDIN_FILENO`, or C++ streams
let go of the C library's with `sync_with_stdio`) they are reads below `stdin`, which a copy
of the input cannot reach on other ranks."""


@dataclass(frozen=True)
class Footprint:
    """Where one iteration writes an array: `width` elements from `start` (C, with `{k}` for the
    iteration's counter value); consecutive iterations write consecutive runs. An array of
    arrays (`double a[N][M]`) is written by rows: its elements are rows, `depth` subscripts
    reach a number."""

    array: str
    start: str
    width: str
    depth: int = 1

    @property
    def number(self) -> str:
        """An element's first number, for the check that only numbers move (`(a)[0][0]`)."""
        return f"({self.array})" + "[0]" * self.depth


def distributable(source: str, program: Program, function: str | None = None) -> list[Loop]:
    """The loops a rank-block version can run, outermost first, none inside another; in a
    function that no other such loop's body calls."""
    root = syntax_tree(source, program.language).root_node
    chosen = [
        loop
        for loop in program.loops
        if (function is None or loop.function == function) and why_not(program, loop, root) is None
    ]
    outer = [
        loop for loop in chosen if not any(a in {c.id for c in chosen} for a in loop.ancestors)
    ]
    return _uncalled(source, program, outer)


def why_not(program: Program, loop: Loop, root: Node | None = None) -> str | None:
    """Why `loop` gets no rank-block version (None: it can); with the parsed source (`root`),
    also what only the source shows."""
    dep = loop.dependence
    if loop.directive is not None:
        return f"it is under the program's own directive (line {loop.directive}: OpenMP, OpenACC or a loop hint)"
    if any(a.name.startswith("pf_sort_") for a in loop.writes):
        return "it sets the blocks of a sort already run over the ranks (`distributed_sorts`)"
    if loop.range_over is not None:
        if program.language is Language.C or not re.fullmatch(r"\w+", loop.range_over):
            return "a range-based loop over something other than a named container"
    elif loop.kind != "for" or not loop.canonical or loop.var is None:
        return "not a counted for loop"
    elif loop.lower is None or loop.upper is None or loop.test not in ("<", "<=", ">", ">="):
        return "its bounds are not a counted range"
    elif loop.stride != (-1 if _down(loop) else 1):
        return "its step is not 1 (counting up) or -1 (counting down)"
    elif _EFFECTS.search(f"{loop.lower} {loop.upper}"):
        return "its first value or bound changes something (an increment or an assignment)"
    elif loop.declared_type is not None and re.search(r"\b(?:float|double)\b", loop.declared_type):
        return "its counter is a floating-point number"
    if loop.trip_count is not None and loop.trip_count < SHORT:
        return f"{loop.trip_count} iterations, fewer than a collective call pays for"
    if not dep.annotatable:
        return f"its iterations are not independent ({dep.kind})"
    if _down(loop):
        if loop.declared_type is None or not _integer(loop.declared_type):
            return "a loop counting down whose counter is not an integer declared in its header"
        if loop.test == ">=" and loop.upper == "0" and _unsigned(loop.declared_type):
            return "an unsigned counter tested `>= 0`: the loop never ends"
        if dep.scan is not None or dep.first_match or dep.last_assigned:
            return "a loop counting down whose order matters (a scan, a search, a last value)"
        if dep.best_updates or dep.lastprivate:
            return "a loop counting down whose order matters (a best's ties, a last iteration)"
    if dep.scan is not None and (
        loop.range_over is not None
        or (program.language is Language.C and dep.scan.op in ("min", "max"))
        or dep.last_assigned
        or dep.best_updates
    ):
        return (
            "a scan this tool writes no rank-block version of (range-based, a C min/max, or "
            "beside a conditional last value or a best)"
        )
    if dep.first_match and (loop.range_over is not None or loop.counter_type in (None, "auto")):
        return "a search whose counter is not declared with a type in its header"
    if dep.packed and (program.language is Language.C or dep.scan is not None):
        return "it needs packed bits"
    if dep.last_assigned and (loop.range_over is not None or loop.var is None):
        return "a conditional last value in a loop without a counter to order it by"
    try:
        written = footprints(program, loop, grids(root, loop.function) if root else frozenset())
    except AnnotationError as exc:
        return str(exc)
    if root is None:
        return None
    packs = list(dep.scan.packs) if dep.scan is not None else []
    return _in_source(root, loop, [*(f.array for f in written), *packs])


_SCATTERED = re.compile(
    r"\b(?:deque|list|forward_list|map|multimap|set|multiset|unordered_\w+)\s*<"
)
"""Containers whose elements are not one block of memory: no byte range gathers them."""


def _in_source(root: Node, loop: Loop, gathered: list[str]) -> str | None:
    definitions = [d for d in function_definitions(root) if function_name(d) == loop.function]
    if len(definitions) != 1:
        return f"{loop.function}() is defined more than once"
    definition = definitions[0]
    if is_method(definition):
        # Constructors, destructors and operators run without a call the source shows: a
        # rank could enter the loop's collective call where another does not.
        return "a method of a class, which code may call without naming it"
    if loop.function in outside_main(root):
        return (
            f"{loop.function}() may run before main starts or after it ends (from a file's "
            "initializer, a constructor or a destructor), where MPI is not running"
        )
    last = _last_value_problem(root, loop) if loop.dependence.last_assigned else None
    if last is not None:
        return last
    types = _declared_types(root, definition)
    for name in loop.dependence.packed:
        if name in types and not re.search(r"\b(?:bool|bitset)\b", types[name]):
            return f"it writes {name}, a vector of a template's type, which may be bits or not"
    # (C++'s names: a struct's tag as well as its alias; `struct ` left off C's)
    plain = {name.removeprefix("struct ") for _, name in _plain_structs(root, cpp=True)}
    for name in [*gathered, *(a.var for a in loop.dependence.array_reductions)]:
        if _SCATTERED.search(types.get(name, "")):
            return f"{name} keeps its elements apart (not one block of memory)"
        words = set(re.findall(r"\w+", types.get(name, "")))
        owning = sorted((words & _struct_names(root)) - plain) + sorted(words & _OWNING)
        if owning:
            return (
                f"the elements of {name} ({owning[0]}) hold a pointer or an object owning "
                "memory: only numbers move between ranks"
            )
    return None


_NUMBER_TYPES = frozenset({"primitive_type", "sized_type_specifier"})
_OWNING = frozenset({"string", "wstring", "unique_ptr", "shared_ptr", "function", "any"})
"""Library types whose objects own memory elsewhere: their bytes mean nothing in another process."""


def _struct_names(root: Node) -> set[str]:
    """The tags and aliases of every struct or class the file defines (with a body)."""
    names: set[str] = set()
    for node in walk(root):
        if node.type in ("struct_specifier", "class_specifier", "union_specifier"):
            tag = node.child_by_field_name("name")
            if tag is not None and node.child_by_field_name("body") is not None:
                names.add(text(tag))
                parent = node.parent
                if parent is not None and parent.type == "type_definition":
                    names.update(text(d) for d in parent.children_by_field_name("declarator"))
        elif node.type == "type_definition":
            kind = node.child_by_field_name("type")
            if kind is not None and kind.child_by_field_name("body") is not None:
                names.update(text(d) for d in node.children_by_field_name("declarator"))
    return names


def _plain_structs(root: Node, cpp: bool) -> list[tuple[int, str]]:
    """(where its definition ends, the type's name) for each struct the file defines at file
    scope whose fields are numbers, arrays of numbers or such structs defined before it
    (`struct Particle { double x, v; };`, `typedef struct { float re, im; } Pair;`): values
    that mean the same in another process, as bytes. Not one with a pointer, a reference, an
    object of a class or a member function."""
    plain: set[str] = set()
    found: list[tuple[int, str]] = []
    children = root.children
    for at, node in enumerate(children):
        struct, alias = node, None
        if node.type == "type_definition":
            struct = node.child_by_field_name("type") or node
            declarators = node.children_by_field_name("declarator")
            alias = text(declarators[0]) if len(declarators) == 1 else None
            if alias is None or declarators[0].type != "type_identifier":
                continue
        if struct.type != "struct_specifier":
            continue
        tag = struct.child_by_field_name("name")
        fields = struct.child_by_field_name("body")
        if fields is None or not all(_plain_field(f, plain, cpp) for f in fields.named_children):
            continue
        names = [n for n in (f"struct {text(tag)}" if tag else None, alias) if n]
        if cpp and tag is not None:
            names.append(text(tag))
        plain.update(names)
        end = node.end_byte
        if (
            node.type == "struct_specifier"
            and at + 1 < len(children)
            and children[at + 1].type == ";"
        ):
            end = children[at + 1].end_byte
        shown = alias if alias is not None and (cpp or tag is None) else names[0]
        found.append((end, shown))
    return found


def _plain_field(field: Node, plain: set[str], cpp: bool) -> bool:
    """Whether a struct's member is a number or an array of them (or of a plain struct)."""
    if field.type == "comment":
        return True
    if field.type != "field_declaration":
        return False  # a member function, an access label, a nested type
    kind = field.child_by_field_name("type")
    if kind is None:
        return False
    shown = " ".join(text(kind).split())
    if kind.type not in _NUMBER_TYPES and shown not in plain:
        return False
    for declarator in field.children_by_field_name("declarator"):
        while declarator.type == "array_declarator":
            declarator = declarator.child_by_field_name("declarator") or declarator
        if declarator.type != "field_identifier":
            return False  # a pointer, a reference, a function
    return not any(c.type in ("storage_class_specifier", "type_qualifier") for c in field.children)


def _plain_struct_marks(root: Node, cpp: bool) -> list[tuple[int, int, str]]:
    """Edits that let the file's plain structs (`_plain_structs`) move between ranks as
    bytes: after each one's definition, in C++ a `pf_mpi_number` specialisation (which also
    asks the compiler that it is trivially copyable), in C the `_Generic` association
    `PF_MPI_NUMBER` reads (every plain struct so far: the list a use after it sees)."""
    edits: list[tuple[int, int, str]] = []
    seen: list[str] = []
    for end, name in _plain_structs(root, cpp):
        seen.append(name)
        if cpp:
            mark = f"\ntemplate <> struct pf_mpi_number<{name}> : std::is_trivially_copyable<{name}> {{}};"
        else:
            listed = " ".join(f"{n}: 1," for n in seen)
            mark = f"\n#undef PF_MPI_STRUCTS\n#define PF_MPI_STRUCTS {listed}\n"
        edits.append((end, end, mark))
    return edits


def _declared_types(root: Node, definition: Node) -> dict[str, str]:
    """Name → the text of its declaration's type: file scope, then the function's parameters
    and declarations (which shadow it)."""
    found: dict[str, str] = {}
    nodes = [c for c in root.children if c.type == "declaration"]
    nodes += [p for _, p in function_params(definition)]
    body = definition.child_by_field_name("body")
    nodes += [d for d in walk(body) if d.type == "declaration"] if body is not None else []
    for node in nodes:
        kind = node.child_by_field_name("type")
        for declarator in node.children_by_field_name("declarator"):
            name = declared_name(declarator)
            if name is not None and kind is not None:
                found[name] = text(kind)
    return found


def grids(root: Node, function: str) -> frozenset[str]:
    """The names `function` (or the file, where the function does not declare them) declares
    once as arrays of arrays, whose rows lie one after another in memory: `double a[N][M]`, a
    parameter `double a[][M]` or `double (*a)[M]` (not `double **a`, whose rows are anywhere)."""
    definitions = [d for d in function_definitions(root) if function_name(d) == function]
    if len(definitions) != 1:
        return frozenset()
    definition = definitions[0]
    body = definition.child_by_field_name("body")
    local = [p for _, p in function_params(definition)]
    local += [d for d in walk(body) if d.type == "declaration"] if body is not None else []
    outer = [c for c in root.children if c.type == "declaration"]
    declared = {**_declarators(outer), **_declarators(local)}
    return frozenset(
        name for name, found in declared.items() if len(found) == 1 and _rows_of(found[0]) > 1
    )


def _declarators(declarations: list[Node]) -> dict[str, list[Node]]:
    """Each name the declarations declare, with its declarators."""
    found: dict[str, list[Node]] = {}
    for node in declarations:
        for declarator in node.children_by_field_name("declarator"):
            name = declared_name(declarator)
            if name is not None:
                found.setdefault(name, []).append(declarator)
    return found


def _rows_of(declarator: Node) -> int:
    """How many subscripts a declarator's name takes to reach its element, where every one but
    the last steps through contiguous rows (`a[N][M]`: 2, `(*a)[M]`: 2); 0 otherwise."""
    if declarator.type == "init_declarator":
        declarator = declarator.child_by_field_name("declarator") or declarator
    depth = 0
    while declarator.type == "array_declarator":
        depth += 1
        declarator = declarator.child_by_field_name("declarator") or declarator
    if declarator.type == "parenthesized_declarator" and depth >= 1:
        inner = next((c for c in declarator.named_children), None)
        if inner is not None and inner.type == "pointer_declarator":
            named = inner.child_by_field_name("declarator")
            return depth + 1 if named is not None and named.type == "identifier" else 0
        return 0
    return depth if declarator.type == "identifier" else 0


def footprints(
    program: Program, loop: Loop, grids: frozenset[str] = frozenset()
) -> list[Footprint]:
    """Where each array the loop writes (histograms aside) is written, per iteration; `grids`:
    the arrays of arrays (`grids`), written by rows where the first subscript is the
    iteration's.

    Raises AnnotationError for a write that is not the iteration's own element or row."""
    reduced = {a.var for a in loop.dependence.array_reductions}
    if loop.dependence.scan is not None:
        reduced |= set(loop.dependence.scan.packs)  # a compaction's runs: `_blocked_scan`
    scalars = _scalars(loop)
    found: dict[str, Footprint] = {}
    if loop.range_over is not None and loop.writes_range:
        found[loop.range_over] = Footprint(loop.range_over, "({k})", "1")
    for access in loop.writes:
        if access.name in reduced:
            continue
        if not access.is_array:
            if access.name not in scalars:
                raise AnnotationError(f"it writes {access.name}, which it does not reduce")
            continue
        footprint = _footprint(program, loop, access.name, access.indices)
        if footprint is None and access.name in grids and len(access.indices) > 1:
            # `a[i][j]` of an array of arrays: the iteration's row, from which no subscript
            # of the row's own can step (a C array's row is as long as its type says)
            row = _footprint(program, loop, access.name, access.indices[:1])
            if row is not None and row.width == "1":
                footprint = Footprint(access.name, row.start, "1", len(access.indices))
        if footprint is None:
            raise AnnotationError(f"it writes {access} beyond its own element or row")
        if found.setdefault(access.name, footprint) != footprint:
            raise AnnotationError(f"it writes {access.name} in two shapes")
    return list(found.values())


def _scalars(loop: Loop) -> set[str]:
    """Scalars a rank may write: its reductions, bests, private and last values, the counter."""
    dep = loop.dependence
    names = {r.var for r in dep.reductions} | set(dep.private) | set(dep.lastprivate)
    names |= set(dep.last_assigned)
    names |= {n for b in dep.best_updates for n in (b.best, *b.others)}
    if dep.scan is not None:
        names.add(dep.scan.var)
    if dep.first_match:
        # A search's iterations write only their own locals until they leave the loop (the
        # analysis's verdict), so a scalar it writes is written where it leaves (`{ found =
        # i; break; }`), which every rank runs alone, the same, after the ranks agree on it.
        names |= {a.name for a in loop.writes if not a.is_array}
    return names | {loop.var or ""}


_OFFSET = re.compile(
    r"^(?:(?P<v1>\w+)(?: (?P<sign>[+-]) (?P<c1>\d+))?|(?P<c2>\d+) \+ (?P<v2>\w+))$"
)


def _footprint(
    program: Program, loop: Loop, array: str, indices: tuple[str, ...]
) -> Footprint | None:
    if len(indices) != 1:
        return None
    index = indices[0]
    var = loop.var
    matched = _OFFSET.match(index)
    if matched and var in (matched["v1"], matched["v2"]):
        offset = int(matched["c1"] or matched["c2"] or 0) * (-1 if matched["sign"] == "-" else 1)
        start = "({k})" if offset == 0 else f"({{k}} + ({offset}))"
        return Footprint(array, start, "1")
    for inner in program.loops:
        if loop.id not in inner.ancestors or inner.var is None or inner.stride != 1:
            continue
        width = _row_width(index, var or "", inner.var)
        if width is not None and _inside_row(inner, width):
            return Footprint(array, f"(({{k}}) * ({width}))", width)
    return None


def _row_width(index: str, var: str, column: str) -> str | None:
    """`w` when `index` is `var * w + column` (or the same terms in another order)."""
    terms = [t.strip() for t in index.split(" + ")] if index.count(" + ") == 1 else []
    if len(terms) != 2 or column not in terms:
        return None
    row = terms[1 - terms.index(column)]
    if (
        row.startswith("( ")
        and row.endswith(" )")
        and "(" not in row[2:-2]
        and ")" not in row[2:-2]
    ):
        row = row[2:-2]  # a row start kept in a local, spelled as its value (`values.spelled`)
    for shape in (f"{var} * ", f"( {var} ) * "):
        if row.startswith(shape):
            return _bare(row.removeprefix(shape))
    if row.endswith(f" * {var}"):
        return _bare(row.removesuffix(f" * {var}"))
    return None


def _bare(width: str) -> str | None:
    """A width that is one name or literal, or a parenthesised expression (as C text)."""
    if re.fullmatch(r"\w+", width):
        return width
    if width.startswith("( ") and width.endswith(" )"):
        return width
    return None


def _inside_row(inner: Loop, width: str) -> bool:
    """Whether the column loop's values stay in [0, width): from a literal start >= 0 to
    `width` or `width - c` (`<`), or to `width - c` with c >= 1 (`<=`); the bound as written
    or as the subscripts spell it (`int nx = 400;`: `i < nx - 1` against `j * ( 400 ) + i`)."""
    if inner.upper_value is not None and inner.upper_value != inner.upper:
        spelled = replace(inner, upper=inner.upper_value, upper_value=None)
        if _inside_row(spelled, width):
            return True
    if inner.lower is None or inner.upper is None or not inner.lower.isdigit():
        return False
    # `( 240 )` and `240`, `( nx ) - 1` and `nx - 1`: one name or literal in parentheses is itself
    upper = re.sub(r"\((\w+)\)", r"\1", inner.upper.replace(" ", ""))
    wide = re.sub(r"\((\w+)\)", r"\1", width.replace(" ", ""))
    literal = wide.removeprefix("(").removesuffix(")")
    if literal.isdigit() and inner.trip_count is not None:
        # a width the analysis read as a constant's value (`const int W = 800;`: `y * ( 800 ) +
        # x`), a column loop whose bound it read as that constant's too (`x < W`: 800 values)
        return int(inner.lower) + inner.trip_count <= int(literal)
    cast = _SIGNED_CAST.fullmatch(inner.upper.strip())
    if inner.test == "<" and cast is not None:
        # `j < (long)n`: where the loop runs the cast is positive, and a positive value of a
        # signed type made from an integer is the integer or its low bits, never more
        # (`loops._at_most` reads the bound alike)
        kind = " ".join((cast["c"] or cast["s"] or "").split())
        inside = (cast["cw"] or cast["sw"] or "").replace(" ", "")
        return kind in _SIGNED_INTEGERS and inside in (wide, f"({wide})")
    if inner.test == "<":
        return upper == wide or bool(re.fullmatch(re.escape(wide) + r"-\d+", upper))
    if inner.test == "<=":
        found = re.fullmatch(re.escape(wide) + r"-(\d+)", upper)
        return found is not None and int(found.group(1)) >= 1
    return False


_SIGNED_CAST = re.compile(
    r"\(\s*(?P<c>[A-Za-z_][\w: ]*?)\s*\)\s*(?P<cw>\w+|\(.*\))"
    r"|static_cast\s*<\s*(?P<s>[A-Za-z_][\w: ]*?)\s*>\s*\((?P<sw>.*)\)"
)
"""A bound cast to a type: `(long)n`, `static_cast<long>(n)` (the type, then what it casts)."""


def _uncalled(source: str, program: Program, loops: list[Loop]) -> list[Loop]:
    """`loops` without those in a function the body of one of them reaches through calls."""
    calls = _call_graph(source, program)
    kept = list(loops)
    while True:
        reached: set[str] = set()
        for loop in kept:
            reached |= _reach(calls, loop.calls)
        dropped = [loop for loop in kept if loop.function in reached]
        if not dropped:
            return kept
        kept = [loop for loop in kept if loop not in dropped]


def outside_main(root: Node) -> set[str]:
    """The functions a program with `main` may run before MPI starts in it or after it ends:
    those a file-scope initializer calls (`static long early = total(v);`), a constructor or
    destructor (of a static object: `~Log() { flush_all(); }`) or a function marked
    `__attribute__((constructor))` or `destructor`, and all they call."""
    definitions = list(function_definitions(root))
    if not any(function_name(d) == "main" for d in definitions):
        return set()
    roots: set[str] = set()
    for definition in definitions:
        body = definition.child_by_field_name("body")
        head = text(definition)[: body.start_byte - definition.start_byte] if body else ""
        if re.search(r"\b(?:constructor|destructor)\b", head) or _special_member(definition):
            roots.add(function_name(definition))
    for node in walk(root):
        if node.type == "declaration" and not any(
            a.type in ("function_definition", "compound_statement") for a in _ancestors(node)
        ):
            roots |= _callees(node)
    return _reach(_calls_of(root), roots)


def _callees(node: Node) -> set[str]:
    """The names `node` calls, each the last part of its callee (`a.f`, `p->f`, `N::f`: f)."""
    return {
        text(callee).split("::")[-1].split(".")[-1].split("->")[-1]
        for call in walk(node)
        if call.type == "call_expression"
        and (callee := call.child_by_field_name("function")) is not None
    }


def _calls_of(root: Node) -> dict[str, set[str]]:
    """Function name → the names its body calls (`_callees`)."""
    found: dict[str, set[str]] = {}
    for definition in function_definitions(root):
        found.setdefault(function_name(definition), set()).update(_callees(definition))
    return found


def _ancestors(node: Node) -> Iterator[Node]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _special_member(definition: Node) -> bool:
    """A constructor or destructor: `~T()`, or a function named as the class it is defined in
    or qualified with (`T::T()`)."""
    declarator = definition.child_by_field_name("declarator")
    shown = text(declarator).split("(")[0] if declarator is not None else ""
    if "~" in shown:
        return True
    parts = [p.strip() for p in shown.split("::")]
    if len(parts) >= 2 and parts[-1] == parts[-2]:
        return True
    for parent in _ancestors(definition):
        if parent.type in ("class_specifier", "struct_specifier"):
            tag = parent.child_by_field_name("name")
            return tag is not None and text(tag) == parts[-1]
    return False


def _reach(calls: dict[str, set[str]], start: Iterable[str]) -> set[str]:
    seen: set[str] = set()
    stack = list(start)
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack.extend(calls.get(name, ()))
    return seen


def _call_graph(source: str, program: Program) -> dict[str, set[str]]:
    """Function name → the names its body calls."""
    return _calls_of(syntax_tree(source, program.language).root_node)


# --- writing the MPI program ----------------------------------------------------------------


def distribute(
    source: str,
    program: Program,
    loop_ids: Sequence[str],
    *,
    whole_program: bool | None = None,
    rounds: Mapping[str, int] | None = None,
) -> str:
    """The program with each loop of `loop_ids` run as rank blocks (see the module's text).

    `whole_program` (default: the program has `main`) adds MPI's start and end in `main`, the
    output of rank 0 alone and the shared standard input. `rounds` sets the rounds of loops
    that `cycles` (default: `rounds_for`). Raises AnnotationError for a loop that
    `distributable` does not offer."""
    offered = {loop.id: loop for loop in distributable(source, program)}
    unknown = [i for i in loop_ids if i not in offered]
    if unknown:
        loop = next((x for x in program.loops if x.id == unknown[0]), None)
        why = why_not(program, loop, _root(source, program)) if loop is not None else "no such loop"
        raise AnnotationError(
            f"loop {unknown[0]} cannot be distributed: {why or 'nested or called from another chosen loop'}"
        )
    if not loop_ids:
        raise AnnotationError("no loop chosen")
    chosen = [offered[i] for i in dict.fromkeys(loop_ids)]
    whole = program.has_main if whole_program is None else whole_program
    cpp = program.language is not Language.C
    root = syntax_tree(source, program.language).root_node
    raw = source.encode()
    edits: list[tuple[int, int, str]] = []
    names = {text(n) for n in walk(root) if n.type == "identifier"}
    for number, loop in enumerate(chosen):
        node = _for_node(root, loop)
        count = (rounds or {}).get(loop.id)
        if count is not None and (count < 1 or not cycles(loop)):
            raise AnnotationError(f"loop {loop.id} cannot run in {count} rounds")
        # A sweep runs one block per rank (its neighbours hold the rows next to its own),
        # so neither a count of rounds here nor evolution's decomposition mutations apply.
        even = count in (None, 1) and not (cycles(loop) and rounds_for(program, loop) > 1)
        sweep = _sweep(root, program, loop, node) if even and not _down(loop) else None
        edits += _rank_blocks(raw, node, program, loop, number, cpp, count, sweep)
        if sweep is not None:
            edits += _after_sweeps(raw, node, program, loop, number, cpp, sweep)
    if whole:
        main = next((d for d in function_definitions(root) if function_name(d) == "main"), None)
        body = main.child_by_field_name("body") if main is not None else None
        if body is None:
            raise AnnotationError("the program has no main() to start MPI in")
        share = _reads_stdin(root)
        _check_output(root)
        opening = f" pf_mpi_start({1 if share else 0});"
        edits.append((body.start_byte + 1, body.start_byte + 1, opening))
    edits += _plain_struct_marks(root, cpp)
    clash = interposed(root)
    if clash:
        raise AnnotationError(clash)
    taken = sorted(n for n in names if n.startswith("pf_mpi_"))
    if taken:
        raise AnnotationError(f"the program already uses the name {taken[0]}")
    out = raw
    for begin, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:begin] + new.encode() + out[end:]
    placed = _before_code(out.decode(), program, _helpers(cpp, whole))
    return _after_feature_macros(placed, _headers(cpp))


_RUNTIME_CALLS = frozenset(
    [
        "read",
        "write",
        "open",
        "close",
        "poll",
        "select",
        "send",
        "recv",
        "socket",
        "connect",
        "bind",
        "listen",
        "accept",
        "mmap",
        "munmap",
        "malloc",
        "calloc",
        "realloc",
        "free",
        "fork",
        "pipe",
        "dup",
        "dup2",
        "ioctl",
        "fcntl",
        "sleep",
        "usleep",
        "nanosleep",
        "getpid",
        "kill",
        "signal",
        "sigaction",
        "clock_gettime",
        "gettimeofday",
        "sched_yield",
        "pthread_create",
    ]
)
"""C library functions MPI's and CUDA's runtimes call themselves."""


def interposed(root: Node) -> str | None:
    """Why the program cannot share a process with a parallel runtime: it defines, with
    external linkage, a function the runtime calls (`int read(void)` replaces the C library's
    `read` for Open MPI too, which then fails to start)."""
    for definition in function_definitions(root):
        name = function_name(definition)
        storage = [text(c) for c in definition.children if c.type == "storage_class_specifier"]
        if name in _RUNTIME_CALLS and "static" not in storage:
            return (
                f"the program defines {name}(), which the parallel runtime calls as the C library's"
            )
    return None


def _root(source: str, program: Program) -> Node:
    return syntax_tree(source, program.language).root_node


def _for_node(root: Node, loop: Loop) -> Node:
    for node in walk(root):
        if node.type in ("for_statement", "for_range_loop") and node.start_point == (
            loop.line - 1,
            loop.column,
        ):
            return node
    raise AnnotationError(f"cannot find loop {loop.id} in the source it was analysed from")


def _rank_blocks(
    raw: bytes,
    node: Node,
    program: Program,
    loop: Loop,
    number: int,
    cpp: bool,
    rounds: int | None = None,
    sweep: Sweep | None = None,
) -> list[tuple[int, int, str]]:
    """The edits that run `loop` (its node `node`) as rank blocks: the header's range, a flag
    in each best update's block, and the code before and after. A loop that `cycles` runs in
    rounds (`pf_mpi_N_rounds`: 1 for one block per rank, `CYCLIC_ROUNDS` for its uneven
    loops), each round a block decomposition of its part of the range. A stencil `sweep`
    exchanges only its halo with the neighbouring ranks instead of gathering its output."""
    dep = loop.dependence
    if sweep is not None:
        rounds = None
    elif cycles(loop) and rounds is None:
        rounds = rounds_for(program, loop)
    var = loop.var or ""
    tag = f"pf_mpi_{number}"
    first, count, lo, hi = (f"{tag}_{x}" for x in ("first", "count", "lo", "hi"))
    edits: list[tuple[int, int, str]] = []
    if loop.range_over is not None:
        # A range-based loop runs over its block of the container's elements.
        right = node.child_by_field_name("right")
        if right is None:
            raise AnnotationError(f"loop {loop.id} has no range to divide")
        edits.append(
            (right.start_byte, right.end_byte, f"pf_mpi_part({loop.range_over}, {lo}, {hi})")
        )
        lower, upper = "0", f"({loop.range_over}).size()"
    elif dep.scan is not None:
        scan = _blocked_scan(raw, node, loop, tag, cpp)
        edits.append((node.start_byte, node.end_byte, scan))
    elif _down(loop):
        edits += _header_down(node, loop, tag, lo)
    else:
        found = f" && {tag}_hit == LLONG_MAX" if dep.first_match else ""
        edits += _header(node, loop, lo, hi + found)
    declared_here = loop.range_over is not None or _declares_counter(node)
    for update, flag in _best_blocks(node, loop, tag):
        edits.append((update.start_byte + 1, update.start_byte + 1, f" {flag} = 1;"))
    # A loop counting down runs its rank's block of values from the top (`{tag}_v` counts them).
    block_top = f" long long {tag}_v = {hi} - 1;" if _down(loop) else ""
    if _down(loop):
        before = _range_down(loop, tag)
    elif loop.range_over is None:
        before = _range(node, loop, tag, cpp)
    else:
        before = [
            f"{{ long long {first} = (long long)({lower});",
            f"long long {count} = (long long)({upper}) - {first};",
        ]
    for reduction in dep.reductions:
        identity = _identity(reduction.var, reduction.op)
        if identity:
            before.append(f"if (pf_mpi_rank() != 0) {identity}")
    for histogram in dep.array_reductions:
        element = f"({histogram.var})[{tag}_k]"
        identity = _identity(element, histogram.op)
        if identity:
            before.append(
                f"if (pf_mpi_rank() != 0) for (long long {tag}_k = 0; {tag}_k < (long long)"
                f"({histogram.length}); {tag}_k++) {identity}"
            )
    for u_number in range(len(dep.best_updates)):
        before.append(f"int {tag}_found{u_number} = 0;")
    for k, name in enumerate(dep.last_assigned):
        # A conditional last value: each rank notes the iteration of its last assignment.
        before.append(f"long long {tag}_last{k} = LLONG_MIN;")
        edits += _noted_assignments(node, name, f"{tag}_last{k}", var)
    if dep.first_match:
        # A search: each rank notes the first iteration of its block that would leave the
        # loop, the ranks take the smallest, and every rank runs that iteration alone (its
        # body writes nothing outside itself, so running the others changed nothing).
        hit = f"{tag}_hit"
        before.append(f"long long {hit} = LLONG_MAX;")
        exits = _exits(node)
        noted = f"{{ if ((long long)({var}) < {hit}) {hit} = (long long)({var}); continue; }}"
        edits += [(e.start_byte, e.end_byte, noted) for e in exits[1:]]
        body = raw[exits[0].start_byte : exits[0].end_byte].decode()
    gathers: list[str] = []
    if rounds is None:
        before.append(
            f"long long {lo}, {hi}; pf_mpi_block({first}, {count}, &{lo}, &{hi});{block_top}"
        )
        part_first, part_count = first, count
    else:
        # Round r runs iterations [count * r / rounds, count * (r + 1) / rounds) as blocks
        # over the ranks, and assembles what they wrote before the next round.
        rnd, part_first, part_count = f"{tag}_round", f"{tag}_rfirst", f"{tag}_rcount"
        before += [
            f"long long {tag}_rounds = {rounds};",
            f"for (long long {rnd} = 0; {rnd} < {tag}_rounds; {rnd}++) {{",
            f"long long {part_first}, {part_count}; pf_mpi_round({first}, {count}, "
            f"{tag}_rounds, {rnd}, &{part_first}, &{part_count});",
            f"long long {lo}, {hi}; pf_mpi_block({part_first}, {part_count}, &{lo}, &{hi});"
            f"{block_top}",
        ]
    for footprint in footprints(program, loop, grids(root_of(node), loop.function)):
        start = footprint.start.format(k=part_first)
        if footprint.array in dep.packed:
            # A std::vector<bool>'s bits (each rank set its own block's in its own copy): they
            # move as one byte each.
            gathers.append(
                f"if ({part_count} > 0) pf_mpi_gather_bits({footprint.array}, {start}, "
                f"{part_count});"
            )
            continue
        # Bytes move between processes: only numbers mean the same in another one (a pointer
        # or an object owning memory does not), which the compiler checks.
        gathers.append(f"PF_MPI_NUMBER({footprint.number});")
        unit = f"(size_t)({footprint.width}) * sizeof(({footprint.array})[0])"
        gather = (
            f"if ({part_count} > 0) pf_mpi_gather(&({footprint.array})[{start}], {part_count}, "
            f"{unit});"
        )
        if sweep is not None:
            # The next sweep reads `sweep.halo` rows beyond this rank's block: those from the
            # neighbours (every block at least that long), else everything, as without.
            gather = (
                f"if (!pf_mpi_halo(&({footprint.array})[{start}], {part_count}, {unit}, "
                f"{sweep.halo})) {{ {gather} }}"
            )
        gathers.append(gather)
    after: list[str] = [] if rounds is None else [*gathers, "}"]
    for reduction in dep.reductions:
        after.append(
            f"MPI_Allreduce(MPI_IN_PLACE, &({reduction.var}), 1, PF_MPI_TYPE({reduction.var}), "
            f"PF_MPI_OP({reduction.var}, {_OPS[reduction.op]}), MPI_COMM_WORLD);"
        )
    for histogram in dep.array_reductions:
        # A length known at run time (`y.size()`) may be 0: no element to name then.
        base = f"&({histogram.var})[0]"
        after.append(
            f"if ((long long)({histogram.length}) > 0) MPI_Allreduce(MPI_IN_PLACE, {base}, "
            f"(int)({histogram.length}), PF_MPI_TYPE(({histogram.var})[0]), "
            f"PF_MPI_OP(({histogram.var})[0], {_OPS[histogram.op]}), MPI_COMM_WORLD);"
        )
    if rounds is None:
        after += gathers
    for u_number, best in enumerate(dep.best_updates):
        after += _merge_bests(best, f"{tag}_found{u_number}", f"{tag}_b{u_number}", cpp)
    if dep.first_match:
        after.append(
            f"MPI_Allreduce(MPI_IN_PLACE, &{hit}, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);"
        )
        after.append(
            f"if ({hit} != LLONG_MAX) {{ {loop.counter_type} {var} = ({loop.counter_type}){hit};"
            f" do {body} while (0); }}"
        )
    for k, name in enumerate(dep.last_assigned):
        # The rank whose assignment came last (the largest iteration) sends its value.
        pair = f"{tag}_at{k}"
        after.append(f"PF_MPI_NUMBER({name});")
        after.append(
            f"{{ struct {{ long v; int r; }} {pair} = {{ (long){tag}_last{k}, pf_mpi_rank() }}, "
            f"{pair}_all; MPI_Allreduce(&{pair}, &{pair}_all, 1, MPI_LONG_INT, MPI_MAXLOC, "
            f"MPI_COMM_WORLD); if ({pair}_all.v != LONG_MIN) MPI_Bcast(&({name}), "
            f"(int)sizeof({name}), MPI_BYTE, {pair}_all.r, MPI_COMM_WORLD); }}"
        )
    for name in dep.lastprivate:
        after.append(f"PF_MPI_NUMBER({name});")
        after.append(
            f"if ({count} > 0) MPI_Bcast(&({name}), (int)sizeof({name}), MPI_BYTE, "
            f"pf_mpi_owner({count}), MPI_COMM_WORLD);"
        )
    if not declared_here:
        after.append(f"{var} = {first} + ({count} > 0 ? {count} : 0);")
    indent = _indent(raw, node)
    head = f"\n{indent}".join(before) + f"\n{indent}"
    tail = "".join(f"\n{indent}{line}" for line in after) + " }"
    if dep.overlap_checks:
        # As for OpenMP: the divided loop only where the pointers it reaches do not overlap
        # (the same on every rank, whose memory is laid out alike), else the loop as it was.
        condition = " && ".join(f"({check})" for check in dep.overlap_checks)
        original = raw[node.start_byte : node.end_byte].decode()
        head = f"if ({condition}) " + head
        if sweep is not None:
            # Between halo sweeps a rank's buffers are whole only in its block and halo: the
            # loop as it was reads them whole.
            original = _whole_buffers(node, program, loop, f"{tag}_back", cpp, sweep) + (
                f"\n{indent}{original}"
            )
        tail += f" else {{\n{indent}{original}\n{indent}}}"
    edits.append((node.start_byte, node.start_byte, head))
    edits.append((node.end_byte, node.end_byte, tail))
    return edits


@dataclass(frozen=True)
class Sweep:
    """A stencil loop (scalar reductions allowed: a residual is reduced over the ranks as
    ever) repeated by the loop around it with only a swap of its two buffers
    beside it (`for (s...) { for (i...) v[i] = f(u[i - 1], u[i], u[i + 1]); t = u; u = v; v =
    t; }`): between sweeps each rank needs of the buffers only its block and `halo` rows
    (iterations) either side, and the buffers are assembled whole once, after the sweeps."""

    outer: Node
    buffers: tuple[str, str]
    halo: int


def _sweep(root: Node, program: Program, loop: Loop, node: Node) -> Sweep | None:
    """`loop` as a `Sweep`, or None where the pattern does not hold exactly (then the loop
    gathers its output after every sweep, which is always right)."""
    dep = loop.dependence
    if (
        loop.parent is None
        or dep.array_reductions
        or dep.best_updates
        or dep.lastprivate
        or dep.first_match
        or dep.scan is not None
        or loop.range_over is not None
        or loop.var is None
    ):
        return None
    try:
        written = footprints(program, loop)
    except AnnotationError:
        return None
    if len(written) != 1:
        return None
    target = written[0]
    outer = node.parent.parent if node.parent is not None else None
    if (
        node.parent is None
        or node.parent.type != "compound_statement"
        or outer is None
        or outer.type not in ("for_statement", "while_statement", "do_statement")
        or outer.child_by_field_name("body") != node.parent
    ):
        return None
    # Beside the stencil loop, only the swap: pointer copies among the two buffers and a
    # temporary (`double *t = u; u = v; v = t;`).
    others = [c for c in node.parent.named_children if c != node and c.type != "comment"]
    arrays = {target.array} | {a.name for a in loop.reads if a.is_array}
    names: set[str] = set()
    temps: set[str] = set()
    for statement in others:
        mentioned = {text(n) for n in walk(statement) if n.type == "identifier"}
        if not mentioned & (arrays | temps):
            if statement.type == "expression_statement" and _scalar_only(statement):
                continue  # `s++;`: no array element (the stencil's range is checked below)
            return None
        if statement.type == "declaration":
            declarators = statement.children_by_field_name("declarator")
            if len(declarators) != 1 or declarators[0].type != "init_declarator":
                return None
            value = declarators[0].child_by_field_name("value")
            if value is None or value.type != "identifier":
                return None
            temps.add(declared_name(declarators[0]) or "")
            names.add(text(value))
        elif statement.type == "expression_statement":
            assignment = statement.named_children[0] if statement.named_children else None
            if assignment is None or assignment.type != "assignment_expression":
                return None
            left, right = (assignment.child_by_field_name(f) for f in ("left", "right"))
            if (
                left is None
                or right is None
                or left.type != "identifier"
                or right.type != "identifier"
                or text(assignment.child_by_field_name("operator") or assignment) != "="
            ):
                return None
            names |= {text(left), text(right)}
        else:
            return None
    buffers = names - temps
    if len(buffers) != 2 or target.array not in buffers:
        return None
    source = next(iter(buffers - {target.array}))
    # The loop around runs the sweeps only: its header reaches no memory but named scalars
    # (no buffer under any name: every rank must take the same number of sweeps), it does
    # not leave the function from inside, and the stencil's range stays the same every sweep
    # and is in scope after it (the gather there divides it again).
    header = [
        h for f in ("initializer", "condition", "update") if (h := outer.child_by_field_name(f))
    ]
    reaching = ("call_expression", "subscript_expression", "pointer_expression", "field_expression")
    if any(
        n.type in reaching or (n.type == "identifier" and text(n) in buffers)
        for h in header
        for n in walk(h)
    ):
        return None
    if any(n.type in ("return_statement", "goto_statement") for n in walk(node.parent)):
        return None
    bounds = {t for b in (loop.lower or "", loop.upper or "") for t in re.findall(r"\w+", b)}
    if bounds & _assigned_names(outer):
        return None
    # The halo: how far from the rows an iteration writes its reads reach (`v[i + 1]` from
    # `u[i - 1]` is two rows).
    inner = [x for x in program.loops if loop.id in x.ancestors]
    offsets: dict[str, list[int]] = {"read": [], "write": []}
    for kind, accesses in (("read", loop.reads), ("write", loop.writes)):
        for access in accesses:
            if access.name not in buffers:
                continue
            if not access.is_array:
                return None  # the buffer itself, passed on: its reach is unknown
            offset = _row_offset(access.indices, loop.var, target.width, inner)
            if offset is None:
                return None
            offsets[kind].append(offset)
    if len(set(offsets["write"])) != 1:
        return None
    written_at = offsets["write"][0]
    halo = max((abs(r - written_at) for r in offsets["read"]), default=0)
    return Sweep(outer, (target.array, source), halo)


def _assigned_names(node: Node) -> set[str]:
    """The names `node` assigns, increments or declares anywhere inside it."""
    found = set()
    for n in walk(node):
        if n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            if left is not None:
                found.add(text(left))
        elif n.type == "update_expression":
            found |= {text(c) for c in n.named_children if c.type == "identifier"}
        elif n.type == "init_declarator":
            found.add(declared_name(n) or "")
    return found


def _scalar_only(statement: Node) -> bool:
    """A statement that reaches no memory but the variables it names: no call, subscript,
    pointer or member access (`s++;`, `alpha *= 0.5;`)."""
    reaching = ("call_expression", "subscript_expression", "pointer_expression", "field_expression")
    return not any(n.type in reaching for n in walk(statement))


def _row_offset(indices: tuple[str, ...], var: str, width: str, inner: list[Loop]) -> int | None:
    """The row (iteration) offset of an access to a stencil's buffer: `c` for `u[i + c]` or
    `u[(i + c) * w + j + d]` with `j + d` inside the row; None for any other form."""
    if len(indices) != 1:
        return None
    index = indices[0]
    if width == "1":
        matched = _OFFSET.match(index)
        if not matched or matched["v1" if matched["v1"] else "v2"] != var:
            return None
        return int(matched["c1"] or matched["c2"] or 0) * (-1 if matched["sign"] == "-" else 1)
    row = rf"(?:\( {re.escape(var)} (?P<s>[+-]) (?P<c>\d+) \)|{re.escape(var)})"
    shape = rf"{row} \* {re.escape(width)} \+ (?P<col>\w+)(?: (?P<ds>[+-]) (?P<d>\d+))?"
    matched = re.fullmatch(shape, index)
    if matched is None:
        return None
    column = next((x for x in inner if x.var == matched["col"] and x.stride in (None, 1)), None)
    shift = int(matched["d"] or 0) * (-1 if matched["ds"] == "-" else 1)
    if column is None or not _column_inside(column, width, shift):
        return None
    return int(matched["c"] or 0) * (-1 if matched["s"] == "-" else 1)


def _column_inside(column: Loop, width: str, shift: int) -> bool:
    """Whether `j + shift` stays in [0, width) for every value of the column loop `j` (from a
    literal start to `width` or `width - m`)."""
    if column.lower is None or column.upper is None or not column.lower.isdigit():
        return False
    if int(column.lower) + shift < 0:
        return False
    upper, wide = column.upper.replace(" ", ""), width.replace(" ", "")
    found = re.fullmatch(re.escape(wide) + r"-(\d+)", upper)
    margin = 0 if upper == wide else int(found.group(1)) if found is not None else None
    if margin is None:
        return False
    if column.test == "<":  # j <= width - margin - 1
        return shift <= margin
    if column.test == "<=":  # j <= width - margin
        return shift <= margin - 1
    return False


def _range(node: Node, loop: Loop, tag: str, cpp: bool) -> list[str]:
    """The opening of a counted loop's divided code: `{tag}_first` and `{tag}_count`, its
    iterations (0 where it does not run, by its own test in its own types: `int i = -1;
    i < n` with `unsigned n` is false in C, whatever the arithmetic says), from the first
    value as the counter holds it (`unsigned char c = 260` starts at 4)."""
    lower, upper = loop.lower or "", loop.upper or ""
    if lower.startswith("{") and lower.endswith("}"):  # `int i{0}`
        lower = lower[1:-1]
    first, count, last = f"{tag}_first", f"{tag}_count", f"{tag}_top"
    if loop.counter_type not in (None, "auto"):
        typed = loop.counter_type
    elif not _declares_counter(node):
        typed = f"decltype({loop.var})" if cpp else f"__typeof__({loop.var})"
    else:
        typed = f"decltype({lower})" if cpp else f"__typeof__({lower})"
    return [
        # The largest value the test takes: the bound truncated, or one below it (a bound of
        # 2.5 or a `<` test).
        f"{{ long long {first} = (long long)(({typed})({lower}));",
        f"long long {last} = (long long)({upper});",
        f"if (!(({typed}){last} {loop.test} ({upper}))) {last} -= 1;",
        f"long long {count} = {last} + 1 - {first};",
        f"if (!(({typed})({lower}) {loop.test} ({upper}))) {count} = 0;",
    ]


_EFFECTS = re.compile(r"\+\+|--|(?<![=!<>])=(?!=)")
"""An increment, a decrement or an assignment: in a loop's first value or bound, the divided
loop would evaluate it a different number of times."""

_INTEGER_WORDS = frozenset(
    {"signed", "unsigned", "char", "short", "int", "long", "size_t", "ssize_t", "ptrdiff_t",
     "intptr_t", "uintptr_t", "intmax_t", "uintmax_t"}
)  # fmt: skip


def _integer(kind: str) -> bool:
    """Whether a declared type is one of C's integers by its words (a typedef of unknown
    meaning is not: it may name a pointer)."""
    words = kind.replace("std::", "").replace("const", " ").split()
    return bool(words) and all(
        w in _INTEGER_WORDS or re.fullmatch(r"u?int(?:_least|_fast)?(?:8|16|32|64)_t", w)
        for w in words
    )


def _unsigned(kind: str) -> bool:
    words = kind.replace("std::", "").split()
    return any(
        w in ("unsigned", "size_t", "uintptr_t", "uintmax_t") or w.startswith("uint") for w in words
    )


def _down(loop: Loop) -> bool:
    """Whether `loop` is an index loop counting down (`for (int i = n - 1; i >= 0; --i)`)."""
    return loop.range_over is None and loop.test in (">", ">=")


def _range_down(loop: Loop, tag: str) -> list[str]:
    """`_range` for a loop counting down: its values as a range from the smallest up
    (`{tag}_first`, `{tag}_count`), which the ranks divide into blocks as they divide a loop
    counting up (its iterations are independent and order nothing: `why_not`); 0 iterations
    where its own test, in its counter's type, fails for its first value."""
    lower, upper, kind = loop.lower or "", loop.upper or "", loop.declared_type
    if lower.startswith("{") and lower.endswith("}"):  # `int i{n - 1}`
        lower = lower[1:-1]
    first, count = f"{tag}_first", f"{tag}_count"
    return [
        # The smallest value the test takes: the bound truncated, or one above it (a bound
        # of 2.5 or a `>` test); the first value as the counter holds it (`char c = 300`).
        f"{{ long long {first} = (long long)({upper});",
        f"if (!(({kind}){first} {loop.test} ({upper}))) {first} += 1;",
        f"long long {count} = (long long)(({kind})({lower})) + 1 - {first};",
        f"if (!(({kind})({lower}) {loop.test} ({upper}))) {count} = 0;",
    ]


def _header_down(node: Node, loop: Loop, tag: str, lo: str) -> list[tuple[int, int, str]]:
    """Edits that make a loop counting down run its rank's block of values [lo, hi) from the
    top: the counter starts at `{tag}_v` (hi - 1), and the test counts the block's values with
    `{tag}_v` in `long long`, never with the counter (an unsigned counter wraps below 0)."""
    init = node.child_by_field_name("initializer")
    condition = node.child_by_field_name("condition")
    update = node.child_by_field_name("update")
    declarator = init.child_by_field_name("declarator") if init is not None else None
    first = declarator.child_by_field_name("value") if declarator is not None else None
    if first is None or condition is None or update is None:
        raise AnnotationError(f"loop {loop.id}: cannot find its counter's first value and step")
    value = f"({loop.declared_type})({tag}_v)"
    if first.type == "initializer_list":  # `int i{n - 1}`
        value = f"{{{value}}}"
    elif first.type == "argument_list":  # `int i(n - 1)`
        value = f"({value})"
    return [
        (first.start_byte, first.end_byte, value),
        (condition.start_byte, condition.end_byte, f"{tag}_v >= {lo}"),
        (update.start_byte, update.end_byte, f"{text(update)}, --{tag}_v"),
    ]


def _whole_buffers(
    node: Node, program: Program, loop: Loop, tag: str, cpp: bool, sweep: Sweep
) -> str:
    """Both buffers of a sweep assembled whole on every rank (each rank's block of each is up
    to date: the one written last sweep, and the one written the sweep before)."""
    first, count = f"{tag}_first", f"{tag}_count"
    (target,) = footprints(program, loop)
    lines = _range(node, loop, tag, cpp)
    for array in sweep.buffers:
        start = target.start.format(k=first)
        lines.append(f"PF_MPI_NUMBER(({array})[0]);")
        lines.append(
            f"if ({count} > 0) pf_mpi_gather(&({array})[{start}], {count}, "
            f"(size_t)({target.width}) * sizeof(({array})[0]));"
        )
    return " ".join(lines) + " }"


def _after_sweeps(
    raw: bytes, node: Node, program: Program, loop: Loop, number: int, cpp: bool, sweep: Sweep
) -> list[tuple[int, int, str]]:
    """The loop around a sweep in braces of its own, with both buffers assembled whole after
    it, as the code after expects (an unbraced `if (...) for (...) ...; else` stays whole)."""
    whole = _whole_buffers(node, program, loop, f"pf_mpi_{number}_whole", cpp, sweep)
    indent = _indent(raw, sweep.outer)
    return [
        (sweep.outer.start_byte, sweep.outer.start_byte, "{ "),
        (sweep.outer.end_byte, sweep.outer.end_byte, f"\n{indent}{whole} }}"),
    ]


def _noted_assignments(node: Node, name: str, note: str, var: str) -> list[tuple[int, int, str]]:
    """Each assignment to `name` in the loop noting the iteration in `note` first (`(note =
    i, x = e)`: the same value where it is used)."""
    edits = []
    for child in walk(node):
        if child.type == "identifier" and text(child) == name:
            parent = child.parent
            if (
                parent is None
                or parent.type != "assignment_expression"
                or parent.child_by_field_name("left") != child
            ):
                continue
            if _inside_assignment(parent) or any(
                n.type == "assignment_expression" for n in walk(parent) if n != parent
            ):
                raise AnnotationError(f"{name} is assigned within another assignment")
            edits.append(
                (
                    parent.start_byte,
                    parent.end_byte,
                    f"({note} = (long long)({var}), {text(parent)})",
                )
            )
        elif child.type == "update_expression" and name in {text(c) for c in child.named_children}:
            raise AnnotationError(f"{name} is counted, not assigned, in the loop")
    if not edits:
        raise AnnotationError(f"cannot find where the loop assigns {name}")
    return edits


def _inside_assignment(node: Node) -> bool:
    parent = node.parent
    while parent is not None and parent.type not in ("expression_statement", "compound_statement"):
        if parent.type == "assignment_expression":
            return True
        parent = parent.parent
    return False


def _last_value_problem(root: Node, loop: Loop) -> str | None:
    """Why a conditional last value cannot move between ranks as `_rank_blocks` moves it."""
    node = _for_node(root, loop)
    definition = next(
        (d for d in function_definitions(root) if function_name(d) == loop.function), None
    )
    for name in loop.dependence.last_assigned:
        try:
            _noted_assignments(node, name, "pf_mpi_note", loop.var or "")
        except AnnotationError as exc:
            return str(exc)
        for declarator in walk(definition) if definition is not None else []:
            if (
                declarator.type in ("init_declarator", "pointer_declarator", "array_declarator")
                and declared_name(declarator) == name
                and any(
                    n.type in ("pointer_declarator", "array_declarator", "reference_declarator")
                    for n in walk(declarator)
                )
            ):
                return f"{name} is a pointer or an array: only numbers move between ranks"
    return None


def cycles(loop: Loop) -> bool:
    """Whether `loop` may run in rounds: its iterations combine in any order (no argmin merged
    in rank order, no scan, no value of the last iteration to find its rank for)."""
    dep = loop.dependence
    return not dep.best_updates and dep.scan is None and not dep.lastprivate


def uneven(program: Program, loop: Loop) -> bool:
    """Whether `loop`'s iterations may cost unevenly: a loop inside it has a bound that
    mentions its counter, or is not a counted `for`."""
    word = re.compile(rf"\b{re.escape(loop.var)}\b") if loop.var else None
    for inner in program.loops:
        if loop.id not in inner.ancestors:
            continue
        if inner.kind != "for" or not inner.canonical:
            return True
        bounds = f"{inner.lower or ''} {inner.upper or ''}"
        if word is not None and word.search(bounds):
            return True
    return False


def rounds_for(program: Program, loop: Loop) -> int:
    """Rounds `loop` runs in: one block per rank, or `CYCLIC_ROUNDS` where it is uneven."""
    return CYCLIC_ROUNDS if uneven(program, loop) else 1


def _blocked_scan(raw: bytes, node: Node, loop: Loop, tag: str, cpp: bool) -> str:
    """A scan loop as a two-pass blocked scan over ranks (as `annotate` does over threads):
    each rank totals its block with the statements that update the running value, from the
    operator's identity; every rank gets every total; each starts from the value before the
    loop combined with the totals of the ranks before it and runs the whole body over its
    block; afterwards every rank holds the final value (the start combined with all totals).
    A recurrence (`a[i] = a[i - 1] + e`) is carried in a scalar of its own, as there."""
    scan = loop.dependence.scan
    assert scan is not None and loop.var is not None
    body = node.child_by_field_name("body")
    statements = body_statements(body)
    if (
        body is None
        or len(statements) < scan.split
        or (len(statements) == scan.split and not scan.exclusive)
    ):
        raise AnnotationError(f"loop {loop.id} is not the scan the analysis found")
    header = _header(node, loop, f"{tag}_lo", f"{tag}_hi")
    shift = sum(len(new.encode()) - (end - start) for start, end, new in header)
    loop_text = _segment(raw, node, header)

    def at(n: Node) -> int:
        return n.start_byte - node.start_byte + shift

    def end_of(n: Node) -> int:
        return n.end_byte - node.start_byte + shift

    split = statements[min(scan.split, len(statements) - 1)]
    before, after = loop_text[: at(split)], loop_text[end_of(split) :]
    if split == body:  # a body of one statement, without braces: the rewrite adds them
        before, after = before + "{ ", " }" + after
    typed = (
        (lambda x: f"std::remove_reference<decltype({x})>::type")
        if cpp
        else (lambda x: f"__typeof__({x})")
    )
    prelude: list[str] = []
    if scan.recurrence:
        matched = match_recurrence(split, loop.var)
        if matched is None or (matched.first is not None) != scan.first:
            raise AnnotationError(f"loop {loop.id} is not the recurrence the analysis found")
        acc = f"{tag}_run"
        element, term = text(matched.element), text(matched.term)
        declared = (
            f"std::decay<decltype({scan.var}[0])>::type {acc}{{}};"
            if cpp
            else f"__typeof__({scan.var}[0]) {acc} = 0;"
        )
        kind = typed(acc)
        if matched.first is not None:
            condition, value = text(matched.first[0]), text(matched.first[2])
            update = f"{acc} = {acc} {scan.op} ({condition} ? ({value}) : ({term}));"
            prelude = [declared, f"{acc} = {_SCAN_IDENTITY[scan.op].format(t=kind)};"]
        else:
            update = f"{acc} = {acc} {scan.op} ({term});"
            prelude = [
                declared,
                f"if (({loop.lower}) {loop.test} ({loop.upper})) {acc} = {previous_of(scan.var, loop.lower or '', scan.offset)};",
            ]
        whole = f"{before}{update} {element} = {acc};{after}"
        totalling = f"{before}{update} }}"
    elif scan.exclusive:
        # An exclusive scan (`e[i] = ex; ex += x[i];`): the first pass runs the body without
        # the statements that read the running value.
        acc = scan.var
        kind = typed(acc)
        whole = loop_text
        left_out = [statements[k] for k in scan.exclusive] + list(statements[scan.split :])
        marked = [(at(statement), text(statement)) for statement in left_out]
        totalling = cut(loop_text.encode(), marked).decode()
    elif scan.packs:
        # A compaction: the first pass runs the statement that counts and stores with its
        # stores removed (`if (c) y[k++] = e;` counts as `if (c) k++;`).
        pack = match_pack(split, scan.var)
        if pack is None or pack.arrays != scan.packs:
            raise AnnotationError(f"loop {loop.id} is not the compaction the analysis found")
        acc = scan.var
        kind = typed(acc)
        whole = loop_text
        totalling = f"{before}{counting_only(split, pack)} }}"
    else:
        acc = scan.var
        kind = typed(acc)
        whole = loop_text
        totalling = before.rstrip() + " }"
    prelude.append(f"typedef {kind} {tag}_t;")
    kind = f"{tag}_t"
    start, totals, block = (f"{tag}_{x}" for x in ("start", "totals", "b"))
    identity = _SCAN_IDENTITY[scan.op].format(t=kind)
    if scan.op in ("min", "max"):
        test = "<" if scan.op == "min" else ">"
        combine = f"if ({totals}[{block}] {test} {acc}) {acc} = {totals}[{block}];"
    else:
        combine = f"{acc} = {acc} {scan.op} {totals}[{block}];"
    width = f"(int)sizeof({kind})"
    rows = [
        "{",
        *prelude,
        f"{kind} {start} = {acc};",
        f"{kind} *{totals} = ({kind} *)malloc(sizeof({kind}) * (size_t)pf_mpi_size());",
        f"/* Pass 1: each rank totals its block with the statements that update {acc}. */",
        f"{acc} = {identity};",
        totalling,
        f"MPI_Allgather(&{acc}, {width}, MPI_BYTE, {totals}, {width}, MPI_BYTE, MPI_COMM_WORLD);",
        "/* Pass 2: each rank runs its block again from the totals of the ranks before it. */",
        f"{acc} = {start};",
        f"for (int {block} = 0; {block} < pf_mpi_rank(); ++{block}) {combine}",
        whole,
    ]
    if scan.packs:
        # Each rank stored its run of elements from where its pass 2 started: every rank gets
        # every run.
        runs = f"{tag}_runs"
        rows += [
            f"long long *{runs} = (long long *)malloc(sizeof(long long) * (size_t)pf_mpi_size());",
            f"for (int {block} = 0; {block} < pf_mpi_size(); ++{block}) "
            f"{runs}[{block}] = (long long){totals}[{block}];",
        ]
        for array in scan.packs:
            rows += [
                f"PF_MPI_NUMBER(({array})[0]);",
                f"pf_mpi_gather_runs(&({array})[0], (long long){start}, {runs}, "
                f"sizeof(({array})[0]));",
            ]
        rows.append(f"free({runs});")
    if not scan.recurrence:
        rows += [
            f"{acc} = {start};",
            f"for (int {block} = 0; {block} < pf_mpi_size(); ++{block}) {combine}",
        ]
    rows += [f"free({totals});", "}"]
    indent = _indent(raw, node)
    return f"\n{indent}".join([rows[0], *("    " + row for row in rows[1:-1]), rows[-1]])


def _segment(raw: bytes, node: Node, edits: list[tuple[int, int, str]]) -> str:
    """`node`'s text with `edits` (offsets in the whole source, inside the node) applied."""
    out = raw[node.start_byte : node.end_byte]
    for start, end, new in sorted(edits, reverse=True):
        a, b = start - node.start_byte, end - node.start_byte
        out = out[:a] + new.encode() + out[b:]
    return out.decode()


def _declares_counter(node: Node) -> bool:
    init = node.child_by_field_name("initializer")
    return init is not None and init.type == "declaration"


def _header(node: Node, loop: Loop, lo: str, hi: str) -> list[tuple[int, int, str]]:
    """Edits that make an index loop's header count from `lo` up to `hi` (exclusive)."""
    init = node.child_by_field_name("initializer")
    condition = node.child_by_field_name("condition")
    if init is None or condition is None:
        raise AnnotationError(f"loop {loop.id} has no initialiser or test to divide")
    if init.type == "declaration":
        declarator = init.child_by_field_name("declarator")
        first = declarator.child_by_field_name("value") if declarator is not None else None
    else:
        first = init.child_by_field_name("right") if init.type == "assignment_expression" else None
    if first is None:
        raise AnnotationError(f"loop {loop.id}: cannot find its counter's first value")
    bound, _, rest = hi.partition(" ")
    bound = bound if loop.counter_type in (None, "auto") else f"({loop.counter_type}){bound}"
    bound = f"{bound} {rest}".rstrip()
    return [
        (first.start_byte, first.end_byte, lo),
        (condition.start_byte, condition.end_byte, f"{loop.var} < {bound}"),
    ]


def _identity(target: str, op: str) -> str:
    if op == "&":
        return f"{target} |= ~{target};"
    value = _IDENTITY.get(op)
    return f"{target} = {value};" if value is not None else ""


def _best_blocks(node: Node, loop: Loop, tag: str) -> list[tuple[Node, str]]:
    """The `{` of each best update's block, with the flag it sets."""
    index = {u.best: n for n, u in enumerate(loop.dependence.best_updates)}
    found = []
    for child in walk(node):
        matched = match_best_update(child) if child.type == "if_statement" else None
        if matched is not None and matched[0].best in index:
            found.append((matched[2], f"{tag}_found{index[matched[0].best]}"))
    return found


def _merge_bests(update: BestUpdate, flag: str, tag: str, cpp: bool) -> list[str]:
    """Every rank's best (with whether its block found one) gathered to every rank and merged
    in rank order with the loop's own comparison; rank 0's block starts the merge."""
    names = (update.best, *update.others)
    typed = (
        f"std::remove_reference<decltype({update.best})>::type"
        if cpp
        else f"__typeof__({update.best})"
    )
    width = " + ".join(f"sizeof({n})" for n in names)
    mine, every, at, rank, cand = (f"{tag}_{x}" for x in ("mine", "all", "at", "r", "cand"))
    pack, unpack, offset = [], [], "1"
    for name in names:
        pack.append(f"    memcpy({mine} + {offset}, &({name}), sizeof({name}));")
        unpack.append(f"            memcpy(&({name}), {at} + {offset}, sizeof({name}));")
        offset += f" + sizeof({name})"
    test = update.merge.format(mine=cand)
    return [
        f"{{ /* the ranks' {update.keeps} of {update.best}, merged in rank order */",
        *(f"    PF_MPI_NUMBER({name});" for name in names),
        f"    size_t {tag}_w = 1 + {width};",
        f"    unsigned char *{mine} = (unsigned char *)malloc({tag}_w);",
        f"    unsigned char *{every} = (unsigned char *)malloc({tag}_w * (size_t)pf_mpi_size());",
        f"    {mine}[0] = (unsigned char)({flag} != 0);",
        *pack,
        f"    MPI_Allgather({mine}, (int){tag}_w, MPI_BYTE, {every}, (int){tag}_w, MPI_BYTE, "
        "MPI_COMM_WORLD);",
        f"    for (int {rank} = 0; {rank} < pf_mpi_size(); {rank}++) {{",
        f"        unsigned char *{at} = {every} + (size_t){rank} * {tag}_w;",
        f"        {typed} {cand};",
        f"        memcpy(&{cand}, {at} + 1, sizeof {cand});",
        f"        if ({rank} == 0 || ({at}[0] && {test})) {{",
        *unpack,
        "        }",
        "    }",
        f"    free({mine});",
        f"    free({every});",
        "}",
    ]


def _indent(raw: bytes, node: Node) -> str:
    line_start = raw.rfind(b"\n", 0, node.start_byte) + 1
    prefix = raw[line_start : node.start_byte].decode()
    return prefix if not prefix.strip() else ""


def _before_code(source: str, program: Program, helpers: str) -> str:
    """`helpers` before the file's first top-level thing that is neither a preprocessor line
    nor a comment (after the includes, feature macros and `#ifdef` blocks that come first)."""
    root = syntax_tree(source, program.language).root_node
    first = next(
        (
            n
            for n in root.children
            if (not n.type.startswith("preproc") and n.type != "comment")
            or (n.type in ("preproc_ifdef", "preproc_if") and _holds_code(n))
        ),
        None,
    )
    at = first.start_byte if first is not None else len(source.encode())
    raw = source.encode()
    return raw[:at].decode() + helpers + "\n" + raw[at:].decode()


_FEATURE = re.compile(r"^\s*#\s*define\s+_(?:GNU|POSIX_C|XOPEN|DEFAULT|BSD|ISOC\w*)_SOURCE\b")


def _after_feature_macros(
    source: str, headers: str, what: str = "the program's loops run as blocks over MPI ranks"
) -> str:
    """`headers` at the top of the file, after the comments and feature-test macros
    (`#define _GNU_SOURCE`) that lead it, under a line saying `what` ParForge did."""
    lines = source.split("\n")
    at = 0
    for i, line in enumerate(lines):
        if _FEATURE.match(line):
            at = i + 1
        elif line.strip().startswith("#"):
            break
    head = f"/* ---- ParForge: {what} ---- */\n"
    return "\n".join([*lines[:at], head + headers.rstrip("\n"), *lines[at:]])


def _holds_code(node: Node) -> bool:
    return any(
        not c.type.startswith("preproc")
        and c.type
        not in ("comment", "identifier", "#ifdef", "#ifndef", "#if", "#endif", "#else", "#elif")
        for c in node.named_children
    )


def _reads_stdin(root: Node) -> bool:
    """Whether the program reads standard input (raises AnnotationError where it reads it
    below the C library, where no copy can reach)."""
    found = False
    for node in walk(root):
        if node.type == "string_literal" and "/dev/stdin" in text(node):
            raise AnnotationError(
                "the program opens standard input by its path (/dev/stdin): every rank cannot "
                "be given a copy"
            )
        if node.type not in ("identifier", "field_identifier", "namespace_identifier"):
            continue
        name = text(node)
        parent = node.parent
        called = (
            parent is not None
            and parent.type == "call_expression"
            and parent.child_by_field_name("function") == node
        )
        below = name in ("STDIN_FILENO", "sync_with_stdio") or (
            called and name in _BELOW_STDIO and _reads_fd0(parent)
        )
        if below:
            raise AnnotationError(
                f"the program reads standard input below the C library ({name}): every "
                "rank cannot be given a copy"
            )
        if name == "wcin" or (called and _WIDE_STDIN.match(name)):
            raise AnnotationError(
                f"the program reads standard input as wide characters ({name}): the copy each "
                "rank reads from memory is a stream of bytes"
            )
        found |= name in _STDIN_NAMES or (called and bool(_STDIN_CALLS.match(name)))
    return found


_BELOW_STDOUT = frozenset({"write", "pwrite", "writev", "dprintf", "vdprintf", "send"})
_FILE_CALLS = frozenset(
    {"fopen", "fopen64", "freopen", "fdopen", "open", "open64", "openat", "creat", "tmpfile",
     "mkstemp", "rename", "remove", "unlink", "truncate", "ftruncate"}
)  # fmt: skip
_FILE_TYPES = frozenset(
    {"ofstream", "fstream", "filebuf", "wofstream", "wfstream", "basic_ofstream",
     "basic_fstream", "basic_filebuf"}
)  # fmt: skip


def _check_output(root: Node) -> None:
    """Refuse a program whose output the ranks other than 0 would still give: written below
    the C library's `stdout` (a descriptor, `/dev/stdout`), through a copy of `stdout` taken
    before `main` runs (`static FILE *out = stdout;`), into files, which every rank would
    write at once, or before `main` (a helper's probe: each printed its result once per rank,
    or read back a file another rank was rewriting). `pf_mpi_start` quiets only the streams
    `main` reaches through their names (and C++'s through their buffers)."""
    own = {function_name(d).split("::")[-1] for d in function_definitions(root)}
    for node in walk(root):
        if node.type == "string_literal" and re.search(
            r"/dev/(?:std|fd/|tty)|/proc/self/fd", text(node)
        ):
            raise AnnotationError(
                f"the program names an output device by its path ({text(node)}): every rank "
                "would write it"
            )
        if node.type == "type_identifier" and text(node) in _FILE_TYPES:
            raise AnnotationError(
                f"the program writes files ({text(node)}): every rank would write them"
            )
        if node.type not in ("identifier", "field_identifier", "namespace_identifier"):
            continue
        name = text(node)
        callee = (
            node.parent
            if node.parent is not None and node.parent.type == "qualified_identifier"
            else node
        )
        call = callee.parent
        called = (
            call is not None
            and call.type == "call_expression"
            and call.child_by_field_name("function") == callee
            and name not in own
        )
        if called and name in _BELOW_STDOUT:
            raise AnnotationError(
                f"the program writes below the C library ({name}): every rank would print it"
            )
        if called and name in _FILE_CALLS and not _only_reads(name, call):
            raise AnnotationError(f"the program opens files ({name}): every rank would write them")
        if name in ("stdout", "stderr", "cout", "cerr", "clog", "wcout", "wcerr") and _before_main(
            node
        ):
            raise AnnotationError(
                f"the program keeps {name} before main runs: other ranks would print through it"
            )
    early = _prints_before_main(root)
    if early is not None:
        raise AnnotationError(
            f"the program prints before main runs ({early}): every rank would print it"
        )


_OUTPUT_NAMES = frozenset(
    {"printf", "fprintf", "puts", "fputs", "putchar", "fputc", "putc", "fwrite", "perror",
     "cout", "cerr", "clog", "vprintf", "vfprintf", "write"}
)  # fmt: skip


def _prints_before_main(root: Node) -> str | None:
    """What a file-scope object's construction or initializer prints before `main` (and so
    before MPI starts) on every rank: a constructor of the program's, or a function an
    initializer calls, that names an output call (directly or through the program's other
    functions), with the object or initializer that runs it."""
    calls: dict[str, set[str]] = {}
    for definition in function_definitions(root):
        named = {text(n) for n in walk(definition) if n.type in ("identifier", "field_identifier")}
        calls.setdefault(function_name(definition).split("::")[-1], set()).update(named)
    printing = {f for f, named in calls.items() if named & _OUTPUT_NAMES}
    changed = True
    while changed:  # a function calling one that prints prints
        grown = {f for f, named in calls.items() if named & printing} | printing
        changed, printing = grown != printing, grown
    scopes = [root]
    while scopes:
        scope = scopes.pop()
        for node in scope.children:
            if node.type == "namespace_definition":
                body = node.child_by_field_name("body")
                scopes += [body] if body is not None else []
            if node.type != "declaration":
                continue
            kind = node.child_by_field_name("type")
            shown = text(kind).split("::")[-1] if kind is not None else ""
            runs = shown in printing or any(  # an object whose constructor prints
                (callee := n.child_by_field_name("function")) is not None
                and text(callee).split("::")[-1] in printing
                for n in walk(node)
                if n.type == "call_expression"
            )
            if runs:
                return text(node).strip()[:60]
    return None


def _only_reads(name: str, call: Node | None) -> bool:
    """`fopen(path, "r")`, `freopen(path, "r", stdin)`, `open(path, O_RDONLY)`, a `remove`
    of the library's algorithms (three arguments): nothing every rank would write."""
    arguments = call.child_by_field_name("arguments") if call is not None else None
    given = [text(a).replace(" ", "") for a in arguments.named_children] if arguments else []
    if name in ("fopen", "fopen64", "freopen", "fdopen") and len(given) >= 2:
        return re.fullmatch(r'"r[bt]?"', given[1]) is not None
    if name in ("open", "open64") and len(given) == 2:
        return given[1] in ("O_RDONLY", "0")
    return name == "remove" and len(given) == 3


def _before_main(node: Node) -> bool:
    """Whether `node` is in a declaration at file scope or a `static` one (run before `main`,
    or once, whichever rank's streams it saw first), other than a reference's binding (a
    C++ stream's reference reaches the buffer `pf_mpi_start` swaps)."""
    up = node.parent
    while up is not None:
        if up.type in ("declaration", "field_declaration"):
            storage = {text(c) for c in up.children if c.type == "storage_class_specifier"}
            owner = up.parent
            at_file = owner is not None and owner.type in ("translation_unit", "declaration_list")
            bound = any(
                d.type == "reference_declarator"
                for declarator in up.children_by_field_name("declarator")
                for d in walk(declarator)
            )
            if ("static" in storage or (at_file and up.type == "declaration")) and not bound:
                return True
        if up.type == "function_definition":
            return False
        up = up.parent
    return False


def _reads_fd0(call: Node | None) -> bool:
    args = call.child_by_field_name("arguments") if call is not None else None
    first = args.named_children[0] if args is not None and args.named_children else None
    return first is not None and text(first).strip() in ("0", "STDIN_FILENO")


_C_HEADERS = ("mpi.h", "limits.h", "stdio.h", "stdlib.h", "string.h")
_CPP_HEADERS = (
    "complex",
    "vector",
    "iostream",
    "iterator",
    "limits",
    "type_traits",
    "ext/stdio_sync_filebuf.h",
)


def _headers(cpp: bool) -> str:
    """The headers the helpers need: first in the file, before any macro of the program's
    (`#define count 7` would rewrite mpi.h's own declarations), after its feature-test macros."""
    names = _C_HEADERS + (_CPP_HEADERS if cpp else ())
    return "".join(f"#include <{name}>\n" for name in names)


def _helpers(cpp: bool, whole: bool) -> str:
    types = _CPP_TYPES if cpp else _C_TYPES
    common = _COMMON + (_CPP_BITS if cpp else "")
    if not whole:
        return _COMMON_HEAD + types + common
    if cpp:
        streams = _CPP_STREAMS
        quiet = (
            "std::cout.rdbuf(&pf_mpi_null); std::cerr.rdbuf(&pf_mpi_null);\n"
            "        std::clog.rdbuf(&pf_mpi_null); std::wcout.rdbuf(&pf_mpi_wnull);\n"
            "        std::wcerr.rdbuf(&pf_mpi_wnull); std::wclog.rdbuf(&pf_mpi_wnull);"
        )
        cin = (
            "static __gnu_cxx::stdio_sync_filebuf<char> pf_mpi_in(stdin);\n"
            "    std::cin.rdbuf(&pf_mpi_in);"
        )
    else:
        streams, quiet, cin = "", "", ""
    start = _START.replace("PF_MPI_QUIET_STREAMS", quiet).replace("PF_MPI_SHARE_CIN", cin)
    return _COMMON_HEAD + types + common + streams + start


_COMMON_HEAD = """\
/* ---- ParForge's helpers ---- */
"""

_C_TYPES = """\
#define PF_MPI_TYPE(x) _Generic((x), \\
    char: MPI_CHAR, signed char: MPI_SIGNED_CHAR, unsigned char: MPI_UNSIGNED_CHAR, \\
    short: MPI_SHORT, unsigned short: MPI_UNSIGNED_SHORT, int: MPI_INT, unsigned: MPI_UNSIGNED, \\
    long: MPI_LONG, unsigned long: MPI_UNSIGNED_LONG, long long: MPI_LONG_LONG, \\
    unsigned long long: MPI_UNSIGNED_LONG_LONG, float: MPI_FLOAT, double: MPI_DOUBLE, \\
    long double: MPI_LONG_DOUBLE, _Bool: MPI_C_BOOL)
/* MPI's bitwise operators are not defined on booleans: their logical ones are the same. */
static inline MPI_Op pf_mpi_bool_op(MPI_Op op) {
    return op == MPI_BXOR ? MPI_LXOR : op == MPI_BAND ? MPI_LAND : op == MPI_BOR ? MPI_LOR : op;
}
/* Nor are && and || on floating numbers: a fold's parts are 0 or 1 there, so MIN and MAX. */
static inline MPI_Op pf_mpi_floating_op(MPI_Op op) {
    return op == MPI_LAND ? MPI_MIN : op == MPI_LOR ? MPI_MAX : op;
}
#define PF_MPI_OP(x, op) _Generic((x), _Bool: pf_mpi_bool_op(op), float: pf_mpi_floating_op(op), \\
    double: pf_mpi_floating_op(op), long double: pf_mpi_floating_op(op), default: (op))
/* What moves between ranks as bytes must be a number (or a struct of numbers the file defines,
   `PF_MPI_STRUCTS`, listed after their definitions): a pointer means nothing in another
   process. */
#define PF_MPI_STRUCTS
#define PF_MPI_NUMBER(x) _Static_assert(_Generic((x), char: 1, signed char: 1, \\
    unsigned char: 1, short: 1, unsigned short: 1, int: 1, unsigned: 1, long: 1, \\
    unsigned long: 1, long long: 1, unsigned long long: 1, float: 1, double: 1, \\
    long double: 1, _Bool: 1, float _Complex: 1, double _Complex: 1, \\
    long double _Complex: 1, PF_MPI_STRUCTS default: 0), "only numbers move between ranks")
"""

_CPP_TYPES = """\
static inline MPI_Datatype pf_mpi_type(char) { return MPI_CHAR; }
static inline MPI_Datatype pf_mpi_type(signed char) { return MPI_SIGNED_CHAR; }
static inline MPI_Datatype pf_mpi_type(unsigned char) { return MPI_UNSIGNED_CHAR; }
static inline MPI_Datatype pf_mpi_type(short) { return MPI_SHORT; }
static inline MPI_Datatype pf_mpi_type(unsigned short) { return MPI_UNSIGNED_SHORT; }
static inline MPI_Datatype pf_mpi_type(int) { return MPI_INT; }
static inline MPI_Datatype pf_mpi_type(unsigned) { return MPI_UNSIGNED; }
static inline MPI_Datatype pf_mpi_type(long) { return MPI_LONG; }
static inline MPI_Datatype pf_mpi_type(unsigned long) { return MPI_UNSIGNED_LONG; }
static inline MPI_Datatype pf_mpi_type(long long) { return MPI_LONG_LONG; }
static inline MPI_Datatype pf_mpi_type(unsigned long long) { return MPI_UNSIGNED_LONG_LONG; }
static inline MPI_Datatype pf_mpi_type(float) { return MPI_FLOAT; }
static inline MPI_Datatype pf_mpi_type(double) { return MPI_DOUBLE; }
static inline MPI_Datatype pf_mpi_type(long double) { return MPI_LONG_DOUBLE; }
static inline MPI_Datatype pf_mpi_type(bool) { return MPI_CXX_BOOL; }
#define PF_MPI_TYPE(x) pf_mpi_type(x)
/* MPI's bitwise operators are not defined on booleans: their logical ones are the same. */
/* Nor are && and || on floating numbers: a fold's parts are 0 or 1 there, so MIN and MAX. */
template <class T> static inline MPI_Op pf_mpi_op(const T &, MPI_Op op) {
    if (!std::is_floating_point<T>::value) return op;
    return op == MPI_LAND ? MPI_MIN : op == MPI_LOR ? MPI_MAX : op;
}
static inline MPI_Op pf_mpi_op(const bool &, MPI_Op op) {
    return op == MPI_BXOR ? MPI_LXOR : op == MPI_BAND ? MPI_LAND : op == MPI_BOR ? MPI_LOR : op;
}
#define PF_MPI_OP(x, op) pf_mpi_op(x, op)
/* What moves between ranks as bytes must be a number (or a struct of numbers the file defines,
   specialised after its definition): a pointer or an object owning memory means nothing in
   another process. */
template <class T> struct pf_mpi_number : std::is_arithmetic<T> {};
template <class T> struct pf_mpi_number<std::complex<T> > : std::is_arithmetic<T> {};
#define PF_MPI_NUMBER(x) static_assert(pf_mpi_number<std::remove_cv< \\
    std::remove_reference<decltype(x)>::type>::type>::value, "only numbers move between ranks")
/* Elements lo to hi of a random-access container, for a range-based loop's block. */
template <class C> struct pf_mpi_range {
    C &c;
    long long lo, hi;
    auto begin() const -> decltype(std::begin(c)) { return std::begin(c) + lo; }
    auto end() const -> decltype(std::begin(c)) { return std::begin(c) + hi; }
};
template <class C> static inline pf_mpi_range<C> pf_mpi_part(C &c, long long lo, long long hi) {
    return pf_mpi_range<C>{c, lo, hi};
}
"""

_CPP_BITS = """\
/* A std::vector<bool>'s run of `count` bits from `first` set by the ranks' blocks (as
   `pf_mpi_gather` divides them), on every rank: one byte each moves. */
template <class V>
static inline void pf_mpi_gather_bits(V &pf_mpi_v, long long pf_mpi_first, long long pf_mpi_count) {
    if (pf_mpi_size() == 1 || pf_mpi_count <= 0) return;
    std::vector<unsigned char> pf_mpi_b((size_t)pf_mpi_count);
    long long pf_mpi_lo, pf_mpi_hi;
    pf_mpi_block(0, pf_mpi_count, &pf_mpi_lo, &pf_mpi_hi);
    for (long long pf_mpi_k = pf_mpi_lo; pf_mpi_k < pf_mpi_hi; pf_mpi_k++)
        pf_mpi_b[(size_t)pf_mpi_k] = pf_mpi_v[(size_t)(pf_mpi_first + pf_mpi_k)] ? 1 : 0;
    pf_mpi_gather(pf_mpi_b.data(), pf_mpi_count, 1);
    for (long long pf_mpi_k = 0; pf_mpi_k < pf_mpi_count; pf_mpi_k++)
        pf_mpi_v[(size_t)(pf_mpi_first + pf_mpi_k)] = pf_mpi_b[(size_t)pf_mpi_k] != 0;
}
"""

_CPP_STREAMS = """\
/* A stream buffer that takes every character and keeps none (ranks other than 0 write into
   it): their streams stay good, as rank 0's do, so a program that checks them goes on. */
template <class C> struct pf_mpi_null_buf : std::basic_streambuf<C> {
    typedef typename std::basic_streambuf<C>::int_type pf_mpi_int;
    pf_mpi_int overflow(pf_mpi_int pf_mpi_c) override {
        return std::basic_streambuf<C>::traits_type::not_eof(pf_mpi_c);
    }
};
static pf_mpi_null_buf<char> pf_mpi_null;
static pf_mpi_null_buf<wchar_t> pf_mpi_wnull;
"""

# The helpers' own names all start with `pf_mpi_`, which the program may not use: a macro of
# the program's defined above them (`#define size 16`) cannot reach into them.
_COMMON = """\
static inline int pf_mpi_rank(void) {
    int pf_mpi_r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &pf_mpi_r);
    return pf_mpi_r;
}
static inline int pf_mpi_size(void) {
    int pf_mpi_s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &pf_mpi_s);
    return pf_mpi_s;
}
/* This rank's block [lo, hi) of count iterations from first: the first count % size ranks
   take one more. */
static inline void pf_mpi_block(long long pf_mpi_first, long long pf_mpi_count,
                                long long *pf_mpi_lo, long long *pf_mpi_hi) {
    long long pf_mpi_p = pf_mpi_size(), pf_mpi_r = pf_mpi_rank();
    long long pf_mpi_n = pf_mpi_count > 0 ? pf_mpi_count : 0;
    long long pf_mpi_q = pf_mpi_n / pf_mpi_p, pf_mpi_m = pf_mpi_n % pf_mpi_p;
    *pf_mpi_lo = pf_mpi_first + pf_mpi_r * pf_mpi_q + (pf_mpi_r < pf_mpi_m ? pf_mpi_r : pf_mpi_m);
    *pf_mpi_hi = *pf_mpi_lo + pf_mpi_q + (pf_mpi_r < pf_mpi_m ? 1 : 0);
}
/* Round r of rounds over count iterations from first: the part [first, first + count) of
   the range it divides into blocks over the ranks. */
static inline void pf_mpi_round(long long pf_mpi_first, long long pf_mpi_count,
                                long long pf_mpi_rounds, long long pf_mpi_r,
                                long long *pf_mpi_part_first, long long *pf_mpi_part_count) {
    long long pf_mpi_n = pf_mpi_count > 0 ? pf_mpi_count : 0;
    long long pf_mpi_q = pf_mpi_n / pf_mpi_rounds, pf_mpi_m = pf_mpi_n % pf_mpi_rounds;
    *pf_mpi_part_first = pf_mpi_first + pf_mpi_r * pf_mpi_q + (pf_mpi_r < pf_mpi_m ? pf_mpi_r : pf_mpi_m);
    *pf_mpi_part_count = pf_mpi_q + (pf_mpi_r < pf_mpi_m ? 1 : 0);
}
/* The rank that runs the last of count iterations. */
static inline int pf_mpi_owner(long long pf_mpi_count) {
    long long pf_mpi_p = pf_mpi_size();
    return (int)(pf_mpi_count < pf_mpi_p ? pf_mpi_count - 1 : pf_mpi_p - 1);
}
/* A stencil's halo: `h` units (iterations' writes) either side of this rank's block of count
   units. 1: this rank's block [lo, hi) and the bytes each side, to exchange; 2: nothing to
   move (one rank, nothing written, no halo); 0: some rank's block is shorter than the halo
   (then the caller gathers every block instead). */
static inline int pf_mpi_halo_span(long long pf_mpi_count, size_t pf_mpi_unit, long long pf_mpi_h,
                                   long long *pf_mpi_lo, long long *pf_mpi_hi, int *pf_mpi_bytes) {
    int pf_mpi_p = pf_mpi_size();
    if (pf_mpi_p == 1 || pf_mpi_count <= 0 || pf_mpi_unit == 0 || pf_mpi_h == 0) return 2;
    if (pf_mpi_count / pf_mpi_p < pf_mpi_h || (double)pf_mpi_h * pf_mpi_unit > INT_MAX) return 0;
    pf_mpi_block(0, pf_mpi_count, pf_mpi_lo, pf_mpi_hi);
    *pf_mpi_bytes = (int)(pf_mpi_h * (long long)pf_mpi_unit);
    return 1;
}
/* The halo from the neighbouring ranks' blocks, `base` where the first unit starts. Returns 0,
   moving nothing, where some rank's block is shorter than the halo. */
static inline int pf_mpi_halo(void *pf_mpi_base, long long pf_mpi_count, size_t pf_mpi_unit,
                              long long pf_mpi_h) {
    long long pf_mpi_lo, pf_mpi_hi;
    int pf_mpi_bytes, pf_mpi_span = pf_mpi_halo_span(pf_mpi_count, pf_mpi_unit, pf_mpi_h,
                                                     &pf_mpi_lo, &pf_mpi_hi, &pf_mpi_bytes);
    if (pf_mpi_span != 1) return pf_mpi_span;
    int pf_mpi_p = pf_mpi_size(), pf_mpi_r = pf_mpi_rank();
    char *pf_mpi_b = (char *)pf_mpi_base;
    int pf_mpi_below = pf_mpi_r > 0 ? pf_mpi_r - 1 : MPI_PROC_NULL;
    int pf_mpi_above = pf_mpi_r < pf_mpi_p - 1 ? pf_mpi_r + 1 : MPI_PROC_NULL;
    /* this block's first rows down, the rows above it from above; then the last rows up */
    MPI_Sendrecv(pf_mpi_b + pf_mpi_lo * pf_mpi_unit, pf_mpi_bytes, MPI_BYTE, pf_mpi_below, 0,
                 pf_mpi_above == MPI_PROC_NULL ? pf_mpi_b : pf_mpi_b + pf_mpi_hi * pf_mpi_unit,
                 pf_mpi_bytes, MPI_BYTE, pf_mpi_above, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(pf_mpi_b + (pf_mpi_hi - pf_mpi_h) * pf_mpi_unit, pf_mpi_bytes, MPI_BYTE,
                 pf_mpi_above, 1,
                 pf_mpi_below == MPI_PROC_NULL ? pf_mpi_b : pf_mpi_b + (pf_mpi_lo - pf_mpi_h) * pf_mpi_unit,
                 pf_mpi_bytes, MPI_BYTE, pf_mpi_below, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return 1;
}
/* The same halo exchange with non-blocking calls: both receives and both sends posted at once,
   then waited for (evolution's `exchange` neighbour of the blocking one). */
static inline int pf_mpi_halo_nb(void *pf_mpi_base, long long pf_mpi_count, size_t pf_mpi_unit,
                                 long long pf_mpi_h) {
    long long pf_mpi_lo, pf_mpi_hi;
    int pf_mpi_bytes, pf_mpi_span = pf_mpi_halo_span(pf_mpi_count, pf_mpi_unit, pf_mpi_h,
                                                     &pf_mpi_lo, &pf_mpi_hi, &pf_mpi_bytes);
    if (pf_mpi_span != 1) return pf_mpi_span;
    int pf_mpi_p = pf_mpi_size(), pf_mpi_r = pf_mpi_rank(), pf_mpi_n = 0;
    char *pf_mpi_b = (char *)pf_mpi_base;
    MPI_Request pf_mpi_q[4];
    if (pf_mpi_r > 0) {
        MPI_Irecv(pf_mpi_b + (pf_mpi_lo - pf_mpi_h) * pf_mpi_unit, pf_mpi_bytes, MPI_BYTE,
                  pf_mpi_r - 1, 1, MPI_COMM_WORLD, &pf_mpi_q[pf_mpi_n++]);
        MPI_Isend(pf_mpi_b + pf_mpi_lo * pf_mpi_unit, pf_mpi_bytes, MPI_BYTE, pf_mpi_r - 1, 0,
                  MPI_COMM_WORLD, &pf_mpi_q[pf_mpi_n++]);
    }
    if (pf_mpi_r < pf_mpi_p - 1) {
        MPI_Irecv(pf_mpi_b + pf_mpi_hi * pf_mpi_unit, pf_mpi_bytes, MPI_BYTE, pf_mpi_r + 1, 0,
                  MPI_COMM_WORLD, &pf_mpi_q[pf_mpi_n++]);
        MPI_Isend(pf_mpi_b + (pf_mpi_hi - pf_mpi_h) * pf_mpi_unit, pf_mpi_bytes, MPI_BYTE,
                  pf_mpi_r + 1, 1, MPI_COMM_WORLD, &pf_mpi_q[pf_mpi_n++]);
    }
    MPI_Waitall(pf_mpi_n, pf_mpi_q, MPI_STATUSES_IGNORE);
    return 1;
}
/* Every rank's part of an array, assembled on every rank: rank r's `counts[r]` elements of
   `unit` bytes from element `displs[r]` of `base` (both lists freed). */
static inline void pf_mpi_assemble(void *pf_mpi_base, int *pf_mpi_counts, int *pf_mpi_displs,
                                   size_t pf_mpi_unit) {
    MPI_Datatype pf_mpi_t;
    MPI_Type_contiguous((int)pf_mpi_unit, MPI_BYTE, &pf_mpi_t);
    MPI_Type_commit(&pf_mpi_t);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, pf_mpi_base, pf_mpi_counts, pf_mpi_displs,
                   pf_mpi_t, MPI_COMM_WORLD);
    MPI_Type_free(&pf_mpi_t);
    free(pf_mpi_counts);
    free(pf_mpi_displs);
}
/* A compaction's runs, assembled on every rank: rank r stored `runs[r]` elements of `unit`
   bytes from element `first` of `base` plus the runs of the ranks before it. */
static inline void pf_mpi_gather_runs(void *pf_mpi_base, long long pf_mpi_first,
                                      const long long *pf_mpi_runs, size_t pf_mpi_unit) {
    int pf_mpi_p = pf_mpi_size();
    if (pf_mpi_p == 1 || pf_mpi_unit == 0) return;
    int *pf_mpi_counts = (int *)malloc(sizeof(int) * (size_t)pf_mpi_p);
    int *pf_mpi_displs = (int *)malloc(sizeof(int) * (size_t)pf_mpi_p);
    long long pf_mpi_at = pf_mpi_first;
    for (int pf_mpi_k = 0; pf_mpi_k < pf_mpi_p; pf_mpi_k++) {
        pf_mpi_counts[pf_mpi_k] = (int)pf_mpi_runs[pf_mpi_k];
        pf_mpi_displs[pf_mpi_k] = (int)pf_mpi_at;
        pf_mpi_at += pf_mpi_runs[pf_mpi_k];
    }
    pf_mpi_assemble(pf_mpi_base, pf_mpi_counts, pf_mpi_displs, pf_mpi_unit);
}
/* Every rank's block of a loop's writes, assembled on every rank: `base` is where the loop's
   first iteration writes, `unit` the bytes one iteration writes. */
static inline void pf_mpi_gather(void *pf_mpi_base, long long pf_mpi_count, size_t pf_mpi_unit) {
    int pf_mpi_p = pf_mpi_size();
    if (pf_mpi_p == 1 || pf_mpi_count <= 0 || pf_mpi_unit == 0) return;
    int *pf_mpi_counts = (int *)malloc(sizeof(int) * (size_t)pf_mpi_p);
    int *pf_mpi_displs = (int *)malloc(sizeof(int) * (size_t)pf_mpi_p);
    long long pf_mpi_q = pf_mpi_count / pf_mpi_p, pf_mpi_m = pf_mpi_count % pf_mpi_p;
    for (int pf_mpi_k = 0; pf_mpi_k < pf_mpi_p; pf_mpi_k++) {
        pf_mpi_counts[pf_mpi_k] = (int)(pf_mpi_q + (pf_mpi_k < pf_mpi_m ? 1 : 0));
        pf_mpi_displs[pf_mpi_k] = (int)(pf_mpi_k * pf_mpi_q + (pf_mpi_k < pf_mpi_m ? pf_mpi_k : pf_mpi_m));
    }
    pf_mpi_assemble(pf_mpi_base, pf_mpi_counts, pf_mpi_displs, pf_mpi_unit);
}
"""

_START = """\
static inline void pf_mpi_stop(void) {
    int pf_mpi_done = 0;
    MPI_Finalized(&pf_mpi_done);
    if (!pf_mpi_done) {
        fflush(stdout);
        MPI_Finalize();
    }
}
static char pf_mpi_sink[256];
static char *pf_mpi_kept;
static size_t pf_mpi_kept_size;
/* MPI starts; ranks other than 0 write their output into memory nobody reads (one copy of
   every message, one kernel time): a stream that grows as they write, so that it never fails
   (a program checking `ferror(stdout)` goes on as rank 0 does), else a small buffer; with
   `share_stdin`, rank 0 reads standard input whole and every rank reads a copy of it from
   memory, through the C library's `stdin` (and C++'s `std::cin`, which reads through it). */
static inline void pf_mpi_start(int pf_mpi_share_stdin) {
    MPI_Init(NULL, NULL);
    atexit(pf_mpi_stop);
    int pf_mpi_r = pf_mpi_rank();
    if (pf_mpi_r != 0) {
        fflush(stdout);
        FILE *pf_mpi_quiet = open_memstream(&pf_mpi_kept, &pf_mpi_kept_size);
        if (pf_mpi_quiet == NULL) pf_mpi_quiet = fmemopen(pf_mpi_sink, sizeof pf_mpi_sink, "w");
        if (pf_mpi_quiet != NULL) stdout = stderr = pf_mpi_quiet;
        PF_MPI_QUIET_STREAMS
    }
    if (!pf_mpi_share_stdin) return;
    long long pf_mpi_length = 0, pf_mpi_capacity = 1 << 16;
    char *pf_mpi_data = (char *)malloc((size_t)pf_mpi_capacity);
    if (pf_mpi_r == 0) {
        for (;;) {
            if (pf_mpi_length == pf_mpi_capacity) {
                pf_mpi_capacity *= 2;
                pf_mpi_data = (char *)realloc(pf_mpi_data, (size_t)pf_mpi_capacity);
            }
            size_t pf_mpi_got = fread(pf_mpi_data + pf_mpi_length, 1,
                                      (size_t)(pf_mpi_capacity - pf_mpi_length), stdin);
            if (pf_mpi_got == 0) break;
            pf_mpi_length += (long long)pf_mpi_got;
        }
    }
    MPI_Bcast(&pf_mpi_length, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (pf_mpi_length == 0) {  /* every rank's standard input is at its end */
        free(pf_mpi_data);
        return;
    }
    if (pf_mpi_r != 0 && pf_mpi_length > pf_mpi_capacity)
        pf_mpi_data = (char *)realloc(pf_mpi_data, (size_t)pf_mpi_length);
    for (long long pf_mpi_at = 0; pf_mpi_at < pf_mpi_length; pf_mpi_at += 1 << 30) {
        long long pf_mpi_part = pf_mpi_length - pf_mpi_at < (1 << 30) ? pf_mpi_length - pf_mpi_at : (1 << 30);
        MPI_Bcast(pf_mpi_data + pf_mpi_at, (int)pf_mpi_part, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
    /* kept open, and the data with it */
    FILE *pf_mpi_copy = fmemopen(pf_mpi_data, (size_t)pf_mpi_length, "r");
    if (pf_mpi_copy != NULL) stdin = pf_mpi_copy;
    PF_MPI_SHARE_CIN
}
"""


def distributed_walks(source: str, program: Program) -> tuple[str, str] | None:
    """(the function's name, the source with its graph walks run as levels over ranks: see
    the module's text) for a source without `main` whose one walking function
    `agents.analysis.traversal.read_walks` reads; None where no function walks;
    AnnotationError where one walks in a way no levels run."""
    if program.has_main or program.language is Language.C:
        return None
    root = syntax_tree(source, program.language).root_node
    found: list[tuple[Node, Walks]] = []
    for definition in function_definitions(root):
        body = definition.child_by_field_name("body")
        if body is None:
            continue
        statements = [s for s in body.named_children if s.type != "comment"]
        walks = read_walks(definition, statements)
        if walks is not None:
            found.append((definition, walks))
    if not found:
        return None
    if len(found) > 1:
        raise AnnotationError("more than one function walks a graph")
    definition, walks = found[0]
    kind = definition.child_by_field_name("type")
    returned = text(kind) if kind is not None else "void"
    if returned == "void":
        raise AnnotationError("the walking function returns nothing to give rank 0")
    body = definition.child_by_field_name("body")
    assert body is not None
    name = function_name(definition)
    w = walks.walk
    n = "pf_n"
    lines = [
        "{",
        f"    /* {name}: {walks.what}.",
        "       ParForge: every rank keeps every vertex's level, tests the rows of its block of",
        "       each level's vertices, and the ranks' finds are combined on every rank before",
        "       the next level. */",
        "    int pf_rank = 0, pf_ranks = 1;",
        "    MPI_Comm_rank(MPI_COMM_WORLD, &pf_rank);",
        "    MPI_Comm_size(MPI_COMM_WORLD, &pf_ranks);",
        f"    const long long {n} = (long long)({walks.size});",
        f"    const long long pf_lo = {n} * pf_rank / pf_ranks, pf_hi = {n} * (pf_rank + 1) / pf_ranks;",
        f"    std::vector<int> pf_level((size_t)({n} > 0 ? {n} : 0), -1); /* -1: not reached */",
        "    std::vector<int> pf_found(pf_level.size());",
        "    long long pf_walks = 0, pf_most = 0; /* walks taken, the most vertices in one */",
        "    int pf_at = 0; /* the level the next walk starts at */",
    ]
    if walks.result == "distance":
        src, dest = walks.source, walks.dest
        lines += [
            f"    const long long pf_start = (long long)({src});",
            f"    const bool pf_dest_ok = (long long)({dest}) >= 0 && (long long)({dest}) < {n};",
            f"    for (bool pf_once = pf_start >= 0 && pf_start < {n}; pf_once; pf_once = false) {{",
        ]
    else:
        lines += [
            "    long long pf_start = 0;",
            "    for (;;) {",
            f"        while (pf_start < {n} && pf_level[pf_start] != -1) pf_start++;",
            f"        if (pf_start >= {n}) break;",
        ]
    lines += [
        "        pf_level[pf_start] = pf_at;",
        "        long long pf_size = 1;",
        "        for (int pf_l = pf_at;; pf_l++) {",
        "            std::fill(pf_found.begin(), pf_found.end(), 0);",
        "            for (long long pf_k = pf_lo; pf_k < pf_hi; pf_k++) {",
        "                if (pf_level[pf_k] != pf_l) continue;",
        f"                const {w.vertex_type} {w.vertex} = ({w.vertex_type})pf_k;",
        f"                for (long long pf_m = 0; pf_m < {n}; pf_m++) {{",
        f"                    const {w.neighbour_type} {w.neighbour} = ({w.neighbour_type})pf_m;",
        f"                    if (pf_level[pf_m] == -1 && ({w.edge})) pf_found[pf_m] = 1;",
        f"                    (void){w.neighbour};",
        "                }",
        f"                (void){w.vertex};",
        "            }",
        f"            if ({n} > 0)",
        f"                MPI_Allreduce(MPI_IN_PLACE, pf_found.data(), (int){n}, MPI_INT, MPI_LOR, MPI_COMM_WORLD);",
        "            long long pf_new = 0;",
        f"            for (long long pf_m = 0; pf_m < {n}; pf_m++)",
        "                if (pf_found[pf_m]) {",
        "                    pf_level[pf_m] = pf_l + 1;",
        "                    pf_new++;",
        "                }",
        "            pf_size += pf_new;",
        "            if (pf_new == 0) {",
        "                pf_at = pf_l + 1;",
        "                break;",
        "            }",
    ]
    if walks.result == "distance":
        lines.append(f"            if (pf_dest_ok && pf_level[({walks.dest})] != -1) break;")
    lines += [
        "        }",
        "        pf_walks++;",
        "        if (pf_size > pf_most) pf_most = pf_size;",
        "    }",
        "    (void)pf_walks;",
        "    (void)pf_most;",
    ]
    if walks.result == "distance":
        dest = walks.dest
        lines.append(
            f"    return ({returned})((pf_dest_ok && pf_level[({dest})] != -1) ? "
            f"pf_level[({dest})] : ({walks.unreached}));"
        )
    else:
        lines.append(f"    return ({returned})(pf_{walks.result});")
    lines.append("}")
    raw = source.encode()
    out = raw[: body.start_byte] + "\n".join(lines).encode() + raw[body.end_byte :]
    return name, _after_feature_macros(
        out.decode(),
        "#include <mpi.h>\n#include <algorithm>\n#include <vector>\n",
        "the graph walks run as levels over MPI ranks",
    )


# --- sorts --------------------------------------------------------------------------------

_SORTS = {"std::sort": "std::sort", "sort": "std::sort"}
_SORTS |= {"std::stable_sort": "std::stable_sort", "stable_sort": "std::stable_sort"}
_ORDERS = re.compile(r"^std::(?:less|greater)\s*<[^<>]*>\s*(?:\(\s*\)|\{\s*\})$")
_SIDE_EFFECTS = re.compile(r"\+\+|--|(?<![=!<>])=(?!=)|\b(?:static|new|delete|printf|cout)\b")


def distributed_sorts(source: str, program: Program) -> str | None:
    """The C++ source with each sort of a whole vector (`std::sort(v.begin(), v.end());`,
    with a comparison or not, and `std::stable_sort`) run as blocks over the ranks: each rank
    sorts its block, every rank gets every block (`MPI_Allgatherv` of their bytes) and merges
    them pairwise (`std::inplace_merge`), so every rank holds the sorted vector, as it held
    the vector. A stable sort stays stable (each block's equal elements keep their order, and
    a merge puts the left block's first); `std::sort` leaves equal elements in some order, as
    it does. None where the source sorts no whole vector this way. Only numbers and structs
    of numbers move (the compiler checks it: a pointer means nothing in another process); a
    comparison must be `std::less`/`std::greater` or a lambda that captures nothing and
    changes nothing (it runs in every block and merge)."""
    if program.language is Language.C:
        return None
    root = syntax_tree(source, program.language).root_node
    edits: list[tuple[int, int, str]] = []
    for node in walk(root):
        rewritten = _block_sort(node)
        if rewritten is not None:
            edits.append((node.start_byte, node.end_byte, rewritten))
    if not edits:
        return None
    data = source.encode()
    for start, end, new in sorted(edits, reverse=True):
        data = data[:start] + new.encode() + data[end:]
    return _after_feature_macros(
        data.decode(),
        "#include <mpi.h>\n#include <algorithm>\n#include <type_traits>\n#include <vector>\n",
        "the sorts of whole vectors run as blocks over MPI ranks",
    )


def sorts_first(source: str, program: Program) -> tuple[str, Program, bool]:
    """The source and its analysis with its sorts of whole vectors run as rank blocks
    (`distributed_sorts`), and whether any was; as they are where none is."""
    rewritten = distributed_sorts(source, program)
    if rewritten is None:
        return source, program, False
    return rewritten, analyse(rewritten, program.language), True


def _block_sort(statement: Node) -> str | None:
    """The rank-block version of an expression statement sorting a whole vector, or None."""
    if statement.type != "expression_statement" or statement.named_child_count != 1:
        return None
    call = unwrap(statement.named_children[0])
    if call.type != "call_expression":
        return None
    callee = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if callee is None or arguments is None:
        return None
    sort = _SORTS.get(text(callee).replace(" ", ""))
    args = [a for a in arguments.named_children if a.type != "comment"]
    if sort is None or len(args) not in (2, 3):
        return None
    first = re.fullmatch(r"(\w+)\s*\.\s*begin\s*\(\s*\)", text(args[0]))
    last = re.fullmatch(r"(\w+)\s*\.\s*end\s*\(\s*\)", text(args[1]))
    if first is None or last is None or first.group(1) != last.group(1):
        return None
    vector = first.group(1)
    if not _a_vector(statement, vector):
        return None
    order = ""
    if len(args) == 3:
        shown = text(args[2])
        lambda_ok = (
            args[2].type == "lambda_expression"
            and re.match(r"\[\s*\]", shown) is not None
            and not _SIDE_EFFECTS.search(shown.split("{", 1)[1] if "{" in shown else "")
        )
        if not (lambda_ok or _ORDERS.match(shown)):
            return None
        order = f", {shown}"
    indent = " " * statement.start_point.column
    v = "pf_sort_v"
    lines = [
        f"{{ /* ParForge: {sort}({vector}) as blocks over the ranks: each rank sorts its block,",
        "     every rank gets every block and merges them in pairs */",
        f"    auto &{v} = {vector};",
        f"    typedef typename std::decay<decltype({v}[0])>::type pf_sort_t;",
        "    static_assert(std::is_arithmetic<pf_sort_t>::value || std::is_trivially_copyable<"
        'pf_sort_t>::value, "only numbers move between ranks");',
        "    int pf_sort_r = 0, pf_sort_p = 1;",
        "    MPI_Comm_rank(MPI_COMM_WORLD, &pf_sort_r);",
        "    MPI_Comm_size(MPI_COMM_WORLD, &pf_sort_p);",
        f"    const long long pf_sort_n = (long long){v}.size();",
        "    const long long pf_sort_bytes = pf_sort_n * (long long)sizeof(pf_sort_t);",
        "    if (pf_sort_p == 1 || pf_sort_n < 2 * pf_sort_p || pf_sort_bytes > 2147483647LL) {",
        f"        {sort}({v}.begin(), {v}.end(){order});  /* as it was: too few, or too many bytes */",
        "    } else {",
        "        std::vector<int> pf_sort_count(pf_sort_p), pf_sort_at(pf_sort_p);",
        "        for (int pf_k = 0; pf_k < pf_sort_p; pf_k++) {",
        "            const long long pf_a = pf_sort_n * pf_k / pf_sort_p, pf_b = pf_sort_n * (pf_k + 1) / pf_sort_p;",
        "            pf_sort_at[pf_k] = (int)(pf_a * (long long)sizeof(pf_sort_t));",
        "            pf_sort_count[pf_k] = (int)((pf_b - pf_a) * (long long)sizeof(pf_sort_t));",
        "        }",
        f"        {sort}({v}.begin() + pf_sort_n * pf_sort_r / pf_sort_p,",
        f"                  {v}.begin() + pf_sort_n * (pf_sort_r + 1) / pf_sort_p{order});",
        f"        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, (void *){v}.data(),",
        "                       pf_sort_count.data(), pf_sort_at.data(), MPI_BYTE, MPI_COMM_WORLD);",
        "        for (int pf_w = 1; pf_w < pf_sort_p; pf_w *= 2) {",
        "            for (int pf_k = 0; pf_k + pf_w < pf_sort_p; pf_k += 2 * pf_w) {",
        "                const int pf_e = pf_k + 2 * pf_w < pf_sort_p ? pf_k + 2 * pf_w : pf_sort_p;",
        f"                std::inplace_merge({v}.begin() + pf_sort_n * pf_k / pf_sort_p,",
        f"                                   {v}.begin() + pf_sort_n * (pf_k + pf_w) / pf_sort_p,",
        f"                                   {v}.begin() + pf_sort_n * pf_e / pf_sort_p{order});",
        "            }",
        "        }",
        "    }",
        "}",
    ]
    return ("\n" + indent).join(lines)


_NUMBER = re.compile(
    r"(?:(?:unsigned|signed|long|short|const)\s+)*(?:char|short|int|long|float|double|size_t|"
    r"u?int(?:8|16|32|64)_t|std::size_t|std::u?int(?:8|16|32|64)_t|long long|long double)"
    r"|std::complex\s*<\s*(?:float|double|long double)\s*>"
)


def _a_vector(statement: Node, name: str) -> bool:
    """Whether `name`, where `statement` stands, is declared (a parameter or a declaration of
    its function) a `std::vector` of numbers, complex numbers or structs of numbers the file
    defines: what means the same in another process, as bytes."""
    definition = statement.parent
    while definition is not None and definition.type != "function_definition":
        definition = definition.parent
    if definition is None:
        return False
    root = root_of(definition)
    kind = _declared_types(root, definition).get(name, "")
    element = re.fullmatch(r"(?:const\s+)?(?:std::)?vector\s*<\s*(.+?)\s*>\s*(?:const)?", kind)
    if element is None:
        return False
    shown = " ".join(element.group(1).split())
    plain = {n.removeprefix("struct ") for _, n in _plain_structs(root, cpp=True)}
    return _NUMBER.fullmatch(shown) is not None or shown.removeprefix("struct ") in plain
