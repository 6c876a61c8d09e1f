"""The package's errors, under one root.

AnalysisError            the root: nothing this package raises is outside it
├── InputError           the source is empty, or not C/C++ at all
└── AnnotationError      a set of OpenMP choices that cannot be applied (also a ValueError)
"""

from __future__ import annotations


class AnalysisError(Exception):
    """Root of the program-analysis errors."""


class InputError(AnalysisError):
    """The source cannot be analysed; the message names the problem for the user."""


class AnnotationError(AnalysisError, ValueError):
    """A loop choice that cannot be turned into a directive (unknown, unsafe or nested loop)."""
