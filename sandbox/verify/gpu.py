"""CUDA concurrency checks: compute-sanitizer's memcheck, racecheck and synccheck.

They need a GPU. Without one the verdict says so (`NO_GPU`) instead of guessing.

The checks fail closed: only the report the tool wrote into the run's own tool-log directory is
read (the program's output is the candidate's to fill, fake reports included), a run whose log
does not prove the tool checked it is `not_run`, the tool's error exit status fails the
candidate even when the log looks clean, and the instrumented run's answer must still be the
reference's (a program that behaves differently under the tool fails).
"""

from __future__ import annotations

from sandbox.checkers.compare import compare_outputs
from sandbox.checkers.cuda_sanitizer import TOOL, error_count, has_proof, parse_sanitizer
from sandbox.models import CommandResult
from sandbox.spec import Spec, TestCase
from sandbox.toolchains.base import Paths, Sources
from sandbox.toolchains.cuda import (
    SANITIZER_EXITCODE,
    SANITIZER_LOG,
    SANITIZER_TOOLS,
    CUDAToolchain,
)
from sandbox.verdict import ConcurrencyReport, Finding
from sandbox.verify.outcomes import CHECKED_DIFFERENTLY_KIND, describe_exit, missing_tool
from sandbox.verify.race import Expected
from sandbox.verify.steps import CommandLog

NO_GPU = "not run: no GPU"
_SLOWDOWN = 10.0  # compute-sanitizer runs kernels serialized and instrumented


async def check_cuda_concurrency(
    rec: CommandLog,
    paths: Paths,
    toolchain: CUDAToolchain,
    program: Sources,
    spec: Spec,
    cases: list[TestCase] | None = None,
    expected: Expected | None = None,
) -> ConcurrencyReport:
    """Run the built candidate under each sanitizer tool on the largest test input worth
    instrumenting (`Spec.race_cases`, the timing input aside), and racecheck again on any
    further `cases` (a hidden input). Not the first: ParEval's first inputs hold one element,
    where threads have nothing to race on. On an H100 a shared-memory tree reduction with its
    barrier removed passed all three tools at one element."""
    cases = cases or [spec.race_cases[-1]]
    plan = [(tool, cases[0]) for tool in SANITIZER_TOOLS]
    plan += [("racecheck", case) for case in cases[1:]]
    hidden = expected.hidden if expected else frozenset()
    findings: list[Finding] = []
    runs = 0
    for tool, case in plan:
        label = f"compute-sanitizer {tool} [{case.name}]"
        command = toolchain.sanitizer(program, tool, case, spec.timeout_s * _SLOWDOWN, paths)
        result = await rec.run(label, command, hidden=case.name in hidden)
        runs += 1
        if missing_tool(result):
            return ConcurrencyReport(
                ok=False,
                tools=[TOOL],
                runs=runs,
                not_run="not run: compute-sanitizer is not installed",
            )
        if result.timed_out:
            # The hang is the finding whatever the log says; the other tools would hang too.
            findings.append(
                Finding(
                    kind="hang",
                    tool=TOOL,
                    message=f"{tool}: no end within {result.duration_s:.0f}s",
                )
            )
            break
        report = result.files.get(SANITIZER_LOG, "")
        if not has_proof(report):
            return ConcurrencyReport(
                ok=False,
                tools=[TOOL],
                findings=findings,
                runs=runs,
                not_run=(
                    f"not run: compute-sanitizer {tool} left no report (exit {result.exit_code})"
                ),
            )
        found = parse_sanitizer(tool, report)
        counted = error_count(report)
        shown = any(f.kind != "racecheck warning" for f in found)
        if not shown and counted:
            found.append(_error(tool, f"{tool} counted {counted} error(s)"))
        elif not shown and result.exit_code == SANITIZER_EXITCODE:
            # The exit status comes from the tool itself; the log is a file the program
            # could reach while it ran.
            found.append(
                _error(
                    tool,
                    f"{tool}: exit code {SANITIZER_EXITCODE} reports errors the log does not show",
                )
            )
        elif not shown and expected is not None and (differs := _differs(result, case, expected)):
            found.append(
                Finding(
                    kind=CHECKED_DIFFERENTLY_KIND,
                    tool=TOOL,
                    message=f"under compute-sanitizer {tool} ({case.name}): {differs}",
                )
            )
        findings += found
    failing = [f for f in findings if f.kind != "racecheck warning"]
    return ConcurrencyReport(ok=not failing, tools=[TOOL], findings=findings, runs=runs)


def _differs(result: CommandResult, case: TestCase, expected: Expected) -> str:
    """Why an instrumented run's answer is not the reference's ("" when it is)."""
    hidden = case.name in expected.hidden
    if result.exit_code != 0:
        return describe_exit(result, hidden)
    want = expected.outputs.get(case.name)
    if want is None:
        return ""
    comparison = compare_outputs(want, result.stdout, expected.tolerance)
    if comparison.ok:
        return ""
    return "its output differs from the reference's" + ("" if hidden else f": {comparison.reason}")


def _error(tool: str, message: str) -> Finding:
    return Finding(kind=f"{tool} error", tool=TOOL, message=message)
