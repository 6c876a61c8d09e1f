"""The equivalence stage: every test (the visible ones, then this verification's hidden ones) at
every thread or rank count, against the reference's outputs; an MPI hang is a deadlock, and the
stage stops at the first hang (each costs a whole time-out). A failure on a hidden input says
how it failed, never what the input or the expected output was."""

from __future__ import annotations

from sandbox.verdict import ConcurrencyReport, Equivalence, Status, TestOutcome, Verdict
from sandbox.verify import outcomes
from sandbox.verify.hidden import is_hidden
from sandbox.verify.job import Job, gather_limited


async def check(job: Job) -> Verdict | None:
    plan = [(case, n) for case in job.tests for n in job.tc.workers(job.spec)]
    found: list[TestOutcome] = []
    statuses: list[Status | None] = []
    step = job.opts.parallel_runs
    for start in range(0, len(plan), step):
        batch = plan[start : start + step]
        results = await gather_limited(
            len(batch), *(job.run_candidate(case.name, case, n) for case, n in batch)
        )
        for (case, n), result in zip(batch, results, strict=True):
            status, reason = outcomes.classify(
                result,
                job.expected[case.name],
                job.spec.tolerance,
                job.tc.target,
                job.tc.timed_out(result.exit_code, result.stderr),
                hidden=is_hidden(case.name),
            )
            found.append(TestOutcome(test=case.name, workers=n, ok=status is None, reason=reason))
            statuses.append(status)
        if any(s in (Status.TIMED_OUT, Status.DEADLOCK) for s in statuses):
            break
    job.verdict.equivalence = Equivalence(ok=all(o.ok for o in found), outcomes=found)
    if job.verdict.equivalence.ok:
        return None
    status, reason = outcomes.first_failure(found, statuses, job.tc.target)
    if status is Status.DEADLOCK:
        job.verdict.concurrency = ConcurrencyReport(
            ok=False,
            tools=["mpirun"],
            findings=outcomes.deadlock_findings(found, statuses),
            runs=len(found),
        )
    return job.finish(status, reason)
