"""API keys: random bearer tokens of which only a SHA-256 digest is stored."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from sqlmodel import Session, col, or_, select

from corpus.store.models import ApiKeyCreated, ApiKeyPublic, ApiKeyRow, utcnow

TOKEN_PREFIX = "pf_"
_TOUCH_EVERY = timedelta(minutes=1)


def digest(token: str) -> str:
    # Tokens carry 256 random bits, so a fast hash is enough: there is nothing to brute-force.
    return hashlib.sha256(token.encode()).hexdigest()


def create(session: Session, name: str) -> ApiKeyCreated:
    """Make a key; the returned token is the only copy there will ever be."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    key = ApiKeyRow(name=name, prefix=token[:11], digest=digest(token))
    session.add(key)
    session.commit()
    session.refresh(key)
    return ApiKeyCreated.model_validate(key.model_dump() | {"token": token})


def authenticate(session: Session, token: str) -> ApiKeyRow | None:
    """The live key for a token, or None (unknown or revoked)."""
    key = session.exec(
        select(ApiKeyRow).where(
            ApiKeyRow.digest == digest(token), col(ApiKeyRow.revoked_at).is_(None)
        )
    ).first()
    if key is not None:
        now = utcnow()
        # Touched at most once a minute, so that reads do not each become a write.
        if key.last_used_at is None or now - key.last_used_at > _TOUCH_EVERY:
            key.last_used_at = now
            session.add(key)
            session.commit()
    return key


def revoke(session: Session, ref: str) -> ApiKeyPublic | None:
    """Revoke a key by id, name or token prefix; None if no live key matches exactly one."""
    clauses = [ApiKeyRow.name == ref, ApiKeyRow.prefix == ref]
    if ref.isdigit():
        clauses.append(ApiKeyRow.id == int(ref))
    matches = session.exec(
        select(ApiKeyRow).where(or_(*clauses), col(ApiKeyRow.revoked_at).is_(None))
    ).all()
    if len(matches) != 1:
        return None
    key = matches[0]
    key.revoked_at = utcnow()
    session.add(key)
    session.commit()
    session.refresh(key)
    return ApiKeyPublic.model_validate(key)


def list_keys(session: Session) -> list[ApiKeyPublic]:
    rows = session.exec(select(ApiKeyRow).order_by(col(ApiKeyRow.id))).all()
    return [ApiKeyPublic.model_validate(k) for k in rows]
