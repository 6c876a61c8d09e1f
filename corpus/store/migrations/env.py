"""Alembic environment: run migrations on the engine handed over in `config.attributes`."""

from __future__ import annotations

from alembic import context

from corpus.store.migrate import target_metadata


def _run() -> None:
    engine = context.config.attributes["engine"]
    with engine.connect() as connection:
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


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported")
_run()
