"""The timing stage: the candidate's timing runs at each count, each still checked against
the reference's output, then speedups (`sandbox.timing`)."""

from __future__ import annotations

from sandbox import outcomes
from sandbox.models import CommandResult
from sandbox.spec import TestCase
from sandbox.steps import kernel_time, median
from sandbox.timing import timing as summarize
from sandbox.toolchains.base import Program
from sandbox.verdict import Verdict
from sandbox.verify.job import Job

PROBE_DIR = "probe"


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
    # The start-up allowance only matters to printed kernel times: without them, no probe.
    printed = all(kernel_time(r.stderr) is not None for runs in cand_runs.values() for r in runs)
    startup = await startup_seconds(job) if printed else None
    job.verdict.timing = summarize(job.ref_timing, cand_runs, job.cores, startup_s=startup)
    return None


async def startup_seconds(job: Job) -> float | None:
    """Median wall time of the toolchain's start-up probe, built and run in this workspace
    (None when the toolchain has none, or the probe does not build or run: then no start-up
    cost is allowed). The probe is the sandbox's own code: a candidate cannot slow it down to
    widen its allowance, short of loading the host, which slows the reference's runs as well."""
    source = job.tc.startup_probe
    if source is None:
        return None
    lang = job.candidate.language_for(job.spec)
    probe = Program(PROBE_DIR, f"probe{lang.suffix}", lang)
    await job.rec.workspace.write_files({f"{PROBE_DIR}/{probe.main}": source})
    built = await job.rec.run("build start-up probe", job.tc.compile(probe, job.paths))
    if not built.ok:
        return None
    case = TestCase(name="startup", args=[])
    runs = []
    for k in range(job.spec.timing_repeats):
        command = job.tc.run(probe, case, 1, job.spec.timeout_s, job.paths)
        result = await job.rec.run(f"run start-up probe #{k + 1}", command, timed=True)
        if not result.ok:
            return None
        runs.append(result.duration_s)
    return median(runs)
