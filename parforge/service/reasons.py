"""The one place where an exception of a runner becomes a reason stored for users.

Users see what failed, not how the deployment is built: internal URLs (the model endpoint, the
Docker engine, the database), container ids and SQL statements are taken out. The full
exception goes to the server's log, where operators find it.
"""

from __future__ import annotations

import re

MAX_CHARS = 500
"""A reason is a line for people, not a traceback."""

_DATABASE_MODULES = frozenset({"sqlalchemy", "psycopg", "psycopg2", "sqlite3", "alembic"})
# SQLAlchemy appends the statement, its parameters and a link after the message itself.
_SQL_TAIL = re.compile(r"\s*(\[SQL:|\[parameters:|\(Background on this error at:).*", re.DOTALL)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>()]+", re.IGNORECASE)
# Docker's ids: 64 hex digits in full, 12 when shortened (task ids have 32 and stay).
_CONTAINER_ID = re.compile(r"\b(?:[0-9a-f]{64}|[0-9a-f]{12})\b")


def scrub(text: str) -> str:
    """`text` without URLs, container ids and SQL, on one line of at most `MAX_CHARS`."""
    text = _SQL_TAIL.sub("", text)
    text = _URL.sub("<internal address>", text)
    text = _CONTAINER_ID.sub("<container>", text)
    text = " ".join(text.split())
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def public_reason(exc: BaseException, what: str = "runner error") -> str:
    """`what: ExceptionType: message`, fit to be stored and shown to the task's owner.

    A database error says only that: its message is made of statements and connection details.
    """
    kind = type(exc).__name__
    if type(exc).__module__.split(".")[0] in _DATABASE_MODULES:
        return f"{what}: {kind}: database error"
    message = scrub(str(exc))
    return f"{what}: {kind}: {message}" if message else f"{what}: {kind}"
