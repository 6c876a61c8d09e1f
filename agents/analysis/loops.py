"""Loop headers: whether a `for` is in OpenMP canonical form, its bounds and trip count."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

from agents.analysis.parse import (
    LOOP_TYPES,
    canon,
    declared_name,
    integer,
    mentions,
    parse_int,
    text,
    unwrap,
    walk,
)
from agents.analysis.purity import is_pure
from agents.analysis.values import cast_parts, spelled

_TESTS = frozenset({"<", "<=", ">", ">=", "!="})
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}


@dataclass(frozen=True)
class Header:
    """What a loop header says about its iterations."""

    var: str | None = None
    canonical: bool = False
    why: str = ""
    """Why the loop is not canonical (empty when it is)."""
    lower: str | None = None
    upper: str | None = None
    upper_value: str | None = None
    """`upper` as the accesses spell their subscripts (`values.spelled`)."""
    trip_count: int | None = None
    bound_names: frozenset[str] = frozenset()
    """The variables the initial value, the bound and the step mention."""
    container: str | None = None
    """The container a range-based for loop runs over (None for an index loop)."""
    by_reference: bool = False
    """Whether a range-based for loop's element is a reference (its writes reach the container)."""
    counter_type: str | None = None
    """The type the initialiser declares the variable with, when the loop counts it up with
    `var < bound` (a first-match search keeps the first index in a variable of that type)."""
    declared_type: str | None = None
    """The type the initialiser declares the variable with, whatever the test and direction
    (`counter_type` is set only for `<` counting up)."""
    stride: int | None = None
    """How much each iteration adds to the variable, when the header says (`i -= 2`: -2)."""
    test: str | None = None
    """How a canonical index loop's test compares its variable with the bound (`<`, `<=`,
    `>`, `>=`, `!=`, the variable on the left): with `stride`, the range the variable takes."""


def loops_in(node: Node) -> Iterator[Node]:
    """Every loop under `node`, outer first, in source order."""
    for child in node.children:
        if child.type in LOOP_TYPES:
            yield child
        yield from loops_in(child)


def loop_body(loop: Node) -> Node | None:
    return loop.child_by_field_name("body")


def header(
    loop: Node,
    written: set[str],
    constants: dict[str, int],
    pure: set[str],
    containers: frozenset[str] = frozenset(),
    defined: frozenset[str] = frozenset(),
) -> Header:
    """Analyse a loop header given the names its body assigns, the program's pure functions,
    the function's random-access containers (the ranges a range-based for loop may run over)
    and the names the program defines functions under."""
    if loop.type == "for_range_loop":
        return range_header(loop, written, containers)
    if loop.type != "for_statement":
        return Header(why=f"not a canonical for loop (a {loop.type.split('_')[0]} loop)")
    init = loop.child_by_field_name("initializer")
    test = loop.child_by_field_name("condition")
    step = loop.child_by_field_name("update")
    start = _init(init)
    if start is None:
        return Header(why="its initialiser does not assign one variable")
    var, lower = start
    comparison = _test(test, var) if test is not None else None
    if comparison is None:
        return Header(
            var=var, why=f"its test does not compare {var} with a bound (<, <=, >, >=, !=)"
        )
    op, bound = comparison
    increment = _step(step, var) if step is not None else None
    if increment is None:
        return Header(
            var=var, why=f"its increment is not {var}++, {var}--, {var} += c or {var} -= c"
        )
    sign, amount = increment
    found = Header(var=var, lower=text(lower), upper=text(bound))
    names = {*_names(lower), *_names(bound), *(_names(amount) if amount is not None else [])}
    if var in written:
        return _not(found, f"the body assigns the loop variable {var}")
    effects = [n for part in (lower, bound) for n in walk(part) if n.type in _EFFECTS]
    if effects:
        # `i <= m--`: the loop evaluates its bound at every test, a parallel loop once
        return _not(found, f"its first value or bound changes a variable ({text(effects[0])})")
    changing = sorted(names & written)
    if changing:
        return _not(found, f"the body changes {', '.join(changing)}, which the header reads")
    impure = [c for c in _calls_in(bound) if not is_pure(c, pure, defined)]
    if impure:
        return _not(found, f"its bound calls {impure[0]}, which may have side effects")
    if (op in ("<", "<=") and sign < 0) or (op in (">", ">=") and sign > 0):
        return _not(found, f"{var} moves away from its bound")
    stride = 1 if amount is None else integer(amount, constants)
    trips = _trips(integer(lower, constants), integer(bound, constants), op, sign, stride)
    return Header(
        var=var,
        canonical=True,
        lower=found.lower,
        upper=found.upper,
        upper_value=spelled(bound),
        trip_count=trips,
        bound_names=frozenset(names),
        counter_type=_declared_type(init) if op == "<" and sign > 0 else None,
        declared_type=_declared_type(init),
        stride=None if stride is None else sign * stride,
        test=op,
    )


_EFFECTS = frozenset({"update_expression", "assignment_expression"})
"""Expressions that change a variable: in a loop's first value or bound, not a range."""


def _declared_type(init: Node | None) -> str | None:
    """`size_t` for `size_t i = 0`; None for an assignment, `auto`, or a pointer or reference."""
    if init is None or init.type != "declaration":
        return None
    type_node = init.child_by_field_name("type")
    declarator = init.child_by_field_name("declarator")
    inner = declarator.child_by_field_name("declarator") if declarator is not None else None
    if type_node is None or inner is None or inner.type != "identifier":
        return None
    qualifiers = [
        c for c in init.children if c.type in ("type_qualifier", "storage_class_specifier")
    ]
    if qualifiers or type_node.type in ("placeholder_type_specifier", "auto"):
        return None
    return " ".join(text(type_node).split())


def range_header(loop: Node, written: set[str], containers: frozenset[str]) -> Header:
    """A range-based for loop is canonical (OpenMP 5.0) over a random-access container."""
    declarator = loop.child_by_field_name("declarator")
    var = declared_name(declarator)
    right = loop.child_by_field_name("right")
    if var is None or right is None:
        return Header(why="a range-based for loop whose element or range the parser cannot read")
    right = unwrap(right)
    if right.type != "identifier":
        return Header(
            var=var,
            why=f"a range-based for loop over {text(right)}, not a container named by a variable",
        )
    container = text(right)
    if container not in containers:
        return Header(
            var=var,
            why=f"a range-based for loop over {container}: "
            "container type not known to be random access",
        )
    if container in written:
        return Header(var=var, why=f"the body assigns the container {container}")
    return Header(
        var=var,
        canonical=True,
        upper=container,
        bound_names=frozenset({container}),
        container=container,
        by_reference=declarator is not None and declarator.type == "reference_declarator",
    )


def _not(found: Header, why: str) -> Header:
    return Header(var=found.var, lower=found.lower, upper=found.upper, why=why)


def _init(init: Node | None) -> tuple[str, Node] | None:
    if init is None:
        return None
    if init.type == "declaration":
        declarators = init.children_by_field_name("declarator")
        if len(declarators) != 1 or declarators[0].type != "init_declarator":
            return None
        value = declarators[0].child_by_field_name("value")
        name = declared_name(declarators[0])
        return (name, value) if name is not None and value is not None else None
    init = unwrap(init)
    if init.type == "assignment_expression" and text(init.children[1]) == "=":
        left, right = init.child_by_field_name("left"), init.child_by_field_name("right")
        if left is not None and right is not None and left.type == "identifier":
            return text(left), right
    return None


def _test(test: Node, var: str) -> tuple[str, Node] | None:
    """(operator with `var` on the left, bound)."""
    test = unwrap(test)
    if test.type != "binary_expression":
        return None
    left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
    operator = test.child_by_field_name("operator")
    if left is None or right is None or operator is None or text(operator) not in _TESTS:
        return None
    left, right, op = unwrap(left), unwrap(right), text(operator)
    if left.type == "identifier" and text(left) == var and not mentions(right, var):
        return op, right
    if right.type == "identifier" and text(right) == var and not mentions(left, var):
        return _MIRROR[op], left
    return None


def _step(step: Node, var: str) -> tuple[int, Node | None] | None:
    """(direction, amount) of the increment; amount None means 1."""
    step = unwrap(step)
    if step.type == "update_expression":
        target = step.child_by_field_name("argument")
        if target is None or text(unwrap(target)) != var:
            return None
        return (1 if "++" in text(step) else -1), None
    if step.type != "assignment_expression":
        return None
    left, right = step.child_by_field_name("left"), step.child_by_field_name("right")
    operator = step.child_by_field_name("operator")
    if left is None or right is None or operator is None or text(unwrap(left)) != var:
        return None
    op, right = text(operator), unwrap(right)
    if op in ("+=", "-=") and not mentions(right, var):
        return (1 if op == "+=" else -1), right
    if op == "=" and right.type == "binary_expression":
        a, b = right.child_by_field_name("left"), right.child_by_field_name("right")
        sign = text(right.children[1])
        if a is None or b is None or sign not in ("+", "-"):
            return None
        a, b = unwrap(a), unwrap(b)
        if text(a) == var and not mentions(b, var):
            return (1 if sign == "+" else -1), b
        if sign == "+" and text(b) == var and not mentions(a, var):
            return 1, a
    return None


def _trips(
    lower: int | None, bound: int | None, op: str, sign: int, stride: int | None
) -> int | None:
    if lower is None or bound is None or stride is None or stride <= 0:
        return None
    distance = (bound - lower) * sign
    if op in ("<=", ">="):
        distance += 1
    elif op == "!=" and distance % stride:
        return None
    return max(0, math.ceil(distance / stride))


def _names(node: Node) -> list[str]:
    out = []
    if node.type == "identifier":
        out.append(text(node))
    for child in node.children:
        if child.type != "field_identifier":
            out.extend(_names(child))
    return out


def _calls_in(node: Node) -> list[str]:
    found = []
    if node.type == "call_expression":
        callee = node.child_by_field_name("function")
        if callee is not None:
            member = (
                callee.child_by_field_name("field") if callee.type == "field_expression" else None
            )
            found.append(text(member if member is not None else callee).replace(" ", ""))
    for child in node.children:
        found.extend(_calls_in(child))
    return found


def in_row(column: Node, length: Node) -> bool:
    """Whether `column`, where it stands, is provably in [0, `length`): what makes `r * n + c`
    of one row differ from every element of another row. A literal column needs a literal
    length; a variable column needs the loop around it that counts it (`_counted`) to start at
    a non-negative value and stop at or before `length` (`j < n`, `j < n - 1`, `j <= i` inside
    `i < n`)."""
    column, length = unwrap(column), unwrap(length)
    if column.type == "number_literal":
        value, size = parse_int(text(column)), _literal(length)
        return value is not None and size is not None and 0 <= value < size
    counted = _counted(column)
    if counted is None:
        return False
    first, op, bound = counted
    if not _non_negative(first):
        return False
    return _at_most(bound, length) if op == "<" else _below(bound, length)


def _counted(name: Node) -> tuple[Node, str, Node] | None:
    """(first value, `<` or `<=`, bound) of the innermost `for` whose body holds `name` and
    whose header counts that variable up, where nothing in the body assigns the variable or
    a name the bound reads, declares the name again, or takes their address: there the
    variable lies in [first, bound). None where no such loop is found."""
    if name.type != "identifier":
        return None
    var, child, node = text(name), name, name.parent
    while node is not None and node.type != "function_definition":
        if node.type == "for_statement" and child == node.child_by_field_name("body"):
            start = _init(node.child_by_field_name("initializer"))
            if start is not None and start[0] == var:
                return _counted_header(node, var, start[1], child)
        child, node = node, node.parent
    return None


def _counted_header(loop: Node, var: str, first: Node, body: Node) -> tuple[Node, str, Node] | None:
    test, step = loop.child_by_field_name("condition"), loop.child_by_field_name("update")
    comparison = _test(test, var) if test is not None else None
    increment = _step(step, var) if step is not None else None
    if comparison is None or comparison[0] not in ("<", "<=") or increment is None:
        return None
    if increment[0] < 0 or (increment[1] is not None and not _non_negative(increment[1])):
        return None
    bound = unwrap(comparison[1])
    if _calls_in(_signed_cast_value(bound) or bound) or _assigned_in(body) & {var, *_names(bound)}:
        return None
    return first, comparison[0], bound


def _non_negative(value: Node) -> bool:
    """A literal >= 0, a sum of such values, or a loop variable counted up from one."""
    value = unwrap(value)
    if value.type == "number_literal":
        number = parse_int(text(value))
        return number is not None and number >= 0
    if value.type == "binary_expression" and text(value.children[1]) in ("+", "*"):
        left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
        return (
            left is not None and right is not None and _non_negative(left) and _non_negative(right)
        )
    counted = _counted(value)
    return counted is not None and _non_negative(counted[0])


def _at_most(bound: Node, length: Node) -> bool:
    """`bound <= length` for a counter counted up from 0 or more below `bound`: the same
    expression, `length - c` (c >= 0), smaller literals, a variable provably below `length`
    where it stands, or `length` cast to a signed integer type (`j < (int)n`,
    `static_cast<long>(n)`): wherever such a loop runs the cast is positive, and a positive
    value of a signed type made from an integer is the integer itself or its low bits, never
    more than the integer's magnitude."""
    bound, length = unwrap(bound), unwrap(length)
    cast = _signed_cast_value(bound)
    if cast is not None and canon(unwrap(cast)) == canon(length):
        return True
    return canon(bound) == canon(length) or _below(bound, length, strict=False)


_SIGNED_INTEGERS = frozenset(
    {
        "short", "short int", "signed short", "int", "signed", "signed int", "long", "long int",
        "signed long", "long long", "long long int", "signed long long", "ptrdiff_t",
        "std::ptrdiff_t", "ssize_t", "intptr_t", "std::intptr_t", "int16_t", "std::int16_t",
        "int32_t", "std::int32_t", "int64_t", "std::int64_t",
    }
)  # fmt: skip


def _signed_cast_value(node: Node) -> Node | None:
    """The operand of a cast to a signed integer type: `(int)n`, `static_cast<long>(n)`."""
    parts = cast_parts(node)
    if parts is None or canon(parts[0]) not in _SIGNED_INTEGERS:
        return None
    return parts[1]


def _below(bound: Node, length: Node, strict: bool = True) -> bool:
    """`bound < length` (`bound <= length` when not `strict`)."""
    bound, length = unwrap(bound), unwrap(length)
    low, high = _literal(bound), _literal(length)
    if low is not None and high is not None:
        return low < high or (not strict and low == high)
    if bound.type == "binary_expression" and text(bound.children[1]) == "-":
        left, right = bound.child_by_field_name("left"), bound.child_by_field_name("right")
        less = _literal(right) if right is not None else None
        if left is not None and less is not None and canon(unwrap(left)) == canon(length):
            return less >= (1 if strict else 0)
    return in_row(bound, length)


def _literal(node: Node) -> int | None:
    node = unwrap(node)
    return parse_int(text(node)) if node.type == "number_literal" else None


def _assigned_in(node: Node) -> set[str]:
    """Names `node` assigns, increments, declares or takes the address of (a call may write
    through an address)."""
    found: set[str] = set()
    target: Node | None = None
    if node.type == "assignment_expression":
        target = node.child_by_field_name("left")
    elif node.type == "update_expression" or (
        node.type == "pointer_expression" and text(node.children[0]) == "&"
    ):
        target = node.child_by_field_name("argument")
    elif node.type in ("init_declarator", "declaration", "parameter_declaration"):
        name = declared_name(node.child_by_field_name("declarator") or node)
        if name is not None:
            found.add(name)
    # Writing an element (`a[j] = ...`) changes the array, not the names in its subscript.
    while target is not None and target.type in (
        "parenthesized_expression",
        "subscript_expression",
        "field_expression",
    ):
        target = target.named_children[0] if target.named_children else None
    if target is not None and target.type == "identifier":
        found.add(text(target))
    for child in node.children:
        found |= _assigned_in(child)
    return found
