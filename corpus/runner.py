"""The seam between the job queue and whatever runs a task or an eval.

A `TaskRunner` gets a `TaskContext`: the task as submitted, the attempt number, and a `Recorder`
through which it stores each LLM call, tool call, candidate and verdict *as it happens*. The
worker pool creates the run, hands the context over, and ends the task from what `run` returns
or raises:

- returns a `RunOutcome`          → the task ends as the outcome says: `succeeded` (a candidate
                                    passed), `no_verified_candidate` (none did) or `failed`;
- raises an exception             → the task ends `failed`, the exception as the reason;
- is cancelled (`CancelledError`) → the task ends `cancelled` (a user asked, or shutdown).

Cancellation arrives as ordinary asyncio cancellation at the runner's next `await`;
`context.cancel_requested()` lets a long CPU-bound stretch check for it between awaits.
A runner must not write task status itself: that is the pool's job. A runner that holds
long-lived resources (a model client, a sandbox pool) may offer `async aclose()`; whoever built
it from the settings (the API's services, the CLI) calls it on shutdown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from corpus.store.models import JobStatus, TaskDetail
from corpus.store.recorder import Recorder

OUTCOME_STATUSES = frozenset(
    {JobStatus.SUCCEEDED, JobStatus.NO_VERIFIED_CANDIDATE, JobStatus.NOT_RUN, JobStatus.FAILED}
)
"""What a runner may end a task with; cancellation is the pool's to say."""


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended, as the runner sees it."""

    status: JobStatus = JobStatus.SUCCEEDED
    """SUCCEEDED (a candidate passed verification), NO_VERIFIED_CANDIDATE (the run did its job,
    but none passed: a result, not an error), NOT_RUN (the best candidate built and passed the
    static checks, but this host cannot run it) or FAILED (the model, the sandbox or the runner
    broke)."""
    reason: str = ""
    """A line for the user: `3 of 4 candidates passed; best 3.4x at 4 threads`."""
    best_candidate_id: int | None = None
    """None: the fastest candidate whose verdict passed, if any."""

    def __post_init__(self) -> None:
        if self.status not in OUTCOME_STATUSES:
            raise ValueError(f"a run cannot end a task as {self.status!r}")


@dataclass(frozen=True)
class TaskContext:
    """Everything a runner gets for one attempt at one task."""

    task: TaskDetail
    run_id: int
    attempt: int
    """1 for the first run; more when the task was re-queued after its worker died."""
    recorder: Recorder
    cancel_requested: Callable[[], bool] = field(default=lambda: False)


@runtime_checkable
class TaskRunner(Protocol):
    """Runs one task to an outcome, recording every step through `context.recorder`."""

    name: str
    """Stored on each run (`prompt`, `translate-graph`, `scripted`)."""

    async def run(self, context: TaskContext) -> RunOutcome: ...
