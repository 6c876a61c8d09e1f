"""The join: ranking candidates, deciding what comes next, and the evidence a repair gets."""

from __future__ import annotations

import pytest

from agents.core import (
    Budget,
    Ledger,
    Observation,
    best,
    decide,
    evidence,
    faster,
    rank,
    top_speedup,
)
from sandbox.spec import Target
from sandbox.verdict import (
    BuildReport,
    ConcurrencyReport,
    Diagnostic,
    Equivalence,
    Finding,
    SourceCheck,
    Status,
    StepRecord,
    TestOutcome,
    Timing,
    Verdict,
)

BUILD_FAILED = Verdict(
    target=Target.OPENMP,
    status=Status.BUILD_FAILED,
    reason="main.c:14:5: error: 'i' undeclared",
    build=BuildReport(
        ok=False,
        diagnostics=[
            Diagnostic(severity="warning", message="unused variable 'n'", file="main.c", line=9, column=9),
            Diagnostic(severity="error", message="'i' undeclared (first use in this function)", file="main.c", line=14, column=5),
        ],
    ),
)  # fmt: skip
NO_CODE = Verdict(
    target=Target.OPENMP,
    status=Status.BUILD_FAILED,
    reason="the model's reply holds no code",
    build=BuildReport(ok=False),
)
NOT_PARALLEL = Verdict(
    target=Target.OPENMP,
    status=Status.NOT_PARALLEL,
    reason="no OpenMP construct",
    build=BuildReport(ok=True),
    source_check=SourceCheck(ok=False, message="no `#pragma omp` in the source"),
)
WRONG = Verdict(
    target=Target.OPENMP,
    status=Status.WRONG_ANSWER,
    reason="test 'small' at 4 threads: line 2: expected '5050', got '4912'; the answer depends on the thread count (right at 1)",
    build=BuildReport(ok=True),
    source_check=SourceCheck(ok=True, found=["#pragma omp parallel for"]),
    equivalence=Equivalence(
        ok=False,
        outcomes=[
            TestOutcome(test="small", workers=1, ok=True),
            TestOutcome(test="small", workers=4, ok=False, reason="line 2: expected '5050', got '4912'"),
        ],
    ),
    steps=[
        StepRecord(name="build candidate", command="gcc -fopenmp main.c", exit_code=0, duration_s=0.3),
        StepRecord(name="run candidate [small] 1 threads", command="./cand 100 < small.in", exit_code=0, duration_s=0.1),
        StepRecord(name="run candidate [small] 4 threads", command="OMP_NUM_THREADS=4 ./cand 100 < small.in", exit_code=0, duration_s=0.1, stderr=""),
    ],
)  # fmt: skip
CRASHED = Verdict(
    target=Target.MPI,
    status=Status.CRASHED,
    reason="test 'big' at 2 ranks: SIGSEGV",
    build=BuildReport(ok=True),
    equivalence=Equivalence(ok=False, outcomes=[TestOutcome(test="big", workers=2, ok=False, reason="SIGSEGV")]),
    steps=[
        StepRecord(name="run candidate [big] 2 ranks", command="mpirun -np 2 ./cand 1000", exit_code=139, duration_s=0.2, stderr="rank 1: Segmentation fault"),
        StepRecord(name="run candidate [big] 2 ranks again: runtime fault", command="mpirun -np 2 ./cand 1000 (again)", exit_code=139, duration_s=0.2, stderr="rank 1: Segmentation fault (core dumped)"),
    ],
)  # fmt: skip
TIMED_OUT = Verdict(
    target=Target.OPENMP,
    status=Status.TIMED_OUT,
    reason="test 'small' at 2 threads: timed out: no end within 20s",
    build=BuildReport(ok=True),
    equivalence=Equivalence(ok=False, outcomes=[TestOutcome(test="small", workers=2, ok=False, reason="timed out: no end within 20s")]),
)  # fmt: skip
RACE = Verdict(
    target=Target.OPENMP,
    status=Status.RACE,
    reason="data race on `sum`: write by thread T2 at main.c:12 vs previous write by thread T1 at main.c:12",
    build=BuildReport(ok=True),
    equivalence=Equivalence(ok=True, outcomes=[TestOutcome(test="small", workers=4, ok=True)]),
    concurrency=ConcurrencyReport(
        ok=False,
        tools=["archer-tsan"],
        findings=[
            Finding(kind="data race", tool="archer-tsan", message="data race on `sum`: write by thread T2 at main.c:12 vs previous write by thread T1 at main.c:12", file="main.c", line=12, variable="sum", workers=4),
        ],
        runs=2,
    ),
)  # fmt: skip


def passed(speedups: dict[int, float], *, race_checked: bool = True) -> Verdict:
    return Verdict(
        target=Target.OPENMP,
        status=Status.PASSED,
        build=BuildReport(ok=True),
        equivalence=Equivalence(ok=True),
        concurrency=ConcurrencyReport(ok=True, tools=["archer-tsan"]) if race_checked else None,
        timing=Timing(reference_s=1.0, speedup=speedups),
    )


NOT_RUN = Verdict(
    target=Target.CUDA,
    status=Status.NOT_RUN,
    reason="not run: no GPU",
    build=BuildReport(ok=True),
    equivalence=Equivalence(ok=False, not_run="not run: no GPU"),
)


def obs(cid: int, verdict: Verdict | None, key: str | None = None) -> Observation:
    return Observation(cid, key or f"code{cid}", verdict, "loops")


def ids(observations: list[Observation]) -> list[int | str]:
    return [o.candidate_id for o in observations]


def test_rank_puts_passed_first_then_failures_by_how_far_they_got():
    table = [
        obs(1, BUILD_FAILED),
        obs(2, RACE),
        obs(3, passed({2: 1.5, 4: 2.0})),
        obs(4, None),
        obs(5, WRONG),
        obs(6, passed({4: 3.1}, race_checked=False)),
        obs(7, passed({4: 3.1})),
        obs(8, NOT_PARALLEL),
        obs(9, passed({4: 2.0})),
        obs(10, CRASHED),
    ]
    assert ids(rank(table)) == [7, 3, 9, 6, 2, 5, 10, 8, 1, 4]
    assert best(table) is table[6]
    assert best([obs(1, RACE), obs(2, WRONG)]) is None
    assert best([]) is None


def ledger(**budget) -> Ledger:
    return Ledger(Budget(**budget), clock=lambda: 0.0)


@pytest.mark.parametrize(
    ("observations", "budget", "spent", "action", "repair", "words"),
    [
        ([obs(1, WRONG), obs(2, passed({4: 2.5}))], {}, {}, "finish", [], "Candidate 2 passed with a 2.50x speedup."),
        ([obs(1, passed({}))], {"tokens": 10}, {"tokens": 10}, "finish", [], "Candidate 1 passed (not timed)."),
        ([obs(1, RACE)], {"tokens": 100}, {"tokens": 100}, "finish", [],
         "Stopping: the token budget of 100 spent, and no candidate passed (the furthest, candidate 1, race)."),
        ([obs(1, BUILD_FAILED), obs(2, RACE), obs(3, WRONG)], {}, {}, "repair", [2, 3],
         "No candidate passed yet; repairing 2 candidates: 2 (race), 3 (wrong answer) (1 repair round left after this)."),
        ([obs(1, WRONG, "same"), obs(2, WRONG, "same"), obs(3, BUILD_FAILED)], {}, {"repairs": 1}, "repair", [1, 3],
         "No candidate passed yet; repairing 2 candidates: 1 (wrong answer), 3 (build failed) (0 repair rounds left after this)."),
        ([obs(1, BUILD_FAILED)], {"repairs": 2}, {}, "repair", [1], "repairing 1 candidate: 1 (build failed)"),
        ([obs(1, NO_CODE), obs(2, None)], {}, {}, "replan", [], "No candidate built; planning again"),
        ([obs(1, WRONG)], {}, {"repairs": 2}, "finish", [],
         "No candidate passed and no repair rounds are left (the furthest, candidate 1, wrong answer)."),
        ([obs(1, BUILD_FAILED)], {}, {"repairs": 2}, "replan", [], "No candidate built; planning again (0 replans left after this)."),
        ([], {"replans": 2}, {}, "replan", [], "The plan made no candidates; planning again (1 replan left after this)."),
        ([], {}, {"replans": 1}, "finish", [], "No candidate passed and no replans are left (no candidates were made)."),
        ([obs(1, None)], {}, {}, "replan", [], "No candidate built"),
        ([obs(1, NOT_RUN)], {}, {}, "finish", [],
         "No candidate passed and no failure left evidence worth a repair (the furthest, candidate 1, not run)."),
    ],
)  # fmt: skip
def test_decide(observations, budget, spent, action, repair, words):
    led = ledger(**budget)
    led.spent = led.spent.model_copy(update=spent)
    decision = decide(observations, led)
    assert decision.action == action
    assert ids(decision.repair) == repair
    assert words in decision.reason


def test_repair_width_bounds_the_repairs():
    table = [obs(i, WRONG) for i in range(1, 6)]
    assert ids(decide(table, ledger(), repair_width=3).repair) == [1, 2, 3]


def test_evidence_of_a_build_failure_lists_errors_first_with_their_lines():
    text = evidence(BUILD_FAILED)
    assert text.splitlines() == [
        "Verdict: build_failed: main.c:14:5: error: 'i' undeclared",
        "Compiler diagnostics:",
        "- main.c:14:5: error: 'i' undeclared (first use in this function)",
        "- main.c:9:9: warning: unused variable 'n'",
    ]


def test_evidence_of_a_wrong_answer_names_the_difference_and_the_input():
    text = evidence(WRONG)
    assert (
        "Failing test runs (1 of 2):\n- test 'small' at 4 workers: line 2: expected '5050', got '4912'"
        in text
    )
    assert "First failing run: OMP_NUM_THREADS=4 ./cand 100 < small.in" in text
    assert "right at 1" in text


def test_evidence_of_a_crash_shows_the_last_attempt_and_its_error_output():
    text = evidence(CRASHED)
    assert "First failing run: mpirun -np 2 ./cand 1000 (again)" in text
    assert "Its error output: rank 1: Segmentation fault (core dumped)" in text


def test_evidence_of_a_race_gives_both_accesses():
    text = evidence(RACE)
    assert (
        "- data race at main.c:12 (archer-tsan, 4 workers): data race on `sum`: write by thread T2"
        " at main.c:12 vs previous write by thread T1 at main.c:12"
    ) in text
    assert "Tests: all 1 runs agree with the reference" in text


def test_evidence_of_other_verdicts():
    assert "timed out: no end within 20s" in evidence(TIMED_OUT)
    assert "Source check: no `#pragma omp` in the source" in evidence(NOT_PARALLEL)
    assert "Tests not run: no GPU" in evidence(NOT_RUN)
    assert evidence(passed({1: 0.9, 4: 3.2})).endswith(
        "Speedups by thread/rank count: 1: 0.90x, 4: 3.20x"
    )


def test_evidence_is_cut_to_its_limit():
    many = BUILD_FAILED.model_copy(deep=True)
    assert many.build is not None
    many.build.diagnostics = [
        Diagnostic(severity="error", message="x" * 300, file="main.c", line=n) for n in range(40)
    ]
    text = evidence(many, max_chars=500)
    assert len(text) <= 500 and text.endswith("[evidence cut]")
    assert "(+35 more)" in evidence(many, max_chars=10_000)


def test_faster_needs_every_paired_run_to_beat_the_original_and_top_speedup_the_top_count():
    def passed(speedup: dict[int, float], spread: dict[int, list[float]], **kw: object) -> Verdict:
        timing = Timing(reference_s=1.0, speedup=speedup, spread=spread, **kw)  # type: ignore[arg-type]
        return Verdict(target=Target.OPENMP, status=Status.PASSED, timing=timing)

    clear = passed({1: 1.0, 2: 1.6}, {1: [0.97, 1.02], 2: [1.4, 1.7]})
    noisy = passed({1: 1.0, 2: 1.1}, {1: [0.97, 1.02], 2: [0.96, 1.2]})
    assert faster(clear) and not faster(noisy)
    assert top_speedup(clear) == 1.6
    # 4 threads on 2 cores: the top count the cores allow is 2.
    capped = passed({2: 1.5, 4: 1.3}, {2: [1.4, 1.6], 4: [1.2, 1.4]}, cores=2.0)
    assert top_speedup(capped) == 1.5
    assert not faster(Verdict(target=Target.OPENMP, status=Status.WRONG_ANSWER))
    assert top_speedup(None) == 0.0
