"""Helpers shared by the command modules: settings, async bridging, error reporting."""

from __future__ import annotations

import sys
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from parforge.settings import Settings

T = TypeVar("T")

console = Console(stderr=True)
"""Progress and messages go to stderr so that `--json` output on stdout stays clean."""


def expected_errors() -> tuple[type[Exception], ...]:
    """The one place where the project's root errors become a message and an exit status
    (imported when a command runs: the modules behind them are heavy)."""
    from agents.llm.errors import LLMError
    from corpus.errors import CorpusError
    from evals.errors import EvalError
    from parforge.model_server.errors import ModelServerError
    from parforge.service.runners import ServiceError
    from sandbox.errors import SandboxError

    return (SandboxError, CorpusError, ServiceError, ModelServerError, LLMError, EvalError)


def settings() -> Settings:
    from pydantic import ValidationError

    from parforge.settings import load_settings
    from parforge.specfile import field_errors

    try:
        return load_settings()
    except ValidationError as exc:
        # A PARFORGE_* variable with a bad value: say which, without a traceback.
        fail(f"invalid settings (PARFORGE_* environment variables): {field_errors(exc)}", 2)


def fail(message: str, code: int = 1) -> NoReturn:
    # One line however long (a path, a reason): scripts read the first line of stderr.
    console.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    raise SystemExit(code)


def unavailable_errors() -> tuple[type[Exception], ...]:
    """Errors that mean infrastructure is missing (exit 3): no sandbox engine or image, no model
    endpoint, a model server that would not start."""
    from agents.llm.errors import LLMUnavailable
    from parforge.model_server.errors import ModelServerError
    from sandbox.errors import SandboxUnavailable

    return (SandboxUnavailable, LLMUnavailable, ModelServerError)


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine for a command, turning infrastructure errors into a clean exit: 3 when
    something the command needs is unavailable, 1 for the rest."""
    import asyncio  # the commands that print and exit never need an event loop

    try:
        return asyncio.run(coro)
    except Exception as exc:
        if isinstance(exc, expected_errors()):
            fail(str(exc), 3 if isinstance(exc, unavailable_errors()) else 1)
        raise
    except KeyboardInterrupt:
        console.print("interrupted")
        sys.exit(130)
