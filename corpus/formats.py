"""The on-disk format of a suite: a manifest (`suite.toml`) and task files (`task.toml`).

These models *are* the format: the JSON schemas in `corpus/schemas/` are generated from them,
and `docs/suites.md` explains them with an example. Paths inside a task file are relative to
the task file's directory; paths inside the manifest are relative to the suite directory.
Every model forbids unknown keys, so a typo is an error, not a silently ignored setting.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from sandbox.spec import Target


class MutantKind(StrEnum):
    """The defect a planted mutant carries, for kill-rate reports by kind."""

    DROPPED_REDUCTION = "dropped_reduction"
    """A shared accumulator updated without `reduction`/atomic/critical: a data race."""
    RACE = "race"
    """Another unsynchronised write to shared state (a shared temporary, a shared container)."""
    MISSING_WORKSHARING = "missing_worksharing"
    """`omp parallel` without `for`: every thread runs the whole loop."""
    MISSING_SYNC = "missing_sync"
    """A barrier, wait or `nowait` removed where a later phase reads what an earlier one wrote."""
    WRONG_PARALLEL_LOOP = "wrong_parallel_loop"
    """The loop that carries a dependence is the one parallelised."""
    OFF_BY_ONE = "off_by_one"
    """A loop bound or index one too far or one too short."""
    DROPPED_REMAINDER = "dropped_remainder"
    """A block partition of n items over p workers that forgets the n % p left over."""
    MISSING_COMMUNICATION = "missing_communication"
    """A broadcast, gather or reduction left out: ranks work on stale or partial data."""
    WRONG_PARTITION = "wrong_partition"
    """Work split the wrong way: contiguous blocks where strides are needed, overlapping ranges."""
    WRONG_ROOT = "wrong_root"
    """The result is collected on a rank other than 0."""
    WRONG_OPERATOR = "wrong_operator"
    """A reduction with the wrong operator (sum for max, max for min)."""
    WRONG_COUNT = "wrong_count"
    """A message of the wrong length or type (doubles sent as ints, points sent as doubles)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class Edit(_Strict):
    """Replace `old` (which must occur exactly once) by `new`."""

    old: str = Field(min_length=1)
    new: str


class MutantEntry(_Strict):
    """A planted defect: a known-good solution with a few exact text edits."""

    kind: MutantKind
    description: str = Field(min_length=1)
    edits: list[Edit] = Field(min_length=1)


class SolutionEntry(_Strict):
    """A known-good solution (the prompt followed by a completion) and its planted mutants."""

    file: str
    mutants: list[MutantEntry] = Field(default_factory=list)


class TargetEntry(_Strict):
    """A target the task applies to. With neither `prompt` nor `prompt_file`, the prompt comes
    from the suite's ParEval-format prompt file."""

    prompt: str | None = None
    prompt_file: str | None = None
    solutions: list[SolutionEntry] = Field(default_factory=list)
    timing_size: int | None = Field(default=None, ge=0)
    """This target's timing size, where the task's does not fit: an MPI driver holds the whole
    input on every rank, so its timing input is cut until all ranks together need about the
    memory the sequential run does (None: the task's `timing.size`)."""


class TestPlan(_Strict):
    """Every seed at every size is one test: the driver runs as `prog SEED SIZE`."""

    __test__ = False

    seeds: list[Annotated[int, Field(ge=0)]] = Field(min_length=1)
    sizes: list[Annotated[int, Field(ge=0)]] = Field(min_length=1)


class TimingCase(_Strict):
    """The larger input timed against the reference."""

    seed: int = Field(ge=0)
    size: int = Field(ge=0)


class ToleranceEntry(_Strict):
    """Numbers compare as |a - b| <= atol + rtol * |b|; absent means exact comparison."""

    rtol: float = Field(default=1e-6, ge=0)
    atol: float = Field(default=0.0, ge=0)


class TaskFile(_Strict):
    """One task: a function to write, its sequential reference and how to test it."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.+-]+$")
    problem_type: str = Field(min_length=1)
    language: str = Field(default="cpp", pattern=r"^(c|cpp)$")
    function: str = Field(min_length=1)
    signature: str = Field(min_length=1)
    description: str = Field(min_length=1)
    reference: str
    """Sequential solution of the function (the serial prompt followed by its body)."""
    problem: str
    """Problem header: input generator, the call of the function, printing of the answer."""
    notes: str = ""
    """What the harness promises beyond the prompt (value ranges, how outputs arrive)."""
    tests: TestPlan
    timing: TimingCase
    tolerance: ToleranceEntry | None = None
    targets: dict[Target, TargetEntry] = Field(min_length=1)
    timeout_s: float = Field(default=30.0, gt=0)
    timing_repeats: int = Field(default=5, ge=1)
    cflags: list[str] = Field(default_factory=list)
    """Added after the suite's flags."""
    libs: list[str] = Field(default_factory=list)


class HarnessEntry(_Strict):
    """How a driver for one target is composed: `before` files, the solution, the task's
    problem header, `after` files (each included by its file name)."""

    before: list[str] = Field(default_factory=list)
    after: list[str] = Field(default_factory=list)


class TranslationOverride(_Strict):
    """Marks one translation source as unusable, with the reason reported to users."""

    problem: str
    source: str
    reason: str = Field(min_length=1)


class SuiteFile(_Strict):
    """The suite manifest, `suite.toml` (or `suite.json`) at the root of a suite directory."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = ""
    version: str = "1"
    license: str = ""
    harness: dict[Target, HarnessEntry] = Field(min_length=1)
    cflags: list[str] = Field(default_factory=list)
    prompts: str | None = None
    """A ParEval-format generation prompt file: fills in prompts a task file leaves out."""
    translations: str | None = None
    """A ParEval-format translation prompt file: the suite's translation tasks."""
    broken_translation_sources: list[TranslationOverride] = Field(default_factory=list)
