"""Prometheus metrics, in a registry of the app's own (several apps may live in one process)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import Engine, func
from sqlmodel import Session, select
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from corpus.store.models import JobStatus, Task

if TYPE_CHECKING:
    from parforge.service.pool import WorkerPool


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
                session.exec(select(Task.status, func.count()).group_by(Task.status)).all()
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


class Metrics:
    def __init__(self, engine: Engine, pool: WorkerPool | None) -> None:
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
