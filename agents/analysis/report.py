"""What the analysis says about each loop, in the words a user (or a target's tool) reads: its
pattern, whether it may run in parallel, the OpenMP clauses the annotator would use, what the
verdict assumes, and per array the elements it reads and writes (pure: no I/O).

`parforge analyse` prints it; the agent's `analyse` tool reads its reductions the same way.

The ranges of the elements are those of affine subscripts (`x[2 * i + 1]`) over the headers of
the loop and of the loops inside it, whose variables run from `lower` to `upper`: `x[i + 1]`
for `0 <= i < n` reads [1, n]. The variables of the loops around it stay symbols (they do not
change while it runs); anything else (`x[idx[i]]`, `a[i * n + j]` with a symbolic `n`, a
range-based loop) is "unknown".
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Literal

from agents.analysis.annotate import LoopChoice, default_choices, directive
from agents.analysis.model import PACKED_CHUNK, Access, Dependence, Loop, Program

PatternKind = Literal[
    "independent",
    "reduction",
    "scan",
    "search",
    "histogram",
    "argmin",
    "argmax",
    "stencil",
    "carried",
    "unknown",
]

UNKNOWN: Literal["unknown"] = "unknown"

Range = tuple[str, str] | Literal["unknown"]
"""The first and the last element a subscript reaches (inclusive), or "unknown"."""


@dataclass(frozen=True)
class Subscript:
    """One access to an array: its subscripts, outermost first, and each one's range."""

    index: tuple[str, ...]
    ranges: tuple[Range, ...]


@dataclass(frozen=True)
class ArrayAccesses:
    """What a loop does to one array (its own iterations and those of the loops inside it)."""

    reads: tuple[Subscript, ...]
    writes: tuple[Subscript, ...]


@dataclass(frozen=True)
class LoopReport:
    """One loop as `parforge analyse` shows it."""

    id: str
    function: str
    line: int
    depth: int
    kind: PatternKind
    parallelisable: bool
    """Whether an annotation can parallelise it (as it is, as a search or as a blocked scan)."""
    chosen: bool
    """Whether the annotator's default choices parallelise it (the outermost loops)."""
    clauses: tuple[str, ...]
    """The clauses of the `#pragma omp parallel for` it would get (none if not parallelisable)."""
    reductions: tuple[str, ...]
    reason: str
    assumptions: tuple[str, ...]
    accesses: dict[str, ArrayAccesses]
    directive: int | None = None
    """The line of the program's own directive on the loop (or of an OpenMP construct around
    it), which the annotator leaves as written (then `parallelisable` is false)."""


@dataclass(frozen=True)
class Report:
    """The loops of a program (or of one function), in source order."""

    language: str
    loops: tuple[LoopReport, ...]


def reduction_tags(dep: Dependence) -> list[str]:
    """The loop's combining updates as short tags: `+:s`, `+:bins[:256]` (a histogram),
    `min-loc:best,at` (an argmin), `scan:+:acc` (a running value)."""
    return (
        [f"{r.op}:{r.var}" for r in dep.reductions]
        + [f"{a.op}:{a.var}[:{a.length}]" for a in dep.array_reductions]
        + [f"{u.keeps}-loc:{','.join((u.best, *u.others))}" for u in dep.best_updates]
        + ([f"scan:{dep.scan.op}:{dep.scan.var}"] if dep.scan is not None else [])
    )


def report(program: Program, function: str | None = None) -> Report:
    """The report on every loop of `program`, or of one function's loops."""
    loops = [loop for loop in program.loops if function is None or loop.function == function]
    annotatable = [loop for loop in loops if _annotatable(loop)]
    chosen = {choice.loop for choice in default_choices(annotatable)}
    return Report(
        language=program.language.value,
        loops=tuple(_loop_report(loop, program, loop.id in chosen) for loop in loops),
    )


def _annotatable(loop: Loop) -> bool:
    return (
        loop.canonical
        and loop.dependence.annotatable
        and loop.directive is None
        and loop.openmp_form is None
    )


def _loop_report(loop: Loop, program: Program, chosen: bool) -> LoopReport:
    inner = [other for other in program.loops if loop.id in other.ancestors]
    bounds: dict[str, tuple[Affine, Affine] | None] = {}
    for each in (loop, *inner):
        if each.var is not None:
            found = None if each.range_over else _bounds(each)
            # Two loops inside it counting the same name over different bounds: no one range.
            bounds[each.var] = found if bounds.get(each.var, found) == found else None
    # Names a range may keep: read by the loop (not declared in it) or in its header, and
    # assigned by no iteration, so that they keep one value while it runs.
    header = {name for text in (loop.lower, loop.upper) for name in affine(text or "0") or {}}
    written = {a.name for a in loop.writes}
    fixed = ({a.name for a in loop.reads} | header) - written
    accesses = {
        name: ArrayAccesses(
            reads=_subscripts(loop.reads, name, bounds, fixed),
            writes=_subscripts(loop.writes, name, bounds, fixed),
        )
        for name in dict.fromkeys(a.name for a in (*loop.reads, *loop.writes) if a.is_array)
    }
    return LoopReport(
        id=loop.id,
        function=loop.function,
        line=loop.line,
        depth=loop.depth,
        kind=pattern(loop, [each.var for each in (loop, *inner) if each.var]),
        parallelisable=_annotatable(loop),
        chosen=chosen,
        clauses=clauses(loop),
        reductions=tuple(reduction_tags(loop.dependence)),
        reason=(
            f"{loop.dependence.reason}; no OpenMP directive: {loop.openmp_form}"
            if loop.openmp_form is not None
            else loop.dependence.reason
        ),
        assumptions=loop.dependence.assumptions,
        accesses=accesses,
        directive=loop.directive,
    )


def pattern(loop: Loop, variables: list[str]) -> PatternKind:
    """The loop's pattern from its verdict; `variables` are those of it and the loops inside
    it, whose neighbours (`u[i - 1]`) an independent loop reading a stencil reads."""
    dep = loop.dependence
    if dep.first_match:
        return "search"
    if dep.scan is not None:
        return "scan"
    if dep.best_updates:
        return "argmin" if dep.best_updates[0].keeps == "min" else "argmax"
    if dep.array_reductions:
        return "histogram"
    if dep.reductions and dep.kind == "reduction":
        return "reduction"
    if dep.kind == "independent":
        written = {a.name for a in loop.writes}
        read = [a for a in loop.reads if a.is_array and a.name not in written]
        return "stencil" if _neighbours(read, variables) else "independent"
    return dep.kind


def _neighbours(reads: list[Access], variables: list[str]) -> bool:
    """Whether some subscript is `i + c` or `i - c` (c a non-zero integer) for a loop variable
    `i`, or two of an array's elements differ by an offset in no loop variable (`u[(i - 1) * n
    + j]` and `u[i * n + j]`, a row apart)."""
    forms: dict[tuple[str, int], list[Affine]] = {}
    for access in reads:
        for dimension, index in enumerate(access.indices):
            form = polynomial(index)
            if form is None:
                continue
            terms = [name for name, c in form.items() if name and c]
            if terms in ([v] for v in variables) and form[terms[0]] == 1 and form.get("", 0):
                return True
            forms.setdefault((access.name, dimension), []).append(form)
    for each in forms.values():
        for a, b in itertools.combinations(each, 2):
            offset = {name: c for name, c in _add(a, b, -1).items() if c}
            if any(_steps(offset, _coefficient(a, v)) for v in variables):
                return True
    return False


def _coefficient(form: Affine, var: str) -> Affine:
    """What `var` is multiplied by in a linear term of `form` (`i * n + j`, i: {"n": 1})."""
    found: Affine = {}
    for name, c in form.items():
        names = name.split("*")
        if names.count(var) == 1:
            rest = "*".join(n for n in names if n != var)
            found[rest] = found.get(rest, 0) + c
    return {name: c for name, c in found.items() if c}


def _steps(offset: Affine, step: Affine) -> bool:
    """Whether `offset` is a non-zero whole number of `step`s (the variable's neighbours)."""
    if not offset or set(offset) != set(step):
        return False
    ratios = {(offset[name] // step[name], offset[name] % step[name]) for name in step}
    return len(ratios) == 1 and next(iter(ratios))[1] == 0


def clauses(loop: Loop) -> tuple[str, ...]:
    """The clauses of the directive the annotator writes for the loop by default (a first-match
    search keeps its first index in `first_<var>`); none for a loop it cannot parallelise."""
    if not _annotatable(loop):
        return ()
    choice = LoopChoice(loop=loop.id, chunk=PACKED_CHUNK if loop.dependence.packed else None)
    first = f"first_{loop.var}" if loop.dependence.first_match else ""
    words = directive(loop, choice, first=first).removeprefix("#pragma omp parallel for")
    return tuple(re.findall(r"\w+\([^()]*(?:\([^()]*\)[^()]*)*\)", words))


# Affine subscripts -----------------------------------------------------------------------

Affine = dict[str, int]
"""A linear form: coefficient per name; the constant term under ""."""

_TOKEN = re.compile(
    r"\s*(\d+[uUlL]*|[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*(?:\s*\(\s*\))?|\S)"
)


def affine(text: str) -> Affine | None:
    """The linear form of an expression of integers, names, +, -, * and parentheses, where
    each product has an integer side; None for anything else. A member or a call with no
    arguments (`x.size()`) is one name."""
    form = polynomial(text)
    return form if form is not None and not any("*" in name for name in form) else None


def polynomial(text: str) -> Affine | None:
    """The expression as a sum of monomials (`i * n + j - n`: {"i*n": 1, "j": 1, "n": -1,
    "": 0}), names in a product sorted and joined by `*`; None for anything but integers,
    names, +, -, * and parentheses."""
    tokens = [t for t in _TOKEN.findall(text) if t]
    if "".join(tokens) != re.sub(r"\s", "", text):
        return None
    parser = _Parser([re.sub(r"\s", "", t) for t in tokens])
    form = parser.sum()
    return form if form is not None and parser.at == len(parser.tokens) else None


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.at = tokens, 0

    def peek(self) -> str:
        return self.tokens[self.at] if self.at < len(self.tokens) else ""

    def sum(self) -> Affine | None:
        form = self.product()
        while form is not None and self.peek() in ("+", "-"):
            sign = 1 if self.tokens[self.at] == "+" else -1
            self.at += 1
            term = self.product()
            form = None if term is None else _add(form, term, sign)
        return form

    def product(self) -> Affine | None:
        form = self.unary()
        while form is not None and self.peek() == "*":
            self.at += 1
            other = self.unary()
            if other is None:
                return None
            product: Affine = {}
            for a, c in form.items():
                for b, k in other.items():
                    name = "*".join(sorted(n for n in (*a.split("*"), *b.split("*")) if n))
                    product[name] = product.get(name, 0) + c * k
            form = _add({"": 0}, product)
        return form

    def unary(self) -> Affine | None:
        token = self.peek()
        self.at += 1
        if token in ("-", "+"):
            form = self.unary()
            return (
                None
                if form is None
                else {n: c * (-1 if token == "-" else 1) for n, c in form.items()}
            )
        if token == "(":
            form = self.sum()
            if self.peek() != ")":
                return None
            self.at += 1
            return form
        if token[:1].isdigit():
            return {"": int(token.rstrip("uUlL"))}
        if token[:1].isalpha() or token[:1] == "_":
            return {token: 1}
        return None


def _add(a: Affine, b: Affine, sign: int = 1) -> Affine:
    out = dict(a)
    for name, c in b.items():
        out[name] = out.get(name, 0) + sign * c
    return {name: c for name, c in out.items() if c or name == ""}


def _bounds(loop: Loop) -> tuple[Affine, Affine] | None:
    """The first and last values the loop's variable takes, as linear forms (None: unknown)."""
    lower = affine(loop.lower) if loop.lower is not None else None
    upper = affine(loop.upper) if loop.upper is not None else None
    if not loop.canonical or lower is None or upper is None or loop.stride is None:
        return None
    step, test = loop.stride, loop.test
    if step > 0 and test in ("<", "<=", "!="):
        return lower, upper if test == "<=" else _add(upper, {"": -1})
    if step < 0 and test in (">", ">=", "!="):
        return (upper if test == ">=" else _add(upper, {"": 1})), lower
    return None


def _subscripts(
    accesses: tuple[Access, ...],
    name: str,
    bounds: dict[str, tuple[Affine, Affine] | None],
    fixed: set[str],
) -> tuple[Subscript, ...]:
    return tuple(
        Subscript(a.indices, tuple(_range(index, bounds, fixed) for index in a.indices))
        for a in accesses
        if a.name == name and a.is_array
    )


def _range(index: str, bounds: dict[str, tuple[Affine, Affine] | None], fixed: set[str]) -> Range:
    """The subscript's smallest and largest value over the loops' variables: each variable,
    innermost first, replaced by the bound that makes its term smallest (largest), so that a
    triangular nest (`j` from `i + 1`) is exact too. Every other name must be `fixed`."""
    form = affine(index)
    if form is None:
        return UNKNOWN
    low, high = form, form
    # Inner loops come after this one in `bounds`: eliminate them first.
    for var in reversed(list(bounds)):
        limits = bounds[var]
        if var not in low and var not in high:
            continue
        if limits is None:
            return UNKNOWN
        low, high = _substitute(low, var, limits, False), _substitute(high, var, limits, True)
    names = {re.split(r"\.|->|\(", name)[0] for name in (*low, *high) if name}
    if not names <= fixed:
        return UNKNOWN
    return _render(low), _render(high)


def _substitute(form: Affine, var: str, limits: tuple[Affine, Affine], largest: bool) -> Affine:
    c = form.get(var, 0)
    if not c:
        return form
    rest = {name: k for name, k in form.items() if name != var}
    bound = limits[1] if (c > 0) == largest else limits[0]
    return _add(rest, {name: k * c for name, k in bound.items()})


def _render(form: Affine) -> str:
    text = ""
    for name, c in sorted(form.items(), key=lambda item: item[0] == ""):
        if not c and (name or text):
            continue
        size = abs(c)
        term = str(size) if not name else name if size == 1 else f"{size} * {name}"
        if not text:
            text = term if c >= 0 else f"-{term}"
        else:
            text += f" {'+' if c > 0 else '-'} {term}"
    return text or "0"
