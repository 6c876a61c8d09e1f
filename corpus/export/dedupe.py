"""A set of sample digests kept on disk, so deduplication does not grow memory with the store."""

from __future__ import annotations

import hashlib
import sqlite3
import tempfile
from pathlib import Path
from types import TracebackType


class DigestSet:
    """`add(text)` is True the first time a text is seen. Backed by a temporary SQLite file."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="parforge-dedupe-")
        self._db = sqlite3.connect(Path(self._dir.name) / "seen.db", isolation_level=None)
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute("PRAGMA cache_size=-8192")  # 8 MiB at most, whatever the row count
        self._db.execute("CREATE TABLE seen (digest BLOB PRIMARY KEY) WITHOUT ROWID")
        self._db.execute("BEGIN")

    def add(self, text: str) -> bool:
        digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
        cursor = self._db.execute("INSERT OR IGNORE INTO seen VALUES (?)", (digest,))
        return cursor.rowcount == 1

    def close(self) -> None:
        self._db.close()
        self._dir.cleanup()

    def __enter__(self) -> DigestSet:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
