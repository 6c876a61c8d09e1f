"""Every error as problem details (RFC 9457): `application/problem+json` with `type`, `title`,
`status`, `detail` (the reason for people), `instance` (the request's path) and, for refused
input, `field` and `errors` (one `field: message` per fault).

Routing's own answers (404 for an unknown path, 405 for a method a path does not take), the
API's `HTTPException`s, request validation, the application layer's refusals, an unavailable
sandbox, the middleware's refusals and any unexpected failure all come out in this one shape,
with the headers they call for (`Allow`, `WWW-Authenticate`, `Retry-After`)."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from parforge.app import OverLimit, Rejected, SubmitError
from sandbox.errors import SandboxError

log = logging.getLogger(__name__)

MEDIA_TYPE = "application/problem+json"

RETRY_BUSY_S = 30
"""Retry-After for a sandbox that is down (and a refusal that names no time of its own)."""


class FieldError(BaseModel):
    field: str
    """Where in the request: `body.options.function`, `query.limit`, `path.task_id`."""
    message: str


class Problem(BaseModel):
    """An error answer (RFC 9457)."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    instance: str | None = None
    """The path of the request that failed."""
    field: str | None = None
    """The part of the request at fault (`source`, `agent`, `options.function`, ...)."""
    errors: list[FieldError] | None = None
    """Every fault of a request that failed validation."""


def _problem(
    status: int,
    detail: str,
    instance: str | None,
    field: str | None,
    errors: list[FieldError] | None,
) -> dict[str, Any]:
    body = Problem(
        title=_title(status),
        status=status,
        detail=detail,
        instance=instance,
        field=field,
        errors=errors,
    )
    return body.model_dump(exclude_none=True)


def problem_body(status: int, detail: str) -> bytes:
    """A problem as bytes, for the middleware that answers before any route."""
    return json.dumps(_problem(status, detail, None, None, None)).encode()


def problem(
    status: int,
    detail: str,
    *,
    request: Request | None = None,
    field: str | None = None,
    errors: list[FieldError] | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    instance = request.url.path if request is not None else None
    return JSONResponse(
        _problem(status, detail, instance, field, errors),
        status,
        headers=dict(headers or {}),
        media_type=MEDIA_TYPE,
    )


def _title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def field_errors(errors: Sequence[Any]) -> list[FieldError]:
    """Pydantic's errors as `field: message` pairs, the location joined with dots."""
    out = []
    for error in errors:
        loc = ".".join(str(part) for part in error.get("loc", ()))
        out.append(FieldError(field=loc or "body", message=str(error.get("msg", "invalid"))))
    return out


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    detail = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
    if exc.status_code == 404 and detail == HTTPStatus.NOT_FOUND.phrase:
        detail = f"no such resource: {request.url.path}"
    elif exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        detail = f"{request.method} is not allowed on {request.url.path}" + (
            f"; allowed: {allowed}" if allowed else ""
        )
    return problem(exc.status_code, detail, request=request, headers=exc.headers)


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = field_errors(exc.errors())
    shown = "; ".join(f"{e.field}: {e.message}" for e in errors[:3])
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return problem(
        422,
        f"invalid request: {shown}{more}",
        request=request,
        field=errors[0].field if errors else None,
        errors=errors,
    )


async def _refused(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, SubmitError)
    if isinstance(exc, OverLimit):
        retry = exc.retry_after_s or RETRY_BUSY_S
        return problem(429, exc.reason, request=request, headers={"Retry-After": str(retry)})
    field = exc.field if isinstance(exc, Rejected) else None
    return problem(422, exc.reason, request=request, field=field)


async def _sandbox_down(request: Request, exc: Exception) -> JSONResponse:
    # The submission was fine as far as it was checked; the sandbox that runs the original is
    # not. Its message may name hosts or containers: logged, not returned.
    log.error("the sandbox failed while checking a submission: %s", exc)
    return problem(
        503,
        "the sandbox that checks programs is unavailable; try again later",
        request=request,
        headers={"Retry-After": str(RETRY_BUSY_S)},
    )


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    # Whatever it was is in the log; the caller learns only that it is not their fault.
    log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
    return problem(500, "an unexpected error occurred; it has been logged", request=request)


def install(app: FastAPI) -> None:
    """Answer every error of `app` as problem details."""
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(SubmitError, _refused)
    app.add_exception_handler(SandboxError, _sandbox_down)
    app.add_exception_handler(Exception, _unexpected)


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for the error statuses a route can answer, each a `Problem`
    (`problem_media_type` gives them their media type)."""
    out: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        entry: dict[str, Any] = {
            "model": Problem,
            "description": _DESCRIPTIONS.get(status, _title(status)),
        }
        if status in (429, 503):
            entry["headers"] = {
                "Retry-After": {
                    "description": "Seconds to wait before trying again.",
                    "schema": {"type": "integer"},
                }
            }
        if status == 401:
            entry["headers"] = {
                "WWW-Authenticate": {"description": "`Bearer`", "schema": {"type": "string"}}
            }
        out[status] = entry
    return out


def problem_media_type(schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI document with every error response as `application/problem+json` and a
    `Problem` (FastAPI writes `application/json`, and its own validation-error shape for 422)."""
    problem_ref = {"$ref": "#/components/schemas/Problem"}
    ours = {problem_ref["$ref"], "#/components/schemas/HTTPValidationError"}
    for path in schema.get("paths", {}).values():
        for operation in path.values():
            for code, response in operation.get("responses", {}).items():
                if not str(code).startswith(("4", "5")):
                    continue
                refs = {
                    body.get("schema", {}).get("$ref")
                    for body in response.get("content", {}).values()
                }
                if refs - ours - {None}:
                    continue  # a body of its own (the health report's 503)
                response["content"] = {MEDIA_TYPE: {"schema": problem_ref}}
                if str(code) == "422":
                    response["description"] = _DESCRIPTIONS[422]
    schemas = schema.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    return schema


_DESCRIPTIONS = {
    400: "Malformed request (NUL characters in the path or query)",
    401: "No API key, or an unknown or revoked one",
    404: "No such resource that this API key can see",
    409: "The job has already ended",
    413: "Request body over the server's limit",
    422: "Invalid request: the fields at fault in `errors`",
    429: "This API key is at one of its limits",
    500: "Unexpected error",
    503: "A service the request needs is unavailable",
}
