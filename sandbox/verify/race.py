"""The OpenMP race checker: a static pass, then Archer + ThreadSanitizer over a matrix of runs.

One instrumented run at one thread count misses races that need a particular mapping of
iterations to threads, or a task running on another thread than the one that created it, and
it never sees a `simd` loop's lanes. So the checker:

1. runs the static pass (`omp_static`: simd dependences, ordered misuse and shared writes
   outside an ordered region, lastprivate with nowait, task results read before a taskwait);
   with `stop_at_first_race` a finding there ends the check;
2. adds `schedule(runtime)` to worksharing loops without a schedule (`omp_rewrite`), so that
   `OMP_SCHEDULE` can move iterations around (`default` runs keep the static split), and runs
   `target`/`teams`/`distribute` constructs as one team of threads, each thread a team (Archer
   crashes in libomp's host teams; races between teams become races between threads);
3. builds once with clang `-fsanitize=thread` (libomp loads Archer itself under TSan; the
   banner Archer prints with `ARCHER_OPTIONS=verbose=1` proves it did) and refuses an object
   that interferes (`sandbox.checkers.integrity`);
4. runs every (schedule, thread count, repeat) combination on its inputs, `parallel` at a time,
   stopping after the batch that first finds a race when `stop_at_first_race`; then the large
   inputs (the timing input) once, at the first thread count with the loops' own schedule and
   a longer limit: a program that races only where it is timed is checked there too.

What a run says is read from outside the program where it can be: TSan's exit status 66 is a
race even when its report was silenced; a run whose tool log does not prove TSan ran is `not
run`, never clean; the instrumented runs' outputs must match the reference's (a program that
behaves differently when it is checked fails); and the threads of the run's process tree are
counted: a program whose parallel regions never ran with more than one thread under the checker
is `not parallel`, however clean, because the check saw nothing it could vouch for.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from pydantic import BaseModel, Field

from sandbox.base import Sandbox
from sandbox.checkers import integrity, omp_rewrite, omp_static, tsan
from sandbox.checkers.compare import compare_outputs
from sandbox.checkers.diagnostics import parse_diagnostics, summarize
from sandbox.config import DEFAULT_SCHEDULE, RaceCheckConfig
from sandbox.errors import WorkspaceError
from sandbox.models import Command, CommandResult
from sandbox.spec import Language, TestCase, Tolerance
from sandbox.toolchains.base import OBJECT, Paths, Sources
from sandbox.toolchains.openmp import (
    TSAN_EXITCODE,
    tool_logs,
    tsan_compile,
    tsan_link,
    tsan_run,
)
from sandbox.verdict import ConcurrencyReport, Finding, StepRecord
from sandbox.verify.outcomes import CHECKED_DIFFERENTLY_KIND, NOT_PARALLEL_KIND, describe_exit
from sandbox.verify.steps import CommandLog

LARGE_TIMEOUT_FACTOR = 3.0
"""Instrumented runs on a large input get this many times `RaceCheckConfig.timeout_s`."""


@dataclass(frozen=True)
class Expected:
    """What the instrumented runs' outputs are compared with (the reference's answers)."""

    outputs: dict[str, str]
    tolerance: Tolerance | None = None
    hidden: frozenset[str] = frozenset()
    """Names of inputs whose outputs must not be shown."""


@dataclass(frozen=True)
class _Run:
    threads: int
    schedule: str
    case: TestCase
    repeat: int
    timeout_s: float

    @property
    def label(self) -> str:
        extra = f" #{self.repeat + 1}" if self.repeat else ""
        return f"race {self.threads}t {self.schedule} [{self.case.name}]{extra}"


@dataclass
class _Seen:
    """What the runs so far showed."""

    findings: dict[tuple[str, str | None, int | None, str | None], Finding]
    archer: bool = False
    runtime: bool = False
    parallel: bool = False
    counted: bool = False
    """Whether the backend counted threads at all (a run at 2 or more was seen running)."""
    most_threads: int = 0
    timed_out: list[str] | None = None
    runs: int = 0


async def check_races(
    rec: CommandLog,
    paths: Paths,
    program: Sources,
    files: dict[str, str],
    checked: list[str],
    inputs: list[TestCase],
    config: RaceCheckConfig,
    allowed: frozenset[str] | integrity.Allowances = frozenset(),
    *,
    large: list[TestCase] | None = None,
    expected: Expected | None = None,
    driver: bool = False,
) -> ConcurrencyReport:
    """Race-check one OpenMP program.

    `files` are the program's sources (written into `program.dir`); `checked` names those that
    are the candidate's own: they get the static pass and the schedule rewrite. `allowed`: what
    the reference does itself (`integrity.Allowances`). `large`: inputs run at the first two
    thread count only, with a longer limit. `expected`: the reference's outputs, which every
    instrumented run must reproduce (None: not compared, as for `check_program`).
    """
    allow = allowed if isinstance(allowed, integrity.Allowances) else integrity.Allowances(allowed)
    rewrite = any(s != DEFAULT_SCHEDULE for s in config.schedules)
    sources = dict(files)
    rewritten = 0
    for name in checked:
        sources[name], _ = omp_rewrite.without_teams(sources[name])
        if rewrite:
            sources[name], n = omp_rewrite.with_runtime_schedule(sources[name])
            rewritten += n
    await rec.workspace.write_files({f"{program.dir}/{k}": v for k, v in sources.items()})
    tools = [tsan.TOOL] + ([omp_static.TOOL] if config.static else [])
    static_findings: list[Finding] = []
    if config.static:
        for name in checked:
            for f in omp_static.check_source(files[name]):
                static_findings.append(f.model_copy(update={"file": name}))

    if static_findings and config.stop_at_first_race:
        return ConcurrencyReport(ok=False, tools=[omp_static.TOOL], findings=static_findings)
    interference = [
        m for name in checked for m in integrity.source_findings(files[name], allow.calls)
    ]
    if not interference and (failed := await _build(rec, paths, program, tools)):
        return failed
    if not interference:
        symbols = await rec.run(
            "race: symbols of the instrumented object",
            Command(argv=["nm", OBJECT], cwd=program.dir, timeout_s=30),
        )
        if not symbols.ok:
            return ConcurrencyReport(
                ok=False, tools=tools, not_run=f"nm failed: {symbols.stderr[-300:]}"
            )
        interference = integrity.symbol_findings(symbols.stdout, allow, driver=driver)
        image = await rec.workspace.read_file(program.object, limit=64 << 20)
        interference += integrity.string_findings(image, allow)
    if interference:
        return ConcurrencyReport(
            ok=False,
            tools=[*tools, integrity.TOOL],
            findings=[interference_finding(interference)],
        )

    # Without rewritten loops the schedules would all run the same program; the runs still help
    # as repeats (which accesses end up ordered by `ordered` or tasks depends on the timing).
    variants = (
        [(s, 0) for s in config.schedules]
        if rewritten
        else [(DEFAULT_SCHEDULE, k) for k in range(len(config.schedules))]
    )
    plan = [
        _Run(t, s, case, r * (1 if rewritten else len(variants)) + k, config.timeout_s)
        for case in inputs[-config.max_inputs :]
        for r in range(config.repeats)
        for s, k in variants
        for t in config.threads
    ]
    if config.large:
        # One run, with the loops' own schedule: a race that exists at this size shows at the
        # first thread count, and each run costs seconds (`dynamic,1` hands out 10^7 iterations
        # one by one: 45 s under TSan on a 30-million-element sum, 2.5 s with the default).
        plan += [
            _Run(
                config.threads[0],
                DEFAULT_SCHEDULE,
                case,
                0,
                config.timeout_s * LARGE_TIMEOUT_FACTOR,
            )
            for case in large or []
        ]
    seen = _Seen(findings={}, timed_out=[])
    for start in range(0, len(plan), config.parallel):
        batch = plan[start : start + config.parallel]
        hidden = expected.hidden if expected else frozenset()
        outcomes = await asyncio.gather(
            *(_run_one(rec, paths, program, run, hidden) for run in batch)
        )
        seen.runs += len(batch)
        for run, (result, omp_log, tsan_log) in zip(batch, outcomes, strict=True):
            if failed := _read_run(run, result, omp_log, tsan_log, sources, config, expected, seen):
                failed.tools, failed.runs = tools, seen.runs
                failed.findings = static_findings + failed.findings
                return failed
        if seen.findings and config.stop_at_first_race:
            break
        if seen.timed_out:
            break  # each further run would cost a whole time-out too
    everything = static_findings + list(seen.findings.values())
    report = ConcurrencyReport(ok=not everything, tools=tools, findings=everything, runs=seen.runs)
    if seen.timed_out and not everything:
        # TSan slows loops many times: a run past the limit is the check's time-out, not a race.
        report.ok = False
        report.not_run = (
            f"the race check timed out under ThreadSanitizer ({seen.timed_out[0]}); "
            "no race was seen, none is ruled out"
        )
    elif seen.runtime and not seen.archer and not seen.findings:
        report.ok = False
        report.not_run = "the OpenMP runtime started without Archer (is libarcher.so installed?)"
    elif not everything and expected is not None and seen.counted and not seen.parallel:
        report.ok = False
        report.findings = [_not_parallel(seen)]
    return report


def _read_run(
    run: _Run,
    result: CommandResult,
    omp_log: str,
    tsan_log: str,
    sources: dict[str, str],
    config: RaceCheckConfig,
    expected: Expected | None,
    seen: _Seen,
) -> ConcurrencyReport | None:
    """Take in one instrumented run; a report when the check must end here."""
    seen.archer |= tsan.ARCHER_BANNER in result.stdout + result.stderr
    seen.runtime |= tsan.RUNTIME_STARTED in omp_log
    if run.threads > 1 and result.threads:
        seen.counted = True
        seen.parallel |= result.threads > 1
    seen.most_threads = max(seen.most_threads, result.threads or 0)
    found = _findings(run, tsan_log, sources, config.skip_runtime_internals)
    crash = tsan.tool_crash(tsan_log)
    if crash and not found:
        return ConcurrencyReport(
            ok=False,
            not_run=(
                f"Archer crashed inside the OpenMP runtime ({crash}, {run.label}): the run "
                "checked nothing"
            ),
        )
    if result.exit_code == TSAN_EXITCODE and tsan.WARNING not in tsan_log:
        # TSan exits 66 only after reporting: the report went somewhere it cannot be read.
        # (A log that holds reports, all of them the runtime's known false alarms, explains
        # the status: those are filtered, not lost.)
        found = [
            Finding(
                kind="data race",
                tool=tsan.TOOL,
                message=(
                    f"ThreadSanitizer exited {TSAN_EXITCODE} (it found a race) but its report "
                    f"could not be read ({_where(run)}) [{run.case.name}]"
                ),
                workers=run.threads,
            )
        ]
    for f in found:
        seen.findings.setdefault((f.kind, f.file, f.line, f.variable), f)
    if result.timed_out:
        assert seen.timed_out is not None
        seen.timed_out.append(f"no end within {result.duration_s:.0f}s at {_where(run)}")
        return None
    if found:
        return None
    if tsan.ACTIVE not in tsan_log:
        # Fail closed: without TSan's own first line in its log, this run proves nothing.
        return ConcurrencyReport(
            ok=False,
            not_run=(
                f"ThreadSanitizer left no trace of running ({run.label}, "
                f"{describe_exit(result)}): the race check cannot vouch for it"
            ),
        )
    if failure := tsan.tsan_failure(tsan_log):
        return ConcurrencyReport(ok=False, not_run=f"ThreadSanitizer failed: {failure}")
    if expected is not None and (differs := _differs(run, result, expected)):
        return ConcurrencyReport(
            ok=False,
            findings=[
                Finding(
                    kind=CHECKED_DIFFERENTLY_KIND,
                    tool=tsan.TOOL,
                    message=f"under the race checker ({_where(run)}) [{run.case.name}]: {differs}",
                    workers=run.threads,
                )
            ],
        )
    return None


def _differs(run: _Run, result: CommandResult, expected: Expected) -> str:
    """Why an instrumented run's answer is not the reference's ("" when it is)."""
    want = expected.outputs.get(run.case.name)
    hidden = run.case.name in expected.hidden
    if result.exit_code != 0:
        return describe_exit(result, hidden)
    if want is None:
        return ""
    comparison = compare_outputs(want, _without_banner(result.stdout), expected.tolerance)
    if comparison.ok:
        return ""
    return "its output differs from the reference's" + ("" if hidden else f": {comparison.reason}")


def _without_banner(stdout: str) -> str:
    """The program's own output: Archer prints its banner on stdout as it starts."""
    lines = stdout.splitlines(keepends=True)
    for k, line in enumerate(lines):
        if line.startswith(tsan.ARCHER_BANNER):
            return "".join(lines[:k] + lines[k + 1 :])
    return stdout


def _not_parallel(seen: _Seen) -> Finding:
    return Finding(
        kind=NOT_PARALLEL_KIND,
        tool=tsan.TOOL,
        message=(
            f"its parallel regions never ran with more than one thread under the race checker "
            f"(at most {seen.most_threads} thread(s) seen in {seen.runs} run(s) at 2 or more): "
            "the check saw no parallel execution to vouch for"
        ),
    )


def interference_finding(reasons: list[str]) -> Finding:
    """The finding that rejects a candidate interfering with the checkers."""
    more = f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else ""
    return Finding(
        kind=integrity.KIND,
        tool=integrity.TOOL,
        message=f"rejected: the candidate {reasons[0]}{more}; the checkers must see the program as it runs",
    )


async def _build(
    rec: CommandLog, paths: Paths, program: Sources, tools: list[str]
) -> ConcurrencyReport | None:
    for name, command in (
        ("race: build with ThreadSanitizer", tsan_compile(program, paths)),
        ("race: link", tsan_link(program, paths)),
    ):
        build = await rec.run(name, command)
        if not build.ok:
            reason = summarize(parse_diagnostics(build.stderr)) or build.stderr[-300:]
            return ConcurrencyReport(
                ok=False,
                tools=tools,
                not_run=f"clang could not build it for ThreadSanitizer: {reason}",
            )
    return None


async def _run_one(
    rec: CommandLog, paths: Paths, program: Sources, run: _Run, hidden: frozenset[str]
) -> tuple[CommandResult, str, str]:
    """One instrumented run and its tools' logs (libomp's, TSan's), which they write into the
    run's own tool-log directory."""
    schedule = "static" if run.schedule == DEFAULT_SCHEDULE else run.schedule
    command = tsan_run(program, run.case, run.threads, schedule, run.timeout_s, paths)
    result = await rec.run(run.label, command, hidden=run.case.name in hidden)
    omp_log, tsan_log = tool_logs(result.files)
    return result, omp_log, tsan_log


def _where(run: _Run) -> str:
    return f"{run.threads} threads" + (
        "" if run.schedule == DEFAULT_SCHEDULE else f", OMP_SCHEDULE={run.schedule}"
    )


def _findings(
    run: _Run, tsan_log: str, sources: dict[str, str], skip_runtime_internals: bool
) -> list[Finding]:
    found = tsan.parse_tsan(tsan_log, sources, skip_runtime_internals=skip_runtime_internals)
    return [
        f.model_copy(
            update={
                "workers": run.threads,
                "message": f"{f.message} ({_where(run)}) [{run.case.name}]",
            }
        )
        for f in found
    ]


class RaceCheckResult(BaseModel):
    """`check_program`'s answer: `race` is None when the check itself could not run."""

    file: str
    race: bool | None
    findings: list[Finding] = Field(default_factory=list)
    runs: int = 0
    tools: list[str] = Field(default_factory=list)
    not_run: str | None = None
    duration_s: float = 0.0
    steps: list[StepRecord] = Field(default_factory=list)


async def check_program(
    sandbox: Sandbox,
    source: str,
    filename: str,
    *,
    config: RaceCheckConfig | None = None,
    case: TestCase | None = None,
    files: dict[str, str] | None = None,
) -> RaceCheckResult:
    """Race-check any OpenMP program with a `main`, in a fresh workspace of `sandbox`."""
    config = config or RaceCheckConfig()
    language = Language.C if filename.endswith(".c") else Language.CPP
    start = time.monotonic()
    async with sandbox.workspace() as workspace:
        rec = CommandLog(workspace)
        paths = await workspace_paths(rec)
        report = await check_races(
            rec,
            paths,
            Sources("race", filename, language),
            {**(files or {}), filename: source},
            [filename],
            [case or TestCase(name="run")],
            config,
        )
    return RaceCheckResult(
        file=filename,
        race=None if report.not_run else not report.ok,
        findings=report.findings,
        runs=report.runs,
        tools=report.tools,
        not_run=report.not_run,
        duration_s=round(time.monotonic() - start, 3),
        steps=rec.steps,
    )


async def workspace_paths(rec: CommandLog) -> Paths:
    """Ask the workspace where it is (see `Paths`)."""
    result = await rec.workspace.run(Command(argv=["pwd"], timeout_s=30))
    root = result.stdout.strip()
    if not result.ok or not root.startswith("/"):
        detail = result.stderr.strip() or repr(result.stdout)
        raise WorkspaceError(f"cannot find the workspace's directory: {detail}")
    return Paths(root=root)
