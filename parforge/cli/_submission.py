"""The options of a translation task, one spelling for both commands that submit one
(`parforge translate`, `parforge tasks submit`), and the task they describe.

One name per concept across the CLI: `--target` (as in `verify`, `eval run`, `export`, `tasks
list` and the API's `target`), `--budget-tokens` (model tokens of the whole task) and
`--budget-time` (its wall-clock seconds), `--max-tokens` (completion tokens of one model call, as
in `eval run`), `--samples` (candidates, as `eval run`'s samples per problem). Old spellings
(`--to`, `--time-limit`) still work, hidden, with a deprecation line on stderr, until 0.2.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Annotated

import typer

from corpus.store.models import Budgets, ParallelTarget, TaskCreate, TaskOptions, TestInput
from parforge.cli._common import console, fail
from sandbox.spec import Language

REMOVED_IN = "0.2"
"""The version that drops the deprecated spellings."""

TargetOption = Annotated[
    ParallelTarget | None, typer.Option("--target", help="openmp, mpi or cuda. [required]")
]
ToAlias = Annotated[ParallelTarget | None, typer.Option("--to", hidden=True)]
LanguageOption = Annotated[
    Language | None, typer.Option(help="c, cpp or cuda (default: from the file suffix).")
]
FunctionOption = Annotated[
    str | None, typer.Option(help="Parallelise this function (default: the agent looks).")
]
TestOption = Annotated[
    list[str] | None,
    typer.Option(
        "--test", help="A test's arguments, shell-quoted (repeatable; the last is timed)."
    ),
]
TestsOption = Annotated[
    Path | None, typer.Option(exists=True, help="JSON list of {name, args, stdin}.")
]
RtolOption = Annotated[
    float | None, typer.Option(min=0, help="Compare numbers with this relative tolerance.")
]
SamplesOption = Annotated[
    int | None, typer.Option(min=1, max=64, help="Candidates to make (default: 4).")
]
MaxTokensOption = Annotated[
    int | None, typer.Option(min=1, help="Completion tokens of one model call.")
]
BudgetTokensOption = Annotated[
    int | None, typer.Option(min=1, help="Model tokens of the whole task.")
]
BudgetTimeOption = Annotated[
    float | None, typer.Option(min=1, help="Wall-clock seconds of the whole task.")
]
TimeLimitAlias = Annotated[float | None, typer.Option("--time-limit", min=1, hidden=True)]
ReasoningThreadsOption = Annotated[
    int | None,
    typer.Option(
        min=0, max=16, help="Parallel reasoning threads beside the plan, one per strategy outline."
    ),
]
EvolveOption = Annotated[
    bool,
    typer.Option(
        "--evolve", help="Evolve the first verified program for speed (default: settings)."
    ),
]
GenerationsOption = Annotated[
    int | None,
    typer.Option(min=1, max=100, help="Generations of that evolution (implies --evolve)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
StartModelOption = Annotated[
    bool | None,
    typer.Option(
        "--start-model/--no-start-model",
        help="Start the embedded model server when no endpoint is configured and none runs "
        "(default: settings, on).",
    ),
]


def deprecated(old: str, new: str) -> None:
    console.print(
        f"[yellow]warning:[/] {old} is deprecated: use {new} ({old} goes in {REMOVED_IN})",
        highlight=False,
    )


def chosen_target(target: ParallelTarget | None, to: ParallelTarget | None) -> ParallelTarget:
    """`--target`, or the deprecated `--to`; exit 2 without either, or with two that differ."""
    if to is not None:
        deprecated("--to", "--target")
        if target is not None and target is not to:
            fail(f"--target {target.value} and --to {to.value} disagree: give --target only", 2)
    chosen = target or to
    if chosen is None:
        fail("missing option --target (openmp, mpi or cuda)", 2)
    return chosen


def chosen_time(budget_time: float | None, time_limit: float | None) -> float | None:
    """`--budget-time`, or the deprecated `--time-limit`."""
    if time_limit is not None:
        deprecated("--time-limit", "--budget-time")
    return budget_time if budget_time is not None else time_limit


def task_create(
    file: Path,
    *,
    target: ParallelTarget,
    language: Language,
    agent: str,
    tests: list[TestInput],
    function: str | None = None,
    rtol: float | None = None,
    samples: int | None = None,
    max_tokens: int | None = None,
    budget_tokens: int | None = None,
    budget_time: float | None = None,
    reasoning_threads: int | None = None,
    evolve: bool = False,
    generations: int | None = None,
) -> TaskCreate:
    """The task these options describe; exit 2 (with the field at fault) if it is invalid."""
    try:
        options = TaskOptions(
            function=function,
            rtol=rtol,
            reasoning_threads=reasoning_threads,
            # Unset unless asked for, so that the runner's default applies.
            evolve=True if evolve or generations is not None else None,
            generations=generations,
        )
        chosen = {} if samples is None else {"samples": samples}
        budgets = Budgets(time_s=budget_time, tokens=budget_tokens, max_tokens=max_tokens, **chosen)
        return TaskCreate(
            name=file.stem,
            source=file.read_text(errors="replace"),
            language=language,
            target=target,
            tests=tests or None,
            agent=agent,
            options=options,
            budgets=budgets,
        )
    except ValueError as exc:
        from pydantic import ValidationError

        from parforge.specfile import field_errors

        why = field_errors(exc) if isinstance(exc, ValidationError) else str(exc)
        fail(f"invalid task: {why}", 2)


SUFFIXES = {".c": "c", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".cu": "cuda"}


def language_of_file(file: Path, given: Language | None = None) -> Language:
    """The language `given`, else the one the file's suffix names; another suffix (a `.py`
    file) is bad input, said as such rather than parsed as C++ and refused for that."""
    if given is not None:
        return given
    language = SUFFIXES.get(file.suffix.lower())
    if language is None:
        known = ", ".join(SUFFIXES)
        fail(
            f"{file.name}: ParForge translates C, C++ and CUDA sources, named {known}",
            2,
        )
    return Language(language)


def read_tests(tests: Path | None, test: list[str] | None) -> list[TestInput]:
    """The tests of a submission: a JSON file of `{name, args, stdin}`, then `--test` argument
    strings (shell-quoted), numbered after the file's; exit 2 for either malformed."""
    try:
        listed = json.loads(tests.read_text()) if tests else []
        if not isinstance(listed, list):
            raise ValueError("a JSON list of {name, args, stdin} is expected")
        inputs = [TestInput.model_validate(t) for t in listed]
        return inputs + [
            TestInput(name=f"test-{len(inputs) + i + 1}", args=shlex.split(args))
            for i, args in enumerate(test or [])
        ]
    except ValueError as exc:  # JSON, pydantic and shlex errors alike
        from pydantic import ValidationError

        from parforge.specfile import field_errors

        why = field_errors(exc) if isinstance(exc, ValidationError) else str(exc)
        fail(f"invalid tests{f' in {tests}' if tests else ''}: {why}", 2)
