"""`verify(sandbox, spec, candidate) -> Verdict`: build, source check, tests, concurrency, timing.

This package judges candidates; `sandbox.backends` runs them. One module per stage, each a
function of the job record (`job.Job`: the workspace, the programs in it, the verdict being
filled in) that returns a finished verdict when the candidate fails there, None otherwise:

    reference    the spec's reference: built, run, timed, then removed (or taken from the cache)
    build        the candidate's build and the integrity check (before any of it runs)
    equivalence  the tests at each thread or rank count against the reference's outputs
    concurrency  OpenMP race check, MPI deadlocks, compute-sanitizer on GPU hosts
    timing       timing runs and speedups
    pipeline     the order of the stages

One workspace per call, laid out as

    ref/    the spec's reference (main.<ext>) and support files, built into ref/prog
    cand/   the candidate (main.<ext>, or the spec's driver plus solution.inc), into cand/prog
    race-*/ the candidate again, instrumented for the OpenMP race checker (a random name)
    .tmp/   TMPDIR, OpenMPI session files, the checkers' logs

The reference comes first and alone: it is built, run on every test and timed in the freshly
leased (or wiped) workspace before any candidate file is written, then removed. No candidate
process can read, run or replace it, and a reference result shared through the cache was made
where no candidate had run. Its outputs stay on the host.

A candidate that interferes with the checkers (sanitizer hooks, compiler or sanitizer tests,
reading its environment: `sandbox.checkers.integrity`) is rejected before its tests run, and a
candidate that breaks its own workspace (a directory replaced by a symlink, a full disk) fails
with a verdict, not an exception.

The pipeline stops at the first failing stage; every command it ran is in `Verdict.steps`.
The decisions (what failed, why) are pure functions in `sandbox.outcomes`.

With a `ReferenceCache` (`sandbox.refcache`), the reference's test outputs and timing runs come
from an earlier verification of the same spec when there was one; the reference is then not
built at all, and the verdict's steps say which results were reused. With a `TimingGate`
(`sandbox.gate`) shared by concurrent verifications, each timing run has the sandbox to itself.
"""

from __future__ import annotations

import time

from sandbox.base import RemoteSandbox, Sandbox
from sandbox.gate import TimingGate
from sandbox.refcache import ReferenceCache
from sandbox.spec import Candidate, Spec
from sandbox.verdict import Verdict
from sandbox.verify.job import Job, VerifyOptions, gather_limited
from sandbox.verify.pipeline import run

__all__ = ["VerifyOptions", "gather_limited", "verify"]


async def verify(
    sandbox: Sandbox,
    spec: Spec,
    candidate: Candidate,
    *,
    timing: bool = True,
    options: VerifyOptions | None = None,
    reference_cache: ReferenceCache | None = None,
    timing_gate: TimingGate | None = None,
) -> Verdict:
    """Check a candidate against a spec in one fresh workspace of `sandbox` (or, for a
    `RemoteSandbox`, on the host it picks, with that host's cache and gate).

    A failing candidate (or reference) is a verdict, never an exception; only the sandbox's
    own failures raise (`SandboxError`). `reference_cache` shares the reference's results with
    other verifications of the same spec (see `sandbox.refcache`); `timing_gate` keeps the
    timing runs of concurrent verifications apart from all their other commands.
    """
    opts = (options or VerifyOptions()).model_copy(
        update={"timing": timing and (options or VerifyOptions()).timing}
    )
    if isinstance(sandbox, RemoteSandbox):
        # The host that runs it has its own cache and gate (`sandbox.backends.cluster`).
        return await sandbox.verify_remote(spec, candidate, opts)
    start = time.monotonic()
    async with sandbox.workspace() as workspace:
        # After the lease: a backend may learn what it has (GPUs) only when it first starts.
        info = sandbox.info()
        job = Job(workspace, spec, candidate, opts, info, cache=reference_cache, gate=timing_gate)
        verdict = await run(job)
    verdict.sandbox = info
    verdict.duration_s = round(time.monotonic() - start, 3)
    return verdict
