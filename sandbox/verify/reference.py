"""The reference stage: outputs and timing runs of the spec's reference, before any candidate
file exists, from the cache or made here; then the reference leaves the workspace."""

from __future__ import annotations

from sandbox import outcomes
from sandbox.checkers.diagnostics import parse_diagnostics, summarize
from sandbox.errors import WorkspaceError
from sandbox.models import Command, CommandResult
from sandbox.spec import TestCase
from sandbox.verdict import Status, StepRecord, Verdict
from sandbox.verify.job import Job, gather_limited


async def prepare(job: Job) -> Verdict | None:
    """Fill `job.expected` (and `job.ref_timing` when timing); a verdict if the reference fails."""
    cache = job.cache
    if cache is None:
        return await _here(job, need_outputs=True)
    async with cache.lock(job.key):
        entry = cache.entry(job.key)
        need_outputs = entry.outputs is None
        need_timing = job.opts.timing and entry.timing_runs is None
        cache.stats.count("outputs", hit=not need_outputs)
        if job.opts.timing:
            cache.stats.count("timing", hit=not need_timing)
        if (need_outputs or need_timing) and (failed := await _here(job, need_outputs)):
            return failed
        if need_outputs:
            entry.outputs = dict(job.expected)
        else:
            assert entry.outputs is not None
            job.expected = dict(entry.outputs)
            _reused(job, "reference outputs")
        if need_timing:
            entry.timing_runs = job.ref_timing
        elif job.opts.timing:
            assert entry.timing_runs is not None
            job.ref_timing = entry.timing_runs
            _reused(job, "reference timing")
    return None


async def _here(job: Job, need_outputs: bool) -> Verdict | None:
    await job.rec.workspace.write_files(
        {f"ref/{k}": v for k, v in job.spec.files.items()}
        | {f"ref/{job.ref.main}": job.spec.reference}
    )
    built = await job.rec.run("build reference", job.ref_tc.compile(job.ref, job.paths))
    if failed := _build_failure(job, built):
        return failed
    if need_outputs and (failed := _check_runs(job, await _runs(job))):
        return failed
    if job.opts.timing and (failed := await _time(job)):
        return failed
    removed = await job.rec.run(
        "remove the reference", Command(argv=["rm", "-rf", "ref"], timeout_s=30)
    )
    if not removed.ok:
        raise WorkspaceError(f"cannot remove the reference: {removed.stderr.strip()}")
    return None


def _build_failure(job: Job, ref: CommandResult) -> Verdict | None:
    if missing := outcomes.missing_tool(ref):
        return job.finish(Status.NOT_RUN, f"not run: {missing} is not installed in the sandbox")
    if not ref.ok:
        diags = parse_diagnostics(ref.stderr + "\n" + ref.stdout)
        return job.finish(
            Status.REFERENCE_FAILED,
            f"the reference does not build: {summarize(diags) or outcomes.tail(ref.stderr)}",
        )
    return None


async def _runs(job: Job) -> list[tuple[TestCase, CommandResult]]:
    cases = job.spec.tests
    results = await gather_limited(
        job.opts.parallel_runs,
        *(job.run_reference(f"run reference [{c.name}]", c) for c in cases),
    )
    return list(zip(cases, results, strict=True))


def _check_runs(job: Job, runs: list[tuple[TestCase, CommandResult]]) -> Verdict | None:
    for case, result in runs:
        if not result.ok or job.ref_tc.timed_out(result.exit_code, result.stderr):
            return job.finish(
                Status.REFERENCE_FAILED,
                f"the reference fails on test {case.name!r}: {outcomes.describe_exit(result)}",
            )
        job.expected[case.name] = result.stdout
    return None


async def _time(job: Job) -> Verdict | None:
    case = job.spec.timing_case
    for k in range(job.spec.timing_repeats):
        run = await job.run_reference(f"time reference #{k + 1}", case, timed=True)
        if not run.ok:
            return job.finish(
                Status.REFERENCE_FAILED,
                f"the reference fails on the timing input: {outcomes.describe_exit(run)}",
            )
        job.ref_timing.append(run)
    return None


def _reused(job: Job, what: str) -> None:
    job.rec.steps.append(
        StepRecord(
            name=f"reuse {what}",
            command="(from an earlier verification of this spec)",
            exit_code=0,
            duration_s=0.0,
        )
    )
