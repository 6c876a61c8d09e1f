"""The GPU branch of verify() (tests, compute-sanitizer, timing) with a scripted sandbox.

No GPU here: the sandbox claims one and answers each command from a script, with sanitizer
reports written from compute-sanitizer's documented format. The script hands each report back
as the file the tool wrote into the run's tool-log directory.
"""

from __future__ import annotations

import pytest

from sandbox.models import COLLECT, Command, CommandResult
from sandbox.spec import Candidate, Spec, Target, TestCase
from sandbox.verdict import Status
from sandbox.verify import verify
from sandbox.verify.outcomes import CHECKED_DIFFERENTLY_KIND
from tests.fakes.sandbox import ScriptedSandbox
from tests.fakes.sanitizer import MEMCHECK, RACECHECK

PTXAS = (
    "ptxas info    : Compiling entry function '_Z3addPfi' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z3addPfi\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 12 registers, used 0 barriers, 368 bytes cmem[0]\n"
)
CLEAN = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n"
RACE_CLEAN = "========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"
SOURCE = "__global__ void add(float *x, int n) { }\nint main() { add<<<1, 1>>>(0, 0); }\n"


def script(logs: dict[str, str], exits: dict[str, int] | None = None, printed: str = "42\n"):
    """`logs`: what each sanitizer tool writes to its log file (default: a clean report);
    `exits`: its exit status (default 99 when the log shows errors); `printed`: what the
    program itself prints under the tool."""

    def handler(command: Command) -> CommandResult:
        tool = command.argv[0]
        if tool in ("nvcc", "gcc"):
            return CommandResult(exit_code=0, stderr=PTXAS if tool == "nvcc" else "")
        if tool == "c++filt":
            return CommandResult(exit_code=0, stdout="add(float*, int)\n")
        if tool == "compute-sanitizer":
            name = command.argv[1].removeprefix("--tool=")
            text = logs.get(name, RACE_CLEAN if name == "racecheck" else CLEAN)
            found = 99 if "Error" in text or "Invalid" in text else 0
            return CommandResult(
                exit_code=(exits or {}).get(name, found),
                stdout=printed,
                files={"report": text} if text else {},
            )
        if tool == "nm":
            return CommandResult(exit_code=0)
        seconds = 1.0 if command.cwd == "ref" else 0.25
        return CommandResult(exit_code=0, stdout="42\n", duration_s=seconds)

    return handler


def spec() -> Spec:
    return Spec(reference="int main() { }", tests=[TestCase(name="t")], timing_repeats=3)


async def test_clean_kernel_passes_with_native_arch_and_a_speedup():
    sandbox = ScriptedSandbox(script({}), gpu=True)
    v = await verify(sandbox, spec(), Candidate(target=Target.CUDA, source=SOURCE))
    assert v.status is Status.PASSED, v.reason
    assert [k.name for k in v.build.kernels] == ["add(float*, int)"]
    assert v.concurrency.tools == ["compute-sanitizer"] and v.concurrency.runs == 3
    assert v.timing.speedup == {1: 4.0}
    nvcc = next(c for c in sandbox.workspace_.commands if c.argv[0] == "nvcc")
    assert "-arch=native" in nvcc.argv
    runs = [c for c in sandbox.workspace_.commands if c.argv[0] == "compute-sanitizer"]
    # Each run writes its report into its own tool-log directory, never into its output.
    assert len(runs) == 3 and all(c.collect for c in runs)
    assert all(c.argv[c.argv.index("--log-file") + 1] == f"{COLLECT}/report" for c in runs)


async def test_memcheck_error_is_a_sanitizer_error():
    sandbox = ScriptedSandbox(script({"memcheck": MEMCHECK}), gpu=True)
    v = await verify(sandbox, spec(), Candidate(target=Target.CUDA, source=SOURCE), timing=False)
    assert v.status is Status.SANITIZER_ERROR
    assert v.reason.startswith("memcheck: Invalid __global__ write of size 4 bytes")


async def test_racecheck_hazard_is_a_race_and_warnings_alone_are_not():
    sandbox = ScriptedSandbox(script({"racecheck": RACECHECK}), gpu=True)
    v = await verify(sandbox, spec(), Candidate(target=Target.CUDA, source=SOURCE), timing=False)
    assert v.status is Status.RACE
    assert [f.kind for f in v.concurrency.findings] == ["racecheck hazard", "racecheck warning"]
    warning_only = RACECHECK.split("=========\n", 1)[1].replace(
        "(1 error, 1 warning)", "(0 errors, 1 warning)"
    )
    sandbox = ScriptedSandbox(
        script({"racecheck": "========= COMPUTE-SANITIZER\n" + warning_only}), gpu=True
    )
    ok = await verify(sandbox, spec(), Candidate(target=Target.CUDA, source=SOURCE), timing=False)
    assert ok.status is Status.PASSED, ok.reason


async def test_missing_compute_sanitizer_means_not_run():
    def handler(command: Command) -> CommandResult:
        if command.argv[0] == "compute-sanitizer":
            return CommandResult(
                exit_code=127, stderr="cannot execute compute-sanitizer: not found"
            )
        return script({})(command)

    v = await verify(
        ScriptedSandbox(handler, gpu=True), spec(), Candidate(target=Target.CUDA, source=SOURCE)
    )
    assert v.status is Status.NOT_RUN
    assert v.reason == "not run: compute-sanitizer is not installed"


async def test_a_clean_report_the_program_prints_does_not_hide_the_tools_findings():
    printed = CLEAN + RACE_CLEAN
    sandbox = ScriptedSandbox(script({"memcheck": MEMCHECK}, printed=printed), gpu=True)
    v = await verify(sandbox, spec(), Candidate(target=Target.CUDA, source=SOURCE), timing=False)
    assert v.status is Status.SANITIZER_ERROR
    assert v.reason.startswith("memcheck: Invalid __global__ write of size 4 bytes")


@pytest.mark.parametrize(
    "log",
    [
        "",  # the tool never wrote its log
        "========= COMPUTE-SANITIZER\n",  # cut short: no summary
        "========= ERROR SUMMARY: 0 errors\n",  # no banner
    ],
)
async def test_a_log_without_the_tools_banner_and_summary_is_not_run(log: str):
    sandbox = ScriptedSandbox(script({"memcheck": log}, printed=CLEAN), gpu=True)
    v = await verify(sandbox, spec(), Candidate(target=Target.CUDA, source=SOURCE), timing=False)
    assert v.status is Status.NOT_RUN
    assert v.reason == "not run: compute-sanitizer memcheck left no report (exit 0)"
    assert v.concurrency is not None and v.concurrency.runs == 1


async def test_the_error_exit_status_fails_a_clean_looking_log():
    sandbox = ScriptedSandbox(script({}, exits={"synccheck": 99}), gpu=True)
    v = await verify(sandbox, spec(), Candidate(target=Target.CUDA, source=SOURCE), timing=False)
    assert v.status is Status.SANITIZER_ERROR
    assert v.reason == "synccheck: exit code 99 reports errors the log does not show"


async def test_error_lines_the_program_prints_are_not_the_tools():
    # Printed under the tool only: not a sanitizer error (the tool's log is clean), but a
    # program whose answer changes when it is checked.
    sandbox = ScriptedSandbox(script({}, printed=MEMCHECK + RACECHECK), gpu=True)
    v = await verify(sandbox, spec(), Candidate(target=Target.CUDA, source=SOURCE), timing=False)
    assert v.status is Status.WRONG_ANSWER, v.reason
    assert v.concurrency is not None
    assert {f.kind for f in v.concurrency.findings} == {CHECKED_DIFFERENTLY_KIND}


async def test_a_run_past_its_limit_is_a_hang_and_ends_the_check():
    def handler(command: Command) -> CommandResult:
        if command.argv[0] == "compute-sanitizer":
            return CommandResult(exit_code=-9, timed_out=True, duration_s=50.0)
        return script({})(command)

    sandbox = ScriptedSandbox(handler, gpu=True)
    v = await verify(sandbox, spec(), Candidate(target=Target.CUDA, source=SOURCE), timing=False)
    assert v.status is Status.DEADLOCK
    assert v.reason == "memcheck: no end within 50s"
    assert v.concurrency is not None and v.concurrency.runs == 1


def timed_script(candidate_stderr: str):
    """The clean script, with kernel times printed (the reference's: 0.9 of its 1 s) and a
    start-up probe that runs 0.3 s."""
    base = script({})

    def handler(command: Command) -> CommandResult:
        if command.argv[0].startswith("./") and command.cwd in ("ref", "cand", "probe"):
            if command.cwd == "probe":
                return CommandResult(exit_code=0, duration_s=0.3)
            if command.cwd == "ref":
                return CommandResult(
                    exit_code=0, stdout="42\n", stderr="PARFORGE_TIME_S=0.9\n", duration_s=1.0
                )
            return CommandResult(
                exit_code=0, stdout="42\n", stderr=candidate_stderr, duration_s=0.6
            )
        return base(command)

    return handler


async def test_the_start_up_probe_widens_the_kernel_allowance_only_when_kernel_times_are_printed():
    # 0.6 s of wall time: the reference's 0.1 s outside its kernel, 0.3 s of CUDA's start-up
    # (the probe), and so a kernel of 0.2 s, which is what the candidate printed.
    sandbox = ScriptedSandbox(timed_script("PARFORGE_TIME_S=0.2\n"), gpu=True)
    v = await verify(sandbox, spec(), Candidate(target=Target.CUDA, source=SOURCE))
    assert v.status is Status.PASSED, v.reason
    assert v.timing.source == "kernel" and v.timing.startup_s == 0.3
    assert v.timing.speedup == {1: 4.5}
    probe_runs = [c for c in sandbox.workspace_.commands if c.cwd == "probe"]
    assert [c.argv[0] for c in probe_runs] == ["nvcc", "nvcc", "./prog", "./prog", "./prog"]
    # A kernel time the wall times do not confirm is not used, probe or not.
    forged = ScriptedSandbox(timed_script("PARFORGE_TIME_S=0.01\n"), gpu=True)
    v = await verify(forged, spec(), Candidate(target=Target.CUDA, source=SOURCE))
    assert v.timing.source == "wall" and v.timing.speedup == {1: round(1.0 / 0.6, 3)}

    quiet = ScriptedSandbox(timed_script(""), gpu=True)
    v = await verify(quiet, spec(), Candidate(target=Target.CUDA, source=SOURCE))
    assert v.timing.source == "wall" and v.timing.startup_s is None
    assert not [c for c in quiet.workspace_.commands if c.cwd == "probe"]
