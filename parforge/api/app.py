"""The app factory: routers, middleware, and a lifespan that builds the services once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from agents.judge import Judge
from corpus.runner import TaskRunner
from parforge.api.limits import BodyLimitMiddleware, NoNulMiddleware
from parforge.api.metrics import MetricsMiddleware
from parforge.api.problems import install as install_problems
from parforge.api.problems import problem_media_type
from parforge.api.routers import evals, exports, health, tasks
from parforge.api.services import Services
from parforge.api.ui import install as install_ui
from parforge.settings import Settings


def create_app(
    settings: Settings, runner: TaskRunner | None = None, judge: Judge | None = None
) -> FastAPI:
    """The ParForge API. `runner` overrides the configured one, `judge` the configured sandbox
    that checks each submission's original program (tests, embedding)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services = await Services.start(settings, runner, judge)
        app.state.services = services
        try:
            yield
        finally:
            await services.stop()

    app = FastAPI(
        title="ParForge",
        summary="Turn sequential code into fast, verified parallel code.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.include_router(tasks.router)
    app.include_router(evals.router)
    app.include_router(exports.router)
    app.include_router(health.router)
    install_problems(app)
    install_ui(app)
    _problems_in_openapi(app)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.server.max_body_bytes)
    app.add_middleware(NoNulMiddleware)
    app.add_middleware(MetricsMiddleware)
    return app


def _problems_in_openapi(app: FastAPI) -> None:
    """Generate the OpenAPI document once, with errors as problem details."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = problem_media_type(generate())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
