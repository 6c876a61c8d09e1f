"""Choosing task runners from settings: one per agent, built from an import path on first use,
so tests and deployments plug theirs.

`settings.server.runners` maps each agent a task may ask for (`graph`, `prompt`) to `module:attr`,
either a `TaskRunner` or a factory called with the settings that returns one.
`settings.server.runner`, when set, names one runner for every task whatever its agent (`none`:
no runner; tasks are queued for another process).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import weakref
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from corpus.runner import TaskRunner
from corpus.store import examples
from corpus.store.engine import make_engine
from corpus.store.models import DEFAULT_AGENT
from parforge.model_server.pause import timing_pause
from parforge.service.checkpoints import checkpoints_for
from sandbox.spec import Target
from sandbox.verify.gate import TimingGate
from sandbox.verify.verifier import open_verifier

if TYPE_CHECKING:
    from agents.runners import GraphRunner, PromptRunner
    from parforge.settings import Settings

log = logging.getLogger(__name__)


class ServiceError(Exception):
    """Root of the errors the service wiring raises (a runner that cannot be loaded)."""


def load_runner(path: str, settings: Settings) -> TaskRunner:
    """The runner at `path` (`module:attr`): the object itself, or what the factory returns."""
    module_name, _, attr = path.partition(":")
    try:
        target = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ServiceError(f"cannot load the task runner {path!r}: {exc}") from exc
    if isinstance(target, TaskRunner):
        return target
    try:
        runner = target(settings)
    except Exception as exc:
        raise ServiceError(f"the task runner factory {path!r} failed: {exc}") from exc
    if not isinstance(runner, TaskRunner):
        raise ServiceError(f"{path!r} gave {type(runner).__name__}, not a TaskRunner")
    return runner


class Runners:
    """The task runners of one process by agent name, each built on its first task.

    A runner that cannot be built fails the tasks that need it, with the reason, and leaves the
    service and the other agents running; the next task of that agent tries again.
    """

    def __init__(
        self,
        settings: Settings | None,
        paths: dict[str, str],
        every: str | None = None,
        fixed: TaskRunner | None = None,
    ) -> None:
        self.settings = settings
        self.paths = paths
        self.every = every
        self.fixed = fixed
        self._built: dict[str, TaskRunner] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> Runners | None:
        """The configured runners; None when this process runs no tasks (`runner = none`)."""
        server = settings.server
        if server.runner is not None and server.runner.strip().lower() in ("", "none"):
            return None
        return cls(settings, dict(server.runners), every=server.runner)

    @classmethod
    def one(cls, runner: TaskRunner) -> Runners:
        """`runner` for every task; it belongs to the caller, who closes it."""
        return cls(None, {}, fixed=runner)

    @property
    def label(self) -> str:
        """What runs tasks here, for health checks: a runner's name, or the agents offered."""
        if self.fixed is not None:
            return self.fixed.name
        return self.every or ", ".join(sorted(self.paths))

    def get(self, agent: str | None) -> TaskRunner:
        """The runner for a task of `agent` (None: the default agent), built if need be."""
        if self.fixed is not None:
            return self.fixed
        agent = agent or DEFAULT_AGENT
        path = self.every or self.paths.get(agent)
        if path is None:
            offered = ", ".join(sorted(self.paths)) or "none"
            raise ServiceError(f"no runner for agent {agent!r} here (agents: {offered})")
        runner = self._built.get(path)
        if runner is None:
            assert self.settings is not None
            runner = self._built[path] = load_runner(path, self.settings)
        return runner

    async def aclose(self) -> None:
        """Release what the runners built here hold (a handed-in runner is left alone)."""
        built, self._built = list(self._built.values()), {}
        for runner in built:
            try:
                await close_runner(runner)
            except Exception:
                log.exception("closing the task runner %s failed", runner.name)


async def close_runner(runner: TaskRunner) -> None:
    """Release what a runner holds (model client, sandbox), if it holds anything."""
    aclose = getattr(runner, "aclose", None)
    if aclose is not None:
        await aclose()


_GATES: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[object, ...], TimingGate]
] = weakref.WeakKeyDictionary()


def timing_gate(settings: Settings) -> TimingGate:
    """The process's one timing gate on the running event loop for the configured model, its
    quiet hook the model's pause: every runner built here (graph, prompt, the eval runner and
    its agents, the judge of submissions) verifies under it, so no runner's timing run shares
    the cores with another's builds, and no runner's release resumes the model under
    another's timing run. (An asyncio lock belongs to one loop: each loop gets its own;
    outside a loop, a gate of its own. `release_timing_gates` forgets a loop's.)"""
    model = settings.model
    key = (model.pause_compose_service, model.endpoint.url, str(settings.data_dir.resolve()))
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return TimingGate(timing_pause(model, settings.data_dir))
    gates = _GATES.setdefault(loop, {})
    if key not in gates:
        gates[key] = TimingGate(timing_pause(model, settings.data_dir))
    return gates[key]


def release_timing_gates() -> None:
    """Forget the running loop's gates (a service stopping): a gate's lock, once waited on,
    holds its loop, which would keep the entry alive."""
    with contextlib.suppress(RuntimeError):  # no loop running: nothing of its to forget
        _GATES.pop(asyncio.get_running_loop(), None)


def build_prompt_runner(settings: Settings) -> PromptRunner:
    """The `prompt` agent: prompt mode on the configured model endpoint and sandbox.

    Builds the model client and the sandbox once; neither connects before its first use, so a
    server starts even while the model server or the Docker engine is still coming up.
    """
    from agents.llm import LLMClient
    from agents.runners import PromptRunner, SandboxJudge

    config = settings.prompt_mode
    judge = SandboxJudge(
        open_verifier(settings.sandbox),
        settings.verify,
        timing=config.timing,
        gate=timing_gate(settings),
    )
    return PromptRunner(LLMClient(settings.model.client_config()), judge, config)


class StoreExampleSearch:
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
    from agents.runners import GraphRunner, SandboxJudge

    config = settings.graph
    judge = SandboxJudge(
        open_verifier(settings.sandbox),
        settings.verify,
        timing=config.timing,
        gate=timing_gate(settings),
    )
    return GraphRunner(
        LLMClient(settings.model.client_config()),
        judge,
        config,
        checkpoints=checkpoints_for(settings.store_url),
        examples=StoreExampleSearch(make_engine(settings.store_url, settings.store)),
    )
