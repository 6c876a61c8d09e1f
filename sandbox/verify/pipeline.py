"""The order of the stages: the reference alone first, then the candidate, stage by stage."""

from __future__ import annotations

from sandbox.errors import WorkspaceRefused
from sandbox.spec import Target
from sandbox.verdict import ConcurrencyReport, Equivalence, Status, Verdict
from sandbox.verify import build, concurrency, equivalence, reference, timing
from sandbox.verify.gpu import NO_GPU
from sandbox.verify.job import Job
from sandbox.verify.race import workspace_paths

PROBE_REASON = "a behaviour probe: outputs matched; no race check and no timing ran"


async def run(job: Job) -> Verdict:
    job.paths = await workspace_paths(job.rec)
    if failed := await reference.prepare(job):
        return failed
    await job.rec.workspace.write_files({f"cand/{k}": v for k, v in job.cand_files.items()})
    try:
        return await _candidate(job)
    except WorkspaceRefused as exc:
        # The workspace was healthy before the candidate ran: what broke it is the candidate.
        return job.finish(Status.CRASHED, f"the candidate broke its workspace: {exc}")


async def _candidate(job: Job) -> Verdict:
    if failed := await build.build(job):
        return failed
    source = job.tc.source_check(job.candidate.source)
    job.verdict.source_check = source
    if not source.ok:
        return job.finish(Status.NOT_PARALLEL, source.message)
    if failed := await build.integrity(job):
        return failed
    if failed := await build.link(job):
        return failed
    if job.candidate.target is Target.CUDA and not job.gpu:
        job.verdict.equivalence = Equivalence(ok=False, not_run=NO_GPU)
        job.verdict.concurrency = ConcurrencyReport(ok=False, not_run=NO_GPU)
        return job.finish(Status.NOT_RUN, NO_GPU)
    if failed := await equivalence.check(job):
        return failed
    if job.opts.probe:
        return job.finish(Status.PASSED, PROBE_REASON)
    if failed := await concurrency.check(job):
        return failed
    if job.opts.timing and (failed := await timing.measure(job)):
        return failed
    notes = job.verdict.timing.notes if job.verdict.timing else []
    return job.finish(Status.PASSED, "; ".join(notes))
