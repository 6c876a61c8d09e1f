"""`parforge verify` and `parforge check race`: prove a candidate, or race-check a program.

Exit codes of `verify`: 0 passed, 1 the candidate failed, 2 verification could not run (bad
spec, broken reference, missing GPU or tool, sandbox failure). `check race` exits 0 whatever
it finds and 2 only when the check itself could not run.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Protocol, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from parforge.cli._common import console, fail, run, settings
from parforge.specfile import SpecFileError, language_of, load_spec
from sandbox.config import RayConfig
from sandbox.errors import SandboxError, SandboxUnavailable
from sandbox.spec import Candidate, Language, Target, TestCase
from sandbox.verdict import Finding, Status, Verdict

if TYPE_CHECKING:
    from parforge.settings import Settings
    from sandbox.base import Sandbox
    from sandbox.verify.race import RaceCheckResult

CANNOT_RUN = 2
_NOT_VERIFIED = {Status.NOT_RUN, Status.REFERENCE_FAILED}
_STYLE = {Status.PASSED: "bold green", Status.NOT_RUN: "bold yellow"}

check_app = typer.Typer(help="Check programs for concurrency defects.", no_args_is_help=True)

T = TypeVar("T")
R = TypeVar("R", bound="_Closable")


class _Closable(Protocol):
    async def aclose(self) -> None: ...


def _with(open_it: Callable[[], R], work: Callable[[R], Awaitable[T]]) -> T:
    """`work` on a verifier or sandbox opened for it and closed after; a sandbox failure is a
    message and exit code 2."""

    async def go() -> T | SandboxError:
        try:
            resource = open_it()
        except SandboxError as exc:
            return exc
        try:
            return await work(resource)
        except SandboxError as exc:
            return exc
        finally:
            await resource.aclose()

    result = run(go())
    if isinstance(result, SandboxError):
        fail(str(result), CANNOT_RUN)
    return result


def _local_sandbox(config: Settings) -> Sandbox:
    """This host's sandbox: a race check runs in a workspace here, never on a cluster."""
    from sandbox.backends import open_sandbox

    if isinstance(config.sandbox, RayConfig):
        raise SandboxUnavailable(
            "the race check runs in this host's sandbox; the configured sandbox is a Ray "
            "cluster (set PARFORGE_SANDBOX__TYPE=docker for this command)"
        )
    return open_sandbox(config.sandbox)


def verify(
    spec_path: Annotated[Path, typer.Option("--spec", help="Spec file (TOML or JSON).")],
    candidate_path: Annotated[Path, typer.Option("--candidate", help="Candidate source file.")],
    target: Annotated[Target, typer.Option("--target", help="Execution model of the candidate.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
    timing: Annotated[bool, typer.Option("--timing/--no-timing", help="Measure speedups.")] = True,
) -> None:
    """Build, test, race-check and time a candidate against a spec's reference."""
    from parforge.model_server.pause import timing_pause
    from sandbox.verify.gate import TimingGate
    from sandbox.verify.verifier import open_verifier

    try:
        spec = load_spec(spec_path)
        source = candidate_path.read_text()
    except SpecFileError as exc:
        fail(str(exc), CANNOT_RUN)
    except OSError as exc:
        fail(f"cannot read candidate {candidate_path}: {exc.strerror}", CANNOT_RUN)
    language = language_of(candidate_path)
    if target is not Target.CUDA and language is Language.CUDA:
        language = None
    candidate = Candidate(target=target, source=source, language=language)

    config = settings()
    with console.status(f"verifying {candidate_path.name} against {spec.name} ({target.value})"):
        verdict = _with(
            lambda: open_verifier(config.sandbox),
            lambda verifier: verifier.verify(
                spec,
                candidate,
                timing=timing,
                options=config.verify,
                timing_gate=TimingGate(timing_pause(config.model, config.data_dir)),
            ),
        )
    if as_json:
        typer.echo(verdict.model_dump_json(indent=2))
    else:
        show_verdict(Console(), verdict, spec.name)
    if verdict.passed:
        raise typer.Exit(0)
    raise typer.Exit(CANNOT_RUN if verdict.status in _NOT_VERIFIED else 1)


@check_app.command("race")
def race(
    file: Annotated[Path, typer.Argument(help="An OpenMP program (.c or .cpp) with a main.")],
    threads: Annotated[
        str, typer.Option("--threads", help="Thread counts, comma-separated.")
    ] = "2,4,3,8",
    args: Annotated[
        list[str] | None, typer.Option("--arg", help="An argument for the program (repeatable).")
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds for one instrumented run.")
    ] = 60.0,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON: race, findings, runs.")
    ] = False,
) -> None:
    """Race-check an OpenMP program: Archer/TSan over thread counts and schedules, plus a static pass."""
    from sandbox.verify.race import check_program

    try:
        counts = [int(t) for t in threads.split(",") if t.strip()]
        source = file.read_text()
    except ValueError:
        fail(f"--threads must be comma-separated integers, not {threads!r}", CANNOT_RUN)
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror}", CANNOT_RUN)
    if not counts or min(counts) < 1:
        fail("--threads needs at least one positive count", CANNOT_RUN)
    if file.suffix.lower() not in (".c", ".cpp", ".cc", ".cxx"):
        fail(f"{file.name}: expected a .c or .cpp file", CANNOT_RUN)

    loaded = settings()
    config = loaded.verify.race.model_copy(update={"threads": counts, "timeout_s": timeout})
    with console.status(f"race-checking {file.name}"):
        result = _with(
            lambda: _local_sandbox(loaded),
            lambda sandbox: check_program(
                sandbox,
                source,
                file.name,
                config=config,
                case=TestCase(name="run", args=args or []),
            ),
        )
    if as_json:
        typer.echo(json.dumps(result.model_dump(mode="json", exclude={"steps"}), indent=2))
    else:
        _show_race(Console(), result)
    if result.race is None:
        raise typer.Exit(CANNOT_RUN)


def show_verdict(out: Console, v: Verdict, against: str) -> None:
    """A verdict, stage by stage (also used by `parforge tasks show`).

    Everything a program or a user wrote (reasons, diagnostics, findings, names) is printed as
    text, never parsed as Rich markup: a `[/]` in a candidate's stderr must not crash the CLI.
    """
    style = _STYLE.get(v.status, "bold red")
    out.print(
        f"[{style}]{v.status.value.upper()}[/]  {v.target.value} candidate vs {escape(against)}"
    )
    if v.reason:
        out.print(f"  {v.reason}", markup=False, highlight=False)
    if v.build is not None:
        out.print(
            f"\n[bold]build[/] {'ok' if v.build.ok else 'failed'}, {len(v.build.diagnostics)} diagnostic(s)"
        )
        for d in v.build.diagnostics[:10]:
            where = f"{d.file}:{d.line}" if d.file and d.line else (d.file or "")
            out.print(f"  {d.severity:7} {where} {d.message}", markup=False, highlight=False)
        if v.build.kernels:
            table = Table("kernel", "registers", "shared B", "stack B", "spill st/ld B")
            for k in v.build.kernels:
                spill = f"{k.spill_stores_bytes}/{k.spill_loads_bytes}"
                table.add_row(
                    Text(k.name), str(k.registers), str(k.shared_bytes), str(k.stack_bytes), spill
                )
            out.print(table)
    if v.source_check is not None:
        shown = ", ".join(v.source_check.found[:5]) or v.source_check.message
        out.print(
            f"[bold]source[/] {'ok' if v.source_check.ok else 'not parallel'}: {escape(shown)}",
            highlight=False,
        )
    if v.equivalence is not None:
        eq = v.equivalence
        if eq.not_run:
            out.print(f"[bold]tests[/] {escape(eq.not_run)}", highlight=False)
        else:
            passed = sum(o.ok for o in eq.outcomes)
            hidden = ""
            if v.hidden is not None:
                hidden = f" ({v.hidden.tests} hidden input(s), seed {v.hidden.seed})"
            out.print(
                f"[bold]tests[/] {passed}/{len(eq.outcomes)} runs agree with the reference{hidden}"
            )
            for o in [o for o in eq.outcomes if not o.ok][:5]:
                out.print(f"  {o.test} @ {o.workers}: {o.reason}", markup=False, highlight=False)
    if v.concurrency is not None:
        c = v.concurrency
        head = c.not_run or (
            f"clean over {c.runs} run(s)" if c.ok else f"{len(c.findings)} finding(s)"
        )
        tools = escape(", ".join(c.tools) or "-")
        out.print(f"[bold]concurrency[/] ({tools}): {escape(head)}", highlight=False)
        if c.findings:
            out.print(_findings_table(c.findings))
    if v.timing is not None:
        t = v.timing
        table = Table(
            "workers",
            "cpus",
            "median s",
            "speedup",
            "paired range",
            "other load",
            "flag",
            caption=f"reference {t.reference_s:.4f}s ({t.source} time, timed in turns)",
        )
        for n, secs in t.candidate_s.items():
            low, high = t.spread.get(n, [0.0, 0.0])
            load = t.foreign_load.get(n)
            flags = [f for f, on in (("above cores", n in t.above_cores),
                                     ("disturbed", n in t.disturbed)) if on]  # fmt: skip
            table.add_row(
                str(n),
                str(t.pinned.get(n, "-")),
                f"{secs:.4f}",
                f"{t.speedup.get(n, 0.0):.2f}x",
                f"{low:.2f}-{high:.2f}x" if n in t.spread else "-",
                f"{load:.2f} cores" if load is not None else "-",
                ", ".join(flags),
            )
        out.print(table)
        for note in t.notes:
            out.print(f"  {note}", markup=False, highlight=False)
    for note in v.lint:
        out.print(f"[bold yellow]spec[/] {escape(note)}", highlight=False)
    backend = v.sandbox.backend if v.sandbox else "?"
    out.print(f"\n{len(v.steps)} steps in {v.duration_s:.1f}s on the {backend} sandbox")


def _show_race(out: Console, r: RaceCheckResult) -> None:
    if r.race is None:
        out.print(f"[bold yellow]NOT RUN[/] {escape(f'{r.file}: {r.not_run}')}", highlight=False)
        return
    verdict = "[bold red]RACE[/]" if r.race else "[bold green]NO RACE FOUND[/]"
    detail = f"{r.file} ({r.runs} instrumented runs, {', '.join(r.tools)}, {r.duration_s:.1f}s)"
    out.print(f"{verdict} {escape(detail)}")
    if r.findings:
        out.print(_findings_table(r.findings))


def _findings_table(findings: list[Finding]) -> Table:
    table = Table("kind", "where", "variable", "threads", "message")
    for f in findings[:20]:
        where = f"{f.file or ''}:{f.line}" if f.line else (f.file or "")
        workers = str(f.workers) if f.workers else ""
        table.add_row(
            *(Text(cell) for cell in (f.kind, where, f.variable or "", workers, f.message))
        )
    return table
