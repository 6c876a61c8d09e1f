"""Which threads and tasks share a variable: OpenMP's data-sharing rules, as far as the source
shows them.

The static rules of `omp_tasks` and `omp_regions` report a race only between accesses of one
storage location. Whether two accesses touch one location depends on where the name is
declared and on the clauses of every construct around them: a name declared inside a parallel
region is private to each thread (unless it is `static`), a task's implicit copy of a variable
that is not shared in its context is firstprivate, a `target` region's scalars are firstprivate
unless mapped. `Scope` answers "shared?" only with yes when the source shows it; a name it cannot
place (a macro, a member, a name from a header) is not shared, so the rules stay silent.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import cached_property

from sandbox.checkers.caccess import Access, accesses, declarations
from sandbox.checkers.clike import (
    Pragma,
    functions,
    identifiers,
    line_of,
    loop_after,
    matching,
    pragmas,
    split_top_level,
    statement_extent,
)
from sandbox.verdict import Finding

TOOL = "static"
PRIVATIZING = ("private", "firstprivate", "lastprivate", "reduction", "linear", "copyin")
BARRIER_CONSTRUCTS = frozenset(["for", "single", "sections", "distribute"])
"""Worksharing constructs with an implicit barrier at their end (unless `nowait`)."""

_LOCKS = re.compile(
    r"\b(?:omp_set_(?:nest_)?lock|omp_test_(?:nest_)?lock|pthread_(?:mutex|spin|rwlock)_\w*lock"
    r"|lock_guard|unique_lock|scoped_lock|shared_lock)\b|\.\s*(?:try_)?lock\s*\("
)


@dataclass(frozen=True)
class Construct:
    """A directive and the statement it applies to (`start`..`end`, braces excluded)."""

    pragma: Pragma
    start: int
    end: int

    def holds(self, at: int) -> bool:
        return self.start <= at < self.end


def clause_names(p: Pragma, clause: str) -> set[str]:
    """Variable names listed in every `clause(...)` of `p` (modifiers dropped)."""
    names: set[str] = set()
    for args in p.clause_args(clause):
        if ":" in args:
            # `reduction(+: s)`, `lastprivate(conditional: x)`, `map(tofrom: v)`; `linear(j: 2)`
            args = args.split(":", 1)[0 if clause == "linear" else 1]
        for item in split_top_level(args):
            words = identifiers(item.split("[", 1)[0])
            if words:
                names.add(words[-1])
    return names


def privatized(p: Pragma) -> set[str]:
    """Names `p` gives each thread (or task) its own copy of."""
    return set().union(*(clause_names(p, c) for c in PRIVATIZING))


def same_location(a: Access, b: Access) -> bool:
    """Whether two accesses, one of them a write, touch one location the rules can name: one
    scalar, or one element by the same literal subscripts."""
    if a.name != b.name or not (a.write or b.write) or bool(a.subscripts) != bool(b.subscripts):
        return False
    subs_a = [s.strip() for s in a.subscripts]
    return all(s.isdigit() for s in subs_a) and subs_a == [s.strip() for s in b.subscripts]


def critical_name(p: Pragma) -> str:
    """The name of a `critical` construct ('' for the unnamed one)."""
    m = re.match(r"critical\s*\(\s*([A-Za-z_]\w*)\s*\)", p.text)
    return m.group(1) if m else ""


def block_around(text: str, at: int) -> tuple[int, int]:
    """The inside of the innermost `{...}` block holding `at` (or the whole text)."""
    depth = 0
    for k in range(at - 1, -1, -1):
        if text[k] == "}":
            depth += 1
        elif text[k] == "{":
            if depth == 0:
                close = matching(text, k)
                return k + 1, close if close > 0 else len(text)
            depth -= 1
    return 0, len(text)


def pair_finding(blanked: str, kind: str, a: Access, b: Access, why: str) -> Finding:
    """A finding naming both accesses, first in the source first, at the second one's line."""
    first, second = sorted((a, b), key=lambda x: x.offset)
    l1, l2 = line_of(blanked, first.offset), line_of(blanked, second.offset)
    v1 = "written" if first.write else "read"
    v2 = "written" if second.write else "read"
    return Finding(
        kind=kind,
        tool=TOOL,
        message=f"`{a.name}` {v1} at line {l1} and {v2} at line {l2}: {why}",
        line=l2,
        variable=a.name,
    )


class Scope:
    """The constructs of one comment-free source and the data-sharing questions about it."""

    def __init__(self, blanked: str) -> None:
        self.blanked = blanked
        self.found = pragmas(blanked)
        self.constructs: list[Construct] = []
        for p in self.found:
            start, end = statement_extent(blanked, p.end)
            if end > 0:
                self.constructs.append(Construct(p, start, end))
        self.functions = functions(blanked)
        self._words = {id(c): frozenset(c.pragma.directive.split()) for c in self.constructs}
        self._around: dict[tuple[int, tuple[str, ...]], list[Construct]] = {}
        self._held: dict[int, list[Construct]] = {}

    @cached_property
    def tasks(self) -> list[Construct]:
        """The `task` constructs (not `taskloop`, `taskwait`, `taskgroup`)."""
        return [c for c in self.constructs if c.pragma.directive == "task"]

    def around(self, at: int, *words: str) -> list[Construct]:
        """Constructs holding `at` whose directive has one of `words`, innermost first."""
        key = (at, words)
        if key not in self._around:
            held = [
                c
                for c in self._holding(at)
                if not words or any(w in self._words[id(c)] for w in words)
            ]
            self._around[key] = held
        return self._around[key]

    def _holding(self, at: int) -> list[Construct]:
        if at not in self._held:
            held = [c for c in self.constructs if c.start <= at < c.end]
            self._held[at] = sorted(held, key=lambda c: c.start, reverse=True)
        return self._held[at]

    def within(self, start: int, end: int, *words: str) -> list[Construct]:
        """Constructs whose directive starts in [start, end) and has one of `words`."""
        return [
            c
            for c in self.constructs
            if start <= c.pragma.start < end and any(c.pragma.has_word(w) for w in words)
        ]

    def function_at(self, at: int) -> tuple[str, int, int] | None:
        return next(((n, s, e) for n, s, e in self.functions if s <= at < e), None)

    @cached_property
    def file_scope_names(self) -> set[str]:
        """Names declared outside every function body (globals)."""
        text = list(self.blanked)
        for _, s, e in self.functions:
            text[s : e + 1] = " " * (e + 1 - s)
        outside = "".join(text)
        # Directives (a `threadprivate` list) are not declarations.
        outside = re.sub(r"^[ \t]*#.*$", lambda m: " " * len(m.group()), outside, flags=re.M)
        return accesses(outside, 0, len(outside))[1]

    @cached_property
    def threadprivate(self) -> set[str]:
        names: set[str] = set()
        for p in self.found:
            if p.directive == "threadprivate":
                m = re.match(r"threadprivate\s*\((.*)\)", p.text)
                if m:
                    names |= {identifiers(v)[-1] for v in split_top_level(m.group(1))}
        return names

    @cached_property
    def parallel_functions(self) -> set[str]:
        """Functions called (directly or through others) from inside a parallel region."""
        regions = [c for c in self.constructs if c.pragma.has_word("parallel")]
        names = {n for n, _, _ in self.functions}
        reached: set[str] = set()
        spans = [(c.start, c.end) for c in regions]
        while spans:
            s, e = spans.pop()
            for name in names - reached:
                if re.search(rf"\b{re.escape(name)}\s*\(", self.blanked[s:e]):
                    reached.add(name)
                    spans += [(fs, fe) for n, fs, fe in self.functions if n == name]
        return reached

    def in_parallel(self, at: int) -> bool:
        """Whether `at` runs inside a parallel region (lexically, or in a function called there)."""
        if self.around(at, "parallel"):
            return True
        function = self.function_at(at)
        return function is not None and function[0] in self.parallel_functions

    def guarded_alike(self, at1: int, at2: int) -> bool:
        """Whether two accesses sit in critical sections of one name, or both in atomics."""
        g1, g2 = self.around(at1, "critical", "atomic"), self.around(at2, "critical", "atomic")
        names1 = {critical_name(c.pragma) for c in g1 if c.pragma.has_word("critical")}
        names2 = {critical_name(c.pragma) for c in g2 if c.pragma.has_word("critical")}
        atomic1 = any(c.pragma.has_word("atomic") for c in g1)
        atomic2 = any(c.pragma.has_word("atomic") for c in g2)
        return bool(names1 & names2) or (atomic1 and atomic2)

    def locks_in(self, start: int, end: int) -> bool:
        """Whether [start, end) takes a lock (OpenMP, pthreads or C++): the rules then step back,
        since they do not follow which accesses a lock protects."""
        return _LOCKS.search(self.blanked, start, end) is not None

    @cached_property
    def _declarations(self) -> tuple[list[int], list[str], list[bool]]:
        """Every declaration in the source, once: offsets (sorted), names, `static` or not."""
        found = declarations(self.blanked, 0, len(self.blanked))
        return [at for at, _, _ in found], [n for _, n, _ in found], [st for _, _, st in found]

    def _declared_between(self, start: int, end: int) -> range:
        offsets = self._declarations[0]
        return range(bisect.bisect_left(offsets, start), bisect.bisect_left(offsets, end))

    def declared_in(self, start: int, end: int) -> set[str]:
        """Names declared in [start, end)."""
        names = self._declarations[1]
        return {names[k] for k in self._declared_between(start, end)}

    def is_static_local(self, name: str, start: int, end: int) -> bool:
        """Whether `name` is declared `static` (and not const) in [start, end)."""
        _, names, statics = self._declarations
        return any(names[k] == name and statics[k] for k in self._declared_between(start, end))

    def _outside(self, name: str, before: int) -> bool:
        """Whether `name` is a global or a local/parameter of the function before `before`."""
        function = self.function_at(before)
        if function is not None:
            _, body, _ = function
            head_start = self.blanked.rfind("(", 0, body)
            params = self.blanked[head_start:body]
            if name in identifiers(params) or name in self.declared_in(body + 1, before):
                return True
        return name in self.file_scope_names

    def team_shared(self, name: str, at: int) -> bool:
        """Whether the threads of the team running `at` share `name` (only when shown)."""
        if name in self.threadprivate:
            return False
        region = next(iter(self.around(at, "parallel", "teams")), None)
        if region is None:
            function = self.function_at(at)
            if function is None or function[0] not in self.parallel_functions:
                return False
            _, s, e = function
            if self.is_static_local(name, s, e):
                return True
            return name in self.file_scope_names and name not in self.declared_in(s + 1, e)
        p = region.pragma
        if name in privatized(p):
            return False
        for loop in self.around(at, "for", "distribute", "taskloop", "simd"):
            if region.holds(loop.pragma.start):
                counted = loop_after(self.blanked, loop.pragma.end)
                if counted is not None and counted.var == name:
                    return False
                if name in privatized(loop.pragma):
                    return False
        if name in self.declared_in(region.start, region.end):
            return self.is_static_local(name, region.start, region.end)
        if name in clause_names(p, "shared"):
            return True
        defaults = p.clause_args("default")
        if defaults and defaults[0].strip() in ("private", "firstprivate"):
            return False
        if p.has_word("target") or p.has_word("teams"):
            # A target region's scalars are firstprivate unless mapped.
            target = next(iter(self.around(at, "target")), None)
            mapped = target is not None and name in clause_names(target.pragma, "map")
            if target is not None and name not in self.file_scope_names and not mapped:
                return False
        return self._outside(name, p.start)

    def task_shared(self, task: Construct, name: str) -> bool:
        """Whether `task` works on its creator's `name` (not a private or firstprivate copy)."""
        p = task.pragma
        if any(name in clause_names(p, c) for c in ("private", "firstprivate", "in_reduction")):
            return False
        if name in self.declared_in(task.start, task.end):
            return self.is_static_local(name, task.start, task.end)
        if name in clause_names(p, "shared"):
            return True
        defaults = p.clause_args("default")
        if defaults:
            return defaults[0].strip() == "shared" and self._reachable(name, p.start)
        outer = next(
            (c for c in self.around(p.start, "task", "parallel", "teams") if c is not task), None
        )
        if outer is None:
            # An orphaned task: the function's locals are firstprivate, globals shared.
            function = self.function_at(p.start)
            if function is not None and name in self.declared_in(function[1] + 1, p.start):
                return self.is_static_local(name, function[1], p.start)
            return name in self.file_scope_names
        if outer.pragma.has_word("task") and outer.pragma.directive == "task":
            return self.task_shared(outer, name)
        return self.team_shared(name, p.start)

    def _reachable(self, name: str, at: int) -> bool:
        region = next(iter(self.around(at, "parallel", "teams", "task")), None)
        if region is not None and name in self.declared_in(region.start, at):
            return True
        return self._outside(name, at)
