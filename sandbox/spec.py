"""What `verify` checks a candidate against: a sequential reference program and its tests.

The reference is always a complete program with `main`. A candidate is either a complete
program too, or, when the spec has a `driver`, a *solution*: the driver is a program that
`#include "solution.inc"`, and the candidate's source becomes that file (ParEval-style function
problems, where the driver generates the input, calls the function and prints the answer).

The reference is built with the target's CPU toolchain (the MPI one is started at one rank) and
with the plain C/C++ compiler for a CUDA target. Every built program reads its test input from
its arguments and stdin and writes its answer to stdout. A program may also print
`PARFORGE_TIME_S=<seconds>` on a line of its own on stderr: the time of the kernel alone, used for
speedups instead of the process's wall time.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field, model_validator


class Target(StrEnum):
    """Execution model of a program."""

    SERIAL = "serial"
    OPENMP = "openmp"
    MPI = "mpi"
    CUDA = "cuda"


class Language(StrEnum):
    """Source language of a program."""

    C = "c"
    CPP = "cpp"
    CUDA = "cuda"

    @property
    def suffix(self) -> str:
        return {"c": ".c", "cpp": ".cpp", "cuda": ".cu"}[self.value]


class TestCase(BaseModel):
    """One input: command-line arguments and stdin."""

    __test__ = False  # not a pytest class

    name: str
    args: list[str] = Field(default_factory=list)
    stdin: str = ""


class ArgSpec(BaseModel):
    """How one argument of a hidden input is drawn: exactly one of the fields."""

    seed: bool = False
    """A fresh random integer in [1, 2^31): a generator's seed."""
    int_range: tuple[int, int] | None = None
    """A uniform integer in [lo, hi]."""
    choice: list[str] | None = None
    """One of these values."""
    value: str | None = None
    """This value, always."""

    @model_validator(mode="after")
    def _exactly_one(self) -> ArgSpec:
        given = [self.seed, self.int_range is not None, self.choice is not None]
        given.append(self.value is not None)
        if sum(given) != 1:
            raise ValueError("an argument is drawn one way: seed, int_range, choice or value")
        if self.int_range is not None and self.int_range[0] > self.int_range[1]:
            raise ValueError(f"int_range {list(self.int_range)} is empty")
        if self.choice is not None and not self.choice:
            raise ValueError("choice needs at least one value")
        return self


class HiddenInputs(BaseModel):
    """How a verification draws inputs the candidate never saw (from a seed it records).

    Without this, inputs are derived from the visible tests' shapes (`sandbox.verify.hidden`).
    """

    args: list[ArgSpec] = Field(default_factory=list)
    """The arguments of a hidden test, position by position."""
    program: str | None = None
    """A program in the spec's language run as `gen SEED` whose stdout is the input's stdin
    (for programs that read their input)."""
    count: int = Field(default=2, ge=0, le=16)
    """Hidden tests per verification."""
    timing: list[ArgSpec] | None = None
    """Arguments of a hidden timing input of the same size class (a fresh seed, say); None
    times the spec's own timing input."""


class Tolerance(BaseModel):
    """Compare numbers token by token: |a - b| <= atol + rtol * |b|; other tokens exactly."""

    rtol: float = Field(default=1e-6, ge=0)
    atol: float = Field(default=0.0, ge=0)


class Spec(BaseModel):
    """A sequential reference program plus the inputs a candidate must agree with it on."""

    name: str = "program"
    language: Language = Language.CPP
    reference: str = Field(min_length=1)
    """The sequential program, complete with `main`."""
    driver: str | None = None
    """A program that includes "solution.inc"; when set, candidates are solutions, not programs."""
    signature: str | None = None
    """What a solution must define for the driver when it is not the sequential function's own
    signature (a CUDA driver launches a kernel: `__global__ void axpy(double alpha, ...)`)."""
    files: dict[str, str] = Field(default_factory=dict)
    """Support files (headers, data) written beside every program before it is built."""
    tests: list[TestCase] = Field(min_length=1)
    """From small to large: the race checker runs the last ones (the timing input aside)."""
    timing: TestCase | None = None
    """A larger input for speed measurements; None = the last test."""
    tolerance: Tolerance | None = None
    """None: outputs must match exactly (after trimming trailing white space)."""
    cflags: list[str] = Field(default_factory=list)
    libs: list[str] = Field(default_factory=list)
    threads: list[int] = Field(default_factory=lambda: [1, 2, 4])
    """OpenMP thread counts for equivalence, race checking and timing."""
    ranks: list[int] = Field(default_factory=lambda: [1, 2, 4])
    """MPI rank counts for equivalence, deadlock detection and timing."""
    timeout_s: float = Field(default=20.0, gt=0)
    """Wall-clock limit of one program run (race-instrumented runs get a multiple)."""
    timing_repeats: int = Field(default=5, ge=1)
    hidden: HiddenInputs | None = None
    """How hidden inputs are drawn; None derives them from the tests' shapes."""

    @model_validator(mode="after")
    def _driver_includes_solution(self) -> Spec:
        if self.driver is not None and '"solution.inc"' not in self.driver:
            raise ValueError('a driver must #include "solution.inc"')
        return self

    @model_validator(mode="after")
    def _test_names_unique(self) -> Spec:
        # Expected outputs are keyed by test name: a repeated name would compare a candidate's
        # run with another input's answer.
        names = [t.name for t in self.tests]
        if repeated := sorted({n for n in names if names.count(n) > 1}):
            raise ValueError(f"test names must be unique; repeated: {', '.join(repeated)}")
        return self

    @property
    def timing_case(self) -> TestCase:
        return self.timing or self.tests[-1]

    @property
    def race_cases(self) -> list[TestCase]:
        """The tests worth instrumenting: all but a last test that doubles as the timing input."""
        return self.tests if self.timing or len(self.tests) == 1 else self.tests[:-1]


class Candidate(BaseModel):
    """Source code proposed for one target execution model."""

    target: Target
    source: str = Field(min_length=1)
    language: Language | None = None
    """None: the spec's language, or CUDA for a CUDA target."""

    def language_for(self, spec: Spec) -> Language:
        if self.language is not None:
            return self.language
        return Language.CUDA if self.target is Target.CUDA else spec.language
