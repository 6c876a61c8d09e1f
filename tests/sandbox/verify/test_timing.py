"""Paired timing decisions (`sandbox.verify.speedup`), on runs shaped like the sandbox's."""

from __future__ import annotations

from sandbox.models import CommandResult
from sandbox.verify.speedup import FOREIGN_LIMIT, Session, timing


def run(seconds: float, kernel: float | None = None, **more: object) -> CommandResult:
    stderr = f"PARFORGE_TIME_S={kernel}\n" if kernel is not None else ""
    return CommandResult(exit_code=0, duration_s=seconds, stderr=stderr, **more)  # type: ignore[arg-type]


def session(ref: list[float], cand: dict[int, list[float]], **more: object) -> Session:
    return Session(
        reference=[run(s) for s in ref],
        candidate={n: [run(s) for s in runs] for n, runs in cand.items()},
        **more,  # type: ignore[arg-type]
    )


def test_each_candidate_run_is_paired_with_the_reference_runs_around_it():
    # The host slows down half-way: reference and candidate slow together, the ratio holds.
    t = timing(session([1.0, 1.0, 2.0, 2.0], {2: [0.5, 1.0, 1.0]}, cores=2.0))
    assert t.ratios[2] == [2.0, 1.5, 2.0]
    assert t.speedup[2] == 2.0 and t.spread[2] == [1.5, 2.0]
    assert t.source == "wall" and t.reference_s == 1.5


def pinned_run(
    seconds: float, cpu_s: float | None = None, kernel: float | None = None
) -> CommandResult:
    return run(seconds, kernel, cpu_s=seconds if cpu_s is None else cpu_s)


def test_a_speedup_beyond_the_cores_the_run_had_is_flagged():
    honest = timing(session([1.0] * 4, {1: [1.0] * 3, 2: [0.55] * 3}, cores=2.0, pinned={2: 2}))
    assert honest.above_cores == [] and honest.best_speedup == 1.818
    t = timing(session([1.0] * 4, {2: [0.4] * 3, 4: [0.4] * 3}, cores=2.0, pinned={2: 2, 4: 2}))
    assert t.above_cores == [2, 4] and t.best_speedup == 0.0
    assert "exceeds the 2 core(s)" in t.notes[0]
    gpu = timing(session([1.0] * 4, {1: [0.01] * 3}, cap_by_cores=False))
    assert gpu.above_cores == [] and gpu.best_speedup == 100.0


def test_a_better_sequential_algorithm_counts_when_one_pinned_cpu_shows_it():
    """gemm's loop order: 3x the reference on one CPU, 5.7x at two threads on two cores."""
    cand = {1: [pinned_run(0.33)] * 3, 2: [pinned_run(0.175, cpu_s=0.35)] * 3}
    ref = [run(1.0)] * 4
    t = timing(Session(reference=ref, candidate=cand, cores=2.0, pinned={1: 1, 2: 2}))
    assert t.sequential_gain == 3.03 and t.above_cores == [] and t.best_speedup == 5.714
    assert "already 3.03x the reference" in t.notes[0]


def test_the_one_worker_run_cannot_raise_the_bound_unless_the_sandbox_saw_one_cpu():
    ref = [run(1.0)] * 4
    fast = {1: [pinned_run(0.45)] * 3, 4: [pinned_run(0.4, cpu_s=0.8)] * 3}
    # Not pinned to one CPU: a program that ignores OMP_NUM_THREADS may have used them all.
    t = timing(Session(reference=ref, candidate=fast, cores=2.0, pinned={4: 2}))
    assert t.sequential_gain == 1.0 and t.above_cores == [1, 4]
    # Pinned, but its CPU time shows two CPUs (it widened its own affinity).
    wide = {1: [pinned_run(0.45, cpu_s=0.9)] * 3, 4: fast[4]}
    t = timing(Session(reference=ref, candidate=wide, cores=2.0, pinned={1: 1, 4: 2}))
    assert t.sequential_gain == 1.0 and t.above_cores == [1, 4]
    # CPU time unknown (a backend that cannot say): no gain is believed.
    blind = {1: [run(0.45)] * 3, 4: [run(0.4)] * 3}
    t = timing(Session(reference=ref, candidate=blind, cores=2.0, pinned={1: 1, 4: 2}))
    assert t.sequential_gain == 1.0 and t.above_cores == [1, 4]


def test_a_printed_kernel_time_does_not_enter_the_sequential_gain():
    """Half of each run is set-up; the candidate shaves 15 % off the kernel times it prints at
    every count. The gain comes from the wall times (1.0), so 2.35x on two cores is flagged."""
    ref = [run(1.0, kernel=0.5)] * 4
    cand = {
        1: [pinned_run(1.0, kernel=0.5 * 0.85)] * 3,
        4: [pinned_run(0.75, kernel=0.25 * 0.85, cpu_s=1.3)] * 3,
    }
    t = timing(Session(reference=ref, candidate=cand, cores=2.0, pinned={1: 1, 4: 2}))
    assert t.source == "kernel" and t.sequential_gain == 1.0
    assert t.speedup[4] > 2.3 and 4 in t.above_cores


def test_a_printed_kernel_time_counts_only_when_the_wall_times_confirm_it():
    ref = [run(1.0, kernel=0.5)] * 4  # half of the reference's run is set-up
    honest = {2: [run(0.76, kernel=0.26)] * 3}
    t = timing(Session(reference=ref, candidate=honest, cores=2.0))
    assert t.source == "kernel" and t.speedup[2] == round(0.5 / 0.26, 3)
    # Dividing the kernel by 1000: the set-up no longer buys an allowance.
    forged = {2: [run(0.76, kernel=0.00026)] * 3}
    t = timing(Session(reference=ref, candidate=forged, cores=2.0))
    assert t.source == "wall" and "not what the wall times imply" in t.notes[0]
    assert t.speedup[2] == round(1.0 / 0.76, 3)
    # Shaving 15 % off passes confirmation but gains no more than the slack.
    shaved = {2: [run(0.76, kernel=0.26 * 0.85)] * 3}
    t = timing(Session(reference=ref, candidate=shaved, cores=2.0))
    assert t.speedup[2] <= (0.5 / 0.26) * 1.2


def test_a_kernel_the_wall_times_cannot_resolve_confirms_no_printed_time():
    """Under load the reference's set-up ran long: the candidate's wall time, less that set-up,
    left no kernel at all, and a kernel time divided by 1000 was "confirmed" (seen once in the
    suite). With nothing to compare against, the wall times are used."""
    ref = [run(1.0, kernel=0.5)] + [run(1.3, kernel=0.5)] * 3  # set-up 0.5-0.8 s
    forged = {2: [run(0.76, kernel=0.00026)] * 3}  # implied: 0.76 - 0.8 < 0
    t = timing(Session(reference=ref, candidate=forged, cores=2.0))
    assert t.source == "wall" and "cannot resolve the kernel" in t.notes[0]
    assert max(t.speedup.values()) < 2.0


def test_a_second_kernel_time_or_one_beyond_the_wall_time_is_refused():
    ref = [run(0.276, kernel=0.0177)] * 4
    two = CommandResult(
        exit_code=0, duration_s=0.264, stderr="PARFORGE_TIME_S=0.017\nPARFORGE_TIME_S=0.000001\n"
    )
    t = timing(Session(reference=ref, candidate={1: [two] * 3}))
    assert t.source == "wall" and "more than one kernel time" in t.notes[0]
    beyond = timing(Session(reference=ref, candidate={1: [run(0.2, kernel=0.5)] * 3}))
    assert "exceeds its run's wall time" in beyond.notes[0]


def test_the_runtimes_start_up_measured_by_the_sandbox_is_allowed_outside_the_kernel():
    """Shaped like ParEval's axpy on an H100: the CUDA candidate spends 0.3 s more outside its
    kernel than the reference, starting the CUDA runtime; the sandbox's own probe accounts for
    it, and only for it."""
    ref = [run(0.232, kernel=0.0167)] * 4

    def source(cand: dict[int, list[CommandResult]], startup: float | None) -> str:
        probe = {1: startup} if startup is not None else None
        return timing(
            Session(reference=ref, candidate=cand, startup_s=probe, cap_by_cores=False)
        ).source

    cuda = {1: [run(0.528, kernel=0.005)] * 3}
    assert source(cuda, None) == "wall"
    assert source(cuda, 0.3077) == "kernel"
    # A second of work hidden outside the kernel is not start-up.
    assert source({1: [run(1.5, kernel=0.005)] * 3}, 0.3077) == "wall"
    # A kernel far shorter than the noise in the start-up cannot be confirmed: wall time.
    assert source({1: [run(0.528, kernel=0.0005)] * 3}, 0.2955) == "wall"


def test_other_load_beside_the_pairs_is_measured_and_flagged():
    def loaded(seconds: float, other: float) -> CommandResult:
        return CommandResult(
            exit_code=0, duration_s=seconds, cpu_s=seconds, host_busy_s=seconds + other
        )

    quiet = Session(
        reference=[loaded(1.0, 0.05)] * 4, candidate={2: [loaded(0.5, 0.02)] * 3}, cores=2.0
    )
    t = timing(quiet)
    assert t.foreign_load[2] < FOREIGN_LIMIT and t.disturbed == []
    busy = Session(
        reference=[loaded(1.0, 0.6)] * 4, candidate={2: [loaded(0.5, 0.3)] * 3}, cores=2.0
    )
    t = timing(busy)
    assert t.foreign_load[2] == 0.6 and t.disturbed == [2]
    assert "other work" in t.notes[0]
    # A backend that cannot tell says nothing.
    assert timing(session([1.0] * 4, {2: [0.5] * 3})).foreign_load == {}


def test_a_reference_below_the_floor_is_not_timed():
    short = timing(session([0.004] * 4, {2: [0.002] * 3}, cores=2.0))
    assert short.too_short and short.speedup == {} and short.best_speedup == 0.0
