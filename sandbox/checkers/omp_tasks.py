"""Static rules for tasks: what `depend` clauses and `taskwait` leave unordered.

A dynamic run sees a task race only when the two tasks happen to run at once on different
threads; libomp often runs a small task on the thread that created it, or in creation order,
and the run is clean. These rules read the order OpenMP guarantees from the source instead:

- **sibling tasks**: two tasks created one after the other by the same code, both touching one
  shared location (one of them writing), with neither a `taskwait`/`barrier` between them nor a
  chain of `depend` clauses ordering the second after the first (OpenMP 4.5/5.x rules: `in`
  after `out`/`inout`/`mutexinoutset`/`inoutset`, `out`/`inout` after anything,
  `mutexinoutset` tasks on one item exclusive but unordered). The same for the instances of one
  task created in a loop.
- **the creator reads too early**: code after a task, in the block that created it, touching a
  location the task writes (or writing one it reads) before a `taskwait`, a `barrier`, or a
  `taskwait depend`/undeferred task whose dependences order it after the task.
- **`taskwait` waits only for children**: a task's own child task that it does not wait for
  itself may still run after the creator's `taskwait`; only a `barrier` (or a `taskgroup`)
  waits for descendants.
- **`mergeable`**: a task that writes its firstprivate copy of a variable its creator reads
  afterwards; if the implementation merges the task, the write lands in the creator's variable,
  so the value read depends on an implementation's choice.

Dependences the pass cannot read (`depobj`, iterators, overlapping array sections) count as
ordering, so the rules stay silent rather than guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sandbox.checkers.caccess import Access, accesses
from sandbox.checkers.clike import line_of, split_top_level
from sandbox.checkers.omp_scope import (
    Construct,
    Scope,
    block_around,
    pair_finding,
    same_location,
)
from sandbox.verdict import Finding

TOOL = "static"
_TYPES = frozenset(["in", "out", "inout", "mutexinoutset", "inoutset"])
_WRITERS = frozenset(["out", "inout"])


@dataclass
class _Task:
    construct: Construct
    deps: list[tuple[str, str]]
    unknown: bool
    """Dependences the pass cannot read: this task counts as ordered with every sibling."""
    own: list[Access] = field(default_factory=list)
    descendants: list[Access] = field(default_factory=list)

    @property
    def pragma_start(self) -> int:
        return self.construct.pragma.start

    @property
    def undeferred(self) -> bool:
        return any(a.strip() in ("0", "false") for a in self.construct.pragma.clause_args("if"))


def check_tasks(scope: Scope) -> list[Finding]:
    """Findings of the task rules on one comment-free source."""
    tasks = [_task(scope, c) for c in scope.tasks]
    by_block: dict[tuple[int, int], list[_Task]] = {}
    for t in tasks:
        if scope.locks_in(t.construct.start, t.construct.end):
            t.own, t.descendants = [], []  # which accesses its lock protects is beyond the pass
        by_block.setdefault(block_around(scope.blanked, t.pragma_start), []).append(t)
    findings: list[Finding] = []
    for block, group in by_block.items():
        group.sort(key=lambda t: t.pragma_start)
        waits = _waits(scope, block)
        if scope.in_parallel(block[0]):
            findings += _siblings(scope, group, waits)
            findings += _creator(scope, block, group, waits)
            findings += _instances(scope, group, waits)
        findings += _mergeable(scope, group)
    return findings


def _task(scope: Scope, c: Construct) -> _Task:
    deps, unknown = _dependences(c)
    task = _Task(c, deps, unknown)
    nested = [n for n in scope.tasks if n is not c and c.holds(n.pragma.start)]
    inner = [n for n in nested if not any(o is not n and o.holds(n.pragma.start) for o in nested)]
    found, declared = accesses(scope.blanked, c.start, c.end)
    for a in found:
        if a.name in declared:
            continue
        child = next((n for n in inner if n.holds(a.offset)), None)
        if child is None:
            if scope.task_shared(c, a.name):
                task.own.append(a)
        elif scope.task_shared(child, a.name) and scope.task_shared(c, a.name):
            # A child the task waits for ends before the task does: its accesses are the task's.
            waited = _waited_inside(scope, c, child)
            (task.own if waited else task.descendants).append(a)
    return task


def _dependences(c: Construct) -> tuple[list[tuple[str, str]], bool]:
    deps: list[tuple[str, str]] = []
    unknown = False
    for args in c.pragma.clause_args("depend"):
        kind, _, items = args.partition(":")
        kind = kind.strip()
        if kind not in _TYPES or not items:
            unknown = True  # depobj, iterator(...), source/sink
            continue
        deps += [(kind, "".join(item.split())) for item in split_top_level(items)]
    return deps, unknown


def _base(item: str) -> str:
    return re.split(r"[\[.(]|->", item, maxsplit=1)[0]


def _orders(earlier: _Task, later: _Task) -> bool:
    """Whether `later` may depend on `earlier` through one shared dependence item."""
    if earlier.unknown or later.unknown:
        return True
    for k1, item1 in earlier.deps:
        for k2, item2 in later.deps:
            if _base(item1) != _base(item2):
                continue
            if item1 != item2 or k1 != k2 or k1 in _WRITERS:
                return True  # overlapping items the pass cannot tell apart, or a real order
            # in/in, inoutset/inoutset: unordered; mutexinoutset/mutexinoutset: exclusive
    return False


def _exclusive(a: _Task, b: _Task) -> bool:
    """Whether two tasks exclude each other (`mutexinoutset` on one item)."""
    mutex_a = {item for kind, item in a.deps if kind == "mutexinoutset"}
    return any(kind == "mutexinoutset" and item in mutex_a for kind, item in b.deps)


@dataclass(frozen=True)
class _Wait:
    at: int
    full: bool
    """A `taskwait` without dependences or a `barrier`: waits for every child."""
    descendants: bool
    """A `barrier`: waits for every task of the team, descendants included."""
    task: _Task | None = None
    """A `taskwait depend(...)` or an undeferred task with dependences: waits for those."""


def _waits(scope: Scope, block: tuple[int, int]) -> list[_Wait]:
    waits = []
    for p in scope.found:
        if not block[0] <= p.start < block[1]:
            continue
        words = set(p.directive.split())
        if "barrier" in words:
            waits.append(_Wait(p.start, True, True))
        elif p.directive == "taskwait":
            if p.has_clause("depend"):
                deps, unknown = _dependences(Construct(p, p.end, p.end))
                waits.append(_Wait(p.start, False, False, _Task(Construct(p, 0, 0), deps, unknown)))
            else:
                waits.append(_Wait(p.start, True, False))
    return waits


def _waited_inside(scope: Scope, task: Construct, child: Construct) -> bool:
    """Whether `task` waits for `child` before it ends (a taskwait after it, or a taskgroup)."""
    for p in scope.found:
        if child.end <= p.start < task.end and p.directive in ("taskwait", "barrier"):
            return not p.has_clause("depend")
    return any(
        g.pragma.directive == "taskgroup" and task.holds(g.pragma.start)
        for g in scope.around(child.pragma.start, "taskgroup")
    )


def _conflict(scope: Scope, a: Access, b: Access) -> bool:
    return same_location(a, b) and not scope.guarded_alike(a.offset, b.offset)


def _between(waits: list[_Wait], start: int, end: int) -> list[_Wait]:
    return [w for w in waits if start <= w.at < end]


def _reaches(group: list[_Task], waits: list[_Wait], src: _Task, dst: _Task) -> bool:
    """Whether OpenMP orders `dst` after `src` (a full wait or a chain of dependences)."""
    if src.undeferred:
        return True  # it ran to its end before its creator went on
    if any(w.full for w in _between(waits, src.construct.end, dst.pragma_start)):
        return True
    frontier, seen = [src], {id(src)}
    while frontier:
        cur = frontier.pop()
        for nxt in group:
            if nxt.pragma_start <= cur.pragma_start or id(nxt) in seen:
                continue
            if nxt.pragma_start > dst.pragma_start:
                continue
            if _orders(cur, nxt):
                if nxt is dst:
                    return True
                seen.add(id(nxt))
                frontier.append(nxt)
    return False


def _siblings(scope: Scope, group: list[_Task], waits: list[_Wait]) -> list[Finding]:
    findings: list[Finding] = []
    for i, first in enumerate(group):
        for second in group[i + 1 :]:
            if _reaches(group, waits, first, second) or _exclusive(first, second):
                continue
            pair = next(
                (
                    (a, b)
                    for a in first.own + first.descendants
                    for b in second.own + second.descendants
                    if _conflict(scope, a, b)
                ),
                None,
            )
            if pair is not None:
                why = (
                    f"sibling tasks (lines {first.construct.pragma.line} and "
                    f"{second.construct.pragma.line}) that no depend clause or taskwait orders"
                )
                findings.append(pair_finding(scope.blanked, "task dependence race", *pair, why))
    return findings


def _creator(
    scope: Scope, block: tuple[int, int], group: list[_Task], waits: list[_Wait]
) -> list[Finding]:
    """The creating code touches what a task touches before waiting for it."""
    findings: list[Finding] = []
    for task in group:
        if task.undeferred and not task.descendants:
            continue
        own_until = desc_until = block[1]
        for w in sorted(waits, key=lambda w: w.at):
            if w.at < task.construct.end:
                continue
            if w.descendants:
                own_until, desc_until = min(own_until, w.at), min(desc_until, w.at)
            elif w.full or (w.task is not None and _orders(task, w.task)):
                own_until = min(own_until, w.at)
        for later in group:
            waits_for_it = (
                later.undeferred and later.deps and later.pragma_start > task.pragma_start
            )
            if waits_for_it and _reaches(group, waits, task, later):
                own_until = min(own_until, later.pragma_start)
        after = task.construct.end + 1
        found, declared = accesses(scope.blanked, after, max(own_until, desc_until))
        for b in found:
            if b.name in declared or any(
                not t.holds(task.pragma_start) for t in scope.around(b.offset, "task")
            ):
                continue  # inside another task: not the creating code's own access
            for a, until in [(a, own_until) for a in task.own] + [
                (a, desc_until) for a in task.descendants
            ]:
                if b.offset < until and _conflict(scope, a, b):
                    why = f"the task at line {task.construct.pragma.line} may still run: no " + (
                        "barrier waits for the task's own child"
                        if a in task.descendants and b.offset >= own_until
                        else "taskwait, barrier or dependence orders the access after it"
                    )
                    findings.append(pair_finding(scope.blanked, "task race", a, b, why))
                    break
            else:
                continue
            break
    return findings


def _instances(scope: Scope, group: list[_Task], waits: list[_Wait]) -> list[Finding]:
    """A task created in a loop, whose instances write one shared location unordered."""
    findings: list[Finding] = []
    for task in group:
        if task.undeferred or task.unknown or any(kind != "in" for kind, _ in task.deps):
            continue  # out/inout/mutexinoutset instances may be ordered or exclusive
        loop = _loop_body(scope.blanked, task.pragma_start)
        if loop is None or _between(waits, task.construct.end, loop[1]):
            continue
        writes = [a for a in task.own if a.write and not a.subscripts]
        if writes and not scope.guarded_alike(writes[0].offset, writes[0].offset):
            a = writes[0]
            line = line_of(scope.blanked, a.offset)
            findings.append(
                Finding(
                    kind="task dependence race",
                    tool=TOOL,
                    message=(
                        f"the task at line {task.construct.pragma.line} is created in a loop and "
                        f"every instance writes shared `{a.name}` (line {line}) with nothing "
                        "ordering the instances"
                    ),
                    line=line,
                    variable=a.name,
                )
            )
    return findings


def _loop_body(text: str, at: int) -> tuple[int, int] | None:
    """The block holding `at` when it is the body of a `for`/`while`/`do` loop (a task created
    there is created once per iteration by the same code)."""
    start, end = block_around(text, at)
    head = text[: start - 1].rstrip()
    if head.endswith(")"):
        open_at = _opening(head, len(head) - 1)
        if open_at >= 0 and re.search(r"\b(for|while)\s*$", head[:open_at]):
            return start, end
    if re.search(r"\bdo\s*$", head):
        return start, end
    return None


def _opening(text: str, close_at: int) -> int:
    depth = 0
    for k in range(close_at, -1, -1):
        if text[k] == ")":
            depth += 1
        elif text[k] == "(":
            depth -= 1
            if depth == 0:
                return k
    return -1


def _mergeable(scope: Scope, group: list[_Task]) -> list[Finding]:
    findings: list[Finding] = []
    for task in group:
        c = task.construct
        if not c.pragma.has_clause("mergeable"):
            continue
        function = scope.function_at(c.pragma.start)
        end = function[2] if function else len(scope.blanked)
        found, declared = accesses(scope.blanked, c.start, c.end)
        for a in found:
            if not a.write or a.subscripts or a.name in declared or scope.task_shared(c, a.name):
                continue
            if function is None or a.name not in scope.declared_in(function[1] + 1, c.pragma.start):
                continue
            use = re.search(rf"\b{re.escape(a.name)}\b", scope.blanked[c.end + 1 : end])
            if use is None:
                continue
            b = Access(a.name, [], False, c.end + 1 + use.start())
            why = (
                f"the mergeable task (line {c.pragma.line}) writes its firstprivate copy, which "
                "is the creator's variable when the task is merged: the value read depends on "
                "the implementation"
            )
            findings.append(pair_finding(scope.blanked, "mergeable task race", a, b, why))
            break
    return findings
