"""Errors raised by the corpus package.

A task that fails, a candidate that does not build, an export that matches nothing: those are
data. Only infrastructure failures and malformed inputs raise, under one root:

    CorpusError                 root of everything this package raises
    ├── StoreError              the database cannot be reached, opened or migrated
    ├── ExportError             an export cannot be produced (unknown format, bad output path)
    ├── SuiteNotFound           no built-in suite of that name and no such directory
    ├── TaskFormatError         a suite or task file does not follow the format (file named)
    ├── UnknownTarget           a task was asked for a target it does not declare
    └── UnsupportedTranslation  a translation task that cannot be verified was asked for a spec
"""

from __future__ import annotations


class CorpusError(Exception):
    """Root of every error the corpus package raises."""


class StoreError(CorpusError):
    """The database is unreachable, or its schema cannot be brought up to date."""


class ExportError(CorpusError):
    """An export could not be produced."""


class SuiteNotFound(CorpusError):
    """Neither a built-in suite nor a directory with a suite manifest."""


class TaskFormatError(CorpusError):
    """A suite manifest, task file or file it references is missing or malformed."""


class UnknownTarget(CorpusError):
    """The task does not apply to the requested target execution model."""


class UnsupportedTranslation(CorpusError):
    """The translation direction (or its source) cannot be verified; the task says why."""
