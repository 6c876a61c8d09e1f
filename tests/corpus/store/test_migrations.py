"""The shipped migrations build exactly the schema the models describe, on both backends."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import inspect, text
from sqlalchemy.exc import DBAPIError

from corpus.store import make_engine, open_store
from corpus.store.migrate import alembic_config, pending_changes, target_metadata, upgrade
from tests.fakes.stores import new_postgres_database


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


def _store_at_0002_with_rows(url: str):
    """A store migrated to 0002 holding a task with a run and a step, and an eval run."""
    engine = make_engine(url)
    upgrade(engine, "0002")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO tasks (id, status, reason, created_at, attempts, cancel_requested,"
                " name, language, target, source, budgets) VALUES ('t1', 'succeeded', '',"
                " '2026-01-01 00:00:00+00', 1, false, 'sum', 'c', 'openmp', 'int x;', '{}')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO runs (id, task_id, attempt, runner, worker, status, reason,"
                " started_at, budgets) VALUES (1, 't1', 1, 'prompt', 'w', 'succeeded', '',"
                " '2026-01-01 00:00:00+00', '{}')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO steps (id, task_id, run_id, seq, kind, name, created_at)"
                " VALUES (1, 't1', 1, 1, 'llm_call', 'generate', '2026-01-01 00:00:00+00')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO eval_runs (id, status, reason, created_at, attempts,"
                " cancel_requested, suite, target, samples_k, summary, timing, options, progress)"
                " VALUES (1, 'queued', '', '2026-01-01 00:00:00+00', 0, false, 'pareval',"
                " 'openmp', 1, '{}', true, '{}', '{}')"
            )
        )
    return engine


def _check_0003_upgrade(url: str, engine) -> None:
    try:
        upgrade(engine)
        assert pending_changes(engine) == []
        with engine.begin() as conn:
            assert conn.execute(text("SELECT id, agent FROM tasks")).all() == [("t1", None)]
            assert conn.execute(text("SELECT task_id FROM steps")).all() == [("t1",)]
            for table in ("tasks", "runs", "eval_runs"):
                conn.execute(text(f"UPDATE {table} SET status = 'no_verified_candidate'"))
                assert conn.execute(text(f"SELECT status FROM {table}")).scalar_one() == (
                    "no_verified_candidate"
                )
            conn.execute(text("UPDATE tasks SET agent = 'prompt'"))
        # The way back narrows the columns again, so it takes statuses that fit them.
        with engine.begin() as conn:
            for table in ("tasks", "runs", "eval_runs"):
                conn.execute(text(f"UPDATE {table} SET status = 'failed'"))
        command.downgrade(alembic_config(engine), "0002")
        assert "agent" not in {c["name"] for c in inspect(engine).get_columns("tasks")}
        upgrade(engine)
        assert pending_changes(engine) == []
    finally:
        engine.dispose()
    # Foreign keys are enforced again on the connections the store hands out afterwards.
    if url.startswith("sqlite"):
        store = open_store(url)
        with store.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        store.dispose()


def test_sqlite_0003_widens_status_and_adds_agent_keeping_rows(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    _check_0003_upgrade(url, _store_at_0002_with_rows(url))


@pytest.mark.postgres
def test_postgres_0003_widens_status_and_adds_agent_keeping_rows(postgres_server):
    url = new_postgres_database(postgres_server)
    engine = _store_at_0002_with_rows(url)
    # What the migration is for: PostgreSQL enforces the old width.
    with pytest.raises(DBAPIError, match="too long"), engine.begin() as conn:
        conn.execute(text("UPDATE tasks SET status = 'no_verified_candidate'"))
    _check_0003_upgrade(url, engine)


def test_the_head_open_store_checks_is_alembics_head(tmp_path):
    """`open_store` skips Alembic when the database is at `head_revision()`: that must be the
    head Alembic itself would upgrade to, and an older database must still be upgraded."""
    from alembic.script import ScriptDirectory

    from corpus.store.engine import at_head, head_revision

    url = f"sqlite:///{tmp_path / 'h.db'}"
    engine = make_engine(url)
    try:
        assert ScriptDirectory.from_config(alembic_config(engine)).get_current_head() == (
            head_revision()
        )
        assert not at_head(engine)  # empty
        command.upgrade(alembic_config(engine), "0003")
        assert not at_head(engine)
    finally:
        engine.dispose()
    engine = open_store(url)  # from 0003 to the head
    try:
        assert at_head(engine) and pending_changes(engine) == []
    finally:
        engine.dispose()


def _check_0006_turns_json_nulls_into_sql_nulls(url: str) -> None:
    engine = _store_at_0002_with_rows(url)
    try:
        upgrade(engine, "0005")
        with engine.begin() as conn:
            # How earlier versions stored a failed call: messages, and None as JSON `null`.
            conn.execute(
                text(
                    "INSERT INTO steps (id, task_id, run_id, seq, kind, name, created_at,"
                    " messages, response, result) VALUES (2, 't1', 1, 2, 'llm_call', 'generate',"
                    ' \'2026-01-01 00:00:00+00\', \'[{"role": "user", "content": "hi"}]\','
                    ' \'null\', \'{"role": "assistant", "content": "null"}\')'
                )
            )
            assert conn.execute(text("SELECT count(*) FROM steps WHERE response IS NULL")).scalar()
            assert conn.execute(
                text("SELECT count(*) FROM steps WHERE id = 2 AND response IS NOT NULL")
            ).scalar()
        upgrade(engine)
        assert pending_changes(engine) == []
        with engine.begin() as conn:
            rows = conn.execute(
                text(
                    "SELECT id, messages IS NULL, response IS NULL, result IS NULL FROM steps"
                    " ORDER BY id"
                )
            ).all()
        # Only the JSON `null`s went: a list, an object and the string "null" stay.
        assert [tuple(r) for r in rows] == [(1, True, True, True), (2, False, True, False)]
    finally:
        engine.dispose()


def test_sqlite_0006_turns_json_nulls_into_sql_nulls(tmp_path):
    _check_0006_turns_json_nulls_into_sql_nulls(f"sqlite:///{tmp_path / 'old.db'}")


@pytest.mark.postgres
def test_postgres_0006_turns_json_nulls_into_sql_nulls(postgres_server):
    _check_0006_turns_json_nulls_into_sql_nulls(new_postgres_database(postgres_server))
