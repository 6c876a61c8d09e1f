"""Choosing the task runner from settings: an import path, so tests and deployments plug theirs."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from corpus.runner import TaskRunner

if TYPE_CHECKING:
    from agents.runners import PromptRunner
    from parforge.settings import Settings


class ServiceError(Exception):
    """Root of the errors the service wiring raises (a runner that cannot be loaded)."""


def load_runner(settings: Settings) -> TaskRunner | None:
    """The configured runner, or None when none is configured.

    `settings.server.runner` names `module:attr`, either a `TaskRunner` or a factory called with
    the settings that returns one; empty or `none` means no runner.
    """
    path = settings.server.runner
    if path is None or path.strip().lower() in ("", "none"):
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


async def close_runner(runner: TaskRunner) -> None:
    """Release what a runner holds (model client, sandbox), if it holds anything."""
    aclose = getattr(runner, "aclose", None)
    if aclose is not None:
        await aclose()


def build_prompt_runner(settings: Settings) -> PromptRunner:
    """The default runner: prompt mode on the configured model endpoint and sandbox.

    Builds the model client and the sandbox once; neither connects before its first use, so a
    server starts even while the model server or the Docker engine is still coming up.
    """
    from agents.llm import LLMClient
    from agents.runners import PromptRunner, SandboxVerifier

    config = settings.prompt_mode
    verifier = SandboxVerifier(settings.sandbox.build(), settings.verify, timing=config.timing)
    return PromptRunner(LLMClient(settings.model.client_config()), verifier, config)
