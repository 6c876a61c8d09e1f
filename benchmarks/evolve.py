"""Evolution from deliberately naive OpenMP starts: what parameter mutations, the model and
best-of-N sampling make of them on the Docker sandbox.

Each start is a task (a sequential C program, verified against itself) and a naive but correct
OpenMP version of it, verified first (`benchmarks/evolve_programs/`):

- `imbalanced`: a triangular nest (row i costs i iterations) under `schedule(static)` on the
  outer loop, which leaves the last thread most of the work;
- `inner`: a stencil with the INNER loop parallelised (a parallel region per row and step);
- `two_steps`: the triangular nest with its INNER loop parallelised: two steps from good (the
  enclosing loop, then a balancing schedule), where generations can beat one round of samples;
- `closest_pair`, `smallest_triangle`: ParEval problems (13, 12) whose pairwise and
  triple loops are triangular, from the analysis's own first choice (`schedule(static)`);
- `false_sharing`: a hand-written sum where each thread adds into `partial[omp_get_thread_num()]`
  of one shared array; it has no annotation choices, so only source mutations (schedule,
  proc_bind, simd of its directive) and the model can change it.

Three arms per start, interleaved within a round, the same seed for all in a round:

- `params`: evolution with parameter mutations only (`model_children=0`);
- `model`: evolution with one model child per generation (the served model; skipped with
  `--no-model` or when the server does not answer, and said so);
- `best_of_n`: the same evaluation budget E spent as one generation of E children of the start
  (N samples of its neighbourhood, no selection over generations).

Per arm: the start's speedup, the best's, their ratio, the best's confidence (last lineage
step), evaluations, wall seconds, and for `model` its correct children and the model steps on
the best's lineage. The table gives median (min-max) over rounds; then the median over starts
of best/start for `params` and `model` against the target (1.3x), and evolution's best over
best-of-N's per start.

    PARFORGE_DATA_DIR=... .venv/bin/python benchmarks/evolve.py [--starts imbalanced inner
        false_sharing] [--rounds 2] [--generations 4] [--children 3] [--no-model]
        [--json out.json]

Needs the sandbox image (Docker) and, for the `model` arm, the served model
(`parforge model serve`). Timing uses 1 and 2 threads (a 2-core machine).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlmodel import Session

from agents.analysis.annotate import LoopChoice, annotatable, apply_choices, default_choices
from agents.evolve.fitness import fitness
from agents.evolve.record import lineage
from agents.graphs.evolve import evolve_from
from agents.graphs.shared.config import EvolveConfig
from agents.judge import SandboxJudge
from agents.llm import LLMClient
from agents.runners import GraphRunner
from agents.tools import verify_made
from agents.tools.calls import keep
from corpus.runner import TaskContext
from corpus.store import open_store, tasks
from corpus.store.models import (
    ParallelTarget,
    StepCreate,
    StepKind,
    TaskCreate,
    TaskDetail,
    TaskOptions,
    TestInput,
)
from corpus.store.recorder import Recorder
from corpus.suites import load_suite
from parforge.settings import Settings, load_settings
from sandbox.spec import Language, Spec, Target
from sandbox.verify.verifier import open_verifier

PROGRAMS = Path(__file__).resolve().parent / "evolve_programs"
ARMS = ["params", "model", "best_of_n"]
TARGET_GAIN = 1.3


@dataclass(frozen=True)
class Start:
    """A task (its sequential program and tests, the last one timed) and its naive start."""

    program: str
    tests: list[list[str]]
    inside: str | None = None
    """Annotated start: the line of the loop the naive choice is about (`outer_of`: its parent)."""
    outer_of: bool = False
    naive: str | None = None
    """Hand-written start (a file), no choices."""
    pareval: str | None = None
    """A ParEval problem (its serial function, checked through its driver); the start is the
    dependence analysis's own first choice: `schedule(static)` on the outermost parallel loop,
    which on ParEval's pairwise and triangular loops leaves the threads unevenly loaded."""


STARTS = {
    "imbalanced": Start("imbalanced.c", [["50"], ["777"], ["20000"]], "j < i;", outer_of=True),
    "two_steps": Start("imbalanced.c", [["50"], ["777"], ["20000"]], "j < i;"),
    "inner": Start(
        "inner.c", [["10", "1", "12"], ["301", "3", "7"], ["1500", "20", "1500"]], "j < cols - 1;"
    ),
    "false_sharing": Start(
        "sum.c", [["10", "1"], ["4099", "3"], ["1000000", "300"]], naive="false_sharing.c"
    ),
    "closest_pair": Start("", [], pareval="13_geometry_closest_pair_2d"),
    "smallest_triangle": Start("", [], pareval="12_geometry_smallest_triangle"),
}


def pareval_task(name: str) -> TaskCreate:
    """A ParEval problem as the eval harness submits it to the graph agent."""
    task = load_suite("pareval").task(name)
    source = next(
        t.source
        for t in load_suite("pareval").translations
        if t.problem == name and t.supported and t.source_model == "serial"
    )
    return TaskCreate(
        name=name,
        language=Language(task.language),
        target=ParallelTarget.OPENMP,
        source=source,
        options=TaskOptions(spec=Spec.model_validate(task.spec_for(Target.OPENMP)).model_dump()),
    )


def naive_choices(start: Start, ctx: Any) -> list[LoopChoice]:
    """`schedule(static)` on the chosen loop of the start (ParEval: the analysis's choice)."""
    tools = ctx.tools
    if start.pareval is not None:
        return default_choices(annotatable(tools.view.program, tools.view.function))
    assert start.inside is not None
    line = next(i for i, t in enumerate(tools.view.source.splitlines(), 1) if start.inside in t)
    loops = {loop.id: loop for loop in tools.view.program.loops}
    loop = next(loop for loop in tools.view.program.loops if loop.line == line)
    if start.outer_of:
        assert loop.parent is not None
        loop = loops[loop.parent]
    if loop.id not in {a.id for a in annotatable(tools.view.program)}:
        raise SystemExit(f"{start.program}: loop {loop.id} is not annotatable")
    return [LoopChoice(loop=loop.id, schedule="static")]


async def run_arm(
    engine: Any, settings: Settings, name: str, arm: str, seed: int, args: argparse.Namespace
) -> dict[str, Any]:
    """One arm on one start: a fresh task, the naive start verified, then evolution."""
    start = STARTS[name]
    use_model = arm == "model"
    budget = args.generations * args.children
    if arm == "best_of_n":
        evolution = EvolveConfig(
            generations=1, evaluations=budget, children=budget, model_children=0, seed=seed
        )
    else:
        evolution = EvolveConfig(
            generations=args.generations,
            evaluations=budget,
            children=args.children,
            model_children=1 if use_model else 0,
            plateau=args.generations,
            seed=seed,
        )
    config = settings.graph.model_copy(
        update={
            "threads": [1, 2],
            "use_model": use_model,
            "evolve": True,
            "evolution": evolution,
            "timing_repeats": args.repeats,
        }
    )
    verifier = SandboxJudge(open_verifier(settings.sandbox), settings.verify)
    runner = GraphRunner(LLMClient(settings.model.client_config()), verifier, config)
    if start.pareval is not None:
        create = pareval_task(start.pareval)
    else:
        create = TaskCreate(
            name=name,
            language="c",  # type: ignore[arg-type]
            target="openmp",  # type: ignore[arg-type]
            source=(PROGRAMS / start.program).read_text(),
            tests=[TestInput(name=f"t{i}", args=a) for i, a in enumerate(start.tests)],
        )
    with Session(engine) as s:
        task_id = tasks.submit(s, create).id
        task = tasks.claim(s, "evolve", task_id)
        assert task is not None
        run = tasks.start_run(s, task, runner.name, "evolve")
        assert run.id is not None
        detail, run_id = TaskDetail.model_validate(task), run.id
    recorder = Recorder(engine, task_id, run_id)
    t0 = time.perf_counter()
    try:
        ctx = await runner.context(TaskContext(detail, run_id, 1, recorder))
        tools = ctx.tools
        step_id = await tools.deps.trace.recorder.add_step(
            StepCreate(kind=StepKind.TOOL_CALL, name="start", tool_name="start", arguments={})
        )
        if start.naive is not None:
            made = await keep(tools, (PROGRAMS / start.naive).read_text(), "naive", step_id)
        else:
            choices = naive_choices(start, ctx)
            source = apply_choices(tools.view.source, tools.view.program, choices)
            made = await keep(tools, source, "naive", step_id)
            made.choices = choices
        verdict, _ = await verify_made(tools, made)
        start_speedup = fitness(verdict).speedup
        row: dict[str, Any] = {"start": name, "arm": arm, "seed": seed}
        if not verdict.passed:
            return row | {"error": f"the naive start does not pass: {verdict.status.value}"}
        record = await evolve_from(ctx, [made])
    finally:
        await recorder.aclose()
        await runner.aclose()
    chain = lineage(record)
    best = chain[-1]["speedup"] if chain else start_speedup
    model_rows = [h for h in record["history"] if h["operator"] == "model"]
    return row | {
        "start_speedup": start_speedup,
        "best_speedup": best,
        "ratio": best / start_speedup if start_speedup else None,
        "confidence": chain[-1]["over_best"] if chain else None,
        "evaluations": record["evaluations"],
        "generations": record["generation"],
        "wall_s": time.perf_counter() - t0,
        "model_children": len(model_rows),
        "model_correct": sum(1 for h in model_rows if h.get("correct")),
        "model_on_lineage": sum(1 for c in chain if c["operator"] == "model"),
        "lineage": [f"{c['operator']}:{c['label']}" for c in chain],
        "children": [
            {k: h.get(k) for k in ("generation", "operator", "label", "status", "speedup")}
            for h in record["history"]
        ],
        "stopped": record["stopped"],
    }


def spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def report(rows: list[dict[str, Any]], starts: list[str], arms: list[str]) -> None:
    ok = [r for r in rows if "error" not in r]
    for r in rows:
        if "error" in r:
            print(f"{r['start']} {r['arm']} seed {r['seed']}: {r['error']}")
    head = f"{'start':14s} {'arm':10s} {'start x':>18s} {'best x':>18s} {'best/start':>18s}"
    print("\n" + head + f" {'conf':>6s} {'evals':>6s} {'wall s':>7s} model(correct/lineage)")
    for name in starts:
        for arm in arms:
            rs = [r for r in ok if r["start"] == name and r["arm"] == arm]
            if not rs:
                continue
            conf = [r["confidence"] for r in rs if r["confidence"] is not None]
            model = ""
            if arm == "model":
                model = " ".join(
                    f"{r['model_correct']}/{r['model_children']},{r['model_on_lineage']}"
                    for r in rs
                )
            print(
                f"{name:14s} {arm:10s} {spread([r['start_speedup'] for r in rs]):>18s}"
                f" {spread([r['best_speedup'] for r in rs]):>18s}"
                f" {spread([r['ratio'] for r in rs if r['ratio']]):>18s}"
                f" {statistics.median(conf) if conf else float('nan'):6.2f}"
                f" {statistics.median(r['evaluations'] for r in rs):6.0f}"
                f" {statistics.median(r['wall_s'] for r in rs):7.1f} {model}"
            )
    print()
    for arm in ("params", "model"):
        per_start = [
            statistics.median(got)
            for name in starts
            if (
                got := [
                    r["ratio"] for r in ok if (r["start"], r["arm"]) == (name, arm) and r["ratio"]
                ]
            )
        ]
        if per_start:
            met = "met" if statistics.median(per_start) >= TARGET_GAIN else "not met"
            print(
                f"{arm}: median over starts of best/start {statistics.median(per_start):.2f}x"
                f" (target median >= {TARGET_GAIN}x: {met})"
            )
    for arm in ("params", "model"):
        ratios = []
        for name in starts:
            for seed in {r["seed"] for r in ok}:
                ev = [r for r in ok if (r["start"], r["arm"], r["seed"]) == (name, arm, seed)]
                bn = [
                    r for r in ok if (r["start"], r["arm"], r["seed"]) == (name, "best_of_n", seed)
                ]
                if ev and bn and bn[0]["best_speedup"]:
                    ratios.append(ev[0]["best_speedup"] / bn[0]["best_speedup"])
        if ratios:
            wins = sum(1 for x in ratios if x > 1)
            print(
                f"{arm} vs best_of_n (best speedup ratio per start and round): {spread(ratios)},"
                f" evolution ahead in {wins}/{len(ratios)}"
            )


async def model_up(settings: Settings) -> bool:
    try:
        async with LLMClient(settings.model.client_config()) as llm:
            await llm.model_name()
        return True
    except Exception as exc:  # any failure to reach it: the arm is skipped, and said
        print(f"the model server does not answer ({exc}): no `model` arm", file=sys.stderr)
        return False


async def main(args: argparse.Namespace) -> list[dict[str, Any]]:
    settings = load_settings()
    arms = [a for a in ARMS if a in args.arms]
    if "model" in arms and (args.no_model or not await model_up(settings)):
        arms.remove("model")
        print("`model` arm skipped (--no-model or no server)")
    budget = args.generations * args.children
    print(
        f"starts {', '.join(args.starts)}; arms {', '.join(arms)}; E = N = {budget}"
        f" ({args.generations} generations x {args.children} children); rounds {args.rounds}"
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        engine = open_store(f"sqlite:///{Path(tmp) / 'evolve.db'}")
        for r in range(args.rounds):
            seed = args.seed + r
            for name in args.starts:
                for arm in arms:
                    row = await run_arm(engine, settings, name, arm, seed, args)
                    rows.append(row | {"round": r})
                    shown = (
                        row.get("error")
                        or f"{row['start_speedup']:.2f}x -> {row['best_speedup']:.2f}x"
                        f" in {row['evaluations']} evaluations, {row['wall_s']:.0f}s"
                        f" ({' > '.join(row['lineage'])}; stopped: {row['stopped']})"
                    )
                    print(f"  round {r} {name} {arm}: {shown}", flush=True)
        engine.dispose()
    report(rows, args.starts, arms)
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", nargs="*", default=list(STARTS), choices=list(STARTS))
    parser.add_argument("--arms", nargs="*", default=ARMS, choices=ARMS)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--children", type=int, default=3, help="per generation; E = G x C")
    parser.add_argument("--seed", type=int, default=0, help="round r uses seed + r")
    parser.add_argument("--repeats", type=int, default=5, help="timing repeats per candidate")
    parser.add_argument("--no-model", action="store_true")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rows = asyncio.run(main(args))
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "rows": rows}, indent=2))
