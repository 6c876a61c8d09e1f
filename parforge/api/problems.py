"""Refused submissions as problem details (RFC 9457): `application/problem+json` with `type`,
`title`, `status`, `detail` (the reason for people) and, for refused input, `field`."""

from __future__ import annotations

import logging
from http import HTTPStatus

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from parforge.app import OverLimit, Rejected, SubmitError
from sandbox.errors import SandboxError

log = logging.getLogger(__name__)

MEDIA_TYPE = "application/problem+json"


class Problem(BaseModel):
    type: str = "about:blank"
    title: str
    status: int
    detail: str
    field: str | None = None
    """The part of the request at fault (`source`, `agent`, `options.function`, ...)."""


def problem(status: int, detail: str, field: str | None = None) -> JSONResponse:
    body = Problem(title=HTTPStatus(status).phrase, status=status, detail=detail, field=field)
    return JSONResponse(body.model_dump(exclude_none=True), status, media_type=MEDIA_TYPE)


async def _refused(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, SubmitError)
    if isinstance(exc, OverLimit):
        return problem(429, exc.reason)
    return problem(422, exc.reason, exc.field if isinstance(exc, Rejected) else None)


async def _sandbox_down(request: Request, exc: Exception) -> JSONResponse:
    # The submission was fine as far as it was checked; the sandbox that runs the original is
    # not. Its message may name hosts or containers: logged, not returned.
    log.error("the sandbox failed while checking a submission: %s", exc)
    return problem(503, "the sandbox that checks programs is unavailable; try again later")


def install(app: FastAPI) -> None:
    """Answer the application layer's refusals, and a sandbox that cannot check a submission,
    as problem details."""
    app.add_exception_handler(SubmitError, _refused)
    app.add_exception_handler(SandboxError, _sandbox_down)
