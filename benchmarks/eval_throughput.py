"""Eval throughput: verified candidates per minute with the replay model on the Docker pool, where
the time goes, and what each harness optimization buys, measured side by side in one run.

Every configuration evaluates the same candidates (known-good solutions by default, so that every
stage runs: build, tests, race check, timing) of the same ParEval tasks on one warm sandbox pool:

    naive       one verification at a time, the reference built, run and timed for every sample
    cache       one at a time, the reference's outputs and timing reused across a task's samples
    pool        as many at once as the pool holds, no reference cache
    pool+cache  both (timing runs still alone: the timing gate)      = what `parforge eval run` does
    no-gate     both, but timing runs share the sandbox with other jobs (faster, less trustworthy)

Prints per configuration the wall time, candidates per minute, the ratio to `naive`, the median
speedup measured at the largest thread count (to show whether timing changed), and the time per
stage summed over all commands; `--rounds` repeats the whole comparison, interleaved.

`--lean` verifies without the runs the verdict-integrity work added to each verification (the
hidden inputs and the race checker's run at timing size; the reference's paired timing runs stay,
since a speedup means nothing without them): run it beside a plain run to see what they cost.

    python benchmarks/eval_throughput.py [--problems 3] [--samples 3] [--no-timing] [--rounds 1]
        [--lean]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from sqlmodel import Session

from agents.llm import LLMConfig
from corpus.store import evals as store
from corpus.store import open_store
from corpus.store.models import EvalRunCreate
from corpus.suites import load_suite
from evals.config import RunOptions
from evals.outcomes import STAGES
from evals.runner import EvalRunner
from evals.sources.replay import ReplaySource
from sandbox.backends import open_sandbox
from sandbox.config import DockerConfig, RaceCheckConfig, VerifyOptions
from sandbox.spec import Target
from sandbox.verify.verifier import LocalVerifier

DEFAULT_PROBLEMS = ["03_dense_la_axpy", "15_graph_edge_count", "55_transform_relu"]
CONFIGS = {
    "naive": dict(concurrency=1, reference_cache=False, exclusive_timing=True),
    "cache": dict(concurrency=1, reference_cache=True, exclusive_timing=True),
    "pool": dict(concurrency=None, reference_cache=False, exclusive_timing=True),
    "pool+cache": dict(concurrency=None, reference_cache=True, exclusive_timing=True),
    "no-gate": dict(concurrency=None, reference_cache=True, exclusive_timing=False),
}


@dataclass
class Measured:
    wall_s: list[float] = field(default_factory=list)
    candidates: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    stages: dict[str, float] = field(default_factory=dict)
    speedups: list[float] = field(default_factory=list)

    @property
    def per_minute(self) -> float:
        return 60 * self.candidates / sum(self.wall_s) if self.wall_s else 0.0


async def measure(
    runner: EvalRunner,
    problems: list[str],
    samples: int,
    timing: bool,
    options: RunOptions,
    replay: ReplaySource,
    result: Measured,
) -> None:
    create = EvalRunCreate(
        suite="pareval",
        target=Target.OPENMP,
        model=replay.name,
        samples_k=samples,
        problems=problems,
        timing=timing,
    )
    with Session(runner.engine) as session:
        run = store.submit(session, create, options=options.model_dump())
    assert run.id is not None
    start = time.perf_counter()
    await runner.run(run.id, source=replay)
    result.wall_s.append(time.perf_counter() - start)
    with Session(runner.engine) as session:
        rows = store.rows(session, run.id)
    for row in rows:
        result.candidates += 1
        result.statuses[row.status] = result.statuses.get(row.status, 0) + 1
        for stage, seconds in row.verdict.get("stages", {}).items():
            result.stages[stage] = result.stages.get(stage, 0.0) + seconds
        if row.speedups:
            result.speedups.append(row.speedups[max(row.speedups, key=int)])


def breakdown(m: Measured) -> str:
    total = sum(m.stages.values()) or 1.0
    parts = [
        f"{s} {m.stages.get(s, 0.0):6.1f}s ({100 * m.stages.get(s, 0.0) / total:3.0f}%)"
        for s in STAGES
    ]
    return "  ".join(parts)


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--problems", type=int, default=len(DEFAULT_PROBLEMS))
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--pool", type=int, default=2, help="sandbox pool size")
    parser.add_argument("--model", default="known-good", choices=["known-good", "mutants"])
    parser.add_argument("--only", nargs="*", choices=list(CONFIGS), default=list(CONFIGS))
    parser.add_argument("--lean", action="store_true", help="no hidden inputs, no large race run")
    args = parser.parse_args()

    suite = load_suite("pareval")
    problems = DEFAULT_PROBLEMS + [t.name for t in suite.tasks_for(Target.OPENMP)]
    problems = list(dict.fromkeys(problems))[: args.problems]
    timing = not args.no_timing
    replay = ReplaySource(kind="known-good" if args.model == "known-good" else "mutants")
    sandbox = open_sandbox(DockerConfig(pool_size=args.pool))
    with tempfile.TemporaryDirectory() as tmp:
        engine = open_store(f"sqlite:///{Path(tmp) / 'bench.db'}")
        lean = VerifyOptions(hidden=0, race=RaceCheckConfig(large=False))
        runner = EvalRunner(
            engine,
            LocalVerifier(sandbox),
            llm=LLMConfig(url="http://unused/v1"),
            pool_size=args.pool,
            verify_options=lean if args.lean else None,
        )
        try:
            await sandbox.start()  # containers warm before anything is timed
            print(
                f"{len(problems)} openmp problems x {args.samples} samples (replay:{args.model}), "
                f"timing {'on' if timing else 'off'}, Docker pool of {args.pool}, {args.rounds} round(s)"
                + (", lean (no hidden inputs, no race run at timing size)" if args.lean else "")
            )
            results = {name: Measured() for name in args.only}
            for _ in range(args.rounds):
                for name in args.only:
                    options = RunOptions(**CONFIGS[name])  # type: ignore[arg-type]
                    await measure(
                        runner, problems, args.samples, timing, options, replay, results[name]
                    )
                    m = results[name]
                    print(f"  {name:<11} {m.wall_s[-1]:7.1f}s", flush=True)
        finally:
            await runner.aclose()
            engine.dispose()

    base = results[args.only[0]]
    print()
    print(
        f"{'config':<11} {'wall s':>8} {'cand/min':>9} {'ratio':>6} {'median speedup':>15}  outcomes"
    )
    for name, m in results.items():
        speed = f"{statistics.median(m.speedups):.2f}" if m.speedups else "–"
        ratio = m.per_minute / base.per_minute if base.per_minute else 0.0
        print(
            f"{name:<11} {sum(m.wall_s):8.1f} {m.per_minute:9.1f} {ratio:5.2f}x {speed:>15}  {m.statuses}"
        )
    print(
        "\nwhere the time goes (command seconds summed over every sample; concurrent commands each count):"
    )
    for name, m in results.items():
        print(f"  {name:<11} {breakdown(m)}")


if __name__ == "__main__":
    asyncio.run(main())
