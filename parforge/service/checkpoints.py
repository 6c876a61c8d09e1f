"""The translate graph's checkpoints, in the store's own database (LangGraph's savers).

SQLite: the store's file, through LangGraph's aiosqlite saver. PostgreSQL: the same database,
through LangGraph's psycopg saver; its tables are created on first use, under an advisory lock:
LangGraph's `setup()` is not safe to run twice at once (two workers starting their first tasks
together on a fresh database: "duplicate key value violates unique constraint
checkpoint_migrations_pkey", and the task failed).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from sqlalchemy.engine import make_url

_READY: set[str] = set()
"""PostgreSQL URLs whose checkpoint tables exist (set up once per process)."""
SETUP_LOCK = 0x70617266_63687074
"""The advisory lock key that serialises the checkpoint tables' set-up across connections,
workers and processes ("parfchpt")."""


def checkpoints_for(store_url: str) -> Any:
    """A factory that opens a checkpointer on the store's database for one run."""
    url = make_url(store_url)

    @contextlib.asynccontextmanager
    async def open_saver() -> AsyncIterator[Any]:
        if url.get_backend_name() == "sqlite":
            from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

            async with AsyncSqliteSaver.from_conn_string(url.database or ":memory:") as saver:
                yield saver
            return
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        plain = url.set(drivername="postgresql").render_as_string(hide_password=False)
        async with AsyncPostgresSaver.from_conn_string(plain) as saver:
            if plain not in _READY:
                await setup_serialised(saver)
                _READY.add(plain)
            yield saver

    return open_saver


async def setup_serialised(saver: Any) -> None:
    """LangGraph's `setup()` under a session-level advisory lock on the saver's connection: the
    others wait, then find every migration applied and do nothing. They poll for the lock
    rather than block on it: a blocked `pg_advisory_lock` is an open transaction, which the
    migrations' `CREATE INDEX CONCURRENTLY` waits for while holding the lock, a deadlock."""
    while True:
        query = "SELECT pg_try_advisory_lock(%s) AS locked"
        row = await (await saver.conn.execute(query, (SETUP_LOCK,))).fetchone()
        if row is not None and (row["locked"] if isinstance(row, dict) else row[0]):
            break
        await asyncio.sleep(0.05)
    try:
        await saver.setup()
    finally:
        await saver.conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))
