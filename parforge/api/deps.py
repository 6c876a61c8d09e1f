"""Request dependencies: the services, one DB session per request, the caller's API key."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlmodel import Session
from sse_starlette import EventSourceResponse
from starlette.background import BackgroundTask

from corpus.store import keys
from parforge.api.services import Services
from parforge.app.limits import Refusal

_bearer = HTTPBearer(auto_error=False, description="An API key from `parforge keys create`.")


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


def get_session(services: ServicesDep) -> Iterator[Session]:
    with Session(services.engine) as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]


def get_owner(
    services: ServicesDep,
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> int | None:
    """The id of the caller's key; None for an anonymous caller when keys are not required."""
    if credentials is None:
        if services.settings.server.require_key:
            raise HTTPException(
                status.HTTP_401_UNAUTHORIZED,
                "an API key is required: send `Authorization: Bearer <key>`",
                headers={"WWW-Authenticate": "Bearer"},
            )
        return None
    key = keys.authenticate(session, credentials.credentials)
    if key is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "unknown or revoked API key",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return key.id


OwnerDep = Annotated[int | None, Depends(get_owner)]


def refuse(refusal: Refusal | None) -> None:
    """Answer a refusal of `limits` as an HTTP error with its reason."""
    if refusal is not None:
        headers = None
        if refusal.retry_after_s is not None:
            headers = {"Retry-After": str(refusal.retry_after_s)}
        raise HTTPException(refusal.status, refusal.reason, headers=headers)


def event_stream(
    services: Services, owner: int | None, events: AsyncIterator[dict[str, str]]
) -> EventSourceResponse:
    """`events` as server-sent events, counted against the key's open streams (429 beyond,
    `limits.event_streams`); the slot is freed when the stream ends, or if it never starts."""
    slot = None
    if owner is not None:
        taken = services.streams.acquire(owner, services.settings.server.limits.event_streams)
        if isinstance(taken, Refusal):
            refuse(taken)
        else:
            slot = taken

    async def counted() -> AsyncIterator[dict[str, str]]:
        try:
            async for event in events:
                yield event
        finally:
            if slot is not None:
                slot.release()

    release = BackgroundTask(slot.release) if slot is not None else None
    return EventSourceResponse(counted(), ping=15, background=release)
