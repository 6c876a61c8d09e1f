"""What programs and users wrote is printed by the CLI as text: Rich markup in a candidate's
output (`[/]` closes a style that is not open and crashes Rich) is shown as it is."""

from __future__ import annotations

from datetime import UTC, datetime
from io import StringIO

from rich.console import Console

from corpus.store.models import CandidateWithVerdict, RunPublic, TaskDetail
from parforge.cli._task_view import show_task
from parforge.cli.verify_cmd import show_verdict
from sandbox.verdict import (
    BuildReport,
    ConcurrencyReport,
    Diagnostic,
    Equivalence,
    Finding,
    SourceCheck,
    Status,
    TestOutcome,
    Verdict,
)

HOSTILE = "stderr: [/] oops [bold]loud[/bold] [red]"
NOW = datetime(2025, 1, 1, tzinfo=UTC)


def _verdict() -> Verdict:
    return Verdict(
        target="openmp",
        status=Status.WRONG_ANSWER,
        reason=HOSTILE,
        build=BuildReport(ok=True, diagnostics=[Diagnostic(severity="warning", message=HOSTILE)]),
        source_check=SourceCheck(ok=True, found=[HOSTILE]),
        equivalence=Equivalence(
            ok=False, outcomes=[TestOutcome(test="[/]", ok=False, reason=HOSTILE)]
        ),
        concurrency=ConcurrencyReport(
            ok=False,
            tools=["[bold]"],
            findings=[Finding(kind="race", tool="tsan", message=HOSTILE)],
        ),
    )


def _console() -> tuple[Console, StringIO]:
    buffer = StringIO()
    return Console(file=buffer, width=400, color_system=None), buffer


def test_show_verdict_prints_markup_in_program_output_as_text():
    out, buffer = _console()
    show_verdict(out, _verdict(), "spec [/]")
    text = buffer.getvalue()
    assert text.count(HOSTILE) >= 4  # reason, diagnostic, source check, test outcome
    assert "spec [/]" in text and "([bold])" in text
    assert "[/] oops [bold]loud" in text  # the findings table cell


def test_tasks_show_prints_markup_in_names_reasons_and_verdicts_as_text():
    task = TaskDetail(
        id="a" * 32,
        name="[bold]name",
        agent="[/]agent",
        target="openmp",
        status="failed",
        reason=HOSTILE,
        created_at=NOW,
        started_at=NOW,
        finished_at=NOW,
        attempts=1,
        cancel_requested=False,
        budgets={},
        best_candidate_id=None,
        best_speedup=None,
        source="int main() {}",
        tests=None,
    )
    run = RunPublic(
        id=1,
        task_id=task.id,
        attempt=1,
        runner="[/]",
        status="failed",
        reason="",
        started_at=NOW,
        finished_at=NOW,
        model="m[/]",
    )
    verdict = _verdict()
    candidate = CandidateWithVerdict(
        id=1,
        task_id=task.id,
        run_id=1,
        created_at=NOW,
        target="openmp",
        source="int main() { /* [/] */ }",
        strategy="[/]",
        verdict={
            "id": 1,
            "candidate_id": 1,
            "created_at": NOW,
            "target": "openmp",
            "status": verdict.status.value,
            "passed": False,
            "reason": HOSTILE,
            "data": verdict.model_dump(mode="json"),
        },
    )
    out, buffer = _console()
    show_task(out, task, [run], [candidate])
    text = buffer.getvalue()
    assert f"[bold]name (cpp → openmp, agent [/]agent): failed — {HOSTILE}" in text
    assert "run 1 (attempt 1): [/], model m[/], failed" in text
    assert text.count(HOSTILE) >= 5
    assert "/* [/] */" in text


def test_tasks_show_says_when_the_best_program_is_not_faster():
    """As translate says it: verified is not faster, and `tasks show` does not hide it."""
    from sandbox.verdict import Timing

    def shown(speedup: float, lowest: float) -> str:
        verdict = Verdict(
            target="openmp",
            status=Status.PASSED,
            timing=Timing(
                reference_s=1.0,
                speedup={2: speedup},
                spread={2: [lowest, speedup]},
                candidate_s={2: 1 / speedup},
            ),
        )
        task = TaskDetail(
            id="b" * 32,
            name="sum",
            agent="graph",
            target="openmp",
            status="succeeded",
            reason="",
            created_at=NOW,
            started_at=NOW,
            finished_at=NOW,
            attempts=1,
            cancel_requested=False,
            budgets={},
            best_candidate_id=1,
            best_speedup=speedup,
            source="int main() {}",
            tests=None,
        )
        candidate = CandidateWithVerdict(
            id=1,
            task_id=task.id,
            run_id=1,
            created_at=NOW,
            target="openmp",
            source="int main() {}",
            strategy="annotate",
            verdict={
                "id": 1,
                "candidate_id": 1,
                "created_at": NOW,
                "target": "openmp",
                "status": "passed",
                "passed": True,
                "reason": "",
                "data": verdict.model_dump(mode="json"),
            },
        )
        out, buffer = _console()
        show_task(out, task, [], [candidate], code=False)
        return buffer.getvalue()

    assert "not faster than the original" in shown(0.8, 0.7)
    assert "not faster than the original" in shown(1.2, 0.9)  # one paired run lost
    assert "not faster" not in shown(1.9, 1.7)
