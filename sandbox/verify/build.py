"""The build stage: the candidate's build report, and the integrity check that rejects a
candidate interfering with the checkers before any of its code runs."""

from __future__ import annotations

from sandbox import outcomes
from sandbox.checkers import integrity as checks
from sandbox.checkers.diagnostics import parse_diagnostics, summarize
from sandbox.checkers.ptxas import apply_names, parse_ptxas
from sandbox.models import Command
from sandbox.race import interference_finding
from sandbox.spec import Target
from sandbox.verdict import BuildReport, ConcurrencyReport, KernelResources, Status, Verdict
from sandbox.verify.job import Job


async def build(job: Job) -> Verdict | None:
    cand = await job.rec.run("build candidate", job.tc.compile(job.cand, job.paths))
    if missing := outcomes.missing_tool(cand):
        return job.finish(Status.NOT_RUN, f"not run: {missing} is not installed in the sandbox")
    output = cand.stderr + "\n" + cand.stdout
    report = BuildReport(ok=cand.ok, diagnostics=parse_diagnostics(output))
    if job.candidate.target is Target.CUDA:
        report.kernels = await _demangled(job, parse_ptxas(output))
    job.verdict.build = report
    if not cand.ok:
        reason = (
            summarize(report.diagnostics)
            or outcomes.tail(cand.stderr)
            or outcomes.describe_exit(cand)
        )
        return job.finish(Status.BUILD_FAILED, reason)
    return None


async def integrity(job: Job) -> Verdict | None:
    """Reject a candidate that interferes with the checkers (before any of it runs).

    What the reference itself calls (getenv for a size, say) is allowed; hooks, detection
    macros and the checkers' own names never are."""
    allowed = checks.calls_used(job.spec.reference)
    found = [
        m for name in job.checked for m in checks.source_findings(job.cand_files[name], allowed)
    ]
    if job.spec.driver is not None:
        found += [m for name in job.checked for m in checks.driver_findings(job.cand_files[name])]
    if not found and job.candidate.target is not Target.CUDA:
        # CUDA programs link the runtime statically, which imports dlopen and getenv itself.
        symbols = await job.rec.run(
            "candidate's symbols", Command(argv=["nm", job.cand.exe], timeout_s=30)
        )
        found = checks.symbol_findings(symbols.stdout, allowed) if symbols.ok else []
    if not found:
        return None
    finding = interference_finding(found)
    job.verdict.concurrency = ConcurrencyReport(ok=False, tools=[checks.TOOL], findings=[finding])
    return job.finish(Status.SANITIZER_ERROR, finding.message)


async def _demangled(job: Job, kernels: list[KernelResources]) -> list[KernelResources]:
    mangled = [k.name for k in kernels if k.name.startswith("_Z")]
    if not mangled:
        return kernels
    result = await job.rec.run(
        "demangle kernel names",
        Command(argv=["c++filt"], stdin="\n".join(mangled) + "\n", timeout_s=30),
    )
    names = result.stdout.splitlines() if result.ok else []
    return apply_names(kernels, dict(zip(mangled, names, strict=False)))
