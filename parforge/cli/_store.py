"""The store as the CLI opens it: the configured URL, migrated, closed on exit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from parforge.settings import Settings


@contextmanager
def store(settings: Settings) -> Iterator[Engine]:
    from corpus.store import open_store

    engine = open_store(settings.store_url, settings.store)
    try:
        yield engine
    finally:
        engine.dispose()
