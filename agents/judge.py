"""What every runner shares to judge candidates: the checks a task asks for, the spec a task
becomes, and the `Judge`: the run's seam over the sandbox's verifier, with the run's options
and timing gate fixed (a fake in tests)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, Field

from sandbox.config import VerifyOptions
from sandbox.spec import Candidate, Spec, Target, TestCase, Tolerance

if TYPE_CHECKING:
    # Annotations only: the sandbox's verifier imports the Docker SDK, the store's models
    # SQLAlchemy, and the verdict's models are not needed to read settings; settings import
    # this module for `Checks`.
    from corpus.store.models import TaskCreate, TaskDetail
    from sandbox.verdict import Verdict
    from sandbox.verify import verifier as sandbox_verifier
    from sandbox.verify.gate import Quiet, TimingGate


class Checks(BaseModel):
    """How a task's candidates are checked: counts, limits, tolerance, timing."""

    threads: list[int] = Field(default_factory=lambda: [1, 2, 4], min_length=1)
    """OpenMP thread counts of the equivalence runs and the timing."""
    ranks: list[int] = Field(default_factory=lambda: [1, 2, 4], min_length=1)
    """MPI rank counts of the equivalence runs and the timing."""
    timeout_s: float = Field(default=20.0, gt=0)
    """Wall-clock limit of one program run."""
    timing_repeats: int = Field(default=5, ge=1)
    tolerance: Tolerance | None = None
    """None: outputs must match the sequential program's exactly. Programs that print
    floating-point sums that a parallel reduction reassociates need a small `rtol`
    (`PARFORGE_PROMPT_MODE__TOLERANCE='{"rtol": 1e-9}'`)."""
    timing: bool = True
    """Time passing candidates against the sequential program (speedups)."""


class Judge(Protocol):
    """Checks one candidate against a spec (the sandbox's verifier, or a fake in tests)."""

    async def __call__(self, spec: Spec, candidate: Candidate) -> Verdict: ...

    async def probe(self, spec: Spec, candidate: Candidate) -> Verdict:
        """Build and run the spec's tests only (no race check, no timing): how the candidate
        behaves, cheaply. Never a verification, never stored as one."""
        ...

    def untimed(self) -> Judge:
        """This judge without timing runs: the same sandbox and gate, correctness only (a task
        that asks for no speed). Closing it closes nothing: the sandbox stays this judge's."""
        ...

    async def aclose(self) -> None: ...


class SandboxJudge:
    """The sandbox's verifier (this host's workspaces or a cluster's hosts), with fixed options.

    Its verifications share one timing gate: an agent verifies several candidates at once
    (a plan's steps, repairs, evolution's children), and without the gate one candidate's
    timing runs would share the cores with another's builds and race checks, and speedups,
    the reward evolution optimises, would measure the neighbours.
    """

    def __init__(
        self,
        verifier: sandbox_verifier.Verifier,
        options: VerifyOptions | None = None,
        timing: bool = True,
        quiet: Quiet | None = None,
        gate: TimingGate | None = None,
    ) -> None:
        self.verifier = verifier
        self.options = options or VerifyOptions()
        self.timing = timing
        if gate is None:
            from sandbox.verify.gate import TimingGate  # the verifier's package, on first use

            gate = TimingGate(quiet)
        self.gate = gate
        """The gate its verifications take: the one a caller shares among all it verifies
        (`parforge.service.runners.timing_gate`), or a gate of its own whose `quiet` holds
        back other load the caller owns during timing runs (the embedded model server,
        `parforge.model_server.pause`)."""

    async def __call__(self, spec: Spec, candidate: Candidate) -> Verdict:
        return await self.verifier.verify(
            spec,
            candidate,
            timing=self.timing,
            options=self.options,
            timing_gate=self.gate,
        )

    async def probe(self, spec: Spec, candidate: Candidate) -> Verdict:
        options = self.options.model_copy(update={"probe": True, "timing": False})
        return await self.verifier.verify(
            spec, candidate, timing=False, options=options, timing_gate=self.gate
        )

    def untimed(self) -> Judge:
        if not self.timing:
            return self
        return _Untimed(self)

    async def aclose(self) -> None:
        """Release the sandbox (its warm containers)."""
        await self.verifier.aclose()


class _Untimed:
    """A `SandboxJudge` with timing off, sharing its verifier and gate (`SandboxJudge.untimed`)."""

    def __init__(self, judge: SandboxJudge) -> None:
        self.judge = judge

    async def __call__(self, spec: Spec, candidate: Candidate) -> Verdict:
        judge = self.judge
        return await judge.verifier.verify(
            spec, candidate, timing=False, options=judge.options, timing_gate=judge.gate
        )

    async def probe(self, spec: Spec, candidate: Candidate) -> Verdict:
        return await self.judge.probe(spec, candidate)

    def untimed(self) -> Judge:
        return self

    async def aclose(self) -> None:
        """The sandbox belongs to the judge this one was made from."""


async def check_against_itself(judge: Judge, spec: Spec) -> Verdict:
    """The spec's reference verified as a serial candidate against itself, timed once: does it
    build, and does it run each test cleanly (what the preflight and generated tests ask)."""
    spec = spec.model_copy(update={"timing_repeats": 1})
    return await judge(spec, Candidate(target=Target.SERIAL, source=spec.reference))


def task_spec(task: TaskCreate | TaskDetail, checks: Checks) -> Spec:
    """What candidates of `task` are verified against: the spec its options give, else its source
    as the reference program with its tests (one test with no arguments and empty stdin when it
    has none), compared within the task's tolerance or the runner's."""
    options = task.options
    if options is not None and options.spec is not None:
        return Spec.model_validate(options.spec)
    tolerance = checks.tolerance
    if options is not None and (options.rtol is not None or options.atol is not None):
        tolerance = Tolerance(rtol=options.rtol or 0.0, atol=options.atol or 0.0)
    tests = [TestCase(name=t.name, args=t.args, stdin=t.stdin) for t in task.tests or []]
    return Spec(
        name=task.name,
        language=task.language,
        reference=task.source,
        tests=tests or [TestCase(name="default")],
        tolerance=tolerance,
        threads=checks.threads,
        ranks=checks.ranks,
        timeout_s=checks.timeout_s,
        timing_repeats=checks.timing_repeats,
    )
