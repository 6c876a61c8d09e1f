"""The state the translate graph and its subgraphs share: judged candidates merged by id, the
ledger's fan-in, and a run's workbench rebuilt from them on resume."""

from __future__ import annotations

from agents.core import Budget, Ledger
from agents.graphs.shared.observations import Judged, by_candidate, observation, restore
from agents.graphs.shared.state import latest_spending
from agents.tools import Made, Workbench
from sandbox.spec import Target
from sandbox.verdict import Status, Verdict


def judged(candidate_id: int, status: Status, key: str = "") -> Judged:
    made = Made(
        candidate_id=candidate_id,
        source=f"int main(void) {{ return {candidate_id}; }}",
        strategy="rewrite",
        key=key or f"k{candidate_id}",
        step_id=10 + candidate_id,
        verdict=Verdict(status=status, target=Target.OPENMP),
    )
    return observation(made)


def test_parallel_branches_add_their_candidates_in_order() -> None:
    merged = by_candidate([judged(1, Status.PASSED)], [judged(2, Status.WRONG_ANSWER)])
    merged = by_candidate(merged, [judged(3, Status.BUILD_FAILED)])
    assert [item["candidate_id"] for item in merged] == [1, 2, 3]


def test_a_candidate_judged_again_replaces_its_entry_in_place() -> None:
    merged = by_candidate(
        [judged(1, Status.WRONG_ANSWER), judged(2, Status.PASSED)], [judged(1, Status.PASSED)]
    )
    assert [(i["candidate_id"], i["verdict"]["status"]) for i in merged] == [
        (1, "passed"),
        (2, "passed"),
    ]


def test_the_larger_figure_of_each_counter_wins_the_ledger_fan_in() -> None:
    assert latest_spending({"tokens": 5, "runs": 2}, {"tokens": 3, "candidates": 1}) == {
        "tokens": 5,
        "runs": 2,
        "candidates": 1,
    }


def test_a_resumed_workbench_knows_every_judged_candidate_and_its_verdict_once() -> None:
    items = [judged(1, Status.PASSED, key="same"), judged(2, Status.PASSED, key="same")]
    work = Workbench(Ledger(Budget()))
    spent = Ledger(Budget())
    work.restore(spent, map(restore, items))
    assert work.ledger is spent
    assert sorted(work.made) == [1, 2]
    assert work.made[1].source == items[0]["source"]
    # The same code is not verified twice: the first verdict of a key stands.
    assert list(work.verdicts) == ["same"]
    assert work.verdicts["same"][0] == 1
