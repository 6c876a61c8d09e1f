"""The population: a MAP-Elites archive over behaviour descriptors (pure, JSON-able).

Each cell holds the best candidate found with one descriptor: its strategy (the OpenMP
schedule kinds it uses, or the target), how many parallel regions it opens, and its code size.
Keeping one elite per cell keeps different ways of being fast alive, where a single ranked list
would collapse onto one schedule early. Cells only ever get better, so the best candidate found
is never lost (elitism). Parents are drawn with a `random.Random` the caller seeds, so a run with
the same seed and a deterministic model makes the same choices.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field
from typing import Any

from agents.targets import kit
from sandbox.spec import Target


def descriptor(source: str, target: Target) -> str:
    """`strategy|regions|size` of a program: the first two as its target's kit reads them from
    its directives, launches or calls, the size a log2 of its non-blank lines."""
    lines = [line.strip() for line in source.splitlines() if line.strip()]
    strategy, regions = kit(target).descriptor(lines)
    size = max(0, int(math.log2(max(len(lines), 1) / 25))) if lines else 0
    return f"{strategy}|{regions}|{size}"


@dataclass
class Elite:
    """A candidate that holds a cell."""

    candidate_id: int
    descriptor: str
    correct: bool
    speedup: float
    generation: int = 0

    @property
    def fitness(self) -> float:
        return self.speedup if self.correct else 0.0


@dataclass
class Archive:
    cells: dict[str, Elite] = field(default_factory=dict)

    def incumbent(self, cell: str) -> Elite | None:
        return self.cells.get(cell)

    def place(self, elite: Elite) -> None:
        """Put `elite` in its cell (the caller decided it beats the incumbent)."""
        self.cells[elite.descriptor] = elite

    def elites(self) -> list[Elite]:
        """Fittest first, the earliest candidate among equals."""
        return sorted(self.cells.values(), key=lambda e: (-e.fitness, e.candidate_id))

    def parents(self, rng: random.Random, k: int, best: int | None) -> list[int]:
        """Up to `k` parents: the best candidate always (elitism), then cells drawn uniformly
        (MAP-Elites' selection) among the correct ones."""
        pool = sorted(e.candidate_id for e in self.cells.values() if e.correct)
        chosen = [best] if best is not None and best in pool else []
        rest = [c for c in pool if c not in chosen]
        chosen += rng.sample(rest, min(len(rest), max(0, k - len(chosen))))
        return chosen

    def to_json(self) -> dict[str, Any]:
        return {cell: asdict(elite) for cell, elite in sorted(self.cells.items())}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Archive:
        return cls({cell: Elite(**elite) for cell, elite in data.items()})
