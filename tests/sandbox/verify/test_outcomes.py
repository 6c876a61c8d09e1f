from sandbox.models import CommandResult
from sandbox.spec import Target, Tolerance
from sandbox.verdict import Finding, Status, TestOutcome
from sandbox.verify.outcomes import (
    classify,
    concurrency_failure,
    deadlock_findings,
    first_failure,
    missing_tool,
)
from sandbox.verify.steps import cap, kernel_time, signal_name


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
    # the sandbox's memory limit is named, on a hidden input too (whose output is not shown)
    killed = CommandResult(exit_code=137, stderr="rank 3 secret\n", out_of_memory=True)
    for hidden in (False, True):
        status, reason = classify(killed, "", None, Target.MPI, hidden=hidden)
        assert status is Status.CRASHED and "the sandbox's memory limit" in reason
        assert ("secret" in reason) is not hidden
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
