"""What a local integer holds where it is used, when that is provably its initial value.

    const std::size_t idx = i * n + j;
    out[idx] = a[idx] * 2;          // out[i * n + j]: the dependence rules see the expression

`initial_value(use)` gives the initializer of the local a subscript names, so that an access is
judged by the expression it stands for. It answers only where substituting is exact at the use:

- the function declares the name once (no shadowing, no parameter or loop variable of that name),
  in a declaration statement of a block that encloses the use, before it, and has no `goto`;
- the local is a plain name (no pointer, reference or array) with automatic storage (a `static`
  local keeps the value of its first initialisation);
- its initializer is arithmetic on integer literals and on names declared with integer types:
  no call, subscript, member, assignment or increment, no floating value;
- converting the initializer to the local's type changes no value: the local is `auto`, or of a
  64-bit type, or of a 32-bit type while every name, literal and cast it reads is 32-bit or
  narrower (an `unsigned char idx = i` wraps at 256; a narrower local is never read through);
- nothing in that block may change a name the initializer reads: no assignment or increment,
  no address taken, no reference bound to it, no call given it bare (it may take a reference),
  no `>>` into it, no lambda capturing by reference, and no declaration of it after the local's;
- the local is `const` (or `constexpr`), or every use of it in the block only reads its value in
  arithmetic, a subscript or a copy.

Widths are those of the 64-bit Linux ABI the sandbox builds for (`long` is 64 bits).
"""

from __future__ import annotations

from tree_sitter import Node

from agents.analysis.parse import canon, parse_int, text, tokens, unwrap, walk

_NAMED_BITS = {
    **dict.fromkeys(
        ("size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "int64_t", "uint64_t"), 64
    ),
    **dict.fromkeys(("int32_t", "uint32_t"), 32),
    **dict.fromkeys(("int16_t", "uint16_t"), 16),
    **dict.fromkeys(("int8_t", "uint8_t", "bool"), 8),
}
"""Integer types by name (also under `std::`) and their widths."""
_WORDS = frozenset({"int", "long", "short", "unsigned", "signed", "char"})
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
    if value is None or not _automatic(statement) or not _arithmetic(value):
        return None
    if not _exact(statement, value):
        return None
    own = declarator.child_by_field_name("declarator")
    if not _constant(statement) and not all(
        _only_read(n) for n in walk(block) if _names(n, name) and n != own
    ):
        return None
    reads = {text(n) for n in walk(value) if n.type == "identifier"}
    if name in reads or _changes(block, reads, statement.end_byte):
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


def value_names(node: Node) -> set[str]:
    """The names `node`'s value reads: each local that holds its initializer there stands for
    the names of that value (`i * n` for `row`)."""
    found: set[str] = set()
    for token in tokens(node):
        if token.type == "identifier":
            value = initial_value(token)
            found |= value_names(value) if value is not None else {text(token)}
    return found


def cast_parts(node: Node) -> tuple[Node, Node] | None:
    """(type, operand) of a C cast `(T)x` or a `static_cast<T>(x)`; None for anything else."""
    if node.type == "cast_expression":
        kind, operand = node.child_by_field_name("type"), node.child_by_field_name("value")
        return (kind, operand) if kind is not None and operand is not None else None
    if node.type != "call_expression":
        return None
    callee, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if (
        callee is None
        or callee.type != "template_function"
        or text(callee.child_by_field_name("name") or callee) != "static_cast"
        or arguments is None
        or arguments.named_child_count != 1
    ):
        return None
    listed = callee.child_by_field_name("arguments")
    if listed is None or listed.named_child_count != 1:
        return None
    return listed.named_children[0], arguments.named_children[0]


def widened(node: Node) -> Node | None:
    """The name under a cast that keeps distinct values distinct: `(size_t)i`,
    `static_cast<long>(i)`, `(unsigned)i` for an `int` i (a cast to an integer type at least as
    wide as the name's declared one); None for anything else (`(char)i` wraps)."""
    parts = cast_parts(unwrap(node))
    if parts is None:
        return None
    kind, operand = parts[0], unwrap(parts[1])
    to, width = bits(kind), declared_bits(operand) if operand.type == "identifier" else None
    return operand if to is not None and width is not None and to >= width else None


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


def bits(kind: Node) -> int | None:
    """The width of an integer type (`int` 32, `unsigned long` 64, `std::size_t` 64, `uint8_t`
    8); None for any other type, `auto` included."""
    spelled = canon(kind).replace(" :: ", "::").removeprefix("std::")
    if spelled in _NAMED_BITS:
        return _NAMED_BITS[spelled]
    words = spelled.split()
    if not words or not set(words) <= _WORDS:
        return None
    if "long" in words:
        return 64
    if "short" in words:
        return 16
    return 8 if "char" in words else 32


def _automatic(statement: Node) -> bool:
    """No storage class: the local is initialised each time its declaration runs."""
    return not any(c.type == "storage_class_specifier" for c in statement.children)


def _exact(statement: Node, value: Node) -> bool:
    """Converting `value` to the declared type of `statement`'s local changes no value, and
    every name `value` reads is an integer (see the module's rules)."""
    kind = statement.child_by_field_name("type")
    if kind is None:
        return False
    auto = canon(kind) == "auto"
    local = None if auto else bits(kind)
    if not auto and (local is None or local < 32):
        return False
    widths: list[int] = []
    for node in walk(value):
        if node.type == "identifier":
            width = declared_bits(node)
            if width is None:
                return False  # a floating value, a class, or a name not found
            widths.append(width)
        elif node.type == "number_literal":
            number = parse_int(text(node))
            if number is None:
                return False
            long = "l" in text(node).lower().lstrip("0x") or number >= 2**31
            widths.append(64 if long else 32)
        elif node.type == "type_descriptor":
            widths.append(bits(node) or 64)
    return local != 32 or all(w <= 32 for w in widths)


def declared_bits(use: Node) -> int | None:
    """The width of the integer type `use`'s name is declared with where it stands: a variable
    or loop variable in a block or loop around it, a parameter (`int n`, `const int &n`), a
    file-scope variable, an enumerator or a macro standing for an integer literal. None when the name is of
    another type, declared in a way not read here (a range-for's element, a binding, a
    condition), or not found."""
    name = text(use)
    child, node = use, use.parent
    while node is not None:
        if node.type == "lambda_expression":
            return None
        places: list[Node] = []
        if node.type in ("compound_statement", "translation_unit"):
            places = [c for c in node.named_children if c.end_byte <= child.start_byte]
            places.reverse()
        elif node.type == "for_statement":
            first = node.child_by_field_name("initializer")
            places = [first] if first is not None and first != child else []
        elif node.type == "function_definition":
            declarator = node.child_by_field_name("declarator")
            places = [
                p
                for p in (walk(declarator) if declarator is not None else ())
                if p.type in ("parameter_declaration", "optional_parameter_declaration")
            ]
        elif node.type in _SCOPES and any(
            _declares(n, name) for c in node.children if c != child for n in walk(c)
        ):
            return None
        for place in places:
            declared, width = _width_declared(place, name)
            if declared:
                return width
        child, node = node, node.parent
    return None


_SCOPES = frozenset(
    {"for_range_loop", "if_statement", "while_statement", "switch_statement", "catch_clause"}
)
"""Other statements that may declare a name for their body."""


def _width_declared(place: Node, name: str) -> tuple[bool, int | None]:
    """(whether `place` declares `name`, the integer width it declares it with: None for a
    pointer, an array, a floating or class type)."""
    if place.type == "preproc_def":
        macro, body = place.child_by_field_name("name"), place.child_by_field_name("value")
        if macro is None or text(macro) != name:
            return False, None
        number = parse_int(text(body).split("//")[0].split("/*")[0]) if body is not None else None
        return True, None if number is None else 32 if abs(number) < 2**31 else 64
    if place.type in ("enum_specifier", "declaration", "type_definition"):
        for listed in (n for n in walk(place) if n.type == "enumerator_list"):
            names = [e.child_by_field_name("name") for e in listed.named_children]
            if not any(n is not None and text(n) == name for n in names):
                continue
            # an enumerator is an int unless some value of its list needs more
            values = [e.child_by_field_name("value") for e in listed.named_children]
            small = all(
                v is None or ((number := parse_int(text(v))) is not None and abs(number) < 2**31)
                for v in values
            )
            return True, 32 if small else 64
    if place.type not in ("declaration", "parameter_declaration", "optional_parameter_declaration"):
        return False, None
    kind = place.child_by_field_name("type")
    for declarator in place.children_by_field_name("declarator"):
        node: Node | None = declarator
        plain = True
        while node is not None and node.type != "identifier":
            if node.type in ("pointer_declarator", "array_declarator", "function_declarator"):
                plain = False
            elif node.type == "structured_binding_declarator":
                if any(_names(n, name) for n in node.named_children):
                    return True, None
                break
            if node.type == "reference_declarator":  # a reference to an integer reads as it
                node = node.named_children[-1] if node.named_children else None
            else:
                node = node.child_by_field_name("declarator")
        if node is not None and _names(node, name):
            return True, bits(kind) if plain and kind is not None else None
    return False, None


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
        return parse_int(text(value)) is not None  # `1e-7` and `0x1p3` are floating
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
            and bits(kind) is not None
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


def _changes(block: Node, names: set[str], after: int) -> bool:
    """Whether something in `block` may change one of `names` (see the module's rules); a
    declaration of one of them counts only from byte `after` on (the local's own)."""
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
        elif node.start_byte >= after and any(_declares(node, m) for m in names):
            return True  # declared again inside: the name at the use is another variable
        if (
            target is not None
            and unwrap(target).type == "identifier"
            and text(unwrap(target)) in names
        ):
            return True
    return False
