"""`parforge tasks ...`: submit, follow, inspect and cancel translation tasks in the local store."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text
from sqlmodel import Session

from corpus.store import Notifier, tasks
from corpus.store.models import (
    DEFAULT_AGENT,
    JobStatus,
    ParallelTarget,
    TaskCreate,
    TaskDetail,
    TaskPublic,
)
from corpus.store.queue import CancelOutcome
from parforge.cli._common import console, fail, run, settings
from parforge.cli._model import model_or_exit, needs_model_here
from parforge.cli._status import styled
from parforge.cli._store import store
from parforge.cli._submission import (
    BudgetTimeOption,
    BudgetTokensOption,
    EvolveOption,
    FunctionOption,
    GenerationsOption,
    LanguageOption,
    MaxTokensOption,
    ReasoningThreadsOption,
    RtolOption,
    SamplesOption,
    StartModelOption,
    TargetOption,
    TestOption,
    TestsOption,
    TimeLimitAlias,
    ToAlias,
    chosen_target,
    chosen_time,
    language_of_file,
    read_tests,
    task_create,
)

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from parforge.settings import Settings

out = Console()
"""Tables go to stdout; progress and messages to stderr."""

app = typer.Typer(help="Translation tasks in the local store.", no_args_is_help=True)


@app.command()
def submit(
    file: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="The sequential source.")
    ],
    target: TargetOption = None,
    language: LanguageOption = None,
    function: FunctionOption = None,
    test: TestOption = None,
    tests: TestsOption = None,
    rtol: RtolOption = None,
    samples: SamplesOption = None,
    max_tokens: MaxTokensOption = None,
    budget_tokens: BudgetTokensOption = None,
    budget_time: BudgetTimeOption = None,
    reasoning_threads: ReasoningThreadsOption = None,
    evolve: EvolveOption = False,
    generations: GenerationsOption = None,
    agent: Annotated[
        str | None, typer.Option(help="The agent that runs it: graph (default) or prompt.")
    ] = None,
    wait: Annotated[
        bool, typer.Option("--wait", help="Run it here (or wait for a server).")
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print {id, status} as JSON; with --wait, the task's summary (as translate "
            "--json prints it).",
        ),
    ] = False,
    start_model: StartModelOption = None,
    to: ToAlias = None,
    time_limit: TimeLimitAlias = None,
) -> None:
    """Queue a task; with --wait, run it and follow its progress.

    Without tests, candidates are checked on one run with no arguments and empty stdin. The
    original program is built and run on its tests in the sandbox before the task is queued.
    """
    chosen = chosen_target(target, to)
    create = task_create(
        file,
        target=chosen,
        language=language_of_file(file, language),
        agent=agent or DEFAULT_AGENT,
        tests=read_tests(tests, test),
        function=function,
        rtol=rtol,
        samples=samples,
        max_tokens=max_tokens,
        budget_tokens=budget_tokens,
        budget_time=chosen_time(budget_time, time_limit),
        reasoning_threads=reasoning_threads,
        evolve=evolve,
        generations=generations,
    )
    config = settings()
    if wait and needs_model_here(config, create.agent):
        start = config.model.autostart if start_model is None else start_model
        run(model_or_exit(config, start=start))
    with store(config) as engine:
        task_id = run(submit_checked(config, engine, create, "invalid task")).id
        console.print(f"task {task_id} queued")
        if not wait:
            if as_json:
                typer.echo(json.dumps({"id": task_id, "status": JobStatus.QUEUED.value}))
            else:
                typer.echo(task_id)
            return
        if not as_json:
            typer.echo(task_id)
        status = run(_run_and_follow(config, engine, task_id))
        if as_json:
            from parforge.app import summarize

            with Session(engine) as session:
                summary = summarize(session, task_id)
            assert summary is not None
            typer.echo(json.dumps(summary.model_dump(mode="json"), indent=2))
    if status is not JobStatus.SUCCEEDED:
        raise SystemExit(3 if status is JobStatus.NOT_RUN else 1)


async def submit_checked(
    config: Settings, engine: Engine, create: TaskCreate, refused: str
) -> TaskDetail:
    """The task stored through the application layer, every check done with the configured
    sandbox; refused input is the message `refused: reason` and exit 2."""
    from parforge.app import SubmitError, sandbox_judge, submit

    judge = sandbox_judge(config)
    try:
        return await submit(create, engine=engine, judge=judge, settings=config)
    except SubmitError as exc:
        fail(f"{refused}: {exc.reason}", 2)
    finally:
        await judge.aclose()


async def _run_and_follow(config: Settings, engine: Engine, task_id: str) -> JobStatus:
    import asyncio
    import contextlib

    from rich.live import Live

    from parforge.service.events import follow
    from parforge.service.pool import WorkerPool
    from parforge.service.runners import Runners

    notifier = Notifier()
    runners = Runners.from_settings(config)
    job = None
    if runners is None:
        console.print("[yellow]no task runner configured here: waiting for a server to run it[/]")
    else:
        pool = WorkerPool(engine, runners, config.server, notifier)
        job = asyncio.create_task(pool.run_task(task_id))
    counts = {"step": 0, "candidate": 0, "passed": 0, "failed": 0}
    status, reason, best = JobStatus.QUEUED, "", 0.0

    def view() -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_row(
            f"[bold]{task_id[:8]}[/] {styled(status)}",
            f"steps {counts['step']}",
            f"candidates {counts['candidate']}",
            f"[green]passed {counts['passed']}[/]",
            f"[red]failed {counts['failed']}[/]",
            f"best {best:.2f}x",
        )
        return table

    try:
        with Live(view(), console=console, refresh_per_second=8, transient=True) as live:
            async for event in follow(engine, notifier, task_id, poll_s=config.server.poll_s):
                if event.kind == "status":
                    status, reason = JobStatus(str(event.data["status"])), str(event.data["reason"])
                elif event.kind == "verdict":
                    counts["passed" if event.data["passed"] else "failed"] += 1
                    best = max(best, float(str(event.data["best_speedup"])))
                elif event.kind in counts:
                    counts[event.kind] += 1
                live.update(view())
    except BaseException:
        # Interrupted: stop the run here too (the pool puts the task back in the queue).
        if job is not None:
            job.cancel()
        raise
    finally:
        if job is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await job
        if runners is not None:
            await runners.aclose()
    # The live line goes away; this one stays (with the run's own summary as the reason).
    console.print(
        f"task {task_id} {styled(status)}" + (escape(f": {reason}") if reason else ""),
        highlight=False,
    )
    return status


MIN_PREFIX = 4
"""The shortest id prefix taken for a task id."""


def resolve_id(engine: Engine, given: str) -> str:
    """The task id `given` names: itself, or the one task whose id starts with it."""
    with Session(engine) as session:
        if tasks.get(session, given) is not None:
            return given
        found = tasks.matching_ids(session, given) if len(given) >= MIN_PREFIX else []
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        fail(f"{given!r} is the start of several task ids: give more of it", 2)
    if len(given) < MIN_PREFIX:
        fail(f"no task {given} (an id prefix needs {MIN_PREFIX} characters or more)")
    fail(f"no task {given}")


def _get(engine: Engine, task_id: str) -> TaskDetail:
    with Session(engine) as session:
        task = tasks.get(session, task_id)
        if task is None:
            fail(f"no task {task_id}")
        return TaskDetail.model_validate(task)


@app.command()
def show(
    task_id: Annotated[str, typer.Argument(help="A task id, or its first characters.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON (task and candidates).")
    ] = False,
    code: Annotated[
        bool, typer.Option("--code/--no-code", help="Print the featured candidate's code.")
    ] = True,
    code_only: Annotated[
        bool,
        typer.Option(
            "--code-only",
            help="Print only the task's best program, exactly as stored (exit 1: none).",
        ),
    ] = False,
) -> None:
    """A task, its runs, every candidate's verdict, and the best candidate with its code."""
    from parforge.cli._task_view import show_task

    with store(settings()) as engine:
        task_id = resolve_id(engine, task_id)
        task = _get(engine, task_id)
        with Session(engine) as session:
            candidates = tasks.candidates(session, task_id)
            runs = tasks.runs(session, task_id)
    if code_only:
        best = next((c for c in candidates if c.id == task.best_candidate_id), None)
        if best is None:
            why = f" ({task.status}: {task.reason})" if task.reason else f" ({task.status})"
            fail(f"task {task.id} has no best program{why}")
        sys.stdout.write(best.source if best.source.endswith("\n") else best.source + "\n")
        return
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "task": task.model_dump(mode="json"),
                    "runs": [r.model_dump(mode="json") for r in runs],
                    "candidates": [c.model_dump(mode="json") for c in candidates],
                },
                indent=2,
            )
        )
        return
    show_task(out, task, runs, candidates, code=code)


@app.command("list")
def list_tasks(
    status: Annotated[JobStatus | None, typer.Option(help="Only tasks in this state.")] = None,
    target: Annotated[ParallelTarget | None, typer.Option()] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 20,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Tasks, newest first."""
    with store(settings()) as engine, Session(engine) as session:
        page = tasks.list_tasks(session, status=status, target=target, limit=limit)
        items = [TaskPublic.model_validate(t) for t in page.items]
    if as_json:
        typer.echo(json.dumps([t.model_dump(mode="json") for t in items], indent=2))
        return
    table = Table("id", "name", "target", "status", "best", "created", title=f"{page.total} tasks")
    for t in items:
        table.add_row(
            t.id,
            Text(t.name),
            t.target,
            styled(t.status),
            f"{t.best_speedup:.2f}x" if t.best_speedup else "-",
            f"{t.created_at:%Y-%m-%d %H:%M:%S}",
        )
    out.print(table)


@app.command()
def cancel(
    task_id: str = typer.Argument(..., help="A task id, or its first characters."),
    as_json: Annotated[
        bool, typer.Option("--json", help="Print {id, status, detail} as the API answers.")
    ] = False,
) -> None:
    """Cancel a queued task, or ask the worker running it to stop."""
    with store(settings()) as engine:
        task_id = resolve_id(engine, task_id)
        with Session(engine) as session:
            outcome = tasks.request_cancel(session, task_id)
            task = tasks.get(session, task_id)
    if outcome is CancelOutcome.NOT_FOUND or task is None:
        fail(f"no task {task_id}")
    if outcome is CancelOutcome.FINISHED:
        fail(f"task {task_id} has already {task.status}")
    cancelled = outcome is CancelOutcome.CANCELLED
    console.print(f"task {task_id} " + ("cancelled" if cancelled else "will stop shortly"))
    if as_json:
        detail = "cancelled" if cancelled else "cancellation requested"
        typer.echo(json.dumps({"id": task_id, "status": str(task.status), "detail": detail}))
