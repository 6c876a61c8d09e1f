"""`schedule(runtime)` for worksharing loops that name no schedule, so OMP_SCHEDULE can vary it.

OpenMP leaves the default schedule to the implementation, so a program whose correctness
depends on it (two `nowait` loops trusting the same static split, say) has a latent race. The
race checker builds the rewritten program and runs it under several OMP_SCHEDULE values;
`OMP_SCHEDULE=static` gives back the usual split.
"""

from __future__ import annotations

import re

from sandbox.checkers.clike import blank_comments_and_strings, matching, pragmas


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


_DEVICE_CLAUSES = frozenset(
    [
        "map",
        "device",
        "defaultmap",
        "is_device_ptr",
        "has_device_addr",
        "use_device_ptr",
        "use_device_addr",
        "thread_limit",
        "dist_schedule",
        "depend",
        "nowait",
        "if",
        "in_reduction",
        "uses_allocators",
    ]
)


def without_teams(source: str) -> tuple[str, int]:
    """The source with its `target`/`teams`/`distribute` constructs run as one team of threads.

    LLVM 14's Archer crashes inside libomp's host `teams` support (`__kmpc_fork_teams`), so a
    program with a `teams` region cannot be race-checked as written. On the host such a
    program means the same with each team played by one thread: `teams` becomes `parallel`
    (`num_teams(n)` becomes `num_threads(n)`), a `distribute` loop a `for ... nowait` loop
    (distribute has no barrier), a combined `teams distribute parallel for` a `parallel for`;
    a bare `target` directive goes, and so do the device clauses (`map`, `device`, ...).
    `omp_get_team_num()`/`omp_get_num_teams()` become the thread's number and count. Races
    between teams are then races between threads, which the runs can see; what `critical`
    fails to exclude across teams is left to the static pass (`omp_regions`).

    Returns the new source and how many directives changed. Line numbers do not move.
    """
    blanked = blank_comments_and_strings(source)
    edits: list[tuple[int, int, str]] = []
    for p in pragmas(blanked):
        words = p.directive.split()
        if not {"target", "teams", "distribute"} & set(words) or "declare" in words:
            continue
        lines = blanked.count("\n", p.start, p.end)
        new = _single_team(words, p.text[len(p.directive) :])
        edits.append((p.start, p.end, (f"#pragma omp {new}" if new else "") + "\n" * lines))
    if not edits:
        return source, 0
    out = source
    for start, end, text in reversed(edits):
        out = out[:start] + text + out[end:]
    out = re.sub(r"\bomp_get_team_num\s*\(\s*\)", "omp_get_thread_num()", out)
    out = re.sub(r"\bomp_get_num_teams\s*\(\s*\)", "omp_get_num_threads()", out)
    return out, len(edits)


def _single_team(words: list[str], clauses: str) -> str:
    """The directive (name and clauses) a `target`/`teams`/`distribute` one becomes."""
    words = [w for w in words if w != "target"]
    if not words:
        return ""  # `target`, `target data`, `target update`, ...: the host runs the block
    kept = []
    if "teams" in words:
        rest = [w for w in words if w not in ("teams", "distribute", "parallel")]
        if "distribute" in words and "for" not in rest:
            rest = ["for", *rest]
        words = ["parallel", *rest]
    elif "distribute" in words:
        words = ["for", *(w for w in words if w not in ("distribute", "parallel", "for"))]
        kept.append("nowait")  # distribute has no barrier at its end
    for name, args in _clauses(clauses):
        if name == "num_teams":
            kept.append(f"num_threads{args}")
        elif name not in _DEVICE_CLAUSES and not (name == "data" and not args):
            kept.append(name + args)
    return " ".join([*words, *kept])


def _clauses(text: str) -> list[tuple[str, str]]:
    """(name, "(arguments)" or "") of each clause, arguments nested to any depth."""
    found = []
    k = 0
    while (m := re.compile(r"[\s,]*([A-Za-z_]\w*)\s*").match(text, k)) is not None:
        k = m.end()
        args = ""
        if text[k : k + 1] == "(":
            close = matching(text, k)
            if close < 0:
                break
            args, k = text[k : close + 1], close + 1
        found.append((m.group(1), args))
    return found
