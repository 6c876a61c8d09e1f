"""Request dependencies: the services, one DB session per request, the caller's API key."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlmodel import Session

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
