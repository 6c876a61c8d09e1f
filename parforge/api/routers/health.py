"""/healthz and /metrics: unauthenticated, for load balancers and Prometheus."""

from __future__ import annotations

from fastapi import APIRouter, Response, status
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, Field
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from parforge.api.deps import ServicesDep, SessionDep

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: str
    """`ok`, or `unhealthy` (answered with 503) when the database does not answer or a worker
    or keeper loop has died."""
    database: str
    workers: int
    runner: str | None
    problems: list[str] = Field(default_factory=list)
    """What is wrong: `database unreachable`, `task-keeper: RuntimeError` (a dead loop)."""


@router.get("/healthz", responses={503: {"model": Health, "description": "Unhealthy"}})
def healthz(session: SessionDep, services: ServicesDep, response: Response) -> Health:
    problems = []
    try:
        session.execute(text("SELECT 1"))
    except SQLAlchemyError:
        problems.append("database unreachable")
    pool = services.pool
    for jobs in (pool, services.evals):
        if jobs is not None:
            problems += jobs.dead_loops()
    if problems:
        response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    return Health(
        status="unhealthy" if problems else "ok",
        database=services.engine.dialect.name,
        workers=pool.config.workers if pool else 0,
        runner=pool.runners.label if pool else None,
        problems=problems,
    )


@router.get("/metrics", response_class=Response)
def metrics(services: ServicesDep) -> Response:
    return Response(generate_latest(services.metrics.registry), media_type=CONTENT_TYPE_LATEST)
