"""The task-fetching unit, measured: one plan run with its steps one at a time vs at once, with
real tool latencies (the embedded model, the Docker sandbox), against the plan's critical path.

The plan is the default plan on examples/heat2d (generated tests, examples, two annotated
candidates and a rewrite, each verified). For each run the stored tool steps give every step's
start and end; the critical path is the longest chain of step durations through the plan's
`$N` dependences. Two ideals are reported:

- `own`: the critical path of the parallel run's own step durations: what a scheduler that
  never lets a ready step wait would achieve with these steps. measured / ideal is the
  scheduler's efficiency (target >= 0.9).
- `solo`: the critical path of the sequential run's durations (each step alone on the
  machine): what unlimited cores would allow. On 2 cores parallel sandbox runs slow each other
  down, so this one is out of reach and says how much the machine, not the scheduler, costs.

    .venv/bin/python benchmarks/plan_parallelism.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from sqlmodel import Session

from agents.core import references
from agents.graphs.shared.config import GraphConfig
from agents.graphs.translate.plans import default_plan
from agents.llm import LLMClient
from agents.runners import GraphRunner, SandboxJudge
from corpus.store import open_store, tasks
from corpus.store.models import TaskCreate, TaskOptions, TestInput
from parforge.service.pool import WorkerPool
from parforge.settings import ServiceConfig, load_settings
from sandbox.spec import Target
from sandbox.verify.verifier import open_verifier

ROOT = Path(__file__).resolve().parent.parent
TESTS = [["32", "10"], ["67", "25"], ["200", "40"], ["1000", "100"]]


def critical_path(durations: dict[int, float], deps: dict[int, set[int]]) -> float:
    """The longest chain of durations through the dependences (steps in plan order)."""
    finish: dict[int, float] = {}
    for step in sorted(durations):
        start = max((finish[d] for d in deps.get(step, set()) if d in finish), default=0.0)
        finish[step] = start + durations[step]
    return max(finish.values(), default=0.0)


async def one_run(concurrency: int, store_url: str) -> tuple[float, dict[int, float]]:
    settings = load_settings()
    engine = open_store(store_url)
    create = TaskCreate(
        name="heat2d",
        language="c",
        target="openmp",
        source=(ROOT / "examples/heat2d/heat2d.c").read_text(),
        tests=[TestInput(name=f"t{i}", args=a) for i, a in enumerate(TESTS)],
        options=TaskOptions(rtol=1e-9),
    )
    with Session(engine) as s:
        task_id = tasks.submit(s, create).id
    config = GraphConfig(
        planner=False, repairs=0, replans=0, concurrency=concurrency, rewrite_tokens=256
    )
    runner = GraphRunner(
        LLMClient(settings.model.client_config()),
        SandboxJudge(
            open_verifier(settings.sandbox.model_copy(update={"pool_size": 4})), settings.verify
        ),
        config,
    )
    try:
        await WorkerPool(engine, runner, ServiceConfig(poll_s=0.1)).run_task(task_id)
    finally:
        await runner.aclose()
    with Session(engine) as s:
        steps = [st for st in tasks.steps_of(s, task_id) if st.tool_call_id]
    engine.dispose()
    durations = {
        int(st.tool_call_id.rsplit("_", 1)[1]): (st.finished_at - st.started_at).total_seconds()
        for st in steps
        if st.started_at and st.finished_at
    }
    start = min(st.started_at for st in steps if st.started_at)
    end = max(st.finished_at for st in steps if st.finished_at)
    return (end - start).total_seconds(), durations


async def main(rounds: int) -> None:
    plan = default_plan(Target.OPENMP, annotatable=True, extra_tests=3)
    deps = {step.id: references(step.args) for step in plan}
    rows: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        for r in range(rounds):
            t0 = time.perf_counter()
            seq_s, seq_d = await one_run(1, url)
            par_s, par_d = await one_run(8, url)
            rows.append(
                {
                    "sequential_s": seq_s,
                    "parallel_s": par_s,
                    "ideal_own_s": critical_path(par_d, deps),
                    "ideal_solo_s": critical_path(seq_d, deps),
                }
            )
            print(
                f"round {r + 1}: "
                + ", ".join(f"{k} {v:.1f}" for k, v in rows[-1].items())
                + f" ({time.perf_counter() - t0:.0f}s)"
            )

    def spread(key: str) -> str:
        values = [row[key] for row in rows]
        return f"{statistics.median(values):.1f} s (min {min(values):.1f}, max {max(values):.1f})"

    print(f"\n{len(plan)} plan steps, {rounds} rounds, medians:")
    for key in rows[0]:
        print(f"  {key:14s} {spread(key)}")
    eff = [row["ideal_own_s"] / row["parallel_s"] for row in rows]
    speedup = [row["sequential_s"] / row["parallel_s"] for row in rows]
    solo = [row["ideal_solo_s"] / row["parallel_s"] for row in rows]
    print(
        f"  parallel vs sequential: {statistics.median(speedup):.2f}x (min {min(speedup):.2f}, max {max(speedup):.2f})"
    )
    print(
        f"  measured / critical-path ideal (own durations): {statistics.median(eff):.2f} (min {min(eff):.2f}, max {max(eff):.2f})"
    )
    print(f"  measured / critical-path ideal (solo durations): {statistics.median(solo):.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(main(parser.parse_args().rounds))
