"""Pure timing decisions: which clock to trust, what speedup to report, what to flag.

A candidate's speedup is the reward that evolution and fine-tuning optimise, so nothing a
program prints is taken on trust. The sandbox measures every run's wall time itself. A kernel
time a program prints (`PARFORGE_TIME_S=`) is used only when every run printed one and each is
consistent with what the sandbox saw:

- a run prints one kernel time (a second one is not the driver's);
- a kernel time never exceeds its run's wall time;
- the part of a run outside the kernel (input generation, output, start-up) is the same code
  in the reference and in the candidate, so the candidate's may not grow much beyond the
  reference's. Put differently, the kernel/wall ratio of the candidate stays plausible next to
  the reference's: a program that divides its real time by 1000 claims a kernel of 0.1% of its
  run where the reference's kernel is most of it.

Otherwise wall times are used, and a note says why. A speedup above the cores the run could
use (its worker count, capped by the sandbox's CPU limit) over the candidate's own one-worker
time (fastest repeat against fastest repeat) is flagged and left out of the best speedup (a better serial algorithm is not flagged); a reference faster than `FLOOR_S` is too short to time, and no speedup is reported.
"""

from __future__ import annotations

from sandbox.models import CommandResult
from sandbox.steps import TIME_MARKER, kernel_time, median
from sandbox.verdict import Timing

FLOOR_S = 0.01
"""Below this median reference time, process start-up and noise dominate any speedup. 10 ms, not
more: many ParEval timing inputs have kernels of 12-25 ms (medians of repeated runs, kernel time
without process start-up), and a 50 ms floor left most of the suite without speedups."""
CORE_MARGIN = 1.15
"""Speedups up to this factor above the cores are noise (and cache effects), not forgery."""
OVERHEAD_FACTOR = 2.0
OVERHEAD_SLACK_S = 0.02
"""The candidate's non-kernel time may reach `OVERHEAD_FACTOR` times the reference's, plus a
tenth of the reference's whole run and this slack (start-up of a thread pool, noise)."""
_EPSILON_S = 0.001


def timing(
    reference: list[CommandResult],
    candidate: dict[int, list[CommandResult]],
    cores: float | None = None,
    startup_s: float | None = None,
) -> Timing:
    """Medians, speedups and flags of the timing runs (see the module docstring)."""
    refusal = kernel_refusal(reference, candidate, startup_s or 0.0)
    kernel = refusal is None
    notes = [] if kernel or refusal == "" else [f"wall time used: {refusal}"]

    def seconds(r: CommandResult) -> float:
        t = kernel_time(r.stderr) if kernel else None
        return t if t is not None else r.duration_s

    ref_s = median([seconds(r) for r in reference])
    cand_s = {n: median([seconds(r) for r in runs]) for n, runs in candidate.items()}
    result = Timing(
        reference_s=round(ref_s, 6),
        candidate_s={n: round(s, 6) for n, s in cand_s.items()},
        source="kernel" if kernel else "wall",
        cores=cores,
        startup_s=None if startup_s is None else round(startup_s, 6),
        notes=notes,
    )
    if ref_s < FLOOR_S:
        result.too_short = True
        result.notes.append(
            f"the reference ran {ref_s * 1000:.1f} ms, below the {FLOOR_S * 1000:.0f} ms floor: "
            "too short to time, no speedup reported (use a larger timing input)"
        )
        return result
    # The fastest of a candidate's repeats is its least disturbed run: on a shared host one
    # slow one-worker run would otherwise make an honest 2x on 2 cores look like 2.4x.
    fastest = {n: min(seconds(r) for r in runs) for n, runs in candidate.items() if runs}
    single = fastest.get(1)
    for n, s in cand_s.items():
        speedup = ref_s / s if s > 0 else 0.0
        result.speedup[n] = round(speedup, 3)
        usable = min(float(n), cores) if cores else float(n)
        # A better serial algorithm may beat the reference on one thread; what parallelism adds
        # on top of that (the candidate's own one-worker time) cannot exceed the cores.
        best = fastest.get(n, s)
        scaling = single / best if single and best > 0 else speedup
        if scaling > usable * CORE_MARGIN:
            result.above_cores.append(n)
            result.notes.append(
                f"speedup {speedup:.2f}x at {n} scales {scaling:.2f}x over one worker, above "
                f"the {usable:g} cores the run had: implausible, not counted"
            )
    return result


def kernel_refusal(
    reference: list[CommandResult],
    candidate: dict[int, list[CommandResult]],
    startup_s: float = 0.0,
) -> str | None:
    """None when the printed kernel times may be used; else why not ("" when some run printed
    none, the ordinary case of a program that does not time itself). `startup_s` is the
    measured start-up of the candidate's runtime, allowed outside its kernel."""
    every = reference + [r for runs in candidate.values() for r in runs]
    kernels = [kernel_time(r.stderr) for r in every]
    if any(k is None for k in kernels):
        return ""
    if any(r.stderr.count(TIME_MARKER) > 1 for r in every):
        # The driver prints one; another comes from the candidate (a global's destructor, say).
        return "a run printed more than one kernel time"
    for r, k in zip(every, kernels, strict=True):
        assert k is not None
        if k > r.duration_s + _EPSILON_S:
            return f"a printed kernel time ({k:.4g} s) exceeds its run's wall time ({r.duration_s:.4g} s)"
    ref_wall = median([r.duration_s for r in reference])
    ref_outside = median([r.duration_s - (kernel_time(r.stderr) or 0.0) for r in reference])
    allowed = OVERHEAD_FACTOR * ref_outside + 0.1 * ref_wall + OVERHEAD_SLACK_S + startup_s
    for n, runs in candidate.items():
        outside = median([r.duration_s - (kernel_time(r.stderr) or 0.0) for r in runs])
        if outside > allowed:
            wall = median([r.duration_s for r in runs])
            ratio = (wall - outside) / wall if wall > 0 else 0.0
            ref_ratio = (ref_wall - ref_outside) / ref_wall if ref_wall > 0 else 0.0
            return (
                f"at {n} the printed kernel time is {ratio:.1%} of the run's wall time against "
                f"{ref_ratio:.1%} for the reference ({outside:.3f} s outside the kernel, "
                f"at most {allowed:.3f} s is plausible)"
            )
    return None
