"""Static rules for synchronization a dynamic run cannot judge: who runs a block, which lock a
critical section takes, what a flag orders, what a team of teams shares.

- **master/masked without a barrier**: a `master` or `masked` block writes a shared location
  that the other threads of the region touch, after it or before it, with no barrier in
  between (a `single nowait` block likewise after it). Whether a run shows it depends on which
  thread gets there first.
- **critical sections of different names**: one shared location touched in `critical(a)` and in
  `critical(b)` by code that can run at once (one parallel region, no barrier between). The two
  sections take different locks, so they do not exclude each other.
- **critical inside teams**: a `critical` construct excludes only the threads of one team
  (a contention group); a shared variable updated in one from every team races across teams.
  On a host without a device the league may even run as one team, so no run shows it.
- **distribute without a barrier**: two `distribute` loops in one `teams` region, one writing an
  array the other touches with a different mapping of iterations to teams. Teams cannot wait for
  each other; nothing orders the loops.
- **a flag without release or acquire**: a thread writes data and then sets a flag with an
  atomic write that has no `release` (or `seq_cst`, `acq_rel`) and no `flush` before it, or
  another thread spins on an atomic read of the flag without `acquire` and no `flush` after it,
  and then reads the data. The flag orders nothing.
- **static locals**: a `static` variable declared inside a parallel region, or in a function
  called from one, is one variable for every thread; writing it from every thread without a
  lock races.
- **conditional writes in a worksharing loop**: a write to a shared scalar or fixed element in a
  `for` loop body, under conditions that do not depend on the iteration: every iteration that
  reaches it writes it, so once the condition holds (for some input) the threads race. A race
  that only some inputs reach is still a race. (An unconditional one is left to the runs,
  which execute it every time and report it with both threads' stacks.)

Every rule steps back where the code takes a lock (`omp_set_lock`, a mutex): which accesses
a lock protects is beyond it.
"""

from __future__ import annotations

import re

from sandbox.checkers.caccess import Access, accesses
from sandbox.checkers.clike import identifiers, line_of, loop_after, matching, statement_extent
from sandbox.checkers.omp_scope import (
    BARRIER_CONSTRUCTS,
    Construct,
    Scope,
    block_around,
    critical_name,
    pair_finding,
    privatized,
    same_location,
)
from sandbox.verdict import Finding

TOOL = "static"
_SEQUENTIAL = ("single", "master", "masked", "section", "task")
"""Constructs whose block one thread runs from start to end."""
_ONE_THREAD = (*_SEQUENTIAL, "critical", "atomic", "ordered")
"""...and those that let one thread at a time in."""
_RELEASE = ("release", "acq_rel", "seq_cst")
_ACQUIRE = ("acquire", "acq_rel", "seq_cst")


def check_regions(scope: Scope) -> list[Finding]:
    """Findings of every rule above on one comment-free source."""
    return (
        _master(scope)
        + _critical_names(scope)
        + _teams_critical(scope)
        + _distribute(scope)
        + _flags(scope)
        + _static_locals(scope)
        + _invariant_writes(scope)
    )


def _synchronized(scope: Scope, region: Construct, start: int, end: int) -> bool:
    """Whether a barrier separates [start, end) in `region`: an explicit one, or the end of a
    worksharing construct without `nowait` that lies between them."""
    for c in scope.within(region.start, region.end, "barrier", *BARRIER_CONSTRUCTS):
        p = c.pragma
        if p.has_word("barrier") and start <= p.start < end:
            return True
        if p.has_word("barrier") or p.has_clause("nowait") or p.has_word("parallel"):
            continue
        if start <= c.end < end and not (c.holds(start) and c.holds(end)):
            return True
    for p in scope.found:
        if p.directive == "barrier" and start <= p.start < end and region.holds(p.start):
            return True
    return False


def _one_thread_holds_both(scope: Scope, at1: int, at2: int) -> bool:
    return any(
        c.holds(at2) and c.pragma.directive.split()[0] in _SEQUENTIAL for c in scope.around(at1)
    )


def _master(scope: Scope) -> list[Finding]:
    findings: list[Finding] = []
    for c in scope.constructs:
        directive = c.pragma.directive
        once = directive in ("master", "masked") or (
            directive == "single" and c.pragma.has_clause("nowait")
        )
        region = next(iter(scope.around(c.pragma.start, "parallel")), None)
        if not once or region is None or scope.around(c.pragma.start, "for", "sections", "task"):
            continue
        if region.pragma.has_word("for") or region.pragma.has_word("sections"):
            continue
        if scope.locks_in(region.start, region.end):
            continue
        found, declared = accesses(scope.blanked, region.start, region.end)
        writes = [
            a
            for a in found
            if a.write
            and c.holds(a.offset)
            and a.name not in declared
            and scope.team_shared(a.name, a.offset)
        ]
        pair = next(
            ((w, b) for w in writes for b in found if _unordered(scope, c, region, w, b)), None
        )
        if pair is not None:
            who = "single nowait" if directive == "single" else directive
            why = (
                f"one thread runs the {who} block (line {c.pragma.line}) while the others "
                "go on: no barrier orders the other threads' access"
            )
            findings.append(pair_finding(scope.blanked, f"{directive} race", *pair, why))
    return findings


def _unordered(scope: Scope, block: Construct, region: Construct, w: Access, b: Access) -> bool:
    """Whether another thread's access `b` may meet the write `w` one thread made in `block`
    (a master, masked or single nowait block of `region`)."""
    single = block.pragma.directive == "single"
    if block.holds(b.offset) or not same_location(w, b):
        return False
    if not single and scope.around(b.offset, "master", "masked"):
        return False  # the same (master) thread
    if _one_thread_holds_both(scope, w.offset, b.offset):
        return False
    if single and b.offset < block.pragma.start:
        return False  # before a single: its implicit barrier is not the question here
    lo, hi = sorted((w.offset, b.offset))
    return not (_synchronized(scope, region, lo, hi) or scope.guarded_alike(w.offset, b.offset))


def _critical_names(scope: Scope) -> list[Finding]:
    sections = [c for c in scope.constructs if c.pragma.directive == "critical"]
    inside: list[tuple[Construct, Access]] = []
    for c in sections:
        found, declared = accesses(scope.blanked, c.start, c.end)
        inside += [
            (c, a) for a in found if a.name not in declared and scope.team_shared(a.name, a.offset)
        ]
    findings: list[Finding] = []
    reported: set[str] = set()
    by_name: dict[str, list[tuple[Construct, Access]]] = {}
    for c, a in inside:
        by_name.setdefault(a.name, []).append((c, a))
    pairs = [
        (first, second)
        for group in by_name.values()
        for k, first in enumerate(group)
        for second in group[k + 1 :]
    ]
    for (c1, a), (c2, b) in pairs:
        if critical_name(c1.pragma) == critical_name(c2.pragma) or a.name in reported:
            continue
        if not same_location(a, b):
            continue
        region = next(iter(scope.around(a.offset, "parallel", "teams")), None)
        if region is None or region is not next(
            iter(scope.around(b.offset, "parallel", "teams")), None
        ):
            continue
        if scope.guarded_alike(a.offset, b.offset):
            continue
        if _one_thread_holds_both(scope, a.offset, b.offset):
            continue
        if _synchronized(scope, region, a.offset, b.offset):
            continue
        if scope.locks_in(region.start, region.end):
            continue
        n1, n2 = (
            critical_name(c1.pragma) or "(unnamed)",
            critical_name(c2.pragma) or "(unnamed)",
        )
        why = (
            f"critical sections `{n1}` (line {c1.pragma.line}) and `{n2}` (line "
            f"{c2.pragma.line}) take different locks, so they do not exclude each other"
        )
        findings.append(pair_finding(scope.blanked, "critical race", a, b, why))
        reported.add(a.name)
    return findings


def _num_teams_one(scope: Scope, at: int) -> bool:
    return any(
        a.strip() == "1"
        for t in scope.around(at, "teams")
        for a in t.pragma.clause_args("num_teams")
    )


def _teams_critical(scope: Scope) -> list[Finding]:
    findings: list[Finding] = []
    for c in scope.constructs:
        if c.pragma.directive != "critical" or not scope.around(c.pragma.start, "teams"):
            continue
        if _num_teams_one(scope, c.pragma.start):
            continue
        found, declared = accesses(scope.blanked, c.start, c.end)
        for a in found:
            if not a.write or a.subscripts or a.name in declared:
                continue
            if not scope.team_shared(a.name, a.offset):
                continue
            line = line_of(scope.blanked, a.offset)
            findings.append(
                Finding(
                    kind="teams critical race",
                    tool=TOOL,
                    message=(
                        f"`{a.name}` is written at line {line} in a critical section (line "
                        f"{c.pragma.line}) inside a teams region: critical excludes only the "
                        "threads of one team, so teams write it at once (use atomic or a "
                        "reduction)"
                    ),
                    line=line,
                    variable=a.name,
                )
            )
            break
    return findings


def _distribute(scope: Scope) -> list[Finding]:
    findings: list[Finding] = []
    for teams in scope.constructs:
        p = teams.pragma
        if not p.has_word("teams") or p.has_word("distribute") or _num_teams_one(scope, p.end):
            continue
        loops = [
            d
            for d in scope.within(teams.start, teams.end, "distribute")
            if not d.pragma.has_word("teams")
        ]
        for k, d1 in enumerate(loops):
            for d2 in loops[k + 1 :]:
                pair = _distribute_pair(scope, d1, d2)
                if pair is not None:
                    why = (
                        f"the distribute loops at lines {d1.pragma.line} and {d2.pragma.line} "
                        "share no barrier (teams cannot wait for each other) and map "
                        "iterations to teams differently"
                    )
                    findings.append(pair_finding(scope.blanked, "teams race", *pair, why))
    return findings


def _distribute_pair(scope: Scope, d1: Construct, d2: Construct) -> tuple[Access, Access] | None:
    head1, head2 = _loop_head(scope, d1), _loop_head(scope, d2)
    if head1 is None or head2 is None:
        return None
    (var1, text1), (var2, text2) = head1, head2
    found1, declared1 = accesses(scope.blanked, d1.start, d1.end)
    found2, declared2 = accesses(scope.blanked, d2.start, d2.end)
    same_map = _normalized(text1, var1) == _normalized(text2, var2)
    for a in found1:
        for b in found2:
            if a.name != b.name or not a.subscripts or not b.subscripts:
                continue
            if not (a.write or b.write) or a.name in declared1 | declared2:
                continue
            if not scope.team_shared(a.name, a.offset):
                continue
            if same_map and _normalized("".join(a.subscripts), var1) == _normalized(
                "".join(b.subscripts), var2
            ):
                continue  # iteration i of both loops runs on the same team
            return a, b
    return None


def _loop_head(scope: Scope, c: Construct) -> tuple[str, str] | None:
    loop = loop_after(scope.blanked, c.pragma.end)
    if loop is None:
        return None
    open_at = scope.blanked.find("(", c.pragma.end)
    close = scope.blanked.rfind(")", open_at, loop.body_start)
    return loop.var, scope.blanked[open_at:close]


def _normalized(text: str, var: str) -> str:
    return re.sub(rf"\b{re.escape(var)}\b", "@", "".join(text.split()))


def _flags(scope: Scope) -> list[Finding]:
    if any(p.directive == "requires" for p in scope.found):
        return []  # atomic_default_mem_order changes what a bare atomic orders
    atomics = [c for c in scope.constructs if c.pragma.directive == "atomic"]
    setters = [c for c in atomics if not c.pragma.has_clause("read")]
    readers = [c for c in atomics if c.pragma.has_clause("read")]
    findings: list[Finding] = []
    for s in setters:
        target = re.match(r"\s*([A-Za-z_]\w*)\s*(?:=|\+\+|--|\+=|-=|\|=)", scope.blanked[s.start :])
        if target is None:
            continue
        flag = target.group(1)
        region = next(iter(scope.around(s.pragma.start, "parallel")), None)
        if region is None or scope.locks_in(region.start, region.end):
            continue
        block_start = block_around(scope.blanked, s.pragma.start)[0]
        before, declared = accesses(scope.blanked, block_start, s.pragma.start)
        data = [
            a
            for a in before
            if a.write
            and a.name != flag
            and a.name not in declared
            and scope.team_shared(a.name, a.offset)
        ]
        for r in readers:
            if not region.holds(r.pragma.start) or flag not in identifiers(
                scope.blanked[r.start : r.end + 1]
            ):
                continue
            spin = _loop_around(scope, r.pragma.start)
            if spin is None or spin[0] <= s.pragma.start < spin[1]:
                continue
            after, declared_after = accesses(
                scope.blanked, spin[1], block_around(scope.blanked, spin[1])[1]
            )
            for w in data:
                use = next(
                    (
                        b
                        for b in after
                        if b.name == w.name and b.name not in declared_after and same_location(w, b)
                    ),
                    None,
                )
                if use is None:
                    continue
                released = _has(s, _RELEASE) or _flush_between(scope, w.offset, s.pragma.start)
                acquired = _has(r, _ACQUIRE) or _flush_between(scope, spin[1], use.offset)
                if released and acquired:
                    continue
                missing = "release" if not released else "acquire"
                why = (
                    f"the flag `{flag}` (atomic at line {s.pragma.line}, read at line "
                    f"{r.pragma.line}) has no {missing} ordering or flush, so setting it does "
                    "not order the data before the other thread's read"
                )
                findings.append(pair_finding(scope.blanked, "flag race", w, use, why))
                return findings
    return findings


def _has(c: Construct, orders: tuple[str, ...]) -> bool:
    return any(c.pragma.has_clause(o) for o in orders)


def _flush_between(scope: Scope, start: int, end: int) -> bool:
    return any(p.directive == "flush" and start <= p.start < end for p in scope.found)


def _loop_around(scope: Scope, at: int) -> tuple[int, int] | None:
    """(start, end) of the innermost `while`/`for`/`do` statement holding `at`."""
    best: tuple[int, int] | None = None
    for m in re.finditer(r"\b(while|for|do)\b", scope.blanked):
        if m.start() >= at:
            break
        start, end = _statement(scope, m.start())
        if end > at and (best is None or start > best[0]):
            best = (start, end)
    return best


def _statement(scope: Scope, at: int) -> tuple[int, int]:
    if scope.blanked.startswith("do", at):
        _, body_end = statement_extent(scope.blanked, at + 2)
        m = re.compile(r"\s*\}?\s*while\s*\(").match(scope.blanked, body_end)
        if body_end < 0 or not m:
            return at, -1
        close = scope.blanked.find(";", m.end())
        return at, close
    start, end = statement_extent(scope.blanked, at)
    return start, end


def _static_locals(scope: Scope) -> list[Finding]:
    findings: list[Finding] = []
    spans = [(c.start, c.end) for c in scope.constructs if c.pragma.has_word("parallel")]
    spans += [
        (s, e)
        for n, s, e in scope.functions
        if n in scope.parallel_functions and _called_unguarded(scope, n)
    ]
    for start, end in spans:
        if scope.locks_in(start, end):
            continue
        found, _ = accesses(scope.blanked, start, end)
        for a in found:
            if not a.write or not scope.is_static_local(a.name, start, end):
                continue
            if scope.around(a.offset, *_ONE_THREAD):
                continue
            line = line_of(scope.blanked, a.offset)
            findings.append(
                Finding(
                    kind="static local race",
                    tool=TOOL,
                    message=(
                        f"`{a.name}` is a static local: one variable for every thread, written "
                        f"at line {line} by all of them without a lock"
                    ),
                    line=line,
                    variable=a.name,
                )
            )
            break
    return findings


def _called_unguarded(scope: Scope, name: str) -> bool:
    for c in scope.constructs:
        if not c.pragma.has_word("parallel"):
            continue
        for m in re.finditer(rf"\b{re.escape(name)}\s*\(", scope.blanked[c.start : c.end]):
            if not scope.around(c.start + m.start(), *_ONE_THREAD):
                return True
    return False


def _invariant_writes(scope: Scope) -> list[Finding]:
    findings: list[Finding] = []
    for c in scope.constructs:
        p = c.pragma
        if not p.has_word("for") or p.has_clause("ordered"):
            continue
        loop = loop_after(scope.blanked, p.end)
        if loop is None:
            continue
        body = scope.blanked[loop.body_start : loop.body_end]
        if re.search(r"\b(continue|break|return|goto|throw)\b", body):
            continue
        if scope.locks_in(loop.body_start, loop.body_end):
            continue
        found, declared = accesses(scope.blanked, loop.body_start, loop.body_end)
        varying = {loop.var} | {a.name for a in found if a.write}
        private = privatized(p)
        for a in found:
            if not a.write or a.name in declared | private | {loop.var}:
                continue
            if a.subscripts and not all(s.strip().isdigit() for s in a.subscripts):
                continue
            if scope.around(a.offset, *_ONE_THREAD) and any(
                loop.body_start <= g.pragma.start for g in scope.around(a.offset, *_ONE_THREAD)
            ):
                continue
            if not scope.team_shared(a.name, a.offset):
                continue
            conditions = _conditions(scope, loop.body_start, a.offset)
            if not conditions or any(set(identifiers(t)) & varying for t in conditions):
                continue  # unconditional: every run executes it, and the dynamic check sees it
            if any("(" in t for t in conditions):
                continue  # a call may answer differently per iteration
            line = line_of(scope.blanked, a.offset)
            element = a.name + "".join(f"[{s.strip()}]" for s in a.subscripts)
            findings.append(
                Finding(
                    kind="shared write race",
                    tool=TOOL,
                    message=(
                        f"the loop at line {p.line} writes shared `{element}` at line {line} under a "
                        "condition no iteration changes: once it holds (for some input), every "
                        "iteration writes it, from every thread"
                    ),
                    line=line,
                    variable=a.name,
                )
            )
            break
    return findings


def _conditions(scope: Scope, start: int, at: int) -> list[str] | None:
    """The conditions of the if/while/for/switch statements in [start, at) that hold `at`."""
    found = []
    for m in re.finditer(r"\b(if|while|for|switch)\s*\(", scope.blanked[start:at]):
        head = start + m.end() - 1
        stmt_start, stmt_end = _statement(scope, start + m.start())
        if stmt_end < 0:
            return None
        if stmt_start <= at < stmt_end:
            close = matching(scope.blanked, head)
            if close < 0:
                return None
            if close > at:
                return None  # the write is inside the condition itself
            found.append(scope.blanked[head + 1 : close])
    return found
