"""Static OpenMP checks for what no dynamic race detector can see, and the schedule rewrite.

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

`with_runtime_schedule` rewrites worksharing loops that have no `schedule` clause to
`schedule(runtime)`, so that `OMP_SCHEDULE` can vary how iterations map to threads. OpenMP leaves
the default schedule to the implementation, so a program that relies on it has a latent race.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sandbox.checkers.clike import (
    Pragma,
    blank_comments_and_strings,
    identifiers,
    line_of,
    matching,
    pragmas,
    split_top_level,
)
from sandbox.verdict import Finding

TOOL = "static"

_ASSIGN = re.compile(r"(?<![=!<>+\-*/%&|^])(?:<<=|>>=|[+\-*/%&|^]?=)(?!=)")
_KEYWORDS = frozenset(
    [
        "if",
        "else",
        "for",
        "while",
        "do",
        "switch",
        "case",
        "return",
        "break",
        "continue",
        "sizeof",
        "goto",
        "default",
        "const",
        "static",
        "volatile",
        "register",
        "unsigned",
        "signed",
        "struct",
        "union",
        "enum",
        "typedef",
        "true",
        "false",
        "nullptr",
        "new",
        "delete",
    ]
)
_NOT_TYPES = frozenset(["return", "case", "goto", "else", "do", "sizeof", "delete", "new", "throw"])
_TYPE_START = re.compile(
    r"^\s*(?:(?:const|static|register|volatile|unsigned|signed|long|short|struct|constexpr)\s+)*"
    r"(?:[A-Za-z_][\w:]*)(?:\s*<[^;]*?>)?[\s*&]+(?P<rest>[A-Za-z_]\w*\s*(?:[\[=,;(]|$).*)$",
    re.S,
)


def check_source(source: str) -> list[Finding]:
    """Findings of both static passes, ordered by line."""
    blanked = blank_comments_and_strings(source)
    found = check_simd(blanked) + check_ordered(blanked)
    return sorted(found, key=lambda f: f.line or 0)


# --- simd -----------------------------------------------------------------------------------


@dataclass
class _Access:
    name: str
    subscripts: list[str]
    write: bool
    offset: int  # in the source, for the line number
    order: int = 0


@dataclass
class _Loop:
    var: str
    body_start: int
    body_end: int
    private: set[str] = field(default_factory=set)


def check_simd(blanked: str) -> list[Finding]:
    """Loop-carried dependences and shared writes inside `simd` loops."""
    found: list[Finding] = []
    for p in pragmas(blanked):
        if not p.has_word("simd") or p.has_word("declare") or p.has_word("ordered"):
            continue
        if _int_clause(p, "collapse", 1) > 1:
            continue  # lanes span several loop variables: beyond this pass
        loop = _loop_after(blanked, p.end)
        if loop is None:
            continue
        body = blanked[loop.body_start : loop.body_end]
        if re.search(r"#\s*pragma\s+omp\s+ordered", body):
            continue  # dependences under `ordered simd` are the author's stated intent
        found += _check_simd_loop(blanked, p, loop)
    return found


def _check_simd_loop(blanked: str, p: Pragma, loop: _Loop) -> list[Finding]:
    safelen = _int_clause(p, "safelen", 0) or None
    exempt = {loop.var} | _clause_vars(p)
    accesses, declared = _accesses(blanked, loop.body_start, loop.body_end)
    exempt |= declared
    findings: list[Finding] = []
    reported: set[str] = set()

    def report(name: str, at: int, message: str, kind: str = "simd dependence") -> None:
        if name in reported:
            return
        reported.add(name)
        line = line_of(blanked, at)
        findings.append(Finding(kind=kind, tool=TOOL, message=message, line=line, variable=name))

    written_scalars = {a.name for a in accesses if a.write and not a.subscripts}
    invariant = {a.name for a in accesses if not a.write} - written_scalars
    for a in accesses:
        if a.write and not a.subscripts and a.name not in exempt:
            report(
                a.name,
                a.offset,
                f"simd loop (line {p.line}) writes shared scalar `{a.name}` in every lane; "
                "make it private, or a reduction",
                kind="simd shared write",
            )
    by_array: dict[str, list[_Access]] = {}
    for a in accesses:
        if a.subscripts and a.name not in exempt:
            by_array.setdefault(a.name, []).append(a)
    for name, group in by_array.items():
        if not any(a.write for a in group):
            continue
        shapes = [_shape(a.subscripts, loop.var, invariant) for a in group]
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
                report(
                    name,
                    later.offset,
                    f"simd loop (line {p.line}) carries a dependence of distance {distance} on "
                    f"`{name}` (line {line_of(blanked, later.offset)}) that SIMD lanes run out of "
                    f"order: add safelen({distance}) or drop simd",
                )
    return findings


def _shape(
    subscripts: list[str], var: str, invariant: set[str]
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
            if term.isdigit():
                const += int(term) if sign == "+" else -int(term)
            elif var in identifiers(term) or not set(identifiers(term)) <= invariant | _KEYWORDS:
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


def _accesses(blanked: str, start: int, end: int) -> tuple[list[_Access], set[str]]:
    """Accesses in evaluation order (right-hand side before the store), and declared names."""
    accesses: list[_Access] = []
    declared: set[str] = set()
    for s0, s1 in _statements(blanked, start, end):
        stmt = blanked[s0:s1]
        lead = len(stmt) - len(stmt.lstrip())
        if (m := _TYPE_START.match(stmt)) and m.group(0).split()[0] not in _NOT_TYPES:
            rest_at = s0 + m.start("rest")
            for part_start, part in _parts(blanked, rest_at, s1):
                name_m = re.match(r"\s*([A-Za-z_]\w*)", part)
                if not name_m:
                    continue
                declared.add(name_m.group(1))
                eq = part.find("=")
                if eq >= 0:
                    accesses += _reads(blanked, part_start + eq + 1, part_start + len(part))
            continue
        accesses += _expression(blanked, s0 + lead, s1)
    for k, a in enumerate(accesses):
        a.order = k
    return accesses, declared


def _parts(text: str, start: int, end: int) -> list[tuple[int, str]]:
    out, depth, cur_start = [], 0, start
    for k in range(start, end):
        c = text[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append((cur_start, text[cur_start:k]))
            cur_start = k + 1
    out.append((cur_start, text[cur_start:end]))
    return out


def _expression(text: str, start: int, end: int) -> list[_Access]:
    """Accesses of one expression statement: `lhs op= rhs`, `x++`, or a plain expression."""
    expr = text[start:end]
    m = _top_level(expr, _ASSIGN)
    if m is None:
        inc = re.fullmatch(r"\s*(\+\+|--)?\s*(.+?)\s*(\+\+|--)?\s*", expr, re.S)
        if inc and (inc.group(1) or inc.group(3)):
            target_at = start + inc.start(2)
            target = _target(text, target_at, start + inc.end(2))
            if target is not None:
                reads = _reads(text, target_at, start + inc.end(2))
                return [*reads, target]
        return _reads(text, start, end)
    lhs_end, rhs_start = start + m.start(), start + m.end()
    rhs = _expression(text, rhs_start, end)  # `a = b = c` assigns right to left
    target = _target(text, start, lhs_end)
    lhs_reads = _reads(text, start, lhs_end)
    if target is None:
        return [*rhs, *lhs_reads]
    inner = lhs_reads[1:]  # reads inside the target's subscripts
    compound = (
        [_Access(target.name, target.subscripts, False, target.offset)] if m.group() != "=" else []
    )
    return [*rhs, *inner, *compound, target]


def _top_level(expr: str, pattern: re.Pattern[str]) -> re.Match[str] | None:
    depth = 0
    for k, c in enumerate(expr):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and c == "?":
            return None  # a conditional expression: the assignment, if any, is inside it
        elif depth == 0 and (m := pattern.match(expr, k)):
            return m
    return None


def _target(text: str, start: int, end: int) -> _Access | None:
    """The written object when the left-hand side is `name` or `name[...]...`."""
    lhs = text[start:end]
    m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*((?:\[.*\]\s*)*)", lhs, re.S)
    if not m or m.group(1) in _KEYWORDS:
        return None
    subs = _subscripts(lhs, m.start(2), m.end(2))
    if subs is None:
        return None
    return _Access(m.group(1), subs, True, start + m.start(1))


def _subscripts(text: str, start: int, end: int) -> list[str] | None:
    subs = []
    k = start
    while k < end:
        if text[k].isspace():
            k += 1
            continue
        if text[k] != "[":
            return None
        close = matching(text, k)
        if close < 0:
            return None
        subs.append(text[k + 1 : close])
        k = close + 1
    return subs


def _reads(text: str, start: int, end: int) -> list[_Access]:
    found = []
    for m in re.finditer(r"[A-Za-z_]\w*", text[start:end]):
        name = m.group()
        before = text[start : start + m.start()].rstrip()
        if name in _KEYWORDS or before.endswith((".", "->")) or (before and before[-1].isdigit()):
            continue
        after = start + m.end()
        rest = text[after:end].lstrip()
        if rest.startswith("("):
            continue  # a function or a cast-like call
        if rest.startswith("["):
            k = after + (len(text[after:end]) - len(rest))
            subs, stop = [], k
            while stop < end and text[stop] == "[":
                close = matching(text, stop)
                if close < 0 or close >= end:
                    break
                subs.append(text[stop + 1 : close])
                stop = close + 1
                while stop < end and text[stop].isspace():
                    stop += 1
            found.append(_Access(name, subs, False, start + m.start()))
        else:
            found.append(_Access(name, [], False, start + m.start()))
    return found


def _statements(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of the simple statements in a body; control headers become statements too."""
    spans: list[tuple[int, int]] = []
    k, cur = start, start
    while k < end:
        c = text[k]
        if c == "#":  # a directive inside the body
            nl = text.find("\n", k)
            k = cur = end if nl < 0 else nl + 1
            continue
        if c in "{}":
            if text[cur:k].strip():
                spans.append((cur, k))
            k = cur = k + 1
            continue
        if c == ";":
            if text[cur:k].strip():
                spans.append((cur, k))
            k = cur = k + 1
            continue
        m = re.compile(r"(for|if|while|switch)\s*\(").match(text, k)
        if (
            m
            and not text[cur:k].strip()
            and (k == 0 or not (text[k - 1].isalnum() or text[k - 1] == "_"))
        ):
            close = matching(text, m.end() - 1)
            if close < 0 or close > end:
                break
            inner_start = m.end()
            if m.group(1) == "for":
                for piece_start, piece in _parts_by(text, inner_start, close, ";"):
                    if piece.strip():
                        spans.append((piece_start, piece_start + len(piece)))
            else:
                spans.append((inner_start, close))
            k = cur = close + 1
            continue
        m = re.compile(r"(else|do)\b").match(text, k)
        if m and not text[cur:k].strip():
            k = cur = m.end()
            continue
        k += 1
    if text[cur:end].strip():
        spans.append((cur, end))
    return spans


def _parts_by(text: str, start: int, end: int, sep: str) -> list[tuple[int, str]]:
    out, depth, cur = [], 0, start
    for k in range(start, end):
        if text[k] in "([{":
            depth += 1
        elif text[k] in ")]}":
            depth -= 1
        elif text[k] == sep and depth == 0:
            out.append((cur, text[cur:k]))
            cur = k + 1
    out.append((cur, text[cur:end]))
    return out


def _loop_after(blanked: str, pos: int) -> _Loop | None:
    """The `for` loop a directive applies to, when it is a plain counted loop."""
    m = re.compile(r"\s*for\s*\(").match(blanked, pos)
    if not m:
        return None
    close = matching(blanked, m.end() - 1)
    if close < 0:
        return None
    header = blanked[m.end() : close]
    pieces = header.split(";")
    if len(pieces) != 3:
        return None  # a range-based for: no index to reason about
    var = re.search(r"([A-Za-z_]\w*)\s*=(?!=)", pieces[0])
    if not var:
        return None
    body_start, body_end = _statement_extent(blanked, close + 1)
    if body_end < 0:
        return None
    return _Loop(var=var.group(1), body_start=body_start, body_end=body_end)


def _statement_extent(text: str, pos: int) -> tuple[int, int]:
    """(start, end) of the statement starting at `pos`; braces excluded for a block."""
    k = pos
    while k < len(text) and text[k].isspace():
        k += 1
    if k >= len(text):
        return k, -1
    if text[k] == "{":
        close = matching(text, k)
        return k + 1, close
    m = re.compile(r"(for|while|if|switch)\s*\(").match(text, k)
    if m:
        close = matching(text, m.end() - 1)
        if close < 0:
            return k, -1
        _, inner_end = _statement_extent(text, close + 1)
        if inner_end < 0:
            return k, -1
        after = inner_end + (1 if text[inner_end : inner_end + 1] in ("}", ";") else 0)
        if m.group(1) == "if" and (e := re.compile(r"\s*else\b").match(text, after)):
            _, inner_end = _statement_extent(text, e.end())
            after = inner_end + (1 if text[inner_end : inner_end + 1] in ("}", ";") else 0)
        return k, after
    if text[k] == "#":
        nl = text.find("\n", k)
        return _statement_extent(text, nl + 1) if nl >= 0 else (k, -1)
    semi = k
    depth = 0
    while semi < len(text):
        c = text[semi]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ";" and depth == 0:
            return k, semi
        semi += 1
    return k, -1


def _clause_vars(p: Pragma) -> set[str]:
    names: set[str] = set()
    for clause in ("private", "firstprivate", "lastprivate", "linear", "reduction"):
        for args in p.clause_args(clause):
            if ":" in args and clause in ("reduction", "lastprivate"):
                args = args.split(":", 1)[1]  # `reduction(+: s)`, `lastprivate(conditional: x)`
            elif ":" in args and clause == "linear":
                args = args.split(":", 1)[0]  # `linear(j: 2)`
            names |= {identifiers(v)[-1] for v in split_top_level(args) if identifiers(v)}
    return names


def _int_clause(p: Pragma, name: str, default: int) -> int:
    for args in p.clause_args(name):
        if args.strip().isdigit():
            return int(args.strip())
    return default


# --- ordered --------------------------------------------------------------------------------


def check_ordered(blanked: str) -> list[Finding]:
    """Orphaned `ordered` regions reached from loops without the `ordered` clause."""
    all_pragmas = pragmas(blanked)
    loops: list[tuple[Pragma, int, int]] = []
    for p in all_pragmas:
        if p.has_word("for") and not p.has_word("cancel") and not p.has_word("cancellation"):
            loop = _loop_after(blanked, p.end)
            if loop is not None:
                loops.append((p, loop.body_start, loop.body_end))
    functions = _functions(blanked)
    orphan_in: dict[str, int] = {}
    for p in all_pragmas:
        if p.directive != "ordered" or p.has_clause("depend") or p.has_clause("doacross"):
            continue
        if any(s <= p.start < e for _, s, e in loops):
            continue  # closely nested: the compiler checks the clause itself
        for name, s, e in functions:
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


def _functions(blanked: str) -> list[tuple[str, int, int]]:
    """(name, body start, body end) of top-level function definitions."""
    found = []
    depth = 0
    k = 0
    while k < len(blanked):
        c = blanked[k]
        if c == "{":
            if depth == 0:
                head = blanked[max(0, k - 400) : k].rstrip()
                m = re.search(r"([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:const\s*)?$", head)
                close = matching(blanked, k)
                if m and m.group(1) not in _KEYWORDS and close > 0:
                    found.append((m.group(1), k, close))
                    k = close + 1
                    continue
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        k += 1
    return found


# --- schedule rewrite -----------------------------------------------------------------------


def with_runtime_schedule(source: str) -> tuple[str, int]:
    """The source with `schedule(runtime)` added to worksharing loops that have no schedule.

    Returns the new source and how many directives changed. Line numbers do not move.
    """
    blanked = blank_comments_and_strings(source)
    edits = []
    for p in pragmas(blanked):
        d = p.directive.split()
        if (
            "for" not in d
            or {"cancel", "cancellation", "declare"} & set(d)
            or p.has_clause("schedule")
        ):
            continue
        at = p.start + len(blanked[p.start : p.end].rstrip())
        if blanked[at - 1 : at] == "\\":
            continue  # a continuation with nothing after it: leave the odd directive alone
        edits.append(at)
    out = source
    for at in reversed(edits):
        out = out[:at] + " schedule(runtime)" + out[at:]
    return out, len(edits)
