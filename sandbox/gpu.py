"""CUDA concurrency checks: compute-sanitizer's memcheck, racecheck and synccheck.

They need a GPU. Without one the verdict says so (`NO_GPU`) instead of guessing.

The checks fail closed: only the report the tool wrote to its own log file is read (the
program's output is the candidate's to fill, fake reports included), a run whose log does not
prove the tool checked it is `not_run`, and the tool's error exit status fails the candidate
even when the log looks clean.
"""

from __future__ import annotations

import secrets

from sandbox.checkers.cuda_sanitizer import TOOL, error_count, has_proof, parse_sanitizer
from sandbox.outcomes import missing_tool
from sandbox.spec import Spec
from sandbox.steps import Recorder
from sandbox.toolchains.base import Paths, Program
from sandbox.toolchains.cuda import (
    SANITIZER_EXITCODE,
    SANITIZER_TOOLS,
    CUDAToolchain,
    sanitizer_log,
)
from sandbox.verdict import ConcurrencyReport, Finding

NO_GPU = "not run: no GPU"
_SLOWDOWN = 10.0  # compute-sanitizer runs kernels serialized and instrumented


async def check_cuda_concurrency(
    rec: Recorder, paths: Paths, toolchain: CUDAToolchain, program: Program, spec: Spec
) -> ConcurrencyReport:
    """Run the built candidate under each sanitizer tool on the largest test input worth
    instrumenting (`Spec.race_cases`, the timing input aside). Not the first: ParEval's first
    inputs hold one element, where threads have nothing to race on. On an H100 a shared-memory
    tree reduction with its barrier removed passed all three tools at one element."""
    case = spec.race_cases[-1]
    findings: list[Finding] = []
    runs = 0
    for tool in SANITIZER_TOOLS:
        label = f"compute-sanitizer {tool} [{case.name}]"
        # A fresh random name per run: the program can neither guess it nor plant a report.
        log = f"{paths.tmp}/sanitizer-{secrets.token_hex(8)}"
        command = toolchain.sanitizer(program, tool, case, spec.timeout_s * _SLOWDOWN, paths, log)
        result = await rec.run(label, command)
        runs += 1
        if missing_tool(result):
            return ConcurrencyReport(
                ok=False,
                tools=[TOOL],
                runs=runs,
                not_run="not run: compute-sanitizer is not installed",
            )
        if result.timed_out:
            # The hang is the finding whatever the log says; the other tools would hang too
            # (and the workspace may be gone with the run that did not stop).
            findings.append(
                Finding(
                    kind="hang",
                    tool=TOOL,
                    message=f"{tool}: no end within {result.duration_s:.0f}s",
                )
            )
            break
        report = (await rec.run(f"{label}: tool log", sanitizer_log(log))).stdout
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
        findings += found
    failing = [f for f in findings if f.kind != "racecheck warning"]
    return ConcurrencyReport(ok=not failing, tools=[TOOL], findings=findings, runs=runs)


def _error(tool: str, message: str) -> Finding:
    return Finding(kind=f"{tool} error", tool=TOOL, message=message)
