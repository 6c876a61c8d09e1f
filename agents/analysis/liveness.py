"""Whether a variable's value when a loop ends may still be read: the loop's last value must
then be kept (`lastprivate`, the last rank's value), else each iteration's copy may simply end.

The function's statements are followed on from the loop along every way control can go: the
rest of each enclosing block, and around each enclosing loop (its update and test, its body
again) before its exit. A way on ends where it first reads the variable (live) or assigns it
outright (`v = e`, `e` not reading `v`: dead), or at the function's end or a `return` that does
not name it (dead: a function's own variable ends with it, which the caller checks). A branch
assigns it only where both arms do, a loop's body only where it must run (a `do` body); a jump
(`break`, `continue`, `goto`, `throw`), a `switch`, a label or anything else this reader does
not follow counts as a read. A function with a `goto` is read as text instead (the caller's
fall-back): a jump can reach back above the loop.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

from tree_sitter import Node

from agents.analysis.parse import mentions, text, unwrap


class Access(Enum):
    READ = "read"
    ASSIGN = "assign"
    NONE = "none"


_LOOPS = ("for_statement", "while_statement", "do_statement", "for_range_loop")
_JUMPS = frozenset(
    {"break_statement", "continue_statement", "goto_statement", "throw_statement",
     "co_return_statement", "co_yield_statement"}
)  # fmt: skip


def live_after(loop: Node, name: str, top: Node) -> bool:
    """Whether `name`'s value when statement `loop` ends may be read before it is assigned
    again, in the function whose body is `top`."""
    child = loop
    while child != top and child.parent is not None:
        parent = child.parent
        if parent.type == "compound_statement":
            rest = [c for c in parent.named_children if c.start_byte >= child.end_byte]
            found = first_access(rest, name)
            if found is not Access.NONE:
                return found is Access.READ
        elif parent.type in _LOOPS and child == parent.child_by_field_name("body"):
            # the body ended: the update and the test, then the body again or the loop's exit
            found = _header_access(parent, name)
            if found is not Access.NONE:
                return found is Access.READ
            if access(child, name, True) is Access.READ:
                return True
        elif parent.type not in ("if_statement", "else_clause"):
            return True  # a switch's case, a label, a lambda's body: not followed
        child = parent
    return False


def first_access(statements: Iterable[Node], name: str, in_loop: bool = False) -> Access:
    """What statements run one after another do first to `name`."""
    for statement in statements:
        found = access(statement, name, in_loop)
        if found is not Access.NONE:
            return found
    return Access.NONE


def access(statement: Node, name: str, in_loop: bool = False) -> Access:
    """What running `statement` does first to `name` on every way through it: READ where some
    way may read it first, ASSIGN where every way assigns it before any read (or ends the
    function), else NONE. `in_loop`: the statement is in the body of a loop being read for its
    reads alone, where a `break` or `continue` only goes on to that loop's header or exit."""
    kind = statement.type
    if kind == "comment":
        return Access.NONE
    if kind == "return_statement":
        return Access.READ if mentions(statement, name) else Access.ASSIGN
    if kind in ("break_statement", "continue_statement") and in_loop:
        return Access.NONE
    if kind in _JUMPS:
        return Access.READ
    if not mentions(statement, name) and not _jumps(statement):
        return Access.NONE
    if kind == "expression_statement":
        expr = statement.named_children[0] if statement.named_children else None
        return _expression(expr, name) if expr is not None else Access.NONE
    if kind == "compound_statement":
        return first_access(statement.named_children, name, in_loop)
    if kind == "if_statement":
        condition = statement.child_by_field_name("condition")
        found = _expression(condition, name) if condition is not None else Access.READ
        if found is not Access.NONE:
            return found
        arms = [statement.child_by_field_name("consequence"), _else(statement)]
        each = [access(arm, name, in_loop) if arm is not None else Access.NONE for arm in arms]
        if Access.READ in each:
            return Access.READ
        return Access.ASSIGN if each == [Access.ASSIGN, Access.ASSIGN] else Access.NONE
    if kind == "for_statement":
        init = statement.child_by_field_name("initializer")
        if init is not None and init.type != "declaration":
            found = _expression(init, name)
            if found is not Access.NONE:
                return found
        elif init is not None and mentions(init, name):
            return Access.READ  # a declaration of the name or from it
        found = _header_access(statement, name, update=False)
        if found is not Access.NONE:
            return found
        body = statement.child_by_field_name("body")
        update = statement.child_by_field_name("update")
        if (body is not None and access(body, name, True) is Access.READ) or (
            update is not None and _expression(update, name) is Access.READ
        ):
            return Access.READ
        return Access.NONE  # the body may not run
    if kind == "while_statement":
        found = _header_access(statement, name)
        if found is not Access.NONE:
            return found
        body = statement.child_by_field_name("body")
        read = body is not None and access(body, name, True) is Access.READ
        return Access.READ if read else Access.NONE
    if kind == "do_statement":
        body = statement.child_by_field_name("body")
        found = access(body, name, True) if body is not None else Access.NONE
        if found is Access.ASSIGN and body is not None and _jumps(body):
            found = Access.NONE  # a `break` or `continue` may pass the assignment
        return found if found is not Access.NONE else _header_access(statement, name)
    return Access.READ  # a declaration naming it, a switch, a label, a range loop: not followed


def _else(statement: Node) -> Node | None:
    alternative = statement.child_by_field_name("alternative")
    if alternative is not None and alternative.type == "else_clause":
        inner = [c for c in alternative.named_children if c.type != "comment"]
        return inner[0] if inner else None
    return alternative


def _header_access(loop: Node, name: str, update: bool = True) -> Access:
    """What a loop's update (a `for`'s, when `update`) and then its test do first to `name`."""
    parts = [loop.child_by_field_name("update")] if update else []
    parts.append(loop.child_by_field_name("condition"))
    for part in parts:
        if part is not None:
            found = _expression(part, name)
            if found is not Access.NONE:
                return found
    return Access.NONE


def _expression(expr: Node, name: str) -> Access:
    """What evaluating `expr` does first to `name`: an outright assignment `name = e` (`e`
    not reading it; a comma's parts in turn) assigns it, any other mention reads it."""
    expr = unwrap(expr)
    if expr.type == "comma_expression":
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        found = _expression(left, name) if left is not None else Access.NONE
        if found is Access.NONE and right is not None:
            found = _expression(right, name)
        return found
    if expr.type == "condition_clause":
        return Access.READ if mentions(expr, name) else Access.NONE
    if expr.type == "assignment_expression" and text(expr.children[1]) == "=":
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        if (
            left is not None
            and right is not None
            and unwrap(left).type == "identifier"
            and text(unwrap(left)) == name
        ):
            return Access.READ if mentions(right, name) else Access.ASSIGN
    return Access.READ if mentions(expr, name) else Access.NONE


def _jumps(node: Node) -> bool:
    """Whether `node` holds a jump out of it (not one inside a lambda it defines)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _JUMPS or current.type == "return_statement":
            return True
        if current.type != "lambda_expression":
            stack.extend(current.named_children)
    return False
