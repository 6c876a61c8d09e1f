"""Prometheus metrics, in a registry of the app's own (several apps may live in one process)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import Engine, func
from sqlmodel import Session, select
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from corpus.store.models import JobStatus, TaskRow
from sandbox.config import RayConfig, SandboxConfig

if TYPE_CHECKING:
    from parforge.service.pool import WorkerPool

log = logging.getLogger(__name__)


class _StoreCollector(Collector):
    """Task counts by status and busy workers, read at scrape time."""

    def __init__(self, engine: Engine, pool: WorkerPool | None) -> None:
        self.engine = engine
        self.pool = pool

    def collect(self) -> Iterable[GaugeMetricFamily]:
        tasks = GaugeMetricFamily(
            "parforge_tasks", "Tasks in the store by status", labels=["status"]
        )
        with Session(self.engine) as session:
            counts = dict(
                session.exec(select(TaskRow.status, func.count()).group_by(TaskRow.status)).all()
            )
        for status in JobStatus:
            tasks.add_metric([status.value], counts.get(status, 0))
        yield tasks
        busy = GaugeMetricFamily("parforge_workers_busy", "Tasks running in this process")
        busy.add_metric([], self.pool.busy if self.pool else 0)
        yield busy
        size = GaugeMetricFamily("parforge_workers", "Worker slots in this process")
        size.add_metric([], self.pool.config.workers if self.pool else 0)
        yield size


class _ClusterCollector(Collector):
    """The Ray cluster the sandbox verifies on (`parforge cluster status`), read at scrape time."""

    NAMES = (
        "parforge_cluster_up",
        "parforge_cluster_nodes",
        "parforge_cluster_slots",
        "parforge_cluster_gpus",
        "parforge_cluster_warm_sandboxes",
        "parforge_cluster_running",
        "parforge_cluster_queued",
        "parforge_cluster_node_warm",
        "parforge_cluster_node_running",
    )

    def __init__(self, config: RayConfig) -> None:
        self.config = config

    def describe(self) -> Iterable[GaugeMetricFamily]:
        """The names, without asking the cluster (the registry asks at registration)."""
        return [GaugeMetricFamily(name, name) for name in self.NAMES]

    def collect(self) -> Iterable[GaugeMetricFamily]:
        from sandbox.verify.cluster import cluster_status

        up = GaugeMetricFamily("parforge_cluster_up", "Whether the Ray cluster answered")
        try:
            found = cluster_status(self.config)
        except Exception as exc:  # a scrape reports the cluster down, it does not fail
            log.warning("cluster metrics: %s", exc)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        sandbox_nodes = [n for n in found.nodes if n.resources.get(found.resource)]
        nodes = GaugeMetricFamily(
            "parforge_cluster_nodes", "Sandbox nodes of the cluster", labels=["state"]
        )
        nodes.add_metric(["alive"], sum(n.alive for n in sandbox_nodes))
        nodes.add_metric(["dead"], sum(not n.alive for n in sandbox_nodes))
        yield nodes
        for name, text, value in [
            ("parforge_cluster_slots", "Verifications the living nodes run at once", found.slots),
            ("parforge_cluster_gpus", "GPUs on living sandbox nodes", found.gpus),
            ("parforge_cluster_warm_sandboxes", "Warm sandbox containers", found.warm),
            ("parforge_cluster_running", "Verifications running on the nodes", found.running),
        ]:
            gauge = GaugeMetricFamily(name, text)
            gauge.add_metric([], value)
            yield gauge
        if found.queued is not None:
            queued = GaugeMetricFamily(
                "parforge_cluster_queued", "Verifications waiting for a node (queue depth)"
            )
            queued.add_metric([], found.queued)
            yield queued
        warm = GaugeMetricFamily(
            "parforge_cluster_node_warm", "Warm sandbox containers per node", labels=["node"]
        )
        running = GaugeMetricFamily(
            "parforge_cluster_node_running", "Verifications running per node", labels=["node"]
        )
        for node in sandbox_nodes:
            if node.alive and node.sandbox and "error" not in node.sandbox:
                warm.add_metric([node.id[:12]], node.sandbox.get("warm", 0))
                running.add_metric([node.id[:12]], node.sandbox.get("in_flight", 0))
        yield warm
        yield running


class Metrics:
    def __init__(
        self, engine: Engine, pool: WorkerPool | None, sandbox: SandboxConfig | None = None
    ) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "parforge_http_requests",
            "HTTP requests by route and status",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "parforge_http_request_seconds",
            "Time to the response's first byte, by route",
            ["method", "route"],
            registry=self.registry,
        )
        self.submitted = Counter(
            "parforge_tasks_submitted", "Tasks accepted by this process", registry=self.registry
        )
        self.registry.register(_StoreCollector(engine, pool))
        if isinstance(sandbox, RayConfig):
            self.registry.register(_ClusterCollector(sandbox))


class MetricsMiddleware:
    """Counts requests by route template (not raw path, which would explode the label set)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                self._observe(scope, status, time.perf_counter() - start)
            await send(message)

        await self.app(scope, receive, send_wrapper)

    @staticmethod
    def _observe(scope: Scope, status: int, seconds: float) -> None:
        services = getattr(scope["app"].state, "services", None)
        if services is None:
            return
        route = getattr(scope.get("route"), "path", "unmatched")
        metrics: Metrics = services.metrics
        metrics.requests.labels(scope["method"], route, str(status)).inc()
        metrics.latency.labels(scope["method"], route).observe(seconds)
