"""A model that is not one: serves known-good solutions, planted mutants or a stored run's
samples, so that the whole pipeline (generation seam, verification, store, reports) can be run
and measured without an LLM."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from corpus.tasks import SuiteTask
from evals.sources import Sample
from sandbox.spec import Target

ReplayKind = Literal["known-good", "mutants"]
PREFIX = "replay:"
_RUN = PREFIX + "run="


def replayed_run(model: str | None) -> int | None:
    """The stored run that `model` (`replay:run=ID`) replays; None for any other model.

    Raises ValueError when the id is not a number a run id can be (1 to 2^31 - 1, what the
    store's integer keys hold).
    """
    if model is None or not model.startswith(_RUN):
        return None
    text = model.removeprefix(_RUN)
    if not text.isdigit():
        raise ValueError(f"{model}: the run id must be a number")
    if not 1 <= int(text) <= MAX_RUN_ID:
        raise ValueError(f"{model}: the run id must be between 1 and {MAX_RUN_ID}")
    return int(text)


MAX_RUN_ID = 2**31 - 1


class ReplaySource:
    """Sample i of a task is its i-th known-good solution or mutant (cycling when there are
    fewer), or sample i of the same problem in a stored run."""

    def __init__(
        self,
        kind: ReplayKind | None = None,
        stored: Mapping[tuple[str, int], str] | None = None,
        stored_run: int | None = None,
    ) -> None:
        if (kind is None) == (stored is None):
            raise ValueError("replay either a kind of reference solution or a stored run")
        self.kind = kind
        self.stored = dict(stored or {})
        self.name = PREFIX + (kind if kind is not None else f"run={stored_run}")

    async def generate(self, task: SuiteTask, target: Target, indices: list[int]) -> list[Sample]:
        return [self._one(task, target, i) for i in indices]

    def _one(self, task: SuiteTask, target: Target, index: int) -> Sample:
        if self.kind is None:
            source = self.stored.get((task.name, index))
            why = f"the stored run has no sample {index} of {task.name}"
            return Sample(index=index, source=source, error="" if source else why)
        goods = task.target(target).solutions
        pool = [g.source for g in goods]
        if self.kind == "mutants":
            pool = [m.source for g in goods for m in g.mutants]
        if not pool:
            what = "mutants" if self.kind == "mutants" else "known-good solutions"
            return Sample(index=index, source=None, error=f"{task.name} has no {what} for {target}")
        return Sample(index=index, source=pool[index % len(pool)])

    async def aclose(self) -> None:
        """Nothing to release."""
