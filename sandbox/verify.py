"""`verify(sandbox, spec, candidate) -> Verdict`: build, source check, tests, concurrency, timing.

One workspace per call, laid out as

    ref/    the spec's reference (main.<ext>) and support files, built into ref/prog
    cand/   the candidate (main.<ext>, or the spec's driver plus solution.inc), into cand/prog
    race-*/ the candidate again, instrumented for the OpenMP race checker (a random name)
    .tmp/   TMPDIR, OpenMPI session files, the race checker's logs

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

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TypeVar

from pydantic import BaseModel, Field

from sandbox import outcomes
from sandbox.base import Sandbox, Workspace
from sandbox.checkers import integrity
from sandbox.checkers.diagnostics import parse_diagnostics, summarize
from sandbox.checkers.ptxas import apply_names, parse_ptxas
from sandbox.errors import WorkspaceError, WorkspaceRefused
from sandbox.gate import TimingGate
from sandbox.gpu import NO_GPU, check_cuda_concurrency
from sandbox.models import Command, CommandResult, SandboxInfo
from sandbox.race import RaceCheckConfig, check_races, interference_finding, workspace_paths
from sandbox.refcache import ReferenceCache
from sandbox.spec import Candidate, Spec, Target, TestCase
from sandbox.steps import Recorder
from sandbox.timing import timing
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
        job = _Job(workspace, spec, candidate, opts, info, cache=reference_cache, gate=timing_gate)
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
        info: SandboxInfo,
        cache: ReferenceCache | None = None,
        gate: TimingGate | None = None,
    ) -> None:
        self.rec = Recorder(workspace, gate)
        self.cache = cache
        self.key = cache.key(spec, candidate.target) if cache is not None else ""
        self.spec, self.candidate, self.opts = spec, candidate, opts
        self.gpu, self.cores = info.gpu, info.cpus
        arch = opts.cuda_arch or ("native" if self.gpu else DEFAULT_ARCH)
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
        self.ref_timing: list[CommandResult] = []

    def _finish(self, status: Status, reason: str = "") -> Verdict:
        self.verdict.status, self.verdict.reason = status, reason
        self.verdict.steps = self.rec.steps
        return self.verdict

    async def run(self) -> Verdict:
        self.paths = await workspace_paths(self.rec)
        if failed := await self._reference():
            return failed
        await self.rec.workspace.write_files({f"cand/{k}": v for k, v in self.cand_files.items()})
        try:
            return await self._candidate()
        except WorkspaceRefused as exc:
            # The workspace was healthy before the candidate ran: what broke it is the candidate.
            return self._finish(Status.CRASHED, f"the candidate broke its workspace: {exc}")

    async def _candidate(self) -> Verdict:
        if failed := await self._build():
            return failed
        source = self.tc.source_check(self.candidate.source)
        self.verdict.source_check = source
        if not source.ok:
            return self._finish(Status.NOT_PARALLEL, source.message)
        if failed := await self._integrity():
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
        notes = self.verdict.timing.notes if self.verdict.timing else []
        return self._finish(Status.PASSED, "; ".join(notes))

    # --- the reference, before any candidate file exists ---------------------------------

    async def _reference(self) -> Verdict | None:
        """Outputs (and timing runs) of the reference, from the cache or made here; then the
        reference leaves the workspace."""
        if self.cache is None:
            return await self._reference_here(need_outputs=True)
        async with self.cache.lock(self.key):
            entry = self.cache.entry(self.key)
            need_outputs = entry.outputs is None
            need_timing = self.opts.timing and entry.timing_runs is None
            self.cache.stats.count("outputs", hit=not need_outputs)
            if self.opts.timing:
                self.cache.stats.count("timing", hit=not need_timing)
            if (need_outputs or need_timing) and (
                failed := await self._reference_here(need_outputs)
            ):
                return failed
            if need_outputs:
                entry.outputs = dict(self.expected)
            else:
                assert entry.outputs is not None
                self.expected = dict(entry.outputs)
                self._reused("reference outputs")
            if need_timing:
                entry.timing_runs = self.ref_timing
            elif self.opts.timing:
                assert entry.timing_runs is not None
                self.ref_timing = entry.timing_runs
                self._reused("reference timing")
        return None

    async def _reference_here(self, need_outputs: bool) -> Verdict | None:
        await self.rec.workspace.write_files(
            {f"ref/{k}": v for k, v in self.spec.files.items()}
            | {f"ref/{self.ref.main}": self.spec.reference}
        )
        build = await self.rec.run("build reference", self.ref_tc.compile(self.ref, self.paths))
        if failed := self._reference_build_failure(build):
            return failed
        if need_outputs and (failed := self._check_reference_runs(await self._reference_runs())):
            return failed
        if self.opts.timing and (failed := await self._time_reference()):
            return failed
        removed = await self.rec.run(
            "remove the reference", Command(argv=["rm", "-rf", "ref"], timeout_s=30)
        )
        if not removed.ok:
            raise WorkspaceError(f"cannot remove the reference: {removed.stderr.strip()}")
        return None

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

    async def _reference_runs(self) -> list[tuple[TestCase, CommandResult]]:
        cases = self.spec.tests
        results = await gather_limited(
            self.opts.parallel_runs,
            *(self._run_reference(f"run reference [{c.name}]", c) for c in cases),
        )
        return list(zip(cases, results, strict=True))

    def _check_reference_runs(self, runs: list[tuple[TestCase, CommandResult]]) -> Verdict | None:
        for case, result in runs:
            if not result.ok or self.ref_tc.timed_out(result.exit_code, result.stderr):
                return self._finish(
                    Status.REFERENCE_FAILED,
                    f"the reference fails on test {case.name!r}: {outcomes.describe_exit(result)}",
                )
            self.expected[case.name] = result.stdout
        return None

    async def _time_reference(self) -> Verdict | None:
        case = self.spec.timing_case
        for k in range(self.spec.timing_repeats):
            run = await self._run_reference(f"time reference #{k + 1}", case, timed=True)
            if not run.ok:
                return self._finish(
                    Status.REFERENCE_FAILED,
                    f"the reference fails on the timing input: {outcomes.describe_exit(run)}",
                )
            self.ref_timing.append(run)
        return None

    def _reused(self, what: str) -> None:
        self.rec.steps.append(
            StepRecord(
                name=f"reuse {what}",
                command="(from an earlier verification of this spec)",
                exit_code=0,
                duration_s=0.0,
            )
        )

    # --- the candidate -------------------------------------------------------------------

    async def _build(self) -> Verdict | None:
        cand = await self.rec.run("build candidate", self.tc.compile(self.cand, self.paths))
        if missing := outcomes.missing_tool(cand):
            return self._finish(
                Status.NOT_RUN, f"not run: {missing} is not installed in the sandbox"
            )
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

    async def _integrity(self) -> Verdict | None:
        """Reject a candidate that interferes with the checkers (before any of it runs)."""
        allowed = integrity.calls_used(self.spec.reference)
        found = [
            m
            for name in self.checked
            for m in integrity.source_findings(self.cand_files[name], allowed)
        ]
        if not found and self.candidate.target is not Target.CUDA:
            # CUDA programs link the runtime statically, which imports dlopen and getenv itself.
            symbols = await self.rec.run(
                "candidate's symbols", Command(argv=["nm", self.cand.exe], timeout_s=30)
            )
            found = integrity.symbol_findings(symbols.stdout, allowed) if symbols.ok else []
        if not found:
            return None
        finding = interference_finding(found)
        self.verdict.concurrency = ConcurrencyReport(
            ok=False, tools=[integrity.TOOL], findings=[finding]
        )
        return self._finish(Status.SANITIZER_ERROR, finding.message)

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
                    f"race-{secrets.token_hex(6)}",
                    self.cand.main,
                    self.cand.language,
                    self.cand.cflags,
                    self.cand.libs,
                ),
                self.cand_files,
                self.checked,
                self.spec.race_cases,
                config,
                integrity.calls_used(self.spec.reference),
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

    async def _timing(self) -> Verdict | None:
        case = self.spec.timing_case
        cand_runs: dict[int, list[CommandResult]] = {}
        for n in self.tc.workers(self.spec):
            runs = cand_runs[n] = []
            for k in range(self.spec.timing_repeats):
                result = await self._run_candidate(f"timing #{k + 1}", case, n, timed=True)
                runs.append(result)
                status, reason = outcomes.classify(
                    result,
                    self.ref_timing[0].stdout,
                    self.spec.tolerance,
                    self.tc.target,
                    self.tc.timed_out(result.exit_code, result.stderr),
                )
                if status is not None:
                    return self._finish(status, f"timing input {case.name!r} at {n}: {reason}")
        self.verdict.timing = timing(self.ref_timing, cand_runs, self.cores)
        return None


def _merge(first: list[int], more: list[int]) -> list[int]:
    return first + [n for n in more if n not in first]
