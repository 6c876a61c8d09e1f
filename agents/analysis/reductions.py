"""Statements that fold a value into a scalar with one associative operator.

`s += e`, `s = s * e`, `s |= e`, `s = fmax(s, e)`, `s = e < s ? e : s` and
`if (e > s) s = e;` (with optional extra `&&` conditions that do not read `s`) are recognised;
`e` must not mention `s`. Whether the scalar is a reduction of a loop also needs that it is not
used anywhere else in the body, which the dependence rules check.

`if (d < best) { best = d; at = i; }` is a best update (`match_best_update`): an argmin.

An array element updated in place (`h[k]++`, `h[k] += e`, neither `k` nor `e` mentioning `h`)
is a reduction statement on the array `h`: a histogram, when every iteration may hit any bin.

`a[i] = a[i - 1] + e` is a first-order recurrence (`match_recurrence`): a prefix sum.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from agents.analysis.model import BestUpdate
from agents.analysis.parse import canon, mentions, text, unwrap

_COMPOUND = {"+=": "+", "-=": "+", "*=": "*", "&=": "&", "|=": "|", "^=": "^"}
_BINARY = {"+": "+", "-": "+", "*": "*", "&": "&", "|": "|", "^": "^", "&&": "&&", "||": "||"}
_MIN = frozenset({"min", "fmin", "fminf", "fminl", "std::min", "std::fmin"})
_MAX = frozenset({"max", "fmax", "fmaxf", "fmaxl", "std::max", "std::fmax"})
# For `a OP b`: which of min/max picking `a` when the comparison holds gives.
_PICKS_LEFT = {">": "max", ">=": "max", "<": "min", "<=": "min"}
_FLIP = {"max": "min", "min": "max"}


def match_reduction(statement: Node) -> tuple[str, str] | None:
    """(variable, operator) when `statement` is a reduction update, else None."""
    if statement.type == "if_statement":
        return _if_update(statement)
    if statement.type != "expression_statement" or statement.named_child_count != 1:
        return None
    expr = unwrap(statement.named_children[0])
    if expr.type == "update_expression":
        target = expr.child_by_field_name("argument")
        if target is not None and target.type == "subscript_expression":
            array = _element_of(target)
            return (array, "+") if array else None
        return (text(target), "+") if target is not None and target.type == "identifier" else None
    if expr.type != "assignment_expression":
        return None
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    operator = expr.child_by_field_name("operator")
    if left is None or right is None or operator is None:
        return None
    if left.type == "subscript_expression":
        array = _element_of(left)
        op = text(operator)
        if array is None or op not in _COMPOUND or mentions(right, array):
            return None
        return array, _COMPOUND[op]
    if left.type != "identifier":
        return None
    name, op = text(left), text(operator)
    if op in _COMPOUND:
        return None if mentions(right, name) else (name, _COMPOUND[op])
    if op != "=":
        return None
    found = _fold(name, unwrap(right))
    return (name, found) if found else None


@dataclass(frozen=True)
class Recurrence:
    """A first-order recurrence over the loop variable `i`: `a[i] = a[i - 1] OP e` (or `e OP
    a[i - 1]`), OP `+` or `*`, `e` free of `a` (a prefix sum, a running product); optionally
    with a first iteration of its own, `if (i == b) a[i] = e0; else a[i] = a[i - 1] OP e;`."""

    array: str
    op: str
    element: Node
    """The `a[i]` the recurrence assigns."""
    term: Node
    """`e`."""
    first: tuple[Node, Node, Node] | None = None
    """For the `if` form: its condition clause, the bound `b` and `e0`."""


def match_recurrence(statement: Node, var: str) -> Recurrence | None:
    """The recurrence `statement` is over loop variable `var`, else None."""
    if statement.type == "if_statement":
        return _first_recurrence(statement, var)
    if statement.type != "expression_statement" or statement.named_child_count != 1:
        return None
    expr = unwrap(statement.named_children[0])
    assigned = _assigned_element(expr, var)
    if assigned is None:
        return None
    array, left, right = assigned
    value = unwrap(right)
    if value.type != "binary_expression":
        return None
    op = value.child_by_field_name("operator")
    a, b = value.child_by_field_name("left"), value.child_by_field_name("right")
    if op is None or a is None or b is None or text(op) not in ("+", "*"):
        return None
    for previous, term in ((unwrap(a), b), (unwrap(b), a)):
        if (
            previous.type == "subscript_expression"
            and _element_of(previous) == array
            and _index(previous) == f"{var} - 1"
            and not mentions(term, array)
        ):
            return Recurrence(array, text(op), left, term)
    return None


def _assigned_element(expr: Node, var: str) -> tuple[str, Node, Node] | None:
    """(a, the element, the value) when `expr` is `a[var] = value`."""
    if expr.type != "assignment_expression":
        return None
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    operator = expr.child_by_field_name("operator")
    if left is None or right is None or operator is None or text(operator) != "=":
        return None
    array = _element_of(left) if left.type == "subscript_expression" else None
    if array is None or _index(left) != var:
        return None
    return array, left, right


def _first_recurrence(statement: Node, var: str) -> Recurrence | None:
    """`if (i == b) a[i] = e0; else a[i] = a[i - 1] OP e;` (braces or not, `b == i` too)."""
    condition = statement.child_by_field_name("condition")
    then, otherwise = (
        statement.child_by_field_name("consequence"),
        statement.child_by_field_name("alternative"),
    )
    if condition is None or then is None or otherwise is None:
        return None
    # C++ wraps the test in a condition clause (which may declare something first, `if (init;
    # test)`: then the test alone is not the condition's text), C in parentheses.
    if condition.type == "condition_clause" and condition.named_child_count == 1:
        test = unwrap(condition.named_children[0])
    elif condition.type == "parenthesized_expression":
        test = unwrap(condition)
    else:
        return None
    if test.type != "binary_expression" or text(test.children[1]) != "==":
        return None
    sides = [test.child_by_field_name("left"), test.child_by_field_name("right")]
    bound = [s for s in sides if s is not None and not _is(s, var)]
    if len(bound) != 1 or not any(s is not None and _is(s, var) for s in sides):
        return None
    otherwise = _only_statement(next(iter(otherwise.named_children), None))
    first = _only_statement(then)
    recurrence = match_recurrence(otherwise, var) if otherwise is not None else None
    if recurrence is None or first is None or first.type != "expression_statement":
        return None
    if first.named_child_count != 1:
        return None  # an empty statement, `;`
    assigned = _assigned_element(unwrap(first.named_children[0]), var)
    if assigned is None or assigned[0] != recurrence.array or mentions(assigned[2], assigned[0]):
        return None
    return Recurrence(
        recurrence.array,
        recurrence.op,
        recurrence.element,
        recurrence.term,
        first=(condition, bound[0], assigned[2]),
    )


def _only_statement(node: Node | None) -> Node | None:
    """`node`, or the one statement of a block `{ s; }`."""
    while node is not None and node.type == "compound_statement":
        inner = [c for c in node.named_children if c.type != "comment"]
        node = inner[0] if len(inner) == 1 else None
    return node


def _index(element: Node) -> str | None:
    """The one subscript of `a[k]` as canonical tokens (`i - 1`)."""
    index = element.child_by_field_name("indices") or element.child_by_field_name("index")
    if index is None:
        return None
    named = [c for c in index.named_children if c.type != "comment"]
    if index.type == "subscript_argument_list":
        return canon(named[0]) if len(named) == 1 else None
    return canon(index)


def _element_of(target: Node) -> str | None:
    """The array `h` of an element `h[k]` (one subscript, `k` free of `h`), else None."""
    base = target.child_by_field_name("argument")
    index = target.child_by_field_name("indices") or target.child_by_field_name("index")
    if base is None or index is None or unwrap(base).type != "identifier":
        return None
    name = text(unwrap(base))
    return None if mentions(index, name) else name


def _fold(name: str, value: Node) -> str | None:
    """The operator when `value` is `name OP e`, `e OP name`, `min(name, e)` or a min/max ternary."""
    if value.type == "binary_expression":
        left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
        operator = value.child_by_field_name("operator")
        if left is None or right is None or operator is None:
            return None
        op = text(operator)
        if op not in _BINARY:
            return None
        if _is(left, name) and not mentions(right, name):
            return _BINARY[op]
        if _is(right, name) and op != "-" and not mentions(left, name):
            return _BINARY[op]
        return None
    if value.type == "call_expression":
        callee, arguments = (
            value.child_by_field_name("function"),
            value.child_by_field_name("arguments"),
        )
        if callee is None or arguments is None:
            return None
        called = canon(callee).replace(" ", "")
        args = [a for a in arguments.named_children if a.type != "comment"]
        if called not in _MIN | _MAX or len(args) != 2:
            return None
        mine = [a for a in args if _is(a, name)]
        other = [a for a in args if not _is(a, name)]
        if len(mine) != 1 or len(other) != 1 or mentions(other[0], name):
            return None
        return "min" if called in _MIN else "max"
    if value.type == "conditional_expression":
        return _ternary(name, value)
    return None


def _ternary(name: str, value: Node) -> str | None:
    """`c ? a : b` where c compares `name` with `e` and {a, b} are those two."""
    condition = value.child_by_field_name("condition")
    chosen = value.child_by_field_name("consequence")
    other = value.child_by_field_name("alternative")
    if condition is None or chosen is None or other is None:
        return None
    compared = _comparison(name, unwrap(condition))
    if compared is None:
        return None
    left, op, right = compared
    pair = (canon(unwrap(chosen)), canon(unwrap(other)))
    if pair == (canon(left), canon(right)):
        return _PICKS_LEFT[op]
    if pair == (canon(right), canon(left)):
        return _FLIP[_PICKS_LEFT[op]]
    return None


def _if_update(statement: Node) -> tuple[str, str] | None:
    """`if (e > s) s = e;` → (s, max); extra `&&` conditions must not read `s`."""
    if statement.child_by_field_name("alternative") is not None:
        return None
    condition = statement.child_by_field_name("condition")
    if condition is not None and condition.type == "condition_clause":
        # C++ wraps the condition (which may declare a variable) in a clause.
        condition = condition.child_by_field_name("value")
    body = statement.child_by_field_name("consequence")
    if condition is None or body is None:
        return None
    while body.type == "compound_statement":
        inner = [c for c in body.named_children if c.type != "comment"]
        if len(inner) != 1:
            return None
        body = inner[0]
    if body.type != "expression_statement" or body.named_child_count != 1:
        return None
    assign = unwrap(body.named_children[0])
    if assign.type != "assignment_expression" or text(assign.children[1]) != "=":
        return None
    target, value = assign.child_by_field_name("left"), assign.child_by_field_name("right")
    if target is None or value is None or target.type != "identifier":
        return None
    name = text(target)
    conjuncts = _conjuncts(unwrap(condition))
    tests = [c for c in conjuncts if mentions(c, name)]
    if len(tests) != 1:
        return None
    compared = _comparison(name, unwrap(tests[0]))
    if compared is None:
        return None
    left, op, right = compared
    candidate = right if _is(left, name) else left
    if canon(candidate) != canon(unwrap(value)):
        return None
    # The assignment keeps the candidate when the comparison holds.
    picks = _PICKS_LEFT[op] if candidate is left else _FLIP[_PICKS_LEFT[op]]
    return name, picks


def _comparison(name: str, node: Node) -> tuple[Node, str, Node] | None:
    """(left, op, right) for `left op right` comparing `name` with an expression free of it."""
    if node.type != "binary_expression":
        return None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    operator = node.child_by_field_name("operator")
    if left is None or right is None or operator is None or text(operator) not in _PICKS_LEFT:
        return None
    left, right = unwrap(left), unwrap(right)
    if _is(left, name) and not mentions(right, name):
        return left, text(operator), right
    if _is(right, name) and not mentions(left, name):
        return left, text(operator), right
    return None


def _conjuncts(node: Node) -> list[Node]:
    operator = node.child_by_field_name("operator") if node.type == "binary_expression" else None
    if operator is not None and text(operator) == "&&":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        assert left is not None and right is not None
        return _conjuncts(unwrap(left)) + _conjuncts(unwrap(right))
    return [node]


def _is(node: Node, name: str) -> bool:
    node = unwrap(node)
    return node.type == "identifier" and text(node) == name


def match_best_update(statement: Node) -> tuple[BestUpdate, Node, Node] | None:
    """(the update, the candidate in the condition, the block) for `if (e < best) { best = e;
    at = i; ... }`: a comparison of `best` with a candidate `e`, nothing else in the condition,
    no `else`, and a block of plain assignments to distinct scalars, `best` taking `e`, where no
    right-hand side and not `e` mention the scalars assigned. `<=`, `>` and `>=` work alike."""
    if statement.type != "if_statement" or statement.child_by_field_name("alternative"):
        return None
    condition = statement.child_by_field_name("condition")
    if condition is not None and condition.type == "condition_clause":
        condition = condition.child_by_field_name("value")
    body = statement.child_by_field_name("consequence")
    if condition is None or body is None or body.type != "compound_statement":
        return None
    assigned: dict[str, Node] = {}
    for child in body.named_children:
        if child.type == "comment":
            continue
        assign = unwrap(child.named_children[0]) if child.named_child_count == 1 else None
        if child.type != "expression_statement" or assign is None:
            return None
        target, value = assign.child_by_field_name("left"), assign.child_by_field_name("right")
        operator = assign.child_by_field_name("operator")
        if (
            assign.type != "assignment_expression"
            or operator is None
            or text(operator) != "="
            or target is None
            or value is None
            or target.type != "identifier"
            or text(target) in assigned
        ):
            return None
        assigned[text(target)] = unwrap(value)
    if len(assigned) < 2:
        return None  # `if (e < best) best = e;` alone is a min reduction
    comparison = unwrap(condition)
    for best in assigned:
        compared = _comparison(best, comparison)
        if compared is None:
            continue
        left, op, right = compared
        candidate = right if _is(left, best) else left
        if canon(candidate) != canon(assigned[best]):
            return None
        if any(
            mentions(node, name) for node in (candidate, *assigned.values()) for name in assigned
        ):
            return None
        picks = _PICKS_LEFT[op] if candidate is left else _FLIP[_PICKS_LEFT[op]]
        others = tuple(name for name in assigned if name != best)
        update = BestUpdate(best, others, picks, strict=op in ("<", ">"))  # type: ignore[arg-type]
        return update, candidate, body
    return None
