"""Errors raised by the corpus package.

A task that fails, a candidate that does not build, an export that matches nothing: those are
data. Only infrastructure failures raise, under one root:

    CorpusError               root of everything this package raises
    ├── StoreError            the database cannot be reached, opened or migrated
    └── ExportError           an export cannot be produced (unknown format, bad output path)
"""


class CorpusError(Exception):
    """Root of every error the corpus package raises."""


class StoreError(CorpusError):
    """The database is unreachable, or its schema cannot be brought up to date."""


class ExportError(CorpusError):
    """An export could not be produced."""
