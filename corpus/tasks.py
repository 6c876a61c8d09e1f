"""Loaded tasks: every file read, every mutant applied, ready to hand to the verifier.

A task exposes, per target, `spec_for(target)`: a plain dict whose keys are exactly the fields
of the sandbox's `Spec`, so the layer that verifies does `Spec.model_validate(task.spec_for(t))`
without this package importing the sandbox.

How a driver is composed (the suite's harness says which files come before and after):

    #include "<before files>"      e.g. pf.hpp: std headers, seeded RNG, printing, timing
    #include "solution.inc"        the candidate: the prompt followed by the model's completion
    #include "problem.hpp"         the task's input generator, call of the function, printing
    #include "<after files>"       e.g. main.hpp / main_mpi.hpp: main()

The reference is the same program with the task's sequential solution in place of the include.
For a CUDA target it is composed with the serial harness, since it is built by the plain C++
compiler.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from corpus.errors import UnknownTarget
from corpus.formats import MutantKind, TestPlan, TimingCase, ToleranceEntry
from sandbox.spec import Target

SOLUTION_INCLUDE = "solution.inc"
PROBLEM_HEADER = "problem.hpp"
DEFAULT_WORKERS = (1, 2, 4)


class Mutant(BaseModel):
    """A known-good solution with a planted defect: the verifier must reject it."""

    name: str
    kind: MutantKind
    description: str
    source: str


class KnownGood(BaseModel):
    """A solution written and checked by hand: the verifier must accept it."""

    name: str
    source: str
    mutants: list[Mutant] = Field(default_factory=list)


class TargetTask(BaseModel):
    """What a task holds for one target: the prompt and the known-good solutions."""

    target: Target
    prompt: str
    solutions: list[KnownGood] = Field(default_factory=list)
    timing_size: int | None = None
    """The size of this target's timing input, where it differs from the task's."""


class HarnessPart(BaseModel):
    """File names included before the solution and after the problem header, for one target."""

    before: list[str] = Field(default_factory=list)
    after: list[str] = Field(default_factory=list)


class Harness(BaseModel):
    """A suite's driver parts: file texts by name, and which of them each target includes."""

    files: dict[str, str]
    targets: dict[Target, HarnessPart]

    def part(self, target: Target) -> HarnessPart:
        return self.targets[target]


class SuiteTask(BaseModel):
    """One function to write in parallel, with everything needed to verify a candidate."""

    name: str
    suite: str
    problem_type: str
    language: str
    function: str
    signature: str
    description: str
    notes: str = ""
    reference: str
    """The sequential solution (serial prompt followed by its body)."""
    problem: str
    """Text of the problem header (generator, call, printing)."""
    harness: Harness
    tests: TestPlan
    timing: TimingCase
    tolerance: ToleranceEntry | None = None
    targets: dict[Target, TargetTask]
    cflags: list[str] = Field(default_factory=list)
    libs: list[str] = Field(default_factory=list)
    timeout_s: float = 30.0
    timing_repeats: int = 5

    def applies_to(self, target: Target | str) -> bool:
        return Target(target) in self.targets

    def target(self, target: Target | str) -> TargetTask:
        """The task's entry for `target`; `UnknownTarget` when it does not apply."""
        t = Target(target)
        if t not in self.targets:
            declared = ", ".join(sorted(self.targets))
            raise UnknownTarget(f"task {self.name} does not apply to {t} (it declares {declared})")
        return self.targets[t]

    def prompt_for(self, target: Target | str) -> str:
        """The generation prompt; a candidate's source is this prompt followed by a completion."""
        return self.target(target).prompt

    def driver_for(self, target: Target | str) -> str:
        """The program that includes the candidate as `solution.inc`."""
        t = self.target(target).target
        return self._compose(self.harness.part(t), f'#include "{SOLUTION_INCLUDE}"\n')

    def signature_for(self, target: Target | str) -> str | None:
        """For CUDA, the kernel the driver launches: the declaration its prompt ends with
        (other targets' solutions keep the sequential function's signature)."""
        t = Target(target)
        if t is not Target.CUDA:
            return None
        lines = [line for line in self.prompt_for(t).splitlines() if "__global__" in line]
        return lines[-1].strip().rstrip("{").strip() if lines else None

    def reference_for(self, target: Target | str) -> str:
        """The sequential reference as one complete program for `target`'s reference build."""
        t = self.target(target).target
        return self._compose(
            self.harness.part(_reference_harness(t)), _ensure_newline(self.reference)
        )

    def files_for(self, target: Target | str) -> dict[str, str]:
        """Support files written beside the driver and the reference."""
        t = self.target(target).target
        names: list[str] = []
        for part in (self.harness.part(t), self.harness.part(_reference_harness(t))):
            names += [n for n in [*part.before, *part.after] if n not in names]
        files = {n: self.harness.files[n] for n in names}
        files[PROBLEM_HEADER] = self.problem
        return files

    def spec_for(self, target: Target | str) -> dict[str, Any]:
        """A plain dict with exactly the fields of the sandbox's `Spec`."""
        t = self.target(target).target
        size = self.timing_size_for(t)
        return {
            "name": f"{self.name}.{t.value}",
            "language": self.language,
            "reference": self.reference_for(t),
            "driver": self.driver_for(t),
            "signature": self.signature_for(t),
            "files": self.files_for(t),
            "tests": [
                {"name": f"seed{seed}-size{size}", "args": [str(seed), str(size)], "stdin": ""}
                for size in self.tests.sizes
                for seed in self.tests.seeds
            ],
            "timing": {
                "name": f"timing-seed{self.timing.seed}-size{size}",
                "args": [str(self.timing.seed), str(size)],
                "stdin": "",
            },
            "tolerance": self.tolerance.model_dump() if self.tolerance else None,
            "cflags": list(self.cflags),
            "libs": list(self.libs),
            "threads": list(DEFAULT_WORKERS),
            "ranks": list(DEFAULT_WORKERS),
            "timeout_s": self.timeout_s,
            "timing_repeats": self.timing_repeats,
            # Hidden inputs: fresh seeds at the two largest test sizes (sizes the problem is
            # known to take: FFTs need powers of two), and a fresh seed for the timing input.
            "hidden": {
                "args": [{"seed": True}, {"choice": [str(n) for n in self.tests.sizes[-2:]]}],
                "count": 2,
                "timing": [{"seed": True}, {"value": str(size)}],
            },
        }

    def timing_size_for(self, target: Target | str) -> int:
        """The size of `target`'s timing input (the task's, unless the target declares its own)."""
        declared = self.target(target).timing_size
        return self.timing.size if declared is None else declared

    def _compose(self, part: HarnessPart, solution: str) -> str:
        lines = [f"// {self.suite}/{self.name}: generated driver, see docs/suites.md"]
        lines += [f'#include "{name}"' for name in part.before]
        body = "\n".join(lines) + "\n" + solution
        tail = [f'#include "{PROBLEM_HEADER}"'] + [f'#include "{name}"' for name in part.after]
        return body + "\n".join(tail) + "\n"


def _reference_harness(target: Target) -> Target:
    # The CUDA reference is built by the plain C++ compiler, so it needs the CPU main.
    return Target.SERIAL if target is Target.CUDA else target


def _ensure_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"
