"""Pure timing decisions: paired ratios, which clock to trust, what to flag.

A candidate's speedup is the reward that evolution and fine-tuning optimise, so it rests on
what the sandbox observes from outside the program, and reference and candidate are measured
at the same moments. A timing session runs the reference and the candidate in turns,

    ref₀, cand(n₁)₀, cand(n₂)₀, …, ref₁, cand(n₁)₁, …, ref_R

and pairs each candidate run with the mean of the two reference runs around it; the speedup at
a count is the median of its paired ratios, with their spread. A change of background load
between two moments (the model server generating, a neighbour's build) therefore moves both
sides of a ratio, not one. Nothing is compared with a reference timed at another moment.

- **Wall time** is the sandbox's clock over the whole process tree (`CommandResult`).
- **A printed kernel time** (`PARFORGE_TIME_S=`) may refine it, only when every run printed
  exactly one and the wall times confirm it: the reference's time outside its kernel (input
  generation, output) is the same code in the candidate, so the candidate's kernel must be its
  wall time minus that, plus what starting its runtime costs (`startup_s`, measured by the
  sandbox's own probe), within `KERNEL_SLACK` of the kernel itself. A forged time gains at most
  that slack, however long the set-up is.
- **Above the cores**: a speedup over the reference beyond what the run's CPUs can produce
  is implausible, flagged and not counted. What they can produce is the cores the run was
  pinned to (`CORE_MARGIN` of noise allowed) times the candidate's **sequential gain**: how much
  faster than the reference it already is on one CPU (gemm's loop order, say), measured on the
  sandbox's clock alone: the one-worker runs' wall times (with the reference's time outside its
  kernel taken off where kernel times are used), and only when those runs were pinned to one
  CPU and their own CPU time shows they used no more. Anything the candidate prints or does to
  its "one thread" (ignoring `OMP_NUM_THREADS`, widening its affinity, shaving a printed time)
  therefore cannot raise the bound; without such a run the gain is 1.
- **Foreign load**: the CPU the host spent outside the timed process trees (the backend's
  `host_busy_s - cpu_s`), in cores averaged over a count's pairs. A count whose pairs ran with
  more than `FOREIGN_LIMIT` of other load is flagged as disturbed.
- A reference faster than `FLOOR_S` is too short to time: no speedup is reported.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from sandbox.models import CommandResult
from sandbox.verdict import Timing
from sandbox.verify.steps import TIME_MARKER, kernel_time, median

FLOOR_S = 0.01
"""Below this median reference time, process start-up and noise dominate any speedup. 10 ms, not
more: many ParEval timing inputs have kernels of 12-25 ms (medians of repeated runs, kernel time
without process start-up), and a 50 ms floor left most of the suite without speedups."""
CORE_MARGIN = 1.15
"""Speedups up to this factor above the cores are noise (and cache effects), not forgery."""
KERNEL_SLACK = 0.2
KERNEL_SLACK_S = 0.003
"""A printed kernel time is confirmed when it is within this fraction of the kernel the wall
times imply (plus this many seconds of clock and scheduling noise)."""
FOREIGN_LIMIT = 0.2
"""Cores of other load beside a count's pairs above which its speedup is flagged as disturbed."""
LOAD_WALL_S = 1.0
"""The least time a count's pairs must last together for their other load to be judged."""
_EPSILON_S = 0.001


@dataclass(frozen=True)
class Session:
    """The runs of one paired timing session.

    `reference` has one run more than each count's list: candidate run k ran between reference
    runs k and k + 1."""

    reference: list[CommandResult]
    candidate: dict[int, list[CommandResult]]
    cores: float | None = None
    """CPUs the sandbox gives a job (its limit); None when unknown."""
    pinned: dict[int, int] | None = None
    """CPUs each count ran on."""
    startup_s: dict[int, float] | None = None
    """What starting the candidate's runtime costs at each count beyond the reference's own
    start (CUDA's context, MPI's extra ranks), from the sandbox's probe; None: nothing."""
    cap_by_cores: bool = True
    """Flag speedups above the cores (False for GPU programs)."""


def timing(session: Session) -> Timing:
    """Medians, paired ratios, spreads and flags of one session (see the module docstring)."""
    refusal = kernel_refusal(session)
    kernel = refusal is None
    notes = [] if kernel or refusal == "" else [f"wall time used: {refusal}"]

    def seconds(r: CommandResult) -> float:
        t = kernel_time(r.stderr) if kernel else None
        return t if t is not None else r.duration_s

    ref = [seconds(r) for r in session.reference]
    ref_s = median(ref)
    result = Timing(
        reference_s=round(ref_s, 6),
        candidate_s={
            n: round(median([seconds(r) for r in runs]), 6) for n, runs in session.candidate.items()
        },
        source="kernel" if kernel else "wall",
        cores=session.cores,
        pinned=dict(session.pinned or {}),
        threads={
            n: max((r.threads or 0) for r in runs)
            for n, runs in session.candidate.items()
            if any(r.threads for r in runs)
        },
        startup_s=_startup_note(session.startup_s),
        notes=notes,
    )
    if ref_s < FLOOR_S:
        result.too_short = True
        result.notes.append(
            f"the reference ran {ref_s * 1000:.1f} ms, below the {FLOOR_S * 1000:.0f} ms floor: "
            "too short to time, no speedup reported (use a larger timing input)"
        )
        return result
    for n, runs in session.candidate.items():
        load = _foreign_load(session.reference, runs)
        if load is not None:
            result.foreign_load[n] = round(load, 3)
            if load > FOREIGN_LIMIT:
                result.disturbed.append(n)
                result.notes.append(
                    f"at {n}: {load:.2f} cores of other work ran beside the timing runs: "
                    "the speedup is disturbed (flagged)"
                )
    for n, runs in session.candidate.items():
        ratios = [
            round((ref[k] + ref[k + 1]) / 2 / s, 4) if (s := seconds(r)) > 0 else 0.0
            for k, r in enumerate(runs)
        ]
        if not ratios:
            continue
        result.ratios[n] = ratios
        result.speedup[n] = round(statistics.median(ratios), 3)
        result.spread[n] = [min(ratios), max(ratios)]
    if not session.cap_by_cores:
        return result
    gain = result.sequential_gain = sequential_gain(session, kernel)
    if gain > CORE_MARGIN:
        result.notes.append(
            f"at one worker on one CPU the candidate is already {gain:.2f}x the reference "
            "(the sandbox's clock): a better sequential algorithm, counted"
        )
    for n, speedup in result.speedup.items():
        usable = _usable(n, session)
        if speedup > usable * max(gain, 1.0) * CORE_MARGIN:
            result.above_cores.append(n)
            gained = f" times its {gain:.2f}x on one CPU" if gain > 1.0 else ""
            result.notes.append(
                f"speedup {speedup:.2f}x at {n} over the reference exceeds the "
                f"{usable:g} core(s) the run had{gained}: implausible, not counted"
            )
    return result


def sequential_gain(session: Session, kernel: bool) -> float:
    """How much faster than the reference the candidate is on one CPU, from the sandbox's own
    clock: the median paired ratio of its one-worker runs (1.0 when there are none, when they
    were not pinned to one CPU, or when their CPU time is unknown or shows more than one CPU).
    With kernel times, each run's kernel is its wall time less the reference's time outside the
    kernel and the runtime's start-up, as in `kernel_refusal`: printed times play no part."""
    runs = session.candidate.get(1)
    if not runs or (session.pinned or {}).get(1) != 1:
        return 1.0
    for run in runs:
        if run.cpu_s is None or run.cpu_s > run.duration_s * CORE_MARGIN + _EPSILON_S:
            return 1.0
    ref = [(kernel_time(r.stderr) or 0.0) if kernel else r.duration_s for r in session.reference]
    cand = (
        _implied_kernels(session, 1, _outside_kernel(session))
        if kernel
        else [run.duration_s for run in runs]
    )
    if min(cand) <= _EPSILON_S:
        return 1.0  # nothing the wall times can resolve: no gain is believed
    ratios = [(ref[k] + ref[k + 1]) / 2 / s for k, s in enumerate(cand)]
    return round(statistics.median(ratios), 3)


def _outside_kernel(session: Session) -> list[float]:
    """Each reference run's time outside its printed kernel (set-up, output)."""
    return [r.duration_s - (kernel_time(r.stderr) or 0.0) for r in session.reference]


def _implied_kernels(session: Session, n: int, outside: list[float]) -> list[float]:
    """The kernel each candidate run at `n` had by the wall times: its wall time less the
    reference's time outside the kernel (the runs around it) and the runtime's start-up."""
    extra = (session.startup_s or {}).get(n, 0.0)
    return [
        max(run.duration_s - (outside[k] + outside[k + 1]) / 2 - extra, 0.0)
        for k, run in enumerate(session.candidate[n])
    ]


def _usable(n: int, session: Session) -> float:
    usable = float(n)
    if session.pinned and n in session.pinned:
        usable = min(usable, float(session.pinned[n]))
    if session.cores:
        usable = min(usable, session.cores)
    return usable


def _foreign_load(reference: list[CommandResult], runs: list[CommandResult]) -> float | None:
    """Cores of other load over a count's pairs: each candidate run with half of each reference
    run around it, summed before dividing (the host's busy time comes in clock ticks of 10 ms,
    too coarse to judge one short run). None when the backend cannot tell, or when the pairs
    last less than `LOAD_WALL_S` together, too short to judge."""
    foreign = wall = 0.0
    for k, run in enumerate(runs):
        for r, weight in ((run, 1.0), (reference[k], 0.5), (reference[k + 1], 0.5)):
            if r.foreign_cpu_s is None:
                return None
            foreign += r.foreign_cpu_s * weight
            wall += r.duration_s * weight
    return foreign / wall if wall >= LOAD_WALL_S else None


def _startup_note(startup: dict[int, float] | None) -> float | None:
    if not startup:
        return None
    return round(max(startup.values()), 6)


def kernel_refusal(session: Session) -> str | None:
    """None when the printed kernel times may be used; else why not ("" when some run printed
    none, the ordinary case of a program that does not time itself)."""
    every = session.reference + [r for runs in session.candidate.values() for r in runs]
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
    outside = _outside_kernel(session)
    for n, runs in session.candidate.items():
        implied = _implied_kernels(session, n, outside)
        printed = [kernel_time(run.stderr) or 0.0 for run in runs]
        deviation = statistics.median(abs(p - i) for p, i in zip(printed, implied, strict=True))
        allowed = KERNEL_SLACK * statistics.median(implied) + KERNEL_SLACK_S
        if statistics.median(implied) <= allowed:
            # A printed time of zero would be "confirmed": the wall times, less the reference's
            # time outside its kernel (noisy under load), leave too little to tell a kernel from
            # none, so no printed time can be trusted at this count.
            return (
                f"at {n} the wall times cannot resolve the kernel ({statistics.median(implied):.4g}"
                f" s after the reference's {statistics.median(outside):.4g} s outside its kernel)"
            )
        if deviation > allowed:
            return (
                f"at {n} the printed kernel times ({statistics.median(printed):.4g} s) are not "
                f"what the wall times imply ({statistics.median(implied):.4g} s after the "
                f"reference's {statistics.median(outside):.4g} s outside its kernel)"
            )
    return None
