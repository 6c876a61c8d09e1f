"""`schedule(runtime)` for worksharing loops that name no schedule, so OMP_SCHEDULE can vary it.

OpenMP leaves the default schedule to the implementation, so a program whose correctness
depends on it (two `nowait` loops trusting the same static split, say) has a latent race. The
race checker builds the rewritten program and runs it under several OMP_SCHEDULE values;
`OMP_SCHEDULE=static` gives back the usual split.
"""

from __future__ import annotations

from sandbox.checkers.clike import blank_comments_and_strings, pragmas


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
