"""The translate agent as a sample source: each sample is one task in the store, run by the
graph runner exactly as `parforge translate` runs it, so its whole trajectory is stored and
exportable. The sample is the task's best verified candidate or, when none passed, the one that
got furthest (the eval verifies it again like any other sample, so the scores stay uniform).

What the agent transforms: in a translation run, the suite's source of that direction
(ParEval's serial implementation); in a generation run, the problem's sequential reference.
Either way it is a function, verified through the problem's driver (`TaskOptions.spec`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from sqlalchemy import Engine
from sqlmodel import Session

from corpus.store import tasks as store_tasks
from corpus.store.models import ParallelTarget, TaskCreate, TaskOptions
from corpus.suites import Suite
from corpus.tasks import SuiteTask
from evals.sources import Sample
from sandbox.spec import Language, Spec, Target

RunTask = Callable[[str], Awaitable[object]]
"""Runs a stored task to its end with an agent (built by the service from its runners)."""


class GraphSource:
    """Samples from an agent runner (the graph), one stored task per sample."""

    def __init__(
        self,
        run_task: RunTask,
        engine: Engine,
        suite: Suite,
        *,
        translate_from: str | None = None,
        reasoning_threads: int | None = None,
        evolve: bool | None = None,
        generations: int | None = None,
        timing: bool | None = None,
        name: str = "graph",
    ) -> None:
        self.run_task = run_task
        """Runs a stored task to its end with the agent (the service's worker pool)."""
        self.engine = engine
        self.name = name
        self.translate_from = translate_from
        self.reasoning_threads = reasoning_threads
        self.evolve = evolve
        self.generations = generations
        self.timing = None if timing or evolve or generations else False
        """An eval run without timing asks its agent for none either: the agent's own
        verifications then check what the eval's will (a run with timing, or one that evolves,
        whose fitness is speed, leaves the agent its default)."""
        self.sources = {
            (t.problem, t.target_model): t.source
            for t in suite.translations
            if translate_from and t.supported and t.source_model == translate_from
        }
        """A problem's sources per destination: ParEval's serial source of a problem may differ
        between its serial→OpenMP and serial→MPI prompts, and serial→CUDA starts from the
        suite's own sequential solution."""

    def source_for(self, task: SuiteTask, target: Target) -> str:
        """The code the agent starts from."""
        if self.translate_from:
            return self.sources[(task.name, target.value)]
        return task.reference

    async def generate(self, task: SuiteTask, target: Target, indices: list[int]) -> list[Sample]:
        return list(await asyncio.gather(*(self._one(task, target, i) for i in indices)))

    async def _one(self, task: SuiteTask, target: Target, index: int) -> Sample:
        create = TaskCreate(
            name=f"{task.name}#{index}",
            source=self.source_for(task, target),
            language=Language(task.language),
            target=ParallelTarget(target.value),
            agent="graph",
            options=TaskOptions(
                spec=Spec.model_validate(task.spec_for(target)).model_dump(),
                reasoning_threads=self.reasoning_threads,
                evolve=self.evolve,
                generations=self.generations,
                timing=self.timing,
            ),
        )
        task_id = await asyncio.to_thread(self._submit, create)
        await self.run_task(task_id)
        source, why = await asyncio.to_thread(self._pick, task_id)
        return Sample(index=index, source=source, error=why)

    def _submit(self, create: TaskCreate) -> str:
        with Session(self.engine) as session:
            return store_tasks.submit(session, create).id

    def _pick(self, task_id: str) -> tuple[str | None, str]:
        with Session(self.engine) as session:
            row = store_tasks.get(session, task_id)
            candidates = store_tasks.candidates(session, task_id)
        assert row is not None
        if not candidates:
            return None, f"the agent made no candidate ({row.status}: {row.reason})"
        best = next((c for c in candidates if c.id == row.best_candidate_id), None)
        if best is None:
            best = max(candidates, key=_progress)
        return best.source, ""

    async def aclose(self) -> None:
        """The agent's runner belongs to whoever built `run_task`."""


_ORDER = ["build_failed", "not_parallel", "crashed", "timed_out", "wrong_answer", "race", "passed"]


def _progress(candidate: object) -> int:
    verdict = getattr(candidate, "verdict", None)
    status = verdict.status if verdict is not None else ""
    return _ORDER.index(status) if status in _ORDER else -1
