"""The concurrency stage: the OpenMP race check on an instrumented copy of the candidate,
MPI's deadlocks (found by the equivalence runs), compute-sanitizer on GPU hosts."""

from __future__ import annotations

import secrets

from sandbox import outcomes
from sandbox.checkers import integrity
from sandbox.gpu import check_cuda_concurrency
from sandbox.race import check_races
from sandbox.spec import Target
from sandbox.toolchains import Program
from sandbox.toolchains.cuda import CUDAToolchain
from sandbox.verdict import ConcurrencyReport, Status, Verdict
from sandbox.verify.job import Job


async def check(job: Job) -> Verdict | None:
    target = job.candidate.target
    if target is Target.OPENMP:
        extra = [t for t in job.spec.threads if t > 1]
        config = job.opts.race.model_copy(update={"threads": _merge(job.opts.race.threads, extra)})
        cand = job.cand
        instrumented = Program(
            f"race-{secrets.token_hex(6)}", cand.main, cand.language, cand.cflags, cand.libs
        )
        report = await check_races(
            job.rec,
            job.paths,
            instrumented,
            job.cand_files,
            job.checked,
            job.spec.race_cases,
            config,
            integrity.calls_used(job.spec.reference),
        )
    elif target is Target.MPI:
        equivalence = job.verdict.equivalence
        runs = len(equivalence.outcomes) if equivalence else 0
        report = ConcurrencyReport(ok=True, tools=["mpirun"], runs=runs)
    elif target is Target.CUDA:
        assert isinstance(job.tc, CUDAToolchain)
        report = await check_cuda_concurrency(job.rec, job.paths, job.tc, job.cand, job.spec)
    else:
        return None
    job.verdict.concurrency = report
    if report.not_run:
        return job.finish(Status.NOT_RUN, report.not_run)
    if not report.ok:
        return job.finish(*outcomes.concurrency_failure(report.findings))
    return None


def _merge(first: list[int], more: list[int]) -> list[int]:
    return first + [n for n in more if n not in first]
