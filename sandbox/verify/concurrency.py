"""The concurrency stage: the OpenMP race check on an instrumented copy of the candidate,
MPI's deadlocks (found by the equivalence runs), compute-sanitizer on GPU hosts.

The checkers run the candidate on its largest visible test, on a hidden input and on the
timing input (the one it is measured on), and compare its answers with the reference's: a
program that races only where it is timed, or only on inputs it has not seen, or that behaves
differently when it is instrumented, is caught here."""

from __future__ import annotations

import secrets

from sandbox.spec import Target
from sandbox.toolchains import Sources
from sandbox.toolchains.cuda import CUDAToolchain
from sandbox.verdict import ConcurrencyReport, Status, Verdict
from sandbox.verify import outcomes
from sandbox.verify.gpu import check_cuda_concurrency
from sandbox.verify.hidden import is_hidden
from sandbox.verify.job import Job
from sandbox.verify.race import Expected, check_races


async def check(job: Job) -> Verdict | None:
    target = job.candidate.target
    if target is Target.OPENMP:
        extra = [t for t in job.spec.threads if t > 1]
        config = job.opts.race.model_copy(update={"threads": _merge(job.opts.race.threads, extra)})
        cand = job.cand
        instrumented = Sources(
            f"race-{secrets.token_hex(6)}", cand.main, cand.language, cand.cflags, cand.libs
        )
        visible = job.spec.race_cases
        inputs = [*visible[:-1], *job.hidden[:1], visible[-1]] if job.hidden else visible
        report = await check_races(
            job.rec,
            job.paths,
            instrumented,
            job.cand_files,
            job.checked,
            inputs,
            config,
            job.allowed,
            large=[job.timing_case],
            expected=_expected(job),
            driver=job.spec.driver is not None,
        )
    elif target is Target.MPI:
        equivalence = job.verdict.equivalence
        runs = len(equivalence.outcomes) if equivalence else 0
        report = ConcurrencyReport(ok=True, tools=["mpirun"], runs=runs)
    elif target is Target.CUDA:
        assert isinstance(job.tc, CUDAToolchain)
        cases = [job.spec.race_cases[-1], *job.hidden[:1]]
        report = await check_cuda_concurrency(
            job.rec, job.paths, job.tc, job.cand, job.spec, cases, _expected(job)
        )
    else:
        return None
    job.verdict.concurrency = report
    if report.not_run:
        return job.finish(Status.NOT_RUN, report.not_run)
    if not report.ok:
        return job.finish(*outcomes.concurrency_failure(report.findings))
    return None


def _expected(job: Job) -> Expected:
    hidden = frozenset(name for name in job.expected if is_hidden(name))
    return Expected(outputs=job.expected, tolerance=job.spec.tolerance, hidden=hidden)


def _merge(first: list[int], more: list[int]) -> list[int]:
    return first + [n for n in more if n not in first]
