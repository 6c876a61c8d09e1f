"""The trajectory store: tables, migrations, the job queue and the run recorder.

`open_store(url)` gives an engine on an up-to-date schema. Modules by responsibility:
`models` (tables and wire models), `tasks` / `evals` / `keys` (operations on a `Session`),
`queue` (claim / heartbeat / finish / recover), `recorder` (a run's writes), `notify`
(in-process wake-ups), `migrate` (Alembic from code).
"""

from corpus.store.config import StoreConfig
from corpus.store.engine import make_engine, open_store
from corpus.store.notify import Notifier
from corpus.store.recorder import Recorder

__all__ = ["Notifier", "Recorder", "StoreConfig", "make_engine", "open_store"]
