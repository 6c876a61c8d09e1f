"""Statements that fold a value into a scalar with one associative operator.

`s += e`, `s = s * e`, `s |= e`, `s = fmax(s, e)`, `s = e < s ? e : s` and
`if (e > s) s = e;` (with optional extra `&&` conditions that do not read `s`) are recognised;
`e` must not mention `s`. Whether the scalar is a reduction of a loop also needs that it is not
used anywhere else in the body, which the dependence rules check.

`if (d < best) { best = d; at = i; }` is a best update (`match_best_update`): an argmin.

An array element updated in place (`h[k]++`, `h[k] += e`, neither `k` nor `e` mentioning `h`)
is a reduction statement on the array `h`: a histogram, when every iteration may hit any bin.

`a[i] = a[i - 1] + e` is a first-order recurrence (`match_recurrence`): a prefix sum; so are
the same one element further on, `a[i + 1] = a[i] + e` (a CSR row pointer built from counts), and
a prefix sum in place, `a[i] += a[i - 1]` (`e` the element's own value before the store).

`if (c) y[k++] = e;` (or `{ y[k] = e; z[k] = f; k++; }`) packs elements into `y` at a counter
(`match_pack`): a stream compaction, whose counter is a running sum of the iterations that
store.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from agents.analysis.model import BestUpdate
from agents.analysis.parse import canon, mentions, text, unwrap, walk

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
    if found in ("&&", "||") and any(
        n.type in ("assignment_expression", "update_expression") for n in walk(right)
    ):
        # `ok = ok && (b[i] = a[i]) > 0`: the loop skips the store once `ok` is false; each
        # thread's `ok` starts true again and stores on
        return None
    return (name, found) if found else None


def fold_term(statement: Node, name: str) -> Node | None:
    """The term an update of `name` folds in, where `match_reduction` reads one and the term
    alone decides the new value: `s += e`, `s *= e`, `s = s + e`, `s = e * s`, `s = max(s,
    e)`, `s = e < s ? e : s`, `if (e > s) s = e;` (one comparison: another condition would
    leave the term out of some iterations) all give `e`; a difference (`s -= e`) and a count
    (`s++`) none."""
    found = match_reduction(statement)
    if found is None or found[0] != name:
        return None
    if statement.type == "if_statement":
        condition = statement.child_by_field_name("condition")
        if condition is not None and condition.type == "condition_clause":
            condition = condition.child_by_field_name("value")
        if condition is None or len(_conjuncts(unwrap(condition))) != 1:
            return None
        compared = _comparison(name, unwrap(condition))
        if compared is None:
            return None
        return compared[2] if _is(compared[0], name) else compared[0]
    expr = unwrap(statement.named_children[0])
    if expr.type != "assignment_expression":
        return None
    right, operator = expr.child_by_field_name("right"), expr.child_by_field_name("operator")
    if right is None or operator is None or text(operator) == "-=":
        return None
    if text(operator) != "=":
        return right
    value = unwrap(right)
    if value.type == "binary_expression":
        left, other = value.child_by_field_name("left"), value.child_by_field_name("right")
        op = value.child_by_field_name("operator")
        if left is None or other is None or op is None or text(op) == "-":
            return None
        if _is(left, name):
            return other
        return left if _is(other, name) else None  # (`t + a + b`: no one term)
    if value.type == "call_expression":
        arguments = value.child_by_field_name("arguments")
        args = [a for a in arguments.named_children if a.type != "comment"] if arguments else []
        return next((a for a in args if not _is(a, name)), None)
    if value.type == "conditional_expression":
        condition = value.child_by_field_name("condition")
        compared = _comparison(name, unwrap(condition)) if condition is not None else None
        if compared is None:
            return None
        return compared[2] if _is(compared[0], name) else compared[0]
    return None


@dataclass(frozen=True)
class Recurrence:
    """A first-order recurrence over the loop variable `i`: `a[i] = a[i - 1] OP e` (or `e OP
    a[i - 1]`), OP `+` or `*`, `e` reading no element of `a` but `a[i]` itself (a prefix sum, a
    running product; `a[i] += a[i - 1]` in place, where `e` is `a[i]`); or the same a fixed
    number of elements on (`a[i + 1] = a[i] + e`, `offset` 1); optionally, at offset 0, with a
    first iteration of its own, `if (i == b) a[i] = e0; else a[i] = a[i - 1] OP e;`."""

    array: str
    op: str
    element: Node
    """The `a[i]` (`a[i + offset]`) the recurrence assigns."""
    term: Node
    """`e` (for `a[i] += a[i - 1]`, the element `a[i]` itself)."""
    first: tuple[Node, Node, Node] | None = None
    """For the `if` form: its condition clause, the bound `b` and `e0`."""
    offset: int = 0
    """The element assigned is `a[i + offset]`, the previous one `a[i + offset - 1]`: the value
    before the loop is `a[lower + offset - 1]` (`previous_of`)."""

    def index(self, var: str) -> str:
        """The assigned element's index as the access events spell it (`i`, `i + 1`)."""
        return shifted(var, self.offset)

    def previous(self, var: str) -> str:
        """The previous element's index as the access events spell it (`i - 1`, `i`)."""
        return shifted(var, self.offset - 1)


def shifted(var: str, offset: int) -> str:
    """`var`, `var + k` or `var - k` as canonical tokens."""
    if offset == 0:
        return var
    return f"{var} + {offset}" if offset > 0 else f"{var} - {-offset}"


def previous_of(array: str, lower: str, offset: int) -> str:
    """The element a recurrence at `offset` reads before its first iteration `lower`."""
    return f"{array}[{shifted(f'({lower})', offset - 1)}]"


def match_recurrence(statement: Node, var: str) -> Recurrence | None:
    """The recurrence `statement` is over loop variable `var`, else None."""
    if statement.type == "if_statement":
        return _first_recurrence(statement, var)
    if statement.type != "expression_statement" or statement.named_child_count != 1:
        return None
    expr = unwrap(statement.named_children[0])
    if expr.type == "assignment_expression":
        # `a[i] += a[i - 1]` (`*=`): `a[i] = a[i - 1] + a[i]`, the term the element's own value
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        operator = expr.child_by_field_name("operator")
        compound = {"+=": "+", "*=": "*"}.get(text(operator) if operator is not None else "")
        if compound is not None and left is not None and right is not None:
            offset = _offset_of(left, var)
            array = _element_of(left) if left.type == "subscript_expression" else None
            previous = unwrap(right)
            if (
                array is not None
                and offset is not None
                and previous.type == "subscript_expression"
                and _element_of(previous) == array
                and _index(previous) == shifted(var, offset - 1)
            ):
                return Recurrence(array, compound, left, left, offset=offset)
            return None
    assigned = _assigned_element(expr, var)
    if assigned is None:
        return None
    array, left, right, offset = assigned
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
            and _index(previous) == shifted(var, offset - 1)
            and _reads_only(term, array, shifted(var, offset))
        ):
            return Recurrence(array, text(op), left, term, offset=offset)
    return None


def _reads_only(term: Node, array: str, index: str) -> bool:
    """`term` names `array` only in its element `array[index]` (the iteration's own, read
    before the recurrence stores it)."""
    for node in _names_of(term, array):
        parent = node.parent
        if (
            parent is None
            or parent.type != "subscript_expression"
            or parent.child_by_field_name("argument") != node
            or _index(parent) != index
        ):
            return False
    return True


def _names_of(node: Node, name: str) -> list[Node]:
    found = [node] if node.type == "identifier" and text(node) == name else []
    for child in node.children:
        found += _names_of(child, name)
    return found


def _offset_of(element: Node, var: str) -> int | None:
    """k when `element` is `a[var + k]` (`a[var]`, `a[var - 1]`), else None."""
    index = _index(element) if element.type == "subscript_expression" else None
    if index is None:
        return None
    if index == var:
        return 0
    for sign, spelled in ((1, f"{var} + "), (-1, f"{var} - ")):
        if index.startswith(spelled) and index[len(spelled) :].isdigit():
            return sign * int(index[len(spelled) :])
    return None


def _store(expr: Node) -> tuple[Node, Node] | None:
    """(the element, the value) when `expr` is `a[...] = value`, a plain assignment."""
    if expr.type != "assignment_expression":
        return None
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    operator = expr.child_by_field_name("operator")
    if left is None or right is None or operator is None or text(operator) != "=":
        return None
    return (left, right) if left.type == "subscript_expression" else None


def _assigned_element(expr: Node, var: str) -> tuple[str, Node, Node, int] | None:
    """(a, the element, the value, k) when `expr` is `a[var + k] = value`."""
    stored = _store(expr)
    if stored is None:
        return None
    left, right = stored
    array = _element_of(left)
    offset = _offset_of(left, var)
    if array is None or offset is None:
        return None
    return array, left, right, offset


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
    if first.named_child_count != 1 or recurrence.offset != 0:
        return None  # an empty statement, `;`; a recurrence further on
    assigned = _assigned_element(unwrap(first.named_children[0]), var)
    if (
        assigned is None
        or assigned[0] != recurrence.array
        or assigned[3] != 0
        or mentions(assigned[2], assigned[0])
    ):
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
        return _chain(name, value)
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


def _chain(name: str, value: Node) -> str | None:
    """The operator of `name OP e1 OP e2 ...` written without parentheses (`t = t + x[i] +
    1`, `p = p * a[i] * b[i]`, `s = s + a[i] - b[i]`): `name` the leftmost operand of one
    associative operator (`+` with `-`), no other operand mentioning it."""
    found: str | None = None
    node = value
    while node.type == "binary_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        if left is None or right is None or operator is None:
            return None
        op = _BINARY.get(text(operator))
        if op is None or op in ("&&", "||") or (found is not None and op != found):
            return None
        if mentions(right, name):
            return None
        found, node = op, left
    return found if _is(node, name) and found is not None and node is not value else None


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


@dataclass(frozen=True)
class Pack:
    """A compaction's one store site in a statement of a loop's body: the counter `k`'s only
    increment (by one), after stores `y[k] = e;` of one or more arrays in the same block
    (`{ y[k] = e; k++; }`), or inside the store (`y[k++] = e;`), under `if`s but no loop
    and no other mention of `k`. Iterations that store take consecutive values of `k`, so
    no two store the same element: a running sum (`k`'s) whose exclusive prefix at each
    iteration is where it stores."""

    counter: str
    arrays: tuple[str, ...]
    """The arrays packed into, in the order they are stored."""
    counting: tuple[tuple[int, int, str], ...]
    """Edits (source byte offsets) that leave the statement counting only: each store removed,
    `y[k++] = e;` become `k++;` (a blocked scan's first pass)."""


_INCREMENTS = {"++ {k}", "{k} ++", "{k} += 1", "{k} = {k} + 1", "{k} = 1 + {k}"}


def match_pack(statement: Node, counter: str) -> Pack | None:
    """The compaction `statement` (a statement of the loop's body) makes with `counter`, else
    None (see `Pack`). Every mention of the counter in it must belong to the one site (a
    mention in a stored value or a condition belongs to none)."""
    increments = {form.format(k=counter) for form in _INCREMENTS}
    mentions_ = [n for n in walk(statement) if n.type == "identifier" and text(n) == counter]
    if not mentions_:
        return None
    sites = {_store_site(n, counter, increments) for n in mentions_}
    if None in sites or len(sites) != 1:
        return None  # a mention outside a store site, or two sites
    site = sites.pop()
    assert site is not None
    group, arrays, counting = site
    if not _reached_straight(group[0], statement):
        return None
    return Pack(counter, arrays, counting)


def counting_only(statement: Node, pack: Pack) -> str:
    """`statement`'s text with its stores removed (`Pack.counting`): it only counts."""
    raw = statement.text or b""
    for start, end, new in sorted(pack.counting, reverse=True):
        a, b = start - statement.start_byte, end - statement.start_byte
        raw = raw[:a] + new.encode() + raw[b:]
    return raw.decode()


def _store_site(
    name: Node, counter: str, increments: set[str]
) -> tuple[tuple[Node, ...], tuple[str, ...], tuple[tuple[int, int, str], ...]] | None:
    """(the site's statements, the arrays stored, the counting edits) of the store site a
    mention of the counter belongs to, else None. Sites compare equal by their statements."""
    statement = name
    while statement.parent is not None and statement.type != "expression_statement":
        statement = statement.parent
    if statement.type != "expression_statement" or statement.named_child_count != 1:
        return None
    expr = unwrap(statement.named_children[0])
    packed = _stored_at(expr, counter, postfix=True)
    if packed is not None:  # `y[k++] = e;`
        return (
            (statement,),
            (packed,),
            ((statement.start_byte, statement.end_byte, f"{counter}++;"),),
        )
    block = statement.parent
    if block is None or block.type != "compound_statement":
        return None
    siblings = [c for c in block.named_children if c.type != "comment"]
    at = siblings.index(statement)
    if canon(expr) in increments:
        end = at
    elif _stored_at(expr, counter, postfix=False) is not None:
        after = (j for j in range(at + 1, len(siblings)) if not _is_store(siblings[j], counter))
        found = next(after, None)
        if found is None:
            return None
        end = found
    else:
        return None
    last = siblings[end]
    if last.named_child_count != 1 or canon(unwrap(last.named_children[0])) not in increments:
        return None
    start = end
    while start > 0 and _is_store(siblings[start - 1], counter):
        start -= 1
    if start == end:
        return None  # an increment with no store before it
    stores = siblings[start:end]
    arrays = tuple(
        _stored_at(unwrap(s.named_children[0]), counter, postfix=False) or "" for s in stores
    )
    if len(set(arrays)) != len(arrays):
        return None  # one array stored twice at `k`: the second store wins, as a race would
    counting = tuple((s.start_byte, s.end_byte, ";") for s in stores)
    return (*stores, last), arrays, counting


def _is_store(statement: Node, counter: str) -> bool:
    return (
        statement.type == "expression_statement"
        and statement.named_child_count == 1
        and _stored_at(unwrap(statement.named_children[0]), counter, postfix=False) is not None
    )


def _stored_at(expr: Node, counter: str, postfix: bool) -> str | None:
    """`y` when `expr` is `y[k] = e` (`postfix`: `y[k++] = e`), `e` free of `k` and `y`."""
    stored = _store(expr)
    if stored is None:
        return None
    left, right = stored
    base = left.child_by_field_name("argument")
    if base is None or unwrap(base).type != "identifier" or _index(left) is None:
        return None
    array = text(unwrap(base))
    if array == counter or mentions(right, {counter, array}):
        return None
    return array if _index(left) == (f"{counter} ++" if postfix else counter) else None


def _reached_straight(node: Node, statement: Node) -> bool:
    """Whether `node` runs at most once per run of `statement` that holds it: only blocks and
    the branches of `if`s lie between them (no loop, no `switch`, not an `if`'s condition)."""
    while node != statement:
        parent = node.parent
        if parent is None:
            return False
        if parent.type == "if_statement":
            if node not in (
                parent.child_by_field_name("consequence"),
                parent.child_by_field_name("alternative"),
            ):
                return False
        elif parent.type not in ("compound_statement", "else_clause"):
            return False
        node = parent
    return True
