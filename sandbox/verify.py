"""`verify(sandbox, spec, candidate) -> Verdict`: build, source check, tests, concurrency, timing.

One workspace per call, laid out as

    ref/    the spec's reference (main.<ext>) and support files, built into ref/prog
    cand/   the candidate (main.<ext>, or the spec's driver plus solution.inc), into cand/prog
    race/   the candidate again, instrumented for the OpenMP race checker
    .tmp/   TMPDIR and OpenMPI session files

The pipeline stops at the first failing stage; every command it ran is in `Verdict.steps`.
The decisions (what failed, why) are pure functions in `sandbox.outcomes`.

With a `ReferenceCache` (`sandbox.refcache`), the reference's test outputs and timing runs come
from an earlier verification of the same spec when there was one; the reference is then not
built at all, and the verdict's steps say which results were reused. With a `TimingGate`
(`sandbox.gate`) shared by concurrent verifications, each timing run has the sandbox to itself.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TypeVar

from pydantic import BaseModel, Field

from sandbox import outcomes
from sandbox.base import Sandbox, Workspace
from sandbox.checkers.diagnostics import parse_diagnostics, summarize
from sandbox.checkers.ptxas import apply_names, parse_ptxas
from sandbox.gate import TimingGate
from sandbox.gpu import NO_GPU, check_cuda_concurrency
from sandbox.models import Command, CommandResult
from sandbox.race import RaceCheckConfig, check_races, workspace_paths
from sandbox.refcache import ReferenceCache
from sandbox.spec import Candidate, Spec, Target, TestCase
from sandbox.steps import Recorder
from sandbox.toolchains import Program, Toolchain, reference_toolchain, toolchain_for
from sandbox.toolchains.cuda import DEFAULT_ARCH, CUDAToolchain
from sandbox.verdict import (
    BuildReport,
    ConcurrencyReport,
    Equivalence,
    KernelResources,
    Status,
    StepRecord,
    TestOutcome,
    Verdict,
)

T = TypeVar("T")


class VerifyOptions(BaseModel):
    """Knobs of one verification (the spec holds the task's own: tests, counts, time-outs)."""

    timing: bool = True
    race: RaceCheckConfig = Field(default_factory=RaceCheckConfig)
    parallel_runs: int = Field(default=2, ge=1)
    """Test runs at once in the workspace (timing runs are always one at a time)."""
    omp_wait_policy: str | None = "passive"
    """OMP_WAIT_POLICY of OpenMP candidate runs (None: the runtime's default). Sandboxes share
    cores; threads spinning at barriers turn any contention into slowdowns of several times."""
    cuda_arch: str | None = None
    """nvcc `-arch`; None = `native` on a GPU sandbox, `sm_80` without one."""


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
    """Check a candidate against a spec in one fresh workspace of `sandbox`.

    A failing candidate (or reference) is a verdict, never an exception; only the sandbox's
    own failures raise (`SandboxError`). `reference_cache` shares the reference's results with
    other verifications of the same spec (see `sandbox.refcache`); `timing_gate` keeps the
    timing runs of concurrent verifications apart from all their other commands.
    """
    opts = (options or VerifyOptions()).model_copy(
        update={"timing": timing and (options or VerifyOptions()).timing}
    )
    start = time.monotonic()
    async with sandbox.workspace() as workspace:
        # After the lease: a backend may learn what it has (GPUs) only when it first starts.
        info = sandbox.info()
        job = _Job(
            workspace, spec, candidate, opts, gpu=info.gpu, cache=reference_cache, gate=timing_gate
        )
        verdict = await job.run()
    verdict.sandbox = info
    verdict.duration_s = round(time.monotonic() - start, 3)
    return verdict


async def gather_limited(limit: int, *aws: Awaitable[T]) -> list[T]:
    """`asyncio.gather` with at most `limit` awaitables running at once."""
    slots = asyncio.Semaphore(limit)

    async def one(aw: Awaitable[T]) -> T:
        async with slots:
            return await aw

    return list(await asyncio.gather(*(one(a) for a in aws)))


class _Job:
    """One verification: the workspace, the programs in it, and the verdict being filled in."""

    def __init__(
        self,
        workspace: Workspace,
        spec: Spec,
        candidate: Candidate,
        opts: VerifyOptions,
        gpu: bool,
        cache: ReferenceCache | None = None,
        gate: TimingGate | None = None,
    ) -> None:
        self.rec = Recorder(workspace, gate)
        self.cache = cache
        self.key = cache.key(spec, candidate.target) if cache is not None else ""
        self.ref_built = False
        self.ref_runs: list[tuple[TestCase, CommandResult]] | None = None
        """The reference's test runs, when this verification made them for the cache."""
        self.spec, self.candidate, self.opts, self.gpu = spec, candidate, opts, gpu
        arch = opts.cuda_arch or ("native" if gpu else DEFAULT_ARCH)
        self.tc: Toolchain = toolchain_for(candidate.target, arch)
        self.ref_tc = reference_toolchain(candidate.target)
        flags, libs = tuple(spec.cflags), tuple(spec.libs)
        self.ref = Program("ref", f"main{spec.language.suffix}", spec.language, flags, libs)
        lang = candidate.language_for(spec)
        if spec.driver is not None:
            main = f"driver{lang.suffix}"
            self.cand_files = {**spec.files, main: spec.driver, "solution.inc": candidate.source}
            self.checked = ["solution.inc"]
        else:
            main = f"main{lang.suffix}"
            self.cand_files = {**spec.files, main: candidate.source}
            self.checked = [main]
        self.cand = Program("cand", main, lang, flags, libs)
        self.verdict = Verdict(target=candidate.target, status=Status.PASSED)
        self.expected: dict[str, str] = {}

    def _finish(self, status: Status, reason: str = "") -> Verdict:
        self.verdict.status, self.verdict.reason = status, reason
        self.verdict.steps = self.rec.steps
        return self.verdict

    async def run(self) -> Verdict:
        self.paths = await workspace_paths(self.rec)
        await self.rec.workspace.write_files(
            {
                **{f"ref/{k}": v for k, v in self.spec.files.items()},
                f"ref/{self.ref.main}": self.spec.reference,
            }
            | {f"cand/{k}": v for k, v in self.cand_files.items()}
        )
        if failed := await self._build():
            return failed
        source = self.tc.source_check(self.candidate.source)
        self.verdict.source_check = source
        if not source.ok:
            return self._finish(Status.NOT_PARALLEL, source.message)
        if failed := await self._reference_outputs():
            return failed
        if self.candidate.target is Target.CUDA and not self.gpu:
            self.verdict.equivalence = Equivalence(ok=False, not_run=NO_GPU)
            self.verdict.concurrency = ConcurrencyReport(ok=False, not_run=NO_GPU)
            return self._finish(Status.NOT_RUN, NO_GPU)
        if failed := await self._equivalence():
            return failed
        if failed := await self._concurrency():
            return failed
        if self.opts.timing and (failed := await self._timing()):
            return failed
        return self._finish(Status.PASSED)

    async def _build(self) -> Verdict | None:
        cand_build = self.rec.run("build candidate", self.tc.compile(self.cand, self.paths))
        entry = self.cache.entry(self.key) if self.cache is not None else None
        ref: CommandResult | None
        if entry is None:
            ref, cand = await asyncio.gather(self._build_reference_step(), cand_build)
        elif entry.outputs is not None or entry.claimed:
            # Known, or being worked out by another verification: this one waits for the
            # outputs later and builds the reference only if timing needs it.
            cand, ref = await cand_build, None
        else:
            assert self.cache is not None
            entry.claimed = True
            lock = self.cache.lock(self.key)
            # Taken before anything can yield, so the others queue behind this one.
            await lock.acquire()
            try:
                ref, cand = await asyncio.gather(self._prepare_reference(), cand_build)
            finally:
                lock.release()
        if missing := outcomes.missing_tool(cand):
            return self._finish(
                Status.NOT_RUN, f"not run: {missing} is not installed in the sandbox"
            )
        if ref is not None and (failed := self._reference_build_failure(ref)):
            return failed
        output = cand.stderr + "\n" + cand.stdout
        report = BuildReport(ok=cand.ok, diagnostics=parse_diagnostics(output))
        if self.candidate.target is Target.CUDA:
            report.kernels = await self._demangled(parse_ptxas(output))
        self.verdict.build = report
        if not cand.ok:
            reason = (
                summarize(report.diagnostics)
                or outcomes.tail(cand.stderr)
                or outcomes.describe_exit(cand)
            )
            return self._finish(Status.BUILD_FAILED, reason)
        return None

    async def _build_reference_step(self) -> CommandResult:
        result = await self.rec.run("build reference", self.ref_tc.compile(self.ref, self.paths))
        self.ref_built = result.ok
        return result

    def _reference_build_failure(self, ref: CommandResult) -> Verdict | None:
        if missing := outcomes.missing_tool(ref):
            return self._finish(
                Status.NOT_RUN, f"not run: {missing} is not installed in the sandbox"
            )
        if not ref.ok:
            diags = parse_diagnostics(ref.stderr + "\n" + ref.stdout)
            return self._finish(
                Status.REFERENCE_FAILED,
                f"the reference does not build: {summarize(diags) or outcomes.tail(ref.stderr)}",
            )
        return None

    async def _ensure_reference(self) -> Verdict | None:
        """Build the reference in this workspace unless it already was."""
        if self.ref_built:
            return None
        return self._reference_build_failure(await self._build_reference_step())

    def _reused(self, what: str) -> None:
        self.rec.steps.append(
            StepRecord(
                name=f"reuse {what}",
                command="(from an earlier verification of this spec)",
                exit_code=0,
                duration_s=0.0,
            )
        )

    async def _demangled(self, kernels: list[KernelResources]) -> list[KernelResources]:
        mangled = [k.name for k in kernels if k.name.startswith("_Z")]
        if not mangled:
            return kernels
        result = await self.rec.run(
            "demangle kernel names",
            Command(argv=["c++filt"], stdin="\n".join(mangled) + "\n", timeout_s=30),
        )
        names = result.stdout.splitlines() if result.ok else []
        return apply_names(kernels, dict(zip(mangled, names, strict=False)))

    async def _prepare_reference(self) -> CommandResult:
        """Build the reference and work out its outputs for the cache (under the entry's lock),
        beside the candidate's build; the other verifications of the spec wait for the outputs
        instead of building the reference too."""
        assert self.cache is not None
        ref = await self._build_reference_step()
        entry = self.cache.entry(self.key)
        if ref.ok and entry.outputs is None:
            self.ref_runs = await self._reference_runs()
            if self._reference_runs_ok(self.ref_runs):
                entry.outputs = {c.name: r.stdout for c, r in self.ref_runs}
                self.cache.stats.count("outputs", hit=False)
        return ref

    async def _reference_outputs(self) -> Verdict | None:
        if self.cache is None:
            return self._check_reference_runs(await self._reference_runs())
        async with self.cache.lock(self.key):
            entry = self.cache.entry(self.key)
            if entry.outputs is not None:
                self.expected = dict(entry.outputs)
                if self.ref_runs is None:
                    self.cache.stats.count("outputs", hit=True)
                    self._reused("reference outputs")
                return None
            if failed := await self._ensure_reference():
                return failed
            runs = self.ref_runs or await self._reference_runs()
            if failed := self._check_reference_runs(runs):
                return failed
            entry.outputs = dict(self.expected)
            self.cache.stats.count("outputs", hit=False)
        return None

    async def _reference_runs(self) -> list[tuple[TestCase, CommandResult]]:
        cases = self.spec.tests
        results = await gather_limited(
            self.opts.parallel_runs,
            *(self._run_reference(f"run reference [{c.name}]", c) for c in cases),
        )
        return list(zip(cases, results, strict=True))

    def _reference_runs_ok(self, runs: list[tuple[TestCase, CommandResult]]) -> bool:
        return all(r.ok and not self.ref_tc.timed_out(r.exit_code, r.stderr) for _, r in runs)

    def _check_reference_runs(self, runs: list[tuple[TestCase, CommandResult]]) -> Verdict | None:
        for case, result in runs:
            if not result.ok or self.ref_tc.timed_out(result.exit_code, result.stderr):
                return self._finish(
                    Status.REFERENCE_FAILED,
                    f"the reference fails on test {case.name!r}: {outcomes.describe_exit(result)}",
                )
            self.expected[case.name] = result.stdout
        return None

    async def _equivalence(self) -> Verdict | None:
        plan = [(case, n) for case in self.spec.tests for n in self.tc.workers(self.spec)]
        found: list[TestOutcome] = []
        statuses: list[Status | None] = []
        step = self.opts.parallel_runs
        for start in range(0, len(plan), step):
            batch = plan[start : start + step]
            results = await asyncio.gather(
                *(self._run_candidate(case.name, case, n) for case, n in batch)
            )
            for (case, n), result in zip(batch, results, strict=True):
                status, reason = outcomes.classify(
                    result,
                    self.expected[case.name],
                    self.spec.tolerance,
                    self.tc.target,
                    self.tc.timed_out(result.exit_code, result.stderr),
                )
                found.append(
                    TestOutcome(test=case.name, workers=n, ok=status is None, reason=reason)
                )
                statuses.append(status)
            if any(s in (Status.TIMED_OUT, Status.DEADLOCK) for s in statuses):
                break  # each further hang costs a whole time-out
        self.verdict.equivalence = Equivalence(ok=all(o.ok for o in found), outcomes=found)
        if self.verdict.equivalence.ok:
            return None
        status, reason = outcomes.first_failure(found, statuses, self.tc.target)
        if status is Status.DEADLOCK:
            self.verdict.concurrency = ConcurrencyReport(
                ok=False,
                tools=["mpirun"],
                findings=outcomes.deadlock_findings(found, statuses),
                runs=len(found),
            )
        return self._finish(status, reason)

    def _run_candidate(
        self, label: str, case: TestCase, workers: int, timed: bool = False
    ) -> Awaitable[CommandResult]:
        unit = {Target.OPENMP: " threads", Target.MPI: " ranks"}.get(self.tc.target, "")
        name = f"run candidate [{label}]" + (f" {workers}{unit}" if unit else "")

        def command() -> Command:
            made = self.tc.run(self.cand, case, workers, self.spec.timeout_s, self.paths)
            if self.tc.target is Target.OPENMP and self.opts.omp_wait_policy:
                made.env["OMP_WAIT_POLICY"] = self.opts.omp_wait_policy
            return made

        return self._run_program(name, self.tc, command, timed=timed)

    def _run_reference(
        self, name: str, case: TestCase, timed: bool = False
    ) -> Awaitable[CommandResult]:
        command = partial(self.ref_tc.run, self.ref, case, 1, self.spec.timeout_s, self.paths)
        return self._run_program(name, self.ref_tc, command, timed=timed)

    async def _run_program(
        self, name: str, tc: Toolchain, command: Callable[[], Command], *, timed: bool = False
    ) -> CommandResult:
        """Run a built program; once more (with a fresh command) when the toolchain says the
        failure may be its runtime's rather than the program's. Both runs are in the steps."""
        result = await self.rec.run(name, command(), timed=timed)
        if fault := tc.runtime_fault(result):
            result = await self.rec.run(f"{name} again: {fault}", command(), timed=timed)
        return result

    async def _concurrency(self) -> Verdict | None:
        target = self.candidate.target
        if target is Target.OPENMP:
            config = self.opts.race.model_copy(
                update={
                    "threads": _merge(
                        self.opts.race.threads, [t for t in self.spec.threads if t > 1]
                    )
                }
            )
            report = await check_races(
                self.rec,
                self.paths,
                Program(
                    "race", self.cand.main, self.cand.language, self.cand.cflags, self.cand.libs
                ),
                self.cand_files,
                self.checked,
                self.spec.race_cases,
                config,
            )
        elif target is Target.MPI:
            report = ConcurrencyReport(
                ok=True,
                tools=["mpirun"],
                runs=len(self.verdict.equivalence.outcomes if self.verdict.equivalence else []),
            )
        elif target is Target.CUDA:
            assert isinstance(self.tc, CUDAToolchain)
            report = await check_cuda_concurrency(
                self.rec, self.paths, self.tc, self.cand, self.spec
            )
        else:
            return None
        self.verdict.concurrency = report
        if report.not_run:
            return self._finish(Status.NOT_RUN, report.not_run)
        if not report.ok:
            return self._finish(*outcomes.concurrency_failure(report.findings))
        return None

    async def _reference_timing(self) -> list[CommandResult] | Verdict:
        if self.cache is None:
            return await self._time_reference()
        async with self.cache.lock(self.key):
            entry = self.cache.entry(self.key)
            self.cache.stats.count("timing", hit=entry.timing_runs is not None)
            if entry.timing_runs is not None:
                self._reused("reference timing")
                return entry.timing_runs
            if failed := await self._ensure_reference():
                return failed
            runs = await self._time_reference()
            if isinstance(runs, list):
                entry.timing_runs = runs
            return runs

    async def _time_reference(self) -> list[CommandResult] | Verdict:
        case = self.spec.timing_case
        ref_runs: list[CommandResult] = []
        for k in range(self.spec.timing_repeats):
            ref_runs.append(await self._run_reference(f"time reference #{k + 1}", case, timed=True))
        if not all(r.ok for r in ref_runs):
            bad = next(r for r in ref_runs if not r.ok)
            return self._finish(
                Status.REFERENCE_FAILED,
                f"the reference fails on the timing input: {outcomes.describe_exit(bad)}",
            )
        return ref_runs

    async def _timing(self) -> Verdict | None:
        case = self.spec.timing_case
        repeats = self.spec.timing_repeats
        ref_runs = await self._reference_timing()
        if isinstance(ref_runs, Verdict):
            return ref_runs
        cand_runs: dict[int, list[CommandResult]] = {}
        for n in self.tc.workers(self.spec):
            runs = cand_runs[n] = []
            for k in range(repeats):
                result = await self._run_candidate(f"timing #{k + 1}", case, n, timed=True)
                runs.append(result)
                status, reason = outcomes.classify(
                    result,
                    ref_runs[0].stdout,
                    self.spec.tolerance,
                    self.tc.target,
                    self.tc.timed_out(result.exit_code, result.stderr),
                )
                if status is not None:
                    return self._finish(status, f"timing input {case.name!r} at {n}: {reason}")
        self.verdict.timing = outcomes.timing(ref_runs, cand_runs)
        return None


def _merge(first: list[int], more: list[int]) -> list[int]:
    return first + [n for n in more if n not in first]
