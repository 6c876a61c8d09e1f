"""The Ray verifier: verifications spread over the sandbox hosts of a Ray cluster.

Ray does the scheduling. A sandbox host joins the cluster offering a custom resource
(`ray start --address HEAD:6379 --resources '{"docker": 2}'`), and each verification is a Ray
task (`ray_node.verify_on_node`) that needs one unit of it, and a share of a GPU as well for a
CUDA candidate (`gpu_share`): Ray runs it on a node with a free unit and queues it while there
is none. On that node the task verifies through the node's sandbox actor, which owns the node's
Docker engine, warm pool, reference cache and timing gate (see `ray_node`).

`RayVerifier` is a `Verifier` (`sandbox.verify.verifier`), chosen by the `ray` sandbox
configuration: it hands whole verifications to the nodes instead of leasing workspaces, so a
verification's commands run next to their containers, not one Ray round trip each. Verdicts,
time-outs and cancellation are the node's Docker backend's own; a caller's reference cache and
timing gate are replaced by the node's.

What can go wrong, and what it becomes:
- a node dies mid-verification: Ray runs the task again elsewhere, up to `retries` times;
  after that, `SandboxUnavailable` (an eval run stops and resumes; never the candidate's
  failure);
- no node offers the resource: `SandboxUnavailable` at the first verification, saying how to
  add one;
- a CUDA candidate with no GPU node in the cluster: a `not_run` verdict (`not run: no GPU`)
  without running it; with GPU nodes that are all busy, it waits for one;
- the caller cancels: Ray cancels the task (and the actor task below it), and the driver
  cancels the verification through every node's actor directly as well, by its job id, since
  Ray's own path once left it running for over 90 s on a loaded host.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from typing import Any

from pydantic import BaseModel, Field

from sandbox.backends.image import image_tag
from sandbox.config import RayConfig, VerifyOptions
from sandbox.errors import SandboxUnavailable
from sandbox.models import SandboxInfo
from sandbox.spec import Candidate, Spec, Target
from sandbox.verdict import ConcurrencyReport, Equivalence, Status, Verdict
from sandbox.verify.gate import TimingGate
from sandbox.verify.gpu import NO_GPU
from sandbox.verify.refcache import ReferenceCache

log = logging.getLogger(__name__)

_ISOLATION = "ray: each verification in a hardened container on one node of the cluster"
_CONNECT = threading.Lock()
_VERIFY_TASK = "verify_on_node"


class NodeStatus(BaseModel):
    id: str
    address: str
    alive: bool
    resources: dict[str, float] = Field(default_factory=dict)
    """What the node offers (CPU, GPU, memory in bytes, the sandbox resource)."""
    sandbox: dict[str, Any] | None = None
    """Its sandbox actor's account (`ray_node.SandboxNode.status`); None until one started."""


class ClusterStatus(BaseModel):
    address: str
    resource: str
    nodes: list[NodeStatus] = Field(default_factory=list)
    slots: float = 0
    """Units of the sandbox resource over the living nodes: verifications at once."""
    gpus: float = 0
    """GPUs on living nodes that also offer the sandbox resource."""
    warm: int = 0
    """Warm sandbox containers over all nodes."""
    running: int = 0
    """Verifications running on the nodes."""
    queued: int | None = None
    """Verifications waiting for a node (None when the cluster's state API does not answer)."""


class RayVerifier:
    """Whole verifications as Ray tasks on the cluster's sandbox nodes."""

    def __init__(self, config: RayConfig) -> None:
        self.config = config
        self._node_config = config.node.model_dump(mode="json")
        self._slots = asyncio.Semaphore(config.max_in_flight)
        self._connected = False
        self.submitted = 0
        """Verifications this process has handed to the cluster (retries not counted)."""
        self._cancelling: set[threading.Thread] = set()
        """Direct cancellations on their way to the nodes (`aclose` waits for them)."""

    def info(self) -> SandboxInfo:
        return SandboxInfo(
            backend="ray",
            isolation=_ISOLATION,
            gpu=False,
            image=self.config.node.image or image_tag(),
            cpus=self.config.node.cpus,
        )

    async def connect(self) -> None:
        """Join the cluster (once per process) and check a node offers the sandbox resource."""
        if not self._connected:
            await asyncio.to_thread(join, self.config)
            self._connected = True

    async def verify(
        self,
        spec: Spec,
        candidate: Candidate,
        *,
        timing: bool = True,
        options: VerifyOptions | None = None,
        reference_cache: ReferenceCache | None = None,
        timing_gate: TimingGate | None = None,
    ) -> Verdict:
        """Verify on some node with a free unit of the resource (and a GPU for CUDA). The node
        has its own reference cache and timing gate: the caller's are not used."""
        options = VerifyOptions.of(options, timing)
        from ray.exceptions import RayError

        from sandbox.verify.ray_node import NodeLost, verify_on_node

        await self.connect()
        needs_gpu = candidate.target is Target.CUDA
        if needs_gpu and not await asyncio.to_thread(self._gpu_nodes):
            return _no_gpu(candidate)
        job = uuid.uuid4().hex
        async with self._slots:
            ref = verify_on_node.options(
                resources={self.config.resource: 1},
                num_gpus=self.config.gpu_share if needs_gpu else 0,
                max_retries=self.config.retries,
                retry_exceptions=[NodeLost],
            ).remote(
                self._node_config,
                self.config.namespace,
                spec.model_dump(mode="json"),
                candidate.model_dump(mode="json"),
                options.model_dump(mode="json"),
                job,
            )
            self.submitted += 1
            try:
                data = await ref
            except asyncio.CancelledError:
                _cancel(ref)
                self._cancel_on_nodes(job)
                raise
            except RayError as exc:
                raise SandboxUnavailable(f"the Ray cluster could not verify: {exc}") from exc
        return Verdict.model_validate(data)

    def _gpu_nodes(self) -> int:
        import ray

        return sum(
            1
            for node in ray.nodes()
            if node.get("Alive")
            and node["Resources"].get("GPU")
            and node["Resources"].get(self.config.resource)
        )

    async def status(self) -> ClusterStatus:
        return await asyncio.to_thread(cluster_status, self.config)

    def _cancel_on_nodes(self, job: str) -> None:
        """Cancel `job` through every node's actor, in a thread of its own (a cancelled task
        must not wait on the cluster)."""
        thread = threading.Thread(target=_cancel_on_nodes, args=(self.config, job), daemon=True)
        self._cancelling = {t for t in self._cancelling if t.is_alive()} | {thread}
        thread.start()

    async def aclose(self) -> None:
        """Waits a few seconds for the direct cancellations still on their way, so that a driver
        closing right after a cancel (an interrupted eval) still sends them; nothing else to
        release: the node actors keep their warm pools for the next driver."""
        cancelling, self._cancelling = list(self._cancelling), set()
        deadline = time.monotonic() + 5.0
        for thread in cancelling:
            await asyncio.to_thread(thread.join, max(0.0, deadline - time.monotonic()))


def join(config: RayConfig) -> None:
    """Join the cluster `config` names (once per process; later calls reuse the connection)
    and check that a node offers the sandbox resource; `SandboxUnavailable` otherwise."""
    import ray

    with _CONNECT:
        if not ray.is_initialized():
            try:
                ray.init(
                    address=config.address,
                    namespace=config.namespace,
                    log_to_driver=False,
                    logging_level=logging.WARNING,
                )
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise SandboxUnavailable(f"no Ray cluster at {config.address!r}: {exc}") from exc
    if not ray.cluster_resources().get(config.resource):
        raise SandboxUnavailable(
            f"no node of the Ray cluster offers the {config.resource!r} resource: start "
            f"sandbox hosts with `ray start --address HEAD:6379 --resources "
            f"'{{\"{config.resource}\": 2}}'`"
        )


def _cancel(ref: Any) -> None:
    import ray

    try:
        ray.cancel(ref)
    except Exception as exc:  # a cancellation that cannot be delivered is moot
        log.debug("cancelling a verification: %s", exc)


def _cancel_on_nodes(config: RayConfig, job: str) -> None:
    """Cancel `job` through every sandbox node's actor directly (see `SandboxNode.cancel`)."""
    import ray

    try:
        nodes = ray.nodes()
    except Exception as exc:  # a cluster gone is a verification gone
        log.debug("cancelling %s on the nodes: %s", job, exc)
        return
    for node in nodes:
        if not (node.get("Alive") and node.get("Resources", {}).get(config.resource)):
            continue
        try:
            actor = _node_actor(config, node["NodeID"])
            if actor is not None:  # none there: nothing of this job runs there
                actor.cancel.remote(job)
        except Exception as exc:  # a dying node's actor is moot
            log.debug("cancelling %s on %s: %s", job, node["NodeID"][:8], exc)


def _node_actor(config: RayConfig, node_id: str) -> Any | None:
    """The sandbox actor of `node_id` for this configuration, or None where no verification has
    run yet (the actor starts with the first)."""
    import ray

    from sandbox.verify.ray_node import actor_name

    try:
        return ray.get_actor(
            actor_name(node_id, config.node.model_dump(mode="json")), config.namespace
        )
    except ValueError:
        return None


def _no_gpu(candidate: Candidate) -> Verdict:
    reason = f"{NO_GPU} (no node of the Ray cluster offers one)"
    return Verdict(
        target=candidate.target,
        status=Status.NOT_RUN,
        reason=reason,
        equivalence=Equivalence(ok=False, not_run=reason),
        concurrency=ConcurrencyReport(ok=False, not_run=reason),
        sandbox=SandboxInfo(backend="ray", isolation=_ISOLATION, gpu=False),
    )


def cluster_status(config: RayConfig, actor_timeout_s: float = 5.0) -> ClusterStatus:
    """The cluster as the sandbox sees it (joined first: see `join`)."""
    import ray

    join(config)
    nodes: list[NodeStatus] = []
    pending: dict[str, Any] = {}
    for node in ray.nodes():
        status = NodeStatus(
            id=node["NodeID"],
            address=node.get("NodeManagerAddress", ""),
            alive=bool(node.get("Alive")),
            resources={
                k: v for k, v in node.get("Resources", {}).items() if not k.startswith("node:")
            },
        )
        nodes.append(status)
        if status.alive and status.resources.get(config.resource):
            actor = _node_actor(config, status.id)
            if actor is not None:
                pending[status.id] = actor.status.remote()
    for status in nodes:
        if status.id in pending:
            try:
                status.sandbox = dict(ray.get(pending[status.id], timeout=actor_timeout_s))
            except Exception as exc:  # a busy or dying actor is shown, not fatal
                status.sandbox = {"error": str(exc).splitlines()[0]}
    living = [n for n in nodes if n.alive and n.resources.get(config.resource)]
    accounts = [n.sandbox for n in living if n.sandbox and "error" not in n.sandbox]
    return ClusterStatus(
        address=config.address,
        resource=config.resource,
        nodes=nodes,
        slots=sum(n.resources.get(config.resource, 0) for n in living),
        gpus=sum(n.resources.get("GPU", 0) for n in living),
        warm=sum(int(a.get("warm", 0)) for a in accounts),
        running=sum(int(a.get("in_flight", 0)) for a in accounts),
        queued=_queued(),
    )


def _queued() -> int | None:
    """Verification tasks waiting for a node, from Ray's state API (its dashboard)."""
    try:
        from ray.util.state import list_tasks

        waiting = list_tasks(
            filters=[("state", "=", "PENDING_NODE_ASSIGNMENT")],
            limit=10_000,
            raise_on_missing_output=False,
        )
    except Exception as exc:  # a cluster without a dashboard has no state API
        log.debug("queue depth: %s", exc)
        return None
    return sum(1 for task in waiting if _VERIFY_TASK in (task.name or ""))
