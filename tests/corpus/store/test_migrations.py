"""The shipped migrations build exactly the schema the models describe, on both backends."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect

from corpus.store import make_engine, open_store
from corpus.store.migrate import pending_changes, target_metadata, upgrade
from tests.conftest import new_postgres_database


def _check_empty_database_upgrades(url: str) -> None:
    engine = make_engine(url)
    try:
        assert inspect(engine).get_table_names() == []
        upgrade(engine)
        tables = set(inspect(engine).get_table_names())
        assert {t.name for t in target_metadata().sorted_tables} <= tables
        assert "alembic_version" in tables
        assert pending_changes(engine) == []
        upgrade(engine)  # a second start-up finds nothing to do
    finally:
        engine.dispose()


def test_sqlite_upgrade_matches_models(tmp_path):
    _check_empty_database_upgrades(f"sqlite:///{tmp_path / 'fresh.db'}")


@pytest.mark.postgres
def test_postgres_upgrade_matches_models(postgres_server):
    _check_empty_database_upgrades(new_postgres_database(postgres_server))


def test_sqlite_is_wal_with_foreign_keys(tmp_path):
    engine = open_store(f"sqlite:///{tmp_path / 's.db'}")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()
