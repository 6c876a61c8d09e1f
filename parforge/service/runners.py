"""Choosing the task runner from settings: an import path, so tests and deployments plug theirs."""

from __future__ import annotations

import asyncio
import importlib
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from corpus.runner import TaskRunner
from corpus.store import examples
from corpus.store.engine import make_engine
from parforge.service.checkpoints import checkpoints_for
from sandbox.spec import Target

if TYPE_CHECKING:
    from agents.runners import GraphRunner, PromptRunner
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


class StoreExamples:
    """The `examples` tool's view of the store: passed candidates of earlier tasks."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def search(
        self, target: Target, patterns: list[str], limit: int, exclude_task: str
    ) -> list[dict[str, Any]]:
        return await asyncio.to_thread(
            examples.search, self.engine, target.value, patterns, limit, exclude_task
        )


def build_graph_runner(settings: Settings) -> GraphRunner:
    """The translate graph on the configured model endpoint and sandbox, checkpointed in the
    store's database. Nothing connects before its first use."""
    from agents.llm import LLMClient
    from agents.runners import GraphRunner, SandboxVerifier

    config = settings.graph
    verifier = SandboxVerifier(settings.sandbox.build(), settings.verify, timing=config.timing)
    return GraphRunner(
        LLMClient(settings.model.client_config()),
        verifier,
        config,
        checkpoints=checkpoints_for(settings.store_url),
        examples=StoreExamples(make_engine(settings.store_url, settings.store)),
    )
