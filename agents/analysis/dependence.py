"""Dependence verdicts for one canonical loop, from the facts its body yields.

Conservative by design: a loop is "independent" only when every rule below has positive
evidence; anything the rules cannot see through is "unknown" or "carried" with the reason.
"""

from __future__ import annotations

import ast
import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from tree_sitter import Node

from agents.analysis.accesses import AccessEvent, BodyFacts
from agents.analysis.loops import in_row
from agents.analysis.model import (
    PACKED_CHUNK,
    ArrayReduction,
    BestUpdate,
    Dependence,
    Reduction,
    ReductionOp,
    Scan,
)
from agents.analysis.parse import (
    JUMPS,
    canon,
    declared_name,
    identifiers,
    mentions,
    parse_int,
    text,
    unwrap,
    walk,
)
from agents.analysis.purity import is_pure
from agents.analysis.reductions import match_pack, match_recurrence, shifted
from agents.analysis.values import resolved, value_names, widened


@dataclass(frozen=True)
class Scope:
    """What the rules need to know about the code around the loop."""

    pure_functions: frozenset[str] = frozenset()
    defined_functions: frozenset[str] = frozenset()
    """Every name the program defines a function or method under (library names it shadows
    are not trusted as the library's)."""
    used_after: frozenset[str] = frozenset()
    """Names the function may read after the loop ends: later in its body, or anywhere else in
    a loop around this one (the next iteration of that loop comes after this loop too)."""
    own: frozenset[str] = frozenset()
    """Variables whose values end with the function: by-value parameters and its declarations
    that are neither references nor `static`. Any other name (a global, a reference or pointer
    parameter's target) may be read by the caller, so its last value matters."""
    scalars: frozenset[str] = frozenset()
    """Of `own`, the variables of an arithmetic or pointer type (what `lastprivate(conditional:)`
    accepts)."""
    pointer_params: tuple[tuple[str, str], ...] = ()
    """(name, element type) of the function's pointer and array parameters."""
    arrays: tuple[tuple[str, str, str, bool, bool], ...] = ()
    """(name, element type, length, is a container, the length is known only at run time) of
    the arrays whose length the function's parameters or declarations give: what an array
    reduction needs."""
    packed: frozenset[str] = frozenset()
    """Names of `std::vector<bool>`s: their elements are bits that share words."""
    packed_rows: frozenset[str] = frozenset()
    """Of `packed`, containers of them (`std::vector<std::vector<bool>>`): different elements
    of the outer container are different objects, with words of their own."""
    maps: frozenset[str] = frozenset()
    """Names of `std::map`s and `std::unordered_map`s: `m[k]` inserts a missing key."""
    integers: frozenset[str] = frozenset()
    """Variables the function declares with an integer type only: their `+` and `*` reductions
    give the sequential result in any order (every other type may be floating-point)."""
    addressed: frozenset[str] = frozenset()
    """Names whose address the function takes (`&s`): a pointer may reach them."""
    objects: frozenset[str] = frozenset()
    """Variables the function declares with a class type (`std::string`, `std::complex<T>`):
    OpenMP's built-in reductions take arithmetic variables only."""
    aliases: tuple[tuple[str, str], ...] = ()
    """(name, kind) of what may share memory with another name: pointer and array parameters
    ("pointer", "grid"), local pointers (`double *p = a + 1`, "local pointer"), references to
    containers ("container": the caller may pass one object twice; "alias container": a local
    reference), and the function's own storage ("local array", "local container"), into which
    no parameter points."""
    contiguous: frozenset[str] = frozenset()
    """Names of containers of numbers whose elements lie in one block, `data()` to `data() +
    size()` (`std::vector` but of `bool`, `std::array`, `std::string`), by value or by
    reference: all the storage they hold."""
    reference_params: frozenset[str] = frozenset()
    """Parameters that are references (`const int &n`): bound before the call, so never to
    the function's own storage."""
    number_references: frozenset[str] = frozenset()
    """Names every declaration of which is a reference to a number (`const double &a`)."""


def dependence(
    var: str,
    facts: BodyFacts,
    scope: Scope,
    range_for: bool = False,
    written_through: str | None = None,
    repeatable: bool = False,
    scannable: bool | None = None,
    cpp: bool = True,
    statements: Sequence[Node] = (),
    lower: str | None = None,
    stride: int | None = None,
    counters: Sequence[tuple[str, tuple[str, str]]] = (),
) -> Dependence:
    """The verdict on the iterations of a canonical loop with induction variable `var`.

    For a range-based for loop (`range_for`) `var` is the element: a value, never an index that
    keeps subscripts apart. `written_through` names the container when the body writes its
    elements through a reference `var` (each iteration its own element). `repeatable` says the
    header suits the rewrites that run the loop twice, a first-match search and a blocked scan
    (the loop declares `var` and counts it up to a bound); `scannable` (by default
    `repeatable`), that it suits a blocked scan (also up to an inclusive bound, `i <= n`, which
    a search's "none found" at the bound does not suit); `cpp`, that the program is C++:
    in C a scan has no `std::numeric_limits` to start a `min` or `max` from, so only scans with
    `+` and `*` are rewritten there (a search says "none found" with the loop's bound). `statements`: the
    statements of the body's block, where a scan's phases part; `lower`: the loop's first
    value of `var` (source text), which a recurrence may treat apart; `stride`: what each
    iteration adds to `var` (a recurrence on `var - 1` needs 1); `counters`: (counter,
    (lower, upper)) of this loop and the loops in its body that count up by one to a bound,
    outermost first, which bound the subscripts mentioning them.
    """
    exits = [f"early exit: {exit_}" for exit_ in facts.exits]
    carried: list[str] = []
    unknown: list[str] = []
    impure = list(
        dict.fromkeys(
            c for c in facts.calls if not is_pure(c, scope.pure_functions, scope.defined_functions)
        )
    )
    unknown += [f"calls {call}, which may have side effects" for call in impure]
    unknown += [f"writes through a pointer ({w})" for w in facts.pointer_writes]
    unknown += [f"the parser could not read line {n}" for n in dict.fromkeys(facts.unreadable)]
    everything = [e for e in facts.events if e.name != var and e.name not in facts.locals]
    unknown += [
        f"subscripts {name}, a map, whose [] inserts a missing key (a write to the whole map)"
        for name in dict.fromkeys(e.name for e in everything if e.indices and e.name in scope.maps)
    ]
    best_updates, grouped = _best_updates(everything, facts)
    events = [e for e in everything if e.name not in grouped]
    if scannable is None:
        scannable = repeatable
    scan = (
        _recurrence(var, events, statements, lower, scope.packed)
        if scannable and stride == 1
        else None
    )
    if scan is not None and not cpp and scan.op not in ("+", "*"):
        scan = None
    if scan is not None:
        events = [e for e in events if e.name != scan.var]
    elif scannable:
        scan = _pack(events, scope, statements)
        if scan is not None:
            events = [e for e in events if e.name not in (scan.var, *scan.packs)]
    # Only a loop that counts up from `lower` stays past it (`_apart_in_rows`).
    rising = lower if stride is not None and stride > 0 else None
    span = next((bounds for counter, bounds in counters if counter == var), None)
    conflicts, reduced = _array_conflicts(var, events, facts, range_for, rising, span)
    carried += conflicts
    bits = list(
        dict.fromkeys(
            e.name for e in events if e.kind == "write" and e.indices and e.name in scope.packed
        )
    )
    packed = [name for name in bits if _whole_words(name, var, events, lower, stride)]
    # Rows of bits, one per iteration (`g[i][j]` over a vector of std::vector<bool>): apart.
    rows = {
        name
        for name in bits
        if name in scope.packed_rows
        and all(len(e.indices) >= 2 and e.indices[0] == var for e in events if e.name == name)
    }
    carried += [
        f"{name} is a std::vector<bool> (or holds bits so): its elements are bits packed "
        "into shared words, so iterations writing different elements still write the same "
        "memory"
        for name in bits
        if name not in packed and name not in rows
    ]
    array_reductions, unsized = _array_reductions(reduced, scope)
    carried += unsized
    carried += [
        f"every iteration of {var} writes all of {name} through {element} (line {at})"
        for name, element, at in facts.range_writes
        if name != var and name not in facts.locals
    ]
    if written_through is not None:
        carried += _container_conflicts(var, written_through, events)
        if written_through in scope.packed:
            carried.append(
                f"{written_through} is a std::vector<bool> written through its elements: they "
                "are bits packed into shared words, so different iterations write the same memory"
            )
    if scan is None and scannable:
        scan = _scan(events, scope, statements)
        if scan is not None and not cpp and scan.op not in ("+", "*"):
            scan = None
        events = [e for e in events if scan is None or e.name != scan.var]
    if scan is not None and (best_updates or array_reductions):
        carried.append(
            f"a running value ({scan.var}) beside a best update or a histogram: the "
            "annotation does not combine the two rewrites"
        )
    reductions, sharing, scalar_problems = _scalars(events, scope)
    carried += scalar_problems
    through = _through_pointers(var, facts, scope, written_through)
    if exits and repeatable and not unknown and through == ():
        # (a write through a reference the body declares, `int &q = found; q = i;`, is a
        # write before the exit that no event of `found` shows)
        found = _first_match(var, exits, everything, facts)
        if found is not None:
            return found
    carried = exits + carried
    counted = _fixed_ranges(dict(counters), facts.assigned(), scope.scalars - scope.integers)
    lengths = {a.var: a.length for a in array_reductions}
    packed_at: dict[str, tuple[str, str]] = {}
    if scan is not None and scan.packs and span is not None:
        # the counter's values from where it starts, one per iteration at most
        last = f"({scan.var}) + (({span[1]}) - ({span[0]})) - 1"
        packed_at = {name: (f"({scan.var})", last) for name in scan.packs}
    overlaps = _overlaps(
        var, everything, scope, facts, counted, lengths, packed_at, written_through
    )
    for why in (overlaps, through):
        if isinstance(why, str):
            unknown.append(why)
    checks = (
        tuple(dict.fromkeys((*overlaps, *through)))
        if not isinstance(overlaps, str) and not isinstance(through, str)
        else ()
    )
    if carried or unknown:
        if carried:
            return Dependence(kind="carried", reason="; ".join(carried))
        return Dependence(kind="unknown", reason="; ".join(unknown))
    if best_updates and any(a.container or a.atomic for a in array_reductions):
        return Dependence(
            kind="carried",
            reason="a best update (argmin) beside a histogram that needs a pointer or atomics: "
            "the annotation does not combine the two rewrites",
        )
    reason = _ok_reason(var, events, reductions, array_reductions, sharing, best_updates)
    if scan is not None:
        return Dependence(
            kind="carried",
            scan=scan,
            reductions=tuple(reductions),
            private=tuple(sharing.private),
            lastprivate=tuple(sharing.lastprivate),
            last_assigned=tuple(sharing.last_assigned),
            reason=f"scan: {_scan_reason(scan, var)}, so each iteration needs the value of the "
            "previous ones; a two-pass blocked scan computes it (each thread totals its block, "
            f"then runs it from the totals before it); {reason}",
            assumptions=(*_checked(checks), *_scan_reassociation(scan, scope)),
            overlap_checks=checks,
        )
    if written_through is not None:
        reason = (
            f"each iteration writes only its own element of {written_through} ({var}); {reason}"
        )
    return Dependence(
        kind="reduction" if reductions or array_reductions or best_updates else "independent",
        packed=tuple(packed),
        reductions=tuple(reductions),
        best_updates=tuple(best_updates),
        array_reductions=tuple(array_reductions),
        private=tuple(sharing.private),
        lastprivate=tuple(sharing.lastprivate),
        last_assigned=tuple(sharing.last_assigned),
        reason=reason,
        assumptions=(
            *_checked(checks),
            *_reassociation(reductions),
            *_histogram_reassociation(array_reductions),
        ),
        overlap_checks=checks,
    )


def _reassociation(reductions: list[Reduction]) -> list[str]:
    sums = [r.var for r in reductions if r.reassociates and r.op not in ("min", "max")]
    picks = [r.var for r in reductions if r.reassociates and r.op in ("min", "max")]
    found = []
    if sums:
        found.append(
            f"reduction({', '.join(sums)}) may be floating-point: the threads' partial results "
            "are combined in another order, so the result may differ from the sequential one "
            "in the last digits"
        )
    if picks:
        found.append(
            f"min/max reduction({', '.join(picks)}) may be floating-point: -0.0 and 0.0 "
            "compare equal, so which of them is kept depends on the order of combining, and a "
            "NaN element, which every comparison passes over or keeps as it falls, gives "
            "another result than the sequential loop's"
        )
    return found


def _scan_reassociation(scan: Scan, scope: Scope) -> list[str]:
    """A blocked scan adds its blocks' totals in another order: for a running value that may be
    floating-point, as a reduction's partial results (a helper's probe saw the last digits of a
    prefix sum of doubles differ)."""
    if scan.var in scope.integers or scan.op in ("min", "max"):
        return []
    return [
        f"scan of {scan.var} may be floating-point: the blocks' totals are combined in another "
        "order, so the running values may differ from the sequential ones in the last digits"
    ]


def _histogram_reassociation(array_reductions: Sequence[ArrayReduction]) -> list[str]:
    """A histogram of floating-point elements sums each thread's copy in another order."""
    floating = [
        a.var
        for a in array_reductions
        if a.op not in ("min", "max") and any(w in a.element for w in ("float", "double"))
    ]
    if not floating:
        return []
    return [
        f"array reduction({', '.join(floating)}) of floating-point elements: the threads' "
        "copies are combined in another order, so the elements may differ from the sequential "
        "ones in the last digits"
    ]


# --- arrays --------------------------------------------------------------------------------


def _whole_words(
    name: str, var: str, events: list[AccessEvent], lower: str | None, stride: int | None
) -> bool:
    """Whether the iterations touch `name`, a `std::vector<bool>`, only at their own index,
    counting up by one from a multiple of `PACKED_CHUNK`: then chunks of that many iterations
    write whole words, which no other chunk shares."""
    start = parse_int(lower) if lower is not None else None
    return (
        stride == 1
        and start is not None
        and start % PACKED_CHUNK == 0
        and all(e.indices == (var,) for e in events if e.name == name)
    )


def _array_conflicts(
    var: str,
    events: list[AccessEvent],
    facts: BodyFacts,
    range_for: bool,
    lower: str | None = None,
    span: tuple[str, str] | None = None,
) -> tuple[list[str], list[tuple[str, str, str]]]:
    """The conflicts between iterations over arrays, and (array, operator, conflict) of the
    arrays whose only conflict is that iterations update the same elements in place with one
    operator: array reductions, when the array's length is known. `span`: (lower, upper) of a
    loop that counts `var` up by one while `var < upper`."""
    varying = facts.written() | facts.locals | ({var} if range_for else set())
    by_array: dict[str, list[AccessEvent]] = defaultdict(list)
    for event in events:
        if event.indices:
            by_array[event.name].append(event)
    problems = []
    reduced = []
    for name, uses in by_array.items():
        writes = [e for e in uses if e.kind == "write"]
        problem = _array_problem(
            var, uses, writes, varying, facts.inner_vars, range_for, lower, span
        )
        ops = {e.reduction for e in uses}
        whole = any(e.name == name and not e.indices for e in events)  # bins.size(), f(bins)
        if problem and len(ops) == 1 and None not in ops and not whole:
            reduced.append((name, str(ops.pop()), problem))
        elif problem:
            problems.append(problem)
    return problems, reduced


def _array_reductions(
    reduced: list[tuple[str, str, str]], scope: Scope
) -> tuple[list[ArrayReduction], list[str]]:
    """Array reductions for the arrays whose length is known; a problem for each other one."""
    known = {
        name: (element, length, container, runtime)
        for name, element, length, container, runtime in scope.arrays
    }
    found, problems = [], []
    for name, op, conflict in reduced:
        if name not in known:
            problems.append(
                f"{conflict} (updated with {op}: an array reduction would need the length of "
                f"{name}, which no declaration in the function gives)"
            )
            continue
        element, length, container, runtime = known[name]
        if runtime and not conflict.startswith(_SCATTER):
            # Every iteration updating one element (y[k] += a[j] in a loop over j) would make
            # each update an atomic on the same word: slower than the loop it replaces.
            problems.append(
                f"{conflict} (updated with {op}: {name}'s length is known only at run time, so "
                "its updates would be atomic, and here they all hit the same element)"
            )
            continue
        # So does a large one (a copy per thread on each thread's stack: 16 MB overflowed
        # it even at one thread): its updates are atomic on the shared array too.
        large = _literal_count(length) > _STACK_ELEMENTS
        found.append(ArrayReduction(name, op, length, element, container, runtime or large))  # type: ignore[arg-type]
    return found, problems


_STACK_ELEMENTS = 1 << 17
"""Elements (of up to 8 bytes: 1 MiB) past which a histogram's per-thread copies, on the
threads' stacks, are not made."""


def _literal_count(length: str) -> int:
    """The value of a length spelled with integer literals alone (`4000000`, `2048 * 2048`),
    else 0."""
    if not re.fullmatch(r"[\d\s*+()]+", length):
        return 0
    value = 1
    for factor in re.split(r"\s*\*\s*", length.strip().strip("()")):
        terms = [t for t in re.split(r"[\s+()]+", factor) if t]
        if not terms:
            return 0
        value *= sum(int(t) for t in terms)
    return value


_SCATTER = "histogram:"
"""How `_array_problem` starts a conflict at a data-dependent index (iterations scatter)."""


def _container_conflicts(var: str, container: str, events: list[AccessEvent]) -> list[str]:
    """Writes through the element of a range-based for loop clash with other uses of the range."""
    other = next((e for e in events if e.name == container), None)
    if other is None:
        return []
    return [
        f"the body writes {container}'s elements through {var} and also uses {_show(other)} "
        f"(line {other.line}), which may be another iteration's element"
    ]


def _array_problem(
    var: str,
    uses: list[AccessEvent],
    writes: list[AccessEvent],
    varying: set[str],
    inner: set[str],
    range_for: bool,
    lower: str | None = None,
    span: tuple[str, str] | None = None,
) -> str | None:
    # A range-based loop's element is a value read from memory, never an index apart per iteration.
    index = None if range_for else var
    for write in writes:
        if not any(_distinct(index, i, varying, inner) for i in write.index_nodes):
            shown = _show(write)
            # An index that moves with the iteration (data, a value the body computes, the
            # counter itself: `bins[b]` after `int b = x[i] / 10;`) scatters; one that does
            # not, or moves only with an inner loop (`y[k] += a[i * m + k]`), sends every
            # iteration to the same elements.
            if any(
                _data_dependent(i) or mentions(i, (varying - inner) | ({var} if index else set()))
                for i in write.index_nodes
            ):
                return f"histogram: write to {shown} at a data-dependent index"
            return f"{shown} is written at the same element by different iterations of {var}"
    for use in uses:
        for write in writes:
            if use is write or _same_dimension(index, use, write, varying, inner):
                continue
            if index is not None and _apart_in_rows(index, use, write, varying, inner, lower):
                continue
            if index is not None and _never_equal(index, use, write):
                continue
            if (
                index is not None
                and len(use.index_nodes) == len(write.index_nodes) == 1
                and _started_past(index, use.index_nodes[0], write.index_nodes[0], varying, lower)
            ):
                continue  # `b[j]` and `b[i]` in a loop from `j = i + 1`: never one element
            if index is not None and _a_span_apart(index, use, write, varying, span):
                continue
            return f"{_show(use)} and {_show(write)} may be the same element in different iterations of {var}"
    return None


def _never_equal(var: str, use: AccessEvent, write: AccessEvent) -> bool:
    """Two one-subscript accesses `a[c1 * var + d1]` and `a[c2 * var + d2]` (integer `c`, `d`)
    that no two values of `var` make the same element: `c1 * x - c2 * y = d2 - d1` has no
    integer solution when gcd(c1, c2) does not divide `d2 - d1` (the GCD test), so
    `a[2 * i]` and `a[2 * i + 1]` never meet."""
    if len(use.index_nodes) != 1 or len(write.index_nodes) != 1:
        return False
    forms = [_affine(var, e.index_nodes[0]) for e in (use, write)]
    if forms[0] is None or forms[1] is None:
        return False
    (c1, d1), (c2, d2) = forms  # type: ignore[misc]
    if c1 == 0 or c2 == 0:
        return False
    return (d2 - d1) % math.gcd(c1, c2) != 0


def _a_span_apart(
    var: str, use: AccessEvent, write: AccessEvent, varying: set[str], span: tuple[str, str] | None
) -> bool:
    """Two one-subscript accesses `a[f + var]` and `a[f + var + b]` (terms in any order) of a
    loop that counts `var` up by one from a literal `lo >= 0` while `var < b`: two iterations
    `v1`, `v2` meet only where `v1 - v2 = b`, but both lie in [lo, b), so they differ by less
    than `b` (an FFT's butterfly, `y[k]` and `y[k + n / 2]` for `k < n / 2`); the same terms
    in another order (`y[b + k]`) are one element per iteration. `f` and `b` are the same in
    every iteration: no name the body writes, not `var`."""
    if span is None or len(use.index_nodes) != 1 or len(write.index_nodes) != 1:
        return False
    lower, upper = span
    first = parse_int(lower.strip())
    if first is None or first < 0:
        return False
    sums = [_terms(e.index_nodes[0]) for e in (use, write)]
    for shorter, longer in ((sums[0], sums[1]), (sums[1], sums[0])):
        if shorter.count(var) != 1 or longer.count(var) != 1:
            return False
        fixed = [t for t in longer if t != var]
        if any(set(re.findall(r"[A-Za-z_]\w*", t)) & (varying | {var}) for t in fixed):
            return False  # a term that moves with the iteration
        rest = list(longer)
        for term in shorter:
            if term not in rest:
                break
            rest.remove(term)
        else:
            # The same terms in another order (`y[h + k]`, `y[k + h]`): one element per
            # iteration; or the one term more is the bound `b`.
            if not rest or (len(rest) == 1 and "".join(rest[0].split()) == "".join(upper.split())):
                return True
    return False


def _terms(node: Node) -> list[str]:
    """The terms of a sum (`a + (b + c)`: `a`, `b`, `c`), each as its canonical text."""
    node = unwrap(node)
    if node.type == "binary_expression" and text(node.children[1]) == "+":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None:
            return _terms(left) + _terms(right)
    return [canon(node)]


def _affine(var: str, node: Node) -> tuple[int, int] | None:
    """(c, d) when `node` is `c * var + d` with integer literals (in any order of terms)."""
    node = unwrap(node)
    if node.type == "identifier":
        return (1, 0) if text(node) == var else None
    if node.type == "number_literal":
        value = parse_int(text(node))
        return (0, value) if value is not None else None
    if node.type != "binary_expression":
        return None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    operator = node.child_by_field_name("operator")
    if left is None or right is None or operator is None:
        return None
    a, b = _affine(var, left), _affine(var, right)
    if a is None or b is None:
        return None
    op = text(operator)
    if op == "+":
        return a[0] + b[0], a[1] + b[1]
    if op == "-":
        return a[0] - b[0], a[1] - b[1]
    if op == "*" and (a[0] == 0 or b[0] == 0):
        return a[0] * b[1] + b[0] * a[1], a[1] * b[1]
    return None


def _apart_in_rows(
    var: str,
    use: AccessEvent,
    write: AccessEvent,
    varying: set[str],
    inner: set[str],
    lower: str | None,
) -> bool:
    """Two accesses of a flattened two-dimensional array, `a[r * n + c]`, that different
    iterations of `var` cannot make the same element. Where both columns provably lie in
    [0, n) (`loops.in_row`), elements in different rows or different columns are different;
    otherwise only different columns of one fixed row are (a column past the row's end reaches
    the next row, which another iteration may write). Rows (or columns) differ
    between iterations when they are one expression distinct per iteration, or when one is
    `var` and the other a value `e` the loop starts past and counts up from (`for (j = e + 1;
    ...; j++)`; `lower` is None for a loop that does not count up)."""
    both = [_row_and_column(e) for e in (use, write)]
    if both[0] is None or both[1] is None:
        return False
    (row_u, scale_u, col_u), (row_w, scale_w, col_w) = both  # type: ignore[misc]
    if canon(scale_u) != canon(scale_w) or set(identifiers(scale_u)) & (varying | {var}):
        return False

    def same_and_distinct(a: Node, b: Node) -> bool:
        return canon(a) == canon(b) and _distinct(var, b, varying, inner)

    def past(a: Node, b: Node) -> bool:
        return _started_past(var, a, b, varying, lower)

    # Different columns of one row are different elements; different rows only when both
    # columns provably stay inside their rows.
    in_rows = in_row(col_u, scale_u) and in_row(col_w, scale_w)
    one_row = canon(row_u) == canon(row_w) and not set(identifiers(row_u)) & (varying | {var})
    return ((in_rows or one_row) and (same_and_distinct(col_u, col_w) or past(col_u, col_w))) or (
        in_rows and (same_and_distinct(row_u, row_w) or past(row_u, row_w))
    )


def _started_past(var: str, a: Node, b: Node, varying: set[str], lower: str | None) -> bool:
    """One of the two is `var`, the other a value `e` the loop starts past and counts up from
    (`for (j = e + 1; ...; j++)`, `lower` None for a loop that does not count up) which no
    iteration changes: every value of `var` is greater than `e`."""
    head, _, tail = (lower or "").replace(" ", "").rpartition("+")
    if not _binds_tighter_than_plus(head):
        return False  # `s << 1 + 1` is `s << 2`, not past `s << 1`
    for mine, other in ((a, b), (b, a)):
        if (
            canon(mine) == var
            and not set(identifiers(other)) & (varying | {var})
            and tail.isdigit()
            and int(tail) >= 1
            and head == canon(other).replace(" ", "")
        ):
            return True
    return False


def _binds_tighter_than_plus(expression: str) -> bool:
    """Whether `expression + 1` adds 1 to the whole of `expression`: outside its brackets it
    has no operator binding looser than `+` (shifts, comparisons, bitwise and logical
    operators, a conditional, an assignment, a comma)."""
    depth = 0
    spaced = expression.replace("->", ".")
    for char in spaced:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and char in "<>&|^=!?:,":
            return False
    return bool(expression)


def _row_and_column(event: AccessEvent) -> tuple[Node, Node, Node] | None:
    """(row, row length, column) of a one-subscript access `a[r * n + c]` (`c + r * n` too);
    for `a[x * y + c]` the factor named like the other access's is the length, so both orders
    come back as (x, y, c) and the caller compares lengths."""
    if len(event.index_nodes) != 1:
        return None
    index = resolved(event.index_nodes[0])
    if index.type != "binary_expression" or text(index.children[1]) != "+":
        return None
    left, right = index.child_by_field_name("left"), index.child_by_field_name("right")
    if left is None or right is None:
        return None
    for product, column in ((resolved(left), right), (resolved(right), left)):
        if product.type == "binary_expression" and text(product.children[1]) == "*":
            row, length = product.child_by_field_name("left"), product.child_by_field_name("right")
            if row is not None and length is not None:
                return unwrap(row), unwrap(length), unwrap(column)
    return None


def _same_dimension(
    var: str | None, use: AccessEvent, write: AccessEvent, varying: set[str], inner: set[str]
) -> bool:
    """Some subscript is the same expression, distinct for each value of `var`, in both."""
    return any(
        a == b and _distinct(var, node, varying, inner)
        for a, b, node in zip(use.indices, write.indices, write.index_nodes, strict=False)
    )


def _distinct(
    var: str | None, index: Node, varying: set[str], inner: set[str], row: bool = False
) -> bool:
    """Whether `index` differs for different values of `var` (i, i + c, i * n + j, n - 1 - i).
    `row`: `index` is the start of a row whose column provably lies in [0, n) (`_within_row`),
    so its length n is at least 1 wherever the access runs."""
    index = resolved(index)
    if (operand := widened(index)) is not None:
        return _distinct(var, operand, varying, inner, row)
    if index.type == "identifier":
        return text(index) == var
    if index.type == "unary_expression" and text(index.children[0]) in ("-", "+"):
        return _distinct(var, index.children[1], varying, inner, row)
    if index.type != "binary_expression":
        return False
    left, right = index.child_by_field_name("left"), index.child_by_field_name("right")
    operator = index.child_by_field_name("operator")
    if left is None or right is None or operator is None or text(operator) not in ("+", "-", "*"):
        return False
    op = text(operator)
    for one, other in ((left, right), (right, left)):
        names = value_names(other)
        if var in names:
            continue
        within = False
        if op == "*":
            # Scaling by a loop-invariant, non-zero factor keeps values apart: a literal, or
            # a name that is at least 1 wherever the access runs: the length of a row some
            # column is counted inside, or the bound of a loop counting the scaled variable
            # up from 0 or more (`j * n` inside `j < n`). Another named stride may be 0.
            fixed = not names & varying and (
                _nonzero_literal(resolved(other))
                or (bool(names) and (row or _bounds_a_counter(one, other)))
            )
        elif names & inner:
            # An inner loop's variable may be added to a row start (a[i * n + j]) only when it
            # provably stays inside the row (0 <= j < n); otherwise rows overlap (a[i + j]).
            fixed = within = op == "+" and _within_row(one, other, varying)
            if not fixed and op == "+" and one.type == "identifier" and text(one) == var:
                # Or the variable is the column, provably in [0, n), and the inner variable
                # picks the row (a[i + j * n], column by column): the values of different
                # iterations differ modulo n, whatever row each reaches.
                return _within_row(other, one, varying)
        else:
            # Never a value the body computes.
            fixed = not names & varying
        if fixed and _distinct(var, one, varying, inner, within):
            return True
    return False


def _bounds_a_counter(scaled: Node, factor: Node) -> bool:
    """Some variable of `scaled` is counted up from 0 or more below `factor` by a loop around
    it (`loops.in_row`), so `factor` is at least 1 wherever that variable is in use."""
    return any(n.type == "identifier" and in_row(n, factor) for n in walk(scaled))


def _within_row(start: Node, column: Node, varying: set[str]) -> bool:
    """`start` is `r * n` (or `n * r`) and `column` provably in [0, n) (`loops.in_row`)."""
    start = resolved(start)
    if start.type != "binary_expression" or text(start.children[1]) != "*":
        return False
    left, right = start.child_by_field_name("left"), start.child_by_field_name("right")
    if left is None or right is None:
        return False
    return any(
        not set(identifiers(length)) & varying and in_row(column, length)
        for length in (left, right)
    )


def _nonzero_literal(node: Node) -> bool:
    """A number literal whose value is not 0 (`0x0`, `0b0`, `0'0` and `0.0f` are 0)."""
    node = unwrap(node)
    if node.type != "number_literal":
        return False
    whole = parse_int(text(node))
    if whole is not None:
        return whole != 0
    try:
        return float(text(node).replace("'", "").rstrip("fFlL")) != 0
    except ValueError:
        return False


def _data_dependent(index: Node) -> bool:
    """The index reads memory or calls something (x[i], idx[k], f(i))."""
    if index.type in (
        "subscript_expression",
        "call_expression",
        "pointer_expression",
        "field_expression",
    ):
        return True
    return any(_data_dependent(child) for child in index.children)


def _show(event: AccessEvent) -> str:
    return event.name + "".join(f"[{i}]" for i in event.indices)


# --- best updates (argmin) -----------------------------------------------------------------


def _best_updates(events: list[AccessEvent], facts: BodyFacts) -> tuple[list[BestUpdate], set[str]]:
    """The best updates whose scalars the body uses nowhere but in their own `if`, and the
    names of those scalars (the other rules leave them alone)."""
    found: list[BestUpdate] = []
    names: set[str] = set()
    for k, update in enumerate(facts.best_updates):
        group = {update.best, *update.others}
        if group & facts.locals:
            continue  # a name the body declares itself: the `if` may update that one
        uses = [e for e in events if e.name in group]
        if uses and all(e.guard == k and not e.indices and not e.partial for e in uses):
            found.append(update)
            names |= group
    return found, names


# --- searches ------------------------------------------------------------------------------


def _first_match(
    var: str, exits: list[str], events: list[AccessEvent], facts: BodyFacts
) -> Dependence | None:
    """A loop whose iterations write nothing but their own locals, except on the way out (`{
    found = i; break; }`), is a search: running every iteration changes nothing the code after
    it sees, and the first iteration that exits can be found in parallel and run again."""
    writes = [e for e in events if e.kind == "write" and not e.on_exit]
    if facts.tangled_exits or writes or facts.pointer_writes or facts.range_writes:
        return None
    return Dependence(
        kind="carried",
        first_match=True,
        reason=(
            f"{'; '.join(exits)}; a first-match search: the iterations write only their own "
            f"locals until they exit, so all of them can run, a min reduction finds the first {var} that "
            "exits, and that iteration runs again alone to take its exit (this assumes every "
            f"iteration up to the bound is safe to run, as in any parallel search)"
        ),
    )


# --- scans ---------------------------------------------------------------------------------

SCAN_OPS = ("+", "*", "min", "max")


def _scan_reason(scan: Scan, var: str) -> str:
    if scan.packs:
        return (
            f"{', '.join(scan.packs)} packed at {scan.var}, which the iterations that store "
            f"count up by one (a compaction: {scan.var} is a running sum)"
        )
    if scan.recurrence:
        return (
            f"{scan.var}[{shifted(var, scan.offset)}] is {scan.var}[{shifted(var, scan.offset - 1)}]"
            f" {scan.op} a term (a recurrence)"
        )
    if scan.exclusive:
        return (
            f"{scan.var} is a running value ({scan.op}), read before the body updates it (an "
            "exclusive scan)"
        )
    return (
        f"{scan.var} is a running value ({scan.op}), updated in the body's first "
        f"{scan.split} statement(s) and read after them"
    )


def _recurrence(
    var: str,
    events: list[AccessEvent],
    statements: Sequence[Node],
    lower: str | None,
    scope_packed: frozenset[str] = frozenset(),
) -> Scan | None:
    """A first-order recurrence `a[i] = a[i - 1] OP e` (`match_recurrence`; its `if (i ==
    lower) a[i] = e0; else ...` form only with the loop's own first value), if it is the only
    statement that reads another iteration's element of `a`, no other statement writes `a` or
    reads any element of it but the iteration's own, and the statements before it write
    nothing but the body's locals (a blocked scan runs them twice)."""
    found = [(k, m) for k, s in enumerate(statements) if (m := match_recurrence(s, var))]
    if len(found) != 1:
        return None
    k, recurrence = found[0]
    if recurrence.first is not None and (
        lower is None or canon(recurrence.first[1]).replace(" ", "") != lower.replace(" ", "")
    ):
        return None
    start, end = statements[k].start_byte, statements[k].end_byte
    uses = [e for e in events if e.name == recurrence.array]
    previous = [e for e in uses if e.indices == (recurrence.previous(var),)]
    writes = [e for e in uses if e.kind == "write"]
    if len(previous) != 1 or not all(start <= e.at < end for e in (*previous, *writes)):
        return None
    if any(e.indices != (recurrence.index(var),) for e in uses if e is not previous[0]):
        return None  # another element, or the whole array (`a.size()`)
    if any(
        e.kind == "write" and e.name != recurrence.array and start <= e.at < end for e in events
    ):
        return None  # a term that writes (`a[i - 1] + (b[i] += 1)`): a first pass runs it too
    if recurrence.array in scope_packed:
        return None  # bits sharing words (`std::vector<bool>`)
    if any(e.kind == "write" and e.at < start for e in events):
        return None
    return Scan(
        recurrence.array,
        recurrence.op,  # type: ignore[arg-type]
        k,
        recurrence=True,
        first=recurrence.first is not None,
        offset=recurrence.offset,
    )


def _pack(events: list[AccessEvent], scope: Scope, statements: Sequence[Node]) -> Scan | None:
    """A compaction (`if (c) y[k++] = e;`, `reductions.match_pack`): the one counter `k` (an
    integer of the function's own whose address it does not take) that the body both
    increments and reads, all its uses in one statement's store site; the arrays stored
    there are touched nowhere else in the body (no read: an iteration could read what
    another stores), nor are they bits sharing words or maps; and nothing before or in that
    statement writes anything but `k`, those arrays and the body's own locals (a blocked
    scan's first pass runs them, the stores removed, again)."""
    counters = {
        e.name
        for e in events
        if not e.indices
        and e.kind == "write"
        and e.name in scope.integers
        and e.name in scope.own
        and e.name in scope.scalars
        and e.name not in scope.addressed
    }
    spans = [(st.start_byte, st.end_byte) for st in statements]
    for counter in sorted(counters):
        uses = [e for e in events if e.name == counter]
        places = {_statement_at(e.at, spans) for e in uses}
        if len(places) != 1 or None in places:
            continue
        split = places.pop()
        assert split is not None
        pack = match_pack(statements[split], counter)
        if pack is None or any(e.indices for e in uses):
            continue
        start, end = spans[split]
        stored = [e for e in events if e.name in pack.arrays]
        if any(e.kind != "write" or not start <= e.at < end for e in stored):
            continue
        if set(pack.arrays) & (scope.packed | scope.maps):
            continue
        if any(
            e.kind == "write" and e.at < end and e.name not in (counter, *pack.arrays)
            for e in events
        ):
            continue
        return Scan(counter, "+", split, packs=pack.arrays)
    return None


def _scan(events: list[AccessEvent], scope: Scope, statements: Sequence[Node]) -> Scan | None:
    """The loop's running value, if exactly one scalar is both accumulated and read, and the
    body's statements part into an input phase that updates it (and writes nothing but it and
    the body's locals: a blocked scan runs that phase twice) and a scan phase that reads it.
    Statements before the first update may read it too (an exclusive scan, `e[i] = ex; ex +=
    x[i];`): the first pass leaves them out, so they may write anything the loop's other
    rules allow, but jump nowhere and write nothing the input phase reads."""
    by_name: dict[str, list[AccessEvent]] = defaultdict(list)
    for event in events:
        if not event.indices:
            by_name[event.name].append(event)
    running = [
        name
        for name, uses in by_name.items()
        if any(e.reduction for e in uses) and any(e.reduction is None for e in uses)
    ]
    if len(running) != 1 or running[0] not in scope.own or running[0] not in scope.scalars:
        return None
    name = running[0]
    uses = by_name[name]
    ops = {e.reduction for e in uses if e.reduction}
    op = ops.pop() if len(ops) == 1 else None
    if op not in SCAN_OPS or any(e.kind == "write" and e.reduction is None for e in uses):
        return None  # another operator, or assigned outright somewhere
    spans = [(s.start_byte, s.end_byte) for s in statements]
    found = [_statement_at(e.at, spans) for e in uses]
    places = [at for at in found if at is not None]
    if len(places) != len(found):
        return None
    updated = [at for at, e in zip(places, uses, strict=True) if e.reduction is not None]
    read = [at for at, e in zip(places, uses, strict=True) if e.reduction is None]
    first, last = min(updated), max(updated)
    if any(first <= at <= last for at in read):
        return None  # read between the updates, or in one
    exclusive = _left_out(statements, {at for at in read if at < first}, first)
    later = [at for at in read if at > last]
    split = min(later) if later else last + 1
    phase_end = spans[split][0] if split < len(spans) else spans[-1][1]
    left_out = [spans[k] for k in exclusive]
    if any(
        e.kind == "write"
        and e.name != name
        and e.at < phase_end
        and not any(a <= e.at < b for a, b in left_out)
        for e in events
    ):
        return None
    if exclusive and not _left_out_cleanly(statements, exclusive, split):
        return None
    return Scan(name, op, split, exclusive=exclusive)  # type: ignore[arg-type]


def _left_out(statements: Sequence[Node], reads: set[int], first: int) -> tuple[int, ...]:
    """The statements before the first update (`first`) a blocked scan's first pass leaves
    out: those reading the running value, and those reading what such a statement wrote
    (`long was = acc; out[i] = was; acc += x[i];`)."""
    left = set(reads)
    while True:
        written = {name for k in left for name in _names_written(statements[k]) or ()}
        more = {
            k
            for k in range(first)
            if k not in left
            and any(n.type == "identifier" and text(n) in written for n in walk(statements[k]))
        }
        if not more:
            return tuple(sorted(left))
        left |= more


def _names_written(statement: Node) -> set[str] | None:
    """The variables a statement assigns or declares; None where one of its writes names none
    this can tell (`*f() = 1`)."""
    found: set[str] = set()
    for n in walk(statement):
        targets: list[Node | None]
        if n.type == "assignment_expression":
            targets = [n.child_by_field_name("left")]
        elif n.type == "update_expression":
            targets = [n.child_by_field_name("argument")]
        elif n.type == "declaration":
            targets = list(n.children_by_field_name("declarator"))
        else:
            continue
        for target in targets:
            name = _written_root(target)
            if name is None:
                return None
            found.add(name)
    return found


def _left_out_cleanly(statements: Sequence[Node], exclusive: tuple[int, ...], split: int) -> bool:
    """Whether a first pass may run `statements[:split]` without the `exclusive` ones: those
    jump nowhere (a `continue` there skips the update) and write no name (a local, an array,
    a scalar) the statements it runs mention, nor anything this cannot name."""
    written: set[str] = set()
    for k in exclusive:
        names = _names_written(statements[k])
        if names is None or any(n.type in JUMPS for n in walk(statements[k])):
            return False
        written |= names
    kept = [st for k, st in enumerate(statements[:split]) if k not in exclusive]
    return not any(n.type == "identifier" and text(n) in written for st in kept for n in walk(st))


def _written_root(target: Node | None) -> str | None:
    """The variable a write's target belongs to (`e[i]`, `p.x`, `(a)[i][j]`: e, p, a)."""
    while target is not None:
        if target.type == "identifier":
            return text(target)
        if target.type in ("subscript_expression", "field_expression", "parenthesized_expression"):
            target = target.child_by_field_name("argument") or (
                target.named_children[0] if target.named_children else None
            )
        else:
            return declared_name(target)
    return None


def _statement_at(at: int, statements: Sequence[tuple[int, int]]) -> int | None:
    """The index of the statement of the body that holds byte `at` (None: none does)."""
    return next((k for k, (start, end) in enumerate(statements) if start <= at < end), None)


# --- scalars -------------------------------------------------------------------------------


@dataclass
class _Sharing:
    """How the scalars a loop assigns are shared once its iterations run at once."""

    private: list[str] = field(default_factory=list)
    lastprivate: list[str] = field(default_factory=list)
    last_assigned: list[str] = field(default_factory=list)


def _scalars(
    events: list[AccessEvent], scope: Scope
) -> tuple[list[Reduction], _Sharing, list[str]]:
    by_name: dict[str, list[AccessEvent]] = defaultdict(list)
    for event in events:
        if not event.indices:
            by_name[event.name].append(event)
    reductions: list[Reduction] = []
    sharing = _Sharing()
    problems: list[str] = []
    for name, uses in by_name.items():
        if all(e.kind == "read" for e in uses):
            continue
        ops = {e.reduction for e in uses}
        first = uses[0]
        # The value the last iteration leaves matters when code after the loop may read it.
        # So does it when a pointer or reference to it may be read later (`int *p = &t;`).
        kept = name in scope.used_after or name not in scope.own or name in scope.addressed
        if len(ops) == 1 and None not in ops and name in scope.objects:
            problems.append(
                f"{name} is accumulated with {ops.pop()} (line {first.line}), but it is an "
                "object of a class type, which OpenMP's reductions do not take"
            )
        elif len(ops) == 1 and None not in ops:
            op: ReductionOp = ops.pop()  # type: ignore[assignment]
            # Adding or multiplying floating-point values in another order rounds differently.
            # Floating min and max pick a value, but -0.0 and 0.0 compare equal and the one
            # kept depends on the order (only the sign of a zero, which printing shows); the
            # bitwise and logical operators combine exactly.
            reassociates = op in ("+", "-", "*", "min", "max") and name not in scope.integers
            reductions.append(Reduction(var=name, op=op, reassociates=reassociates))
        elif first.kind == "write" and first.definite and not first.partial:
            (sharing.lastprivate if kept else sharing.private).append(name)
        elif first.kind == "write" and first.partial and any(e.kind == "read" for e in uses):
            problems.append(
                f"{name} is assigned member by member (line {first.line}), so the members an "
                "iteration does not assign carry over from the previous one"
            )
        elif any(e.kind == "read" for e in uses):
            read = next(e for e in uses if e.kind == "read")
            if any(e.reduction for e in uses):
                problems.append(
                    f"scan: {name} is accumulated and also read in the body (line {read.line}), "
                    "so each iteration needs the running value of the previous ones"
                )
            else:
                problems.append(
                    f"scan: {name} is read (line {read.line}) before this iteration assigns it, "
                    "so it carries a value from the previous iteration"
                )
        elif not kept:
            sharing.private.append(name)  # assigned now and then, read by no one
        elif name in scope.scalars and not any(e.partial for e in uses):
            sharing.last_assigned.append(name)
        else:
            problems.append(
                f"{name} is assigned only in some iterations and keeps the last value assigned "
                "(not a local scalar, so lastprivate(conditional:) cannot keep it)"
            )
    return reductions, sharing, problems


# --- reasons -------------------------------------------------------------------------------


def _ok_reason(
    var: str,
    events: list[AccessEvent],
    reductions: list[Reduction],
    array_reductions: list[ArrayReduction],
    sharing: _Sharing,
    best_updates: list[BestUpdate],
) -> str:
    binned = {r.var for r in array_reductions}
    written = list(
        dict.fromkeys(
            _show(e) for e in events if e.kind == "write" and e.indices and e.name not in binned
        )
    )
    parts = []
    if written:
        parts.append(f"each iteration of {var} writes only its own elements ({', '.join(written)})")
    elif not array_reductions:
        parts.append(f"no iteration of {var} writes an array element another one uses")
    if reductions:
        shown = ", ".join(f"{r.var} ({r.op})" for r in reductions)
        parts.append(f"reduction: {shown}")
    copied = [r for r in array_reductions if not r.atomic]
    if copied:
        shown = ", ".join(f"{r.var}[0:{r.length}] ({r.op})" for r in copied)
        parts.append(
            f"array reduction (a histogram: each thread counts into its own copy): {shown}"
        )
    atomic = [r for r in array_reductions if r.atomic]
    if atomic:
        shown = ", ".join(f"{r.var} ({r.op})" for r in atomic)
        parts.append(
            "a histogram of run-time length, each update atomic on the shared array "
            f"(correct, but an atomic costs more than a plain update): {shown}"
        )
    for update in best_updates:
        parts.append(
            f"best so far ({update.keeps}): {update.best} with {', '.join(update.others)}; each "
            "thread keeps its own, merged in thread order as the loop would have kept them"
        )
    if sharing.lastprivate:
        parts.append(f"the last iteration's value is kept: {', '.join(sharing.lastprivate)}")
    if sharing.last_assigned:
        parts.append(
            "the value of the last iteration that assigns it is kept: "
            + ", ".join(sharing.last_assigned)
        )
    return "; ".join(parts)


def checked_also(verdict: Dependence, checks: Sequence[str]) -> Dependence:
    """`verdict` (parallelisable) with more run-time overlap checks, its assumption restated."""
    if not checks:
        return verdict
    merged = tuple(dict.fromkeys((*verdict.overlap_checks, *checks)))
    stated = _checked(verdict.overlap_checks)
    return replace(
        verdict,
        overlap_checks=merged,
        assumptions=(
            *_checked(merged),
            *(a for a in verdict.assumptions if a not in stated),
        ),
    )


def storage_kinds(scope: Scope) -> dict[str, str]:
    """`Scope.aliases`, with the function's own variables that are no pointer or reference
    (`Scope.own`: its locals and by-value parameters) as its own storage ("local array"),
    which no parameter reaches."""
    kinds = dict(scope.aliases)
    for name in scope.own:
        kinds.setdefault(name, "local array")
    return kinds


def apart(name: str, written: str, kinds: dict[str, str]) -> list[str] | None:
    """Conditions under which `name`'s storage (read through an address) and `written`'s do
    not overlap: [] when they never do, None when nothing at run time can tell."""
    return _apart(name, written, kinds)


def _checked(checks: tuple[str, ...]) -> tuple[str, ...]:
    if not checks:
        return ()
    return (
        "checked at run time: the loop runs in parallel only if "
        + " && ".join(checks)
        + " (what it reaches through pointers or references does not overlap), otherwise "
        "as written, sequentially",
    )


_POINTERS = ("pointer", "grid", "local pointer")
"""Kinds of `Scope.aliases` whose target the code does not name: a range check keeps them apart."""
_OWN = ("local array", "local container")
"""Kinds of `Scope.aliases` the function creates: no parameter can point into them."""
_CONTAINERS = ("container", "local container", "alias container")
_GRIDS = ("grid", "local array")
"""Kinds whose elements `x[r][c]` lie in one block, row after row."""


def _overlaps(
    var: str,
    events: list[AccessEvent],
    scope: Scope,
    facts: BodyFacts,
    bounds: dict[str, tuple[str, str]],
    lengths: dict[str, str],
    packed_at: dict[str, tuple[str, str]] | None = None,
    written_through: str | None = None,
) -> tuple[str, ...] | str:
    """The run-time conditions under which nothing the loop writes overlaps anything else it
    reaches through another name, or why no such condition can be written (a reason for
    "unknown"). `packed_at`: the first and last index a compaction may store into each
    array it packs, as its counter stands before the loop; `written_through`: the container
    a range-based loop writes through its element, which no subscript shows.

    Two names of the function's own storage never overlap, and no parameter points into the
    function's own arrays. Two container references are apart when they name different
    objects. A pointer's accesses are bounded only where each subscript is a sum of loop
    counters (`bounds`) times invariants and invariant terms, or a histogram's (`lengths`):
    two accesses are apart when one's elements end before the other's start. Anything else
    a pointer may reach, or a field (`s.d`), leaves the loop unknown.
    """
    kinds = dict(scope.aliases)
    subscripted = [e for e in events if e.indices]
    written = {e.name for e in subscripted if e.kind == "write"}
    written |= {written_through} if written_through is not None else set()
    checks: list[str] = []
    for w in sorted(written):
        # A pair of written names is checked once.
        for other in sorted({e.name for e in subscripted} - {w} - {n for n in written if n < w}):
            if any("." in name or "->" in name for name in (w, other)):
                return f"accesses {w} and {other}, one a field whose target may overlap the other"
            pair = {kinds.get(w), kinds.get(other)}
            if "restrict" in pair and "local pointer" not in pair:
                # Two names, one a restrict pointer the other is not based on: the caller
                # promised they do not overlap where either is written.
                continue
            if "opaque" in pair:
                return (
                    f"accesses {w} and {other}, one a reference or a view (an iterator, a span, "
                    "a class) whose elements may lie in the other's storage"
                )
            if pair & set(_POINTERS):
                if pair & set(_OWN) and not pair & {"local pointer"}:
                    continue
                if written_through in (w, other):
                    # written through the range's element: no subscript bounds its extent
                    return (
                        f"writes {written_through} through its element and accesses "
                        f"{other if w == written_through else w}, which may point into it"
                    )
                found = _ranges_apart(
                    var, w, other, subscripted, kinds, facts, bounds, lengths, packed_at or {}
                )
                if isinstance(found, str):
                    return found
                checks += found
            elif "alias container" in pair or ("container" in pair and not pair & set(_OWN)):
                first, second = sorted((w, other))
                checks.append(f"(const void *)&{first} != (const void *)&{second}")
    return tuple(dict.fromkeys(checks))


def _through_pointers(
    var: str, facts: BodyFacts, scope: Scope, written_through: str | None = None
) -> tuple[str, ...] | str:
    """The run-time conditions under which what the loop reads through an address (`*p`,
    `p->x`, a reference, a pointer or reference it declares) is nothing the loop writes, or why
    none can be written (a reason for "unknown"). Such a read names no element, so it is
    apart from a write only when the two cannot share storage at all: different objects of
    which one is the function's own, two distinct arrays or containers, or (checked at run
    time) two container references bound to different objects. A write through a pointer or
    reference the loop declares is unknown outright."""
    through_local = [
        e
        for e in facts.events
        if _root(e.name) in facts.local_pointers
        and (e.indices or _root(e.name) in facts.local_references)
    ]
    for event in through_local:
        if event.kind == "write":
            return (
                f"writes {_show(event)} (line {event.line}) through {_root(event.name)}, a "
                "pointer or reference declared in the loop, which may reach any element"
            )
    reads: list[tuple[set[str], str]] = [
        (facts.through_locals(names), shown) for names, shown in facts.pointer_reads
    ]
    reads += [
        (facts.through_locals({_root(e.name)}), f"{_show(e)} at line {e.line}")
        for e in through_local
    ]
    kinds = storage_kinds(scope)
    reads += [
        ({name}, f"{name}, a reference or an object that may view other storage,")
        for name in dict.fromkeys(e.name for e in facts.events if e.kind == "read")
        if kinds.get(name) == "opaque" and name not in facts.locals
    ]
    written = {
        _root(e.name)
        for e in facts.events
        if e.kind == "write" and e.name != var and _root(e.name) not in facts.locals
    } | {name for name, _, _ in facts.range_writes if name not in facts.locals}
    # A range-based loop's writes through its element are writes of its container.
    written |= {written_through} if written_through is not None else set()
    # Integers name no storage to reach, unless they are references (`const int& k`).
    ignored = (facts.locals - set(facts.local_pointers)) | (scope.integers - set(kinds)) | {var}
    checks: list[str] = []
    # A reference parameter (`int &out`) written in the loop may be an element of any array the
    # loop reads or writes (`f(n, a, a[5])`).
    accessed = {_root(e.name) for e in facts.events} - ignored
    for name in sorted(written):
        if kinds.get(name) != "opaque":
            continue
        for other in sorted(accessed - {name}):
            apart = _apart(name, other, kinds)
            if apart is None:
                return f"writes {name}, a reference parameter, which may be an element of {other}"
            checks += apart
    for names, shown in reads:
        for name in sorted(names - ignored):
            for w in sorted(written):
                if name == "?" and w in scope.scalars and w not in scope.addressed:
                    # No pointer reaches a scalar of the function's own whose address it
                    # never takes.
                    continue
                apart = _apart(name, w, kinds)
                if apart is None:
                    apart = reference_apart(name, w, kinds, scope)
                if apart is None:
                    return (
                        f"reads {shown} through an address that may point into {w}, which "
                        "the loop writes"
                    )
                checks += apart
    return tuple(dict.fromkeys(checks))


def reference_apart(
    name: str, written: str, kinds: dict[str, str], scope: Scope
) -> list[str] | None:
    """Conditions under which a reference to a number (`const int &n`, a parameter or a local)
    is none of the elements the loop writes to `written`: [] when `n` is a parameter and
    `written` a number of the function's own or its pointer to a fresh allocation (created
    after the reference was bound), a run-time check that `n`'s object lies outside the
    elements of a contiguous container of numbers (`Scope.contiguous`), None otherwise (a
    pointer's elements may be anywhere, `n` among them)."""
    if name not in scope.number_references or kinds.get(name) != "opaque" or name == written:
        return None
    if (
        name in scope.reference_params
        and written in scope.scalars
        and kinds.get(written) == "local array"
    ):
        # a number of the function's own, or a fresh allocation's pointer; a local container
        # is no such storage: it may have taken a caller's buffer (`std::vector<int> v =
        # std::move(w);`, `v.swap(w)`), which the check below sees
        return []
    if written in scope.contiguous:
        return [outside_elements(name, written)]
    return None


def outside_elements(name: str, container: str) -> str:
    """The run-time condition that the object `name` refers to lies wholly outside the
    elements of the contiguous container `container`."""
    return (
        f"(const char *)(&{name} + 1) <= (const char *){container}.data() || "
        f"(const char *)&{name} >= (const char *)({container}.data() + {container}.size())"
    )


def _apart(name: str, written: str, kinds: dict[str, str]) -> list[str] | None:
    """Conditions under which `name`'s storage (read through an address) and `written`'s do
    not overlap: [] when they never do, None when nothing at run time can tell."""
    if name == written or name == "?":
        return None
    pair = {kinds.get(name), kinds.get(written)}
    if "local pointer" in pair or "opaque" in pair:
        return None
    if "restrict" in pair:
        return []
    if pair & set(_OWN) and "alias container" not in pair:
        # (a local reference, `auto &u = v;`, may name the function's own container)
        return []
    if pair & {"pointer", "grid"}:
        return None
    if pair & {"container", "alias container"}:
        first, second = sorted((name, written))
        return [f"(const void *)&{first} != (const void *)&{second}"]
    # Two names neither of which is a pointer: distinct objects (or a container and an array).
    return []


def _root(name: str) -> str:
    """The variable a use names (`g` of `g.data`, `p->x`)."""
    return re.split(r"\.|->", name, maxsplit=1)[0]


def _ranges_apart(
    var: str,
    w: str,
    other: str,
    events: list[AccessEvent],
    kinds: dict[str, str],
    facts: BodyFacts,
    bounds: dict[str, tuple[str, str]],
    lengths: dict[str, str],
    packed_at: dict[str, tuple[str, str]],
) -> list[str] | str:
    invariant = facts.assigned() | facts.locals | set(bounds) | {var}
    extents: dict[str, list[tuple[str, str, list[str]]]] = {}
    for event in events:
        if event.name not in (w, other):
            continue
        kind = kinds.get(event.name)
        base = f"{event.name}.data()" if kind in _CONTAINERS else event.name
        length = lengths.get(event.name)
        found: tuple[str, str, list[str]] | None
        packed = packed_at.get(event.name)
        if packed is not None:
            found = (f"({base} + {packed[0]})", f"({base} + {packed[1]})", [])
        elif (
            length is not None and len(event.indices) == 1 and not _mentions_any(length, invariant)
        ):
            found = (f"({base})", f"({base} + ({length}) - 1)", [])
        elif len(event.indices) == 1 or kind in _GRIDS:
            found = _extent(base, event, bounds, invariant)
        else:
            found = None
        if found is None:
            return (
                f"{w} and {other} may overlap (through a pointer), and the subscripts of "
                f"{_show(event)} are not sums of counters of loops that count up by one times "
                "invariants plus invariants, so the elements it reaches are unbounded"
            )
        extents.setdefault(event.name, []).append(found)
    checks: list[str] = []
    for first, last, needs in extents.get(w, []):
        for first_b, last_b, needs_b in extents.get(other, []):
            checks += needs + needs_b
            end, end_b = _fold(f"{last} + 1"), _fold(f"{last_b} + 1")
            checks.append(
                f"((const char *)({end}) <= (const char *)({_fold(first_b)}) || "
                f"(const char *)({end_b}) <= (const char *)({_fold(first)}))"
            )
    return checks


_Poly = dict[tuple[str, ...], int]


def _fold(expression: str) -> str:
    """`expression` (C) with its integer arithmetic folded, `(b + (((n) - 1))) + 1` → `b + n`,
    when it is made of names, integer literals, `+`, `-` and `*` only (a call such as
    `v.data()` or a quotient stays one term); otherwise as it is."""
    try:
        tree = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return expression
    poly = _poly(tree)
    if poly is None:
        return expression
    terms = [(m, c) for m, c in poly.items() if c != 0 and m != ()]
    constant = poly.get((), 0)
    shown = ""
    for monomial, coefficient in terms:
        name = " * ".join(monomial)
        size = abs(coefficient)
        term = name if size == 1 else f"{size} * {name}"
        if not shown:
            shown = term if coefficient > 0 else f"-{term}"
        else:
            shown += f" + {term}" if coefficient > 0 else f" - {term}"
    if constant or not shown:
        if not shown:
            shown = str(constant)
        else:
            shown += f" + {constant}" if constant > 0 else f" - {-constant}"
    return shown


def _poly(node: ast.expr) -> _Poly | None:
    """A sum of products of names with integer coefficients, or None for anything else."""
    if isinstance(node, ast.Name):
        return {(node.id,): 1}
    if isinstance(node, ast.Constant):
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            return {(): node.value}
        return None
    if isinstance(node, (ast.Call, ast.Attribute)) or (
        isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Mod))
    ):
        atom = ast.unparse(node)
        return {(f"({atom})" if isinstance(node, ast.BinOp) else atom,): 1}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _poly(node.operand)
        if inner is None:
            return None
        sign = -1 if isinstance(node.op, ast.USub) else 1
        return {m: sign * c for m, c in inner.items()}
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        left, right = _poly(node.left), _poly(node.right)
        if left is None or right is None:
            return None
        out: _Poly = {}
        if isinstance(node.op, ast.Mult):
            for m1, c1 in left.items():
                for m2, c2 in right.items():
                    key = tuple(sorted(m1 + m2))
                    out[key] = out.get(key, 0) + c1 * c2
            return out
        sign = 1 if isinstance(node.op, ast.Add) else -1
        out = dict(left)
        for m, c in right.items():
            out[m] = out.get(m, 0) + sign * c
        return out
    return None


FLOATING_LITERAL = re.compile(r"(?<![\w.])(?:\d+\.\d*|\.\d+|\d+[eE][-+]?\d+)")
"""A floating-point literal (`2.5`, `.5`, `1e3`), not an integer's digits."""


def _fixed_ranges(
    counters: dict[str, tuple[str, str]],
    assigned: set[str],
    not_integers: frozenset[str] = frozenset(),
) -> dict[str, tuple[str, str]]:
    """Of `counters` (outermost first, each `lower <= v < upper`), those whose range holds
    for the whole loop, as bounds free of what the loop assigns. A bound that mentions one
    enclosing counter once (`j < i`, a triangle) is affine in it, so its extremes are at that
    counter's extremes: the range widens to the least lower and the greatest upper bound. A
    bound that may not be an integer (`n / 3.0`, a `double` name: `not_integers`) bounds
    nothing: `a + (n / 3.0)` is no pointer, and the last index is not `(n / 3.0) - 1`."""
    fixed: dict[str, tuple[str, str]] = {}
    for counter, (lower, upper) in counters.items():
        if any(
            FLOATING_LITERAL.search(bound) or _mentions_any(bound, set(not_integers))
            for bound in (lower, upper)
        ):
            continue
        outer = set(re.findall(r"[A-Za-z_]\w*", f"{lower} {upper}")) & set(counters)
        if outer - set(fixed) or len(outer) > 1:
            continue
        if outer:
            (u,) = outer
            affine = all(
                re.fullmatch(r"[\w\s+\-*()]*", bound) and len(re.findall(rf"\b{u}\b", bound)) <= 1
                for bound in (lower, upper)
            )
            if not affine:
                continue
            least, most = fixed[u][0], f"({fixed[u][1]}) - 1"
            lows = [re.sub(rf"\b{u}\b", f"({at})", lower) for at in (least, most)]
            highs = [re.sub(rf"\b{u}\b", f"({at})", upper) for at in (least, most)]
            lower = f"(({lows[0]}) < ({lows[1]}) ? ({lows[0]}) : ({lows[1]}))"
            upper = f"(({highs[0]}) > ({highs[1]}) ? ({highs[0]}) : ({highs[1]}))"
        if not _mentions_any(lower, assigned | set(counters)) and not _mentions_any(
            upper, assigned | set(counters)
        ):
            fixed[counter] = (lower, upper)
    return fixed


def _extent(
    base: str, event: AccessEvent, bounds: dict[str, tuple[str, str]], invariant: set[str]
) -> tuple[str, str, list[str]] | None:
    """Pointers to the first and the last element an access `p[e]` (or `p[e][f]` of a grid)
    reaches over the loop's iterations, with the run-time conditions that make them so, when
    each subscript is linear in counters of this loop or of loops inside it (`bounds` gives
    each as `lower <= v < upper`) with invariant coefficients: a subscript moves one way with
    each counter, so its extremes are at the counters' extremes. A coefficient that is not a
    number must be `>= 0` at run time. None for anything else."""
    firsts: list[str] = []
    lasts: list[str] = []
    needs: list[str] = []
    for index in event.index_nodes:
        form = _linear(index, set(bounds), invariant)
        if form is None:
            return None
        first = list(form.pop("", []))
        last = list(first)
        for counter, terms in form.items():
            scale = " + ".join(terms)
            lower, upper = bounds[counter]
            known = _number(scale)
            times = "" if known == 1 else f"({scale}) * "
            low, high = f"{times}({lower})", f"{times}(({upper}) - 1)"
            if known is None:
                needs.append(f"({scale}) >= 0")
            if known is not None and known < 0:
                low, high = high, low
            first.append(low)
            last.append(high)
        firsts.append("(" + " + ".join(first or ["0"]) + ")")
        lasts.append("(" + " + ".join(last or ["0"]) + ")")
    if len(firsts) == 1:
        return f"({base} + {firsts[0]})", f"({base} + {lasts[0]})", needs
    first_at = "".join(f"[{f}]" for f in firsts)
    last_at = "".join(f"[{f}]" for f in lasts)
    return f"(&{base}{first_at})", f"(&{base}{last_at})", needs


def _linear(node: Node, counters: set[str], invariant: set[str]) -> dict[str, list[str]] | None:
    """A subscript as {counter: its coefficient's terms, "": the invariant terms} (source
    text), when it is linear in `counters` with coefficients free of anything in `invariant`
    (what the loop changes): `(i - 1) * n + j` gives {i: [n], j: [1], "": [-(1) * (n)]}. A
    local holding its initializer is read as that value (`values.resolved`)."""
    node = resolved(node)
    shown = text(node)
    if not set(re.findall(r"[A-Za-z_]\w*", shown)) & counters:
        return None if _mentions_any(shown, invariant) else {"": [f"({shown})"]}
    if node.type == "identifier":
        return {shown: ["1"]}
    if node.type == "unary_expression" and text(node.children[0]) in ("+", "-"):
        inner = node.child_by_field_name("argument")
        form = _linear(inner, counters, invariant) if inner is not None else None
        if form is None or text(node.children[0]) == "+":
            return form
        return {k: [f"-({t})" for t in terms] for k, terms in form.items()}
    if node.type != "binary_expression":
        return None
    op = text(node.child_by_field_name("operator") or node)
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or op not in ("+", "-", "*"):
        return None
    a, b = _linear(left, counters, invariant), _linear(right, counters, invariant)
    if a is None or b is None:
        return None
    if op == "*":
        if set(a) == {""}:
            a, b = b, a
        if set(b) != {""}:
            return None
        factor = "(" + " + ".join(b[""]) + ")"
        return {k: [f"{factor} * ({t})" for t in terms] for k, terms in a.items()}
    merged = {k: list(terms) for k, terms in a.items()}
    for k, terms in b.items():
        merged.setdefault(k, []).extend(terms if op == "+" else [f"-({t})" for t in terms])
    return merged


def _number(expression: str) -> int | None:
    """The value of an expression of integer literals, `+`, `-`, `*` and parentheses."""
    try:
        tree = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return None
    return _value(tree)


def _value(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _value(node.operand)
        if inner is None:
            return None
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult):
        x, y = _value(node.left), _value(node.right)
        if x is None or y is None:
            return None
        if isinstance(node.op, ast.Add):
            return x + y
        return x - y if isinstance(node.op, ast.Sub) else x * y
    return None


def _mentions_any(expression: str, names: set[str]) -> bool:
    """Whether the source text `expression` names one of `names` (a call other than `.size()`
    counts as one: it may return something else each time)."""
    expression = expression.replace(".size()", "")
    words = set(re.findall(r"[A-Za-z_]\w*", expression))
    return bool(words & names) or re.search(r"[\w\]]\s*\(", expression) is not None
