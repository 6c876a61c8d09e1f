"""Errors raised by the evals package.

A sample that does not build, gives wrong answers, races or is empty is data (a stored result),
never an exception. Only what stops a whole run raises:

    EvalError                   root of everything this package raises
    ├── EvalSetupError          the run cannot start: unknown run, suite, target or model spec
    └── EvalInterrupted         the model or the sandbox failed mid-run; the run is resumable
"""

from __future__ import annotations


class EvalError(Exception):
    """Root of every error the evals package raises."""


class EvalSetupError(EvalError):
    """The run cannot start as asked (nothing has been generated or verified)."""


class EvalInterrupted(EvalError):
    """Infrastructure failed during the run; what was done is stored and the run can resume."""
