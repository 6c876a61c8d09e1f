"""Runs that fail by the MPI runtime's fault are run once more; the program's own failures not.

Crash reports recorded from Open MPI 4.1.4 in the sandbox image: the runtime's own crash in
MPI_Finalize (open-mpi/ompi#10117) and a program's null-pointer write.
"""

from __future__ import annotations

from sandbox.models import SCRATCH, Command, CommandResult
from sandbox.spec import Candidate, Spec, Target, TestCase
from sandbox.toolchains.mpi import TIME_LIMIT_MESSAGE, MPIToolchain
from sandbox.toolchains.openmp import OpenMPToolchain
from sandbox.verdict import Status, Verdict
from sandbox.verify import verify
from tests.fakes.sandbox import ScriptedSandbox

ABORTED = (
    "--------------------------------------------------------------------------\n"
    "Primary job  terminated normally, but 1 process returned\n"
    "a non-zero exit code. Per user-direction, the job has been aborted.\n"
    "--------------------------------------------------------------------------\n"
    "mpirun noticed that process rank 0 with PID 0 on node sandbox exited on signal 11 "
    "(Segmentation fault).\n"
)
RUNTIME_CRASH = (
    "[sandbox:00893] *** Process received signal ***\n"
    "[sandbox:00893] Signal: Segmentation fault (11)\n"
    "[sandbox:00893] Signal code: Address not mapped (1)\n"
    "[sandbox:00893] Failing at address: 0x7f7f330866f0\n" + ABORTED
)
PROGRAM_CRASH = (
    "[sandbox:00018] *** Process received signal ***\n"
    "[sandbox:00018] Signal: Segmentation fault (11)\n"
    "[sandbox:00018] Signal code: Address not mapped (1)\n"
    "[sandbox:00018] Failing at address: (nil)\n"
    "[sandbox:00018] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x3c050)[0x7f7582ce6050]\n"
    "[sandbox:00018] [ 1] ./prog(+0x10a4)[0x5628c48d50a4]\n"
    "[sandbox:00018] [ 2] /lib/x86_64-linux-gnu/libc.so.6(+0x2724a)[0x7f7582cd124a]\n"
    "[sandbox:00018] *** End of error message ***\n" + ABORTED
)


def crashed(stderr: str) -> CommandResult:
    return CommandResult(exit_code=139, stdout="42\n", stderr=stderr)


def test_only_the_runtime_crash_signature_is_the_runtimes_fault():
    mpi = MPIToolchain()
    assert mpi.runtime_fault(crashed(RUNTIME_CRASH)) is not None
    assert mpi.runtime_fault(crashed(PROGRAM_CRASH)) is None
    # A jump to a small address (a null function pointer) is the program's.
    assert mpi.runtime_fault(crashed(RUNTIME_CRASH.replace("0x7f7f330866f0", "0x10"))) is None
    assert mpi.runtime_fault(crashed(ABORTED)) is None  # no crash report at all
    assert mpi.runtime_fault(CommandResult(exit_code=0, stderr=RUNTIME_CRASH)) is None
    # A hang may be Open MPI's own too: mpirun's time limit, or the sandbox's behind it.
    hung = CommandResult(exit_code=1, stderr=f"The user-provided {TIME_LIMIT_MESSAGE}:\n")
    assert mpi.runtime_fault(hung) is not None
    assert mpi.runtime_fault(CommandResult(exit_code=None, timed_out=True)) is not None
    assert OpenMPToolchain().runtime_fault(crashed(RUNTIME_CRASH)) is None


def spec() -> Spec:
    return Spec(reference="int main() { }", tests=[TestCase(name="t")], ranks=[2])


MPI_SOURCE = "int main() { MPI_Send(0, 0, 0, 0, 0, 0); }"


def sandbox_crashing(times: int, stderr: str, program: str = "cand") -> ScriptedSandbox:
    """Runs of the candidate (or of the reference: `program="ref"`) crash `times` times with
    `stderr`, then answer right."""
    left = [times]

    def handler(command: Command) -> CommandResult:
        if command.argv[0] == "mpirun" and command.cwd == program and left[0] > 0:
            left[0] -= 1
            return crashed(stderr)
        return CommandResult(exit_code=0, stdout="42\n")

    return ScriptedSandbox(handler)


async def verify_crashing(times: int, stderr: str) -> Verdict:
    """The verdict on an MPI candidate whose runs crash `times` times with `stderr`."""
    candidate = Candidate(target=Target.MPI, source=MPI_SOURCE)
    return await verify(sandbox_crashing(times, stderr), spec(), candidate, timing=False)


async def test_a_runtime_crash_once_is_run_again_and_both_runs_are_recorded():
    box = sandbox_crashing(1, RUNTIME_CRASH)
    v = await verify(box, spec(), Candidate(target=Target.MPI, source=MPI_SOURCE), timing=False)
    assert v.status is Status.PASSED, v.reason
    names = [s.name for s in v.steps if s.name.startswith("run candidate")]
    assert names[0] == "run candidate [t] 2 ranks"
    assert names[1].startswith("run candidate [t] 2 ranks again: Open MPI crashed")
    # The second run is a command of its own: Open MPI's session lives in that command's own
    # scratch directory, fresh for each command.
    reruns = [c for c in box.workspace_.commands if c.argv[0] == "mpirun"][-2:]
    assert reruns[0] is not reruns[1]
    assert all(c.env["TMPDIR"] == SCRATCH for c in reruns)


async def test_a_runtime_crash_twice_is_a_crash():
    v = await verify_crashing(2, RUNTIME_CRASH)
    assert v.status is Status.CRASHED


async def test_a_hang_once_passes_and_a_hang_twice_is_a_deadlock():
    hang = f"The user-provided {TIME_LIMIT_MESSAGE}:\n"
    once = await verify_crashing(1, hang)
    assert once.status is Status.PASSED, once.reason
    twice = await verify_crashing(2, hang)
    assert twice.status is Status.DEADLOCK, twice.reason


async def test_a_crash_of_the_program_is_not_run_again():
    v = await verify_crashing(1, PROGRAM_CRASH)
    assert v.status is Status.CRASHED
    assert [s.name for s in v.steps if s.name.startswith("run candidate")] == [
        "run candidate [t] 2 ranks"
    ]


async def test_the_reference_survives_two_runtime_crashes_in_a_row():
    """The task's own program gets two more runs after a crash of the runtime (a busy host
    crashed one reference twice in a row): only a third crash fails the task's reference."""
    candidate = Candidate(target=Target.MPI, source=MPI_SOURCE)
    twice = await verify(sandbox_crashing(2, RUNTIME_CRASH, "ref"), spec(), candidate, timing=False)
    assert twice.status is Status.PASSED, twice.reason
    names = [s.name for s in twice.steps if s.name.startswith("run reference")]
    assert len(names) == 3 and all("again: Open MPI crashed" in n for n in names[1:])
    thrice = await verify(
        sandbox_crashing(3, RUNTIME_CRASH, "ref"), spec(), candidate, timing=False
    )
    assert thrice.status is Status.REFERENCE_FAILED, thrice.reason


def sandbox_lost_at(nth: int) -> ScriptedSandbox:
    """The reference's `nth` run runs past its time-out and the watchdog takes the
    workspace's container with it: every command after it ends with it, as the Docker
    backend's do (`sandbox_killed`, `ended_with`)."""
    lost = [False]
    runs = [0]

    def handler(command: Command) -> CommandResult:
        if lost[0]:
            return CommandResult(
                exit_code=-9,
                timed_out=True,
                sandbox_killed=True,
                ended_with="the sandbox was killed at an earlier command's time-out",
            )
        runs[0] += command.argv[0] == "mpirun" and command.cwd == "ref"
        if runs[0] == nth:
            lost[0] = True
            return CommandResult(exit_code=-9, timed_out=True, sandbox_killed=True, duration_s=71)
        return CommandResult(exit_code=0, stdout=f"{' '.join(command.argv[-1:])}\n")

    return ScriptedSandbox(handler)


async def test_a_reference_run_the_watchdog_took_fails_the_reference_not_the_candidate():
    """The reference's run that did not end is what the verdict names (not a sibling that
    ended with it, at 0 s), it is not run again on the dead workspace, and no candidate
    command runs there after it."""
    box = sandbox_lost_at(1)
    two = Spec(
        reference="int main() { }", tests=[TestCase(name="a"), TestCase(name="b")], ranks=[2]
    )
    v = await verify(box, two, Candidate(target=Target.MPI, source=MPI_SOURCE), timing=False)
    assert v.status is Status.REFERENCE_FAILED, v.reason
    assert "no end within 71s" in v.reason, v.reason
    assert not any(s.name.startswith(("build candidate", "run candidate")) for s in v.steps)
    assert not any("again" in s.name for s in v.steps)


async def test_a_hidden_input_the_watchdog_took_ends_the_verification_at_the_reference():
    """Derived hidden inputs the reference fails on are dropped, but not when the watchdog
    took the workspace on one: nothing could run there after it, and the candidate's build
    would end with that time-out (a `build_failed` that was the host's)."""
    box = sandbox_lost_at(4)  # after the three visible tests
    varied = Spec(
        reference="int main() { }",
        tests=[TestCase(name=n, args=[v]) for n, v in (("a", "10"), ("b", "20"), ("c", "30"))],
        ranks=[2],
    )
    v = await verify(box, varied, Candidate(target=Target.MPI, source=MPI_SOURCE), timing=False)
    assert v.status is Status.REFERENCE_FAILED, v.reason
    assert "hidden input" in v.reason and "no end within 71s" in v.reason, v.reason
    assert not any(s.name.startswith("build candidate") for s in v.steps)
