"""Alembic environment: run migrations on the engine handed over in `config.attributes`."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from corpus.store.migrate import target_metadata


def _run() -> None:
    engine = context.config.attributes["engine"]
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # SQLite changes a column by rebuilding its table (copy, drop, rename), and dropping
            # a table that other rows point at fails while foreign keys are enforced. The pragma
            # only takes effect outside a transaction, hence before the migrations begin one.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        try:
            context.configure(
                connection=connection,
                target_metadata=target_metadata(),
                compare_type=True,
                # SQLite cannot ALTER most things: batch mode rebuilds the table instead.
                render_as_batch=True,
            )
            with context.begin_transaction():
                context.run_migrations()
            connection.commit()
            if sqlite:
                _check_foreign_keys(connection)
        finally:
            if sqlite:
                connection.rollback()
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")


def _check_foreign_keys(connection: Connection) -> None:
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    if broken:
        raise RuntimeError(f"the migrated store has broken foreign keys: {broken[:5]}")


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported")
_run()
