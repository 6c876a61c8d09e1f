"""Static checks for two synchronization mistakes a TSan run cannot reliably observe.

- **lastprivate + nowait**: `#pragma omp for lastprivate(x) nowait` followed, in the same
  parallel region and before any barrier, by a use of `x`. OpenMP says the copy-out races with
  that use; clang happens to put a barrier there anyway, so no instrumented run shows it.
- **task result read too early**: a task writes a variable it lists as `shared`, and the code
  after the task construct (same block, before any `taskwait` or `barrier`) uses it. The read
  races with the task unless the task ran first on the same thread, which is what libomp
  usually does: a dynamic run then sees program order and reports nothing.

- **work outside the ordered region**: a loop with the `ordered` clause that writes a shared
  scalar outside its `ordered` (or `critical`/`atomic`) regions. Whether a run shows it depends
  on how the ordered chain happens to line the threads up.

All report only what they can show from the source (explicit clauses, same block).
"""

from __future__ import annotations

import re

from sandbox.checkers.caccess import accesses
from sandbox.checkers.clike import (
    Pragma,
    line_of,
    loop_after,
    pragmas,
    statement_extent,
)
from sandbox.checkers.omp_scope import block_around, clause_names, privatized
from sandbox.verdict import Finding

TOOL = "static"
_WORKSHARING = frozenset(["for", "single", "sections"])
_GUARDS = frozenset(["ordered", "critical", "atomic"])


def check_sync(blanked: str) -> list[Finding]:
    """Findings of both rules on comment-free source."""
    found = pragmas(blanked)
    return (
        _lastprivate_nowait(blanked, found)
        + _task_results(blanked, found)
        + _ordered_loops(blanked, found)
    )


def _lastprivate_nowait(blanked: str, found: list[Pragma]) -> list[Finding]:
    findings = []
    regions = [(p, *statement_extent(blanked, p.end)) for p in found if p.has_word("parallel")]
    for p in found:
        if not (p.has_word("for") and p.has_clause("nowait") and p.clause_args("lastprivate")):
            continue
        names = clause_names(p, "lastprivate")
        _, loop_end = statement_extent(blanked, p.end)
        enclosing = [(s, e) for r, s, e in regions if s <= p.start < e and r is not p]
        if loop_end < 0 or not enclosing:
            continue
        region_end = min(e for _, e in enclosing)
        use = _first_use_before_barrier(blanked, found, loop_end + 1, region_end, names)
        if use is not None:
            name, at = use
            findings.append(
                Finding(
                    kind="lastprivate race",
                    tool=TOOL,
                    message=(
                        f"`{name}` is lastprivate in a nowait loop (line {p.line}) and used at line "
                        f"{line_of(blanked, at)} before any barrier: the copy-out races with that use"
                    ),
                    line=line_of(blanked, at),
                    variable=name,
                )
            )
    return findings


def _task_results(blanked: str, found: list[Pragma]) -> list[Finding]:
    findings = []
    for p in found:
        if p.directive != "task" or p.has_clause("depend"):
            continue
        shared = clause_names(p, "shared")
        body_start, body_end = statement_extent(blanked, p.end)
        if not shared or body_end < 0:
            continue
        written = {
            a.name
            for a in accesses(blanked, body_start, body_end)[0]
            if a.write and not a.subscripts
        }
        names = shared & written
        block_end = block_around(blanked, p.start)[1]
        after = body_end + (1 if blanked[body_end : body_end + 1] in ("}", ";") else 0)
        use = _first_use_before_barrier(
            blanked, found, after, block_end, names, stop_at_taskwait=True
        )
        if use is not None:
            name, at = use
            findings.append(
                Finding(
                    kind="task race",
                    tool=TOOL,
                    message=(
                        f"the task at line {p.line} writes shared `{name}`, which is used at line "
                        f"{line_of(blanked, at)} with no taskwait or barrier in between"
                    ),
                    line=line_of(blanked, at),
                    variable=name,
                )
            )
    return findings


def _ordered_loops(blanked: str, found: list[Pragma]) -> list[Finding]:
    findings = []
    for p in found:
        if not (p.has_word("for") and p.has_clause("ordered")) or p.clause_args("ordered"):
            continue  # `ordered(n)` is a doacross loop: its sinks and sources are another story
        loop = loop_after(blanked, p.end)
        if loop is None:
            continue
        guarded = []
        for q in found:
            if loop.body_start <= q.start < loop.body_end and set(q.directive.split()) & _GUARDS:
                _, end = statement_extent(blanked, q.end)
                guarded.append((q.start, end))
        body, declared = accesses(blanked, loop.body_start, loop.body_end)
        exempt = declared | {loop.var} | privatized(p)
        for a in body:
            if (
                a.write
                and not a.subscripts
                and a.name not in exempt
                and not any(s <= a.offset < e for s, e in guarded)
            ):
                findings.append(
                    Finding(
                        kind="ordered race",
                        tool=TOOL,
                        message=(
                            f"the ordered loop at line {p.line} writes shared `{a.name}` outside its "
                            "ordered region: iterations do that part concurrently"
                        ),
                        line=line_of(blanked, a.offset),
                        variable=a.name,
                    )
                )
                break
    return findings


def _first_use_before_barrier(
    blanked: str,
    found: list[Pragma],
    start: int,
    end: int,
    names: set[str],
    stop_at_taskwait: bool = False,
) -> tuple[str, int] | None:
    """The first use of one of `names` in [start, end) that no synchronization precedes."""
    if not names or start >= end:
        return None
    stop = end
    for q in found:
        if not start <= q.start < end:
            continue
        words = set(q.directive.split())
        if "barrier" in words or (stop_at_taskwait and "taskwait" in words):
            stop = min(stop, q.start)
        elif words & _WORKSHARING and not q.has_clause("nowait"):
            # The construct's own implicit barrier comes at its end.
            _, construct_end = statement_extent(blanked, q.end)
            if construct_end > 0:
                stop = min(stop, construct_end)
    text = blanked[start:stop]
    directive_lines = [(q.start, q.end) for q in found]
    for m in re.finditer(r"[A-Za-z_]\w*", text):
        at = start + m.start()
        if m.group() in names and not any(s <= at < e for s, e in directive_lines):
            return m.group(), at
    return None
