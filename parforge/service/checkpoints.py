"""The translate graph's checkpoints, in the store's own database (LangGraph's savers).

SQLite: the store's file, through LangGraph's aiosqlite saver. PostgreSQL: the same database,
through LangGraph's psycopg saver; its tables are created on first use.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from sqlalchemy.engine import make_url

_READY: set[str] = set()
"""PostgreSQL URLs whose checkpoint tables exist (set up once per process)."""


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
                await saver.setup()
                _READY.add(plain)
            yield saver

    return open_saver
