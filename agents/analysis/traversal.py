"""CUDA kernels for graph traversals over an adjacency matrix (ParEval's graph problems).

A sequential function that walks a graph with a worklist (`std::queue`, `std::stack`,
`std::deque`, or a `std::vector` used as a stack) cannot be divided by its loops: each step
depends on what the steps before it marked. What it computes can be, where the result is one
of three things a traversal's marks decide, whatever order the worklist hands vertices out:

- **components**: `for (i = 0; i < N; i++) if (!visited[i]) { ...walk from i... }`, returning
  how many walks started (`++count` per walk) or the most vertices one walk took out of its
  worklist (`size++` per vertex, `best = std::max(best, size)`);
- **distance**: one walk from a `source` in a queue, each vertex found at its finder's
  distance plus one (`dist[j] = dist[v] + 1`), returning the distance of `dest` (or its walk
  back along `prev[]`, the same count) or a stated value where none reached it.

A walk that marks a vertex when it first meets it (at its push) or when it takes it out (a
`continue` past marked vertices) reaches, from its start, every vertex a path of unmarked
vertices leads to along the function's own edge test (`A[v * N + j] == 1`), in any order: so
the kernel takes the walks in the sequential order of their starts, and runs each as a
breadth-first search in levels, every thread taking tiles of the level's vertices and testing
their rows (a vertex is claimed with a compare-and-swap, so it is counted once). Levels and
walks meet at the grid barrier of loops in phases (`agents.analysis.kernels.PHASES`), so any
launch shape runs it. The matrix need not be symmetric: the edges are followed as the function
follows them. Vertex levels live in device heap memory (one `int` per vertex, far below the
device heap's default wherever the matrix itself fits), allocated by the first seat and freed
after the last barrier; a launch whose allocation fails stops with a trap, which the verifier
sees as a failed run, not a wrong answer.

A distance is a breadth-first search's only where the worklist is a queue; a stack's walk
gives other distances, so the kernel refuses it. Anything else in the function (guards, other
arrays read, other results) gets no kernel, with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

from agents.analysis.errors import AnnotationError
from agents.analysis.launch import (
    DONE,
    HELPERS,
    PHASES,
    global_definition,
    seated,
    signature_params,
)
from agents.analysis.parse import (
    canon,
    declared_name,
    function_definitions,
    function_name,
    function_params,
    root_of,
    text,
    unwrap,
    walk,
)

_WORKLISTS = {
    "std::queue": ("front", "pop", "push"),
    "queue": ("front", "pop", "push"),
    "std::stack": ("top", "pop", "push"),
    "stack": ("top", "pop", "push"),
    "std::deque": ("front", "pop_front", "push_back"),
    "deque": ("front", "pop_front", "push_back"),
    "std::vector": ("back", "pop_back", "push_back"),
    "vector": ("back", "pop_back", "push_back"),
}
"""The containers a walk keeps its vertices in: (what it takes, how it removes it, how it
adds one). A `std::deque` used from the back is a stack, not a queue."""

_QUEUES = frozenset({"std::queue", "queue", "std::deque", "deque"})


def compact(node: Node) -> str:
    """The node's code with spaces only between words: `q.push(i);`, `if(!seen[i]){...}`."""
    return re.sub(r"\s*([^\w\s])\s*", r"\1", canon(node))


def _statements(node: Node | None) -> list[Node]:
    """The statements a body runs: a block's, or the one statement itself."""
    if node is None:
        return []
    if node.type == "compound_statement":
        return [s for s in node.named_children if s.type != "comment"]
    return [node]


@dataclass
class _Walk:
    """One worklist walk: its container, the vertex it takes out and its type, the neighbour
    loop's counter and type, the edge test (code over the matrix, the vertex and the
    neighbour), how a vertex is marked and whether at its push or when taken out, the
    per-vertex counter, and the distance array where the walk keeps one."""

    worklist: str
    kind: str
    vertex: str
    vertex_type: str
    neighbour: str
    neighbour_type: str
    edge: str
    marks: str
    at_push: bool
    counter: str | None = None
    distance: str | None = None
    unmarked: str = ""
    """The value an unmarked vertex's mark holds (`false`, `INT_MAX`)."""
    written: set[str] = field(default_factory=set)
    """Local arrays the walk only writes (`prev[j] = v;`)."""
    early: tuple[str, str] | None = None
    """(vertex, array) where the walk returns `array[vertex]` once it takes that vertex out."""
    recursive: bool = False
    """A function calling itself on each neighbour (its worklist the call stack): the walk's
    statement is its call, whose value, where it has one, is the vertices it reached."""
    call: str = ""
    """The recursive function's name."""


def _unmarked_test(term: Node, index: str) -> tuple[str, str] | None:
    """(array, unmarked value) where `term` tests that `array[index]` is unmarked:
    `!seen[j]`, `seen[j] == false`, `seen[j] == 0`, `dist[j] == INT_MAX`."""
    code = compact(unwrap(term))
    found = re.fullmatch(rf"!(\w+)\[{index}\]", code)
    if found:
        return found[1], "false"
    found = re.fullmatch(rf"(\w+)\[{index}\]==(.+)", code) or re.fullmatch(
        rf"(.+)==(\w+)\[{index}\]", code
    )
    if found is None:
        return None
    array, value = (found[1], found[2]) if code.startswith(found[1] + "[") else (found[2], found[1])
    return array, value


_FALSY = frozenset({"false", "0"})
"""Unmarked values a truthiness test (`if (seen[v])`) reads as unmarked."""


def _same_mark(a: str, b: str) -> bool:
    """Whether two spellings of a mark are one value (`false` and `0`, `true` and `1`)."""
    return a == b or {a, b} <= _FALSY or {a, b} <= {"true", "1"}


def _pure_declaration(statement: Node, worklist: str) -> bool:
    """Whether `statement` declares one name and does nothing else: no storage class (a
    `static` count would outlive the call), no assignment, increment or call in its value,
    and an empty worklist."""
    if statement.type != "declaration" or not _declare(statement, _Locals()):
        return False
    if any(c.type == "storage_class_specifier" for c in statement.children):
        return False
    if any(
        n.type in ("assignment_expression", "update_expression", "call_expression")
        for n in walk(statement)
    ):
        return False
    name = declared_name(statement.children_by_field_name("declarator")[0])
    return name != worklist or compact(statement.children_by_field_name("declarator")[0]) == name


def _plain_type(kind: str) -> str:
    """A declared vertex type without `const` (the kernel declares its own `const`), `auto`
    as `int` (an `auto j = 0` counter's type)."""
    kind = " ".join(w for w in kind.split() if w != "const")
    return "int" if kind == "auto" else kind


_LITERAL = re.compile(r"-?\d+|INT_MAX|LLONG_MAX|SIZE_MAX|std::numeric_limits<int>::max\(\)")
"""What a distance may start from or a walk return where it did not reach: a number, or a
largest value, never a name a kernel would not have."""


def _terms(condition: Node) -> list[Node]:
    """The conjuncts of a condition (`a && (b && c)`: a, b, c)."""
    node = unwrap(condition)
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        if op is not None and text(op) == "&&":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            assert left is not None and right is not None
            return _terms(left) + _terms(right)
    return [node]


def _condition(statement: Node) -> Node | None:
    cond = statement.child_by_field_name("condition")
    if cond is None:
        return None
    # `if (x)`'s condition is a condition_clause in newer grammars
    named = [c for c in cond.named_children if c.type != "comment"]
    return named[0] if cond.type == "condition_clause" and len(named) == 1 else cond


def _neighbour_tests(loop: Node) -> tuple[list[Node], list[Node]]:
    """The conjuncts of the `if`s a neighbour loop's body nests (`if (a && b) { if (c) ... }`)
    and the statements inside the innermost."""
    tests: list[Node] = []
    inner = _statements(loop.child_by_field_name("body"))
    while len(inner) == 1 and inner[0].type == "if_statement":
        if inner[0].child_by_field_name("alternative") is not None:
            raise AnnotationError("the neighbour test has an else")
        cond = _condition(inner[0])
        assert cond is not None
        tests += _terms(cond)
        inner = _statements(inner[0].child_by_field_name("consequence"))
    return tests, inner


def _counted_loop(loop: Node, bound: str) -> tuple[str, str] | None:
    """(counter, its type) where `loop` is `for (T j = 0; j < bound; j++)`, with the bound
    maybe cast (`(int)N`)."""
    if loop.type != "for_statement":
        return None
    init = loop.child_by_field_name("initializer")
    cond = loop.child_by_field_name("condition")
    step = loop.child_by_field_name("update")
    if init is None or cond is None or step is None or init.type != "declaration":
        return None
    found = re.fullmatch(r"([\w:]+(?: [\w:]+)*) (\w+)=0;", compact(init))
    if found is None:
        return None
    kind, name = found[1], found[2]
    casts = (bound, f"(int){bound}", f"static_cast<int>({bound})", f"(size_t){bound}")
    if compact(cond) not in [f"{name}<{b}" for b in casts]:
        return None
    if compact(step) not in (f"{name}++", f"++{name}", f"{name}+=1"):
        return None
    return name, kind


def _increment(statement: Node) -> str | None:
    """The name a statement adds one to (`size++;`, `++count;`, `n += 1;`)."""
    found = re.fullmatch(r"(?:(\w+)\+\+|\+\+(\w+)|(\w+)\+=1);", compact(statement))
    return next((g for g in found.groups() if g), None) if found else None


def _read_walk(
    loop: Node,
    matrix: str,
    sizes: list[str],
    locals_: dict[str, str],
    element_types: dict[str, str],
) -> tuple[_Walk, str]:
    """The walk a `while (!w.empty())` loop runs (see `_Walk`) and the vertex count (of
    `sizes`) its neighbour loop runs to, or AnnotationError."""
    found = re.fullmatch(r"while\(!(\w+)\.empty\(\)\)", compact(loop).split("{", 1)[0])
    if found is None or found[1] not in locals_ or locals_[found[1]] not in _WORKLISTS:
        raise AnnotationError("the walk's loop is not `while (!worklist.empty())`")
    worklist = found[1]
    kind = locals_[worklist]
    take, remove, add = _WORKLISTS[kind]
    body = _statements(loop.child_by_field_name("body"))
    if len(body) < 2:
        raise AnnotationError("the walk takes no vertex out")
    taken = re.fullmatch(rf"([\w:]+(?: [\w:]+)*) (\w+)={worklist}\.{take}\(\);", compact(body[0]))
    if taken is None or compact(body[1]) != f"{worklist}.{remove}();":
        raise AnnotationError(
            f"the walk does not start by taking a vertex out ({worklist}.{take}(), "
            f"{worklist}.{remove}())"
        )
    vertex_type, vertex = taken[1], taken[2]
    if vertex_type in ("auto", "const auto"):
        vertex_type = element_types.get(worklist, "")
    vertex_type = _plain_type(vertex_type)
    if not re.fullmatch(
        r"(?:unsigned |signed |long |const )*(?:int|long|size_t|unsigned|std::size_t)", vertex_type
    ):
        raise AnnotationError(f"the walk's vertices are not integers: {vertex_type}")
    rest = body[2:]
    at_push = True
    marks: str | None = None
    if rest and re.fullmatch(rf"if\((\w+)\[{vertex}\]\)continue;", compact(rest[0])):
        # marked when taken out: `if (seen[v]) continue; seen[v] = true;`
        marks = re.fullmatch(rf"if\((\w+)\[{vertex}\]\)continue;", compact(rest[0]))[1]  # type: ignore[index]
        if len(rest) < 2 or compact(rest[1]) not in (
            f"{marks}[{vertex}]=true;",
            f"{marks}[{vertex}]=1;",
        ):
            raise AnnotationError("a walk that skips marked vertices must mark the one it takes")
        at_push, rest = False, rest[2:]
    counter: str | None = None
    loops = [s for s in rest if s.type == "for_statement"]
    early: tuple[str, str] | None = None
    for statement in rest:
        if statement.type == "for_statement":
            continue
        reached = re.fullmatch(
            rf"if\({vertex}==(\w+)\)(?:\{{)?return (\w+)\[(?:{vertex}|\1)\];(?:\}})?",
            compact(statement),
        )
        if reached and early is None:
            early = (reached[1], reached[2])  # `if (u == dest) return dist[u];`
            continue
        name = _increment(statement)
        if name is None or counter is not None:
            raise AnnotationError(f"the walk does more per vertex: {text(statement)[:60]}")
        counter = name
    if len(loops) != 1:
        raise AnnotationError("the walk does not test one row of neighbours")
    size = next((n for n in sizes if _counted_loop(loops[0], n) is not None), None)
    head = _counted_loop(loops[0], size) if size is not None else None
    if size is None or head is None:
        raise AnnotationError(
            "the neighbour loop is not `for (j = 0; j < N; j++)` over a count it takes"
        )
    neighbour, neighbour_type = head[0], _plain_type(head[1])
    tests, inner = _neighbour_tests(loops[0])
    unmarked = [(t, m) for t in tests if (m := _unmarked_test(t, neighbour)) is not None]
    if len(unmarked) != 1:
        raise AnnotationError("the neighbour test does not test one mark")
    mark_array, mark_value = unmarked[0][1]
    if not at_push and (marks != mark_array or mark_value not in _FALSY):
        raise AnnotationError("the walk skips vertices by another mark than it tests")
    edges = [t for t in tests if t != unmarked[0][0]]
    allowed = {matrix, size, vertex, neighbour}
    for edge in edges:
        names = {text(n) for n in walk(edge) if n.type == "identifier"}
        if not names <= allowed or matrix not in names:
            raise AnnotationError(f"the edge test reads more than the matrix: {text(edge)[:60]}")
        if any(n.type in ("call_expression", "field_expression", "assignment_expression",
                          "update_expression") for n in walk(edge)):  # fmt: skip
            raise AnnotationError(f"the edge test calls or writes: {text(edge)[:60]}")
    if not edges:
        raise AnnotationError("the walk follows no edge test")
    followed = " && ".join(f"({text(e)})" for e in edges)
    walk_ = _Walk(worklist, kind, vertex, vertex_type, neighbour, neighbour_type, followed,
                  mark_array, at_push, counter, unmarked=mark_value, early=early)  # fmt: skip
    pushed = False
    seen: set[str] = set()
    for statement in inner:
        code = compact(statement)
        if code in seen:
            raise AnnotationError(f"the walk repeats a step per neighbour: {text(statement)[:60]}")
        seen.add(code)
        if code == f"{worklist}.{add}({neighbour});":
            pushed = True
        elif at_push and code in (
            f"{mark_array}[{neighbour}]=true;",
            f"{mark_array}[{neighbour}]=1;",
        ):
            walk_.marks = mark_array
        elif (
            found := re.fullmatch(rf"(\w+)\[{neighbour}\]=\1\[{vertex}\]\+1;", code)
        ) and walk_.distance is None:
            walk_.distance = found[1]
        elif (
            (found := re.fullmatch(rf"(\w+)\[{neighbour}\]={vertex};", code))
            and found[1] in locals_
            and found[1] not in (mark_array, matrix, worklist)
        ):
            walk_.written.add(found[1])
        else:
            raise AnnotationError(f"the walk does more per neighbour: {text(statement)[:60]}")
    if walk_.distance is not None and walk_.distance in walk_.written:
        raise AnnotationError("the walk writes its distances twice per neighbour")
    if mark_array in walk_.written or (
        walk_.distance is not None and walk_.distance != mark_array and at_push
    ):
        raise AnnotationError("the walk's marks are written as more than marks")
    if not pushed:
        raise AnnotationError("the walk does not push the neighbours it finds")
    if (
        at_push
        and mark_array != walk_.distance
        and not any(
            compact(s) in (f"{mark_array}[{neighbour}]=true;", f"{mark_array}[{neighbour}]=1;")
            for s in inner
        )
    ):
        raise AnnotationError(f"the walk does not mark {mark_array}[{neighbour}] as it pushes it")
    return walk_, size


def _recursive_call(definition: Node) -> tuple[Node, Node] | None:
    """(the function, the call) where `definition` calls a function of the source that calls
    itself (a depth-first walk on the call stack); None where it calls none."""
    defined = {function_name(d): d for d in function_definitions(root_of(definition))}
    found = []
    for node in walk(definition):
        callee = node.child_by_field_name("function") if node.type == "call_expression" else None
        helper = defined.get(text(callee)) if callee is not None else None
        if callee is None or helper is None or helper == definition:
            continue
        called = text(callee)
        if any(
            n.type == "call_expression"
            and (f := n.child_by_field_name("function")) is not None
            and text(f) == called
            for n in walk(helper)
        ):
            found.append((helper, node))
    if len(found) > 1:
        raise AnnotationError("the function starts more than one recursive walk")
    return found[0] if found else None


def _renamed(node: Node, names: dict[str, str]) -> str:
    """`node`'s code with identifiers renamed (`adj[u * n + k]` in the caller's names)."""
    base = node.start_byte
    code = node.text.decode() if node.text is not None else ""
    for n in sorted(
        (n for n in walk(node) if n.type == "identifier" and text(n) in names),
        key=lambda n: n.start_byte,
        reverse=True,
    ):
        code = code[: n.start_byte - base] + names[text(n)] + code[n.end_byte - base :]
    return code


def _read_recursion(
    helper: Node, call: Node, matrix: str, sizes: list[str], locals_: _Locals
) -> tuple[_Walk, str]:
    """The walk a recursive function runs from `call` (see `_Walk.recursive`): it marks its
    vertex first (after a return where it is marked already), then calls itself on each
    neighbour its edge test finds (unmarked, where the return does not test it), counting
    what the calls return where it returns a size: `int n = 1; ... n += walk(j); return n;`."""
    name = function_name(helper)
    params = [(p, text(node)) for p, node in function_params(helper)]
    args_node = call.child_by_field_name("arguments")
    args = (
        [compact(a) for a in args_node.named_children if a.type != "comment"] if args_node else []
    )
    if len(args) != len(params):
        raise AnnotationError(f"{name} is called with other arguments than it takes")
    role: dict[str, str] = {}
    vertex = vertex_type = marks = size = None
    for (param, declared), arg in zip(params, args, strict=True):
        if arg == matrix or (arg in sizes and size is None):
            role[param] = arg
            size = arg if arg != matrix else size
        elif (
            arg in locals_.kinds
            and locals_.kinds[arg] in ("std::vector", "vector")
            and "&" in declared
        ):
            marks, role[param] = param, arg
        elif vertex is None and re.fullmatch(
            r"\w+|\((?:\w+ )*\w+\)\w+|static_cast<(?:\w+ )*\w+>\(\w+\)", arg
        ):  # the vertex, maybe cast (`(int)i`)
            vertex, vertex_type = param, _plain_type(declared[: declared.rfind(param)].strip())
        else:
            raise AnnotationError(
                f"{name} takes more than the matrix, its size, a vertex and marks"
            )
    if (
        vertex is None
        or marks is None
        or size is None
        or set(role.values()) != {matrix, size, role[marks]}
    ):
        raise AnnotationError(f"{name} is not called with the matrix, its size, a vertex and marks")
    if not re.fullmatch(
        r"(?:unsigned |signed |long |const )*(?:int|long|size_t|unsigned|std::size_t)",
        vertex_type or "",
    ):
        raise AnnotationError(f"the walk's vertices are not integers: {vertex_type}")
    inner_size = next(p for p, a in role.items() if a == size)
    body = _statements(helper.child_by_field_name("body"))
    kind = helper.child_by_field_name("type")
    returns = kind is not None and compact(kind) != "void"
    guarded = False
    if body and re.fullmatch(
        rf"if\({marks}\[{vertex}\]\)(?:\{{)?return(?: 0)?;(?:\}})?", compact(body[0])
    ):
        guarded, body = True, body[1:]
    if not body or compact(body[0]) not in (f"{marks}[{vertex}]=true;", f"{marks}[{vertex}]=1;"):
        raise AnnotationError(f"{name} does not mark its vertex first")
    body = body[1:]
    counter = None
    if returns:
        if len(body) < 2:
            raise AnnotationError(f"{name} returns no count of its vertices")
        declared_count = re.fullmatch(
            r"(?:int|long|long long|size_t|unsigned) (\w+)=1;", compact(body[0])
        )
        if declared_count is None or compact(body[-1]) != f"return {declared_count[1]};":
            raise AnnotationError(f"{name} does not return 1 plus what its calls return")
        if guarded and compact(helper).count("return 0;") != 1:
            raise AnnotationError(f"{name} returns a size other than 0 for a marked vertex")
        counter, body = declared_count[1], body[1:-1]
    elif guarded and "return 0" in compact(helper):
        raise AnnotationError(f"{name} returns a value it does not declare")
    if len(body) != 1:
        raise AnnotationError(f"{name} does more than test its neighbours")
    head = _counted_loop(body[0], inner_size)
    if head is None:
        raise AnnotationError(
            f"{name}'s neighbour loop is not `for (j = 0; j < {inner_size}; j++)`"
        )
    neighbour, neighbour_type = head[0], _plain_type(head[1])
    tests, inner = _neighbour_tests(body[0])
    unmarked = [
        t for t in tests if (m := _unmarked_test(t, neighbour)) is not None and m[0] == marks
    ]
    if any(
        (m := _unmarked_test(t, neighbour)) is not None and m[0] == marks and m[1] not in _FALSY
        for t in tests
    ):
        raise AnnotationError(f"{name} tests its marks for another value than unmarked")
    if len(unmarked) > 1 or (not unmarked and not guarded):
        raise AnnotationError(f"{name} does not test its neighbour's mark once")
    edges = [t for t in tests if t not in unmarked]
    matrix_param = next(p for p, a in role.items() if a == matrix)
    allowed = {matrix_param, inner_size, vertex, neighbour}
    for edge in edges:
        names = {text(n) for n in walk(edge) if n.type == "identifier"}
        if not names <= allowed or matrix_param not in names or any(
            n.type in ("call_expression", "field_expression", "assignment_expression",
                       "update_expression") for n in walk(edge)
        ):  # fmt: skip
            raise AnnotationError(f"the edge test reads more than the matrix: {text(edge)[:60]}")
    if not edges:
        raise AnnotationError("the walk follows no edge test")
    again = [
        ",".join(neighbour if p == vertex else p for p, _ in params),
    ]
    calls = {f"{name}({again[0]});"} if not returns else {f"{counter}+={name}({again[0]});"}
    if len(inner) != 1 or compact(inner[0]) not in calls:
        raise AnnotationError(f"{name} does more per neighbour than walk on from it")
    followed = " && ".join(
        f"({_renamed(e, {matrix_param: matrix, inner_size: size})})" for e in edges
    )
    return _Walk("", "recursion", vertex, vertex_type or "", neighbour, neighbour_type, followed,
                 role[marks], True, unmarked="false", recursive=True, call=name,
                 counter=counter), size  # fmt: skip


def _recursive_result(statement: Node, walk_: _Walk, start: str) -> tuple[str | None, bool]:
    """(where the most vertices one walk reached is kept, whether the statement gives the
    walk's size) for the statement that starts a recursive walk: `walk(..., i, ...);`,
    `int n = walk(...);` (its size by name) or `best = std::max(best, walk(...));`."""
    code = compact(statement)
    call = rf"{walk_.call}\([^;]*\b{start}\b[^;]*\)"
    if re.fullmatch(rf"{call};", code):
        return None, False
    if walk_.counter is None:
        raise AnnotationError(f"{walk_.call} gives no size to keep")
    if re.fullmatch(rf"(?:int|long|long long|size_t|unsigned) \w+={call};", code):
        return None, True
    found = re.fullmatch(rf"(\w+)=(?:std::)?max\(\1,{call}\);", code) or re.fullmatch(
        rf"(\w+)=(?:std::)?max\({call},\1\);", code
    )
    if found is None:
        raise AnnotationError(f"the walk's start does more: {text(statement)[:60]}")
    return found[1], True


@dataclass
class _Locals:
    """The function's local declarations by name: the container kind for worklists, the
    compact initialiser for the rest."""

    kinds: dict[str, str] = field(default_factory=dict)
    values: dict[str, str] = field(default_factory=dict)
    elements: dict[str, str] = field(default_factory=dict)
    """A container's element type (`std::queue<int>`: `int`)."""


def _declare(statement: Node, locals_: _Locals) -> bool:
    """Records a declaration of one local; False where `statement` is none."""
    if statement.type != "declaration":
        return False
    declarators = statement.children_by_field_name("declarator")
    kind = statement.child_by_field_name("type")
    if len(declarators) != 1 or kind is None:
        return False
    name = declared_name(declarators[0])
    if name is None:
        return False
    spelled = compact(kind)
    locals_.kinds[name] = spelled.split("<", 1)[0]
    if "<" in spelled and spelled.endswith(">"):
        locals_.elements[name] = spelled.split("<", 1)[1][:-1]
    locals_.values[name] = compact(declarators[0])[len(name) :]
    return True


def _all_unmarked(locals_: _Locals, array: str, value: str, size: str) -> None:
    """AnnotationError unless `array` is a local vector of `size` elements, all `value`."""
    init = locals_.values.get(array)
    if locals_.kinds.get(array) not in ("std::vector", "vector"):
        raise AnnotationError(f"{array} is not a local vector")
    values = {value, "0"} if value == "false" else {value}
    if init not in {f"({size},{v})" for v in values} and not (
        value == "false" and init in (f"({size})", f"({size},false)")
    ):
        raise AnnotationError(f"{array} does not start with all {size} vertices unmarked")


@dataclass(frozen=True)
class Walks:
    """What a function's graph walks compute, for a target's writer: the walk (its vertex and
    neighbour names and types, its edge test in the function's names), the matrix and vertex
    count the function takes, and its result: `walks` (how many walks start, each from the
    first vertex none reached), `most` (the most vertices one walk reaches) or `distance`
    (the level `dest` is first reached at in a walk from `source`, `unreached` where none)."""

    walk: _Walk
    matrix: str
    size: str
    result: str
    what: str
    source: str = ""
    dest: str = ""
    unreached: str = ""


_INTEGER = re.compile(
    r"(?:const )?(?:unsigned |signed |long )*(?:int|long|size_t|unsigned|std::size_t)"
)


def read_walks(definition: Node, statements: list[Node]) -> Walks | None:
    """What `definition`'s graph walks compute (see the module's text), or None where it has
    no worklist walk or recursive one; AnnotationError where it has one no target can run as
    levels."""
    whiles = [n for n in walk(definition) if n.type == "while_statement"]
    walks = [w for w in whiles if re.match(r"while\(!\w+\.empty\(\)\)", compact(w))]
    recursion = _recursive_call(definition)
    if not walks and recursion is None:
        return None
    if len(walks) + (recursion is not None) != 1:
        raise AnnotationError("the function walks more than once")
    params = dict(function_params(definition))
    matrices = [p for p, node in params.items() if "vector" in text(node)]
    sizes = [
        p
        for p, node in params.items()
        if (kind := node.child_by_field_name("type")) is not None
        and _INTEGER.fullmatch(compact(kind))
        and (d := node.child_by_field_name("declarator")) is not None
        and d.type == "identifier"
    ]
    if len(matrices) != 1:
        raise AnnotationError("the walk's function takes more or less than one matrix")
    matrix = matrices[0]
    taken = sorted(
        {text(n) for n in walk(definition) if text(n).startswith("pf_") and n.child_count == 0}
    )
    if taken:
        raise AnnotationError(f"the function already uses the name {taken[0]}")
    locals_ = _Locals()
    for node in walk(definition):
        if (
            node.type == "declaration"
            and node.parent is not None
            and node.parent.type == "compound_statement"
        ):
            before = len(locals_.kinds)
            if _declare(node, locals_) and len(locals_.kinds) == before:
                raise AnnotationError("the function declares a name twice")
    if recursion is not None:
        helper, call = recursion
        walk_, size = _read_recursion(helper, call, matrix, sizes, locals_)
        at = call
        while at.parent is not None and at.type not in ("expression_statement", "declaration"):
            at = at.parent  # the statement that calls
        if not _is_component_body(at, definition):
            raise AnnotationError("the recursive walk does not start from each vertex in turn")
        result, what = _components(walk_, at, definition, statements, locals_, size)
        return Walks(walk_, matrix, size, result, what)
    loop = walks[0]
    walk_, size = _read_walk(loop, matrix, sizes, locals_.kinds, locals_.elements)
    if _is_component_body(loop, definition):
        result, what = _components(walk_, loop, definition, statements, locals_, size)
        return Walks(walk_, matrix, size, result, what)
    source, dest, value, what = _distance(walk_, loop, statements, locals_, size, params)
    return Walks(walk_, matrix, size, "distance", what, source, dest, value)


def traversal_kernel(definition: Node, statements: list[Node], signature_text: str) -> str | None:
    """The kernel for a function that walks a graph (see the module's text), or None where the
    function has no walk; AnnotationError where it has one no kernel writes."""
    walks = read_walks(definition, statements)
    if walks is None:
        return None
    name, kernel_params = signature_params(signature_text)
    by_name = {p.name: p for p in kernel_params}
    outputs = [p for p in kernel_params if p.pointer and "const" not in p.type]
    params = dict(function_params(definition))
    taken = {walks.matrix, walks.size, walks.source, walks.dest} - {""}
    if len(outputs) != 1 or outputs[0].name in params or not taken <= set(by_name):
        raise AnnotationError(
            "the walk's kernel does not take what the function takes and one result"
        )
    if not by_name[walks.matrix].pointer:
        raise AnnotationError(f"the kernel does not take {walks.matrix} as an array")
    out = outputs[0].name
    if walks.result == "distance":
        dest = walks.dest
        work = _walks_work(walks.walk, start_of=walks.source, until=dest) + (
            "        if (pf_seated == 1 && pf_lane == 0)\n"
            f"            *{out} = (pf_{dest}_ok && pf_seen[({dest})] != -1) ? pf_seen[({dest})] : ({walks.unreached});\n"
        )
    else:
        work = _walks_work(walks.walk, start_of=None, until=None) + (
            f"        if (pf_seated == 1 && pf_lane == 0) *{out} = pf_{walks.result};\n"
        )
    return (
        HELPERS
        + DONE
        + PHASES
        + _GRAPH
        + f"/* {name}: {walks.what}. */\n"
        + f"{global_definition(signature_text)} {{\n"
        "    const unsigned pf_lane = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
        "threadIdx.z);\n" + seated(_finish(work, walks.size), _GRAPH_RESETS) + "}\n"
    )


def _is_component_body(loop: Node, definition: Node) -> bool:
    """Whether the walk runs inside a loop over start vertices (an `if` in a `for`)."""
    node = loop.parent
    while node is not None and node != definition:
        if node.type == "for_statement":
            return True
        node = node.parent
    return False


def _components(
    walk_: _Walk,
    loop: Node,
    definition: Node,
    statements: list[Node],
    locals_: _Locals,
    size: str,
) -> tuple[str, str]:
    """What walks from every unmarked vertex in turn compute: `walks` or `most`, in words."""
    starts = loop.parent
    while starts is not None and starts.type != "for_statement":
        starts = starts.parent
    assert starts is not None
    head = _counted_loop(starts, size)
    if head is None or starts.parent is None or starts.parent.parent != definition:
        raise AnnotationError(
            f"the walks' starts are not `for (i = 0; i < {size}; i++)` at the top"
        )
    start = head[0]
    if walk_.early is not None:
        raise AnnotationError("a walk from each vertex returns from inside one")
    body = _statements(starts.child_by_field_name("body"))
    skipped = (
        re.fullmatch(
            rf"if\((\w+)\[{start}\](?:==true|!=0)?\)(?:\{{)?continue;(?:\}})?", compact(body[0])
        )
        if body
        else None
    )
    if skipped is not None:
        # `if (seen[i]) continue;` and the walk after it: a test of truth, so unmarked is false
        test: tuple[str, str] | None = (skipped[1], "false")
        started = body[1:]
    elif len(body) == 1 and body[0].type == "if_statement":
        cond = _condition(body[0])
        assert cond is not None
        test = _unmarked_test(cond, start)
        if body[0].child_by_field_name("alternative"):
            test = None
        started = _statements(body[0].child_by_field_name("consequence"))
    else:
        raise AnnotationError("the starts' loop does more than `if (!visited[i]) { ... }`")
    if test is None or test[0] != walk_.marks or not _same_mark(test[1], walk_.unmarked):
        raise AnnotationError(
            f"a walk does not start from each vertex {walk_.marks} leaves unmarked"
        )
    _all_unmarked(locals_, walk_.marks, walk_.unmarked, size)
    count = best = None
    counter_reset = False
    pushed = marked = False
    after_walk = False
    for statement in started:
        code = compact(statement)
        if statement == loop:
            after_walk = True
            if walk_.recursive:
                best, counter_reset = _recursive_result(statement, walk_, start)
                if best is None and counter_reset:  # `int n = walk(...);`: a walk's size by name
                    walk_.counter = declared_name(statement.children_by_field_name("declarator")[0])
            continue
        if _declare(statement, _Locals()):
            name = declared_name(statement.children_by_field_name("declarator")[0])
            if (
                name is not None
                and name == walk_.counter
                and not after_walk
                and locals_.values.get(name) == "=0"
            ):
                counter_reset = True
            elif (
                name == walk_.worklist
                and locals_.values.get(name) == f"{{{start}}}"
                and not pushed
                and not after_walk
            ):
                pushed = True  # `std::vector<size_t> stack{i};`
            elif name != walk_.worklist or locals_.values.get(name) != "":
                raise AnnotationError(f"a walk declares more: {text(statement)[:60]}")
            continue
        if code == f"{walk_.counter}=0;" and not after_walk:
            counter_reset = True
        elif code in (f"{walk_.worklist}.push({start});", f"{walk_.worklist}.push_back({start});"):
            if pushed or after_walk:
                raise AnnotationError("a walk's start is pushed twice, or after the walk")
            pushed = True
        elif code in (f"{walk_.marks}[{start}]=true;", f"{walk_.marks}[{start}]=1;"):
            if marked or after_walk:
                raise AnnotationError("a walk's start is marked twice, or after the walk")
            marked = True
        elif _increment(statement) is not None:
            if count is not None or _increment(statement) == walk_.counter:
                raise AnnotationError("a walk counts twice")
            count = _increment(statement)
        elif (
            after_walk
            and walk_.counter
            and (kept := _maximum(code, walk_.counter))
            and kept not in (walk_.counter, count)
            and best is None
        ):
            best = kept
        elif (
            after_walk
            and (stored := re.fullmatch(r"(\w+)\[\w+\]=\w+;", code))
            and _only_written(stored[1], definition, locals_)
        ):
            continue
        else:
            raise AnnotationError(f"a walk's start does more: {text(statement)[:60]}")
    if walk_.recursive:
        if pushed or marked:
            raise AnnotationError("a walk's start is marked before the walk marks it")
    elif not pushed or marked != walk_.at_push:
        raise AnnotationError("a walk does not start by pushing (and marking) its vertex")
    returned = statements[-1] if statements else None
    found = re.fullmatch(r"return (\w+);", compact(returned)) if returned is not None else None
    if found is None:
        raise AnnotationError("the function does not end by returning a count")
    result = found[1]
    if count is not None and result == count and locals_.values.get(count) == "=0":
        value = "walks"
        what = "the number of walks, each from the first vertex none reached before"
    elif best is not None and result == best and counter_reset and locals_.values.get(best) == "=0":
        value = "most"
        what = "the most vertices one walk reaches, each from the first vertex none reached before"
    else:
        raise AnnotationError(f"{result} is neither the walks counted nor the most one takes")
    if count is not None and count == walk_.counter:
        raise AnnotationError("the walks' count is the vertices' count")
    for statement in statements:
        if statement in (starts, returned):
            continue
        if not _pure_declaration(statement, walk_.worklist):
            raise AnnotationError(f"the function does more than its walks: {text(statement)[:60]}")
    return value, what


def _maximum(code: str, counter: str) -> str | None:
    """The name a statement keeps the maximum of `counter` in (`best = std::max(best, n);`,
    `if (n > best) best = n;`)."""
    for pattern in (
        rf"(\w+)=(?:std::)?max\(\1,{counter}\);",
        rf"(\w+)=(?:std::)?max\({counter},\1\);",
        rf"if\({counter}>(\w+)\)\1={counter};",
        rf"if\((\w+)<{counter}\)\1={counter};",
    ):
        found = re.fullmatch(pattern, code)
        if found:
            return found[1]
    return None


def _only_written(name: str, definition: Node, locals_: _Locals) -> bool:
    """Whether `name` is a local vector that nothing reads (only `name[...] = ...;`)."""
    if locals_.kinds.get(name) not in ("std::vector", "vector"):
        return False
    for node in walk(definition):
        if node.type != "identifier" or text(node) != name:
            continue
        parent = node.parent
        if parent is not None and parent.type.endswith("declarator"):
            continue
        store = (
            parent.parent if parent is not None and parent.type == "subscript_expression" else None
        )
        if (
            store is None
            or store.type != "assignment_expression"
            or store.child_by_field_name("left") != parent
        ):
            return False
    return True


def _distance(
    walk_: _Walk,
    loop: Node,
    statements: list[Node],
    locals_: _Locals,
    size: str,
    params: dict[str, Node],
) -> tuple[str, str, str, str]:
    """(source, destination, the value where unreached, in words) of one breadth-first walk
    from a source vertex to a destination."""
    if walk_.kind not in _QUEUES:
        raise AnnotationError("a walk from a stack finds paths, not shortest ones")
    if walk_.distance is None:
        raise AnnotationError("the walk keeps no distances")
    dist = walk_.distance
    if walk_.marks != dist or not walk_.at_push:
        raise AnnotationError("the walk's marks are not its distances, set as it pushes")
    if walk_.counter is not None:
        raise AnnotationError("a breadth-first walk counts what no distance needs")
    if not _LITERAL.fullmatch(walk_.unmarked) or walk_.unmarked == "0":
        raise AnnotationError("the distances start from a value a distance can take")
    _all_unmarked(locals_, dist, walk_.unmarked, size)
    try:
        at = statements.index(loop)
    except ValueError:
        raise AnnotationError("the walk is not at the function's top") from None
    source = None
    started: set[str] = set()
    for statement in statements[:at]:
        code = compact(statement)
        if _pure_declaration(statement, walk_.worklist):
            continue
        pushed = re.fullmatch(rf"{walk_.worklist}\.push(?:_back)?\((\w+)\);", code)
        zero = re.fullmatch(rf"{dist}\[(\w+)\]=0;", code)
        found = pushed or zero
        if found is None or found[1] not in params or (source not in (None, found[1])):
            raise AnnotationError(f"the walk starts with more: {text(statement)[:60]}")
        source = found[1]
        started.add("push" if pushed else "zero")
    if source is None or started != {"push", "zero"}:
        raise AnnotationError("the walk does not start from a vertex the function takes at 0")
    tail = [compact(s) for s in statements[at + 1 :]]
    if walk_.early is not None:
        # `if (u == dest) return dist[u];` in the walk, then `return -1;` after it
        last = re.fullmatch(r"return (-?\w+);|return(-\w+);", tail[0]) if len(tail) == 1 else None
        if walk_.early[1] != dist or last is None:
            raise AnnotationError(
                "the walk returns a vertex's distance but not the unreached value"
            )
        unreached: tuple[str, str] | None = (walk_.early[0], last[1] or last[2])
    else:
        unreached = _unreached(tail, dist, locals_, walk_)
    if unreached is not None and not _LITERAL.fullmatch(unreached[1]):
        raise AnnotationError("the unreached value is not a number")
    if unreached is None:
        raise AnnotationError("the function does not return the distance of a vertex it takes")
    dest, value = unreached
    if dest not in params:
        raise AnnotationError(f"{dest} is not a vertex the function takes")
    return (
        source,
        dest,
        value,
        f"the distance from {source} to {dest} of a breadth-first walk, or {value}",
    )


def _unreached(
    tail: list[str], dist: str, locals_: _Locals, walk_: _Walk
) -> tuple[str, str] | None:
    """(the vertex, the value returned where the walk did not reach it) for the statements
    after the walk: `return dist[d] == U ? -1 : dist[d];`, `if (dist[d] == U) return -1;`
    then `return dist[d];` or the walk back along `prev` counting steps."""
    unmarked = re.escape(walk_.unmarked)
    if len(tail) == 1:
        found = re.fullmatch(rf"return {dist}\[(\w+)\]=={unmarked}\?(-?\w+):{dist}\[\1\];", tail[0])
        return (found[1], found[2]) if found else None
    found = re.fullmatch(
        rf"if\({dist}\[(\w+)\]=={unmarked}\)(?:\{{)?return ?(-?\w+);(?:\}})?", tail[0]
    )
    if found is None:
        return None
    dest, value = found[1], found[2]
    if tail[1:] == [f"return {dist}[{dest}];"]:
        return dest, value
    # the walk back: `int n = 0; while (prev[d] != -1) { n++; d = prev[d]; } return n;`
    back = "".join(tail[1:])
    found = re.fullmatch(
        rf"int (\w+)=0;while\((\w+)\[{dest}\]!=-1\)\{{(?:\1\+\+|\+\+\1|\1\+=1);{dest}=\2\[{dest}\];\}}return \1;",
        back,
    )
    if (
        found
        and found[2] in walk_.written
        and locals_.values.get(found[2]) == f"({_size_of(locals_, dist)},-1)"
    ):
        return dest, value
    return None


def _size_of(locals_: _Locals, array: str) -> str:
    value = locals_.values.get(array, "")
    return value[1:].split(",", 1)[0] if value.startswith("(") else ""


def _walks_work(walk_: _Walk, start_of: str | None, until: str | None) -> str:
    """Every seated thread's part of the walks: each from the first vertex no walk reached
    (`start_of` None) or the one walk from `start_of`, level by level."""
    v, vt, j, jt = walk_.vertex, walk_.vertex_type, walk_.neighbour, walk_.neighbour_type
    size = "pf_n"
    lines = [
        "        long long pf_walks = 0, pf_most = 0; /* walks taken, the most vertices in one */\n",
        "        int pf_at = 0; /* the level the next walk starts at */\n",
    ]
    if start_of is None:
        lines += [
            "        long long pf_start = 0;\n",
            "        for (;;) {\n",
            "            /* the first vertex no earlier walk reached: levels below pf_at are earlier\n"
            "               walks', and a thread that reads this walk's marks, written by threads\n"
            "               ahead of it, still finds the same vertex */\n",
            f"            for (; pf_start < {size}; pf_start++) {{\n",
            "                const int pf_s = pf_seen[pf_start];\n",
            "                if (pf_s == -1 || pf_s >= pf_at) break;\n",
            "            }\n",
            f"            if (pf_start >= {size}) break;\n",
        ]
    else:
        lines += [
            f"        const long long pf_start = (long long)({start_of});\n",
            f"        const bool pf_{until}_ok = (long long)({until}) >= 0 && (long long)({until}) < {size};\n",
            f"        for (bool pf_once = (pf_start >= 0 && pf_start < {size}); pf_once; pf_once = false) {{\n",
        ]
    lines += [
        "            if (pf_seated == 1 && pf_lane == 0) pf_level[pf_start] = pf_at;\n",
        "            pf_cuda_grid_sync();\n",
        "            long long pf_size = 1;\n",
        "            for (int pf_l = pf_at;; pf_l++) {\n",
        "                for (;;) { /* the level's vertices, in tiles */\n",
        "                    if (pf_lane == 0) pf_tile = atomicAdd(&pf_phase_next, 1ULL);\n",
        "                    __syncthreads();\n",
        "                    const unsigned long long pf_base = pf_tile * pf_span;\n",
        f"                    if (pf_base >= (unsigned long long){size}) break;\n",
        "                    for (unsigned long long pf_k = pf_base + pf_lane; pf_k < pf_base + pf_span "
        f"&& pf_k < (unsigned long long){size}; pf_k += pf_width) {{\n",
        "                        if (pf_seen[pf_k] != pf_l) continue;\n",
        f"                        const {vt} {v} = ({vt})pf_k;\n",
        f"                        for (long long pf_m = 0; pf_m < {size}; pf_m++) {{\n",
        f"                            const {jt} {j} = ({jt})pf_m;\n",
        f"                            if (pf_seen[pf_m] == -1 && ({walk_.edge}) &&\n",
        "                                atomicCAS(&pf_level[pf_m], -1, pf_l + 1) == -1)\n",
        "                                pf_cuda_add(&pf_graph_found[pf_l % 3], 1ULL);\n",
        f"                            (void){v};\n",
        f"                            (void){j};\n",
        "                        }\n",
        "                    }\n",
        "                    __syncthreads(); /* before the next ticket overwrites the tile */\n",
        "                }\n",
        "                pf_cuda_grid_sync();\n",
        "                const unsigned long long pf_new = *(volatile unsigned long long *)&pf_graph_found[pf_l % 3];\n",
        "                /* the count two levels on was read by every thread before this barrier */\n",
        "                if (pf_seated == 1 && pf_lane == 0) pf_graph_found[(pf_l + 2) % 3] = 0;\n",
        "                pf_size += (long long)pf_new;\n",
        "                if (pf_new == 0) {\n",
        "                    pf_at = pf_l + 1;\n",
        "                    break;\n",
        "                }\n",
    ]
    if until is not None:
        lines.append(
            f"                if (pf_{until}_ok) {{ /* reached by this level (a later one's marks may be\n"
            "                                        written already by threads ahead) */\n"
            f"                    const int pf_d = pf_seen[({until})];\n"
            "                    if (pf_d != -1 && pf_d <= pf_l + 1) break;\n"
            "                }\n"
        )
    lines += [
        "            }\n",
        "            pf_walks++;\n",
        "            if (pf_size > pf_most) pf_most = pf_size;\n",
        "        }\n",
        "        (void)pf_walks;\n",
        "        (void)pf_most;\n",
    ]
    return "".join(lines)


def _finish(work: str, size: str) -> str:
    """`work` between the level array's allocation (every vertex unreached) and its release."""
    return (
        f"        const long long pf_n = (long long)({size});\n"
        "        if (pf_seated == 1 && pf_lane == 0) {\n"
        "            pf_graph_level = (int *)malloc((size_t)(pf_n > 0 ? pf_n : 1) * sizeof(int));\n"
        "            if (pf_graph_level == 0) __trap(); /* the device heap is full */\n"
        "        }\n"
        "        pf_cuda_grid_sync();\n"
        "        int *const pf_level = *(int *volatile *)&pf_graph_level;\n"
        "        volatile int *const pf_seen = pf_level; /* read past the cache: other blocks write */\n"
        "        for (;;) {\n"
        "            if (pf_lane == 0) pf_tile = atomicAdd(&pf_phase_next, 1ULL);\n"
        "            __syncthreads();\n"
        "            const unsigned long long pf_base = pf_tile * pf_span;\n"
        "            if (pf_base >= (unsigned long long)pf_n) break;\n"
        "            for (unsigned long long pf_k = pf_base + pf_lane; pf_k < pf_base + pf_span && "
        "pf_k < (unsigned long long)pf_n; pf_k += pf_width)\n"
        "                pf_level[pf_k] = -1;\n"
        "            __syncthreads();\n"
        "        }\n"
        "        pf_cuda_grid_sync();\n"
        + work
        + "        pf_cuda_grid_sync(); /* every thread is done with the levels */\n"
        "        if (pf_seated == 1 && pf_lane == 0) {\n"
        "            free(pf_level);\n"
        "            pf_graph_level = 0;\n"
        "        }\n"
    )


_GRAPH = """\
__device__ int *pf_graph_level = 0; /* each vertex's level, -1 where no walk reached it */
__device__ unsigned long long pf_graph_found[3] = {0, 0, 0}; /* vertices found per level, by level mod 3 */
"""

_GRAPH_RESETS = "".join(
    f"        *(volatile unsigned long long *)&pf_graph_found[{k}] = 0;\n" for k in range(3)
)
