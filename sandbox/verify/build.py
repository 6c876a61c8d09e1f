"""The build stage: the candidate compiled to its own object, the integrity check that rejects
a candidate interfering with the checkers (on that object, before anything is linked in and
before any of its code runs), then the link."""

from __future__ import annotations

from sandbox.checkers import integrity as checks
from sandbox.checkers.diagnostics import parse_diagnostics, summarize
from sandbox.checkers.ptxas import apply_names, parse_ptxas
from sandbox.models import Command, CommandResult
from sandbox.spec import Target
from sandbox.toolchains.base import OBJECT
from sandbox.verdict import BuildReport, ConcurrencyReport, KernelResources, Status, Verdict
from sandbox.verify import outcomes
from sandbox.verify.job import Job
from sandbox.verify.race import interference_finding


async def build(job: Job) -> Verdict | None:
    """Compile the candidate to its own object (linked later, after the integrity check)."""
    cand = await job.rec.run("build candidate", job.tc.compile(job.cand, job.paths))
    if missing := outcomes.missing_tool(cand):
        return job.finish(Status.NOT_RUN, f"not run: {missing} is not installed in the sandbox")
    output = cand.stderr + "\n" + cand.stdout
    report = BuildReport(ok=cand.ok, diagnostics=parse_diagnostics(output))
    if job.candidate.target is Target.CUDA:
        report.kernels = await _demangled(job, parse_ptxas(output))
    job.verdict.build = report
    return None if cand.ok else _build_failed(job, report, cand)


async def link(job: Job) -> Verdict | None:
    """Link the candidate's object into its program."""
    linked = await job.rec.run("link candidate", job.tc.link(job.cand, job.paths))
    report = job.verdict.build
    assert report is not None
    report.ok = linked.ok
    report.diagnostics += parse_diagnostics(linked.stderr + "\n" + linked.stdout)
    return None if linked.ok else _build_failed(job, report, linked)


def _build_failed(job: Job, report: BuildReport, result: CommandResult) -> Verdict:
    reason = (
        summarize(report.diagnostics)
        or outcomes.tail(result.stderr)
        or outcomes.describe_exit(result)
    )
    return job.finish(Status.BUILD_FAILED, reason)


async def integrity(job: Job) -> Verdict | None:
    """Reject a candidate that interferes with the checkers or the harness, before any of it
    runs: its sources, then its own object (symbols, and the text in its data sections).

    What the reference itself does (getenv for a size, say) is allowed; hooks, detection
    macros, timers and the checkers' own names never are."""
    allowed = job.allowed
    found = [
        m
        for name in job.checked
        for m in checks.source_findings(job.cand_files[name], allowed.calls)
    ]
    if job.spec.driver is not None:
        found += [m for name in job.checked for m in checks.driver_findings(job.cand_files[name])]
    if not found:
        found = await object_findings(job, job.cand.dir)
    if not found:
        return None
    finding = interference_finding(found)
    job.verdict.concurrency = ConcurrencyReport(ok=False, tools=[checks.TOOL], findings=[finding])
    return job.finish(Status.SANITIZER_ERROR, finding.message)


async def object_findings(job: Job, directory: str) -> list[str]:
    """What the candidate's object in `directory` does that it must not."""
    symbols = await job.rec.run(
        "candidate's symbols", Command(argv=["nm", OBJECT], cwd=directory, timeout_s=30)
    )
    if not symbols.ok:
        return [f"could not be inspected (nm: {outcomes.tail(symbols.stderr)})"]
    found = checks.symbol_findings(
        symbols.stdout,
        job.allowed,
        host_threads=job.candidate.target is Target.CUDA,
        driver=job.spec.driver is not None,
    )
    image = await job.rec.workspace.read_file(f"{directory}/{OBJECT}", limit=64 << 20)
    return found + checks.string_findings(image, job.allowed)


async def _demangled(job: Job, kernels: list[KernelResources]) -> list[KernelResources]:
    mangled = [k.name for k in kernels if k.name.startswith("_Z")]
    if not mangled:
        return kernels
    result = await job.rec.run(
        "demangle kernel names",
        Command(argv=["c++filt"], cwd=job.cand.dir, stdin="\n".join(mangled) + "\n", timeout_s=30),
    )
    names = result.stdout.splitlines() if result.ok else []
    return apply_names(kernels, dict(zip(mangled, names, strict=False)))
