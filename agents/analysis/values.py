"""What a local integer holds where it is used, when that is provably its initial value.

    const std::size_t idx = i * n + j;
    out[idx] = a[idx] * 2;          // out[i * n + j]: the dependence rules see the expression

`initial_value(use)` gives the initializer of the local a subscript names, so that an access is
judged by the expression it stands for. It answers only where substituting is exact at the use:

- the function declares the name once (no shadowing, no parameter or loop variable of that name),
  in a declaration statement of a block that encloses the use, before it, and has no `goto`;
- the local is of an integer type (or `auto`), a plain name (no pointer, reference or array);
- its initializer is arithmetic on names and literals: no call, subscript, member, assignment or
  increment, nothing read through memory that the block could change;
- nothing in that block may change a name the initializer reads: no assignment or increment,
  no address taken, no reference bound to it, no call given it bare (it may take a reference),
  no `>>` into it, no lambda capturing by reference;
- the local is `const` (or `constexpr`), or every use of it in the block only reads its value in
  arithmetic, a subscript or a copy.
"""

from __future__ import annotations

from tree_sitter import Node

from agents.analysis.parse import canon, text, tokens, unwrap, walk

_INTEGER_WORDS = frozenset(
    {"int", "long", "short", "unsigned", "signed", "char", "auto", "size_t", "std::size_t"}
)
_INTEGER_NAMES = frozenset(
    {
        "ptrdiff_t", "std::ptrdiff_t", "ssize_t", "intptr_t", "std::intptr_t", "uintptr_t",
        "std::uintptr_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
        "uint32_t", "uint64_t", "std::int8_t", "std::int16_t", "std::int32_t", "std::int64_t",
        "std::uint8_t", "std::uint16_t", "std::uint32_t", "std::uint64_t",
    }
)  # fmt: skip
_ARITHMETIC = frozenset({"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"})
_DECLARING = frozenset(
    {
        "init_declarator",
        "declaration",
        "parameter_declaration",
        "optional_parameter_declaration",
        "variadic_parameter_declaration",
        "pointer_declarator",
        "reference_declarator",
        "array_declarator",
        "structured_binding_declarator",
        "for_range_loop",
        "lambda_capture_specifier",
        "catch_clause",
    }
)


def initial_value(use: Node) -> Node | None:
    """The initializer of the local integer `use` names, where it provably holds that value at
    `use` (see the module's rules); None anywhere else."""
    use = unwrap(use)
    if use.type != "identifier":
        return None
    name = text(use)
    declared = _declaration_before(use, name)
    if declared is None:
        return None
    statement, block = declared
    function = _function(use)
    if function is None or sum(1 for n in walk(function) if _declares(n, name)) != 1:
        return None
    if any(n.type == "goto_statement" for n in walk(function)):
        return None  # in C a jump may pass the declaration into the block and skip its value
    [declarator] = [
        d for d in statement.children_by_field_name("declarator") if _declares_name(d, name)
    ]
    value = declarator.child_by_field_name("value")
    if value is None or not _integer(statement) or not _arithmetic(value):
        return None
    own = declarator.child_by_field_name("declarator")
    if not _constant(statement) and not all(
        _only_read(n) for n in walk(block) if _names(n, name) and n != own
    ):
        return None
    reads = {text(n) for n in walk(value) if n.type == "identifier"}
    if name in reads or _changes(block, reads):
        return None
    return value


def spelled(index: Node) -> str:
    """`canon(index)` with each local that holds its initializer there (`initial_value`) written
    as that value: `out[idx]` and `out[row + j]` read as `out[i * n + j]` and `out[( i * n ) + j]`,
    so that accesses are compared by what they reach, never by a name two blocks may declare."""
    index = unwrap(index)
    value = initial_value(index)
    if value is not None:
        return spelled(value)
    parts = []
    for token in tokens(index):
        value = initial_value(token) if token.type == "identifier" else None
        parts.append(f"( {spelled(value)} )" if value is not None else text(token))
    return " ".join(parts)


def resolved(node: Node) -> Node:
    """`node` without parentheses, or the value of the local it names (`initial_value`), to the
    end of such a chain."""
    node = unwrap(node)
    while (value := initial_value(node)) is not None:
        node = unwrap(value)
    return node


def _declaration_before(use: Node, name: str) -> tuple[Node, Node] | None:
    """(statement, block) of the nearest `T name = value;` statement before `use` in a block
    around it; None when `use` reaches no such statement first."""
    child, node = use, use.parent
    while node is not None and node.type not in ("function_definition", "lambda_expression"):
        if node.type == "compound_statement":
            for statement in reversed(node.named_children):
                if statement.start_byte >= child.start_byte:
                    continue
                if statement.type == "declaration" and any(
                    _declares_name(d, name) for d in statement.children_by_field_name("declarator")
                ):
                    return statement, node
        child, node = node, node.parent
    return None


def _declares_name(declarator: Node, name: str) -> bool:
    """`declarator` is `name = value` (a plain name, initialised)."""
    own = declarator.child_by_field_name("declarator")
    return declarator.type == "init_declarator" and own is not None and _names(own, name)


def _function(node: Node) -> Node | None:
    while node.parent is not None and node.type not in ("function_definition", "lambda_expression"):
        node = node.parent
    return node if node.type == "function_definition" else None


def _names(node: Node, name: str) -> bool:
    return node.type == "identifier" and text(node) == name


def _declares(node: Node, name: str) -> bool:
    """`node` is `name` where something declares it (a variable, parameter, loop variable,
    binding, capture or catch parameter)."""
    parent = node.parent
    if not _names(node, name) or parent is None or parent.type not in _DECLARING:
        return False
    # not the value it is given, a default, the range looped over or an array's size
    return all(
        parent.child_by_field_name(f) != node for f in ("value", "default_value", "right", "size")
    )


def _integer(statement: Node) -> bool:
    kind = statement.child_by_field_name("type")
    if kind is None:
        return False
    return _integer_type(kind)


def _integer_type(kind: Node) -> bool:
    """`int`, `unsigned long long`, `auto`, `std::size_t`, `int64_t`...: no floating type."""
    spelled = canon(kind)
    if spelled.replace(" ", "") in _INTEGER_NAMES | _INTEGER_WORDS:
        return True
    return all(word in _INTEGER_WORDS for word in spelled.split())


def _constant(statement: Node) -> bool:
    return any(
        c.type == "type_qualifier" and text(c) in ("const", "constexpr") for c in statement.children
    )


def _arithmetic(value: Node) -> bool:
    """Names and integer literals combined by arithmetic, signs, casts and parentheses."""
    value = unwrap(value)
    if value.type == "identifier":
        return True
    if value.type == "number_literal":
        return "." not in text(value) and not text(value).lower().startswith("0x.")
    if value.type == "binary_expression":
        operator = value.child_by_field_name("operator")
        left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
        return (
            operator is not None
            and text(operator) in _ARITHMETIC
            and left is not None
            and right is not None
            and _arithmetic(left)
            and _arithmetic(right)
        )
    if value.type == "unary_expression":
        return text(value.children[0]) in ("-", "+", "~") and _arithmetic(value.children[1])
    if value.type == "cast_expression":
        kind, operand = value.child_by_field_name("type"), value.child_by_field_name("value")
        return (
            kind is not None
            and operand is not None
            and _integer_type(kind)
            and _arithmetic(operand)
        )
    return False


def _only_read(use: Node) -> bool:
    """`use`'s value is read in arithmetic, a subscript, a condition or a copy, never bound or
    written."""
    parent = use.parent
    while parent is not None and parent.type in (
        "parenthesized_expression",
        "conditional_expression",
    ):
        if parent.type == "conditional_expression" and use == parent.child_by_field_name(
            "condition"
        ):
            return True
        use, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type == "binary_expression":
        operator = parent.child_by_field_name("operator")
        into = (
            operator is not None
            and text(operator) == ">>"
            and use == parent.child_by_field_name("right")
        )
        return not into  # `std::cin >> idx` writes it
    if parent.type == "unary_expression":
        return text(parent.children[0]) in ("-", "+", "!", "~")
    if parent.type in ("subscript_argument_list", "cast_expression", "return_statement"):
        return True
    if parent.type == "subscript_expression":
        return use != parent.child_by_field_name("argument")  # the index, not the array
    if parent.type == "init_declarator":  # a copy, unless it binds a reference or a pointer
        declarator = parent.child_by_field_name("declarator")
        return declarator is not None and declarator.type == "identifier"
    return parent.type in ("condition_clause", "case_statement")


def _changes(block: Node, names: set[str]) -> bool:
    """Whether something in `block` may change one of `names` (see the module's rules)."""
    for node in walk(block):
        if node.type == "lambda_expression":
            captures = node.child_by_field_name("captures")
            if captures is None or "&" in text(captures):
                return True
        target: Node | None = None
        if node.type == "assignment_expression":
            target = node.child_by_field_name("left")
        elif node.type == "update_expression" or (
            node.type == "pointer_expression" and text(node.children[0]) == "&"
        ):
            target = node.child_by_field_name("argument")
        elif node.type == "reference_declarator" and node.parent is not None:
            value = node.parent.child_by_field_name("value")
            if value is not None and any(_names(n, m) for n in walk(value) for m in names):
                return True
        elif node.type == "argument_list":
            if any(
                unwrap(a).type == "identifier" and text(unwrap(a)) in names
                for a in node.named_children
            ):
                return True
        elif node.type == "binary_expression":
            operator = node.child_by_field_name("operator")
            if operator is not None and text(operator) == ">>":
                target = node.child_by_field_name("right")
        elif any(_declares(node, m) for m in names):
            return True  # declared again inside: the name at the use is another variable
        if (
            target is not None
            and unwrap(target).type == "identifier"
            and text(unwrap(target)) in names
        ):
            return True
    return False
