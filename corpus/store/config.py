"""How to reach the store."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

DB_FILE = "parforge.db"


class StoreConfig(BaseModel):
    """SQLite in the data dir by default; any SQLAlchemy URL (PostgreSQL) when `url` is set."""

    url: str | None = None
    """`postgresql+psycopg://user@host:5432/db`; None = `sqlite:///<data dir>/parforge.db`."""
    pool_size: int = Field(default=5, ge=1)
    busy_timeout_s: float = Field(default=30.0, gt=0)
    """SQLite: how long a writer waits for the lock before giving up."""
    echo: bool = False

    def url_for(self, data_dir: Path) -> str:
        """The database URL, with the SQLite default resolved against the data dir."""
        return self.url or f"sqlite:///{data_dir / DB_FILE}"
