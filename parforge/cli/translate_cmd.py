"""`parforge translate FILE --target openmp`: the main job. The translate agent plans, makes and
verifies candidates; the command shows its steps as they happen and prints the best verified
program with its verdict, or, honestly, that no candidate passed and why."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from sqlmodel import Session

from corpus.store import Notifier
from corpus.store.models import JobStatus, TaskCreate
from parforge.cli._common import console, fail, run, settings
from parforge.cli._model import model_or_exit
from parforge.cli._store import store
from parforge.cli._submission import (
    BudgetTimeOption,
    BudgetTokensOption,
    EvolveOption,
    FunctionOption,
    GenerationsOption,
    JsonOption,
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
from parforge.cli.tasks_cmd import submit_checked

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from parforge.app import TaskSummary
    from parforge.settings import Settings


def translate(
    file: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="A complete C/C++ program.")
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
    as_json: JsonOption = False,
    start_model: StartModelOption = None,
    out_file: Annotated[
        Path | None,
        typer.Option(
            "--out",
            dir_okay=False,
            help="Write the best program to this file (exactly as verified) instead of stdout.",
        ),
    ] = None,
    to: ToAlias = None,
    time_limit: TimeLimitAlias = None,
) -> None:
    """Translate a sequential program into a verified parallel one."""
    chosen = chosen_target(target, to)
    create = task_create(
        file,
        target=chosen,
        language=language_of_file(file, language),
        agent="graph",
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
    start = config.model.autostart if start_model is None else start_model
    status, summary = run(_translate(config, create, as_json, start))
    if as_json:
        typer.echo(json.dumps(summary.model_dump(mode="json"), indent=2))
    else:
        _print(summary)
    if summary.best is not None:
        deliver(summary.best.source, out_file, quiet=as_json)
    # 3: nothing here could run the best candidate (infrastructure unavailable: no GPU).
    codes = {JobStatus.SUCCEEDED: 0, JobStatus.NOT_RUN: 3}
    raise SystemExit(codes.get(status, 1))


def deliver(source: str, out_file: Path | None, quiet: bool = False) -> None:
    """The program exactly as verified: to `out_file`, or raw on stdout (never through a console
    that wraps long lines or reads markup: a pragma split in two no longer compiles). With
    `--json` on stdout already, only a file is written."""
    text = source if source.endswith("\n") else source + "\n"
    if out_file is not None:
        try:
            out_file.write_text(text, encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write {out_file}: {exc.strerror or exc}", 2)
        console.print(f"wrote {escape(str(out_file))}", highlight=False, soft_wrap=True)
    elif not quiet:
        sys.stdout.write(text)
        sys.stdout.flush()


async def _translate(
    config: Settings, create: TaskCreate, as_json: bool, start_model: bool = True
) -> tuple[JobStatus, TaskSummary]:
    from parforge.app import summarize
    from parforge.service.runners import build_graph_runner, close_runner

    if config.graph.use_model:
        # The program's own checks first (cheap, and bad input is bad input with or without a
        # model), then the model, before anything is stored: no task fails for want of one.
        from agents.preflight import InputRejected, check_task

        try:
            await asyncio.to_thread(check_task, create)
        except InputRejected as exc:
            fail(f"invalid input: {exc}", 2)
        await model_or_exit(config, start_model)
    with store(config) as engine:
        task_id = (await submit_checked(config, engine, create, "invalid input")).id
        console.print(f"task {task_id} queued", highlight=False)
        runner = build_graph_runner(config)
        try:
            status = await _run_and_show(config, engine, runner, task_id, quiet=as_json)
        finally:
            await close_runner(runner)
        with Session(engine) as session:
            summary = summarize(session, task_id)
    assert summary is not None  # stored above
    return status, summary


async def _run_and_show(
    config: Settings, engine: Engine, runner: Any, task_id: str, quiet: bool
) -> JobStatus:
    from parforge.service.events import follow
    from parforge.service.pool import WorkerPool

    notifier = Notifier()
    pool = WorkerPool(engine, runner, config.server, notifier)
    job = asyncio.create_task(pool.run_task(task_id))
    status = JobStatus.QUEUED
    try:
        async for event in follow(engine, notifier, task_id, poll_s=config.server.poll_s):
            if event.kind == "status":
                status = JobStatus(str(event.data["status"]))
            if not quiet:
                line = describe(event.kind, event.data)
                if line:
                    console.print(escape(line), highlight=False)
    except BaseException:
        job.cancel()
        raise
    finally:
        await asyncio.gather(job, return_exceptions=True)
    return status


def describe(kind: str, data: dict[str, Any]) -> str | None:
    """One progress line per event (pure)."""
    if kind == "step":
        name = data.get("name") or ""
        took = f" {float(data['latency_s']):.1f}s" if data.get("latency_s") else ""
        if data.get("kind") == "llm_call":
            tokens = data.get("completion_tokens")
            return f"  model  {name}{took}" + (f", {tokens} tokens" if tokens else "")
        result = data.get("result") or {}
        if name == "analyse" and isinstance(result, dict):
            loops = result.get("loops", [])
            return f"  tool   analyse: {len(loops)} loops, parallelisable {', '.join(result.get('parallelisable', [])) or 'none'}"
        arguments = data.get("arguments") or {}
        if name == "verify" and not data.get("tool_call_id") and "candidate_id" in arguments:
            # The sandbox's own step (a plan's `verify` call, or a check the agent added); the
            # analysis branch's `verify` tool step around it has no call id either.
            status = result.get("status", "error") if isinstance(result, dict) else "error"
            cid = arguments.get("candidate_id")
            reused = " (same program as before)" if result.get("reused") else ""
            return f"  sandbox verify candidate {cid}: {status}{took}{reused}"
        error = f" ({data['error']})" if data.get("error") else ""
        return f"  tool   {name}{took}{error}"
    if kind == "candidate":
        return f"  candidate {data.get('id')}: {data.get('strategy')}"
    if kind == "status":
        return f"task {data.get('status')}" + (f": {data['reason']}" if data.get("reason") else "")
    return None


def evolution_line(evolution: dict[str, Any]) -> str:
    """The human line for `translate`'s `evolution` summary (pure)."""
    said: list[str] = []
    if evolution["best_candidate_id"] is not None:
        said.append(f"best candidate {evolution['best_candidate_id']}")
    if evolution.get("best_confidence") is not None:
        said.append(f"confidence {float(evolution['best_confidence']):.2f}")
    return (
        f"evolution: {evolution['generations']} generations, "
        f"{evolution['evaluations']} evaluations, "
        f"{float(evolution['first_speedup']):.2f}x -> {float(evolution['best_speedup']):.2f}x"
        + (f" ({', '.join(said)})" if said else "")
    )


def _print(summary: TaskSummary) -> None:
    best = summary.best
    if (reasoning := summary.reasoning) is not None:
        console.print(
            f"reasoning: {reasoning['threads']} threads, {reasoning['pruned']} pruned, "
            f"{reasoning['tokens_generated']} tokens written, ~{reasoning['tokens_saved']} saved",
            highlight=False,
        )
    if (evolution := summary.evolution) is not None:
        console.print(evolution_line(evolution), highlight=False)
    if best is None:
        console.print(
            f"[bold red]no verified candidate[/]: {escape(summary.reason)}", highlight=False
        )
        return
    speedups = ", ".join(f"{v:.2f}x at {k}" for k, v in best.verdict.speedup.items())
    console.print(
        f"[bold green]verified[/] candidate {best.candidate_id} ({escape(best.strategy)}): "
        f"race-free {best.verdict.race_free}, speedup {speedups or 'not timed'}",
        highlight=False,
    )
    if not best.verdict.faster:
        console.print(
            "[bold yellow]warning[/]: verified, but not faster than the original "
            f"(speedup {speedups or 'not timed'}; every paired timing run must beat it)",
            highlight=False,
        )
