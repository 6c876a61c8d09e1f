"""What runs on a Ray sandbox host: the node's sandbox actor and the verification task.

Imported only where Ray is (the driver's `cluster.RayVerifier` submits `verify_on_node`, and Ray
runs it on a node that has a free unit of the sandbox resource). The task finds, or starts,
its node's `SandboxNode` actor (one per node and node configuration, pinned to the node, named
so every task and driver shares it, detached so its warm pool outlives them) and awaits the
verification there. Everything crosses process boundaries as JSON dicts of the pydantic models,
so a driver and a node only have to agree on ParForge's version, not on pickled classes.

Per node, the actor owns what the single-host backend owns per process: the Docker engine and
warm pool (`DockerSandbox`), the reference cache and the timing gate. Every verification on a
node goes through its actor, so a timing run there never shares the node's cores with another
verification.

Failures: a node that dies takes the task running there with it, and Ray runs the task again on
another node (`max_retries`). An actor that died under a living task (its process killed) raises
`NodeLost`, which is retried the same way. Neither is ever a verdict on the candidate.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections import deque
from typing import Any

import ray
from ray.exceptions import RayActorError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from sandbox.backends.docker import DockerSandbox
from sandbox.backends.image import image_exists, image_tag
from sandbox.config import DockerConfig, VerifyOptions
from sandbox.errors import SandboxUnavailable
from sandbox.spec import Candidate, Spec
from sandbox.verify import verify
from sandbox.verify.gate import TimingGate
from sandbox.verify.refcache import ReferenceCache

log = logging.getLogger(__name__)

ACTOR_PREFIX = "parforge-sandbox"
ACTOR_PROTOCOL = 2
"""The actor's methods and arguments: a detached actor of another protocol (left running by an
older driver) is another actor, never called with arguments it does not take."""


class NodeLost(Exception):
    """The node's sandbox actor died while a verification waited on it: run it elsewhere."""


def actor_name(node_id: str, node_config: dict[str, Any]) -> str:
    """The actor of one node for one node configuration (another pool size is another actor)
    and protocol."""
    keyed = {"protocol": ACTOR_PROTOCOL, **node_config}
    digest = hashlib.sha256(json.dumps(keyed, sort_keys=True).encode()).hexdigest()
    return f"{ACTOR_PREFIX}-{node_id[:16]}-{digest[:8]}"


class SandboxNode:
    """One node's sandbox: its Docker engine, warm pool, reference cache and timing gate."""

    def __init__(self, node_config: dict[str, Any]) -> None:
        self.config = DockerConfig.model_validate(node_config)
        self.sandbox = DockerSandbox(self.config)
        self.cache = ReferenceCache()
        self.gate = TimingGate()
        self.node_id = ray.get_runtime_context().get_node_id()
        self.in_flight = 0
        self.verified = 0
        self.built_image = False
        self._ready = False
        self._readying: asyncio.Future[None] | None = None
        self._jobs: dict[str, set[asyncio.Task[Any]]] = {}
        """The tasks running each job here (two once a retry lands where the first still runs)."""
        self._cancelled: deque[str] = deque(maxlen=4096)
        """Jobs cancelled before they reached this node (a driver cancels on every node)."""

    async def _ensure_ready(self) -> None:
        """The image (built here when its content tag is missing), then the warm pool: made
        once, shielded from the cancellation of whichever verification waits for it first (a
        set-up cut short would leave half-started containers to the next); after a failure the
        next verification tries again."""
        if self._ready:
            return
        readying = self._readying
        if readying is None or (
            readying.done() and (readying.cancelled() or readying.exception() is not None)
        ):
            readying = self._readying = asyncio.ensure_future(self._get_ready())
        await asyncio.shield(readying)

    async def _get_ready(self) -> None:
        name = self.config.image or image_tag()
        if not await image_exists(self.sandbox.engine, name):
            if self.config.image:
                raise SandboxUnavailable(f"sandbox image {name} is missing on this node")
            log.warning("node %s: building the sandbox image %s", self.node_id[:8], name)
            await self.sandbox.build_image()
            self.built_image = True
        await self.sandbox.start()
        self._ready = True

    async def verify(
        self,
        spec: dict[str, Any],
        candidate: dict[str, Any],
        options: dict[str, Any],
        job: str = "",
    ) -> dict[str, Any]:
        """One verification on this node; the verdict as JSON, with this node named in it.
        `job` names it for `cancel`."""
        if job and job in self._cancelled:
            raise asyncio.CancelledError(f"verification {job} was cancelled")
        task = asyncio.current_task()
        if job and task is not None:
            self._jobs.setdefault(job, set()).add(task)
        try:
            await self._ensure_ready()
            self.in_flight += 1
            try:
                opts = VerifyOptions.model_validate(options)
                verdict = await verify(
                    self.sandbox,
                    Spec.model_validate(spec),
                    Candidate.model_validate(candidate),
                    timing=opts.timing,
                    options=opts,
                    reference_cache=self.cache,
                    timing_gate=self.gate,
                )
            finally:
                self.in_flight -= 1
        finally:
            mine = self._jobs.get(job)
            if mine is not None:
                mine.discard(task)
                if not mine:
                    del self._jobs[job]
        self.verified += 1
        if verdict.sandbox is not None:
            verdict.sandbox.node = self.node_id
        return verdict.model_dump(mode="json")

    async def cancel(self, job: str) -> bool:
        """Stop the verification `job` if it runs here (True), or refuse it should it arrive
        later. The driver's own path to a node, beside Ray's cancellation of the task: that
        one has to reach a worker blocked in `ray.get` and the actor task below it, and on a
        loaded host it once did not within 90 s."""
        tasks = self._jobs.get(job)
        if not tasks:
            self._cancelled.append(job)
            return False
        for task in tasks:
            task.cancel()
        return True

    async def status(self) -> dict[str, Any]:
        """What `parforge cluster status` shows of this node's sandbox."""
        info = self.sandbox.info()
        return {
            "node": self.node_id,
            "ready": self._ready,
            "warm": self.sandbox.warm,
            "pool_size": self.config.pool_size,
            "in_flight": self.in_flight,
            "verified": self.verified,
            "image": info.image,
            "gpu": info.gpu,
            "built_image": self.built_image,
        }


SandboxNodeActor = ray.remote(num_cpus=0, max_restarts=0)(SandboxNode)


def node_actor(node_id: str, node_config: dict[str, Any], namespace: str) -> Any:
    """The sandbox actor of `node_id`, started there on first use."""
    return SandboxNodeActor.options(
        name=actor_name(node_id, node_config),
        namespace=namespace,
        get_if_exists=True,
        lifetime="detached",
        max_concurrency=1000,
        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
    ).remote(node_config)


@ray.remote(num_cpus=0)
def verify_on_node(
    node_config: dict[str, Any],
    namespace: str,
    spec: dict[str, Any],
    candidate: dict[str, Any],
    options: dict[str, Any],
    job: str = "",
) -> dict[str, Any]:
    """A verification on the node Ray placed this task on (by its resources), through that
    node's actor. Cancelling the task cancels the verification in the actor: the wait is in
    slices, so the interrupt Ray raises for a cancellation lands within a second."""
    node_id = ray.get_runtime_context().get_node_id()
    actor = node_actor(node_id, node_config, namespace)
    ref = actor.verify.remote(spec, candidate, options, job)
    try:
        while not ray.wait([ref], timeout=1.0)[0]:
            pass
        return dict(ray.get(ref))
    except RayActorError as exc:
        raise NodeLost(f"the sandbox actor of node {node_id[:8]} died: {exc}") from exc
    except BaseException:
        ray.cancel(ref)
        raise
