"""The timing stage: the candidate's timing runs at each count, each still checked against
the reference's output, then speedups (`sandbox.timing`)."""

from __future__ import annotations

from sandbox import outcomes
from sandbox.models import CommandResult
from sandbox.timing import timing as summarize
from sandbox.verdict import Verdict
from sandbox.verify.job import Job


async def measure(job: Job) -> Verdict | None:
    case = job.spec.timing_case
    cand_runs: dict[int, list[CommandResult]] = {}
    for n in job.tc.workers(job.spec):
        runs = cand_runs[n] = []
        for k in range(job.spec.timing_repeats):
            result = await job.run_candidate(f"timing #{k + 1}", case, n, timed=True)
            runs.append(result)
            status, reason = outcomes.classify(
                result,
                job.ref_timing[0].stdout,
                job.spec.tolerance,
                job.tc.target,
                job.tc.timed_out(result.exit_code, result.stderr),
            )
            if status is not None:
                return job.finish(status, f"timing input {case.name!r} at {n}: {reason}")
    job.verdict.timing = summarize(job.ref_timing, cand_runs, job.cores)
    return None
