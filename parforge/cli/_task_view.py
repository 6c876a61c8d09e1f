"""How `parforge tasks show` prints a task: its runs, every candidate's status, and the best
candidate's verdict and code (or, when none passed, those of the one that got furthest)."""

from __future__ import annotations

from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from agents.core import faster
from corpus.store.models import CandidateWithVerdict, RunPublic, TaskDetail
from parforge.cli._status import styled
from parforge.cli.verify_cmd import show_verdict
from sandbox.verdict import Status, Verdict

# How far a candidate got through the verification pipeline, to pick the one to show when
# none passed (a race means it built, ran and agreed with the original before it failed).
_STAGE = {
    Status.BUILD_FAILED: 1,
    Status.NOT_PARALLEL: 2,
    Status.CRASHED: 3,
    Status.TIMED_OUT: 3,
    Status.WRONG_ANSWER: 3,
    Status.RACE: 4,
    Status.DEADLOCK: 4,
    Status.SANITIZER_ERROR: 4,
    Status.NOT_RUN: 5,
    Status.PASSED: 6,
}
_LEXER = {"c": "c", "cpp": "cpp", "cuda": "cuda"}
SHOWN_LINES = 80
"""Lines of code printed; `--json` has all of it."""


def _stage(c: CandidateWithVerdict) -> int:
    if c.verdict is None:
        return 0
    try:
        return _STAGE.get(Status(c.verdict.status), 0)
    except ValueError:
        return 0


def _featured(
    task: TaskDetail, candidates: list[CandidateWithVerdict]
) -> tuple[str, CandidateWithVerdict] | None:
    best = next((c for c in candidates if c.id == task.best_candidate_id), None)
    if best is not None:
        return "best candidate", best
    judged = [c for c in candidates if c.verdict is not None]
    if not judged:
        return None
    # The first of those that got furthest: the order they were made breaks ties.
    furthest = max(judged, key=lambda c: (_stage(c), -(c.id or 0)))
    return "no candidate passed; the one that got furthest", furthest


def show_task(
    out: Console,
    task: TaskDetail,
    runs: list[RunPublic],
    candidates: list[CandidateWithVerdict],
    code: bool = True,
) -> None:
    """Print a task for people (the JSON form is `--json`); what users and programs wrote is
    printed as text, never as Rich markup."""
    agent = task.agent or "default"
    out.print(
        f"[bold]{task.id}[/] {escape(f'{task.name} ({task.language} → {task.target}, agent {agent})')}:"
        f" {styled(task.status)}" + escape(f" — {task.reason}" if task.reason else ""),
        highlight=False,
    )
    for r in runs:
        model = r.model + (f" + {r.adapter}" if r.adapter else "") if r.model else "-"
        out.print(
            f"run {r.id} (attempt {r.attempt}): {escape(f'{r.runner}, model {model}')},"
            f" {styled(r.status)}",
            highlight=False,
        )
    if not candidates:
        return
    table = Table("candidate", "run", "strategy", "verdict", "speedup", "reason")
    for c in candidates:
        v = c.verdict
        table.add_row(
            str(c.id) + (" *" if c.id == task.best_candidate_id else ""),
            str(c.run_id),
            Text(c.strategy),
            Text(v.status if v else "-"),
            f"{v.best_speedup:.2f}x" if v and v.passed else "-",
            Text(v.reason.splitlines()[0][:70] if v and v.reason else ""),
        )
    out.print(table)
    featured = _featured(task, candidates)
    if featured is None:
        return
    title, candidate = featured
    out.print(f"\n[bold]{title}: {candidate.id}[/]")
    if candidate.verdict is not None:
        try:
            verdict = Verdict.model_validate(candidate.verdict.data)
        except ValidationError:
            out.print(
                f"{candidate.verdict.status}: {candidate.verdict.reason}",
                markup=False,
                highlight=False,
            )
        else:
            show_verdict(out, verdict, f"{task.name} (sequential)")
            if verdict.passed and not faster(verdict):
                # Said wherever a result is shown, as translate says it.
                out.print(
                    "[bold yellow]warning[/]: verified, but not faster than the original "
                    "(every paired timing run at its best count must beat it)",
                    highlight=False,
                )
    if code:
        language = _LEXER.get(str(candidate.language or task.language), "c")
        out.print()
        lines = candidate.source.splitlines()
        if not candidate.source.strip():
            out.print("(no code)")
            return
        from rich.syntax import Syntax  # Pygments: only when code is shown

        shown = "\n".join(lines[:SHOWN_LINES])
        out.print(Syntax(shown, language, line_numbers=True, word_wrap=True))
        if len(lines) > SHOWN_LINES:
            out.print(f"... {len(lines) - SHOWN_LINES} more lines (--json shows them all)")
