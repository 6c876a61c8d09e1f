"""Replay eval throughput on the local Docker backend vs the Ray backend, side by side in one run.

The same known-good candidates of the same ParEval OpenMP problems, verified by the eval runner
(reference cache and timing gate as `parforge eval run` uses them), through:

    local      the Docker backend in this process, a pool of `--slots`
    ray-1      a local Ray cluster with one sandbox node of `--slots` units (its own actor,
               warm pool, reference cache and timing gate): Ray's overhead per verification
    ray-2      the same cluster with two sandbox nodes of `--slots / 2` units each: the same
               concurrency spread over two nodes, so the ratio to ray-1 is the scheduling
               efficiency of spreading (on one host both nodes share its cores and engine)

With `--timing`, ray-2 on one host has two timing gates that do not know each other, so one
node's timing runs share the cores with the other's work: faster here, and less trustworthy
(the median speedups printed show it). On separate hosts that is exactly right.

Then Ray's own cost per verification, apart from the noise of whole evals: the same tiny
serial program verified `--overhead` times one after another (no timing) on the local backend
and on one Ray node, interleaved; the difference per call is the task, the actor call and the
JSON both ways.

Every arm is warmed first (containers started, one eval run of another problem) and not
timed then; `--rounds`
repeats the comparison, interleaved, and the ratios are per round (median, min-max). The Ray
cluster is a real one (a head and node processes, Ray's `cluster_utils`), started here.

    python benchmarks/ray_throughput.py [--problems 3] [--samples 3] [--rounds 3] [--timing] [--target mpi]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlmodel import Session

from agents.llm import LLMConfig
from corpus.store import evals as store
from corpus.store import open_store
from corpus.store.models import EvalRunCreate
from corpus.suites import load_suite
from evals.runner import EvalRunner
from evals.sources.replay import ReplaySource
from sandbox.config import DockerConfig, RayConfig
from sandbox.spec import Candidate, Spec, Target, TestCase
from sandbox.spec import Target as SandboxTarget
from sandbox.verify.refcache import ReferenceCache
from sandbox.verify.verifier import open_verifier

DEFAULT_PROBLEMS = ["03_dense_la_axpy", "15_graph_edge_count", "55_transform_relu"]
NAMESPACE = "parforge-bench"


async def eval_once(
    runner: EvalRunner,
    problems: list[str],
    samples: int,
    timing: bool,
    target: str,
) -> tuple[float, int, dict[str, int], dict[str, int], list[float]]:
    """(wall seconds, candidates, statuses, verifications per node, speedups at the largest
    thread count) of one replay eval."""
    create = EvalRunCreate(
        suite="pareval",
        target=Target(target),
        model="replay:known-good",
        samples_k=samples,
        problems=problems,
        timing=timing,
    )
    with Session(runner.engine) as session:
        run = store.submit(session, create)
    assert run.id is not None
    start = time.perf_counter()
    await runner.run(run.id, source=ReplaySource(kind="known-good"))
    wall = time.perf_counter() - start
    statuses: dict[str, int] = {}
    nodes: dict[str, int] = {}
    speedups: list[float] = []
    with Session(runner.engine) as session:
        for row in store.rows(session, run.id):
            statuses[row.status] = statuses.get(row.status, 0) + 1
            node = ((row.verdict or {}).get("sandbox") or {}).get("node") or "local"
            nodes[node[:8]] = nodes.get(node[:8], 0) + 1
            if row.speedups:
                speedups.append(row.speedups[max(row.speedups, key=int)])
    return wall, sum(statuses.values()), statuses, nodes, speedups


class Cluster:
    """A local Ray cluster whose sandbox nodes change between arms."""

    def __init__(self) -> None:
        import ray
        from ray.cluster_utils import Cluster as RayCluster

        self.ray = ray
        self.cluster = RayCluster(initialize_head=True, head_node_args={"num_cpus": 0})
        ray.init(address=self.cluster.address, namespace=NAMESPACE, log_to_driver=False)
        self.nodes: list[Any] = []

    def use(self, slots: list[int]) -> RayConfig:
        for node in self.nodes:
            self.cluster.remove_node(node)
        self.nodes = [self.cluster.add_node(num_cpus=1, resources={"docker": n}) for n in slots]
        self.cluster.wait_for_nodes()
        return RayConfig(
            address=self.cluster.address,
            namespace=NAMESPACE,
            node=DockerConfig(pool_size=max(slots)),
        )

    def shutdown(self) -> None:
        self.ray.shutdown()
        self.cluster.shutdown()


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--problems", type=int, default=len(DEFAULT_PROBLEMS))
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--slots", type=int, default=2, help="verifications at once, every arm")
    parser.add_argument("--timing", action="store_true", help="time the candidates too")
    parser.add_argument("--target", default="openmp", choices=["openmp", "mpi"])
    parser.add_argument("--overhead", type=int, default=20, help="tiny verifications per arm")
    args = parser.parse_args()

    suite = load_suite("pareval")
    problems = DEFAULT_PROBLEMS + [t.name for t in suite.tasks_for(Target(args.target))]
    problems = list(dict.fromkeys(problems))
    problems, warm = problems[: args.problems], problems[args.problems]
    half = max(1, args.slots // 2)
    arms: dict[str, Callable[[], Any]] = {
        "local": lambda: DockerConfig(pool_size=args.slots),
        "ray-1": lambda: cluster.use([args.slots]),
        "ray-2": lambda: cluster.use([half, half]),
    }
    print(
        f"{len(problems)} {args.target} problems x {args.samples} samples (replay:known-good), timing "
        f"{'on' if args.timing else 'off'}, {args.slots} verifications at once, "
        f"{args.rounds} round(s)"
    )
    cluster = Cluster()
    rates: dict[str, list[float]] = {name: [] for name in arms}
    speedups: dict[str, list[float]] = {name: [] for name in arms}
    """Speedups at the largest thread count, per arm: whether timing stayed honest."""
    overhead: dict[str, list[float]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            engine = open_store(f"sqlite:///{Path(tmp) / 'bench.db'}")
            for round_no in range(args.rounds):
                for name, configure in arms.items():
                    verifier = open_verifier(configure())
                    runner = EvalRunner(
                        engine, verifier, llm=LLMConfig(url="http://unused/v1"), pool_size=8
                    )
                    try:
                        # Warm, on a problem outside the measured ones: a node's reference
                        # cache outlives an eval run, and must not start the measured run full.
                        await eval_once(runner, [warm], 1, args.timing, args.target)
                        wall, n, statuses, nodes, measured = await eval_once(
                            runner, problems, args.samples, args.timing, args.target
                        )
                    finally:
                        await runner.aclose()
                    rates[name].append(60 * n / wall)
                    speedups[name] += measured
                    print(
                        f"  round {round_no + 1} {name:<6} {wall:6.1f}s {60 * n / wall:6.1f}/min "
                        f"{statuses} on {nodes}",
                        flush=True,
                    )
            engine.dispose()
        if args.overhead:
            overhead = await measure_overhead(cluster.use([args.slots]), args.slots, args.overhead)
    finally:
        cluster.shutdown()

    if args.rounds:
        report(rates, speedups)
    if overhead:
        local_s, ray_s = overhead["local"], overhead["ray-1"]
        print(
            f"\none tiny verification at a time ({len(local_s)} each): local "
            f"{_spread(local_s, 's')}, ray-1 {_spread(ray_s, 's')}; Ray's cost per verification "
            f"{1000 * (statistics.median(ray_s) - statistics.median(local_s)):.0f} ms"
        )


def report(rates: dict[str, list[float]], speedups: dict[str, list[float]]) -> None:
    print(f"\n{'arm':<6} {'verified/min':>22} {'ratio to local':>24} {'per verification':>18}")
    for name, per_min in rates.items():
        ratios = [r / b for r, b in zip(per_min, rates["local"], strict=True)]
        extra = [60 / r - 60 / b for r, b in zip(per_min, rates["local"], strict=True)]
        print(
            f"{name:<6} {_spread(per_min):>22} {_spread(ratios, 'x'):>24} {_spread(extra, 's'):>18}"
        )
    print(
        "per verification: wall seconds per candidate above local's (at the same concurrency, "
        "so Ray's cost as the eval sees it)"
    )
    if any(speedups.values()):
        print(
            "median speedup at the largest thread count: "
            + ", ".join(f"{name} {statistics.median(v):.2f}x" for name, v in speedups.items() if v)
        )
    two = [a / b for a, b in zip(rates["ray-2"], rates["ray-1"], strict=True)]
    print(f"scheduling efficiency, ray-2 / ray-1: {_spread(two, 'x')}")


TINY = '#include <stdio.h>\nint main(void) { puts("1"); return 0; }\n'


async def measure_overhead(ray_config: RayConfig, slots: int, n: int) -> dict[str, list[float]]:
    """Seconds of each of `n` tiny verifications, one at a time, local and on one Ray node."""
    spec = Spec(name="tiny", language="c", reference=TINY, tests=[TestCase(name="t")], threads=[1])
    candidate = Candidate(target=SandboxTarget.SERIAL, source=TINY)
    verifiers = {
        "local": open_verifier(DockerConfig(pool_size=slots)),
        "ray-1": open_verifier(ray_config),
    }
    seconds: dict[str, list[float]] = {name: [] for name in verifiers}
    # The node's actor keeps a reference cache across calls: so does the local arm here.
    cache = ReferenceCache()
    try:
        for i in range(n + 1):
            for name, verifier in verifiers.items():
                start = time.perf_counter()
                verdict = await verifier.verify(
                    spec, candidate, timing=False, reference_cache=cache
                )
                assert verdict.passed, verdict.reason
                if i:  # the first warms
                    seconds[name].append(time.perf_counter() - start)
    finally:
        for verifier in verifiers.values():
            await verifier.aclose()
    return seconds


def _spread(values: list[float], unit: str = "") -> str:
    if not values:
        return "-"
    return (
        f"{statistics.median(values):.2f}{unit} ({min(values):.2f}-{max(values):.2f})"
        if len(values) > 1
        else f"{values[0]:.2f}{unit}"
    )


if __name__ == "__main__":
    asyncio.run(main())
