"""What a target is to the agent: the `Kit` each target module fills in, and the `Mutation`
its evolution neighbours are (pure).

A kit holds everything that differs between OpenMP, MPI and CUDA above the verifier: the
strategies a rewrite follows, the target's own tools (by name), the default plan's candidate
makers, the prompt's rules, how a program is built and run, the counts verification runs at,
the behaviour descriptor evolution keeps elites by, and the neighbours of a program that cost
no model call. Code above this layer asks `kit(target)` instead of branching on the target.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from agents.analysis.annotate import LoopChoice
from agents.analysis.model import Program
from agents.core import PlanStep
from sandbox.spec import Language, Target

FIRST_ID = 101
"""Default plan steps are numbered from here, so they never clash with a model's plan."""


@dataclass(frozen=True)
class Mutation:
    """One neighbour of a candidate."""

    operator: str
    """`schedule`, `chunk`, `collapse`, `simd`, `proc_bind`, `outer`, `inner`, `crossover`,
    `block_size`, `grid`, `shared`, `decomposition`, `exchange` or `combine`."""
    label: str
    """What changed, for a person and for the stored lineage (`L3: schedule static -> dynamic`)."""
    source: str
    """The whole mutated program."""
    choices: tuple[LoopChoice, ...] | None = None
    """The new choices, when the parent was annotated."""


class Kept:
    """Mutations kept so far: each source once, none equal to a parent's."""

    def __init__(self, *parents: str) -> None:
        self.seen = set(parents)
        self.mutations: list[Mutation] = []

    def keep(self, mutation: Mutation | None) -> None:
        if mutation is not None and mutation.source not in self.seen:
            self.seen.add(mutation.source)
            self.mutations.append(mutation)


@dataclass
class Draft:
    """A default plan being written: steps numbered from `FIRST_ID`, referred to as `$N`."""

    steps: list[PlanStep] = field(default_factory=list)

    def add(self, tool: str, why: str, **args: object) -> str:
        self.steps.append(PlanStep(id=FIRST_ID + len(self.steps), tool=tool, args=args, why=why))
        return f"${self.steps[-1].id}"


class Kit(ABC):
    """One target's part of the agent. Subclasses set the class attributes, write the abstract
    methods and override the others where their default does not fit."""

    target: ClassVar[Target]
    name: ClassVar[str]
    """As a person writes it (`OpenMP`)."""
    unit: ClassVar[str | None] = None
    """What verification counts (`thread`, `rank`), None when it runs at one size."""
    strategies: ClassVar[tuple[str, ...]]
    """The catalogue a rewrite, an outline or the default plan picks from; the first is the
    default."""
    tools: ClassVar[tuple[str, ...]] = ()
    """The target's own tools, by name, offered beside the common ones."""
    rules: ClassVar[tuple[str, ...]]
    """What the prompt asks of a program for this target."""
    checks: ClassVar[str]
    """The checks after the tests, as the prompt names them."""

    def driver_rules(self) -> tuple[str, ...]:
        """What the prompt asks of function(s) a test driver calls (ParEval's contract), where
        that differs from `rules` for a whole program."""
        return self.rules

    def language(self, source: Language) -> Language:
        """The language a candidate is written in, given the sequential program's."""
        return source

    @abstractmethod
    def build_line(self, language: Language) -> str:
        """How a candidate is built and run, for the prompt."""

    def counts(self, threads: Sequence[int], ranks: Sequence[int]) -> Sequence[int] | None:
        """The counts of `unit` verification runs a candidate at."""
        return None

    seeded: ClassVar[str | None] = None
    """The strategy (one of `strategies`) whose rewrites and reasoning threads start from the
    program the target's own tool writes from the analysis's facts (`seed`), to improve on it;
    None where the target has no such tool."""

    def seed(self, source: str, program: Program, signature: str | None = None) -> str | None:
        """The program the target's own tool writes from every loop it can take (None: none),
        shown to the model under the `seeded` strategy."""
        return None

    def mechanical(self, source: str, program: Program, signature: str | None = None) -> bool:
        """Whether one of the target's own tools can make a candidate from the analysis's facts
        alone, with no model-written code (`annotate` for OpenMP, `distribute` for MPI);
        `signature`: what a solution must define for the task's driver, when that is not the
        function's own (`Spec.signature`)."""
        return False

    def candidates(self, plan: Draft, *, annotatable: bool, use_model: bool) -> list[str]:
        """Add the default plan's candidate-making steps; return their references
        (`annotatable`: what `mechanical` says of the program). The common way: retrieved
        examples and a rewrite with each of the first two strategies (none without a model)."""
        if not use_model:
            return []
        examples = plan.add("examples", "verified code of similar loops")
        return [
            plan.add("rewrite", "a whole-program rewrite", strategy=strategy, examples=examples)
            for strategy in self.strategies[:2]
        ]

    def _loop_tool_candidates(
        self, plan: Draft, tool: str, plain: str, *, annotatable: bool, use_model: bool
    ) -> list[str]:
        """The default plan's makers for a target whose own `tool` writes code from the loops
        the analysis proves: the model's pick of loops, every loop the analysis offers
        (`plain`), and a rewrite; without a model, the analysis's candidate alone."""
        if not annotatable:
            return Kit.candidates(self, plan, annotatable=annotatable, use_model=use_model)
        if not use_model:
            return [plan.add(tool, plain, mode="analysis")]
        examples = plan.add("examples", "verified code of similar loops")
        return [
            plan.add(tool, "the model picks the loops", mode="model"),
            plan.add(tool, plain, mode="analysis"),
            plan.add(
                "rewrite", "a whole-program rewrite", strategy=self.strategies[0], examples=examples
            ),
        ]

    @abstractmethod
    def descriptor(self, lines: Sequence[str]) -> tuple[str, int]:
        """The strategy and the number of parallel regions evolution files a program under
        (`lines`: its non-blank lines, stripped)."""

    def mutations(self, source: str, language: Language) -> list[Mutation]:
        """Neighbours of a program not made by annotation (a model's rewrite), in source
        order; none by default."""
        return []
