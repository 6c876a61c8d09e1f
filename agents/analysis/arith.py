"""The arithmetic types a reduction computes in. `if (u[i] > m) m = u[i];` is a max of `m`
only when the comparison happens in `m`'s own type: with `unsigned u[]` and `int m`, C
compares in `unsigned`, and OpenMP's `max` (in `int`, from `INT_MIN`) picks another value.
`int s; s += x[i]` with `double x[]` rounds at every step, so its order matters. `mixed_types`
finds such statements from the declared types of the names they use (a name whose type is
not seen is not judged)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

from agents.analysis.declared import Declared
from agents.analysis.model import Dependence
from agents.analysis.parse import canon, declared_name, function_params, text, unwrap, walk
from agents.analysis.reductions import match_best_update, match_recurrence, match_reduction

_FLOATING = {"float": 1, "double": 2, "longdouble": 3}
_INTEGER_BITS = {
    "bool": 1, "_Bool": 1, "char": 8, "signedchar": 8, "short": 16, "int": 32, "signed": 32,
    "long": 64, "longlong": 64, "size_t": 64, "ssize_t": 64, "ptrdiff_t": 64, "intptr_t": 64,
}  # fmt: skip
_FIXED = re.compile(r"(?:std::)?(u?)int(8|16|32|64)_t")
_CONTAINER = re.compile(r"(?:std::)?(?:vector|array|valarray|deque|span)<(.*)>")


@dataclass(frozen=True)
class Arith:
    """An arithmetic type: floating (rank 1-3) or an integer of `bits` bits."""

    floating: int = 0
    bits: int = 0
    unsigned: bool = False

    def promoted(self) -> Arith:
        """After the integer promotions (narrower than `int` becomes `int`)."""
        if self.floating or self.bits >= 32:
            return self
        return Arith(bits=32)


def arith(type_text: str, known: Declared) -> Arith | None:
    """The arithmetic type a type's text (spaces removed) names, through aliases and, for a
    container, its element type; None for anything else."""
    shown = known.resolve(type_text)
    for word in ("const", "volatile", "static", "struct", "register", "inline"):
        shown = re.sub(rf"(?<![A-Za-z0-9_]){word}(?![A-Za-z0-9_])", "", shown)
    shown = shown.removeprefix("std::")
    inner = _CONTAINER.fullmatch(shown)
    if inner:
        return arith(inner.group(1).split(",")[0], known)
    if shown in _FLOATING:
        return Arith(floating=_FLOATING[shown])
    fixed = _FIXED.fullmatch(shown)
    if fixed:
        return Arith(bits=int(fixed.group(2)), unsigned=fixed.group(1) == "u")
    if shown in ("size_t", "uintptr_t"):
        return Arith(bits=64, unsigned=True)
    unsigned = shown.startswith("unsigned")
    rest = shown.removeprefix("unsigned").removeprefix("signed").removesuffix("int") or "int"
    if shown in ("unsigned", "signed"):
        rest = "int"
    if rest in _INTEGER_BITS:
        return Arith(bits=_INTEGER_BITS[rest], unsigned=unsigned)
    return None


def common(a: Arith, b: Arith) -> Arith:
    """The type C's usual arithmetic conversions compute `a OP b` in (LP64)."""
    a, b = a.promoted(), b.promoted()
    if a.floating or b.floating:
        return a if a.floating >= b.floating else b
    if a.unsigned == b.unsigned:
        return a if a.bits >= b.bits else b
    unsigned, signed = (a, b) if a.unsigned else (b, a)
    if unsigned.bits >= signed.bits:
        return unsigned
    return signed


def declared_types(root: Node, definition: Node, known: Declared) -> dict[str, Arith]:
    """Name → arithmetic (element) type: the file's variables and struct members, then the
    function's parameters and declarations (which shadow them)."""
    found: dict[str, Arith] = {}
    body = definition.child_by_field_name("body")
    nodes = [n for n in root.children if n.type == "declaration"]
    nodes += [n for n in walk(root) if n.type == "field_declaration"]
    nodes += [p for _, p in function_params(definition)]
    nodes += [n for n in walk(body) if n.type == "declaration"] if body is not None else []
    for node in nodes:
        type_node = node.child_by_field_name("type")
        if type_node is None:
            continue
        kind = arith(canon(type_node).replace(" ", ""), known)
        for declarator in node.children_by_field_name("declarator"):
            name = declared_name(declarator)
            if name is None:
                continue
            if kind is None:
                found.pop(name, None)
            else:
                found[name] = kind
    return found


def mixed_types(
    body: Node, verdict: Dependence, types: dict[str, Arith], var: str | None = None
) -> Dependence | None:
    """An unknown verdict when a reduction, argmin/argmax or scan of `verdict` computes in
    another type than its variable: a min/max whose comparison converts the variable (`int m`
    against `unsigned`), an integer sum or product of floating-point terms (also a running
    value's, or a recurrence's into an integer array: `a[i] = a[i - 1] + b[i] / 128.0` rounds
    at every step), a `bool` that sums (it saturates), or a compaction's counter narrower than
    the loop it counts (`unsigned char k` wraps, two stores land on one element). `var`: the
    loop's counter, which a recurrence is over."""
    folded = {r.var: r.op for r in verdict.reductions}
    best = {b.best for b in verdict.best_updates}
    problems: list[str] = []
    scan = verdict.scan
    if scan is not None and not scan.recurrence and not scan.packs:
        folded[scan.var] = scan.op
    if scan is not None and scan.var in types:
        mine = types[scan.var]
        if mine.bits == 1 and scan.op in ("+", "*"):
            problems.append(f"{scan.var} is a bool: each step saturates, so the order matters")
        if scan.packs and (
            mine.floating
            or mine.bits < 32
            or (
                mine.unsigned
                and mine.bits < 64
                and (var not in types or types[var].bits > mine.bits)
            )
        ):
            problems.append(
                f"{scan.var} counts in a type narrower than the loop it counts: it may wrap and "
                "two iterations store the same element"
            )
    if scan is not None and scan.recurrence and scan.var in types and var is not None:
        for node in walk(body):
            matched = match_recurrence(node, var) if node.type in _STATEMENTS else None
            if matched is None or matched.array != scan.var:
                continue
            parts = [matched.term, *([matched.first[2]] if matched.first else [])]
            for part in parts:
                problems += _judge(scan.var, scan.op, part, types)
    for node in walk(body):
        found = (
            match_reduction(node) if node.type in ("expression_statement", "if_statement") else None
        )
        if found is not None and found[0] in folded and found[0] in types:
            name, op = found[0], folded[found[0]]
            problems += _judge(name, op, node, types)
        if node.type == "if_statement" and best:
            update = match_best_update(node)
            if update is not None and update[0].best in best and update[0].best in types:
                condition = node.child_by_field_name("condition")
                for test in walk(condition) if condition is not None else ():
                    # The comparison itself: both of its sides are what `best` is compared with.
                    if test.type == "binary_expression" and text(test.children[1]) in _ORDER:
                        for side in test.named_children:
                            problems += _judge(update[0].best, update[0].keeps, side, types)
    if not problems:
        return None
    return Dependence(kind="unknown", reason="; ".join(dict.fromkeys(problems)))


_STATEMENTS = frozenset({"expression_statement", "if_statement"})


def _judge(name: str, op: str, statement: Node, types: dict[str, Arith]) -> list[str]:
    mine = types[name]
    operands = list(_operand_types(statement, name, types))
    if op in ("min", "max"):
        for shown, kind in operands:
            if common(mine, kind) != mine.promoted():
                return [
                    f"{name} keeps the {op} of values it is compared with in another type "
                    f"({shown}): OpenMP's {op} reduction works in {name}'s own type"
                ]
            if not mine.floating and mine.bits < 32 and not _fits(kind, mine):
                # compared after the integer promotions, then stored narrowed: `short m;
                # if (x[i] > m) m = x[i];` with `int x[]` keeps a wrapped value, no maximum
                return [
                    f"{name} keeps the {op} of values ({shown}) it may not hold: each is "
                    f"compared as it is and stored wrapped into {name}'s narrower type"
                ]
    elif op in ("+", "*") and not mine.floating:
        for shown, kind in operands:
            if kind.floating:
                return [
                    f"{name} is an integer accumulating floating-point terms ({shown}): each "
                    "step rounds, so the order of the terms matters"
                ]
    return []


def _fits(kind: Arith, into: Arith) -> bool:
    """Whether every value of integer type `kind` is a value of integer type `into`."""
    if kind.floating or into.floating:
        return False
    if kind.unsigned == into.unsigned:
        return kind.bits <= into.bits
    return kind.unsigned and kind.bits < into.bits


def _operand_types(node: Node, name: str, types: dict[str, Arith]) -> Iterator[tuple[str, Arith]]:
    """(shown, type) of what `node` computes with, other than `name`: variables and members
    of a known type, literals, casts (as their target type); never inside a subscript's index
    or a call's callee."""
    node = unwrap(node)
    if node.type == "number_literal":
        literal = text(node).lower().replace("'", "")
        if not literal.startswith("0x") and any(c in literal for c in ".e"):
            yield text(node), Arith(floating=1 if literal.endswith("f") else 2)
        elif "u" in literal:
            yield text(node), Arith(bits=64 if "l" in literal else 32, unsigned=True)
        return
    if node.type == "cast_expression":
        target = node.child_by_field_name("type")
        kind = arith(canon(target).replace(" ", ""), _NO_ALIASES) if target is not None else None
        if kind is not None:
            yield text(node), kind
        return
    if node.type == "identifier":
        if text(node) != name and text(node) in types:
            yield text(node), types[text(node)]
        return
    if node.type == "field_expression":
        member = node.child_by_field_name("field")
        if member is not None and text(member) in types:
            yield text(node), types[text(member)]
        return
    if node.type == "subscript_expression":
        base = node.child_by_field_name("argument")
        while base is not None and unwrap(base).type == "subscript_expression":
            base = unwrap(base).child_by_field_name("argument")
        if base is not None:
            yield from _operand_types(base, name, types)
        return
    if node.type == "call_expression":
        callee = node.child_by_field_name("function")
        called = text(callee).replace(" ", "").removeprefix("std::") if callee else ""
        if called in _KEEPS_TYPE:
            arguments = node.child_by_field_name("arguments")
            for argument in arguments.named_children if arguments is not None else []:
                yield from _operand_types(argument, name, types)
        elif called in _GIVES_DOUBLE:
            yield text(node), Arith(floating=2)
        return  # another function's result type is not judged
    if node.type == "binary_expression" and text(node.children[1]) in _TRUTH:
        return  # a comparison gives an int whatever it compares
    if node.type == "conditional_expression":
        for part in ("consequence", "alternative"):
            branch = node.child_by_field_name(part)
            if branch is not None:
                yield from _operand_types(branch, name, types)
        return
    for child in node.named_children:
        yield from _operand_types(child, name, types)


_NO_ALIASES = Declared()
_ORDER = frozenset({"<", ">", "<=", ">="})
_TRUTH = frozenset({"<", ">", "<=", ">=", "==", "!=", "&&", "||"})
_KEEPS_TYPE = frozenset({"abs", "labs", "llabs", "fabs", "fabsf", "min", "max", "fmin", "fmax"})
_GIVES_DOUBLE = frozenset(
    {"sqrt", "exp", "log", "log2", "log10", "pow", "sin", "cos", "tan", "atan", "atan2", "floor"}
    | {"ceil", "round", "trunc", "hypot", "cbrt", "erf", "tanh", "sinh", "cosh", "asin", "acos"}
)
