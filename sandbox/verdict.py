"""What `verify` found out about a candidate, step by step."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from sandbox.models import SandboxInfo
from sandbox.spec import Target


class Status(StrEnum):
    """Overall outcome, the first failure in pipeline order (build → source → tests → race)."""

    PASSED = "passed"
    BUILD_FAILED = "build_failed"
    NOT_PARALLEL = "not_parallel"
    """It builds but does not use its target model (no pragma / MPI call / kernel)."""
    WRONG_ANSWER = "wrong_answer"
    CRASHED = "crashed"
    TIMED_OUT = "timed_out"
    RACE = "race"
    DEADLOCK = "deadlock"
    SANITIZER_ERROR = "sanitizer_error"
    """compute-sanitizer's memcheck or synccheck reported an error, or the candidate interferes
    with the checkers (defines sanitizer hooks, tests for them, reads its environment)."""
    REFERENCE_FAILED = "reference_failed"
    """The spec's own reference did not build or run: the spec is broken, not the candidate."""
    NOT_RUN = "not_run"
    """It builds and uses its model, but a later check could not run in this sandbox (the
    reason says which: `not run: no GPU`, a missing tool). Neither a pass nor a failure."""


class StepRecord(BaseModel):
    """One command run during verification, as it ran."""

    name: str
    command: str
    exit_code: int | None
    duration_s: float
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    output_truncated: bool = False
    cpu_s: float | None = None
    """CPU time of the command's whole process tree, when the backend measures it."""
    threads: int | None = None
    """The most threads seen in its process tree, when the backend measures it."""


class Diagnostic(BaseModel):
    """A compiler error or warning."""

    severity: str
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None


class KernelResources(BaseModel):
    """ptxas's resource report for one CUDA kernel."""

    name: str
    registers: int = 0
    shared_bytes: int = 0
    constant_bytes: int = 0
    stack_bytes: int = 0
    spill_stores_bytes: int = 0
    spill_loads_bytes: int = 0


class BuildReport(BaseModel):
    ok: bool
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    kernels: list[KernelResources] = Field(default_factory=list)


class SourceCheck(BaseModel):
    ok: bool
    found: list[str] = Field(default_factory=list)
    """The target-model constructs seen (`#pragma omp parallel for`, `MPI_Reduce`, `__global__`)."""
    message: str = ""


class TestOutcome(BaseModel):
    """The candidate on one test input at one thread/rank count."""

    __test__ = False

    test: str
    workers: int = 1
    ok: bool
    reason: str = ""


class Equivalence(BaseModel):
    ok: bool
    outcomes: list[TestOutcome] = Field(default_factory=list)
    not_run: str | None = None
    """Why the tests could not run at all (`not run: no GPU`)."""


class Finding(BaseModel):
    """One concurrency defect."""

    kind: str
    """`data race`, `deadlock`, `simd dependence`, `racecheck hazard`, ..."""
    tool: str
    """Who found it: `archer-tsan`, `static`, `mpirun`, `compute-sanitizer`."""
    message: str
    file: str | None = None
    line: int | None = None
    variable: str | None = None
    workers: int | None = None


class ConcurrencyReport(BaseModel):
    ok: bool
    tools: list[str] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    runs: int = 0
    not_run: str | None = None


class Timing(BaseModel):
    """Paired timing: the reference and the candidate timed in turns, in one session, by the
    sandbox's clock; speedup = the median of the paired ratios (see `sandbox.verify.speedup`).

    The sandbox measures every run's wall time itself; a kernel time a program prints is only
    used when the wall times confirm it (`source`), and `notes` say why not.
    """

    reference_s: float
    """Median time of the reference's runs of this session."""
    candidate_s: dict[int, float] = Field(default_factory=dict)
    """Median time at each thread or rank count."""
    speedup: dict[int, float] = Field(default_factory=dict)
    """Median of the paired ratios at each count; empty when the reference ran too briefly to
    time (`too_short`)."""
    spread: dict[int, list[float]] = Field(default_factory=dict)
    """[lowest, highest] paired ratio at each count."""
    ratios: dict[int, list[float]] = Field(default_factory=dict)
    """Every paired ratio (reference time around a candidate run over that run's time)."""
    source: str = "wall"
    """`kernel` when the programs printed PARFORGE_TIME_S and the wall times confirm it, else
    `wall`."""
    cores: float | None = None
    """CPUs the runs really had (the sandbox's limit); None when the backend cannot say."""
    pinned: dict[int, int] = Field(default_factory=dict)
    """CPUs each count's runs were pinned to (the reference: one)."""
    threads: dict[int, int] = Field(default_factory=dict)
    """The most threads seen in the candidate's process tree at each count."""
    foreign_load: dict[int, float] = Field(default_factory=dict)
    """Cores of other work on the host while each count's pairs ran; absent when the backend
    cannot measure it or the pairs were too short to judge."""
    disturbed: list[int] = Field(default_factory=list)
    """Counts measured under foreign load above `sandbox.verify.speedup.FOREIGN_LIMIT`: shown, flagged,
    never taken as an improvement by evolution."""
    startup_s: float | None = None
    """Median wall time of a program that only starts the target's runtime (CUDA), measured in
    the same sandbox and allowed outside the candidate's kernel; None for targets without one."""
    sequential_gain: float = 1.0
    """How much faster than the reference the candidate already is at one worker on one CPU,
    on the sandbox's clock (1.0 when not measured so): the cores' bound is multiplied by it."""
    above_cores: list[int] = Field(default_factory=list)
    """Counts whose speedup over the reference exceeds what the cores they could use produce
    (times the sequential gain): implausible, not counted."""
    too_short: bool = False
    """The reference ran below the timing floor: no speedup is reported."""
    notes: list[str] = Field(default_factory=list)
    """Why kernel times were refused, which speedups were flagged, or why there are none."""

    @property
    def best_speedup(self) -> float:
        """The best plausible speedup (0 when too short to time)."""
        kept = [s for n, s in self.speedup.items() if n not in self.above_cores]
        return max(kept, default=0.0)

    @property
    def best_workers(self) -> int | None:
        """The count of the best plausible speedup (the fewest workers on a tie)."""
        kept = {n: s for n, s in self.speedup.items() if n not in self.above_cores}
        if not kept:
            return None
        return max(kept.items(), key=lambda item: (item[1], -item[0]))[0]


class HiddenReport(BaseModel):
    """The inputs this verification drew that the candidate could not know."""

    seed: int
    """Draws them again (`sandbox.verify.hidden.draw`)."""
    tests: int = 0
    """Hidden tests the candidate was run on (at every count)."""
    timing: bool = False
    """The timing input was hidden too."""
    derived: bool = False
    """Derived from the visible tests' shapes (the spec declares no generator)."""
    dropped: int = 0
    """Derived inputs left out because the reference itself failed on them."""
    note: str = ""


class Verdict(BaseModel):
    """The whole answer: status first, then the evidence."""

    target: Target
    status: Status
    reason: str = ""
    build: BuildReport | None = None
    source_check: SourceCheck | None = None
    equivalence: Equivalence | None = None
    concurrency: ConcurrencyReport | None = None
    timing: Timing | None = None
    hidden: HiddenReport | None = None
    lint: list[str] = Field(default_factory=list)
    """What looks wrong with the spec itself (every expected output the same, no hidden
    input): the verdict is weaker than it looks."""
    steps: list[StepRecord] = Field(default_factory=list)
    sandbox: SandboxInfo | None = None
    duration_s: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status is Status.PASSED

    @property
    def speedup(self) -> float:
        """Best speedup over the reference, 0 when not passed or not timed."""
        return self.timing.best_speedup if self.passed and self.timing else 0.0
