"""Budgets: what ends a run, what limits replans and repairs, and resuming from a snapshot."""

from __future__ import annotations

import json

import pytest

from agents.core import Budget, Ledger


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("budget", "spend", "reason"),
    [
        (Budget(tokens=20000), lambda led, c: led.charge_tokens(20000), "token budget of 20000 spent"),
        (Budget(time_s=600), lambda led, c: setattr(c, "now", c.now + 600), "time budget of 600s spent"),
        (Budget(time_s=2.5), lambda led, c: setattr(c, "now", c.now + 3), "time budget of 2.5s spent"),
        (Budget(candidates=2), lambda led, c: [led.charge_candidate() for _ in range(2)], "candidate budget of 2 spent"),
        (Budget(sandbox_runs=1), lambda led, c: led.charge_sandbox_run(), "sandbox-run budget of 1 spent"),
    ],
)  # fmt: skip
def test_each_budget_ends_the_run_with_its_reason(budget, spend, reason):
    clock = Clock()
    ledger = Ledger(budget, clock)
    assert ledger.exhausted() is None and ledger.can("candidate")
    spend(ledger, clock)
    assert ledger.exhausted() == reason
    assert not ledger.can("repair") and not ledger.can("replan") and not ledger.can("tokens")


def test_no_limits_never_exhausts():
    clock = Clock()
    ledger = Ledger(Budget(), clock)
    ledger.charge_tokens(10**9)
    for _ in range(1000):
        ledger.charge_candidate()
        ledger.charge_sandbox_run()
    clock.now += 10**6
    assert ledger.exhausted() is None and ledger.time_left() is None


def test_replans_and_repairs_limit_only_themselves():
    ledger = Ledger(Budget(replans=1, repairs=2), Clock())
    assert ledger.can("replan") and ledger.left("replan") == 1
    ledger.charge_replan()
    assert not ledger.can("replan") and ledger.left("replan") == 0
    ledger.charge_repair()
    assert ledger.can("repair") and ledger.left("repair") == 1
    ledger.charge_repair()
    assert not ledger.can("repair")
    assert ledger.exhausted() is None and ledger.can("candidate")
    with pytest.raises(ValueError):
        ledger.charge_tokens(-1)


def test_a_snapshot_round_trip_keeps_counts_and_time_used():
    budget = Budget(tokens=1000, time_s=60, candidates=5, sandbox_runs=5)
    clock = Clock()
    ledger = Ledger(budget, clock)
    ledger.charge_tokens(700)
    ledger.charge_candidate()
    ledger.charge_sandbox_run()
    ledger.charge_repair()
    clock.now += 45
    stored = json.loads(json.dumps(ledger.snapshot()))
    assert stored == {
        "tokens": 700, "candidates": 1, "sandbox_runs": 1, "replans": 0, "repairs": 1, "elapsed_s": 45.0,
    }  # fmt: skip

    later = Clock()
    later.now = 5000.0  # another process: a different monotonic origin
    resumed = Ledger.from_snapshot(budget, stored, later)
    assert resumed.snapshot() == stored
    assert resumed.time_left() == 15.0
    later.now += 15
    assert resumed.exhausted() == "time budget of 60s spent"
    assert resumed.time_left() == 0.0


def test_a_spent_candidate_budget_still_lets_the_last_candidate_be_verified():
    """The last candidate the budget allowed was once refused its verification: a spent
    candidate budget stops making candidates, not checking them."""
    ledger = Ledger(Budget(candidates=1, sandbox_runs=3))
    ledger.charge_candidate()
    assert ledger.exhausted() == "candidate budget of 1 spent"
    assert ledger.exhausted("candidate") == "candidate budget of 1 spent"
    assert ledger.exhausted("sandbox_run") is None


def test_token_estimates_are_held_while_calls_run_and_settled_after():
    """Calls running at once once overran the token budget together (tokens were charged only
    when each returned): each holds its estimate first, and one that does not fit is refused."""
    ledger = Ledger(Budget(tokens=1000))
    assert ledger.reserve_tokens(600)
    assert not ledger.reserve_tokens(500)  # 600 held + 500 > 1000
    assert ledger.tokens_free() == 400
    ledger.settle_tokens(600, 250)  # the first call used less than it might have
    assert ledger.spent.tokens == 250 and ledger.reserved_tokens == 0
    assert ledger.reserve_tokens(500) and ledger.tokens_free() == 250
    assert Ledger(Budget()).reserve_tokens(10**9) and Ledger(Budget()).tokens_free() is None
