"""The job record every stage works on, and the helpers they share to run programs."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sandbox.base import Workspace
from sandbox.checkers.integrity import Allowances
from sandbox.config import VerifyOptions
from sandbox.models import Command, CommandResult, SandboxInfo
from sandbox.spec import Candidate, Spec, Target, TestCase
from sandbox.toolchains import Paths, Sources, Toolchain, reference_toolchain, toolchain_for
from sandbox.toolchains.cuda import DEFAULT_ARCH
from sandbox.verdict import Status, Verdict
from sandbox.verify.gate import TimingGate
from sandbox.verify.hidden import is_hidden
from sandbox.verify.refcache import ReferenceCache
from sandbox.verify.steps import CommandLog

T = TypeVar("T")


async def gather_limited(limit: int, *aws: Awaitable[T]) -> list[T]:
    """`asyncio.gather` with at most `limit` awaitables running at once. When one fails (or the
    caller is cancelled) the others are cancelled and waited for before the error goes on, so
    no command keeps running in a workspace its caller is about to release."""
    slots = asyncio.Semaphore(limit)
    failed = False

    async def one(aw: Awaitable[T]) -> T:
        nonlocal failed
        try:
            async with slots:
                if failed:  # a slot freed by the failure itself: start nothing more
                    raise asyncio.CancelledError
                return await aw
        except Exception:
            failed = True
            raise
        finally:
            if inspect.iscoroutine(aw):
                aw.close()  # never started (cancelled before its turn): it never will

    tasks = [asyncio.ensure_future(one(a)) for a in aws]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


class Job:
    """One verification: the workspace, the programs in it, and the verdict being filled in."""

    paths: Paths
    """Where the workspace is; set by the pipeline once the workspace has told it."""

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
        self.rec = CommandLog(workspace, gate)
        self.cache = cache
        self.key = cache.key(spec, candidate.target) if cache is not None else ""
        self.spec, self.candidate, self.opts = spec, candidate, opts
        self.gpu, self.cores = info.gpu, info.cpus
        arch = opts.cuda_arch or ("native" if self.gpu else DEFAULT_ARCH)
        self.tc: Toolchain = toolchain_for(candidate.target, arch)
        self.ref_tc = reference_toolchain(candidate.target)
        self.gen_tc = toolchain_for(Target.SERIAL)
        flags, libs = tuple(spec.cflags), tuple(spec.libs)
        self.ref = Sources("ref", f"main{spec.language.suffix}", spec.language, flags, libs)
        lang = candidate.language_for(spec)
        if spec.driver is not None:
            main = f"driver{lang.suffix}"
            self.cand_files = {**spec.files, main: spec.driver, "solution.inc": candidate.source}
            self.checked = ["solution.inc"]
        else:
            main = f"main{lang.suffix}"
            self.cand_files = {**spec.files, main: candidate.source}
            self.checked = [main]
        self.cand = Sources("cand", main, lang, flags, libs)
        self.verdict = Verdict(target=candidate.target, status=Status.PASSED)
        self.expected: dict[str, str] = {}
        """The reference's output per test name (hidden tests and the timing input included)."""
        self.hidden: list[TestCase] = []
        """This verification's hidden tests (`sandbox.verify.hidden`)."""
        self.timing_case: TestCase = spec.timing_case
        """The input timed, and race-checked at timing size: the spec's, or a hidden one."""
        self.allowed = Allowances()
        """What the reference itself does that a candidate would be refused for."""
        self.ref_built = False

    def finish(self, status: Status, reason: str = "") -> Verdict:
        """The verdict, ended with `status` and every step run so far."""
        self.verdict.status, self.verdict.reason = status, reason
        self.verdict.steps = self.rec.steps
        return self.verdict

    @property
    def tests(self) -> list[TestCase]:
        """Every test the candidate must pass: the spec's, then the hidden ones."""
        return [*self.spec.tests, *self.hidden]

    def pinned(self, workers: int) -> int | None:
        """CPUs a timed run at `workers` is pinned to (GPU programs are not pinned)."""
        if self.tc.target is Target.CUDA:
            return None
        cores = int(self.cores) if self.cores else workers
        return max(1, min(workers, cores))

    def run_candidate(
        self, label: str, case: TestCase, workers: int, timed: bool = False
    ) -> Awaitable[CommandResult]:
        unit = {Target.OPENMP: " threads", Target.MPI: " ranks"}.get(self.tc.target, "")
        name = f"run candidate [{label}]" + (f" {workers}{unit}" if unit else "")

        def command() -> Command:
            made = self.tc.run(self.cand, case, workers, self.spec.timeout_s, self.paths)
            if self.tc.target is Target.OPENMP and self.opts.omp_wait_policy:
                made.env["OMP_WAIT_POLICY"] = self.opts.omp_wait_policy
            if timed:
                made.cpus = self.pinned(workers)
            return made

        return self._run_program(name, self.tc, command, timed=timed, hidden=is_hidden(case.name))

    def run_reference(
        self, name: str, case: TestCase, timed: bool = False
    ) -> Awaitable[CommandResult]:
        def command() -> Command:
            made = self.ref_tc.run(self.ref, case, 1, self.spec.timeout_s, self.paths)
            made.cpus = 1 if timed else None
            return made

        # The reference is the task's own program: a fault of the runtime there would fail the
        # task for no candidate's doing, so a crash of the runtime gets two more runs (a hang,
        # which costs a whole time-out, one more, as for candidates).
        return self._run_program(
            name, self.ref_tc, command, timed=timed, hidden=is_hidden(case.name), crashes=3
        )

    async def _run_program(
        self,
        name: str,
        tc: Toolchain,
        command: Callable[[], Command],
        *,
        timed: bool = False,
        hidden: bool = False,
        crashes: int = 2,
    ) -> CommandResult:
        """Run a built program; again (with a fresh command) when the toolchain says the
        failure may be its runtime's rather than the program's: once after a hang, and up to
        `crashes` runs in all after crashes. Every run is in the steps."""
        result = await self.rec.run(name, command(), timed=timed, hidden=hidden)
        runs = 1
        while fault := tc.runtime_fault(result):
            hang = result.timed_out or tc.timed_out(result.exit_code, result.stderr)
            if runs >= (2 if hang else crashes) or result.sandbox_killed:
                break  # (taken with the workspace's container: nothing more runs there)
            runs += 1
            again = await self.rec.run(
                f"{name} again: {fault}", command(), timed=timed, hidden=hidden
            )
            if again.ended_with is not None:
                break  # the workspace went with the run before: that run says what happened
            result = again
        return result
