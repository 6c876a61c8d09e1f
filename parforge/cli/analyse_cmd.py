"""`parforge analyse FILE`: what the dependence analysis sees in a program, loop by loop (the
facts the agents work from): each loop's pattern, whether it may run in parallel and with which
OpenMP clauses, why, what the verdict assumes, and the elements of each array it touches."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from parforge.cli._common import fail

if TYPE_CHECKING:
    from agents.analysis.report import LoopReport, Report, Subscript

SUFFIXES = {
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".cu": "cuda",
}


def analyse(
    file: Annotated[Path, typer.Argument(help="A C, C++ or CUDA source file.")],
    function: Annotated[
        str | None, typer.Option(help="Only this function's loops (default: every function).")
    ] = None,
    language: Annotated[
        str | None,
        typer.Option(help="c, cpp or cuda (default: from the file's extension; else cpp)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show the loops of a program and what the dependence analysis says about each."""
    # The analysis imports the parser and its grammars: only when the command runs.
    from agents.analysis import InputError
    from agents.analysis import analyse as analyse_source
    from agents.analysis.report import report
    from sandbox.spec import Language

    try:
        chosen = Language(language or SUFFIXES.get(file.suffix.lower(), "cpp"))
    except ValueError:
        fail(f"invalid input: unknown language {language!r} (c, cpp or cuda)", 2)
    try:
        source = file.read_text(errors="replace")
    except OSError as exc:
        fail(f"invalid input: cannot read {file}: {exc.strerror or exc}", 2)
    try:
        program = analyse_source(source, chosen)
    except InputError as exc:
        fail(f"invalid input: {file}: {exc}", 2)
    if function is not None and program.function(function) is None:
        fail(f"invalid input: no function {function!r} in {file}", 2)
    found = report(program, function)
    if as_json:
        typer.echo(json.dumps({"file": str(file), **asdict(found)}, indent=2))
    else:
        typer.echo(listing(str(file), found))


def listing(file: str, found: Report) -> str:
    """The report as a few lines per loop (pure)."""
    lines = [f"{file} ({found.language}): {len(found.loops)} loops"]
    for loop in found.loops:
        lines += _loop_lines(loop)
    return "\n".join(lines)


def _loop_lines(loop: LoopReport) -> list[str]:
    verdict = "parallel" if loop.parallelisable else "sequential"
    if loop.directive is not None:
        verdict = f"as written (the program's own directive, line {loop.directive})"
    kind = loop.kind + (f" {' '.join(loop.reductions)}" if loop.reductions else "")
    indent = "  " * (loop.depth + 1)
    lines = [f"{indent}{loop.id} {loop.function}:{loop.line}  {kind}  {verdict}"]
    more = indent + "   "
    if loop.clauses:
        default = "" if loop.chosen else " (not chosen by default)"
        lines.append(f"{more}clauses: {' '.join(loop.clauses)}{default}")
    if loop.reason:
        lines.append(f"{more}why: {loop.reason}")
    lines += [f"{more}assumption: {assumption}" for assumption in loop.assumptions]
    for name, accesses in loop.accesses.items():
        said = [f"reads {_subscript(name, s)}" for s in dict.fromkeys(accesses.reads)]
        said += [f"writes {_subscript(name, s)}" for s in dict.fromkeys(accesses.writes)]
        lines.append(f"{more}{name}: {', '.join(said)}")
    return lines


def _subscript(name: str, subscript: Subscript) -> str:
    index = "".join(f"[{i}]" for i in subscript.index)
    ranges = [r if isinstance(r, str) else f"[{r[0]}, {r[1]}]" for r in subscript.ranges]
    return f"{name}{index} {' x '.join(ranges)}"
