"""Alembic, driven from code: the migration scripts ship inside the package, no alembic.ini."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import Engine, MetaData
from sqlmodel import SQLModel

SCRIPTS = Path(__file__).parent / "migrations"


def target_metadata() -> MetaData:
    """The metadata of every store table (importing the models registers them)."""
    import corpus.store.models  # noqa: F401

    return SQLModel.metadata


def alembic_config(engine: Engine) -> Config:
    """A config whose env.py runs on a connection of `engine`."""
    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Apply every migration up to `revision` (idempotent)."""
    command.upgrade(alembic_config(engine), revision)


def pending_changes(engine: Engine) -> list[Any]:
    """What the models have that the database's schema has not (empty when they agree)."""
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "render_as_batch": True}
        )
        return list(compare_metadata(context, target_metadata()))
