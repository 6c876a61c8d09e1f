"""The task-fetching unit: run a plan's steps as soon as their inputs exist.

A step is dispatched the moment every step it refers to (`$N`) has finished ok, while the plan
may still be streaming in; it never waits for an unrelated step, so a slow branch holds back
only its own dependants (unlike a superstep engine, where it holds back every next step).

Outcomes are data: an exception from a tool is that step's `error`, and the steps that need
its result are `skipped` with the reason, as are steps that refer to a step the plan never
defined or that wait on each other. Cancelling `run_plan` cancels every running step and
propagates; so does an exception from the step stream (a plan that went bad mid-stream) or
from `on_event`. The `finished` events carry each result as it is made, so a caller that
cancels (a time budget) still has what finished before.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from agents.core.plan import PlanError, PlanStep
from agents.core.refs import ReferenceMissing, references, substitute

StepStatus = Literal["ok", "error", "skipped", "cancelled"]
Execute = Callable[[PlanStep, dict[str, Any]], Awaitable[Any]]


@dataclass
class StepResult:
    """What became of one step; times are `time.monotonic()` (equal for a skipped step)."""

    step: PlanStep
    status: StepStatus
    value: Any = None
    error: str = ""
    started: float = 0.0
    finished: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class SchedulerEvent:
    """A step started running, or finished (`result` set; skipped steps only finish)."""

    kind: Literal["started", "finished"]
    step: PlanStep
    at: float
    result: StepResult | None = None


async def run_plan(
    steps: AsyncIterator[PlanStep],
    execute: Execute,
    *,
    max_concurrency: int | None = None,
    on_event: Callable[[SchedulerEvent], None] | None = None,
) -> dict[int, StepResult]:
    """Run every step of a (possibly still streaming) plan; each step's result by id.

    `execute` gets the step and its args with references replaced by the results they name.
    At most `max_concurrency` steps run at once (None: no limit). A repeated step id raises
    `PlanError` (the parser rejects such plans before they get here).
    """
    if max_concurrency is not None and max_concurrency < 1:
        raise ValueError("max_concurrency must be at least 1")
    return await _Scheduler(execute, max_concurrency, on_event).run(steps)


class _Scheduler:
    def __init__(
        self,
        execute: Execute,
        max_concurrency: int | None,
        on_event: Callable[[SchedulerEvent], None] | None,
    ) -> None:
        self.execute = execute
        self.slots = asyncio.Semaphore(max_concurrency) if max_concurrency else None
        self.on_event = on_event
        self.results: dict[int, StepResult] = {}
        self.defined: set[int] = set()
        self.waiting: dict[int, tuple[PlanStep, set[int]]] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    async def run(self, steps: AsyncIterator[PlanStep]) -> dict[int, StepResult]:
        try:
            async for step in steps:
                self._arrive(step)
            self._no_more_steps()
            while self.tasks:
                done, _ = await asyncio.wait(self.tasks, return_when=asyncio.FIRST_COMPLETED)
                self.tasks -= done
                for task in done:
                    task.result()  # a step's own failures are results; this raises only bugs
                if not self.tasks:
                    self._break_cycles()
        except BaseException:
            await self._cancel_running()
            raise
        return self.results

    def _arrive(self, step: PlanStep) -> None:
        if step.id in self.defined:
            raise PlanError(f"step id {step.id} is used twice")
        self.defined.add(step.id)
        self.waiting[step.id] = (step, references(step.args))
        self._consider(step.id)

    def _consider(self, step_id: int) -> None:
        """Dispatch a waiting step whose inputs are all there; skip one whose inputs failed."""
        step, needs = self.waiting[step_id]
        for need in sorted(needs):
            result = self.results.get(need)
            if result is not None and not result.ok:
                self._skip(step, f"needs ${need}, which {_what_became(result)}")
                return
        if all(need in self.results for need in needs):
            del self.waiting[step_id]
            task = asyncio.create_task(self._run_step(step), name=f"plan step {step.id}")
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    def _skip(self, step: PlanStep, reason: str) -> None:
        del self.waiting[step.id]
        now = time.monotonic()
        self._finish(StepResult(step, "skipped", error=reason, started=now, finished=now))

    def _finish(self, result: StepResult) -> None:
        """Record a result, tell the listener, and let the steps that wait on it move."""
        self.results[result.step.id] = result
        self._emit(SchedulerEvent("finished", result.step, result.finished, result))
        for step_id, (_, needs) in list(self.waiting.items()):
            if result.step.id in needs and step_id in self.waiting:
                self._consider(step_id)

    def _no_more_steps(self) -> None:
        """The plan is complete: steps that refer to ids it never defined cannot run."""
        for step_id, (step, needs) in list(self.waiting.items()):
            unknown = sorted(needs - self.defined)
            if unknown and step_id in self.waiting:
                names = ", ".join(f"${n}" for n in unknown)
                self._skip(step, f"unknown step {names}")
        if not self.tasks:
            self._break_cycles()

    def _break_cycles(self) -> None:
        """Nothing runs and steps still wait: they wait on each other (or on themselves)."""
        for step_id, (step, needs) in sorted(self.waiting.items()):
            if step_id in self.waiting:
                pending = ", ".join(f"${n}" for n in sorted(needs - self.results.keys()))
                self._skip(step, f"circular reference: waits on {pending}, which wait on it")

    async def _run_step(self, step: PlanStep) -> None:
        if self.slots is None:
            await self._call(step)
        else:
            async with self.slots:
                await self._call(step)

    async def _call(self, step: PlanStep) -> None:
        started = time.monotonic()
        self._emit(SchedulerEvent("started", step, started))
        values = {n: r.value for n, r in self.results.items() if r.ok}
        try:
            args = substitute(step.args, values)
            value = await self.execute(step, args)
        except ReferenceMissing as exc:
            result = StepResult(step, "error", error=f"{exc}", started=started)
        except asyncio.CancelledError:
            result = StepResult(step, "cancelled", error="cancelled", started=started)
            result.finished = time.monotonic()
            self._finish(result)
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the run is being cancelled, not just this tool call
            return
        except Exception as exc:
            result = StepResult(step, "error", error=f"{type(exc).__name__}: {exc}")
            result.started = started
        else:
            result = StepResult(step, "ok", value=value, started=started)
        result.finished = time.monotonic()
        self._finish(result)

    async def _cancel_running(self) -> None:
        # Dependants of cancelled steps are not started: the run is over.
        self.waiting.clear()
        running = list(self.tasks)
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)

    def _emit(self, event: SchedulerEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)


def _what_became(result: StepResult) -> str:
    if result.status == "error":
        return f"failed ({result.error})"
    if result.status == "skipped":
        return f"was skipped ({result.error})"
    return "was cancelled"
