"""CUDA concurrency checks: compute-sanitizer's memcheck, racecheck and synccheck.

They need a GPU. Without one the verdict says so (`NO_GPU`) instead of guessing.
"""

from __future__ import annotations

from sandbox.checkers.cuda_sanitizer import TOOL, error_count, parse_sanitizer
from sandbox.outcomes import missing_tool
from sandbox.spec import Spec
from sandbox.steps import Recorder
from sandbox.toolchains.base import Paths, Program
from sandbox.toolchains.cuda import SANITIZER_TOOLS, CUDAToolchain
from sandbox.verdict import ConcurrencyReport, Finding

NO_GPU = "not run: no GPU"
_SLOWDOWN = 10.0  # compute-sanitizer runs kernels serialized and instrumented


async def check_cuda_concurrency(
    rec: Recorder, paths: Paths, toolchain: CUDAToolchain, program: Program, spec: Spec
) -> ConcurrencyReport:
    """Run the built candidate under each sanitizer tool on the first test input."""
    case = spec.tests[0]
    findings: list[Finding] = []
    runs = 0
    for tool in SANITIZER_TOOLS:
        command = toolchain.sanitizer(program, tool, case, spec.timeout_s * _SLOWDOWN, paths)
        result = await rec.run(f"compute-sanitizer {tool} [{case.name}]", command)
        runs += 1
        output = result.stdout + "\n" + result.stderr
        if missing_tool(result):
            return ConcurrencyReport(
                ok=False,
                tools=[TOOL],
                runs=runs,
                not_run="not run: compute-sanitizer is not installed",
            )
        if result.timed_out:
            findings.append(
                Finding(
                    kind="hang",
                    tool=TOOL,
                    message=f"{tool}: no end within {result.duration_s:.0f}s",
                )
            )
            continue
        found = parse_sanitizer(tool, output)
        counted = error_count(output)
        if counted is None and result.exit_code not in (0, 99):
            # No summary at all: the tool itself did not get to check anything.
            return ConcurrencyReport(
                ok=False,
                tools=[TOOL],
                findings=findings,
                runs=runs,
                not_run=f"not run: compute-sanitizer {tool} failed (exit {result.exit_code})",
            )
        if counted and not any(f.kind != "racecheck warning" for f in found):
            found.append(
                Finding(
                    kind=f"{tool} error", tool=TOOL, message=f"{tool} counted {counted} error(s)"
                )
            )
        findings += found
    failing = [f for f in findings if f.kind != "racecheck warning"]
    return ConcurrencyReport(ok=not failing, tools=[TOOL], findings=findings, runs=runs)
