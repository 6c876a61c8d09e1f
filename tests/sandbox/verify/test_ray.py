"""The Ray verifier on a real local Ray cluster: a head and sandbox nodes as separate processes
on this machine (Ray's own `cluster_utils`), each node advertising its own `docker` resource and
verifying with its own sandbox actor, warm pool, reference cache and timing gate.

All nodes share this machine's Docker engine and cores, so these tests prove placement,
retries and results, not speed (`benchmarks/ray_throughput.py` measures that).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session
from typer.testing import CliRunner

from agents.llm import LLMConfig
from corpus.store import evals as store
from evals.runner import EvalRunner
from sandbox.backends.docker import DockerSandbox
from sandbox.config import DockerConfig, RayConfig
from sandbox.spec import Candidate, Spec, Target, TestCase
from sandbox.verdict import Status
from sandbox.verify.cluster import RayVerifier, cluster_status
from sandbox.verify.verifier import open_verifier
from tests.fakes.evals import new_run, new_store
from tests.fakes.programs import CUDA_GOOD, cuda_spec

pytestmark = [pytest.mark.docker, pytest.mark.ray, pytest.mark.slow]

NAMESPACE = "parforge-tests"
# Two problems: four samples fill the two nodes' four slots at once, six the three nodes' six.
OPENMP = ["03_dense_la_axpy", "55_transform_relu"]


@pytest.fixture(scope="module")
def cluster(sandbox_image: str) -> Iterator[Any]:
    """A head (no resources of its own) and two sandbox nodes with two slots each."""
    import ray
    from ray.cluster_utils import Cluster

    ray.shutdown()
    head = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    head.sandbox_nodes = [
        head.add_node(num_cpus=1, resources={"docker": 2}),
        head.add_node(num_cpus=1, resources={"docker": 2}),
    ]
    head.wait_for_nodes()
    ray.init(address=head.address, namespace=NAMESPACE)
    try:
        yield head
    finally:
        ray.shutdown()
        head.shutdown()
        # The node actors died with their processes; their containers go as stale.
        asyncio.run(_prune())


async def _prune() -> None:
    sandbox = DockerSandbox(DockerConfig())
    try:
        await sandbox.prune()
    finally:
        await sandbox.aclose()


def ray_config(cluster: Any) -> RayConfig:
    return RayConfig(address=cluster.address, namespace=NAMESPACE, node=DockerConfig(pool_size=2))


@pytest.fixture
async def ray_runner(cluster: Any, tmp_path: Path) -> AsyncIterator[EvalRunner]:
    runner = EvalRunner(
        new_store(tmp_path),
        open_verifier(ray_config(cluster)),
        llm=LLMConfig(url="http://unused/v1"),
        pool_size=8,
    )
    try:
        yield runner
    finally:
        await runner.aclose()


def rows(engine: Engine, run_id: int) -> list[tuple[str, int, str, str]]:
    """(problem, sample, status, node) of every stored result."""
    with Session(engine) as session:
        return sorted(
            (
                r.problem,
                r.sample_index,
                r.status,
                ((r.verdict or {}).get("sandbox") or {}).get("node"),
            )
            for r in store.rows(session, run_id)
        )


async def test_a_replay_eval_spreads_over_both_nodes_with_the_local_backends_results(
    cluster: Any, ray_runner: EvalRunner, tmp_path: Path
) -> None:
    run_id = new_run(ray_runner.engine, samples=2, problems=OPENMP, model="replay:known-good")
    outcome = await ray_runner.run(run_id)
    on_ray = rows(ray_runner.engine, run_id)
    nodes = {node for *_, node in on_ray}
    assert nodes == {n.node_id for n in cluster.sandbox_nodes}, on_ray

    (tmp_path / "local").mkdir()
    local = EvalRunner(
        new_store(tmp_path / "local"),
        open_verifier(DockerConfig(pool_size=2)),
        llm=LLMConfig(url="http://unused/v1"),
    )
    try:
        local_id = new_run(local.engine, samples=2, problems=OPENMP, model="replay:known-good")
        local_outcome = await local.run(local_id)
        on_host = rows(local.engine, local_id)
    finally:
        await local.aclose()
    assert [r[:3] for r in on_ray] == [r[:3] for r in on_host]
    assert all(status == "passed" for _, _, status, _ in on_ray)
    assert outcome.reason == local_outcome.reason
    assert all(node is None for *_, node in on_host)

    # What `parforge cluster status` and /metrics read: both nodes, their slots and warm pools.
    found = await asyncio.to_thread(cluster_status, ray_config(cluster))
    sandboxes = [n for n in found.nodes if n.sandbox]
    assert len(sandboxes) == 2 and found.slots == 4 and found.warm >= 2
    assert sum(n.sandbox["verified"] for n in sandboxes if n.sandbox) == 4
    assert found.running == 0 and found.queued in (0, None)


async def test_a_node_killed_mid_run_loses_nothing(cluster: Any, ray_runner: EvalRunner) -> None:
    doomed = cluster.add_node(num_cpus=1, resources={"docker": 2})
    cluster.wait_for_nodes()
    config = ray_config(cluster)
    run_id = new_run(ray_runner.engine, samples=3, problems=OPENMP, model="replay:known-good")
    job = asyncio.create_task(ray_runner.run(run_id))

    killed_busy = False
    deadline = time.monotonic() + 180
    while not job.done() and time.monotonic() < deadline:
        found = await asyncio.to_thread(cluster_status, config)
        mine = next((n for n in found.nodes if n.id == doomed.node_id), None)
        if mine and mine.sandbox and mine.sandbox.get("in_flight", 0) > 0:
            cluster.remove_node(doomed, allow_graceful=False)
            killed_busy = True
            break
        await asyncio.sleep(0.2)
    assert killed_busy, "no verification reached the extra node"

    outcome = await job
    found = rows(ray_runner.engine, run_id)
    # Every sample has its verdict, none is the dead node's failure, and the eval finished.
    assert len(found) == 6 and all(status == "passed" for _, _, status, _ in found), found
    assert outcome.summary.get("unverified", 0) == 0
    survivors = {n.node_id for n in cluster.sandbox_nodes}
    late = [node for *_, node in found if node != doomed.node_id]
    assert late and set(late) <= survivors


async def test_a_cuda_candidate_is_refused_without_a_gpu_node(cluster: Any) -> None:
    verifier = RayVerifier(ray_config(cluster))
    start = time.monotonic()
    verdict = await verifier.verify(cuda_spec(), Candidate(target=Target.CUDA, source=CUDA_GOOD))
    assert verdict.status is Status.NOT_RUN
    assert verdict.reason.startswith("not run: no GPU") and "Ray cluster" in verdict.reason
    assert verdict.sandbox is not None and verdict.sandbox.node is None  # no node ran it
    assert time.monotonic() - start < 10 and verifier.submitted == 0


async def test_a_cuda_candidate_goes_only_to_the_node_with_a_gpu(cluster: Any) -> None:
    # Ray trusts what a node advertises: this one says it has a GPU, so CUDA goes there and
    # only there; its Docker engine has no GPU, so the verdict is that node's `not run`.
    gpu_node = cluster.add_node(num_cpus=1, num_gpus=1, resources={"docker": 1})
    cluster.wait_for_nodes()
    try:
        verifier = RayVerifier(ray_config(cluster))
        candidate = Candidate(target=Target.CUDA, source=CUDA_GOOD)
        verdicts = await asyncio.gather(
            *(verifier.verify(cuda_spec(), candidate) for _ in range(2))
        )
        assert [v.sandbox.node for v in verdicts if v.sandbox] == [gpu_node.node_id] * 2
        assert all(v.build is not None and v.build.ok for v in verdicts)
        assert all(v.status is Status.NOT_RUN and "no GPU" in v.reason for v in verdicts)
    finally:
        cluster.remove_node(gpu_node)


HANG = "int main(void) { for (;;) {} }\n"
SERIAL = '#include <stdio.h>\nint main(void) { puts("1"); return 0; }\n'


def hang_spec(timeout_s: float) -> Spec:
    return Spec(
        name="hang",
        language="c",
        reference=SERIAL,
        tests=[TestCase(name="t")],
        threads=[1],
        timeout_s=timeout_s,
    )


async def test_time_outs_are_the_nodes_verdicts(cluster: Any) -> None:
    verifier = RayVerifier(ray_config(cluster))
    candidate = Candidate(target=Target.SERIAL, source=HANG)
    verdict = await verifier.verify(hang_spec(2.0), candidate, timing=False)
    assert verdict.status is Status.TIMED_OUT, verdict.reason
    assert verdict.sandbox is not None and verdict.sandbox.node in {
        n.node_id for n in cluster.sandbox_nodes
    }


@pytest.mark.parametrize("rays_own", [True, False], ids=["both paths", "the direct path alone"])
async def test_cancelling_a_verification_stops_it_on_its_node(
    cluster: Any, rays_own: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The driver cancels through Ray (its task, and the actor task below it) and through
    every node's actor directly; either alone stops the program."""
    if not rays_own:
        import sandbox.verify.cluster

        monkeypatch.setattr(sandbox.verify.cluster, "_cancel", lambda ref: None)
    config = ray_config(cluster)
    verifier = RayVerifier(config)
    candidate = Candidate(target=Target.SERIAL, source=HANG)
    job = asyncio.create_task(verifier.verify(hang_spec(300.0), candidate, timing=False))

    async def running() -> int:
        found = await asyncio.to_thread(cluster_status, config)
        return found.running

    deadline = time.monotonic() + 60
    while await running() == 0:
        assert time.monotonic() < deadline and not job.done(), "the verification never started"
        await asyncio.sleep(0.2)
    job.cancel()
    with pytest.raises(asyncio.CancelledError):
        await job
    # The node's actor stopped it: nothing runs there well before the 300 s the program hangs
    # for (stopping its container took over 30 s once, on a 2-core host under a full load).
    deadline = time.monotonic() + 90
    while await running() > 0:
        assert time.monotonic() < deadline, "the cancelled verification kept running"
        await asyncio.sleep(0.5)


def test_cluster_status_on_the_command_line(cluster: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from parforge.cli import app

    monkeypatch.setenv("PARFORGE_SANDBOX__TYPE", "ray")
    monkeypatch.setenv("PARFORGE_SANDBOX__ADDRESS", cluster.address)
    monkeypatch.setenv("PARFORGE_SANDBOX__NAMESPACE", NAMESPACE)
    result = CliRunner().invoke(app, ["cluster", "status"])
    assert result.exit_code == 0, result.output
    assert "2 sandbox node(s) alive, 4 docker slot(s), 0 GPU(s)" in " ".join(result.output.split())
    result = CliRunner().invoke(app, ["cluster", "status", "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    alive = {n["id"] for n in found["nodes"] if n["alive"] and n["resources"].get("docker")}
    assert alive == {node.node_id for node in cluster.sandbox_nodes}
    assert found["slots"] == 4 and found["running"] == 0


def test_metrics_show_the_cluster(cluster: Any, tmp_path: Path) -> None:
    from prometheus_client import generate_latest

    from parforge.api.metrics import Metrics

    engine = new_store(tmp_path)
    metrics = Metrics(engine, None, ray_config(cluster))
    text = generate_latest(metrics.registry).decode()
    assert "parforge_cluster_up 1.0" in text
    assert 'parforge_cluster_nodes{state="alive"} 2.0' in text
    assert "parforge_cluster_slots 4.0" in text and "parforge_cluster_gpus 0.0" in text
    assert "parforge_cluster_warm_sandboxes" in text and "parforge_cluster_running 0.0" in text
    # A cluster that does not answer is reported down, not an error on /metrics.
    down = Metrics(engine, None, RayConfig(address=cluster.address, resource="nowhere"))
    assert "parforge_cluster_up 0.0" in generate_latest(down.registry).decode()
