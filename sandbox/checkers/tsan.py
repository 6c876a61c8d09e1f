"""ThreadSanitizer reports (from an Archer-enabled OpenMP run) as findings.

A report looks like this (paths shortened with TSan's `strip_path_prefix`):

    WARNING: ThreadSanitizer: data race (pid=20221)
      Write of size 4 at 0x562e056f2258 by thread T1:
        #0 .omp_outlined._debug__ main.c:8:42 (prog+0xd02b0)
        ...
      Previous write of size 4 at 0x562e056f2258 by main thread:
        #0 .omp_outlined._debug__ main.c:8:42 (prog+0xd02b0)
      Location is global 'counter' of size 4 at 0x562e056f2258 (prog+0x1476258)
    SUMMARY: ThreadSanitizer: data race main.c:8:42 in .omp_outlined._debug__

TSan names globals only; for stack and heap locations the variable is read off the source at
the reported line and column (clang points a store at its assignment operator).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from sandbox.verdict import Finding

TOOL = "archer-tsan"
ARCHER_BANNER = "Archer detected OpenMP application with TSan"
"""Printed (on stdout) by libarcher with `ARCHER_OPTIONS=verbose=1` once it is active."""

RUNTIME_STARTED = "START LOGGING OF TOOL REGISTRATION"
"""What libomp writes to its log at start-up with `OMP_TOOL_VERBOSE_INIT=<file>`."""

WARNING = "WARNING: ThreadSanitizer:"
"""How every report TSan writes begins."""

ACTIVE = "***** Running under ThreadSanitizer"
"""TSan's first line in its log with `verbosity=1`: proof that it ran with the harness's options."""

_WARNING = re.compile(r"^WARNING: ThreadSanitizer: (?P<kind>.+?)(?: \(pid=\d+\))?\s*$")
_ACCESS = re.compile(
    r"^\s*(?P<what>(?:Previous )?(?:[Aa]tomic )?(?:[Ww]rite|[Rr]ead)) of size (?P<size>\d+) at \S+ "
    r"by (?P<who>main thread|thread T\d+)"
)
# `#0 func file:line:col (module+0x...)`; clang sometimes leaves a load without a line.
_FRAME = re.compile(
    r"^\s*#\d+\s+(?P<func>.*?)\s+(?P<file>[^\s:]+)(?::(?P<line>\d+)(?::(?P<col>\d+))?)?\s+\("
)
_GLOBAL = re.compile(r"^\s*Location is global '(?P<name>[^']+)'")
_FATAL = re.compile(
    r"^(?:FATAL: )?ThreadSanitizer: (?P<msg>(?:unexpected memory mapping|CHECK failed|failed to).*)$",
    re.M,
)
_CRASH = re.compile(
    r"^==\d+==ERROR: ThreadSanitizer: (?P<signal>SEGV|BUS|FPE|ILL|ABRT)\b.*?\n(?P<frames>(?:.*\n)*?)\s*\n",
    re.M,
)
_RUNTIME_LIBRARIES = ("libarcher.so", "libomp.so")
_REDUCTION_HELPERS = (".red_comb.", ".red_init.", ".red_fini.")
_ALLOCATORS = frozenset(
    ["malloc", "calloc", "realloc", "aligned_alloc", "posix_memalign", "memalign"]
)
_KEYWORDS = frozenset(
    [
        "if",
        "else",
        "for",
        "while",
        "do",
        "return",
        "sizeof",
        "int",
        "long",
        "double",
        "float",
        "char",
        "unsigned",
        "const",
        "static",
    ]
)


@dataclass(frozen=True)
class _Access:
    what: str
    who: str
    file: str
    line: int | None
    column: int | None


def tsan_failure(stderr: str) -> str | None:
    """The runtime's own fatal error (it could not check anything), if there is one."""
    m = _FATAL.search(stderr)
    return m.group("msg").strip() if m else None


def tool_crash(log: str) -> str | None:
    """Where the checker itself crashed: a fatal signal whose top frame is in Archer or libomp.

    LLVM 14's Archer dereferences a null pointer inside libomp's host `teams` support and in
    the dependence wait of an undeferred task; TSan then reports the signal and exits with its
    race status. Such a run checked nothing. A crash in the program's own code is not this.
    """
    m = _CRASH.search(log)
    if m is None:
        return None
    frames = [f for f in m.group("frames").splitlines() if re.match(r"\s*#\d+", f)]
    if not frames or not any(lib in frames[0] for lib in _RUNTIME_LIBRARIES):
        return None
    named = next(
        (
            fm.group("func")
            for f in frames
            if (fm := _FRAME.match(f)) and fm.group("func") != "<null>"
        ),
        None,
    )
    library = next(lib for lib in _RUNTIME_LIBRARIES if lib in frames[0])
    return f"{m.group('signal')} in {library}" + (f" (under {named})" if named else "")


def parse_tsan(
    stderr: str, sources: Mapping[str, str] | None = None, *, skip_runtime_internals: bool = False
) -> list[Finding]:
    """One finding per TSan warning in `stderr`, deduplicated by kind, place and variable.

    `sources` maps the program's file names (as the report shows them) to their text; frames
    in those files are preferred over library frames, and used to name stack variables.
    `skip_runtime_internals` drops the reports Archer (LLVM 14) makes on the OpenMP runtime's
    own bookkeeping: accesses inside the compiler's task-reduction helpers (`.red_comb.`,
    `.red_init.`), and accesses to memory libomp allocated itself (task descriptors with their
    firstprivate copies, reduction buffers), which it recycles through its own allocator and
    orders in ways TSan does not see. Without this, every `taskloop reduction` and, under
    load, a task loop capturing its index are reported.
    """
    sources = sources or {}
    findings: list[Finding] = []
    seen: set[tuple[str, str | None, int | None, str | None]] = set()
    for block in _blocks(stderr):
        if skip_runtime_internals and (_in_task_reduction(block) or _runtime_memory(block)):
            continue
        finding = _finding(block, sources)
        key = (finding.kind, finding.file, finding.line, finding.variable)
        if key not in seen:
            seen.add(key)
            findings.append(finding)
    return findings


def _blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if _WARNING.match(line):
            current = [line]
            blocks.append(current)
        elif current is not None:
            if line.startswith("SUMMARY: ThreadSanitizer") or line.startswith("=================="):
                current = None
            else:
                current.append(line)
    return blocks


def _in_task_reduction(block: list[str]) -> bool:
    return any(
        (f := _FRAME.match(line)) and f.group("func").startswith(_REDUCTION_HELPERS)
        for line in block
    )


def _runtime_memory(block: list[str]) -> bool:
    """Whether the raced-on heap block was allocated by the OpenMP runtime itself."""
    for k, line in enumerate(block):
        if line.strip().startswith("Location is heap block"):
            for frame in block[k + 1 :]:
                if not frame.strip():
                    return False
                f = _FRAME.match(frame)
                if f is None or f.group("func") in _ALLOCATORS:
                    continue
                return "libomp.so" in frame or f.group("func").startswith("__kmp")
    return False


def _finding(block: list[str], sources: Mapping[str, str]) -> Finding:
    m = _WARNING.match(block[0])
    assert m is not None
    kind = m.group("kind")
    accesses: list[_Access] = []
    places: list[tuple[str, int | None, int | None]] = []
    pending: tuple[str, str] | None = None
    variable = None
    for line in block[1:]:
        if a := _ACCESS.match(line):
            pending = (a.group("what"), a.group("who"))
            continue
        if g := _GLOBAL.match(line):
            # TSan says global '??' for stack slots it cannot name; `main.a` for a static local.
            name = g.group("name")
            variable = name.rsplit(".", 1)[-1] if name != "??" else None
            continue
        f = _FRAME.match(line)
        if f is None:
            if not line.strip():
                pending = None
            continue
        if not _is_user(f.group("file"), sources):
            continue
        place = (f.group("file"), _int(f.group("line")), _int(f.group("col")))
        places.append(place)
        if pending is not None:
            accesses.append(_Access(pending[0], pending[1], *place))
            pending = None
    # Where the report points: the first access that has a line, else any frame of the program.
    located = [a for a in accesses if a.line is not None]
    file, line_no, col = (
        (located[0].file, located[0].line, located[0].column)
        if located
        else next((p for p in places if p[1] is not None), (None, None, None))
    )
    if variable is None and file and line_no:
        variable = variable_at(_source_line(sources, file, line_no), col)
    return Finding(
        kind=kind,
        tool=TOOL,
        message=_message(kind, accesses, variable),
        file=file,
        line=line_no,
        variable=variable,
    )


def _int(text: str | None) -> int | None:
    return int(text) if text else None


def _message(kind: str, accesses: list[_Access], variable: str | None) -> str:
    subject = f"{kind} on `{variable}`" if variable else kind
    if not accesses:
        return subject
    parts = [
        f"{a.what.lower()} by {a.who} at {a.file}" + (f":{a.line}" if a.line else "")
        for a in accesses[:2]
    ]
    return f"{subject}: " + " vs ".join(parts)


def _is_user(file: str, sources: Mapping[str, str]) -> bool:
    if sources:
        return file in sources or file.rsplit("/", 1)[-1] in sources
    return not file.startswith(("/usr/", "<"))


def _source_line(sources: Mapping[str, str], file: str, line: int) -> str:
    text = sources.get(file) or sources.get(file.rsplit("/", 1)[-1])
    if text is None:
        return ""
    lines = text.splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else ""


def variable_at(line: str, column: int | None) -> str | None:
    """The variable an access at `column` (1-based) of a source line is most likely about.

    An identifier at the column is the answer (`a` of `a[i+1]`); at an operator, the l-value
    to its left (`sum` of `sum += x`, `h` of `h[0] = v`, `x` of `x++`), or to its right (`++x`).
    """
    if not line or column is None or column < 1 or column > len(line):
        return None
    k = column - 1
    if _ident_char(line[k]):
        start = k
        while start > 0 and _ident_char(line[start - 1]):
            start -= 1
        name = re.match(r"[A-Za-z_]\w*", line[start:])
        return _name(name.group() if name else None)
    left = _lvalue_left_of(line, k)
    if left:
        return left
    right = re.match(r"[\s+\-*&!~]*([A-Za-z_]\w*)", line[k:])
    return _name(right.group(1) if right else None)


def _lvalue_left_of(line: str, k: int) -> str | None:
    j = k - 1
    while j >= 0 and line[j].isspace():
        j -= 1
    while j >= 0 and line[j] == "]":
        depth = 0
        while j >= 0:
            if line[j] == "]":
                depth += 1
            elif line[j] == "[":
                depth -= 1
                if depth == 0:
                    break
            j -= 1
        j -= 1
        while j >= 0 and line[j].isspace():
            j -= 1
    end = j + 1
    while j >= 0 and _ident_char(line[j]):
        j -= 1
    return _name(line[j + 1 : end] or None)


def _name(word: str | None) -> str | None:
    if not word or word[0].isdigit() or word in _KEYWORDS:
        return None
    return word


def _ident_char(c: str) -> bool:
    return c.isalnum() or c == "_"
