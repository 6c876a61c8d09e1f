"""ParEval serial→OpenMP (or serial→MPI, or ParForge's serial→CUDA) translation, one sample per
problem, three ways side by side:

- `prompt`: prompt mode (the model completes ParEval's translation prompt);
- `graph`: the translate agent (plan, tools in parallel, annotation, rewrite, repair);
- `analysis`: the translate agent with the model's choices replaced by the first schema option
  and no model call at all: what the dependence analysis alone achieves (for MPI, the
  `distribute` tool's rank blocks; for CUDA, the `offload` tool's kernel in the driver's
  signature, which builds here and is `not_run` without a GPU: build@1 is the figure here).

Every sample is verified by the same eval harness (build, tests at 1/2/4 threads or 1-4 ranks,
race or deadlock check);
pass@1 counts a sample only when it is correct, and race-free@1 when it is also free of races.
Runs on the configured model (the embedded one by default) and the Docker sandbox:

    .venv/bin/python benchmarks/translate_pareval.py [--problems 'PATTERN' ...] [--limit N]
        [--agents prompt graph analysis] [--timing] [--one-per-type] [--to openmp|mpi|cuda]
        [--speedup-at N]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from sqlmodel import Session

from corpus.store import evals as store
from corpus.store import open_store
from corpus.store.models import EvalRunCreate
from corpus.suites import load_suite
from evals.config import RunOptions
from evals.plan import select_problems
from evals.stored import load_run
from evals.summary import OVERALL, summarize
from parforge.service.evals import EvalPool, build_eval_runner
from parforge.settings import load_settings
from sandbox.spec import Target

RESUMES = 2  # how often one arm's run is resumed after an interruption


async def one(
    agent: str,
    names: list[str],
    timing: bool,
    url: str,
    target: Target,
    at: int = 4,
    model_url: str | None = None,
) -> tuple[dict[str, float | None], float, dict[str, str]]:
    """One arm: its metrics, its wall time and each problem's status (`model_url`: another
    OpenAI-compatible endpoint than the configured model, such as `oracle.py`'s)."""
    settings = load_settings()
    update: dict[str, object] = {"store": settings.store.model_copy(update={"url": url})}
    if model_url is not None:
        endpoint = settings.model.endpoint.model_copy(update={"url": model_url, "model": None})
        update["model"] = settings.model.model_copy(update={"endpoint": endpoint})
    settings = settings.model_copy(update=update)
    engine = open_store(url)
    options = RunOptions(agent=agent, translate_from="serial")  # type: ignore[arg-type]
    create = EvalRunCreate(
        suite="pareval",
        target=target,
        samples_k=1,
        problems=names,
        timing=timing,
    )
    with Session(engine) as session:
        row = store.submit(session, create, options=options.model_dump(mode="json"))
    assert row.id is not None
    runner = build_eval_runner(settings, engine)
    pool = EvalPool(engine, runner, settings.server, workers=0)
    t0 = time.perf_counter()
    try:
        for attempt in range(1 + RESUMES):
            final = await pool.run_one(row.id)
            # A run the sandbox or the model interrupted keeps its finished samples: resume it,
            # as `parforge eval run --resume` would, so that one lost container does not count
            # every task after it as failed. Each resume is printed.
            if "resume with" not in (final.reason or "") or attempt == RESUMES:
                break
            print(f"  {agent}: {final.reason}; resuming ({attempt + 1} of {RESUMES})", flush=True)
            with Session(engine) as session:
                store.reopen(session, row.id, settings.server.lease_s)
    finally:
        await runner.aclose()
    took = time.perf_counter() - t0
    data = load_run(engine, row.id)
    engine.dispose()
    summary = summarize(data.outcomes, [1], at if timing else None)
    overall = summary.row(OVERALL, 1)
    statuses = {o.problem: o.status or ("passed" if o.correct else "failed") for o in data.outcomes}
    for o in data.outcomes:
        if timing and o.correct and at in o.speedups:
            statuses[o.problem] += f" {o.speedups[at]:.2f}x"
    for o in data.outcomes:
        if o.not_run:  # why the verifier could not judge it, after the table
            statuses[o.problem] += f" ({o.not_run})"
    return (
        {
            "build@1": overall.build,
            "pass@1": overall.passed,
            "race-free@1": overall.race_free,
            f"speedup_{at}@1": overall.speedup,
        },
        took,
        statuses,
    )


async def main(
    patterns: list[str],
    limit: int | None,
    agents: list[str],
    timing: bool,
    per_type: bool,
    target: Target,
    at: int = 4,
) -> None:
    suite = load_suite("pareval")
    names = select_problems(suite, target, patterns, None, "serial")
    if per_type:  # the first problem of each type (ParEval's names are NN_type_..._name)
        firsts: dict[str, str] = {}
        for name in names:
            firsts.setdefault(name.split("_")[1], name)
        names = list(firsts.values())
    names = names[:limit] if limit is not None else names
    print(
        f"{len(names)} ParEval serial->{target.value} translation problems, 1 sample each: {', '.join(names)}"
    )
    results = {}
    per_problem: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for agent in agents:
            metrics, took, statuses = await one(
                agent, names, timing, f"sqlite:///{Path(tmp) / (agent + '.db')}", target, at
            )
            results[agent], per_problem[agent] = metrics, statuses
            shown = ", ".join(
                f"{k} {v:.3f}" if v is not None else f"{k} -" for k, v in metrics.items()
            )
            print(f"{agent:9s} {shown}  ({took:.0f}s)", flush=True)
    print("\nper problem (the verdict's status of the one sample):")
    print(f"{'problem':40s} " + " ".join(f"{a:>14s}" for a in agents))
    for name in names:
        cells = " ".join(f"{per_problem[a].get(name, 'not finished'):>14s}" for a in agents)
        print(f"{name:40s} {cells}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", nargs="*", default=[])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--agents", nargs="*", default=["analysis", "graph", "prompt"])
    parser.add_argument("--timing", action="store_true")
    parser.add_argument(
        "--one-per-type", action="store_true", help="only the first problem of each problem type"
    )
    parser.add_argument("--to", choices=["openmp", "mpi", "cuda"], default="openmp")
    parser.add_argument(
        "--speedup-at", type=int, default=4, help="the thread or rank count speedup is read at"
    )
    args = parser.parse_args()
    asyncio.run(
        main(
            args.problems,
            args.limit,
            args.agents,
            args.timing,
            args.one_per_type,
            Target(args.to),
            args.speedup_at,
        )
    )
