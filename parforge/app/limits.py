"""What one API key may have at once and what one task may ask for, as pure decisions: each
refusal with its status and a reason for people."""

from __future__ import annotations

from dataclasses import dataclass

from corpus.store.models import TaskCreate
from parforge.settings import KeyLimits

BUSY_RETRY_S = 30
"""How long a key at its limit of active jobs is asked to wait (Retry-After): about the time
a short job takes to move on."""


@dataclass(frozen=True)
class Refusal:
    """Why a request is turned down, and with which status."""

    status: int
    reason: str
    retry_after_s: int | None = None
    """For a limit that frees itself (429): when trying again may succeed."""


def task_refusal(create: TaskCreate, active: int | None, limits: KeyLimits) -> Refusal | None:
    """Whether a key that has `active` tasks queued or running (None: an anonymous caller, not
    counted) may submit `create`."""
    tests = len(create.tests or [])
    if tests > limits.tests_per_task:
        return Refusal(422, f"{tests} tests; the limit per task is {limits.tests_per_task}")
    if create.budgets.samples > limits.samples_per_task:
        return Refusal(
            422,
            f"{create.budgets.samples} samples; the limit per task is {limits.samples_per_task}",
        )
    return _active_refusal("tasks", active, limits.active_tasks)


def eval_refusal(active: int | None, limits: KeyLimits) -> Refusal | None:
    """Whether a key that has `active` eval runs queued or running may submit another."""
    return _active_refusal("eval runs", active, limits.active_evals)


def _active_refusal(what: str, active: int | None, limit: int) -> Refusal | None:
    if active is None or active < limit:
        return None
    return Refusal(
        429,
        f"this API key has {active} {what} queued or running; the limit is {limit}",
        retry_after_s=BUSY_RETRY_S,
    )
