"""Just enough C/C++ lexing for the source checks: comments, strings, pragmas, brackets.

Not a parser. Every helper keeps offsets and line numbers of the original text, so a finding
points at the line the author wrote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

_IDENT = re.compile(r"[A-Za-z_]\w*")
_FOR = re.compile(r"\s*for\s*\(")
_CONTROL = re.compile(r"(for|while|if|switch)\s*\(")
_ELSE = re.compile(r"\s*else\b")
KEYWORDS = frozenset(
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


def blank_comments_and_strings(source: str) -> str:
    """The source with comments and string/char literals replaced by spaces (newlines kept)."""
    out = list(source)
    i, n = 0, len(source)

    def blank(start: int, end: int) -> None:
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            # A comment ending in a backslash continues onto the next line; rare, and harmless here.
            blank(i, end)
            i = end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and source[j] != c and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            blank(i + 1, j)  # keep the quotes so `"x"` stays a token boundary
            i = j + 1
        else:
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class Pragma:
    """One `#pragma omp ...` directive, continuation lines joined."""

    text: str
    """Everything after `omp`, white space collapsed: `parallel for reduction(+:s)`."""
    line: int
    """1-based line of the `#pragma`."""
    start: int
    """Offset of the `#` in the source."""
    end: int
    """Offset just past the directive's last line (its newline excluded)."""

    def has_word(self, word: str) -> bool:
        """Whether the construct's name contains `word` (`for` in `parallel for simd`)."""
        return word in self.directive.split()

    def has_clause(self, name: str) -> bool:
        """Whether a clause called `name` follows the construct's name."""
        rest = self.text[len(self.directive) :]
        return re.search(rf"\b{re.escape(name)}\b", rest) is not None

    @cached_property
    def directive(self) -> str:
        """The construct's name words (`parallel for simd`), clauses dropped."""
        words: list[str] = []
        for tok in re.findall(r"[A-Za-z_]\w*|\S", self.text):
            # `ordered` names a construct only in first place; elsewhere it is the clause.
            if tok not in _CONSTRUCT_WORDS or (tok == "ordered" and words):
                break
            words.append(tok)
        return " ".join(words)

    def clause_args(self, name: str) -> list[str]:
        """The argument text of every `name(...)` clause."""
        found = []
        for m in re.finditer(rf"\b{re.escape(name)}\s*\(", self.text):
            close = matching(self.text, m.end() - 1)
            if close > 0:
                found.append(self.text[m.end() : close])
        return found


_CONSTRUCT_WORDS = frozenset(
    [
        "parallel",
        "for",
        "simd",
        "do",
        "sections",
        "section",
        "single",
        "master",
        "masked",
        "task",
        "taskloop",
        "taskwait",
        "taskyield",
        "taskgroup",
        "critical",
        "atomic",
        "barrier",
        "flush",
        "ordered",
        "target",
        "teams",
        "distribute",
        "loop",
        "declare",
        "threadprivate",
        "cancel",
        "cancellation",
        "point",
        "scan",
        "depobj",
        "requires",
        "tile",
        "unroll",
    ]
)


def pragmas(blanked: str) -> list[Pragma]:
    """Every OpenMP directive in comment-free source (see `blank_comments_and_strings`)."""
    found = []
    for m in re.finditer(r"^[ \t]*#[ \t]*pragma[ \t]+omp\b", blanked, re.M):
        end = m.end()
        parts = []
        while True:
            nl = blanked.find("\n", end)
            nl = len(blanked) if nl < 0 else nl
            chunk = blanked[end:nl]
            if chunk.rstrip().endswith("\\"):
                parts.append(chunk.rstrip()[:-1])
                end = nl + 1
                continue
            parts.append(chunk)
            end = nl
            break
        text = " ".join(" ".join(parts).split())
        found.append(Pragma(text=text, line=line_of(blanked, m.start()), start=m.start(), end=end))
    return found


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def matching(text: str, open_at: int) -> int:
    """Offset of the bracket closing the one at `open_at`, or -1."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    opener = text[open_at]
    closer = pairs[opener]
    depth = 0
    for k in range(open_at, len(text)):
        if text[k] == opener:
            depth += 1
        elif text[k] == closer:
            depth -= 1
            if depth == 0:
                return k
    return -1


def identifiers(text: str) -> list[str]:
    return _IDENT.findall(text)


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split on `sep` outside brackets."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


@dataclass
class CountedLoop:
    """A counted `for` loop: its index and the span of its body (braces excluded)."""

    var: str
    body_start: int
    body_end: int


def loop_after(blanked: str, pos: int) -> CountedLoop | None:
    """The `for` loop a directive applies to, when it is a plain counted loop."""
    m = _FOR.match(blanked, pos)
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
    body_start, body_end = statement_extent(blanked, close + 1)
    if body_end < 0:
        return None
    return CountedLoop(var=var.group(1), body_start=body_start, body_end=body_end)


def statement_extent(text: str, pos: int) -> tuple[int, int]:
    """(start, end) of the statement starting at `pos`; braces excluded for a block."""
    k = pos
    while k < len(text) and text[k].isspace():
        k += 1
    if k >= len(text):
        return k, -1
    if text[k] == "{":
        close = matching(text, k)
        return k + 1, close
    m = _CONTROL.match(text, k)
    if m:
        close = matching(text, m.end() - 1)
        if close < 0:
            return k, -1
        _, inner_end = statement_extent(text, close + 1)
        if inner_end < 0:
            return k, -1
        after = inner_end + (1 if text[inner_end : inner_end + 1] in ("}", ";") else 0)
        if m.group(1) == "if" and (e := _ELSE.match(text, after)):
            _, inner_end = statement_extent(text, e.end())
            after = inner_end + (1 if text[inner_end : inner_end + 1] in ("}", ";") else 0)
        return k, after
    if text[k] == "#":
        nl = text.find("\n", k)
        return statement_extent(text, nl + 1) if nl >= 0 else (k, -1)
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


def functions(blanked: str) -> list[tuple[str, int, int]]:
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
                if m and m.group(1) not in KEYWORDS and close > 0:
                    found.append((m.group(1), k, close))
                    k = close + 1
                    continue
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        k += 1
    return found
