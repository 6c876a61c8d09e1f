"""`verify(sandbox, spec, candidate) -> Verdict`: build, integrity, tests, concurrency, timing.

This package judges candidates; `sandbox.backends` runs them. One module per stage, each a
function of the job record (`job.Job`: the workspace, the programs in it, the verdict being
filled in) that returns a finished verdict when the candidate fails there, None otherwise:

    reference    the spec's reference: built, run on the tests, on this verification's hidden
                 inputs (`hidden`) and on the timing input (visible outputs may come from the cache)
    build        the candidate's build and the integrity check of its own object (before any of
                 it runs)
    equivalence  the tests, visible and hidden, at each thread or rank count
    concurrency  OpenMP race check, MPI deadlocks, compute-sanitizer on GPU hosts
    timing       one paired session of reference and candidate runs, and speedups
    pipeline     the order of the stages

One workspace per call, laid out as

    ref/    the spec's reference (main.<ext>) and support files, built into ref/prog
    cand/   the candidate (main.<ext>, or the spec's driver plus solution.inc), into cand/prog
    race-*/ the candidate again, instrumented for the OpenMP race checker (a random name)
    gen/, probe/   the spec's input generator and the start-up probe, when they are needed

The reference comes first and alone: it is built and run in the freshly leased (or wiped)
workspace before any candidate file is written. It stays for the paired timing, sealed in a
directory no candidate command can read (every command runs as a fresh identity that may read
only its own directories; see `sandbox.backends`), and its outputs never leave the host.

What the verdict rests on is what the sandbox observes from outside the candidate: the wall
time of the whole process tree, timed in turns with the reference's; outputs on inputs the
candidate could not know; and a race check whose presence the candidate cannot exploit (it
must give the same answers under the checker, and run in parallel there). What the candidate
says about itself (a printed kernel time) is advisory and bounded by what was observed.

A candidate that interferes with the checkers or the harness (`sandbox.checkers.integrity`) is
rejected before its tests run, and a candidate that breaks its own workspace fails with a
verdict, not an exception. The pipeline stops at the first failing stage; every command it ran
is in `Verdict.steps`, runs on hidden inputs without their inputs and outputs. The decisions
(what failed, why) are pure functions in `sandbox.verify.outcomes` and `sandbox.verify.speedup`.

With a `ReferenceCache` (`sandbox.verify.refcache`), the reference's outputs on the visible tests come
from an earlier verification of the same spec when there was one. With a `TimingGate`
(`sandbox.verify.gate`) shared by concurrent verifications, each timing run has the sandbox to itself.
"""

from __future__ import annotations

import time

from sandbox.base import Sandbox
from sandbox.config import VerifyOptions
from sandbox.spec import Candidate, Spec
from sandbox.verdict import Verdict
from sandbox.verify.gate import TimingGate
from sandbox.verify.job import Job, gather_limited
from sandbox.verify.pipeline import run
from sandbox.verify.refcache import ReferenceCache

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
    """Check a candidate against a spec in one fresh workspace of `sandbox` (`verifier` holds
    the choice between this host's sandbox and a cluster's hosts).

    A failing candidate (or reference) is a verdict, never an exception; only the sandbox's
    own failures raise (`SandboxError`). `reference_cache` shares the reference's results with
    other verifications of the same spec (see `sandbox.verify.refcache`); `timing_gate` keeps the
    timing runs of concurrent verifications apart from all their other commands.
    """
    opts = VerifyOptions.of(options, timing)
    start = time.monotonic()
    async with sandbox.workspace() as workspace:
        # After the lease: a backend may learn what it has (GPUs) only when it first starts.
        info = sandbox.info()
        job = Job(workspace, spec, candidate, opts, info, cache=reference_cache, gate=timing_gate)
        verdict = await run(job)
    verdict.sandbox = info
    verdict.duration_s = round(time.monotonic() - start, 3)
    return verdict
