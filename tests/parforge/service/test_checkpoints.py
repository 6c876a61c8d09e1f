"""The graph's checkpoint tables on PostgreSQL: set up once, even when the first runs of several
workers open their savers at the same moment on a fresh database."""

from __future__ import annotations

import asyncio

import pytest

from parforge.service import checkpoints
from tests.fakes.stores import new_postgres_database

pytestmark = pytest.mark.postgres


async def test_workers_starting_together_on_a_fresh_database_all_get_a_saver(
    postgres_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = new_postgres_database(postgres_server)
    monkeypatch.setattr(checkpoints, "_READY", set())
    open_saver = checkpoints.checkpoints_for(url)
    started = asyncio.Event()

    async def first_run() -> str:
        async with open_saver() as saver:
            started.set()
            return type(saver).__name__

    # Without the lock one of four failed with a unique violation on checkpoint_migrations.
    names = await asyncio.gather(*(first_run() for _ in range(4)))
    assert names == ["AsyncPostgresSaver"] * 4 and started.is_set()
    async with open_saver() as saver:  # and the tables are there
        assert await saver.aget_tuple({"configurable": {"thread_id": "none"}}) is None
