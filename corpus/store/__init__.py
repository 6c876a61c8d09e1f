"""The trajectory store: tables, migrations, the job queue and the run recorder.

`open_store(url)` gives an engine on an up-to-date schema. Modules by responsibility:
`models` (tables and wire models), `tasks` / `evals` / `keys` (operations on a `Session`),
`queue` (claim / heartbeat / finish / recover), `recorder` (a run's writes), `notify`
(in-process wake-ups), `migrate` (Alembic from code).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from corpus.store.config import StoreConfig

if TYPE_CHECKING:
    from corpus.store.engine import make_engine, open_store
    from corpus.store.notify import Notifier
    from corpus.store.recorder import Recorder

# Imported on first use: the settings read `StoreConfig` on every command, and the engine and
# recorder pull in SQLAlchemy and every table.
_EXPORTS = {
    "make_engine": "corpus.store.engine",
    "open_store": "corpus.store.engine",
    "Notifier": "corpus.store.notify",
    "Recorder": "corpus.store.recorder",
}


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Notifier", "Recorder", "StoreConfig", "make_engine", "open_store"]
