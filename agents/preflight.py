"""Refuse bad input before anything is stored: not C/C++, no `main`, an unknown function, and
(with a sandbox) an original that does not build, crashes or times out on its own tests."""

from __future__ import annotations

from pydantic import ValidationError

from agents.analysis import AnalysisError, Program, analyse
from agents.judge import Judge, check_against_itself
from corpus.store.models import TaskCreate
from sandbox.spec import Language, Spec
from sandbox.verdict import Status

_BROKEN = frozenset(
    {
        Status.BUILD_FAILED,
        Status.CRASHED,
        Status.TIMED_OUT,
        Status.WRONG_ANSWER,
        Status.REFERENCE_FAILED,
    }
)
"""Verdicts on the original against itself that mean it cannot be a reference."""


class InputRejected(ValueError):
    """The task cannot be translated as given; the message says why, for the user, and `field`
    which part of the submission it is about."""

    def __init__(self, message: str, field: str = "source") -> None:
        super().__init__(message)
        self.field = field


def check_task(task: TaskCreate) -> Program:
    """What a submission must be before it is stored: a spec that validates, if it gives one;
    a program the front end reads, with `main` unless the spec's driver brings its own; the
    function it names, if any. `InputRejected` says what is wrong."""
    options = task.options
    needs_main = True
    if options is not None and options.spec is not None:
        try:
            needs_main = Spec.model_validate(options.spec).driver is None
        except ValidationError as exc:
            raise InputRejected(
                f"options.spec is not a valid verifier spec: {exc}", "options.spec"
            ) from exc
    language = task.language
    function = options.function if options is not None else None
    return check_program(task.source, language, function, needs_main=needs_main)


def check_program(
    source: str, language: Language, function: str | None = None, *, needs_main: bool = True
) -> Program:
    """The analysed program, or `InputRejected` naming the problem."""
    try:
        program = analyse(source, language)
    except AnalysisError as exc:
        raise InputRejected(
            f"not a {language.value} program the front end can read: {exc}"
        ) from exc
    if needs_main and not program.has_main:
        raise InputRejected(
            "the program has no main(): give a complete program that prints its results"
        )
    if function is not None and program.function(function) is None:
        names = ", ".join(f.name for f in program.functions) or "none"
        raise InputRejected(
            f"no function {function!r} in the program (functions: {names})", "options.function"
        )
    return program


async def check_original(judge: Judge, spec: Spec) -> None:
    """Build and run the original against itself on its tests; `InputRejected` if it fails."""
    verdict = await check_against_itself(judge, spec)
    if verdict.status not in _BROKEN:
        # Only whether the original builds and runs its tests matters here; the candidate-only
        # checks (integrity, races) are not the user's program's business.
        return
    if verdict.build is not None and not verdict.build.ok:
        first = (
            verdict.build.diagnostics[0].message if verdict.build.diagnostics else verdict.reason
        )
        raise InputRejected(f"the original program does not build: {first}")
    raise InputRejected(f"the original program fails on its own tests: {verdict.reason}")
