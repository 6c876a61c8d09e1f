"""Compiler and linker messages (gcc, clang, nvcc, ptxas, ld) as structured diagnostics."""

from __future__ import annotations

import re

from sandbox.verdict import Diagnostic

MAX_DIAGNOSTICS = 50

# gcc / clang: `main.c:3:21: warning: unused variable 'x' [-Wunused-variable]`
_GCC = re.compile(
    r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?:(?P<col>\d+):)?\s*"
    r"(?P<sev>fatal error|error|warning):\s*(?P<msg>.+)$"
)
# nvcc front end: `main.cu(12): error: identifier "x" is undefined`
_NVCC = re.compile(
    r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+)\):\s*(?P<sev>catastrophic error|error|warning)"
    r"(?:\s*#[\w-]+)?:\s*(?P<msg>.+)$"
)
# ptxas: `ptxas error   : Entry function 'k' uses too much shared data`
_PTXAS = re.compile(r"^ptxas\s+(?P<sev>fatal|error|warning)\s*:\s*(?P<msg>.+)$")
# ld: `main.c:(.text+0xa): undefined reference to `foo'`
_LD = re.compile(r"^(?P<file>[^\s:][^:]*?):\(\.\w+[^)]*\):\s*(?P<msg>.+)$")
# driver-level: `collect2: error: ld returned 1 exit status`, `clang: error: linker command failed`
_DRIVER = re.compile(r"^(?P<tool>[\w.+-]+): (?P<sev>fatal error|error):\s*(?P<msg>.+)$")


def parse_diagnostics(text: str, limit: int = MAX_DIAGNOSTICS) -> list[Diagnostic]:
    """Errors and warnings from a build's output, in order, without duplicates.

    Notes, caret lines and context lines are dropped: they explain a diagnostic, they are not one.
    """
    found: list[Diagnostic] = []
    seen: set[tuple[str, str | None, int | None, str]] = set()
    for raw in text.splitlines():
        diag = _parse_line(raw.rstrip())
        if diag is None:
            continue
        key = (diag.severity, diag.file, diag.line, diag.message)
        if key in seen:
            continue
        seen.add(key)
        found.append(diag)
        if len(found) >= limit:
            break
    return found


def _parse_line(line: str) -> Diagnostic | None:
    if m := _GCC.match(line):
        col = m["col"]
        return Diagnostic(
            severity=_severity(m["sev"]),
            message=m["msg"].strip(),
            file=m["file"],
            line=int(m["line"]),
            column=int(col) if col else None,
        )
    if m := _NVCC.match(line):
        return Diagnostic(
            severity=_severity(m["sev"]),
            message=m["msg"].strip(),
            file=m["file"],
            line=int(m["line"]),
        )
    if m := _PTXAS.match(line):
        return Diagnostic(severity=_severity(m["sev"]), message=f"ptxas: {m['msg'].strip()}")
    if m := _LD.match(line):
        return Diagnostic(severity="error", message=m["msg"].strip(), file=m["file"])
    if m := _DRIVER.match(line):
        return Diagnostic(severity="error", message=f"{m['tool']}: {m['msg'].strip()}")
    return None


def _severity(word: str) -> str:
    return "warning" if word == "warning" else "error"


def summarize(diagnostics: list[Diagnostic], limit: int = 3) -> str:
    """A one-line reason from the first few errors (or warnings when there are no errors)."""
    errors = [d for d in diagnostics if d.severity == "error"] or diagnostics
    parts = []
    for d in errors[:limit]:
        where = f"{d.file}:{d.line}: " if d.file and d.line else (f"{d.file}: " if d.file else "")
        parts.append(f"{where}{d.message}")
    more = len(errors) - limit
    return "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")
