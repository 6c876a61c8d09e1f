"""Web UI sessions: a random cookie token per signed-in browser, of which only a SHA-256 digest
is stored, bound to the API key it signed in with.

A session lives until it expires, is ended (logout) or its key is revoked: `resume` checks all
three on every request, so revoking a key signs its browsers out at their next request."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlmodel import Session, col, select

from corpus.store.keys import digest
from corpus.store.models import ApiKeyRow, UiSessionRow, utcnow


@dataclass(frozen=True)
class UiSession:
    key_id: int
    key_name: str
    csrf: str
    """The token every form of this session carries (compared in constant time)."""


def start(session: Session, key_id: int, ttl: timedelta) -> str:
    """A new session for `key_id`: its cookie token (the only copy)."""
    token = secrets.token_urlsafe(32)
    session.add(
        UiSessionRow(
            digest=digest(token),
            key_id=key_id,
            csrf=secrets.token_urlsafe(32),
            expires_at=utcnow() + ttl,
        )
    )
    session.commit()
    return token


def resume(session: Session, token: str) -> UiSession | None:
    """The live session of a cookie token: not ended, not expired, its key not revoked."""
    found = session.exec(
        select(UiSessionRow, ApiKeyRow)
        .join(ApiKeyRow, col(ApiKeyRow.id) == col(UiSessionRow.key_id))
        .where(
            UiSessionRow.digest == digest(token),
            col(UiSessionRow.ended_at).is_(None),
            col(ApiKeyRow.revoked_at).is_(None),
        )
    ).first()
    if found is None:
        return None
    row, key = found
    if row.expires_at <= utcnow():
        return None
    return UiSession(key_id=row.key_id, key_name=key.name, csrf=row.csrf)


def end(session: Session, token: str) -> None:
    """Log the session out (nothing if there is none)."""
    row = session.exec(select(UiSessionRow).where(UiSessionRow.digest == digest(token))).first()
    if row is not None and row.ended_at is None:
        row.ended_at = utcnow()
        session.add(row)
        session.commit()
