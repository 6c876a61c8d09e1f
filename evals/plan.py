"""What a run has to do: its tasks, and per task which samples to generate or verify (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from corpus.store.models import EvalResultRow
from corpus.suites import Suite
from corpus.tasks import SuiteTask
from evals.errors import EvalSetupError
from evals.outcomes import GENERATED, is_finished
from evals.summary import SampleOutcome
from sandbox.spec import Target
from sandbox.verdict import Status


def select_problems(
    suite: Suite,
    target: Target,
    patterns: Sequence[str] = (),
    limit: int | None = None,
    translate_from: str | None = None,
) -> list[str]:
    """Names of the suite's tasks for `target` matching any glob (all when none), at most `limit`."""
    names = [t.name for t in _candidates(suite, target, translate_from)]
    if patterns:
        names = [n for n in names if any(fnmatchcase(n, p) for p in patterns)]
    if limit is not None:
        names = names[:limit]
    if not names:
        wanted = f" matching {', '.join(patterns)}" if patterns else ""
        kind = kind_label(target, translate_from)
        raise EvalSetupError(f"suite {suite.name} has no {kind} tasks{wanted}")
    return names


def tasks_of(
    suite: Suite,
    target: Target,
    problems: Sequence[str] | None,
    translate_from: str | None = None,
) -> list[SuiteTask]:
    """The run's tasks: the named problems (all of the suite's for `target` when None).

    With `translate_from`, each task's `target` prompt is its translation prompt, so samples
    sources (prompt mode, replay, agents) need not know the difference."""
    available = _candidates(suite, target, translate_from)
    kind = kind_label(target, translate_from)
    if problems is None:
        tasks = available
    else:
        known = {t.name: t for t in available}
        missing = [p for p in problems if p not in known]
        if missing:
            raise EvalSetupError(
                f"suite {suite.name} has no {kind} task named {', '.join(missing[:5])}"
            )
        tasks = [known[p] for p in problems]
    if not tasks:
        raise EvalSetupError(f"suite {suite.name} has no {kind} tasks")
    return tasks


def kind_label(target: Target | str, translate_from: str | None) -> str:
    """`openmp`, or `serial->openmp translation` for a translation run."""
    return f"{translate_from}->{target} translation" if translate_from else str(target)


def _candidates(suite: Suite, target: Target, translate_from: str | None) -> list[SuiteTask]:
    """The suite's tasks for `target`, with translation prompts when `translate_from` is set."""
    if translate_from is None:
        return suite.tasks_for(target)
    prompts = {
        t.problem: t.prompt
        for t in suite.translations
        if t.supported and t.source_model == translate_from and t.target_model == target.value
    }
    return [
        task.model_copy(
            update={
                "targets": {
                    **task.targets,
                    target: task.targets[target].model_copy(update={"prompt": prompts[task.name]}),
                }
            }
        )
        for task in suite.tasks_for(target)
        if task.name in prompts
    ]


@dataclass
class TaskWork:
    """One task's share of the run."""

    task: SuiteTask
    generate: list[int]
    """Sample indices with nothing stored yet."""
    verify: list[EvalResultRow]
    """Stored samples waiting for verification (generated before an interruption)."""


def plan(
    tasks: Iterable[SuiteTask], samples: int, stored: Iterable[EvalResultRow]
) -> list[TaskWork]:
    """What is left to do, given what the store already holds (finished samples are skipped)."""
    by_problem: dict[str, dict[int, EvalResultRow]] = {}
    for row in stored:
        by_problem.setdefault(row.problem, {})[row.sample_index] = row
    work = []
    for task in tasks:
        have = by_problem.get(task.name, {})
        generate = [i for i in range(samples) if i not in have]
        verify = [have[i] for i in range(samples) if i in have and have[i].status == GENERATED]
        if generate or verify:
            work.append(TaskWork(task, generate, verify))
    return work


@dataclass
class Progress:
    """Where a run stands; stored with the run and shown by progress bars."""

    total: int
    generated: int = 0
    """Samples stored (with a source or with the reason there is none)."""
    finished: int = 0
    """Samples that need nothing more (verified, or impossible to produce)."""
    statuses: dict[str, int] = field(default_factory=dict)
    correct: int = 0
    """Samples that agreed with the reference on every test: what pass@k counts (not a status:
    a candidate the integrity check refused before any test ran ends `sanitizer_error` too)."""

    @classmethod
    def of(cls, total: int, stored: Iterable[EvalResultRow]) -> Progress:
        progress = cls(total=total)
        for row in stored:
            progress.generated += 1
            if is_finished(row):
                progress.add(row.status, bool(row.verdict.get("correct", False)))
        return progress

    def add(self, status: str, correct: bool = False) -> None:
        self.finished += 1
        self.statuses[status] = self.statuses.get(status, 0) + 1
        self.correct += correct

    @property
    def race_free(self) -> int:
        """Samples that passed every check (tests, race check, sanitizers): race-free@k."""
        return self.statuses.get(Status.PASSED.value, 0)

    @property
    def not_run(self) -> int:
        """Samples whose tests could not run here (no GPU, a broken reference): neither."""
        return sum(self.statuses.get(s.value, 0) for s in (Status.NOT_RUN, Status.REFERENCE_FAILED))

    def line(self) -> str:
        """The counts in the report's words: `correct` is pass@k's sense of a pass."""
        failed = self.finished - self.correct - self.not_run
        shown = (
            f"generated {self.generated} · correct {self.correct} "
            f"(race-free {self.race_free}) · failed {failed}"
        )
        return shown + (f" · not run {self.not_run}" if self.not_run else "")

    def as_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "generated": self.generated,
            "finished": self.finished,
            "statuses": dict(self.statuses),
            "correct": self.correct,
        }


def default_resources(outcomes: Iterable[SampleOutcome]) -> int | None:
    """The largest thread/rank count any sample was timed at (None: nothing was timed)."""
    counts = {n for o in outcomes for n in o.speedups}
    return max(counts) if counts else None
