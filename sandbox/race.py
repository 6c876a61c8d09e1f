"""The OpenMP race checker: a static pass, then Archer + ThreadSanitizer over a matrix of runs.

One instrumented run at one thread count misses races that need a particular mapping of
iterations to threads, or a task running on another thread than the one that created it, and
it never sees a `simd` loop's lanes. So the checker:

1. runs the static pass (`omp_static`: simd dependences, ordered misuse and shared writes
   outside an ordered region, lastprivate with nowait, task results read before a taskwait);
   with `stop_at_first_race` a finding there ends the check;
2. adds `schedule(runtime)` to worksharing loops without a schedule (`omp_rewrite`), so that
   `OMP_SCHEDULE` can move iterations around (`default` runs keep the static split);
3. builds once with clang `-fsanitize=thread` (libomp loads Archer itself under TSan; the
   banner Archer prints with `ARCHER_OPTIONS=verbose=1` proves it did);
4. runs every (schedule, thread count, repeat) combination, `parallel` at a time, stopping after
   the batch that first finds a race when `stop_at_first_race`.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass

from pydantic import BaseModel, Field

from sandbox.base import Sandbox
from sandbox.checkers import integrity, omp_rewrite, omp_static, tsan
from sandbox.checkers.diagnostics import parse_diagnostics, summarize
from sandbox.errors import WorkspaceError
from sandbox.models import Command, CommandResult
from sandbox.outcomes import describe_exit
from sandbox.spec import Language, TestCase
from sandbox.steps import Recorder
from sandbox.toolchains.base import TMP_KEEP, Paths, Program
from sandbox.toolchains.openmp import (
    LOG_SEPARATOR,
    OBJECT,
    tsan_compile,
    tsan_link,
    tsan_logs,
    tsan_run,
)
from sandbox.verdict import ConcurrencyReport, Finding, StepRecord

DEFAULT_SCHEDULE = "default"


class RaceCheckConfig(BaseModel):
    """How hard the OpenMP race checker looks (defaults: the full checker)."""

    threads: list[int] = Field(default_factory=lambda: [2, 4, 3, 8])
    """Thread counts, in the order they are tried (on any number of cores)."""
    schedules: list[str] = Field(
        default_factory=lambda: [DEFAULT_SCHEDULE, "static,1", "dynamic,1"]
    )
    """OMP_SCHEDULE values; `default` runs the loops' own (static) schedule."""
    repeats: int = Field(default=1, ge=1)
    parallel: int = Field(default=2, ge=1)
    """Instrumented runs at once in the workspace."""
    timeout_s: float = Field(default=60.0, gt=0)
    """Limit of one instrumented run (TSan slows programs 5-15x)."""
    static: bool = True
    """Run the static simd/ordered pass."""
    stop_at_first_race: bool = True
    skip_runtime_internals: bool = True
    """Drop Archer's known false alarms on the runtime's own memory (see `tsan.parse_tsan`)."""
    max_inputs: int = Field(default=2, ge=1)
    """Test inputs the dynamic runs use: the last ones, since specs list inputs from small to
    large and a one-element input gives threads nothing to race on."""

    @classmethod
    def single_run(cls, threads: int = 2) -> RaceCheckConfig:
        """The plain approach the full checker is measured against: one Archer run, no extras."""
        return cls(
            threads=[threads],
            schedules=[DEFAULT_SCHEDULE],
            static=False,
            parallel=1,
            skip_runtime_internals=False,
        )


@dataclass(frozen=True)
class _Run:
    threads: int
    schedule: str
    case: TestCase
    repeat: int

    @property
    def label(self) -> str:
        extra = f" #{self.repeat + 1}" if self.repeat else ""
        return f"race {self.threads}t {self.schedule} [{self.case.name}]{extra}"


async def check_races(
    rec: Recorder,
    paths: Paths,
    program: Program,
    files: dict[str, str],
    checked: list[str],
    inputs: list[TestCase],
    config: RaceCheckConfig,
    allowed: frozenset[str] = frozenset(),
) -> ConcurrencyReport:
    """Race-check one OpenMP program.

    `files` are the program's sources (written into `program.dir`); `checked` names those that
    are the candidate's own: they get the static pass and the schedule rewrite. `allowed`: the
    otherwise forbidden calls the reference makes (`integrity.calls_used`).
    """
    rewrite = any(s != DEFAULT_SCHEDULE for s in config.schedules)
    sources = dict(files)
    rewritten = 0
    if rewrite:
        for name in checked:
            sources[name], n = omp_rewrite.with_runtime_schedule(files[name])
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
    interference = [m for name in checked for m in integrity.source_findings(files[name], allowed)]
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
        interference = integrity.symbol_findings(symbols.stdout, allowed)
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
        _Run(t, s, case, r * (1 if rewritten else len(variants)) + k)
        for case in inputs[-config.max_inputs :]
        for r in range(config.repeats)
        for s, k in variants
        for t in config.threads
    ]
    findings: dict[tuple[str, str | None, int | None, str | None], Finding] = {}
    archer_seen = runtime_seen = False
    timed_out: list[str] = []
    runs = 0
    for start in range(0, len(plan), config.parallel):
        batch = plan[start : start + config.parallel]
        outcomes = await asyncio.gather(
            *(_run_one(rec, paths, program, run, config) for run in batch)
        )
        runs += len(batch)
        for run, (result, omp_log, tsan_log) in zip(batch, outcomes, strict=True):
            archer_seen |= tsan.ARCHER_BANNER in result.stdout + result.stderr
            runtime_seen |= tsan.RUNTIME_STARTED in omp_log
            for f in _findings(run, tsan_log, sources, config.skip_runtime_internals):
                findings.setdefault((f.kind, f.file, f.line, f.variable), f)
            if result.timed_out:
                timed_out.append(f"no end within {result.duration_s:.0f}s at {_where(run)}")
            elif tsan.ACTIVE not in tsan_log:
                # Fail closed: without TSan's own first line in its log, this run proves nothing.
                return ConcurrencyReport(
                    ok=False,
                    tools=tools,
                    findings=static_findings,
                    runs=runs,
                    not_run=(
                        f"ThreadSanitizer left no trace of running ({run.label}, "
                        f"{describe_exit(result)}): the race check cannot vouch for it"
                    ),
                )
            elif failure := tsan.tsan_failure(tsan_log):
                return ConcurrencyReport(
                    ok=False,
                    tools=tools,
                    findings=static_findings,
                    runs=runs,
                    not_run=f"ThreadSanitizer failed: {failure}",
                )
        if findings and config.stop_at_first_race:
            break
        if timed_out:
            break  # each further run would cost a whole time-out too
        if not runtime_seen:
            break  # the OpenMP runtime never started: there are no threads to race
    everything = static_findings + list(findings.values())
    if timed_out and not everything:
        # TSan slows loops many times: a run past the limit is the check's time-out, not a race.
        return ConcurrencyReport(
            ok=False,
            tools=tools,
            runs=runs,
            not_run=(
                f"the race check timed out under ThreadSanitizer ({timed_out[0]}); "
                "no race was seen, none is ruled out"
            ),
        )
    if runtime_seen and not archer_seen and not findings:
        return ConcurrencyReport(
            ok=False,
            tools=tools,
            findings=static_findings,
            runs=runs,
            not_run="the OpenMP runtime started without Archer (is libarcher.so installed?)",
        )
    return ConcurrencyReport(ok=not everything, tools=tools, findings=everything, runs=runs)


def interference_finding(reasons: list[str]) -> Finding:
    """The finding that rejects a candidate interfering with the checkers."""
    more = f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else ""
    return Finding(
        kind=integrity.KIND,
        tool=integrity.TOOL,
        message=f"rejected: the candidate {reasons[0]}{more}; the checkers must see the program as it runs",
    )


async def _build(
    rec: Recorder, paths: Paths, program: Program, tools: list[str]
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
    rec: Recorder, paths: Paths, program: Program, run: _Run, config: RaceCheckConfig
) -> tuple[CommandResult, str, str]:
    """One instrumented run and its tools' logs (libomp's, TSan's) from files the harness
    named: a fresh random prefix per run, so the program can neither guess nor pre-plant them."""
    schedule = "static" if run.schedule == DEFAULT_SCHEDULE else run.schedule
    log = f"{paths.tmp}/race-{secrets.token_hex(8)}"
    command = tsan_run(program, run.case, run.threads, schedule, config.timeout_s, paths, log)
    result = await rec.run(run.label, command)
    try:
        logs = await rec.run(f"{run.label}: tool logs", tsan_logs(log))
    except WorkspaceError:
        if not result.timed_out:
            raise
        # The host's watchdog removed the container of a run that did not stop in time: its
        # logs went with it, and the time-out is what the report says.
        return result, "", ""
    omp_log, _, tsan_log = logs.stdout.partition(LOG_SEPARATOR)
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
        f.model_copy(update={"workers": run.threads, "message": f"{f.message} ({_where(run)})"})
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
        rec = Recorder(workspace)
        paths = await workspace_paths(rec)
        report = await check_races(
            rec,
            paths,
            Program("race", filename, language),
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


async def workspace_paths(rec: Recorder) -> Paths:
    """Ask the workspace where it is (see `Paths`) and create its TMPDIR."""
    await rec.workspace.write_files({TMP_KEEP: ""})
    result = await rec.workspace.run(Command(argv=["pwd"], timeout_s=30))
    root = result.stdout.strip()
    if not result.ok or not root.startswith("/"):
        detail = result.stderr.strip() or repr(result.stdout)
        raise WorkspaceError(f"cannot find the workspace's directory: {detail}")
    return Paths(root=root)
