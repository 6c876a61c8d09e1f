"""Refuse bad input before anything is stored: not C/C++, no `main`, an unknown function, and
(with a sandbox) an original that does not build, crashes or times out on its own tests."""

from __future__ import annotations

from agents.analysis import AnalysisError, Program, analyse
from agents.verifier import Verifier
from sandbox.spec import Candidate, Language, Spec, Target
from sandbox.verdict import Status


class InputRejected(ValueError):
    """The task cannot be translated as given; the message says why, for the user."""


def check_program(source: str, language: Language, function: str | None = None) -> Program:
    """The analysed program, or `InputRejected` naming the problem."""
    try:
        program = analyse(source, language)
    except AnalysisError as exc:
        raise InputRejected(
            f"not a {language.value} program the front end can read: {exc}"
        ) from exc
    if not program.has_main:
        raise InputRejected(
            "the program has no main(): give a complete program that prints its results"
        )
    if function is not None and program.function(function) is None:
        names = ", ".join(f.name for f in program.functions) or "none"
        raise InputRejected(f"no function {function!r} in the program (functions: {names})")
    return program


async def check_original(verifier: Verifier, spec: Spec) -> None:
    """Build and run the original against itself on its tests; `InputRejected` if it fails."""
    spec = spec.model_copy(update={"timing_repeats": 1})
    verdict = await verifier(spec, Candidate(target=Target.SERIAL, source=spec.reference))
    if verdict.status is Status.PASSED or verdict.status is Status.NOT_RUN:
        return
    if verdict.build is not None and not verdict.build.ok:
        first = (
            verdict.build.diagnostics[0].message if verdict.build.diagnostics else verdict.reason
        )
        raise InputRejected(f"the original program does not build: {first}")
    raise InputRejected(f"the original program fails on its own tests: {verdict.reason}")
