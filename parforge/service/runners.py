"""Choosing the task runner from settings: an import path, so tests and deployments plug theirs."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from corpus.runner import TaskRunner

if TYPE_CHECKING:
    from parforge.settings import Settings


class ServiceError(Exception):
    """Root of the errors the service wiring raises (a runner that cannot be loaded)."""


def load_runner(settings: Settings) -> TaskRunner | None:
    """The configured runner, or None when none is configured.

    `settings.server.runner` names `module:attr`, either a `TaskRunner` or a factory called with
    the settings that returns one.
    """
    path = settings.server.runner
    if path is None:
        return None
    module_name, _, attr = path.partition(":")
    try:
        target = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ServiceError(f"cannot load the task runner {path!r}: {exc}") from exc
    runner = target if isinstance(target, TaskRunner) else target(settings)
    if not isinstance(runner, TaskRunner):
        raise ServiceError(f"{path!r} gave {type(runner).__name__}, not a TaskRunner")
    return runner
