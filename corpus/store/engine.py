"""Engines for SQLite (WAL, foreign keys, busy timeout) and PostgreSQL, migrated on open."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool

from corpus.errors import StoreError
from corpus.store.config import StoreConfig


def make_engine(url: str, config: StoreConfig | None = None) -> Engine:
    """An engine for `url`, with the per-connection settings each backend needs (not migrated)."""
    config = config or StoreConfig()
    parsed = make_url(url)
    kwargs: dict[str, Any] = {"echo": config.echo}
    if parsed.get_backend_name() == "sqlite":
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": config.busy_timeout_s}
        if parsed.database in (None, "", ":memory:"):
            # One shared connection, or every session would see its own empty database.
            kwargs["poolclass"] = StaticPool
        engine = create_engine(parsed, **kwargs)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    kwargs.update(pool_size=config.pool_size, max_overflow=config.pool_size, pool_pre_ping=True)
    return create_engine(parsed, **kwargs)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers (the API, event streams) run beside the one writer.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


VERSIONS = Path(__file__).parent / "migrations" / "versions"


def head_revision() -> str:
    """The newest schema revision: revisions are numbered by their files' four-digit prefixes
    (`migrate.upgrade`'s Alembic finds the same head; a test holds them equal)."""
    return max(path.name[:4] for path in VERSIONS.glob("[0-9][0-9][0-9][0-9]_*.py"))


def at_head(engine: Engine) -> bool:
    """Whether the database's schema is already the newest (one query, no Alembic)."""
    try:
        with engine.connect() as connection:
            found = connection.execute(text("SELECT version_num FROM alembic_version")).scalars()
            return list(found) == [head_revision()]
    except SQLAlchemyError:  # no version table yet: a new database
        return False


def open_store(url: str, config: StoreConfig | None = None) -> Engine:
    """An engine on a database brought up to the current schema (created when empty)."""
    engine = make_engine(url, config)
    try:
        if not at_head(engine):
            from corpus.store.migrate import upgrade  # Alembic: only when there is work

            upgrade(engine)
    except SQLAlchemyError as exc:
        engine.dispose()
        raise StoreError(f"cannot open the store at {_safe(url)}: {exc}") from exc
    return engine


def _safe(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)
