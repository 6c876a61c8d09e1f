"""Budgets of one translate run and the ledger that spends them.

`Budget` is what a run may spend (None: no limit); `Ledger` counts what it has spent. Tokens,
time, candidates and sandbox runs end the run when spent (`exhausted`); replans and repairs only
limit those actions (`can`). A ledger's `snapshot` is plain data for a checkpoint, so a resumed
run goes on with what it had left, the time already used included.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

Kind = Literal["tokens", "time", "candidate", "sandbox_run", "replan", "repair"]
Clock = Callable[[], float]


class Budget(BaseModel):
    """Limits of one run; None means unbounded."""

    tokens: int | None = Field(default=None, ge=0)
    """Prompt plus completion tokens of every model call."""
    time_s: float | None = Field(default=None, ge=0)
    candidates: int | None = Field(default=None, ge=0)
    sandbox_runs: int | None = Field(default=None, ge=0)
    """Verifications (and other sandbox executions) of candidates."""
    replans: int = Field(default=1, ge=0)
    repairs: int = Field(default=2, ge=0)
    """Repair rounds."""


class Spent(BaseModel):
    """What a run has used so far (the ledger's snapshot)."""

    tokens: int = 0
    candidates: int = 0
    sandbox_runs: int = 0
    replans: int = 0
    repairs: int = 0
    elapsed_s: float = 0.0
    """Time used before the ledger was (re)started."""


class Ledger:
    """Spends a `Budget`. Meant for one event loop: its updates never await, so no locks."""

    def __init__(self, budget: Budget, clock: Clock = time.monotonic) -> None:
        self.budget = budget
        self.spent = Spent()
        self.reserved_tokens = 0
        """Tokens held for model calls in flight (estimates, settled when each call ends)."""
        self._clock = clock
        self._started = clock()

    @classmethod
    def from_snapshot(
        cls, budget: Budget, snapshot: Mapping[str, Any], clock: Clock = time.monotonic
    ) -> Ledger:
        """A ledger that goes on from a `snapshot` (its elapsed time counts as spent)."""
        ledger = cls(budget, clock)
        ledger.spent = Spent.model_validate(snapshot)
        return ledger

    def snapshot(self) -> dict[str, Any]:
        """What has been spent, as plain JSON-able data."""
        return self.spent.model_copy(update={"elapsed_s": self.elapsed}).model_dump()

    @property
    def elapsed(self) -> float:
        """Seconds used, before a restart included."""
        return self.spent.elapsed_s + self._clock() - self._started

    def time_left(self) -> float | None:
        """Seconds left of the time budget (never negative), None without one."""
        if self.budget.time_s is None:
            return None
        return max(0.0, self.budget.time_s - self.elapsed)

    def charge_tokens(self, n: int) -> None:
        if n < 0:
            raise ValueError("a token count cannot be negative")
        self.spent.tokens += n

    def reserve_tokens(self, estimate: int) -> bool:
        """Hold `estimate` tokens for a model call about to start; False (nothing held) when
        they do not fit beside what is spent and what calls in flight hold, so calls running at
        once cannot overrun the budget together. Settle with `settle_tokens` when it ends."""
        if estimate < 0:
            raise ValueError("a token estimate cannot be negative")
        b = self.budget.tokens
        if b is not None and self.spent.tokens + self.reserved_tokens + estimate > b:
            return False
        self.reserved_tokens += estimate
        return True

    def settle_tokens(self, estimate: int, used: int) -> None:
        """A call that held `estimate` tokens ended having used `used`: release the one,
        charge the other."""
        self.reserved_tokens = max(0, self.reserved_tokens - estimate)
        self.charge_tokens(used)

    def tokens_free(self) -> int | None:
        """Tokens neither spent nor held by calls in flight (None: no token budget)."""
        if self.budget.tokens is None:
            return None
        return max(0, self.budget.tokens - self.spent.tokens - self.reserved_tokens)

    def charge_candidate(self) -> None:
        self.spent.candidates += 1

    def charge_sandbox_run(self) -> None:
        self.spent.sandbox_runs += 1

    def charge_replan(self) -> None:
        self.spent.replans += 1

    def charge_repair(self) -> None:
        self.spent.repairs += 1

    def exhausted(self, kind: Kind | None = None) -> str | None:
        """Why the run must stop (`token budget of 20000 spent`), or None while it may go on;
        `kind`: what is about to be spent, where that matters: a spent candidate budget stops
        the making of candidates, not the verification of those already made."""
        b, s = self.budget, self.spent
        if b.tokens is not None and s.tokens >= b.tokens:
            return f"token budget of {b.tokens} spent"
        if b.time_s is not None and self.elapsed >= b.time_s:
            return f"time budget of {b.time_s:g}s spent"
        if b.candidates is not None and s.candidates >= b.candidates and kind != "sandbox_run":
            return f"candidate budget of {b.candidates} spent"
        if b.sandbox_runs is not None and s.sandbox_runs >= b.sandbox_runs:
            return f"sandbox-run budget of {b.sandbox_runs} spent"
        return None

    def can(self, kind: Kind) -> bool:
        """Whether one more of `kind` fits: the run is not exhausted and that count has room."""
        if self.exhausted() is not None:
            return False
        if kind == "replan":
            return self.spent.replans < self.budget.replans
        if kind == "repair":
            return self.spent.repairs < self.budget.repairs
        return True  # the other kinds are exactly what `exhausted` checks

    def left(self, kind: Literal["replan", "repair"]) -> int:
        """How many replans or repair rounds remain."""
        if kind == "replan":
            return max(0, self.budget.replans - self.spent.replans)
        return max(0, self.budget.repairs - self.spent.repairs)
