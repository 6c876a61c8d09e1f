"""Just enough C/C++ lexing for the source checks: comments, strings, pragmas, brackets.

Not a parser. Every helper keeps offsets and line numbers of the original text, so a finding
points at the line the author wrote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_IDENT = re.compile(r"[A-Za-z_]\w*")


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

    @property
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
