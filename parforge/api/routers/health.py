"""/healthz and /metrics: unauthenticated, for load balancers and Prometheus."""

from __future__ import annotations

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel
from sqlalchemy import text

from parforge.api.deps import ServicesDep, SessionDep

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: str
    database: str
    workers: int
    runner: str | None


@router.get("/healthz")
def healthz(session: SessionDep, services: ServicesDep) -> Health:
    session.execute(text("SELECT 1"))
    pool = services.pool
    return Health(
        status="ok",
        database=services.engine.dialect.name,
        workers=pool.config.workers if pool else 0,
        runner=pool.runners.label if pool else None,
    )


@router.get("/metrics", response_class=Response)
def metrics(services: ServicesDep) -> Response:
    return Response(generate_latest(services.metrics.registry), media_type=CONTENT_TYPE_LATEST)
