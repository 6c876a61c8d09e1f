"""`parforge eval ...`: run a model over a benchmark suite, list runs, write reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from evals.config import Api, RunOptions, SamplingOptions
from parforge.cli._common import console, fail, run, settings
from parforge.cli._model import model_or_exit, needs_model_here
from parforge.cli._store import store as open_store
from parforge.cli._submission import StartModelOption

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from corpus.store.models import EvalRunRow
    from evals.plan import Progress as RunProgress
    from parforge.settings import Settings

out = Console()
"""Tables go to stdout; progress and messages to stderr."""

app = typer.Typer(
    help="Batch evaluations: pass@k, build@k, speedup@k and efficiency@k over a suite.",
    no_args_is_help=True,
)

TARGETS = ("openmp", "mpi", "cuda")


@app.command("run")
def run_cmd(
    suite: Annotated[str, typer.Option(help="Built-in suite name or suite directory.")] = "pareval",
    target: Annotated[str, typer.Option(help="openmp, mpi or cuda.")] = "openmp",
    samples: Annotated[int, typer.Option(min=1, max=100, help="Samples per problem (K).")] = 1,
    model: Annotated[
        str | None,
        typer.Option(
            help="Model or adapter name (default: the configured one), or replay:known-good, "
            "replay:mutants, replay:run=ID."
        ),
    ] = None,
    url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint, .../v1 (default: settings).")
    ] = None,
    api: Annotated[
        str, typer.Option(help="completion, chat, or auto (completion, else chat).")
    ] = "auto",
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Verifications at once (default: sandbox pool).")
    ] = None,
    problems: Annotated[
        list[str] | None, typer.Option(help="Glob of problem names; repeat for more.")
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many problems.")] = None,
    timing: Annotated[
        bool, typer.Option("--timing/--no-timing", help="Measure speedups (slow).")
    ] = True,
    temperature: Annotated[float, typer.Option(min=0)] = SamplingOptions().temperature,
    max_tokens: Annotated[int, typer.Option(min=1)] = SamplingOptions().max_tokens,
    reference_cache: Annotated[
        bool,
        typer.Option(
            "--reference-cache/--no-reference-cache",
            help="Build, run and time each reference once per run (off: once per sample).",
        ),
    ] = True,
    translate_from: Annotated[
        str | None,
        typer.Option(
            help="serial or cuda: translate that implementation (the suite's translation "
            "prompts) instead of generating from the description."
        ),
    ] = None,
    agent: Annotated[
        str,
        typer.Option(
            help="prompt (the model completes the prompt), graph (the translate agent), or "
            "analysis (the agent with no model: what the dependence analysis alone achieves)."
        ),
    ] = "prompt",
    reasoning_threads: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=16,
            help="Parallel reasoning threads per task beside the graph agent's plan (graph only).",
        ),
    ] = None,
    evolve: Annotated[
        bool,
        typer.Option(
            "--evolve", help="Evolve each task's first verified program for speed (graph only)."
        ),
    ] = False,
    generations: Annotated[
        int | None,
        typer.Option(min=1, max=100, help="Generations of that evolution (implies --evolve)."),
    ] = None,
    resume: Annotated[
        int | None,
        typer.Option(help="Continue a stopped run (its own options apply; others are ignored)."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the finished run (summary included) as JSON.")
    ] = False,
    start_model: StartModelOption = None,
) -> None:
    """Generate K samples per problem, verify each in the sandbox, store and summarize them."""
    from corpus.store.models import EvalRunPublic

    config = settings()
    with open_store(config) as engine:
        if resume is not None:
            eval_id = _reopen(engine, resume, config.server.lease_s)
        else:
            if target not in TARGETS:
                fail(f"unknown target {target!r}: use one of {', '.join(TARGETS)}", 2)
            if api not in ("auto", "completion", "chat"):
                fail(f"unknown api {api!r}: use auto, completion or chat", 2)
            if agent not in ("prompt", "graph", "analysis"):
                fail(f"unknown agent {agent!r}: use prompt, graph or analysis", 2)
            if translate_from not in (None, "serial", "cuda"):
                fail(f"unknown source model {translate_from!r}: use serial or cuda", 2)
            if reasoning_threads and agent != "graph":
                fail("--reasoning-threads needs --agent graph", 2)
            if (evolve or generations is not None) and agent != "graph":
                fail(f"{'--evolve' if evolve else '--generations'} needs --agent graph", 2)
            options = RunOptions(
                url=url,
                api=_api(api),
                sampling=SamplingOptions(temperature=temperature, max_tokens=max_tokens),
                concurrency=concurrency,
                reference_cache=reference_cache,
                translate_from=_source_model(translate_from),
                agent=_agent(agent),
                reasoning_threads=reasoning_threads,
                evolve=True if evolve or generations is not None else None,
                generations=generations,
            )
            eval_id = _create(
                engine, suite, target, samples, model, problems or [], limit, timing, options
            )
            replay = (model or "").startswith("replay:")
            if not replay and (agent == "prompt" or needs_model_here(config, agent)):
                # The model before any work (the run stays queued, to resume, when there is none).
                run(
                    model_or_exit(
                        _aimed_at(config, url),
                        start=url is None
                        and (config.model.autostart if start_model is None else start_model),
                        kept=f"eval run {eval_id} is kept: `parforge eval run --resume {eval_id}`",
                    )
                )
        console.print(f"eval run [bold]{eval_id}[/]")
        final = run(_execute(config, engine, eval_id))
    if as_json:
        typer.echo(
            json.dumps(EvalRunPublic.model_validate(final).model_dump(mode="json"), indent=2)
        )
    _print_outcome(final)


def _agent(value: str) -> Literal["prompt", "graph", "analysis"]:
    return "graph" if value == "graph" else "analysis" if value == "analysis" else "prompt"


def _aimed_at(config: Settings, url: str | None) -> Settings:
    """The settings with `--url` as the model endpoint, when given."""
    if url is None:
        return config
    endpoint = config.model.endpoint.model_copy(update={"url": url})
    return config.model_copy(
        update={"model": config.model.model_copy(update={"endpoint": endpoint})}
    )


def _source_model(value: str | None) -> Literal["serial", "cuda"] | None:
    return "serial" if value == "serial" else "cuda" if value == "cuda" else None


def _api(value: str) -> Api:
    return "chat" if value == "chat" else "completion" if value == "completion" else "auto"


def _create(
    engine: Engine,
    suite: str,
    target: str,
    samples: int,
    model: str | None,
    patterns: list[str],
    limit: int | None,
    timing: bool,
    options: RunOptions,
) -> int:
    from corpus.store.models import EvalRunCreate
    from parforge.app import Rejected
    from parforge.app.evals import plan, submit_eval
    from sandbox.spec import Target

    wanted = EvalRunCreate(
        suite=suite, target=Target(target), model=model, samples_k=samples, timing=timing
    )
    try:
        create = plan(wanted, options, patterns=patterns, limit=limit)
    except Rejected as exc:
        fail(exc.reason, 2)
    row = submit_eval(engine, create, options)
    assert row.id is not None
    return row.id


def _reopen(engine: Engine, eval_id: int, lease_s: float) -> int:
    from sqlmodel import Session

    from corpus.store import evals as store
    from corpus.store.models import JobStatus

    with Session(engine) as session:
        row = store.reopen(session, eval_id, lease_s)
    if row is None:
        fail(f"no eval run {eval_id}")
    if row.status == JobStatus.RUNNING:
        fail(f"eval run {eval_id} is running in worker {row.claimed_by}")
    return eval_id


async def _execute(config: Settings, engine: Engine, eval_id: int) -> EvalRunRow:
    from parforge.service.evals import EvalPool, build_eval_runner

    runner = build_eval_runner(config, engine)
    pool = EvalPool(engine, runner, config.server, workers=0)
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[detail]}"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    try:
        with Progress(*columns, console=console, transient=False) as bar:
            task: TaskID | None = None

            def show(progress: RunProgress) -> None:
                nonlocal task
                detail = progress.line()
                if task is None:
                    task = bar.add_task("verified", total=progress.total, detail=detail)
                bar.update(task, completed=progress.finished, detail=detail)

            return await pool.run_one(eval_id, on_progress=show)
    finally:
        await runner.aclose()


def _print_outcome(final: EvalRunRow) -> None:
    from corpus.store.models import JobStatus

    style = "green" if final.status == JobStatus.SUCCEEDED else "red"
    console.print(f"eval run {final.id}: [{style}]{final.status}[/] {final.reason}")
    if final.status != JobStatus.SUCCEEDED:
        raise SystemExit(1)
    console.print(f"report: parforge eval report {final.id}")


@app.command("report")
def report_cmd(
    run_id: Annotated[int, typer.Argument(help="The eval run.")],
    compare: Annotated[int | None, typer.Option(help="A baseline run to compare with.")] = None,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Directory (default: ./eval-report-RUN).")
    ] = None,
    k: Annotated[str, typer.Option(help="Comma-separated k values.")] = "1,5",
    resources: Annotated[
        int | None,
        typer.Option(min=1, help="n of speedup_n@k (default: the largest count timed)."),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print the report's files and every metric row as JSON on stdout."
        ),
    ] = False,
) -> None:
    """Write a Markdown report and one self-contained HTML file with plots, 95 % intervals and,
    against a baseline, the per-problem changes and a paired test; print its overall rows."""
    from evals.summary import OVERALL
    from parforge.app import Rejected
    from parforge.app.evals import eval_report

    try:
        ks = [int(x) for x in k.split(",") if x.strip()]
    except ValueError:
        fail(f"--k takes comma-separated integers, not {k!r}", 2)
    config = settings()
    target = out_dir or Path(f"eval-report-{run_id}")
    with open_store(config) as engine:
        try:
            made = eval_report(engine, run_id, target, compare=compare, ks=ks, resources=resources)
        except Rejected as exc:
            fail(exc.reason)
    if made.dropped_ks:
        # pass@k needs at least k samples per problem: say so rather than drop it silently.
        console.print(
            f"[yellow]warning[/]: k = {', '.join(map(str, made.dropped_ks))} left out: run "
            f"{run_id} has {made.run.samples} sample(s) per problem, and pass@k needs k of them",
            highlight=False,
            soft_wrap=True,
        )
    paths, usable, n, summary = made.files, made.ks, made.resources, made.summary
    if as_json:
        shown = {
            "run": run_id,
            "baseline": compare,
            "files": {kind: str(path) for kind, path in paths.items()},
            "k": usable,
            "resources": n,
            "summary": summary.model_dump(mode="json"),
        }
        typer.echo(json.dumps(shown, indent=2))
        return
    table = Table(
        title=f"eval run {run_id}: {made.run.model} on {made.run.suite}/{made.run.target}"
    )
    for column in (
        "k",
        "build",
        "pass",
        "race-free",
        f"speedup_{n}" if n else "speedup",
        "not run",
    ):
        table.add_column(column, justify="right")
    for row in summary.rows:
        if row.group != OVERALL:
            continue
        table.add_row(
            str(row.k),
            _pct(row.build, row.not_run, row.intervals.get("build")),
            _pct(row.passed, row.not_run, row.intervals.get("passed")),
            _pct(row.race_free, row.not_run, row.intervals.get("race_free")),
            "–" if row.speedup is None else f"{row.speedup:.2f}",
            str(row.not_run),
        )
    out.print(table)
    console.print(f"report: {paths['markdown']} and {paths['html']}")


def _pct(value: float | None, not_run: int, interval: list[float] | None = None) -> str:
    if value is None:
        return "not run" if not_run else "–"
    shown = f"{100 * value:.1f}%"
    if interval:
        shown += f" [{100 * interval[0]:.1f}–{100 * interval[1]:.1f}]"
    return shown


@app.command("list")
def list_cmd(
    limit: Annotated[int, typer.Option(min=1, help="Newest runs shown.")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="JSON on stdout.")] = False,
) -> None:
    """Eval runs in the store, newest first."""
    from sqlmodel import Session

    from corpus.store import evals as store
    from corpus.store.models import EvalRunPublic

    config = settings()
    with open_store(config) as engine, Session(engine) as session:
        runs = store.list_runs(session, limit)
    if as_json:
        rows = [EvalRunPublic.model_validate(r).model_dump(mode="json") for r in runs]
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table()
    for column in ("id", "status", "suite/target", "model", "K", "done", "pass@1", "created"):
        table.add_column(column, no_wrap=column in ("model", "created"))
    for r in runs:
        p = r.progress or {}
        done = f"{p.get('finished', 0)}/{p.get('total', '?')}" if p else "–"
        table.add_row(
            str(r.id),
            str(r.status),
            f"{r.suite}/{r.target}",
            r.model or "(configured)",
            str(r.samples_k),
            done,
            _overall_pass(r),
            r.created_at.strftime("%m-%d %H:%M"),
        )
    out.print(table)


def _overall_pass(run: EvalRunRow) -> str:
    from evals.summary import OVERALL

    for row in run.summary.get("rows", []):
        if row.get("group") == OVERALL and row.get("k") == 1:
            return _pct(row.get("passed"), row.get("not_run", 0))
    return "–"
