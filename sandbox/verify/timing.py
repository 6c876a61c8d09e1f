"""The timing stage: one paired session of the reference and the candidate (`sandbox.verify.speedup`).

Round k runs the reference, then the candidate at every count; a last reference run closes the
session. Every timed run holds the timing gate alone, is pinned to as many CPUs as it has
threads or ranks (the reference to one), and is still checked against the reference's answer.
"""

from __future__ import annotations

from sandbox.models import CommandResult
from sandbox.spec import TestCase
from sandbox.toolchains.base import Sources
from sandbox.verdict import Status, Verdict
from sandbox.verify import outcomes
from sandbox.verify.hidden import is_hidden
from sandbox.verify.job import Job
from sandbox.verify.speedup import Session, timing
from sandbox.verify.steps import kernel_time, median

PROBE_DIR = "probe"


async def measure(job: Job) -> Verdict | None:
    case = job.timing_case
    hidden = is_hidden(case.name)
    workers = job.tc.workers(job.spec)
    reference: list[CommandResult] = []
    candidate: dict[int, list[CommandResult]] = {n: [] for n in workers}
    rounds = job.spec.timing_repeats
    for k in range(rounds + 1):
        ref = await job.run_reference(f"time reference #{k + 1}", case, timed=True)
        status, reason = _check(job, ref, case, hidden, reference=True)
        if status is not None:
            return job.finish(
                Status.REFERENCE_FAILED,
                f"the reference fails on the timing input {case.name!r}: {reason}",
            )
        reference.append(ref)
        if k == rounds:
            break
        for n in workers:
            run = await job.run_candidate(f"timing #{k + 1}", case, n, timed=True)
            status, reason = _check(job, run, case, hidden)
            if status is not None:
                return job.finish(status, f"timing input {case.name!r} at {n}: {reason}")
            candidate[n].append(run)
    # The start-up allowance only matters to printed kernel times: without them, no probe.
    printed = all(kernel_time(r.stderr) is not None for runs in candidate.values() for r in runs)
    startup = await startup_seconds(job, workers) if printed else None
    job.verdict.timing = timing(
        Session(
            reference=reference,
            candidate=candidate,
            cores=job.cores,
            pinned={n: p for n in workers if (p := job.pinned(n)) is not None},
            startup_s=startup,
            cap_by_cores=job.pinned(1) is not None,
        )
    )
    return None


def _check(
    job: Job, run: CommandResult, case: TestCase, hidden: bool, reference: bool = False
) -> tuple[Status | None, str]:
    tc = job.ref_tc if reference else job.tc
    return outcomes.classify(
        run,
        job.expected[case.name],
        job.spec.tolerance,
        tc.target,
        tc.timed_out(run.exit_code, run.stderr),
        hidden=hidden,
    )


async def startup_seconds(job: Job, workers: list[int]) -> dict[int, float] | None:
    """What starting the candidate's runtime costs at each count beyond what the reference's
    own start costs: the toolchain's start-up probe, built and run in this workspace, pinned
    like the timed runs (None when the toolchain has none, or the probe does not build or run:
    then no start-up cost is allowed). The probe is the sandbox's own code: a candidate cannot
    slow it down to widen its allowance, short of loading the host, which is measured."""
    source = job.tc.startup_probe
    if source is None:
        return None
    lang = job.candidate.language_for(job.spec)
    probe = Sources(PROBE_DIR, f"probe{lang.suffix}", lang)
    await job.rec.workspace.write_files({f"{PROBE_DIR}/{probe.main}": source})
    for name, command in (
        ("build start-up probe", job.tc.compile(probe, job.paths)),
        ("link start-up probe", job.tc.link(probe, job.paths)),
    ):
        if not (await job.rec.run(name, command)).ok:
            return None
    # The reference runs in the same runtime (MPI at one rank): only what more ranks cost counts.
    same_runtime = job.ref_tc.target is job.tc.target
    counts = sorted({1, *workers}) if same_runtime else workers
    seconds: dict[int, float] = {}
    case = TestCase(name="startup", args=[])
    for n in counts:
        runs = []
        for k in range(job.spec.timing_repeats):
            command = job.tc.run(probe, case, n, job.spec.timeout_s, job.paths)
            command.cpus = job.pinned(n)
            result = await job.rec.run(f"run start-up probe #{k + 1} at {n}", command, timed=True)
            if not result.ok:
                return None
            runs.append(result.duration_s)
        seconds[n] = median(runs)
    base = seconds[1] if same_runtime else 0.0
    return {n: max(seconds[n] - base, 0.0) for n in workers}
