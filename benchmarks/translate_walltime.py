"""Where the main job's time goes: `parforge translate` on examples/heat2d with a warm model
server, split into model time, sandbox time and the rest, from the stored steps.

Model time is the union of the intervals in which at least one model call was running;
sandbox time the union of those with a verification or a test check running; both together
can exceed the wall time because they overlap (that is the agent's parallelism); overhead is
the wall time during which neither was running (analysis, planning logic, the store, the
graph). Repeated, with the spread:

    .venv/bin/python benchmarks/translate_walltime.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from datetime import datetime
from pathlib import Path

from sqlmodel import Session

from corpus.store import open_store, tasks
from corpus.store.models import StepRow, TaskCreate, TaskOptions, TestInput
from parforge.service.pool import WorkerPool
from parforge.service.runners import build_graph_runner
from parforge.settings import ServiceConfig, load_settings

ROOT = Path(__file__).resolve().parent.parent
TESTS = [["32", "10"], ["67", "25"], ["200", "40"], ["1000", "100"]]
SANDBOX_STEPS = {"verify", "tests"}


def busy(intervals: list[tuple[datetime, datetime]]) -> float:
    """Seconds covered by at least one interval."""
    total, end = 0.0, None
    for start, stop in sorted(intervals):
        if end is None or start > end:
            total += (stop - start).total_seconds()
            end = stop
        elif stop > end:
            total += (stop - end).total_seconds()
            end = stop
    return total


def split(steps: list[StepRow], wall: float) -> dict[str, float]:
    def spans(keep: object) -> list[tuple[datetime, datetime]]:
        return [
            (s.started_at, s.finished_at)
            for s in steps
            if s.started_at and s.finished_at and keep(s)  # type: ignore[operator]
        ]

    model = spans(lambda s: s.kind == "llm_call")
    sandbox = spans(lambda s: s.name in SANDBOX_STEPS and not s.tool_call_id)
    return {
        "wall_s": wall,
        "model_s": busy(model),
        "sandbox_s": busy(sandbox),
        "overhead_s": max(0.0, wall - busy(model + sandbox)),
    }


async def one(url: str) -> dict[str, float]:
    settings = load_settings()
    settings = settings.model_copy(update={"store": settings.store.model_copy(update={"url": url})})
    engine = open_store(url)
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
    runner = build_graph_runner(settings)
    t0 = time.perf_counter()
    try:
        await WorkerPool(engine, runner, ServiceConfig(poll_s=0.1)).run_task(task_id)
    finally:
        await runner.aclose()
    wall = time.perf_counter() - t0
    with Session(engine) as s:
        steps = tasks.steps_of(s, task_id)
        task = tasks.get(s, task_id)
        assert task is not None
        status = task.status
    engine.dispose()
    print(f"  {status}: " + ", ".join(f"{k} {v:.1f}" for k, v in split(steps, wall).items()))
    return split(steps, wall)


async def main(rounds: int) -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            rows.append(await one(f"sqlite:///{tmp}/r{r}.db"))
    print(f"\nparforge translate heat2d, {rounds} rounds, median (min-max):")
    for key in rows[0]:
        values = [row[key] for row in rows]
        print(
            f"  {key:11s} {statistics.median(values):6.1f} s ({min(values):.1f}-{max(values):.1f})"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(main(parser.parse_args().rounds))
