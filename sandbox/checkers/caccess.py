"""Reads and writes of a C statement list, in evaluation order: the static checks' raw material.

`accesses(text, start, end)` walks the statements of a loop body (as blanked by
`clike.blank_comments_and_strings`) and lists every variable and array element each statement
reads and writes, right-hand side before the store, plus the names the body declares. Only
plain `name` and `name[...]...` l-values count as writes; anything else (`*p`, `s.f`) is not
tracked. Heuristic by design: the callers report only what these accesses prove.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sandbox.checkers.clike import KEYWORDS, matching

_NAME = re.compile(r"\s*([A-Za-z_]\w*)")
_CONTROL = re.compile(r"(for|if|while|switch)\s*\(")
_ELSE_DO = re.compile(r"(else|do)\b")
_ASSIGN = re.compile(r"(?<![=!<>+\-*/%&|^])(?:<<=|>>=|[+\-*/%&|^]?=)(?!=)")
_NOT_TYPES = frozenset(["return", "case", "goto", "else", "do", "sizeof", "delete", "new", "throw"])
_TYPE_START = re.compile(
    r"^\s*(?:(?:const|static|register|volatile|unsigned|signed|long|short|struct|constexpr)\s+)*"
    r"(?:[A-Za-z_][\w:]*)(?:\s*<[^;]*?>)?[\s*&]+(?P<rest>[A-Za-z_]\w*\s*(?:[\[=,;(]|$).*)$",
    re.S,
)


@dataclass
class Access:
    """One read or write of a variable (`subscripts` empty) or an array element."""

    name: str
    subscripts: list[str]
    write: bool
    offset: int  # in the source, for the line number
    order: int = 0


def accesses(blanked: str, start: int, end: int) -> tuple[list[Access], set[str]]:
    """Accesses in evaluation order (right-hand side before the store), and declared names."""
    found: list[Access] = []
    declared: set[str] = set()
    for s0, s1 in statements(blanked, start, end):
        names = _declared(blanked, s0, s1)
        if names is None:
            stmt = blanked[s0:s1]
            found += _expression(blanked, s0 + len(stmt) - len(stmt.lstrip()), s1)
            continue
        for _, name, init in names:
            declared.add(name)
            if init is not None:
                found += _reads(blanked, init[0], init[1])
    for k, a in enumerate(found):
        a.order = k
    return found, declared


def declarations(blanked: str, start: int, end: int) -> list[tuple[int, str, bool]]:
    """(offset, name, static) of every name declared in [start, end), in source order;
    `static` is true for static storage that is not const."""
    out: list[tuple[int, str, bool]] = []
    for s0, s1 in statements(blanked, start, end):
        names = _declared(blanked, s0, s1)
        if names:
            m = _TYPE_START.match(blanked[s0:s1])
            words = blanked[s0 : s0 + m.start("rest")].split() if m else []
            static = "static" in words and "const" not in words and "constexpr" not in words
            out += [(at, name, static) for at, name, _ in names]
    return out


def _declared(
    blanked: str, s0: int, s1: int
) -> list[tuple[int, str, tuple[int, int] | None]] | None:
    """The names a declaration statement declares, with their initializers' spans; None when
    the statement declares nothing."""
    m = _TYPE_START.match(blanked[s0:s1])
    if not m or m.group(0).split()[0] in _NOT_TYPES:
        return None
    names = []
    for part_start, part in _parts(blanked, s0 + m.start("rest"), s1):
        name_m = _NAME.match(part)
        if not name_m:
            continue
        eq = part.find("=")
        init = (part_start + eq + 1, part_start + len(part)) if eq >= 0 else None
        names.append((part_start + name_m.start(1), name_m.group(1), init))
    return names


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


def _expression(text: str, start: int, end: int) -> list[Access]:
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
        [Access(target.name, target.subscripts, False, target.offset)] if m.group() != "=" else []
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


def _target(text: str, start: int, end: int) -> Access | None:
    """The written object when the left-hand side is `name` or `name[...]...`."""
    lhs = text[start:end]
    m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*((?:\[.*\]\s*)*)", lhs, re.S)
    if not m or m.group(1) in KEYWORDS:
        return None
    subs = _subscripts(lhs, m.start(2), m.end(2))
    if subs is None:
        return None
    return Access(m.group(1), subs, True, start + m.start(1))


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


def _reads(text: str, start: int, end: int) -> list[Access]:
    found = []
    for m in re.finditer(r"[A-Za-z_]\w*", text[start:end]):
        name = m.group()
        before = text[start : start + m.start()].rstrip()
        if name in KEYWORDS or before.endswith((".", "->")) or (before and before[-1].isdigit()):
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
            found.append(Access(name, subs, False, start + m.start()))
        else:
            found.append(Access(name, [], False, start + m.start()))
    return found


def statements(text: str, start: int, end: int) -> list[tuple[int, int]]:
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
        m = _CONTROL.match(text, k)
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
        m = _ELSE_DO.match(text, k)
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
