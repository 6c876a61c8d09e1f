from sandbox.models import CommandResult
from sandbox.outcomes import (
    classify,
    concurrency_failure,
    deadlock_findings,
    first_failure,
    missing_tool,
)
from sandbox.spec import Target, Tolerance
from sandbox.steps import cap, kernel_time, signal_name
from sandbox.timing import timing
from sandbox.verdict import Finding, Status, TestOutcome


def run(
    stdout: str = "",
    stderr: str = "",
    code: int | None = 0,
    seconds: float = 1.0,
    timed_out: bool = False,
):
    return CommandResult(
        exit_code=code, stdout=stdout, stderr=stderr, duration_s=seconds, timed_out=timed_out
    )


def test_classify_each_kind_of_run():
    assert classify(run("42\n"), "42\n", None, Target.OPENMP) == (None, "")
    assert classify(run("41\n"), "42\n", None, Target.OPENMP)[0] is Status.WRONG_ANSWER
    assert classify(run("1.0000001\n"), "1.0\n", Tolerance(rtol=1e-6), Target.OPENMP)[0] is None
    status, reason = classify(run(code=-11, stderr="boom\n"), "42\n", None, Target.OPENMP)
    assert status is Status.CRASHED
    assert reason == "killed by SIGSEGV: boom"
    assert classify(run(timed_out=True), "", None, Target.OPENMP)[0] is Status.TIMED_OUT
    assert classify(run(timed_out=True), "", None, Target.MPI)[0] is Status.DEADLOCK
    # mpirun's own --timeout ends the job by itself, with an exit status
    assert classify(run(code=110), "", None, Target.MPI, tool_timed_out=True)[0] is Status.DEADLOCK


def test_first_failure_prefers_deadlock_and_explains_rank_dependence():
    outcomes = [
        TestOutcome(test="t", workers=1, ok=True),
        TestOutcome(test="t", workers=2, ok=False, reason="line 1: expected '10', got '3'"),
        TestOutcome(test="t", workers=4, ok=False, reason="line 1: expected '10', got '1'"),
    ]
    statuses = [None, Status.WRONG_ANSWER, Status.WRONG_ANSWER]
    status, reason = first_failure(outcomes, statuses, Target.MPI)
    assert status is Status.WRONG_ANSWER
    assert reason.startswith("test 't' at 2 ranks: line 1")
    assert reason.endswith("the answer depends on the rank count (right at 1)")

    outcomes[2] = TestOutcome(
        test="t", workers=4, ok=False, reason="hung (deadlock): no end within 5s"
    )
    statuses[2] = Status.DEADLOCK
    assert first_failure(outcomes, statuses, Target.MPI)[0] is Status.DEADLOCK
    [finding] = deadlock_findings(outcomes, statuses)
    assert (finding.kind, finding.tool, finding.workers) == ("deadlock", "mpirun", 4)


def test_concurrency_failure_status_by_finding_kind():
    race = Finding(kind="data race", tool="archer-tsan", message="data race on `s`")
    memcheck = Finding(kind="memcheck error", tool="compute-sanitizer", message="bad write")
    assert concurrency_failure([memcheck, race]) == (Status.RACE, "data race on `s` (+1 more)")
    assert concurrency_failure([memcheck])[0] is Status.SANITIZER_ERROR
    assert (
        concurrency_failure([Finding(kind="hang", tool="archer-tsan", message="x")])[0]
        is Status.DEADLOCK
    )


def test_timing_uses_kernel_times_only_when_every_run_has_one():
    ref = [run(stderr=f"PARFORGE_TIME_S={t}\n", seconds=9) for t in (2.0, 2.2, 1.8)]
    cand = {
        1: [run(stderr="PARFORGE_TIME_S=2.0\n", seconds=9)] * 3,
        2: [run(stderr="PARFORGE_TIME_S=1.0\n", seconds=8.0)] * 3,
    }
    t = timing(ref, cand)
    assert t.source == "kernel"
    assert t.reference_s == 2.0
    assert t.speedup == {1: 1.0, 2: 2.0}
    assert t.best_speedup == 2.0
    cand[2] = [run(seconds=0.25)] * 3
    wall = timing(ref, cand)
    assert wall.source == "wall"
    assert wall.speedup[2] == 36.0
    assert wall.above_cores == [2]  # 36x scaling from 1 to 2 threads: flagged, not counted


def test_kernel_time_cap_and_signal_names():
    assert kernel_time("x\nPARFORGE_TIME_S=0.5\nPARFORGE_TIME_S=0.25\n") == 0.25
    assert kernel_time("PARFORGE_TIME_S=abc\n") is None
    assert signal_name(-9) == "killed by SIGKILL"
    assert signal_name(139) == "exit 139 (SIGSEGV)"
    assert signal_name(None) == "did not start"
    long = "a" * 10_000
    capped = cap(long)
    assert len(capped) < 4100
    assert "characters cut" in capped


def test_a_missing_compiler_is_named():
    assert (
        missing_tool(run(code=127, stderr="cannot execute nvcc: [Errno 2] No such file")) == "nvcc"
    )
    assert missing_tool(run(code=127, stderr="sh: 1: mpicc: not found")) == "mpicc"
    assert missing_tool(run(code=127, stderr="")) == "a required program"
    assert missing_tool(run(code=1, stderr="cannot execute nvcc")) is None


def test_forged_kernel_times_fall_back_to_wall_time_with_a_reason():
    ref = [run(stderr="PARFORGE_TIME_S=0.9\n", seconds=1.0)] * 3
    forged = {2: [run(stderr="PARFORGE_TIME_S=0.0005\n", seconds=0.5)] * 3}
    t = timing(ref, forged, cores=2)
    assert t.source == "wall" and "wall time used" in t.notes[0]
    above_wall = {2: [run(stderr="PARFORGE_TIME_S=0.9\n", seconds=0.5)] * 3}
    assert "exceeds its run's wall time" in timing(ref, above_wall).notes[0]
    honest = {2: [run(stderr="PARFORGE_TIME_S=0.46\n", seconds=0.56)] * 3}
    assert timing(ref, honest, cores=2).source == "kernel"


def test_a_runtime_start_up_measured_by_the_sandbox_is_allowed_outside_the_kernel():
    """The H100 run of ParEval's axpy: the reference spends 0.215 s outside its kernel, the CUDA
    candidate 0.528 s, 0.3 s of it starting the CUDA runtime. Without the sandbox's own start-up
    probe that looked like a forged kernel time; with it the kernel time is used, and the probe
    widens the allowance by its own measure only."""
    ref = [run(stderr="PARFORGE_TIME_S=0.0167\n", seconds=0.232)] * 3
    cuda = {1: [run(stderr="PARFORGE_TIME_S=0.0005\n", seconds=0.528)] * 3}
    assert timing(ref, cuda).source == "wall"
    t = timing(ref, cuda, startup_s=0.31)
    assert t.source == "kernel" and t.startup_s == 0.31 and t.notes == []
    assert t.speedup[1] == round(0.0167 / 0.0005, 3)
    # A program that hides a second of real work outside its kernel is still refused.
    hidden = {1: [run(stderr="PARFORGE_TIME_S=0.0005\n", seconds=1.5)] * 3}
    assert timing(ref, hidden, startup_s=0.31).source == "wall"


def test_a_second_kernel_time_in_a_run_is_not_the_drivers():
    """A global's destructor printing a forged time after the driver's line: the last line
    used to win, and a 17,761x speedup was accepted."""
    ref = [run(stderr="PARFORGE_TIME_S=0.0177\n", seconds=0.276)] * 3
    forged = "PARFORGE_TIME_S=0.0170\nPARFORGE_TIME_S=0.000001\n"
    t = timing(ref, {1: [run(stderr=forged, seconds=0.264)] * 3})
    assert t.source == "wall" and "more than one kernel time" in t.notes[0]
    assert t.speedup[1] < 1.1


def test_speedups_above_the_cores_are_flagged_and_short_references_not_timed():
    ref = [run(seconds=1.0)] * 3
    t = timing(ref, {1: [run(seconds=1.0)] * 3, 4: [run(seconds=0.1)] * 3}, cores=2)
    assert t.above_cores == [4] and t.speedup[4] == 10.0
    assert t.best_speedup == 1.0
    # A better serial algorithm: 3x on one thread, 2x more on two cores, nothing flagged.
    better = timing(ref, {1: [run(seconds=0.33)] * 3, 2: [run(seconds=0.17)] * 3}, cores=2)
    assert better.above_cores == [] and better.best_speedup > 5
    # One disturbed one-worker repeat (a shared host) does not make an honest 2x implausible.
    noisy = {1: [run(seconds=s) for s in (1.0, 1.3, 1.25)], 2: [run(seconds=0.5)] * 3}
    assert timing(ref, noisy, cores=2).above_cores == []
    # Consistent scaling past the cores still is.
    assert timing(
        ref, {1: [run(seconds=1.0)] * 3, 2: [run(seconds=0.4)] * 3}, cores=2
    ).above_cores == [2]
    short = timing([run(seconds=0.004)] * 3, {2: [run(seconds=0.002)] * 3}, cores=2)
    assert short.too_short and short.speedup == {} and short.best_speedup == 0.0
