"""Static OpenMP checks for what no dynamic race detector can see.

ThreadSanitizer watches threads. The lanes of a `simd` loop are not threads, so a loop-carried
dependence inside `#pragma omp simd` never shows up in a TSan report, whatever the thread
count. Nor does an `ordered` region that binds to a loop without the `ordered` clause: libomp
runs it unordered (and libgomp hangs) without a single racing access. This module finds both
from the source:

- **simd dependence**: in a `simd` loop over `i`, two accesses `a[i+p]` and `a[i+q]` (one a
  write) with p > q where the `a[i+p]` access comes later in the body: the later lane's element
  is touched by an earlier lane's statement first, which SIMD execution reverses. A `safelen(n)`
  with n <= p - q makes it safe. Writes of a shared scalar, or of one fixed element, from all
  lanes are reported too (reductions, private and linear variables excepted);
- **ordered misuse**: an orphaned `#pragma omp ordered` in a function called from a worksharing
  loop that lacks the `ordered` clause.

Subscripts the analysis cannot read (`a[2*i]`, `a[idx[i]]`, `a[i+k]` against `a[i]`) are left
alone: the pass reports only what it can show, so it adds no false alarms to the dynamic check.
An offset that is a local keeping its literal initial value (`int m = 1; ... a[i - m]`) counts
as that number.

`check_source` also runs the synchronization rules of `omp_sync` (lastprivate with nowait, task
results read before a taskwait), `omp_tasks` (what depend clauses and taskwait leave unordered,
mergeable tasks) and `omp_regions` (master/masked without a barrier, critical sections of
different names, critical and distribute inside teams, atomic flags without release/acquire,
static locals, shared writes under a condition no iteration changes). Two rules on one access:
the first one's finding stands.
"""

from __future__ import annotations

import re

from sandbox.checkers.caccess import Access, accesses
from sandbox.checkers.clike import (
    KEYWORDS,
    CountedLoop,
    Pragma,
    blank_comments_and_strings,
    functions,
    identifiers,
    line_of,
    loop_after,
    matching,
    pragmas,
)
from sandbox.checkers.omp_regions import check_regions
from sandbox.checkers.omp_scope import Scope, privatized
from sandbox.checkers.omp_sync import check_sync
from sandbox.checkers.omp_tasks import check_tasks
from sandbox.verdict import Finding

TOOL = "static"


def check_source(source: str) -> list[Finding]:
    """Findings of every static pass (simd, ordered, lastprivate/nowait, task results), by line."""
    blanked = blank_comments_and_strings(source)
    scope = Scope(blanked)
    found = check_simd(blanked) + check_ordered(blanked) + check_sync(blanked)
    found += check_tasks(scope) + check_regions(scope)
    unique: dict[tuple[int | None, str | None], Finding] = {}
    for f in found:
        unique.setdefault((f.line, f.variable), f)  # two rules on one access: the first says it
    return sorted(unique.values(), key=lambda f: f.line or 0)


def check_simd(blanked: str) -> list[Finding]:
    """Loop-carried dependences and shared writes inside `simd` loops."""
    found: list[Finding] = []
    for p in pragmas(blanked):
        if not p.has_word("simd") or p.has_word("declare") or p.has_word("ordered"):
            continue
        if _int_clause(p, "collapse", 1) > 1:
            continue  # lanes span several loop variables: beyond this pass
        loop = loop_after(blanked, p.end)
        if loop is None:
            continue
        body = blanked[loop.body_start : loop.body_end]
        if re.search(r"#\s*pragma\s+omp\s+ordered", body):
            continue  # dependences under `ordered simd` are the author's stated intent
        found += _check_simd_loop(blanked, p, loop, _constants(blanked, p.start))
    return found


def _constants(blanked: str, at: int) -> dict[str, int]:
    """Integer locals of the function around `at` that keep their literal initial value: declared
    `name = 3` and never assigned, incremented or had their address taken afterwards."""
    function = next(((s, e) for _, s, e in functions(blanked) if s <= at < e), None)
    if function is None:
        return {}
    start, end = function
    body = blanked[start:end]
    found, _ = accesses(blanked, start + 1, end)
    written = {a.name for a in found if a.write}
    decl = r"\b(?:int|long|short|unsigned|size_t)\b[^;{}()]*?\b"
    values: dict[str, int] = {}
    for m in re.finditer(decl + r"([A-Za-z_]\w*)\s*=\s*(\d+)\s*[,;]", body):
        name = m.group(1)
        if name in written or re.search(rf"&\s*{name}\b", body):
            continue
        declarator = rf"(?:\b(?:int|long|short|unsigned|size_t)\b[\s*]+|,\s*){name}\s*[=;,\[]"
        if len(re.findall(declarator, body)) > 1:
            continue  # declared twice (shadowed): the pass cannot tell which one a use means
        values[name] = int(m.group(2))
    return values


def _check_simd_loop(
    blanked: str, p: Pragma, loop: CountedLoop, constants: dict[str, int]
) -> list[Finding]:
    safelen = _int_clause(p, "safelen", 0) or None
    exempt = {loop.var} | privatized(p)
    found_accesses, declared = accesses(blanked, loop.body_start, loop.body_end)
    exempt |= declared
    findings: list[Finding] = []
    reported: set[str] = set()

    def report(name: str, at: int, message: str, kind: str = "simd dependence") -> None:
        if name in reported:
            return
        reported.add(name)
        line = line_of(blanked, at)
        findings.append(Finding(kind=kind, tool=TOOL, message=message, line=line, variable=name))

    written_scalars = {a.name for a in found_accesses if a.write and not a.subscripts}
    invariant = {a.name for a in found_accesses if not a.write} - written_scalars
    for a in found_accesses:
        if a.write and not a.subscripts and a.name not in exempt:
            report(
                a.name,
                a.offset,
                f"simd loop (line {p.line}) writes shared scalar `{a.name}` in every lane; "
                "make it private, or a reduction",
                kind="simd shared write",
            )
    by_array: dict[str, list[Access]] = {}
    for a in found_accesses:
        if a.subscripts and a.name not in exempt:
            by_array.setdefault(a.name, []).append(a)
    for name, group in by_array.items():
        if not any(a.write for a in group):
            continue
        shapes = [_shape(a.subscripts, loop.var, invariant, constants) for a in group]
        if any(s is None for s in shapes):
            continue  # some subscript is not `i + constant`: say nothing
        for a, shape in zip(group, shapes, strict=True):
            assert shape is not None
            if a.write and shape[0] < 0:
                report(
                    name,
                    a.offset,
                    f"simd loop (line {p.line}) writes the same element of `{name}` in every lane",
                    kind="simd shared write",
                )
        for later, s_later in zip(group, shapes, strict=True):
            for earlier, s_earlier in zip(group, shapes, strict=True):
                if earlier.order >= later.order or not (earlier.write or later.write):
                    continue
                assert s_later is not None and s_earlier is not None
                if s_later[0] < 0 or s_later[:2] != s_earlier[:2] or s_later[3] != s_earlier[3]:
                    continue
                distance = s_later[2] - s_earlier[2]
                if distance <= 0 or (safelen is not None and distance >= safelen):
                    continue
                fix = f"add safelen({distance}) or drop simd" if distance > 1 else "drop simd"
                report(
                    name,
                    later.offset,
                    f"simd loop (line {p.line}) carries a dependence of distance {distance} on "
                    f"`{name}` (line {line_of(blanked, later.offset)}) that SIMD lanes run out of "
                    f"order: {fix}",
                )
    return findings


def _shape(
    subscripts: list[str], var: str, invariant: set[str], constants: dict[str, int] | None = None
) -> tuple[int, tuple[str, ...], int, frozenset[str]] | None:
    """(dimension of `var` or -1, the other subscripts, constant offset, symbolic offset).

    None when a subscript uses `var` in any way but `var + offset`, or when an offset term is
    a variable the loop itself changes.
    """
    dim, const, symbols = -1, 0, frozenset[str]()
    others: list[str] = []
    for k, sub in enumerate(subscripts):
        text = "".join(sub.split())
        if var not in identifiers(text):
            others.append(text)
            continue
        if dim >= 0:
            return None  # `var` in two subscripts
        terms = _terms(text)
        if terms is None or terms.count(("+", var)) != 1 or ("-", var) in terms:
            return None
        dim = k
        syms = []
        for sign, term in terms:
            if term == var:
                continue
            if term.isdigit() or term in (constants or {}):
                value = int(term) if term.isdigit() else (constants or {})[term]
                const += value if sign == "+" else -value
            elif var in identifiers(term) or not set(identifiers(term)) <= invariant | KEYWORDS:
                return None
            else:
                syms.append(sign + term)
        symbols = frozenset(syms)
    return dim, tuple(others), const, symbols


def _terms(text: str) -> list[tuple[str, str]] | None:
    while text.startswith("(") and matching(text, 0) == len(text) - 1:
        text = text[1:-1]
    terms, depth, sign, cur = [], 0, "+", ""
    for k, c in enumerate(text):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c in "+-" and depth == 0 and k > 0 and text[k - 1] not in "*/%eE(":
            if not cur:
                return None
            terms.append((sign, cur))
            sign, cur = c, ""
        elif c in "+-" and depth == 0 and k == 0:
            sign = c
        else:
            cur += c
    if not cur:
        return None
    terms.append((sign, cur))
    return terms


def _int_clause(p: Pragma, name: str, default: int) -> int:
    for args in p.clause_args(name):
        if args.strip().isdigit():
            return int(args.strip())
    return default


def check_ordered(blanked: str) -> list[Finding]:
    """Orphaned `ordered` regions reached from loops without the `ordered` clause."""
    all_pragmas = pragmas(blanked)
    loops: list[tuple[Pragma, int, int]] = []
    for p in all_pragmas:
        if p.has_word("for") and not p.has_word("cancel") and not p.has_word("cancellation"):
            loop = loop_after(blanked, p.end)
            if loop is not None:
                loops.append((p, loop.body_start, loop.body_end))
    defined = functions(blanked)
    orphan_in: dict[str, int] = {}
    for p in all_pragmas:
        if p.directive != "ordered" or p.has_clause("depend") or p.has_clause("doacross"):
            continue
        if any(s <= p.start < e for _, s, e in loops):
            continue  # closely nested: the compiler checks the clause itself
        for name, s, e in defined:
            if s <= p.start < e:
                orphan_in.setdefault(name, p.line)
    findings = []
    for p, s, e in loops:
        if p.has_clause("ordered"):
            continue
        for name, line in orphan_in.items():
            call = re.search(rf"\b{re.escape(name)}\s*\(", blanked[s:e])
            if call:
                findings.append(
                    Finding(
                        kind="ordered misuse",
                        tool=TOOL,
                        message=(
                            f"`{name}` has an ordered region (line {line}) but is called from a "
                            f"loop (line {p.line}) without the `ordered` clause: the region runs "
                            "unordered (libomp) or hangs (libgomp)"
                        ),
                        line=line_of(blanked, s + call.start()),
                        variable=None,
                    )
                )
    return findings
