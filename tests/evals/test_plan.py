"""Which tasks a run works on, and with which prompts: generation and translation runs."""

from __future__ import annotations

import pytest

from corpus.suites import load_suite
from evals.errors import EvalSetupError
from evals.plan import select_problems, tasks_of
from sandbox.spec import Target


def test_generation_runs_use_each_problems_own_prompt() -> None:
    suite = load_suite("pareval")
    tasks = tasks_of(suite, Target.OPENMP, ["03_dense_la_axpy"])
    assert tasks[0].prompt_for(Target.OPENMP) == suite.task("03_dense_la_axpy").prompt_for("openmp")


@pytest.mark.parametrize(
    ("source", "target", "count"),
    [("serial", Target.OPENMP, 49), ("serial", Target.MPI, 49), ("cuda", Target.OPENMP, 60)],
)
def test_translation_runs_use_the_translation_prompts(
    source: str, target: Target, count: int
) -> None:
    suite = load_suite("pareval")
    tasks = tasks_of(suite, target, None, source)
    assert len(tasks) == count == len(select_problems(suite, target, translate_from=source))
    for task in tasks:
        translation = suite.translation(f"{task.name}:{source}->{target.value}")
        assert task.prompt_for(target) == translation.prompt
        # The check is the generation task's: same reference, same tests.
        assert task.spec_for(target) == suite.task(task.name).spec_for(target)
    # The suite itself is left as it was.
    assert suite.task(tasks[0].name).prompt_for(target) != tasks[0].prompt_for(target)


def test_a_problem_without_that_translation_is_a_setup_error() -> None:
    suite = load_suite("pareval")
    untranslatable = {
        t.problem for t in suite.translations if t.source_model == "serial" and not t.supported
    }
    assert untranslatable
    problem = sorted(untranslatable)[0]
    with pytest.raises(EvalSetupError, match="serial->openmp translation task named"):
        tasks_of(suite, Target.OPENMP, [problem], "serial")
    with pytest.raises(EvalSetupError, match="cuda->mpi translation tasks"):
        select_problems(suite, Target.MPI, translate_from="cuda")


def test_the_progress_line_counts_in_the_reports_words():
    """A racy sample is correct (pass@k counts it) but not race-free; a sample that could not
    run is neither a pass nor a failure. The line once said "passed 0 · failed 3" of a run whose
    pass@1 was 66.7 %."""
    from evals.plan import Progress

    progress = Progress(total=5)
    for status, correct in (("race", True), ("race", True), ("wrong_answer", False)):
        progress.add(status, correct)
    progress.add("not_run")
    progress.add("sanitizer_error", correct=False)  # refused before its tests ran
    assert (progress.correct, progress.race_free, progress.not_run) == (2, 0, 1)
    assert progress.line() == ("generated 0 · correct 2 (race-free 0) · failed 2 · not run 1")
