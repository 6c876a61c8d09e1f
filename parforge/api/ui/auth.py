"""Signing in to the web UI with an API key, as Jupyter does it: a login link
(`/ui/login?key=...`) or the form exchanges the key for a session cookie and redirects, so the
key stays in neither the address bar nor the history. The cookie is HttpOnly and
SameSite=Strict, holds a random session token (`corpus.store.sessions`), and every form the
session posts carries its CSRF token as well. Access logs never show a key: `RedactKeys`."""

from __future__ import annotations

import hmac
import logging
import re
from datetime import timedelta
from typing import Annotated

from fastapi import Depends, Form, HTTPException, Request, status
from sqlmodel import Session

from corpus.store import keys, sessions
from corpus.store.sessions import UiSession
from parforge.api.deps import SessionDep, get_services

COOKIE = "parforge_ui"
PREFIX = "/ui"


class LoginRequired(Exception):
    """No live session: the page answers with a redirect to the login form."""


def sign_in(db: Session, token: str, hours: float) -> str | None:
    """A session token for an API key's token; None for an unknown or revoked key."""
    key = keys.authenticate(db, token.strip())
    if key is None or key.id is None:
        return None
    return sessions.start(db, key.id, timedelta(hours=hours))


def current(request: Request, db: SessionDep) -> UiSession:
    """The request's live session (its cookie's), or `LoginRequired`."""
    token = request.cookies.get(COOKIE)
    found = sessions.resume(db, token) if token else None
    if found is None:
        raise LoginRequired
    return found


SignedIn = Annotated[UiSession, Depends(current)]


def check_form(ui: SignedIn, csrf: Annotated[str, Form()] = "") -> UiSession:
    """The session of a form post that carries the session's CSRF token (403 without it)."""
    if not hmac.compare_digest(csrf.encode(), ui.csrf.encode()):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "the form's token is missing or stale")
    return ui


Posted = Annotated[UiSession, Depends(check_form)]


def set_cookie(request: Request, response: object, token: str) -> None:
    services = get_services(request)
    response.set_cookie(  # type: ignore[attr-defined]
        COOKIE,
        token,
        max_age=int(services.settings.server.ui_session_hours * 3600),
        path=PREFIX,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


_KEY_IN_QUERY = re.compile(r"([?&]key=)[^&\s\"]*")


class RedactKeys(logging.Filter):
    """Writes `key=[redacted]` over a key in a logged URL (uvicorn's access log)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                _KEY_IN_QUERY.sub(r"\1[redacted]", a) if isinstance(a, str) else a
                for a in record.args
            )
        if isinstance(record.msg, str):
            record.msg = _KEY_IN_QUERY.sub(r"\1[redacted]", record.msg)
        return True


def redact_access_log() -> None:
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactKeys) for f in access.filters):
        access.addFilter(RedactKeys())
