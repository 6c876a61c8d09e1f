"""What declarations say about how code reaches memory, beyond the names it spells: elements
that are themselves pointers (`int *rows[2]`, `int **m`, `std::vector<double *>`), classes
whose `[]` is the program's own function, type aliases, and macros whose expansion the parser
never sees. `reroute` turns the accesses these make unreadable into reads and writes through
an address, which the dependence rules treat as reaching anything."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from tree_sitter import Node

from agents.analysis.accesses import BodyFacts
from agents.analysis.parse import (
    canon,
    declared_name,
    function_params,
    identifiers,
    root_of,
    text,
    unwrap,
    walk,
)

_CONTAINER_WORDS = ("vector", "array", "deque", "valarray", "span", "basic_string")
_LEVEL = re.compile(r"\b(?:" + "|".join(_CONTAINER_WORDS) + r")\s*<|\*")


@dataclass(frozen=True)
class Declared:
    """The program's declarations, as far as how its accesses reach memory."""

    aliases: dict[str, str] = field(default_factory=dict)
    """`typedef`/`using` names → the type they stand for (spaces removed, `*` for a pointer
    declarator), resolved through one another."""
    global_depths: dict[str, int] = field(default_factory=dict)
    """File-scope names whose element at that many subscripts is a pointer (`pointer_depth`)."""
    field_depths: dict[str, int] = field(default_factory=dict)
    """The same for struct and class members, by member name."""
    packed_globals: frozenset[str] = frozenset()
    """File-scope names of type `std::vector<bool>` or `std::bitset<N>`."""
    packed_fields: frozenset[str] = frozenset()
    """Members of type `std::vector<bool>` or `std::bitset<N>` (bits in shared words)."""
    subscripted_classes: frozenset[str] = frozenset()
    """Classes that define their own `operator[]`."""
    classes: frozenset[str] = frozenset()
    """Every struct, class and union the file defines with a body."""
    value_classes: frozenset[str] = frozenset()
    """The file's structs, classes and unions whose members are all values (numbers, owning
    containers, other such classes): an object of one holds storage of its own only."""
    active_classes: frozenset[str] = frozenset()
    """Classes with an operator, constructor, destructor or conversion of the program's own
    that does more than compute with its object's members: using an object of one in an
    expression (`a[i] += b[i]`, a copy, the end of its scope) runs that code."""
    reference_names: frozenset[str] = frozenset()
    """Members and file-scope variables declared as references (`std::vector<int> &w;`): a
    method or function that names one bare reaches whatever it was bound to."""
    hidden_macros: frozenset[str] = frozenset()
    """Object-like macros whose body is not a constant: their uses read or write what the
    parser cannot see (`#define NEXT a[i + 1]`)."""
    macro_functions: frozenset[str] = frozenset()
    """Function-like macros, which a call may name like a library function (`max`)."""
    pure_macros: frozenset[str] = frozenset()
    """Of `macro_functions`, those whose body only computes with its parameters and constants."""

    def resolve(self, type_text: str) -> str:
        """`type_text` (spaces removed) with an alias replaced by what it stands for."""
        seen: set[str] = set()
        while type_text in self.aliases and type_text not in seen:
            seen.add(type_text)
            type_text = self.aliases[type_text]
        return type_text


def declared(root: Node) -> Declared:
    """Read the declarations of a parsed file."""
    aliases = _type_aliases(root)
    base = Declared(aliases=aliases)
    global_depths: dict[str, int] = {}
    packed_globals: set[str] = set()
    for node in root.children:
        if node.type == "declaration":
            global_depths.update(_known_depths(node, base))
            packed_globals.update(_packed_names(node, base))
    field_depths: dict[str, int] = {}
    packed: set[str] = set()
    classes: set[str] = set()
    for node in walk(root):
        if node.type == "field_declaration":
            field_depths.update(_known_depths(node, base))
            packed.update(_packed_names(node, base))
        if node.type == "operator_name" and text(node).replace(" ", "") == "operator[]":
            owner = _owner(node)
            if owner:
                classes.add(owner)
    hidden, functions, pure = _macros(root)
    values = _value_classes(root, base)
    defined_classes = frozenset(
        text(named)
        for node in walk(root)
        if node.type in ("struct_specifier", "class_specifier", "union_specifier")
        and node.child_by_field_name("body") is not None
        and (named := node.child_by_field_name("name")) is not None
    )
    active = _active_classes(root)
    references = frozenset(
        name
        for node in walk(root)
        if node.type == "field_declaration"
        or (node.type == "declaration" and node.parent is not None and node.parent == root)
        for d in node.children_by_field_name("declarator")
        if any(n.type == "reference_declarator" for n in walk(d))
        and (name := declared_name(d)) is not None
    )
    return Declared(
        aliases=aliases,
        global_depths=global_depths,
        field_depths=field_depths,
        packed_globals=frozenset(packed_globals),
        packed_fields=frozenset(packed),
        subscripted_classes=frozenset(classes),
        classes=defined_classes,
        value_classes=values,
        active_classes=active,
        reference_names=references,
        hidden_macros=hidden,
        macro_functions=functions,
        pure_macros=pure,
    )


_ARITHMETIC = re.compile(
    r"(?:(?:unsigned|signed|short|long|int|char|float|double|bool|_Bool|const|volatile)+"
    r"|(?:std::)?u?int(?:8|16|32|64)_t|(?:std::)?size_t|ssize_t|ptrdiff_t|u?intptr_t)"
)
_OWNING = re.compile(
    r"(?:std::)?(?:vector|array|valarray|deque|list|forward_list|basic_string|map|multimap|"
    r"unordered_map|set|multiset|unordered_set|complex|pair|tuple|optional|atomic|bitset)<.*>"
    r"|(?:std::)?(?:string|wstring|mt19937|mt19937_64|minstd_rand|default_random_engine)"
)
"""Standard types whose objects hold their own storage (containers, values, engines), as
opposed to views of someone else's (iterators, spans, string views, smart pointers)."""


def value_type(type_text: str, known: Declared) -> bool:
    """Whether an object of this type (spaces removed, resolved through aliases) holds only
    storage of its own: a number, an owning standard type (`_OWNING`, whose `<...>` is not
    followed by a member like `::iterator`), or one of the file's `value_classes`."""
    shown = known.resolve(type_text.replace("const", "").replace("volatile", "") or type_text)
    shown = shown.removeprefix("struct").removeprefix("class").removeprefix("union")
    if _ARITHMETIC.fullmatch(type_text) or _ARITHMETIC.fullmatch(shown):
        return True
    if _OWNING.fullmatch(shown) and not (">" in shown and "::" in shown.rsplit(">", 1)[-1]):
        # The element types count too: a vector of iterators, of a pointer `typedef` or of a
        # class holding a pointer holds views. (An array's or a bitset's length is no type.)
        inner = shown[shown.find("<") + 1 : shown.rfind(">")] if "<" in shown else ""
        if re.search(r"\*|&|iterator|span|string_view|_ptr|View", inner):
            return False
        arguments = _top_level(inner) if inner else []
        if re.match(r"(?:std::)?(?:array|bitset)<", shown):
            arguments = arguments[:1] if shown.removeprefix("std::").startswith("array") else []
        return all(value_type(a, known) or _unknown_name(a, known) for a in arguments)
    return shown in known.value_classes


def _unknown_name(argument: str, known: Declared) -> bool:
    """A template argument the file says nothing of (a template's own parameter `T`, a
    library's type): taken as an owning element, as before element types were looked into.
    A `typedef` or a class of the file's is judged by what it is."""
    return (
        re.fullmatch(r"[A-Za-z_]\w*", argument) is not None
        and (argument not in known.aliases or known.resolve(argument) == "auto")
        and argument not in known.classes
    )


def _top_level(arguments: str) -> list[str]:
    """`int,std::pair<int,int>` → `int`, `std::pair<int,int>` (commas inside brackets kept)."""
    found, depth, start = [], 0, 0
    for k, char in enumerate(arguments):
        depth += char == "<"
        depth -= char == ">"
        if char == "," and depth == 0:
            found.append(arguments[start:k])
            start = k + 1
    return [*found, arguments[start:]]


def pointer_depth(declarator: Node | None, type_text: str) -> int | None:
    """How many subscripts of a declared name reach an element that is a pointer, when one
    past the first does: 1 for `int *rows[2]`, `int **m`, `int *const *v` and
    `std::vector<int *> v`, 2 for `int *g[4][4]`; None for `int a[4][4]`, `int *p`,
    `int (*pa)[2]` and `std::vector<std::vector<int>>`. Subscripting beyond that depth goes
    through a stored pointer, which may point anywhere (into another row, into another
    array)."""
    chain = [
        "pointer" if kind == "pointer_declarator" else "array"
        for kind in _declarator_kinds(declarator)
        if kind in ("pointer_declarator", "array_declarator")
    ]
    # The declarator nearest the name is the outermost level of the type.
    levels = list(reversed(chain))
    levels += ["pointer" if m.group(0) == "*" else "container" for m in _LEVEL.finditer(type_text)]
    return next((k for k, level in enumerate(levels) if k >= 1 and level == "pointer"), None)


def _declarator_kinds(declarator: Node | None) -> list[str]:
    """The node types of a declarator's levels from the outside in, down to its name
    (`*rows[2]`: `pointer_declarator`, `array_declarator`)."""
    kinds: list[str] = []
    node = declarator
    while node is not None and node.type not in ("identifier", "field_identifier"):
        kinds.append(node.type)
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next(
                (c for c in node.named_children if c.type.endswith(("declarator", "identifier"))),
                None,
            )
        node = inner
    return kinds


def local_depths(definition: Node, known: Declared) -> dict[str, int]:
    """`pointer_depth` of the file-scope names, then of the function's own parameters and
    declarations (which shadow them; a name declared twice takes the shallower depth)."""
    found = dict(known.global_depths)
    mine: dict[str, list[int | None]] = {}
    nodes = [p for _, p in function_params(definition)]
    body = definition.child_by_field_name("body")
    nodes += [n for n in walk(body) if n.type == "declaration"] if body is not None else []
    for node in nodes:
        for name, depth in _depths_of(node, known, keep_none=True).items():
            mine.setdefault(name, []).append(depth)
    for name, depths in mine.items():
        deep = [d for d in depths if d is not None]
        if deep:
            found[name] = min(deep)
        else:
            found.pop(name, None)
    return found


def class_typed(
    definition: Node, known: Declared, classes: frozenset[str] | None = None
) -> frozenset[str]:
    """Names the function declares with a type that names one of `classes` (by default, the
    classes whose `[]` is the program's own)."""
    classes = known.subscripted_classes if classes is None else classes
    if not classes:
        return frozenset()
    wanted = re.compile(r"\b(?:" + "|".join(map(re.escape, classes)) + r")\b")
    body = definition.child_by_field_name("body")
    nodes = [n for n in root_of(definition).children if n.type == "declaration"]
    nodes += [p for _, p in function_params(definition)]
    nodes += [n for n in walk(body) if n.type == "declaration"] if body is not None else []
    return typed_names(nodes, lambda shown: bool(wanted.search(known.resolve(shown))))


def typed_names(declarations: Iterable[Node], wanted: Callable[[str], bool]) -> frozenset[str]:
    """The names `declarations` give a type whose text (spaces out) `wanted` accepts."""
    found: set[str] = set()
    for node in declarations:
        type_node = node.child_by_field_name("type")
        if type_node is None or not wanted(canon(type_node).replace(" ", "")):
            continue
        for declarator in node.children_by_field_name("declarator"):
            name = declared_name(declarator)
            if name is not None:
                found.add(name)
    return frozenset(found)


def class_typed_in(body: Node, known: Declared) -> frozenset[str]:
    """Names declared in `body` with a type naming one of `known.active_classes`."""
    if not known.active_classes:
        return frozenset()
    wanted = re.compile(r"\b(?:" + "|".join(map(re.escape, known.active_classes)) + r")\b")
    return typed_names(
        (n for n in walk(body) if n.type == "declaration"),
        lambda shown: bool(wanted.search(known.resolve(shown))),
    )


def reroute(
    facts: BodyFacts,
    depths: dict[str, int],
    known: Declared,
    integers: frozenset[str] | set[str] = frozenset(),
    objects: frozenset[str] = frozenset(),
) -> BodyFacts:
    """Move the element accesses that reach memory through an address the code does not spell
    into `facts.pointer_writes` and `facts.pointer_reads` (reaching "?", any storage):
    subscripts past a stored pointer (`rows[1][i]` with `int *rows[2]`), an integer
    subscripted by an array (`i[a]`), and subscripts of `objects` (classes with their own
    `[]`). A use of a hidden macro is one too. Returns `facts`, changed in place."""
    for event in facts.events:
        if not event.indices:
            continue
        root, *members = re.split(r"\.|->", event.name)
        depth = known.field_depths.get(members[-1]) if members else depths.get(root)
        through = (
            (not members and root in integers)
            or (depth is not None and len(event.indices) > depth)
            or (not members and root in objects)
        )
        if not through:
            continue
        shown = f"{event.name}[{']['.join(event.indices)}] at line {event.line}"
        if event.kind == "write":
            facts.pointer_writes.append(shown)
        else:
            facts.pointer_reads.append((frozenset({"?"}), shown))
    for event in facts.events:
        if event.name in known.hidden_macros and event.name not in facts.locals:
            shown = f"{event.name}, a macro whose expansion is not analysed, at line {event.line}"
            facts.pointer_writes.append(shown)
    return facts


# --- reading declarations ----------------------------------------------------------------


def _depths_of(node: Node, known: Declared, keep_none: bool = False) -> dict[str, int | None]:
    type_node = node.child_by_field_name("type")
    type_text = known.resolve(canon(type_node).replace(" ", "")) if type_node is not None else ""
    found: dict[str, int | None] = {}
    declarators = node.children_by_field_name("declarator")
    for declarator in declarators:
        name = declared_name(declarator)
        if name is None:
            continue
        depth = pointer_depth(declarator, type_text)
        if depth is not None or keep_none:
            found[name] = depth
    return found


def packed_type(type_text: str) -> bool:
    """`std::vector<bool>` or `std::bitset<N>` (resolved type text, spaces removed), or a type
    holding them (`std::vector<std::vector<bool>>`, `std::array<std::bitset<64>, 2>`): its
    innermost elements are bits that share words (a helper's probe found `g[0][i]` written
    at 2 threads losing bits)."""
    return re.search(r"(?:^|[<,:])(?:vector<bool>|bitset<)", type_text) is not None


def _packed_names(node: Node, known: Declared) -> set[str]:
    """The names a declaration gives a packed type (`packed_type`), through aliases."""
    type_node = node.child_by_field_name("type")
    if type_node is None or not packed_type(known.resolve(canon(type_node).replace(" ", ""))):
        return set()
    return {n for d in node.children_by_field_name("declarator") if (n := declared_name(d))}


def _active_classes(root: Node) -> frozenset[str]:
    """`Declared.active_classes`: a special member or operator is harmless when it writes
    only its locals, its by-value parameters and its object's own (non-static) members, and
    calls only library functions. A class is active too where a member's initializer calls
    the program's code (`int id = next_id();`) or a member is of an active class."""
    from agents.analysis.accesses import body_facts
    from agents.analysis.purity import is_pure

    members: dict[str, set[str]] = {}
    holds: dict[str, set[str]] = {}  # class → the type names its own members are of
    specials: list[tuple[str, Node]] = []
    active: set[str] = set()
    for node in walk(root):
        if node.type in ("struct_specifier", "class_specifier", "union_specifier"):
            name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
            if name is None or body is None:
                continue
            owner = text(name).split("<", 1)[0]
            fields = members.setdefault(owner, set())
            for member in body.named_children:
                if member.type != "field_declaration":
                    continue
                kind = member.child_by_field_name("type")
                holds.setdefault(owner, set()).update(
                    re.findall(r"\w+", text(kind)) if kind is not None else []
                )
                default = member.child_by_field_name("default_value")
                if default is not None and any(
                    c.type == "call_expression"
                    and not is_pure(text(c.child_by_field_name("function") or c))
                    for c in walk(default)
                ):
                    # `int id = next_id();`: every object made runs it (a constructor's work)
                    active.add(owner)
                static = any(
                    c.type == "storage_class_specifier" and text(c) == "static"
                    for c in member.children
                )
                if not static:
                    fields.update(
                        n
                        for d in member.children_by_field_name("declarator")
                        if (n := declared_name(d)) is not None
                    )
        if node.type in ("function_definition", "field_declaration", "declaration"):
            declarator = node.child_by_field_name("declarator") or next(
                (c for c in node.children if c.type == "operator_cast"), None
            )
            if declarator is None:
                continue
            owner_name = _special_owner(node, declarator)
            if owner_name is not None:
                specials.append((owner_name, node))
    for owner, node in specials:
        body = node.child_by_field_name("body") if node.type == "function_definition" else None
        if body is None:
            continue  # declared here, defined elsewhere (that definition is judged) or `= default`
        facts = body_facts(body)
        params = {n for n in identifiers(node.child_by_field_name("declarator") or node)}
        allowed = facts.locals | members.get(owner, set()) | params
        written = {re.split(r"\.|->", e.name)[0] for e in facts.events if e.kind == "write"}
        if (
            written - allowed
            or facts.pointer_writes
            or any(not is_pure(call) for call in facts.calls)
        ):
            active.add(owner)
    # A class holding an object of an active class (its constructor and destructor run those
    # of its members) is active too.
    while True:
        more = {owner for owner, kinds in holds.items() if owner not in active and kinds & active}
        if not more:
            return frozenset(active)
        active |= more


def _special_owner(node: Node, declarator: Node) -> str | None:
    """The class whose operator, constructor, destructor or conversion `node` defines or
    declares, if it is one."""
    if declarator.type == "operator_cast":
        shown = "operator"  # a conversion, `operator int()`
    else:
        function = next((n for n in walk(declarator) if n.type == "function_declarator"), None)
        named = function.child_by_field_name("declarator") if function is not None else None
        if named is None:
            return None
        shown = text(named).replace(" ", "")
    scope, _, last = shown.rpartition("::")
    special = last.startswith(("operator", "~"))
    enclosing = node.parent
    while enclosing is not None and enclosing.type not in (
        "struct_specifier",
        "class_specifier",
        "union_specifier",
    ):
        enclosing = enclosing.parent
    if enclosing is not None:
        name = enclosing.child_by_field_name("name")
        owner = text(name).split("<", 1)[0] if name is not None else None
        if owner is not None and (special or last == owner):
            return owner
        return None
    if scope:
        owner = scope.rsplit("::", 1)[-1].split("<", 1)[0]
        if special or last == owner:
            return owner
    return None


def _value_classes(root: Node, known: Declared) -> frozenset[str]:
    """The file's classes whose members (data members; methods aside) are values, found to a
    fixed point (a class of such classes is one too)."""
    members: dict[str, list[tuple[str, bool]]] = {}
    for node in walk(root):
        if node.type not in ("struct_specifier", "class_specifier", "union_specifier"):
            continue
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if name is None or body is None:
            continue
        fields: list[tuple[str, bool]] = []
        for member in body.named_children:
            if member.type != "field_declaration":
                continue
            type_node = member.child_by_field_name("type")
            declarators = member.children_by_field_name("declarator")
            if any(d.type == "function_declarator" for d in declarators):
                continue
            # A pointer or reference member may hold anyone's storage.
            plain = all(
                not any(n.type in ("pointer_declarator", "reference_declarator") for n in walk(d))
                for d in declarators
            )
            fields.append((canon(type_node).replace(" ", "") if type_node else "?", plain))
        members[text(name)] = fields
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        current = Declared(
            aliases=known.aliases, classes=frozenset(members), value_classes=frozenset(found)
        )
        for named, fields in members.items():
            if named not in found and all(
                plain and value_type(shown, current) for shown, plain in fields
            ):
                found.add(named)
                changed = True
    return frozenset(found)


def _known_depths(node: Node, known: Declared) -> dict[str, int]:
    return {k: v for k, v in _depths_of(node, known).items() if v is not None}


def _type_aliases(root: Node) -> dict[str, str]:
    """`typedef int *row_t;` → {"row_t": "int*"}, `typedef int &ref_t;` → {"ref_t": "int&"};
    `using Flags = std::vector<bool>;` →
    {"Flags": "std::vector<bool>"}."""
    found: dict[str, str] = {}
    for node in walk(root):
        if node.type == "type_definition":
            type_node = node.child_by_field_name("type")
            base = canon(type_node).replace(" ", "") if type_node is not None else ""
            for declarator in node.children_by_field_name("declarator"):
                name = next(
                    (text(n) for n in walk(declarator) if n.type == "type_identifier"), None
                )
                if name is None:
                    continue
                stars = sum(1 for n in walk(declarator) if n.type == "pointer_declarator")
                arrays = sum(1 for n in walk(declarator) if n.type == "array_declarator")
                # `typedef int &IR;`: an object of type IR is a reference
                refs = any(n.type == "reference_declarator" for n in walk(declarator))
                found[name] = base + "*" * stars + "[]" * arrays + "&" * refs
        elif node.type == "alias_declaration":
            name_node = node.child_by_field_name("name")
            type_node = node.child_by_field_name("type")
            if name_node is not None and type_node is not None:
                found[text(name_node)] = canon(type_node).replace(" ", "")
    return found


def _owner(operator: Node) -> str | None:
    """The class an `operator[]` belongs to: the class body it is declared in, or the scope
    of its qualified name (`Grid::operator[]`)."""
    node = operator.parent
    if node is not None and node.type == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        return text(scope).split("<", 1)[0] if scope is not None else None
    while node is not None:
        if node.type in ("class_specifier", "struct_specifier", "union_specifier"):
            name = node.child_by_field_name("name")
            return text(name).split("<", 1)[0] if name is not None else None
        node = node.parent
    return None


_CONSTANT_BODY = re.compile(r"[\s\w().+\-*/%<>&|^~!?:,']*")
_WORD = re.compile(r"[A-Za-z_]\w*")
_NUMBER = re.compile(r"(?<![\w.])\.?\d[\w.]*(?:[eEpP][+-]\d+)?")
"""A numeric literal (`100u`, `0x1F`, `1e-9`, `2.5f`), whose letters are no names."""
_SIDE_EFFECT = re.compile(r"\+\+|--|(?<![=!<>])=(?!=)|->|\[")


def _macros(root: Node) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(hidden object-like macros, function-like macros, pure function-like macros)."""
    bodies: dict[str, str] = {}
    functions: dict[str, tuple[list[str], str]] = {}
    for node in walk(root):
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        body = re.sub(r"/\*.*?\*/", " ", text(value), flags=re.S) if value is not None else ""
        body = body.split("//")[0]
        if node.type == "preproc_def" and name is not None:
            bodies[text(name)] = body
        elif node.type == "preproc_function_def" and name is not None:
            parameters = node.child_by_field_name("parameters")
            names = [text(p) for p in parameters.named_children] if parameters is not None else []
            functions[text(name)] = (names, body)
    constant: set[str] = set()
    changed = True
    while changed:
        changed = False
        for macro, body in bodies.items():
            if macro in constant or not _CONSTANT_BODY.fullmatch(body):
                continue
            words = set(_WORD.findall(_NUMBER.sub(" ", body))) - _TYPE_WORDS
            if words <= constant:
                constant.add(macro)
                changed = True
    hidden = frozenset(
        name for name, body in bodies.items() if body.strip() and name not in constant
    )
    pure = frozenset(
        name
        for name, (params, body) in functions.items()
        if not _SIDE_EFFECT.search(body)
        and not _dereferences(body)
        and set(_WORD.findall(_NUMBER.sub(" ", body))) - _TYPE_WORDS <= set(params) | constant
    )
    return hidden, frozenset(functions), pure


_TYPE_WORDS = frozenset(
    {"int", "long", "short", "unsigned", "signed", "char", "float", "double", "size_t", "sizeof"}
)


def _dereferences(body: str) -> bool:
    """A `*` that is not a product: at the start, or after an operator or `(`."""
    return bool(re.search(r"(^|[(,+\-*/%<>=&|^!?:~])\s*\*", body.strip()))


# --- locals that hold an address without saying so --------------------------------------------

_DEDUCED = re.compile(r"auto|__auto_type")
"""Deduced types that are never references (`decltype(x[0])` is `double &`: a view)."""
_ADDRESS_DECLARATORS = frozenset(
    {
        "pointer_declarator",
        "reference_declarator",
        "function_declarator",
        "abstract_pointer_declarator",
        "abstract_reference_declarator",
        "abstract_function_declarator",
    }
)
_VALUE_CALLS = frozenset(
    {
        "sqrt", "sqrtf", "cbrt", "exp", "expf", "exp2", "expm1", "log", "logf", "log2", "log10",
        "log1p", "pow", "powf", "sin", "sinf", "cos", "cosf", "tan", "asin", "acos", "atan",
        "atan2", "sinh", "cosh", "tanh", "erf", "erfc", "fabs", "fabsf", "abs", "labs", "llabs",
        "floor", "floorf", "ceil", "ceilf", "round", "lround", "llround", "trunc", "fmod",
        "remainder", "fmin", "fmax", "hypot", "fma", "norm", "real", "imag", "arg", "conj",
        "polar", "rand", "isnan", "isinf", "isfinite", "signbit", "copysign", "size", "length",
        "popcount", "__builtin_popcount", "__builtin_popcountll", "__builtin_clz",
        "__builtin_ctz",
    }
)  # fmt: skip
"""Library functions (and `x.size()`-like methods) whose result is a number: a local
initialised from one holds no address."""
_ARITHMETIC_OPERATORS = frozenset(
    {"*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<", ">", "<=", ">=", "&&", "||"}
)


def address_locals(body: Node, known: Declared) -> dict[str, tuple[frozenset[str], bool]]:
    """The body's locals that may hold an address although no `*` or `&` declares them so: a
    pointer or iterator type behind an alias (`iptr p = a + i`), a deduced type (`auto p =
    v.data() + i`, `auto it = v.begin()`), a type the file does not show to be a value, an
    array of pointers (`int (*row)[4]`). Each → the names its initial value mentions (the
    storage it may reach; none: any), and whether it may be a reference (a `decltype`, whose
    assignment writes its target). A local is left out when its type holds only storage of
    its own (`value_type`), or is deduced from an initial value that is evidently a number or
    such a value (`x[i] * 2`, `p.x - q.x`, `std::sqrt(d)`)."""
    types: dict[str, list[tuple[str, Node]]] | None = None
    """The function's declarations, read once the first deduced local needs them."""
    found: dict[str, tuple[frozenset[str], bool]] = {}
    for node in walk(body):
        if node.type != "declaration":
            continue
        storage = {text(c) for c in node.children if c.type == "storage_class_specifier"}
        if storage & {"static", "extern"}:
            continue
        type_node = node.child_by_field_name("type")
        type_text = canon(type_node).replace(" ", "") if type_node is not None else ""
        for decl in node.children_by_field_name("declarator"):
            declarator = (
                decl.child_by_field_name("declarator") if decl.type == "init_declarator" else decl
            )
            if declarator is not None and declarator.type in (
                "pointer_declarator",
                "reference_declarator",
            ):
                continue  # `accesses` holds these already
            value = decl.child_by_field_name("value") if decl.type == "init_declarator" else None
            bound = [n for n in walk(decl) if n.type == "structured_binding_declarator"]
            names = (
                [text(p) for p in bound[0].named_children if p.type == "identifier"]
                if bound
                else [n for n in [declared_name(decl)] if n is not None]
            )
            nested = declarator is not None and any(
                n.type in _ADDRESS_DECLARATORS for n in walk(declarator)
            )
            named = type_node is not None and type_node.type == "type_identifier"
            if (
                not nested
                and not bound
                and (value_type(type_text, known) or (named and _unknown_name(type_text, known)))
            ):
                continue  # (a template's `T`: taken as a number, as before)
            deduced = _DEDUCED.fullmatch(type_text.replace("const", ""))
            if not nested and deduced and value is not None:
                types = _visible_types(body) if types is None else types
                if _evident_type(value, types, known) is not None:
                    continue
            reaches = frozenset(identifiers(value)) if value is not None else frozenset()
            viewed = bool(re.match(r"(?:const)?(?:decltype|__typeof__|typeof)\(", type_text))
            for name in names:
                before, was = found.get(name, (frozenset(), False))
                found[name] = (before | reaches, was or viewed)
    return found


def _visible_types(body: Node) -> dict[str, list[tuple[str, Node]]]:
    """Name → (type text, declarator) of each declaration of it in the file, the enclosing
    function's parameters and the body (every declaration of a name counts)."""
    root = root_of(body)
    definition = body
    while definition.parent is not None and definition.type != "function_definition":
        definition = definition.parent
    nodes = [c for c in root.children if c.type == "declaration"]
    if definition.type == "function_definition":
        nodes += [p for _, p in function_params(definition)]
        nodes += [d for d in walk(definition) if d.type == "declaration"]
    found: dict[str, list[tuple[str, Node]]] = {}
    for node in nodes:
        kind = node.child_by_field_name("type")
        shown = canon(kind).replace(" ", "") if kind is not None else "?"
        for declarator in node.children_by_field_name("declarator"):
            name = declared_name(declarator)
            if name is not None:
                found.setdefault(name, []).append((shown, declarator))
    return found


def _evident_type(
    node: Node, types: dict[str, list[tuple[str, Node]]], known: Declared
) -> str | None:
    """The value type of an expression when it is evident without knowing overloads: "#" for
    a number the operators compute, else the declared type of a named value (an element, a
    member of a value class); None where the value may be an address (pointer arithmetic, an
    iterator, an array that decays, a name of unknown type)."""
    node = unwrap(node)
    kind = node.type
    if kind in ("number_literal", "char_literal", "true", "false", "sizeof_expression"):
        return "#"
    if kind == "unary_expression" and text(node.children[0]) in ("-", "!", "~"):
        return "#"  # (`+b` of an array is its address)
    if kind == "binary_expression":
        operator = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator is None or left is None or right is None:
            return None
        if text(operator) in _ARITHMETIC_OPERATORS:
            return "#"
        if text(operator) in ("+", "-"):
            sides = (_evident_type(left, types, known), _evident_type(right, types, known))
            return "#" if None not in sides else None
        return None
    if kind == "conditional_expression":
        branches = [node.child_by_field_name(f) for f in ("consequence", "alternative")]
        if any(b is None or _evident_type(b, types, known) is None for b in branches):
            return None
        return "#"
    if kind == "cast_expression":
        target = node.child_by_field_name("type")
        shown = canon(target).replace(" ", "") if target is not None else ""
        return shown if value_type(shown, known) else None
    if kind == "call_expression":
        callee = node.child_by_field_name("function")
        if callee is None:
            return None
        called = canon(callee).replace(" ", "")
        cast = re.fullmatch(r"(?:static_cast|std::\w+)<(.+)>", called)
        if cast is not None and called.startswith("static_cast"):
            return cast.group(1) if value_type(cast.group(1), known) else None
        last = re.split(r"::|\.|->", called)[-1]
        if last in _VALUE_CALLS:
            return "#"
        if last in ("min", "max"):
            arguments = node.child_by_field_name("arguments")
            given = arguments.named_children if arguments is not None else []
            if given and all(_evident_type(a, types, known) is not None for a in given):
                return "#"
        return None
    if kind in ("identifier", "subscript_expression"):
        subscripts = 0
        while node.type == "subscript_expression":
            inner = node.child_by_field_name("argument")
            if inner is None:
                return None
            node, subscripts = unwrap(inner), subscripts + 1
        if node.type != "identifier":
            return None
        declared_as = types.get(text(node), [])
        elements = {_element_type(t, d, subscripts, known) for t, d in declared_as}
        return elements.pop() if len(elements) == 1 else None
    if kind == "field_expression" and _is_member_of_value(node, types, known):
        return "#"
    return None


def _is_member_of_value(
    node: Node, types: dict[str, list[tuple[str, Node]]], known: Declared
) -> bool:
    """`p.x` of an object whose class has values only (`value_classes`): the member is one."""
    operator = node.child_by_field_name("operator")
    argument = node.child_by_field_name("argument")
    if operator is None or text(operator) != "." or argument is None:
        return False
    owner = _evident_type(argument, types, known)
    if owner is None:
        return False
    owner = known.resolve(owner).removeprefix("const")
    owner = owner.removeprefix("struct").removeprefix("class").removeprefix("union")
    member = node.child_by_field_name("field")
    if owner not in known.value_classes or member is None:
        return False
    # a member array decays to its address (`auto p = g.d;`)
    return not any(
        d.type == "array_declarator"
        for f in walk(root_of(node))
        if f.type == "field_declaration"
        for declarator in f.children_by_field_name("declarator")
        if declared_name(declarator) == text(member)
        for d in walk(declarator)
    )


_ONE_LEVEL = re.compile(r"(?:std::)?(?:vector|array|valarray|deque|basic_string)<(.*)>")


def _element_type(
    type_text: str, declarator: Node | None, subscripts: int, known: Declared
) -> str | None:
    """The type `subscripts` subscripts of a name declared so reach, when it is a value (a
    number, an owning standard type, a value class); None for anything else (a pointer, an
    array that decays to one, an unknown type)."""
    chain = [
        kind
        for kind in _declarator_kinds(declarator)
        if kind in _ADDRESS_DECLARATORS - {"reference_declarator"} or kind == "array_declarator"
    ]
    if "function_declarator" in chain or subscripts < len(chain):
        return None
    shown = known.resolve(type_text.replace("const", ""))
    for _ in range(subscripts - len(chain)):
        if shown.endswith("*"):
            shown = known.resolve(shown[:-1])
            continue
        level = _ONE_LEVEL.fullmatch(shown)
        if level is None:
            return None
        shown = known.resolve(_first_argument(level.group(1)).replace("const", ""))
    return shown if not shown.endswith("*") and value_type(shown, known) else None


def _first_argument(arguments: str) -> str:
    """`int,4` → `int`; `std::pair<int,int>` whole (a comma inside brackets is not the end)."""
    depth = 0
    for k, char in enumerate(arguments):
        depth += char == "<"
        depth -= char == ">"
        if char == "," and depth == 0:
            return arguments[:k]
    return arguments
