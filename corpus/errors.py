"""Errors of the corpus package: everything raised here derives from `CorpusError`.

CorpusError
├── SuiteNotFound           no built-in suite of that name and no such directory
├── TaskFormatError         a suite or task file does not follow the format (file named)
├── UnknownTarget           a task was asked for a target it does not declare
└── UnsupportedTranslation  a translation task that cannot be verified was asked for a spec
"""

from __future__ import annotations


class CorpusError(Exception):
    """Root of the corpus package's errors."""


class SuiteNotFound(CorpusError):
    """Neither a built-in suite nor a directory with a suite manifest."""


class TaskFormatError(CorpusError):
    """A suite manifest, task file or file it references is missing or malformed."""


class UnknownTarget(CorpusError):
    """The task does not apply to the requested target execution model."""


class UnsupportedTranslation(CorpusError):
    """The translation direction (or its source) cannot be verified; the task says why."""
