"""`analyse`: a source text in, its functions and loops with dependence verdicts out."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from tree_sitter import Node

from agents.analysis.accesses import AccessEvent, BodyFacts, body_facts
from agents.analysis.arith import Arith, arith, declared_types, mixed_types
from agents.analysis.containers import contiguous_names, random_access_names
from agents.analysis.declared import (
    Declared,
    address_locals,
    class_typed,
    class_typed_in,
    declared,
    local_depths,
    packed_type,
    reroute,
    typed_names,
    value_type,
)
from agents.analysis.dependence import (
    Scope,
    apart,
    checked_also,
    dependence,
    reference_apart,
    storage_kinds,
)
from agents.analysis.errors import InputError
from agents.analysis.liveness import live_after
from agents.analysis.loops import (
    Header,
    _init,
    _non_negative,
    header,
    loop_body,
    loops_in,
)
from agents.analysis.model import Access, Dependence, Function, Loop, LoopKind, Program
from agents.analysis.parse import (
    LOOP_TYPES,
    body_statements,
    canon,
    constants,
    constructed,
    declared_name,
    end_line,
    function_definitions,
    function_name,
    function_params,
    identifiers,
    in_body,
    is_scalar_declarator,
    line,
    parse,
    root_of,
    syntax_error_lines,
    text,
    unwrap,
    walk,
)
from agents.analysis.purity import defined_names, is_pure
from agents.analysis.reductions import fold_term, match_reduction
from sandbox.spec import Language

_KINDS: dict[str, LoopKind] = {
    "for_statement": "for",
    "for_range_loop": "for",
    "while_statement": "while",
    "do_statement": "do",
}


@dataclass
class _Found:
    """One loop while the program is being assembled (its nest depth is known only at the end)."""

    node: Node
    id: str
    ancestors: tuple[str, ...]
    header: Header
    facts: BodyFacts
    dependence: Dependence
    perfect_nest: int = 1
    counter_kept: bool = False
    directive: int | None = None
    openmp_form: str | None = None
    static_only: bool = False


@dataclass(frozen=True)
class _Whole:
    """What the whole program says about every loop of it, worked out once."""

    errno: bool
    """The program reads `errno`, which library calls set per thread."""
    per_thread: frozenset[str]
    """Names of variables each thread may have its own of (`_per_thread`)."""
    hidden_calls: dict[str, str]
    """The program's functions whose calls run code no call spells, with why
    (`_hidden_call_effects`)."""

    @classmethod
    def of(cls, root: Node, known: Declared) -> _Whole:
        return cls(
            errno="errno" in identifiers(root),
            per_thread=_per_thread(root),
            hidden_calls=_hidden_call_effects(root, known),
        )


def analyse(source: str, language: Language) -> Program:
    """Parse `source` and analyse every loop of every function; raises InputError for non-code."""
    tree = parse(source, language)
    root = tree.root_node
    named = constants(root)
    definitions = list(function_definitions(root))
    known = declared(root)
    # A function-like macro may be named like a library function (`#define max(a, b) ...`):
    # it is trusted only when its body computes with nothing but its parameters.
    # So may a variable (`int (*sqrt)(int) = f;`): a call through it is no library call.
    defined = defined_names(
        {function_name(d) for d in definitions} | known.macro_functions | _variables(root)
    )
    # How to read each function's bodies, worked out once per function.
    readings = {d.id: _Reading.of(d, known) for d in definitions}
    pure = _pure_functions(definitions, defined, readings) | known.pure_macros
    file_constants = {
        name
        for decl in root.children
        if decl.type == "declaration"
        for name in _constant_storage(decl)
    }
    elementwise = _elementwise(definitions, pure, defined, readings)
    reads = _reads_through_calls(
        definitions, pure, frozenset(file_constants), elementwise, readings=readings
    )
    shared = _global_arrays(root, named)
    pointers = _global_pointers(root)
    functions = []
    counter = 0
    whole = _Whole.of(root, known)
    for definition in definitions:
        found, counter = _loops(
            definition,
            named,
            shared,
            pointers,
            pure,
            elementwise,
            reads,
            defined,
            counter,
            language,
            known,
            readings[definition.id],
            whole,
        )
        name = function_name(definition)
        functions.append(
            Function(
                name=name,
                start_line=line(definition),
                end_line=end_line(definition),
                params=tuple(p for p, _ in function_params(definition)),
                loops=tuple(_loop(f, name, found) for f in found),
                start_byte=definition.start_byte,
                end_byte=definition.end_byte,
            )
        )
    return Program(
        language=language,
        functions=tuple(functions),
        has_main=any(f.name == "main" for f in functions),
        syntax_errors=syntax_error_lines(root),
    )


@dataclass(frozen=True)
class _Reading:
    """How to read a function's bodies: `body_facts`, with the accesses its declarations make
    unreadable (`declared.reroute`) moved to reads and writes through an address."""

    known: Declared
    depths: dict[str, int]
    integers: frozenset[str]
    objects: frozenset[str]
    active: frozenset[str] = frozenset()
    """Names of a type whose operators or special members are the program's own and do more
    than compute with their object (`Declared.active_classes`)."""

    @classmethod
    def of(cls, definition: Node, known: Declared) -> _Reading:
        return cls(
            known,
            local_depths(definition, known),
            _integer_variables(definition),
            class_typed(definition, known),
            class_typed(definition, known, known.active_classes),
        )

    def facts(self, body: Node) -> BodyFacts:
        facts = reroute(body_facts(body), self.depths, self.known, self.integers, self.objects)
        for name, (reaches, reference) in address_locals(body, self.known).items():
            if name in facts.locals and name not in facts.local_pointers:
                facts.local_pointers[name] = reaches
                if reference:
                    facts.local_references.add(name)
        return facts


def function_source(source: str, program: Program, name: str) -> str:
    """The text of function `name` as it appears in `source` (the text `program` analysed)."""
    function = program.function(name)
    if function is None:
        raise InputError(f"the program has no function {name}")
    return source.encode()[function.start_byte : function.end_byte].decode()


def _loops(
    definition: Node,
    named: dict[str, int],
    shared: tuple[tuple[str, str, str, bool, bool], ...],
    global_pointers: frozenset[str],
    pure: frozenset[str],
    elementwise: dict[str, _Elementwise],
    reads: dict[str, frozenset[_Source]],
    defined: frozenset[str],
    counter: int,
    language: Language,
    known: Declared,
    reading: _Reading,
    whole: _Whole,
) -> tuple[list[_Found], int]:
    body = definition.child_by_field_name("body")
    if body is None:
        return [], counter
    params = function_params(definition)
    pointers = tuple(
        (name, canon(p.child_by_field_name("type") or p))
        for name, p in params
        if not is_scalar_declarator(p.child_by_field_name("declarator"))
    )
    containers = random_access_names(definition)
    contiguous = contiguous_names(definition, lambda t: arith(t, known) is not None)
    reference_params = frozenset(
        name
        for name, p in params
        if (d := p.child_by_field_name("declarator")) is not None and _is_reference(d)
    )
    number_references = _number_references(definition)
    arrays = _sized_arrays(definition, named, shared)
    packed = _bit_vectors(definition, known)
    holds_bits = lambda shown: _holds_bits(known.resolve(shown))  # noqa: E731
    packed_rows = _names_typed(definition, holds_bits) | (
        typed_names(
            [c for c in root_of(definition).children if c.type == "declaration"], holds_bits
        )
        - _declared_names(definition)
    )
    maps = _maps(definition)
    # A file-scope pointer may point anywhere, as a pointer the function assigns may.
    declared = {name for name, _ in function_params(definition)} | _declared_names(definition)
    aliases = (
        tuple((name, "local pointer") for name in sorted(global_pointers - declared))
        + tuple((name, "opaque") for name in sorted(known.reference_names - declared))
        + _aliases(definition, known)
    )
    own, scalars = _own_variables(definition)
    integers = reading.integers
    objects = _objects(definition, known)
    addressed = _addressed(definition)
    types = declared_types(root_of(definition), definition, known)
    found: list[_Found] = []
    by_node: dict[int, _Found] = {}
    for node in loops_in(body):
        counter += 1
        parent = _enclosing_loop(node, body)
        ancestors = (*by_node[parent.id].ancestors, by_node[parent.id].id) if parent else ()
        inner = loop_body(node)
        facts = reading.facts(inner) if inner is not None else BodyFacts()
        substituted, replaced = (
            _substitute_calls(inner, facts, elementwise) if inner is not None else (set(), set())
        )
        head = header(node, facts.assigned(), named, set(pure), containers, defined)
        scope = Scope(
            pure_functions=pure | substituted,
            defined_functions=defined,
            used_after=_used_after(node, body, facts.assigned() | {head.var or ""}),
            own=own,
            scalars=scalars,
            integers=integers,
            objects=objects,
            addressed=addressed,
            pointer_params=pointers,
            arrays=arrays,
            packed=packed,
            packed_rows=packed_rows,
            maps=maps,
            aliases=aliases,
            contiguous=contiguous,
            reference_params=reference_params,
            number_references=number_references,
        )
        verdict = (
            dependence(
                head.var,
                facts,
                scope,
                range_for=head.container is not None,
                written_through=_written_through(head, facts),
                repeatable=head.counter_type is not None,
                scannable=head.declared_type is not None
                and (
                    head.counter_type is not None
                    or (head.test == "<=" and head.stride == 1)
                    or (head.test in (">", ">=") and head.stride == -1)
                ),
                cpp=language is Language.CPP,
                statements=body_statements(inner),
                lower=head.lower,
                stride=head.stride,
                counters=_counters(node, head, named, pure, containers, defined),
            )
            if head.canonical and head.var is not None
            else Dependence(kind="unknown", reason=f"not in OpenMP canonical form: {head.why}")
        )
        if (
            verdict.parallelisable or verdict.first_match or verdict.scan is not None
        ) and inner is not None:
            # a search runs every iteration up to its bound too, and a scan's first pass runs
            # part of each iteration again: the same checks hold them
            search = verdict.first_match
            kinds, ranged = storage_kinds(scope), _ranged_references(node)
            verdict = (
                _static_writes(inner, facts)
                or _hidden_calls(inner, facts, reading, types)
                or _shadowed(inner, facts)
                or _counter_hidden(inner, head.var)
                or _counter_seen_by_calls(head.var, facts, scope)
                or _unseen_effects(inner, whole.hidden_calls, known)
                or (_errno_set(facts, defined) if whole.errno else None)
                or _unreducible(definition, verdict)
                or (
                    _per_thread_use(inner, facts, whole.per_thread, defined)
                    if whole.per_thread
                    else None
                )
                or mixed_types(inner, verdict, types, head.var)
                or _logical_start(node, body, verdict, types)
                or _bool_folds(inner, verdict, types, _truths(head, packed, types))
                or _bound_reads(node, facts, scope, verdict, ranged, reads, containers)
                or _ranged_reads(node, facts, kinds, verdict, ranged)
                or _unseen_reads(inner, facts, reads, kinds, verdict, replaced)
            )
            if search and verdict.first_match and verdict.overlap_checks:
                verdict = Dependence(
                    kind="unknown",
                    reason="a search whose reads only a run-time check keeps apart from what "
                    "it writes: no search is written behind such a check",
                )
        item = _Found(
            node,
            f"L{counter}",
            ancestors,
            head,
            facts,
            verdict,
            counter_kept=_counter_kept(node, head, scope.used_after),
            directive=_directive(node, body),
            openmp_form=_openmp_form(node, head, definition, types, known),
            static_only=_static_only(node, head, types, known),
        )
        found.append(item)
        by_node[node.id] = item
    for item in reversed(found):
        item.perfect_nest = _perfect_nest(item, by_node)
    return found, counter


_CONTAINER = re.compile(r"\b(vector|array|valarray|deque|basic_string|string)\b")


_AS_PARAMETER = {
    "pointer": "pointer",
    "array": "pointer",
    "grid": "grid",
    "reference": "container",
    "container": "local container",
    "opaque": "opaque",
}
_AS_LOCAL = {
    "pointer": "local pointer",
    "array": "local array",
    "grid": "local array",
    "reference": "alias container",
    "container": "local container",
    "opaque": "opaque",
}


def _aliases(definition: Node, known: Declared) -> tuple[tuple[str, str], ...]:
    """(name, kind) of the names whose storage may be shared with another name's
    (`agents.analysis.dependence.Scope.aliases`): "pointer" and "grid" (a pointer or array
    parameter the function never points elsewhere; a grid has several dimensions),
    "container" (a reference parameter to one), "local pointer" (a pointer the function
    declares or reassigns), "alias container" (a local reference to a container, or to
    whatever `auto` stands for), "opaque" (an object that may view someone else's storage:
    an iterator, a span, a class with pointer members, an `auto` initialised with anything
    but arithmetic), and the function's own storage: "local array" and "local container"
    (declared in it, or a container parameter passed by value)."""
    found: dict[str, str] = {}
    reassigned: set[str] = set()
    numbers = _arithmetic_names(definition, known)
    # A template's type parameter may stand for a number or a pointer: an object of one is
    # judged by its initial value, as `auto` is.
    generic = _template_parameters(definition)
    known = replace(known, aliases={**known.aliases, **{t: "auto" for t in generic}})
    for name, param in function_params(definition):
        declarator = param.child_by_field_name("declarator")
        kind = _declared_kind(declarator, param.child_by_field_name("type") or param, known)
        if kind == "auto":
            kind = "opaque"
        if kind == "pointer" and declarator is not None and _restrict(declarator):
            found[name] = "restrict"
        elif kind:
            found[name] = _AS_PARAMETER[kind]
    body = definition.child_by_field_name("body")
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type == "lambda_expression":
            # a lambda's parameters are names of the function's loops inside it
            lambda_params = node.child_by_field_name("declarator")
            listed = lambda_params.child_by_field_name("parameters") if lambda_params else None
            for param in listed.named_children if listed is not None else ():
                lambda_name = declared_name(param.child_by_field_name("declarator"))
                lambda_kind = _declared_kind(
                    param.child_by_field_name("declarator"),
                    param.child_by_field_name("type") or param,
                    known,
                )
                if lambda_name is not None and lambda_kind:
                    found[lambda_name] = _AS_PARAMETER[
                        "opaque" if lambda_kind == "auto" else lambda_kind
                    ]
        misread = _misread_reference(node)
        if misread is not None:
            found[misread] = "opaque"
        if node.type == "declaration" and node.child_by_field_name("type") is not None:
            # A static array outlives the call: a parameter may point into it, unless it is
            # const (writing a const object through any pointer is undefined behaviour).
            static = any(c.type == "storage_class_specifier" for c in node.children) and not any(
                c.type == "type_qualifier" and text(c) == "const" for c in node.children
            )
            for child in node.children_by_field_name("declarator"):
                inner = (
                    child.child_by_field_name("declarator")
                    if child.type == "init_declarator"
                    else child
                )
                local = declared_name(child)
                value = (
                    child.child_by_field_name("value") if child.type == "init_declarator" else None
                )
                kind = _declared_kind(inner, node.child_by_field_name("type") or node, known)
                if kind == "auto":
                    kind = "" if value is None or _arithmetic_value(value, numbers) else "opaque"
                elif kind == "reference" and (value is None or unwrap(value).type != "identifier"):
                    # `auto &r = a[5]`, `std::vector<int> &r = g[k]`: an element (a row) of
                    # another object, which no check of the two objects' addresses separates.
                    kind = "opaque"
                if local and kind == "pointer" and not static and _fresh(value):
                    found[local] = "fresh"
                elif local and kind and not (static and kind in ("array", "grid")):
                    found[local] = _AS_LOCAL[kind]
        target = None
        if node.type == "assignment_expression":
            target = node.child_by_field_name("left")
        elif node.type == "update_expression" or (
            # `&u` may let a callee point `u` elsewhere (`posix_memalign(&u, ...)`).
            node.type == "pointer_expression" and text(node.children[0]) == "&"
        ):
            target = node.child_by_field_name("argument")
        if target is not None:
            reassigned.add(text(target))
        if target is not None and found.get(text(target)) in ("pointer", "grid", "restrict"):
            found[text(target)] = "local pointer"
    # A pointer to a fresh allocation that is never pointed elsewhere is storage of the
    # function's own, as a local array is: no parameter or other name reaches it.
    for name, kind in found.items():
        if kind == "fresh":
            found[name] = "local pointer" if name in reassigned else "local array"
    return tuple(found.items())


def _misread_reference(node: Node) -> str | None:
    """The name `int (&n) = v[3];` declares, a declaration the parser reads as an assignment
    to a call (`int(&n)`): a reference to some other object's storage."""
    if node.type != "assignment_expression" or node.parent is None:
        return None
    if node.parent.type != "expression_statement":
        return None
    left = node.child_by_field_name("left")
    if left is None or left.type != "call_expression":
        return None
    callee = left.child_by_field_name("function")
    arguments = left.child_by_field_name("arguments")
    if callee is None or arguments is None or arguments.named_child_count != 1:
        return None
    if callee.type not in ("primitive_type", "sized_type_specifier", "type_identifier"):
        return None
    argument = arguments.named_children[0]
    name = argument.child_by_field_name("argument")
    if (
        argument.type == "pointer_expression"
        and text(argument.children[0]) == "&"
        and name is not None
        and name.type == "identifier"
    ):
        return text(name)
    return None


_ALLOCATORS = frozenset({"malloc", "calloc", "aligned_alloc", "std::malloc", "std::calloc"})


def _fresh(value: Node | None) -> bool:
    """`malloc(...)`, `calloc(...)`, `aligned_alloc(...)` (cast or not) or `new T[n]`: storage
    nothing else points to yet."""
    if value is None:
        return False
    value = unwrap(value)
    while value.type == "cast_expression":
        inner = value.child_by_field_name("value")
        if inner is None:
            return False
        value = unwrap(inner)
    if value.type == "new_expression":
        return True
    callee = value.child_by_field_name("function") if value.type == "call_expression" else None
    return callee is not None and text(callee).replace(" ", "") in _ALLOCATORS


def _restrict(declarator: Node) -> bool:
    """A `restrict` pointer (`double *restrict a`, `__restrict`, `__restrict__`): the caller
    promises that an object written through it is reached through nothing else."""
    return declarator.type == "pointer_declarator" and any(
        c.type in ("type_qualifier", "ms_pointer_modifier") and "restrict" in text(c)
        for c in declarator.children
    )


def _declared_kind(declarator: Node | None, type_node: Node, known: Declared) -> str:
    """How a declarator's storage may be shared: "pointer", "array" (one dimension), "grid"
    (several), "reference" (to a container), "opaque" (a reference to anything else, or an
    object that may view someone else's storage), "container" (one held by value), "auto"
    (an `auto` object: it depends on the initial value), "" otherwise (a value)."""
    while declarator is not None and declarator.type == "parenthesized_declarator":
        declarator = declarator.named_children[0] if declarator.named_children else None
    if declarator is None:
        return ""
    shown = canon(type_node).replace(" ", "")
    container = bool(_CONTAINER.search(text(type_node))) and value_type(shown, known)
    if declarator.type == "reference_declarator":
        inner = declarator.named_children[-1] if declarator.named_children else None
        if inner is not None and inner.type == "function_declarator" and in_body(inner):
            # `int &m(v[4]);`, which the parser reads as a function declaration (a function
            # returning a reference, declared inside another, would be rare)
            inner = inner.child_by_field_name("declarator")
        if inner is not None and inner.type == "identifier":
            # A reference to some other class (a matrix, a span) may hold anyone's storage.
            return "reference" if container or text(type_node) == "auto" else "opaque"
        return "pointer" if inner is not None else ""
    if declarator.type == "pointer_declarator":
        return "pointer"
    if declarator.type == "array_declarator":
        inner = declarator.child_by_field_name("declarator")
        if inner is not None and inner.type == "parenthesized_declarator":
            # `int (*pa)[2]`: a pointer to rows, which may point anywhere.
            return "pointer"
        return "array" if inner is not None and inner.type == "identifier" else "grid"
    if declarator.type == "identifier" and container:
        return "container"
    if declarator.type == "function_declarator" and container and in_body(declarator):
        # `std::vector<int> x(n);`, which the parser reads as a function declaration (a
        # function returning a container, declared inside another, would be rare)
        return "container"
    if declarator.type == "identifier" and known.resolve(shown) == "auto":
        return "auto"
    if declarator.type == "identifier" and not value_type(shown, known):
        # An iterator, a span, a smart pointer, a class holding pointers: a view.
        return "opaque"
    return ""


def _template_parameters(definition: Node) -> set[str]:
    """The type parameters of the templates around a definition (`T` of `template <typename
    T>`), its class's included."""
    found: set[str] = set()
    node = definition.parent
    while node is not None:
        if node.type == "template_declaration":
            parameters = node.child_by_field_name("parameters")
            for parameter in parameters.named_children if parameters is not None else []:
                if parameter.type in (
                    "type_parameter_declaration",
                    "optional_type_parameter_declaration",
                ):
                    found.update(
                        text(c) for c in parameter.named_children if c.type == "type_identifier"
                    )
        node = node.parent
    return found


def _arithmetic_names(definition: Node, known: Declared) -> frozenset[str]:
    """Names the function declares only as plain numbers (no pointer, array or reference)."""
    numbers: set[str] = set()
    other: set[str] = set()
    for decl in _declarations(definition):
        type_node = decl.child_by_field_name("type")
        shown = canon(type_node).replace(" ", "") if type_node is not None else ""
        for declarator in decl.children_by_field_name("declarator"):
            name = declared_name(declarator)
            inner = _unwrapped(declarator)
            if name is None:
                continue
            plain = inner is not None and inner.type == "identifier"
            arithmetic = shown != "auto" and value_type(shown, known) and "<" not in shown
            (numbers if plain and arithmetic else other).add(name)
    return frozenset(numbers - other)


_NUMBER_MACROS = frozenset(
    {"DBL_MAX", "DBL_MIN", "DBL_EPSILON", "FLT_MAX", "FLT_MIN", "FLT_EPSILON", "INT_MAX",
     "INT_MIN", "UINT_MAX", "LONG_MAX", "LONG_MIN", "ULONG_MAX", "LLONG_MAX", "LLONG_MIN",
     "ULLONG_MAX", "SIZE_MAX", "M_PI", "M_E", "INFINITY", "NAN", "HUGE_VAL", "HUGE_VALF"}
)  # fmt: skip
"""The C library's numeric constants (`<cfloat>`, `<climits>`, `<cstdint>`, `<cmath>`)."""
_LIMITS = re.compile(
    r"(std::)?numeric_limits<(const)?(unsigned|signed|short|int|long|char|float|double|bool|"
    r"size_t|u?int(8|16|32|64)_t)+>::(max|min|lowest|infinity|epsilon|quiet_NaN)\(\)"
)
"""`std::numeric_limits<double>::max()` and its kin for a number type."""


def _arithmetic_value(value: Node, numbers: frozenset[str]) -> bool:
    """An `auto` initialiser that is plainly a number: literals, the function's numbers, the
    library's numeric constants (`DBL_MAX`, `std::numeric_limits<int>::max()`) and `x.size()`
    or `x.length()`, combined by operators (no address, subscript or other call)."""
    node = unwrap(value)
    if node.type in ("number_literal", "true", "false", "char_literal"):
        return True
    if node.type == "identifier":
        return text(node) in numbers or text(node) in _NUMBER_MACROS
    if node.type == "call_expression" and _LIMITS.fullmatch("".join(text(node).split())):
        return True
    if node.type == "call_expression":
        callee = node.child_by_field_name("function")
        member = callee.child_by_field_name("field") if callee is not None else None
        arguments = node.child_by_field_name("arguments")
        return (
            callee is not None
            and callee.type == "field_expression"
            and member is not None
            and text(member) in ("size", "length")
            and (arguments is None or arguments.named_child_count == 0)
        )
    if node.type == "binary_expression" or (
        node.type == "unary_expression" and text(node.children[0]) in ("-", "+", "~", "!")
    ):
        return all(_arithmetic_value(c, numbers) for c in node.named_children)
    if node.type == "conditional_expression":
        return all(_arithmetic_value(c, numbers) for c in node.named_children)
    return False


def _counters(
    loop: Node,
    head: Header,
    named: dict[str, int],
    pure: frozenset[str],
    containers: frozenset[str],
    defined: frozenset[str],
) -> tuple[tuple[str, tuple[str, str]], ...]:
    """(counter, (lower, upper)) of `loop` and of the loops in its body that count up by one
    from `lower` while `counter < upper` (or `<=`, the upper bound one more): what bounds a
    subscript that mentions the counter. The loop's own comes first."""
    found = []
    body = loop_body(loop)
    # A body without braces may be the inner loop itself.
    nodes = [] if body is None else [body] if body.type in LOOP_TYPES else []
    for node in [loop, *nodes, *(loops_in(body) if body is not None else ())]:
        if node is not loop:
            inner = loop_body(node)
            written = body_facts(inner).assigned() if inner is not None else set()
            head = header(node, written, named, set(pure), containers, defined)
        test = node.child_by_field_name("condition") if node.type == "for_statement" else None
        op = test.child_by_field_name("operator") if test is not None else None
        left = test.child_by_field_name("left") if test is not None else None
        if (
            head.canonical
            and head.var is not None
            and head.stride == 1
            and head.lower is not None
            and head.upper is not None
            and op is not None
            and text(op) in ("<", "<=")
            and left is not None
            and text(left) == head.var
        ):
            upper = head.upper if text(op) == "<" else f"({head.upper}) + 1"
            found.append((head.var, (head.lower, upper)))
    counts = [var for var, _ in found]
    # A name two loops count has no single range.
    return tuple(item for item in found if counts.count(item[0]) == 1)


def _sized_arrays(
    definition: Node,
    named: dict[str, int],
    shared: tuple[tuple[str, str, str, bool, bool], ...] = (),
) -> tuple[tuple[str, str, str, bool, bool], ...]:
    """(name, element type, length, is a container) of the one-dimensional arrays whose length
    a function's parameters and declarations give: `size_t h[10]`, `int h[N]` with `N` a named
    constant, `std::array<size_t, 256> &bins`, and `std::vector<double> y(n)`, whose length is
    `y.size()` (a loop that could resize it calls something with side effects); then those of
    `shared` (the file's own arrays, `_global_arrays`) that no name of the function shadows."""
    found: dict[str, tuple[str, str, str, bool, bool]] = {}
    declarations = _declarations(definition)
    own = {name for name, _ in function_params(definition)} | {
        name
        for decl in declarations
        if decl.type == "declaration"
        for d in decl.children_by_field_name("declarator")
        if (name := declared_name(d)) is not None
    }
    for entry in shared:
        if entry[0] not in own:
            found[entry[0]] = entry
    for decl in declarations:
        type_node = decl.child_by_field_name("type")
        if type_node is None:
            continue
        for declarator in decl.children_by_field_name("declarator"):
            if declarator.type == "init_declarator":
                declarator = declarator.child_by_field_name("declarator") or declarator
            # A parameter declared `int h[16]` is a pointer: its length says nothing.
            parameter = decl.type == "parameter_declaration"
            sized = (
                _std_array(type_node, declarator)
                or _std_vector(type_node, declarator)
                or (None if parameter else _c_array(type_node, declarator, named))
            )
            if sized is not None:
                found.setdefault(sized[0], sized)
    return tuple(found.values())


def _global_arrays(
    root: Node, named: dict[str, int]
) -> tuple[tuple[str, str, str, bool, bool], ...]:
    """The file-scope arrays of a fixed length (`int hist[256];`, `std::array<long, N> h;`),
    as `_sized_arrays` gives them: a histogram into one is as reducible as into a local."""
    found: dict[str, tuple[str, str, str, bool, bool]] = {}
    for decl in root.children:
        type_node = decl.child_by_field_name("type") if decl.type == "declaration" else None
        if type_node is None:
            continue
        for declarator in decl.children_by_field_name("declarator"):
            if declarator.type == "init_declarator":
                declarator = declarator.child_by_field_name("declarator") or declarator
            sized = _std_array(type_node, declarator) or _c_array(type_node, declarator, named)
            if sized is not None:
                found.setdefault(sized[0], sized)
    return tuple(found.values())


def _unwrapped(declarator: Node) -> Node | None:
    """The declarator an initialiser wraps (`*p` of `*p = b`), or the declarator itself."""
    if declarator.type == "init_declarator":
        return declarator.child_by_field_name("declarator")
    return declarator


def _constant_storage(node: Node) -> set[str]:
    """Names under `node` declared `const` arrays or scalars (`static const int w[4]`): writing
    them through any pointer is undefined behaviour, so no loop's write reaches them."""
    found: set[str] = set()
    for decl in walk(node):
        if decl.type != "declaration" or not any(
            c.type == "type_qualifier" and text(c) in ("const", "constexpr") for c in decl.children
        ):
            continue
        for declarator in decl.children_by_field_name("declarator"):
            inner = _unwrapped(declarator)
            name = declared_name(declarator)
            if inner is not None and inner.type in ("identifier", "array_declarator") and name:
                found.add(name)
    return found


@dataclass(frozen=True)
class _Elementwise:
    """Pointer parameters a function uses only at the element its index parameter names:
    `double get(const double *p, int k) { return p[k]; }` reads `p[k]`, `void set(double *y,
    int k, double v) { y[k] = v; }` writes `y[k]`. At a call whose argument for such a
    parameter is a plain name, the call is that element's access (`_substitute_calls`)."""

    index: int
    """The index parameter's position."""
    read: frozenset[int]
    """Positions of the pointer parameters only read, at the index."""
    written: frozenset[int]
    """Positions of those written (and perhaps read), at the index."""


def _elementwise(
    definitions: list[Node],
    pure: frozenset[str],
    defined: frozenset[str],
    readings: dict[int, _Reading],
) -> dict[str, _Elementwise]:
    """For each function with one definition: its pointer parameters used only at one by-value
    index parameter that it never reassigns, when they are any. A function that is not pure
    qualifies only when its sole effect is writing such parameters (no other write beyond its
    locals, only pure calls): a call then writes exactly those elements."""
    found: dict[str, _Elementwise] = {}
    names = Counter(function_name(d) for d in definitions)
    for definition in definitions:
        name = function_name(definition)
        body = definition.child_by_field_name("body")
        if body is None or names[name] > 1:
            continue
        params = function_params(definition)
        by_value = {
            p for p, node in params if is_scalar_declarator(node.child_by_field_name("declarator"))
        }
        position = {p: k for k, (p, _) in enumerate(params)}
        facts = readings[definition.id].facts(body)
        if facts.local_pointers or facts.pointer_reads:
            continue
        assigned = {e.name for e in facts.events if e.kind == "write" and not e.indices}
        used: dict[str, set[tuple[str, ...]]] = {}
        for event in facts.events:
            if event.name in position and event.name not in by_value:
                used.setdefault(event.name, set()).add(event.indices)
        indexed = {
            p: next(iter(forms))[0]
            for p, forms in used.items()
            if len(forms) == 1 and len(next(iter(forms))) == 1
        }
        if len(set(indexed.values())) != 1:
            continue
        (k,) = set(indexed.values())
        if k not in by_value or k in assigned or k in facts.locals or k in indexed:
            continue
        written = {e.name for e in facts.events if e.kind == "write" and e.name in indexed}
        if name not in pure:
            own = facts.locals | by_value
            others = [
                e
                for e in facts.events
                if e.kind == "write" and e.name not in written and (e.name not in own or e.indices)
            ]
            if (
                not written
                or others
                or facts.pointer_writes
                or facts.range_writes
                or set(used) - set(indexed)
                or not all(is_pure(call, pure, defined) for call in facts.calls)
            ):
                continue
        found[name] = _Elementwise(
            index=position[k],
            read=frozenset(position[p] for p in indexed if p not in written),
            written=frozenset(position[p] for p in written),
        )
    return found


def _substitute_calls(
    body: Node, facts: BodyFacts, elementwise: dict[str, _Elementwise]
) -> tuple[set[str], set[tuple[int, int]]]:
    """Add to `facts` the element accesses of every call in `body` to an `_Elementwise`
    function whose argument for such a parameter is a plain name: `set(out, i + 1, v)` reads
    and writes `out[i + 1]`, `get(a, i)` reads `a[i]`. Returns the writers every call of
    which was replaced (they are as good as pure here; the others keep their side effects),
    and (call, parameter position) of each replaced read, which the call's read summary
    then leaves out."""
    done: set[str] = set()
    kept: set[str] = set()
    replaced: set[tuple[int, int]] = set()
    for call in walk(body):
        if call.type != "call_expression":
            continue
        callee = call.child_by_field_name("function")
        name = text(callee) if callee is not None and callee.type == "identifier" else None
        if name not in elementwise:
            continue
        arguments = call.child_by_field_name("arguments")
        listed = [a for a in (arguments.named_children if arguments else []) if a.type != "comment"]
        found = elementwise[name]
        positions = found.read | found.written
        if max((*positions, found.index)) >= len(listed):
            kept.add(name)
            continue
        index = listed[found.index]
        for k in sorted(positions):
            target = unwrap(listed[k])
            if target.type != "identifier":
                if k in found.written:
                    kept.add(name)
                continue
            kinds: tuple[str, ...] = ("read", "write") if k in found.written else ("read",)
            for kind in kinds:
                facts.events.append(
                    AccessEvent(
                        name=text(target),
                        kind=kind,  # type: ignore[arg-type]
                        indices=(canon(index),),
                        index_nodes=(index,),
                        line=line(call),
                        definite=False,
                        reduction=None,
                        at=call.start_byte,
                    )
                )
            replaced.add((call.id, k))
        if found.written:
            done.add(name)
    return done - kept, replaced


def _global_pointers(root: Node) -> frozenset[str]:
    """The file-scope pointers (`static unsigned *cursor = buf;`): what they reach is not named."""
    found: set[str] = set()
    for decl in root.children:
        if decl.type != "declaration":
            continue
        for declarator in decl.children_by_field_name("declarator"):
            inner = _unwrapped(declarator)
            name = declared_name(declarator)
            # A function declaration returning a pointer is no variable.
            if (
                inner is not None
                and inner.type == "pointer_declarator"
                and name is not None
                and not any(c.type == "function_declarator" for c in walk(inner))
            ):
                found.add(name)
    return frozenset(found)


def _addressed(definition: Node) -> frozenset[str]:
    """Names whose storage the function lets another name reach: operands of `&` and what a
    reference is bound to (`int &r = t;`). A pointer or reference may read them later."""
    found: set[str] = set()
    for node in walk(definition):
        if node.type == "pointer_expression" and text(node.children[0]) == "&":
            found.update(identifiers(node))
        elif node.type == "init_declarator" and _is_reference(node):
            value = node.child_by_field_name("value")
            if value is not None:
                found.update(identifiers(value))
    return frozenset(found)


def _variables(root: Node) -> set[str]:
    """The names the file declares as variables that can be called: function pointers
    (`int (*sqrt)(int)`), `auto` objects (a lambda) and `std::function`s. (A variable of any
    other type cannot be called, so a plain `int size` leaves `v.size()` the library's.)"""
    found: set[str] = set()
    for node in walk(root):
        if node.type not in ("declaration", "parameter_declaration", "field_declaration"):
            continue
        type_node = node.child_by_field_name("type")
        shown = canon(type_node).replace(" ", "") if type_node is not None else ""
        callable_type = shown == "auto" or "function<" in shown
        for declarator in node.children_by_field_name("declarator"):
            inner = _unwrapped(declarator)
            name = declared_name(declarator)
            target = inner.child_by_field_name("declarator") if inner is not None else None
            prototype = (
                inner is not None
                and inner.type == "function_declarator"
                and target is not None
                and target.type in ("identifier", "qualified_identifier", "field_identifier")
            )
            pointer_to_function = (
                not prototype
                and inner is not None
                and any(n.type == "function_declarator" for n in walk(inner))
            )
            if name is not None and (pointer_to_function or callable_type):
                found.add(name)
    return found


def _declared_names(definition: Node) -> set[str]:
    return {
        name
        for decl in _declarations(definition)
        for declarator in decl.children_by_field_name("declarator")
        if (name := declared_name(declarator)) is not None
    }


def _declarations(definition: Node) -> list[Node]:
    """The function's parameter declarations and every declaration in its body."""
    found = [p for _, p in function_params(definition)]
    body = definition.child_by_field_name("body")
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if node.type == "declaration":
            found.append(node)
        stack.extend(node.children)
    return found


def _holds_bits(type_text: str) -> bool:
    """A container of `std::vector<bool>`s or bitsets (not one itself): each element is an
    object with words of its own."""
    return packed_type(type_text) and not type_text.removeprefix("std::").startswith(
        ("vector<bool>", "bitset<")
    )


def _bit_vectors(definition: Node, known: Declared) -> frozenset[str]:
    """Names the function's parameters and declarations give the type `std::vector<bool>` or
    `std::bitset<N>` (through `typedef` and `using` names too), whose elements are bits packed
    into shared words; and `name.member` for the file's members of such a type."""
    names = _names_typed(definition, lambda shown: packed_type(known.resolve(shown)))
    # A vector of a template's type parameter may be one of bits (`std::vector<T>` with
    # `T = bool`): written as bits are, in whole words, which costs other types nothing.
    parameters = _type_parameters(definition)
    if parameters:
        element = re.compile(r"vector<(?:" + "|".join(map(re.escape, parameters)) + r")>")
        names |= _names_typed(definition, lambda shown: bool(element.search(shown)))
    names |= known.packed_globals - _declared_names(definition)
    members = {
        f"{name}{access}{member}"
        for node in walk(definition)
        if node.type == "field_expression"
        and (member := text(node.child_by_field_name("field") or node)) in known.packed_fields
        for name, access in [(canon(node.children[0]).replace(" ", ""), text(node.children[1]))]
    }
    return names | frozenset(members)


def _type_parameters(definition: Node) -> list[str]:
    """The type parameters of the templates around `definition` (`template <typename T>`)."""
    found: list[str] = []
    parent = definition.parent
    while parent is not None:
        if parent.type == "template_declaration":
            listed = parent.child_by_field_name("parameters")
            for item in listed.named_children if listed is not None else ():
                if item.type in (
                    "type_parameter_declaration",
                    "variadic_type_parameter_declaration",
                ):
                    names = [c for c in item.named_children if c.type == "type_identifier"]
                    found += [text(names[-1])] if names else []
                elif item.type == "optional_type_parameter_declaration":
                    name = item.child_by_field_name("name")
                    found += [text(name)] if name is not None else []
        parent = parent.parent
    return found


def _maps(definition: Node) -> frozenset[str]:
    """Names of the function's `std::map`s and `std::unordered_map`s, whose `[]` inserts a
    missing key."""
    return _names_typed(definition, lambda shown: shown.startswith(_MAPS))


def _names_typed(definition: Node, wanted: Callable[[str], bool]) -> frozenset[str]:
    """Names the function's parameters and declarations give a type whose text (spaces out)
    `wanted` accepts."""
    return typed_names(_declarations(definition), wanted)


_MAPS = ("std::map<", "map<", "std::unordered_map<", "unordered_map<")


def _std_array(type_node: Node, declarator: Node) -> tuple[str, str, str, bool, bool] | None:
    """`std::array<T, N> name` or `std::array<T, N> &name`."""
    found = _std_template(type_node, declarator, "array")
    if found is None or len(found[1]) != 2:
        return None
    name, (element, length) = found
    return name, canon(element), canon(length), True, False


def _std_vector(type_node: Node, declarator: Node) -> tuple[str, str, str, bool, bool] | None:
    """`std::vector<T> name(...)` or `std::vector<T> &name` (not `std::vector<bool>`)."""
    found = _std_template(type_node, declarator, "vector")
    if found is None or len(found[1]) != 1 or canon(found[1][0]) == "bool":
        return None
    name, (element,) = found
    return name, canon(element), f"{name}.size()", True, True


def _std_template(
    type_node: Node, declarator: Node, template: str
) -> tuple[str, list[Node]] | None:
    """The declared name and the template arguments of `std::<template><...> name` (or a
    reference to one)."""
    named: Node | None = declarator
    if declarator.type == "reference_declarator":
        named = next((c for c in declarator.named_children if c.type == "identifier"), None)
    elif declarator.type == "function_declarator" and constructed(declarator):
        named = declarator.child_by_field_name("declarator")
    if named is None or named.type != "identifier":
        return None
    node = type_node
    if node.type == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        if scope is None or text(scope) != "std":
            return None
        node = node.child_by_field_name("name") or node
    name = node.child_by_field_name("name")
    arguments = node.child_by_field_name("arguments")
    if node.type != "template_type" or name is None or text(name) != template or arguments is None:
        return None
    return text(named), [a for a in arguments.named_children if a.type != "comment"]


def _c_array(
    type_node: Node, declarator: Node, named: dict[str, int]
) -> tuple[str, str, str, bool, bool] | None:
    """`T name[N]`, one dimension, `N` a literal or a named constant (never a runtime value)."""
    if declarator.type != "array_declarator":
        return None
    inner, size = (
        declarator.child_by_field_name("declarator"),
        declarator.child_by_field_name("size"),
    )
    if inner is None or inner.type != "identifier" or size is None:
        return None
    fixed = size.type == "number_literal" or (size.type == "identifier" and text(size) in named)
    return (text(inner), canon(type_node), canon(size), False, False) if fixed else None


def _written_through(head: Header, facts: BodyFacts) -> str | None:
    """The container a range-based for loop writes through its reference element, if any."""
    if head.container is None or not head.by_reference:
        return None
    writes = any(e.name == head.var and e.kind == "write" for e in facts.events) or any(
        name == head.var for name, _, _ in facts.range_writes
    )
    return head.container if writes else None


_PRAGMA = re.compile(r"#\s*pragma\s+(\w+)(?:\s+(\w+))?")
_STANDALONE = frozenset(
    ["barrier", "flush", "taskwait", "taskyield", "threadprivate", "declare", "cancel",
     "cancellation", "requires", "depobj", "error", "scan", "nothing", "update", "wait",
     "enter", "exit", "routine", "init", "shutdown", "set", "cache"]
)  # fmt: skip
"""OpenMP and OpenACC directives that govern no statement after them (`#pragma omp barrier`)."""
_LOOP_HINTS = frozenset(
    ["ivdep", "unroll", "nounroll", "novector", "vector", "simd", "loop", "loop_count",
     "unroll_and_jam", "nounroll_and_jam", "nofusion", "distribute_point", "clang", "GCC"]
)  # fmt: skip
"""Pragmas that may govern the loop right after them (`#pragma GCC ivdep`, `#pragma unroll 4`,
`#pragma clang loop vectorize(enable)`); `GCC` and `clang` only with a loop's word after."""
_GCC_LOOP = frozenset(["ivdep", "unroll", "novector", "loop"])


def _directive(node: Node, body: Node) -> int | None:
    """The line of a directive already on the loop `node` (the pragma lines just before it,
    comments between them) or an OpenMP or OpenACC construct on a statement around it in the
    function `body`."""
    current: Node | None = node
    while current is not None and current != body:
        before = current.prev_sibling
        while before is not None and (
            before.type in ("comment", "preproc_call") or _pragma_operator(before) is not None
        ):
            shown = _pragma_operator(before)
            if shown is None and before.type == "preproc_call":
                shown = text(before)
            found = _PRAGMA.match(shown) if shown is not None else None
            if found and _governs(found.group(1), found.group(2) or "", on_loop=current == node):
                return line(before)
            before = before.prev_sibling
        current = current.parent
    return None


def _pragma_operator(node: Node) -> str | None:
    """`_Pragma("omp parallel for")` as the statement before a loop, written as the `#pragma`
    line it stands for; None for any other node."""
    if node.type != "expression_statement" or node.named_child_count != 1:
        return None
    call = node.named_children[0]
    callee = call.child_by_field_name("function") if call.type == "call_expression" else None
    arguments = call.child_by_field_name("arguments") if callee is not None else None
    if callee is None or text(callee) != "_Pragma" or arguments is None:
        return None
    words = " ".join(text(a).strip('"') for a in arguments.named_children)
    return f"#pragma {words}"


def _governs(word: str, then: str, on_loop: bool) -> bool:
    if word in ("omp", "acc"):
        return then not in _STANDALONE
    if not on_loop or word not in _LOOP_HINTS:
        return False
    return then in _GCC_LOOP if word in ("GCC", "clang") else True


def _enclosing_loop(node: Node, body: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent != body:
        if parent.type in _KINDS:
            return parent
        parent = parent.parent
    return None


def _perfect_nest(item: _Found, by_node: dict[int, _Found]) -> int:
    """1 + the inner loop's nest when the body is exactly one loop whose header ignores ours."""
    if not (item.header.canonical and item.dependence.parallelisable):
        return 1
    if item.dependence.best_updates:  # merged per thread of one loop: no collapse
        return 1
    if item.header.container is not None:
        return 1  # OpenMP does not collapse a range-based for loop
    body = loop_body(item.node)
    while body is not None and body.type == "compound_statement":
        statements = [c for c in body.named_children if c.type != "comment"]
        body = statements[0] if len(statements) == 1 else None
    child = by_node.get(body.id) if body is not None else None
    if child is None or not (child.header.canonical and child.dependence.parallelisable):
        return 1
    if child.header.container is not None:
        return 1
    if item.header.var in child.header.bound_names:
        return 1
    return 1 + child.perfect_nest


def _loop(item: _Found, function: str, found: list[_Found]) -> Loop:
    events = [e for e in item.facts.events if e.name not in item.facts.locals]
    events = [e for e in events if e.name != item.header.var]
    return Loop(
        id=item.id,
        function=function,
        line=line(item.node),
        end_line=end_line(item.node),
        column=item.node.start_point.column,
        kind=_KINDS[item.node.type],
        depth=len(item.ancestors),
        parent=item.ancestors[-1] if item.ancestors else None,
        ancestors=item.ancestors,
        var=item.header.var,
        canonical=item.header.canonical,
        lower=item.header.lower,
        upper=item.header.upper,
        upper_value=item.header.upper_value,
        trip_count=item.header.trip_count,
        reads=_accesses(events, "read"),
        writes=_accesses(events, "write"),
        calls=tuple(dict.fromkeys(item.facts.calls)),
        dependence=item.dependence,
        perfect_nest=item.perfect_nest,
        range_over=item.header.container,
        writes_range=_written_through(item.header, item.facts) is not None,
        counter_type=item.header.counter_type,
        declared_type=item.header.declared_type,
        test=item.header.test,
        stride=item.header.stride,
        counter_kept=item.counter_kept,
        directive=item.directive,
        openmp_form=item.openmp_form,
        static_only=item.static_only,
    )


def _accesses(events: list[AccessEvent], kind: str) -> tuple[Access, ...]:
    return tuple(dict.fromkeys(Access(e.name, e.indices) for e in events if e.kind == kind))


def _counter_kept(node: Node, head: Header, used_after: frozenset[str]) -> bool:
    """Whether the loop counts a variable declared before it (`int i; for (i = 0; ...)`)
    whose value when the loop ends may be read later: the sequential loop's end, which a
    parallel version must leave there too."""
    init = node.child_by_field_name("initializer")
    return (
        head.var is not None
        and head.container is None
        and init is not None
        and init.type != "declaration"
        and head.var in used_after
    )


def _used_after(loop: Node, body: Node, assigned: set[str]) -> frozenset[str]:
    """Of the names the loop `assigned` (its counter among them: the only ones whose values
    when it ends the dependence rules ask about), those that may be read later in the function
    whose body is `body` (`liveness`); in a function with a `goto`, which can jump anywhere,
    every one the function mentions outside the loop too."""
    names = {text(n) for n in walk(loop) if n.type == "identifier"} & assigned
    if any(n.type == "goto_statement" for n in walk(body)):
        outside = {
            text(n)
            for n in walk(body)
            if n.type == "identifier" and not loop.start_byte <= n.start_byte < loop.end_byte
        }
        return frozenset(names & outside)
    return frozenset(name for name in names if live_after(loop, name, body))


def _own_variables(definition: Node) -> tuple[frozenset[str], frozenset[str]]:
    """(variables whose values end with the function, those of them of an arithmetic or pointer
    type): by-value parameters and declarations other than references and `static` ones, and
    the elements range-based loops copy (`for (double v : x)`: a fresh copy each iteration). A
    name also declared in one of those other ways anywhere in the function is never its own."""
    own: set[str] = set()
    scalars: set[str] = set()
    shared: set[str] = set()
    ranges = [n for n in walk(definition) if n.type == "for_range_loop"]
    for decl in [*_declarations(definition), *ranges]:
        storage = {text(c) for c in decl.children if c.type == "storage_class_specifier"}
        type_node = decl.child_by_field_name("type")
        for declarator in decl.children_by_field_name("declarator"):
            name = declared_name(declarator)
            if name is None:
                continue
            if declarator.type == "init_declarator":
                declarator = declarator.child_by_field_name("declarator") or declarator
            if storage & {"static", "extern", "thread_local"} or _is_reference(declarator):
                shared.add(name)
                continue
            own.add(name)
            if declarator.type == "pointer_declarator" or (
                declarator.type == "identifier" and type_node is not None and _arithmetic(type_node)
            ):
                scalars.add(name)
    return frozenset(own - shared), frozenset(scalars - shared)


def _objects(definition: Node, known: Declared) -> frozenset[str]:
    """Names the function declares with a type that is not arithmetic (`std::string`,
    `std::complex`, a class of the program's, through `typedef` and `using` names; `auto`
    and template parameters aside, whose initial value tells): `s += x` on one is no OpenMP
    reduction (and may call an operator of the program's)."""
    generic = _template_parameters(definition)
    return _names_typed(
        definition,
        lambda shown: (
            known.resolve(shown) not in ("auto", *generic) and arith(shown, known) is None
        ),
    )


def _integer_variables(definition: Node) -> frozenset[str]:
    """Names that every declaration in the function (parameters included) gives an integer or
    `bool` type, not a pointer or array: their reductions are exact in any order. A name
    declared nowhere here (a global) is left out, so its reduction counts as reassociating."""

    def integer(declarator: Node, type_node: Node | None) -> bool:
        inner = declarator
        while inner.type in ("init_declarator", "reference_declarator"):
            inner = inner.child_by_field_name("declarator") or inner.named_children[-1]
        return type_node is not None and _integer_type(type_node) and inner.type == "identifier"

    return _declared_every_time(definition, integer)


def _declared_every_time(
    definition: Node, declares: Callable[[Node, Node | None], bool]
) -> frozenset[str]:
    """Names every declaration of which in the function (parameters included) `declares`
    (its declarator, its type) holds for."""
    kept: set[str] = set()
    other: set[str] = set()
    for decl in _declarations(definition):
        type_node = decl.child_by_field_name("type")
        for declarator in decl.children_by_field_name("declarator"):
            name = declared_name(declarator)
            if name is not None:
                (kept if declares(declarator, type_node) else other).add(name)
    return frozenset(kept - other)


def _integer_type(type_node: Node) -> bool:
    """`int`, `unsigned long`, `bool`, `size_t`, `std::int64_t`; never `float`, `double`,
    `long double` or a name whose type this function cannot see (a typedef)."""
    if type_node.type in ("primitive_type", "sized_type_specifier"):
        words = text(type_node).split()
        return not {"void", "float", "double"} & set(words)
    return _arithmetic(type_node)


def _number_references(definition: Node) -> frozenset[str]:
    """Names every declaration of which in the function (parameters included) is a reference
    to a number (`const int &n`, `const double &a`, `int (&n)`): the object each refers to is
    one number, `&n` to `&n + 1`."""

    def number(declarator: Node, type_node: Node | None) -> bool:
        inner = declarator
        while inner.type in ("init_declarator", "parenthesized_declarator"):
            inner = inner.child_by_field_name("declarator") or inner.named_children[0]
        referred = inner.named_children[-1] if inner.named_children else None
        while referred is not None and referred.type == "parenthesized_declarator":
            referred = referred.named_children[0] if referred.named_children else None
        return (
            inner.type == "reference_declarator"
            and referred is not None
            and referred.type == "identifier"
            and type_node is not None
            and _arithmetic(type_node)
        )

    return _declared_every_time(definition, number)


def _is_reference(declarator: Node) -> bool:
    return declarator.type == "reference_declarator" or any(
        _is_reference(c) for c in declarator.named_children if c.type.endswith("declarator")
    )


_ARITHMETIC_NAMES = frozenset(
    {"size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t"}
    | {f"{u}int{bits}_t" for u in ("", "u") for bits in (8, 16, 32, 64)}
)


def _arithmetic(type_node: Node) -> bool:
    """`int`, `unsigned long`, `double`, `size_t`, `std::int64_t` (not a class, not `auto`)."""
    if type_node.type in ("primitive_type", "sized_type_specifier"):
        return text(type_node) != "void"
    name = text(type_node).replace(" ", "").removeprefix("std::")
    return type_node.type in ("type_identifier", "qualified_identifier") and (
        name in _ARITHMETIC_NAMES
    )


def _pure_functions(
    definitions: list[Node], defined: frozenset[str], readings: dict[int, _Reading]
) -> frozenset[str]:
    """The program's functions that write nothing but their own locals and call only pure ones."""
    candidates: dict[str, list[str]] = {}
    # Calls name a function without its parameter types: one impure overload taints the name.
    impure: set[str] = set()
    for definition in definitions:
        body = definition.child_by_field_name("body")
        if body is None:
            continue
        facts = readings[definition.id].facts(body)
        by_value = {
            name
            for name, p in function_params(definition)
            if is_scalar_declarator(p.child_by_field_name("declarator"))
        }
        own = facts.locals | by_value
        if (
            facts.pointer_writes
            or any(name not in facts.locals for name, _, _ in facts.range_writes)
            or any(
                e.kind == "write"
                and (
                    e.name not in own
                    or (e.indices and e.name not in facts.locals)
                    # through a pointer or reference it declares: the target is not its own
                    or (
                        _root(e.name) in facts.local_pointers
                        and (bool(e.indices) or _root(e.name) in facts.local_references)
                    )
                )
                for e in facts.events
            )
        ):
            impure.add(function_name(definition))
            continue
        candidates.setdefault(function_name(definition), []).extend(facts.calls)
    # Drop functions that call impure ones until nothing changes (recursion stays pure).
    pure = set(candidates) - impure
    changed = True
    while changed:
        changed = False
        for name in list(pure):
            if not all(is_pure(call, pure, defined) for call in candidates[name]):
                pure.discard(name)
                changed = True
    return frozenset(pure)


_Source = tuple[str, str | int]
"""What a function reads that outlives it: ("global", name) or ("param", position) for the
memory a pointer, array or reference parameter reaches."""


def _reads_through_calls(
    definitions: list[Node],
    pure: frozenset[str],
    constant: frozenset[str] = frozenset(),
    elementwise: dict[str, _Elementwise] | None = None,
    *,
    readings: dict[int, _Reading],
) -> dict[str, frozenset[_Source]]:
    """For each pure function, the memory it reads beyond its own locals, through the functions
    it calls too (to a fixed point, so recursion is covered). Which elements it reads is not
    kept: a caller sees a read of the whole array, so a loop that writes that array is never
    called independent on the strength of a helper it cannot see into. Reads of `const` storage
    (file-scope `constant`, or declared in the function) are left out: nothing writes it."""
    own: list[_Source_Info] = []
    elementwise = elementwise or {}
    for definition in definitions:
        name = function_name(definition)
        body = definition.child_by_field_name("body")
        if (name not in pure and name not in elementwise) or body is None:
            continue
        params = function_params(definition)
        # A by-value scalar parameter is a copy: only the others reach the caller's memory.
        by_value = {
            p for p, node in params if is_scalar_declarator(node.child_by_field_name("declarator"))
        }
        positions = {p: k for k, (p, _) in enumerate(params) if p not in by_value}
        # What an elementwise writer reads of the arrays it writes is the element it writes,
        # which every call site that lets it count as pure names (`_substitute_calls`).
        written = {
            p
            for p, k in positions.items()
            if name in elementwise and k in elementwise[name].written
        }
        facts = readings[definition.id].facts(body)
        facts.locals |= by_value | written | _constant_storage(body) | (constant - set(positions))
        sources: set[_Source] = set()
        # Through a stored pointer (`rows[1][k]`) it may read anything.
        if facts.pointer_reads and any("?" in names for names, _ in facts.pointer_reads):
            sources.add(("global", "?"))
        for event in facts.events:
            # Through a pointer or reference it declares, a function reads what that reaches.
            for root in facts.through_locals({_root(event.name)}):
                if root in facts.locals:
                    continue
                if root in positions:
                    sources.add(("param", positions[root]))
                else:
                    sources.add(("global", root))
        own.append((name, frozenset(sources), positions, facts.locals, body))
    summaries: dict[str, frozenset[_Source]] = {}
    for name, found, *_ in own:
        summaries[name] = summaries.get(name, frozenset()) | found
    changed = True
    while changed:
        changed = False
        for name, _, positions, locals_, body in own:
            grown = set(summaries[name])
            for call, arguments, on, _ in _calls_in(body):
                for source in summaries.get(call, frozenset()):
                    for read in _reached(source, arguments, on):
                        if read in locals_:
                            continue
                        grown.add(
                            ("param", positions[read]) if read in positions else ("global", read)
                        )
            if grown != summaries[name]:
                summaries[name] = frozenset(grown)
                changed = True
    # A method defined outside its class (`Grid::at`) is called by its last part (`g.at`).
    for name, reached in list(summaries.items()):
        last = name.rsplit("::", 1)[-1]
        summaries[last] = summaries.get(last, frozenset()) | reached
    # Overloads share a name but not their parameters' positions: a call may reach any of its
    # arguments.
    counts = Counter(n for n, *_ in own) + Counter(
        n.rsplit("::", 1)[-1] for n, *_ in own if "::" in n
    )
    for name, count in counts.items():
        if count > 1:
            summaries[name] = frozenset(
                ("param", _ANY) if kind == "param" else (kind, what)
                for kind, what in summaries[name]
            )
    return summaries


_ANY = -1
"""The parameter position that stands for every argument of a call."""


def _root(name: str) -> str:
    """The variable a use names (`g` of `g.data`, `p->x`): a member's use is its object's."""
    return re.split(r"\.|->", name, maxsplit=1)[0]


_Source_Info = tuple[str, frozenset[_Source], dict[str, int], set[str], Node]


def _calls_in(body: Node) -> list[tuple[str, list[Node], Node | None, Node]]:
    """(callee, arguments, object, call) of every call under `body` to a plain name or, with
    the object it is called on, to a member (`g.at(i)` → `at`, its object `g`)."""
    found: list[tuple[str, list[Node], Node | None, Node]] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            listed = [
                a for a in (arguments.named_children if arguments else []) if a.type != "comment"
            ]
            if callee is not None and callee.type == "identifier":
                found.append((text(callee), listed, None, node))
            elif callee is not None and callee.type == "field_expression":
                member = callee.child_by_field_name("field")
                if member is not None:
                    found.append((text(member), listed, callee.children[0], node))
        stack.extend(node.children)
    return found


def _reached(source: _Source, arguments: list[Node], on: Node | None) -> set[str]:
    """The caller's names a callee's read `source` may reach: a global as it is (and, for a
    method, the object it is called on, whose members it names bare), a parameter as every
    name in the argument passed for it (`a + k`, `&a[k]`)."""
    kind, what = source
    if kind == "global":
        return {str(what)} | (set(identifiers(on)) if on is not None else set())
    assert isinstance(what, int)
    if what == _ANY:
        return {name for argument in arguments for name in identifiers(argument)}
    return set(identifiers(arguments[what])) if what < len(arguments) else set()


def _hidden_calls(
    body: Node, facts: BodyFacts, reading: _Reading, types: dict[str, Arith]
) -> Dependence | None:
    """An unknown verdict when the body runs code no call spells: an operator, constructor,
    destructor or conversion of a class of the program's with side effects (on any object
    of that type it names or declares), or `<<`/`>>` into an object (a stream)."""
    used = {_root(e.name) for e in facts.events} | {
        name
        for node in walk(body)
        if node.type == "declaration"
        for d in node.children_by_field_name("declarator")
        if (name := declared_name(d)) is not None
    }
    body_active = class_typed_in(body, reading.known)
    active = sorted((used & reading.active) | body_active)
    if active:
        return Dependence(
            kind="unknown",
            reason=f"uses {', '.join(active)}, of a type whose operators or special members "
            "(constructors, destructors, conversions) have side effects",
        )
    for node in walk(body):
        if node.type == "binary_expression" and text(node.children[1]) in ("<<", ">>"):
            left = unwrap(node.children[0])
            while left.type == "binary_expression" and text(left.children[1]) in ("<<", ">>"):
                left = unwrap(left.children[0])
            if left.type in ("identifier", "qualified_identifier", "field_expression"):
                name = _root(canon(left).replace(" ", ""))
                if name not in types and name not in facts.locals:
                    return Dependence(
                        kind="unknown",
                        reason=f"shifts into {canon(left)}, which is no number (a stream's "
                        "<< and >> write it)",
                    )
    return None


def _counter_hidden(body: Node, var: str | None) -> Dependence | None:
    """An unknown verdict when the body declares a variable named like the loop's counter
    (`{ int k = z[0]; y[k + h] += 1; }`): the facts read every `k` as the counter, which a
    use in that block is not."""
    if var is None:
        return None
    for node in walk(body):
        if node.type in ("declaration", "for_range_loop", "parameter_declaration") and any(
            declared_name(d) == var for d in _declarators(node)
        ):
            return Dependence(
                kind="unknown",
                reason=f"the body declares its own {var}, which hides the loop's counter",
            )
    return None


_MATH_CALL = re.compile(
    r"\b(?:std::)?(?:sqrt|cbrt|pow|exp2?|log(?:2|10)?|floor|ceil|round|trunc|fabs|hypot|"
    r"sin|cos|tan|fmin|fmax|fmod)f?\s*\("
)


_SCALAR_NAME = re.compile(r"(?<![.>\w])([A-Za-z_]\w*)\b(?!\s*(?:\.|\[|->|\())")
"""A name used for its own value in an expression: not a container's before `.size()` or
`[`, not a member, not a function called."""


def _counter_kind(
    node: Node, head: Header, types: dict[str, Arith], known: Declared
) -> Arith | None:
    """The arithmetic type of the loop's counter, through aliases (`typedef short idx_t`),
    `auto` from a literal, a cast or a name; None where it is none or cannot be read."""
    init = node.child_by_field_name("initializer")
    kind_node = init.child_by_field_name("type") if init is not None else None
    if init is None or init.type != "declaration" or kind_node is None:
        return types.get(head.var or "")
    declared = canon(kind_node).replace(" ", "")
    if declared != "auto":
        return arith(declared, known)
    first = (head.lower or "").strip()
    literal = re.fullmatch(r"[0-9]+([uUlL]*)", first)
    if literal:
        suffix = literal.group(1).lower()
        return Arith(bits=64 if "l" in suffix else 32, unsigned="u" in suffix)
    cast = re.fullmatch(r"\(\s*([\w\s:]+?)\s*\)\s*[-\w.]+", first)
    if cast:
        return arith(cast.group(1).replace(" ", ""), known)
    if re.fullmatch(r"\w+", first):
        return types.get(first)
    return None


def _openmp_form(
    node: Node, head: Header, definition: Node, types: dict[str, Arith], known: Declared
) -> str | None:
    """Why OpenMP cannot take the loop's header as written (found by a hostile probe: each
    did not build, ran no iteration or ran too many), or None."""
    if not head.canonical or head.var is None or head.container is not None:
        return None
    condition = node.child_by_field_name("condition")
    if condition is not None and condition.type == "parenthesized_expression":
        return "its test is in parentheses, which OpenMP's loop form does not take"
    body = definition.child_by_field_name("body")
    before = text(definition)[: body.start_byte - definition.start_byte] if body else ""
    if re.search(r"\b(?:constexpr|consteval)\b", before):
        return "it is in a constexpr function, where no OpenMP directive may stand"
    kind = _counter_kind(node, head, types, known)
    init = node.child_by_field_name("initializer")
    declared = init is not None and init.type == "declaration"
    shown = head.declared_type or "its declared type"
    if kind is None:
        if init is not None and declared and not re.search(r"iterator|\*", text(init)):
            return f"its counter's type ({shown}) is no integer type OpenMP is known to take"
    elif kind.floating:
        return f"its counter is a floating-point number ({shown})"
    elif kind.bits < 32:
        return f"its counter ({shown}) is narrower than int: OpenMP may count none of its values"
    mixed = _mixed_sign_test(node, head, types, known)
    if mixed is not None:
        return mixed
    if head.test == "!=" and (kind is None or kind.unsigned or head.stride not in (1, -1)):
        return (
            "its test is `!=` on an unsigned counter or with a step other than 1: OpenMP "
            "counts no wrap-around and takes no other step"
        )
    bound = head.upper or ""
    # (a scalar's own value: not a container's name before `.size()` or `[`, nor a member)
    floating = any(
        (t := types.get(name)) is not None and t.floating
        for name in re.findall(_SCALAR_NAME, bound)
    )
    if floating or _MATH_CALL.search(bound) or re.search(r"\d\.\d*|\d[eE][-+]?\d", bound):
        return "its bound is a floating-point value, which OpenMP's loop form does not take"
    return None


def _mixed_sign_test(
    node: Node, head: Header, types: dict[str, Arith], known: Declared
) -> str | None:
    """Why OpenMP would count a signed counter compared with an unsigned bound at least as
    wide (`for (int i = -1; i < v.size(); i++)`) from a first value that may be negative: C
    compares them as unsigned, so the loop runs none of what the values say, and OpenMP
    counts the values (MPI and CUDA count by the loop's own test)."""
    kind = _counter_kind(node, head, types, known)
    if kind is None or kind.unsigned or kind.floating or head.test not in ("<", "<=", ">", ">="):
        return None
    bound = head.upper or ""
    unsigned = re.search(r"\.\s*(?:size|length)\s*\(|\bsizeof\b|\b\d+[uU]", bound) or any(
        (t := types.get(name)) is not None and t.unsigned and t.bits >= kind.bits
        for name in re.findall(_SCALAR_NAME, bound)
    )
    if not unsigned:
        return None
    start = _init(node.child_by_field_name("initializer"))
    if head.test in ("<", "<=") and start is not None and _never_negative(start[1], node):
        return None  # (`0`, `i + 1` inside `i` counted up from 0: never negative)
    return (
        f"it compares its signed counter {head.var} with an unsigned bound ({bound}) from a "
        "first value that may be negative: the comparison is unsigned"
    )


def _never_negative(value: Node, where: Node) -> bool:
    """A first value that is no negative number: non-negative literals, and the counters of
    loops around `where` that count up from such values, added or multiplied."""
    value = unwrap(value)
    if _non_negative(value):
        return True
    if value.type == "binary_expression" and text(value.children[1]) in ("+", "*"):
        left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
        return (
            left is not None
            and right is not None
            and _never_negative(left, where)
            and _never_negative(right, where)
        )
    if value.type != "identifier":
        return False
    outer = where.parent
    while outer is not None and outer.type != "function_definition":
        if outer.type == "for_statement":
            start = _init(outer.child_by_field_name("initializer"))
            step = outer.child_by_field_name("update")
            if start is not None and start[0] == text(value):
                rises = step is not None and re.fullmatch(
                    rf"(?:\+\+\s*{re.escape(start[0])}|{re.escape(start[0])}\s*\+\+)", text(step)
                )
                return bool(rises) and _never_negative(start[1], outer)
        outer = outer.parent
    return False


def _static_only(node: Node, head: Header, types: dict[str, Arith], known: Declared) -> bool:
    if head.stride is None or head.stride >= 0:
        return False
    kind = _counter_kind(node, head, types, known)
    return kind is not None and kind.unsigned and kind.bits < 64


def _unseen_effects(body: Node, hidden_calls: dict[str, str], known: Declared) -> Dependence | None:
    """An unknown verdict when the body runs code its statements do not spell (a hostile
    probe's races): inline assembly (its operands and clobbers write what no access shows),
    a variable with a `cleanup` function, a `sizeof` of a type whose size a call computes
    (a variable-length array's: the call runs), an object of a class whose constructor or
    destructor does more than keep its members made in passing (`Guard(i).v`), or a call to
    one of the program's functions in `hidden_calls`."""
    for node in walk(body):
        if node.type in ("gnu_asm_expression", "asm_statement"):
            return Dependence(
                kind="unknown",
                reason="it runs inline assembly, which writes what no access of the body shows",
            )
        if node.type == "attribute_specifier" and "cleanup" in text(node):
            return Dependence(
                kind="unknown",
                reason="a variable of its body has a cleanup "
                "function, which runs at the end of each iteration",
            )
        if node.type == "sizeof_expression" and any(
            c.type == "call_expression" for c in walk(node)
        ):
            return Dependence(
                kind="unknown",
                reason="a sizeof of its body calls a function "
                "(a variable-length type's size runs it)",
            )
    called = {
        text(c.child_by_field_name("function") or c)
        for c in walk(body)
        if c.type == "call_expression"
    }
    for name in sorted(called & known.active_classes):
        return Dependence(
            kind="unknown",
            reason=f"it makes a {name} in passing, whose "
            "constructor or destructor has side effects",
        )
    for name in sorted(called & hidden_calls.keys()):
        return Dependence(kind="unknown", reason=f"{name}() {hidden_calls[name]}")
    return None


def _hidden_call_effects(root: Node, known: Declared) -> dict[str, str]:
    """The program's functions whose calls run code no call spells, with why: one that takes
    or returns an object of an active class (an argument converted to a by-value parameter
    of it, a temporary returned, each destroyed), or one whose default argument calls
    (`int f(int x, int y = next_id())`)."""
    active = known.active_classes
    spelled = re.compile(r"\b(?:" + "|".join(map(re.escape, active)) + r")\b") if active else None
    found: dict[str, str] = {}
    for definition in function_definitions(root):
        name = function_name(definition)
        declarator = definition.child_by_field_name("declarator")
        kind = definition.child_by_field_name("type")
        signature = " ".join(text(n) for n in (kind, declarator) if n is not None)
        if spelled is not None and spelled.search(signature):
            found[name] = (
                "takes or returns an object whose constructor or destructor has side effects"
            )
            continue
        for parameter in walk(declarator) if declarator is not None else ():
            default = parameter.child_by_field_name("default_value")
            if (
                parameter.type.startswith("optional_parameter")
                and default is not None
                and any(c.type == "call_expression" for c in walk(default))
            ):
                found[name] = "has a default argument that calls a function"
                break
    return found


def _own_calls(facts: BodyFacts, defined: frozenset[str]) -> list[str]:
    """The program's own functions the body calls, once each, in order."""
    return [c for c in dict.fromkeys(facts.calls) if c in defined]


def _counter_seen_by_calls(var: str | None, facts: BodyFacts, scope: Scope) -> Dependence | None:
    """An unknown verdict when the counter outlives the function's call (a file's variable, a
    `static` local, a reference) and the body calls the program's own code, which may read or
    write it: each thread counts a private copy, while the function called sees the shared one
    (`int i; ... for (i = 0; i < n; i++) a[i] = twice();` with `twice` reading `i`)."""
    if var is None or var in scope.own:
        return None
    called = _own_calls(facts, scope.defined_functions)
    if not called:
        return None
    return Dependence(
        kind="unknown",
        reason=f"its counter {var} is not the function's own, and {called[0]}, which the body "
        "calls, may read or write it (each thread counts a private copy)",
    )


def _errno_set(facts: BodyFacts, defined: frozenset[str]) -> Dependence | None:
    """An unknown verdict, in a program that reads `errno`, when the body calls the library
    (`log(0.0)` sets it): each thread has its own `errno`, so a call that fails on another
    thread leaves the one the program reads unset."""
    own = _own_calls(facts, defined)
    library = [c for c in dict.fromkeys(facts.calls) if c not in own]
    if not library:
        return None
    return Dependence(
        kind="unknown",
        reason=f"the program reads errno, which {library[0]} may set: each thread sets its own",
    )


_ATOMIC = re.compile(r"\b(?:_Atomic|atomic)\b")


def _unreducible(definition: Node, verdict: Dependence) -> Dependence | None:
    """An unknown verdict when a reduction's variable is one no reduction clause takes: a
    pointer (`end += n[i]` moves an address) or an atomic (`_Atomic int c`, `std::atomic`),
    declared in the function or at file scope."""
    names = {r.var for r in verdict.reductions}
    if not names:
        return None
    root = root_of(definition)
    places = [c for c in root.children if c.type == "declaration"]
    places += [p for _, p in function_params(definition)]
    places += [d for d in walk(definition) if d.type == "declaration"]
    for place in places:
        for declarator in place.children_by_field_name("declarator"):
            name = declared_name(declarator)
            if name not in names:
                continue
            inner = declarator.child_by_field_name("declarator") or declarator
            if (declarator.type == "init_declarator" and inner.type == "pointer_declarator") or (
                declarator.type == "pointer_declarator"
            ):
                why = f"{name} is a pointer: no reduction clause adds to an address"
            elif _ATOMIC.search(text(place)):
                why = f"{name} is atomic: no reduction clause takes it"
            else:
                continue
            return Dependence(kind="unknown", reason=why)
    return None


_THREAD_LOCAL = re.compile(r"\b(?:_Thread_local|__thread|thread_local)\b")
_THREADPRIVATE = re.compile(r"#\s*pragma\s+omp\s+threadprivate\s*\(([^)]*)\)")


def _per_thread(root: Node) -> frozenset[str]:
    """Names that may be of variables each thread has its own of: declared `_Thread_local`,
    `__thread` or `thread_local` (every name such a declaration spells: C's grammar here does
    not read `_Thread_local`), or named by `#pragma omp threadprivate`."""
    names: set[str] = set()
    for node in walk(root):
        if node.type == "declaration" and _THREAD_LOCAL.search(text(node)):
            names.update(identifiers(node))
        elif node.type == "preproc_call":
            found = _THREADPRIVATE.match(text(node))
            if found:
                names.update(re.findall(r"\w+", found.group(1)))
    return frozenset(names)


def _per_thread_use(
    body: Node, facts: BodyFacts, per_thread: frozenset[str], defined: frozenset[str]
) -> Dependence | None:
    """An unknown verdict when the body names a variable each thread has its own of, or
    calls the program's code, which may: another thread reads or writes its own copy, not the
    one the program set (`_Thread_local int base = 5;` read as 0)."""
    named = sorted(set(identifiers(body)) & per_thread)
    called = _own_calls(facts, defined)
    if not named and not called:
        return None
    what = named[0] if named else f"{called[0]}, which the body calls, may use one"
    return Dependence(
        kind="unknown",
        reason=f"the program has variables each thread has its own of ({what}): another "
        "thread would use its own copy",
    )


def _declarators(node: Node) -> list[Node]:
    """What a declaration (or a parameter) declares, or a range-based loop's element."""
    if node.type == "for_range_loop":
        element = node.child_by_field_name("declarator")
        return [element] if element is not None else []
    return node.children_by_field_name("declarator")


def _shadowed(body: Node, facts: BodyFacts) -> Dependence | None:
    """An unknown verdict when a name the body declares in an inner block is also used where
    that declaration is not in scope (`{ int x = a[i]; } b[i] = x;`): those uses are of
    another variable, which the body's facts would take for its own."""
    scopes: dict[str, list[tuple[int, int]]] = {}
    for node in walk(body):
        if node.type not in ("declaration", "for_range_loop"):
            continue
        holder = node.parent
        block: Node | None
        if node.type == "declaration" and holder is not None and holder.type == "for_statement":
            block = holder  # `for (int j = ...)`: the loop is the declaration's scope
        elif node.type == "for_range_loop":
            block = node
        else:
            block = holder
        if block is None:
            continue
        for d in _declarators(node):
            name = declared_name(d)
            if name is not None:
                start = node.start_byte if node.type == "for_range_loop" else node.end_byte
                scopes.setdefault(name, []).append((start, block.end_byte))
    for event in facts.events:
        ranges = scopes.get(_root(event.name))
        if ranges and not any(lo <= event.at < hi for lo, hi in ranges):
            return Dependence(
                kind="unknown",
                reason=f"{_root(event.name)} is declared in an inner block and also used "
                f"outside it (line {event.line}), where it is another variable",
            )
    return None


_SIZES = frozenset({"size", "length", "empty", "capacity"})
"""Methods a bound may call that no element write changes (`i < v.size()`)."""


def _bound_reads(
    loop: Node,
    facts: BodyFacts,
    scope: Scope,
    verdict: Dependence,
    ranged: dict[str, set[str]],
    reads: dict[str, frozenset[_Source]] | None = None,
    containers: frozenset[str] = frozenset(),
) -> Dependence | None:
    """An unknown verdict when the loop's header reads memory (`i < cnt[0]`, `i < *np`, `i <
    *(a + k)`, a reference `n`, a call of the program's that reads a global, the `size()` of
    an object that is no container) that the body may write: the sequential loop reads the
    bound again every iteration, OpenMP (and a rank's block, and a kernel's count) once.
    Names that can only be apart at run time add their checks to `verdict` instead (then
    the returned verdict is that one). `reads`: what each function of the program reads
    (`_unseen_reads`); `containers`: the names that are standard containers, whose `size()`
    an element's write does not change; `ranged`: the loop's `_ranged_references`. Of a
    subscript, either side may be the array (`k[a]` is `a[k]`): the names of both are read
    but the function's integers. A reference to a number (`const int &n`) is kept apart from
    what the loop writes as `reference_apart` says."""
    if loop.type != "for_statement":
        return None
    kinds, integers = storage_kinds(scope), scope.integers
    parts = [loop.child_by_field_name(f) for f in ("initializer", "condition", "update")]
    start = parts[0]
    # the header's own counters are values, whatever their type is spelled
    # (`std::vector<long long>::size_type i`)
    counters = (
        {declared_name(d) for d in _declarators(start)}
        if start is not None and start.type == "declaration"
        else set()
    )
    known: frozenset[str] | None = None

    def container(name: str) -> bool:
        """Whether `name` is a standard container (the file's and the class's looked up
        only when a bound asks)."""
        nonlocal known
        if name in containers:
            return True
        if known is None:
            known = _file_containers(loop)
        return name in known

    roots: set[str] = set()
    for part in parts:
        for node in walk(part) if part is not None else ():
            sizing = (
                node.type == "field_expression"
                and node.parent is not None
                and node.parent.type == "call_expression"
                and text(node.child_by_field_name("field") or node) in _SIZES
                and container(_root(text(node.child_by_field_name("argument") or node)))
            )
            if node.type in ("subscript_expression", "field_expression") and not sizing:
                base = node.children[0] if node.children else None
                named = set(identifiers(base)) if base is not None else set()
                if node.type == "subscript_expression":
                    # `5000[a]`, `k[a]`: C's subscript is commutative, the array may be the
                    # index; of the function's integers neither side reads memory
                    index = node.child_by_field_name("indices") or node.child_by_field_name("index")
                    named |= set(identifiers(index)) if index is not None else set()
                    named -= integers
                roots.update(named)
            elif node.type == "pointer_expression" and text(node.children[0]) == "*":
                base = node.child_by_field_name("argument")
                roots.update(identifiers(base) if base is not None else ())
            elif (
                node.type == "identifier"
                and kinds.get(text(node)) == "opaque"
                and text(node) not in counters
            ):
                roots.add(text(node))  # a reference (`const int &n`): some other object's storage
            elif node.type == "argument_list":
                # A call reads what a pointer it is handed points to (`i < strlen(s)`).
                roots.update(text(a) for a in node.named_children if a.type == "identifier")
        for name, range_names in ranged.items():
            if part is not None and name in identifiers(part):
                roots |= range_names  # `for (int &h : v) for (k < h)`: h is an element of v
        for call, arguments, on, _ in _calls_in(part) if part is not None else ():
            if on is not None and call in _SIZES and container(_root(text(on))):
                continue  # a container's own size, not a method of the program's so named
            # what a function of the program reads: a global, what an argument points to
            for source in (reads or {}).get(call, frozenset()):
                roots |= _reached(source, arguments, on)
    roots -= facts.locals
    if not roots:
        return None
    if facts.pointer_writes:
        return Dependence(
            kind="unknown",
            reason="its bound reads memory that the body's writes through a pointer may change",
        )
    checks: list[str] = []
    for name in sorted(roots):
        for w in sorted(_written_storage(facts)):
            found = None if name == w else apart(name, w, kinds)
            if found is None:
                found = reference_apart(name, w, kinds, scope)
            if found is None:
                return Dependence(
                    kind="unknown",
                    reason=f"its header reads {name}, which the body's writes to {w} may "
                    "change (the loop would read its bound once, not every iteration)",
                )
            checks += found
    return checked_also(verdict, checks) if checks else None


def _written_storage(facts: BodyFacts) -> set[str]:
    """The variables whose elements the loop writes (`a[i] = `, a range it fills), but for
    its own locals."""
    written = {_root(e.name) for e in facts.events if e.kind == "write" and e.indices}
    written |= {name for name, _, _ in facts.range_writes}
    return written - facts.locals


def _ranged_reads(
    loop: Node,
    facts: BodyFacts,
    kinds: dict[str, str],
    verdict: Dependence,
    ranged: dict[str, set[str]],
) -> Dependence | None:
    """An unknown verdict when the loop reads an element that a range-based loop around it
    takes by reference (`for (int &h : v) for (k ...) v[k + h] = 0;`) and writes that range's
    storage: the element may be among what it writes, so that later iterations read another
    value (in parallel, the one from before the loop). Where the two are apart only at run
    time (two container references), `verdict` with their checks. `ranged`: the loop's
    `_ranged_references`."""
    if not ranged:
        return None
    used = set(identifiers(loop))
    reads = {name: names - facts.locals for name, names in ranged.items() if name in used}
    if not any(reads.values()):
        return None
    if facts.pointer_writes:
        name = min(n for n, names in reads.items() if names)
        return Dependence(
            kind="unknown",
            reason=f"reads {name}, an element a range-based loop takes by reference, which the "
            "loop's writes through a pointer may change",
        )
    checks: list[str] = []
    for name, names in sorted(reads.items()):
        for root in sorted(names):
            for w in sorted(_written_storage(facts)):
                found = None if root == w else apart(root, w, kinds)
                if found is None:
                    return Dependence(
                        kind="unknown",
                        reason=f"reads {name}, an element of {root} that a range-based loop "
                        f"takes by reference, which the loop's writes to {w} may change",
                    )
                checks += found
    return checked_also(verdict, checks) if checks else None


def _ranged_references(node: Node) -> dict[str, set[str]]:
    """The elements that the range-based loops around `node` take by reference (`for (int
    &h : v)`, `for (const auto &e : v)`), each with the names its range reads: such an
    element is storage of the range's, which a write to it changes."""
    found: dict[str, set[str]] = {}
    parent = node.parent
    while parent is not None and parent.type != "function_definition":
        if parent.type == "for_range_loop":
            declarator = parent.child_by_field_name("declarator")
            ranged = parent.child_by_field_name("right")
            name = declared_name(declarator) if declarator is not None else None
            if (
                name is not None
                and ranged is not None
                and declarator is not None
                and declarator.type == "reference_declarator"
            ):
                found.setdefault(name, set()).update(identifiers(ranged))
        parent = parent.parent
    # `for (auto &row : g) for (int &h : row)`: h is storage of g's too
    changed = True
    while changed:
        changed = False
        for names in found.values():
            more = set().union(*(found.get(n, set()) for n in names)) - names
            if more:
                names |= more
                changed = True
    return found


_OUTER_CONTAINER = re.compile(
    r"\s*(?:const\s+)?(?:std\s*::\s*)?(?:vector|array|valarray|deque|basic_string|string)\b"
)
"""A type that is itself a standard container (not one taking a container as an argument)."""


def _file_containers(node: Node) -> frozenset[str]:
    """The standard containers the file declares (`std::vector<int> g;`), or the class whose
    method holds `node` has as members, that the function around `node` does not declare
    again."""
    function, root = node, node
    while function.type != "function_definition" and function.parent is not None:
        function = function.parent
    while root.parent is not None:
        root = root.parent
    own = {
        name
        for n in walk(function)
        if n.type in ("declaration", "parameter_declaration")
        for d in n.children_by_field_name("declarator")
        if (name := declared_name(d)) is not None
    }
    scopes = [c for c in root.children if c.type == "declaration"]
    if function.parent is not None and function.parent.type == "field_declaration_list":
        scopes += [c for c in function.parent.children if c.type == "field_declaration"]
    found = set()
    for declaration in scopes:
        kind = declaration.child_by_field_name("type")
        if kind is None or not _OUTER_CONTAINER.match(text(kind)):
            continue  # `Counted<std::vector<int>>` is no container: its own size() may read
        for d in declaration.children_by_field_name("declarator"):
            plain = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
            name = declared_name(d) if d.type != "field_identifier" else text(d)
            if name and plain is not None and plain.type in ("identifier", "field_identifier"):
                found.add(name)
    return frozenset(found - own)


def _logical_start(
    loop: Node, body: Node, verdict: Dependence, types: dict[str, Arith]
) -> Dependence | None:
    """An unknown verdict when a `&&` or `||` fold's variable may hold other than 0 or 1 where
    the loop starts. Combined from its threads' (ranks', blocks') identities, such a fold
    leaves `5 || 0`, that is 1, where the loop runs no iteration; the loop leaves 5. A `bool`
    holds nothing else; so does a local declared with 0 or 1 (`false`, `true`) that nothing
    between its declaration and the loop names (nor anything in a loop around both outside
    this one: another pass could store there)."""
    names = [r.var for r in verdict.reductions if r.op in ("&&", "||")]
    if verdict.scan is not None and verdict.scan.op in ("&&", "||"):
        names.append(verdict.scan.var)
    doubtful = [
        name
        for name in dict.fromkeys(names)
        if not ((kind := types.get(name)) is not None and kind.bits == 1)
        and not _starts_as_truth(loop, body, name)
    ]
    if not doubtful:
        return None
    return Dependence(
        kind="unknown",
        reason=f"{', '.join(doubtful)} folds with && or || but may hold other than 0 or 1 before "
        "the loop: combined from the threads' parts it becomes 0 or 1 even where the loop runs "
        "no iteration",
    )


def _truths(head: Header, packed: frozenset[str], types: dict[str, Arith]) -> frozenset[str]:
    """Names holding only 0 or 1 in the loop: `bool`s, `std::vector<bool>`s and, over one, a
    range-based loop's element."""
    names = {name for name, kind in types.items() if kind.bits == 1} | set(packed)
    if head.container is not None and head.container in names and head.var is not None:
        names.add(head.var)
    return frozenset(names)


def _bool_folds(
    body: Node, verdict: Dependence, types: dict[str, Arith], truths: frozenset[str]
) -> Dependence | None:
    """An unknown verdict when a `bool` (or an element of a `bool` array) sums or takes the
    exclusive or of terms that are not themselves 0 or 1: it stores each step as 0 or 1, so
    `z += -1` after `z += 1` leaves 0, and `y ^= 2` leaves 1, and the order of the steps
    matters. A `bool` summing truths is their `||`, one exclusive-oring them their `^`."""
    summed = {r.var for r in verdict.reductions if r.op == "+"}
    summed |= {a.var for a in verdict.array_reductions if a.op == "+"}
    summed = {name for name in summed if name in truths}
    if summed:
        # GCC's OpenMP adds the threads' bools as numbers and stores 2 in one: no sum of them
        return Dependence(
            kind="unknown",
            reason=f"{min(summed)} is a bool that sums: each step stores 0 or 1, and OpenMP "
            "adds the threads' parts as numbers",
        )
    folded = {r.var for r in verdict.reductions if r.op == "^"}
    folded |= {a.var for a in verdict.array_reductions if a.op == "^"}
    folded = {name for name in folded if name in truths}
    if not folded:
        return None
    for node in walk(body):
        if node.type != "expression_statement":
            continue
        found = match_reduction(node)
        if found is None or found[0] not in folded:
            continue
        term = fold_term(node, found[0])
        if term is None or not _truth_valued(term, truths):
            return Dependence(
                kind="unknown",
                reason=f"{found[0]} is a bool folding terms that may be other than 0 or 1 "
                f"({canon(node)}): it stores each step as 0 or 1, so their order matters",
            )
    return None


_TRUTH_OPERATORS = frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||"})


def _truth_valued(term: Node, truths: frozenset[str]) -> bool:
    """Whether `term` is 0 or 1 by its form: a comparison, a logical operation or negation,
    `true`, `false`, 0 or 1, a cast to `bool`, or a name or element in `truths`."""
    term = unwrap(term)
    if term.type in ("true", "false"):
        return True
    if term.type == "number_literal":
        return text(term) in ("0", "1")
    if term.type == "binary_expression":
        return text(term.children[1]) in _TRUTH_OPERATORS
    if term.type == "unary_expression":
        return text(term.children[0]) == "!"
    if term.type == "cast_expression":
        kind = term.child_by_field_name("type")
        return kind is not None and canon(kind) in ("bool", "_Bool")
    if term.type == "conditional_expression":
        arms = [term.child_by_field_name("consequence"), term.child_by_field_name("alternative")]
        return all(arm is not None and _truth_valued(arm, truths) for arm in arms)
    while term.type == "subscript_expression":
        term = unwrap(term.child_by_field_name("argument") or term)
    return term.type == "identifier" and text(term) in truths


def _starts_as_truth(loop: Node, body: Node, name: str) -> bool:
    """Whether `name` is a local declared with 0 or 1 before `loop` in an enclosing block, and
    named by nothing between (nor, outside `loop`, in a loop around both)."""
    child, parent = loop, loop.parent
    around: Node | None = None
    while parent is not None:
        if parent.type in LOOP_TYPES:
            around = parent
        if parent.type == "compound_statement":
            before = [c for c in parent.named_children if c.end_byte <= child.start_byte]
            for statement in reversed(before):
                value = _declared_value(statement, name)
                if value is not None:
                    if canon(value) not in ("0", "1", "false", "true"):
                        return False
                    return around is None or not any(
                        n.type == "identifier"
                        and text(n) == name
                        and not (loop.start_byte <= n.start_byte < loop.end_byte)
                        for n in walk(around)
                    )
                if name in identifiers(statement):
                    return False
        if parent == body:
            return False
        child, parent = parent, parent.parent
    return False


def _declared_value(statement: Node, name: str) -> Node | None:
    """The initializer `statement` (a declaration) gives `name`, unwrapped; None otherwise."""
    if statement.type != "declaration":
        return None
    for declarator in statement.children_by_field_name("declarator"):
        if declarator.type == "init_declarator" and declared_name(declarator) == name:
            value = declarator.child_by_field_name("value")
            return unwrap(value) if value is not None else None
    return None


def _static_writes(body: Node, facts: BodyFacts) -> Dependence | None:
    """An unknown verdict when the body declares a `static` variable and writes it: OpenMP
    shares such a variable among the threads, and no clause before the loop can name it to
    give each thread its own."""
    written = {_root(e.name) for e in facts.events if e.kind == "write"}
    declared = [
        name
        for node in walk(body)
        if node.type == "declaration"
        and any(
            text(c) in ("static", "extern")
            for c in node.children
            if c.type == "storage_class_specifier"
        )
        for d in node.children_by_field_name("declarator")
        if (name := declared_name(d)) is not None and name in written
    ]
    if not declared:
        return None
    shown = ", ".join(dict.fromkeys(declared))
    return Dependence(kind="unknown", reason=f"writes {shown}, declared static in the loop body")


def _unseen_reads(
    body: Node,
    facts: BodyFacts,
    reads: dict[str, frozenset[_Source]],
    kinds: dict[str, str],
    verdict: Dependence,
    replaced: set[tuple[int, int]] | frozenset[tuple[int, int]] = frozenset(),
) -> Dependence:
    """`verdict`, or an unknown one when a function the loop calls reads something the loop
    writes or may share storage with it (a pointer, a file-scope pointer, the same container
    passed twice): the read's element (or order against the write) is not in the loop's facts,
    so another iteration's write may be what it reads. Container references that must be
    different objects add run-time checks instead. `replaced`: (call, parameter position) of
    the reads the loop's facts already hold as element reads."""
    written = {e.name for e in facts.events if e.kind == "write"} - facts.locals
    written |= {name for name, _, _ in facts.range_writes}
    # A write of a member (`g.data[i]`) is a write of its object as well.
    written |= {_root(name) for name in written}
    clashes: list[str] = []
    checks: list[str] = []
    for call, arguments, on, node in _calls_in(body):
        for source in reads.get(call, frozenset()):
            if source[0] == "param" and (node.id, source[1]) in replaced:
                continue  # the element it reads is in the loop's facts (`_substitute_calls`)
            reached = facts.through_locals(_reached(source, arguments, on))
            reached -= facts.locals - set(facts.local_pointers)
            for name in sorted(reached):
                for w in sorted(written):
                    found = apart(name, w, kinds)
                    if found is None:
                        clashes.append(
                            f"calls {call}, which reads {name}, which the loop writes"
                            if name == w
                            else f"calls {call}, which reads {name}, which may share storage "
                            f"with {w}, which the loop writes"
                        )
                    else:
                        checks += found
    if clashes:
        return Dependence(kind="unknown", reason="; ".join(dict.fromkeys(clashes)))
    return checked_also(verdict, checks)
