"""Infrastructure a command can start, it starts: the model a task's agent will call.

Before a command stores a task for an agent that calls the model, it asks the endpoint for its
models. A server that answers is used, whoever started it (the scripts' data dir, another
shell's `parforge model serve`). With no endpoint configured, ParForge's own embedded server is
started when nothing answers (installing and converting on first use, with progress), unless the
user said not to; a configured endpoint that does not answer cannot be started from here. Either
way a model that cannot be had is `ModelUnavailable`, one line naming the fix, before anything is
stored, never a task failed with a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agents.llm import LLMClient, LLMConfig
    from parforge.settings import Settings


class Launcher(Protocol):
    """What starts a model server (`parforge.model_server.ModelServer`)."""

    async def start(self, *, wait: bool = True, progress: Any = None) -> Any: ...


PROBE_TIMEOUT_S = 10.0
"""How long the endpoint may take to list its models (no retries: it answers or it does not)."""


class ModelUnavailable(Exception):
    """No model to call, and nothing this command may do about it (exit 3)."""


async def ensure_model(
    config: Settings,
    *,
    start: bool,
    progress: Callable[[str], None] | None = None,
    client: Callable[[LLMConfig], LLMClient] | None = None,
    server: Callable[[], Launcher] | None = None,
) -> str:
    """The URL of a model endpoint that answers, starting the embedded server when allowed
    (`client` and `server` make the client and the launcher: tests pass fakes)."""
    llm = config.model.client_config()
    url = llm.url or ""
    why = await _unanswered(config, client)
    if why is None:
        return url
    if config.model.endpoint.url:
        raise ModelUnavailable(
            f"the model endpoint {url} does not answer ({why}): start it, or correct "
            "PARFORGE_MODEL__ENDPOINT__URL (unset, ParForge serves its embedded model itself)"
        )
    if not start:
        raise ModelUnavailable(
            f"no model server answers at {url}: start one with `parforge model serve` (or let "
            "the command start it: --start-model, or PARFORGE_MODEL__AUTOSTART=true)"
        )
    from parforge.model_server import ModelServer
    from parforge.model_server.errors import ModelServerError

    if progress is not None:
        progress(f"no model server answers at {url}: starting the embedded one")
    launcher = server() if server else ModelServer(config.model.server, config.data_dir)
    try:
        await launcher.start(wait=True, progress=progress)
    except ModelServerError as exc:
        raise ModelUnavailable(f"the embedded model server did not start: {exc}") from exc
    why = await _unanswered(config, client)
    if why is not None:
        raise ModelUnavailable(f"the embedded model server started but does not answer ({why})")
    return url


async def _unanswered(
    config: Settings, make: Callable[[LLMConfig], LLMClient] | None
) -> str | None:
    """None when the configured endpoint lists its models; else why not, in a few words."""
    from agents.llm import LLMClient
    from agents.llm.errors import LLMError

    quick = config.model.client_config().model_copy(
        update={
            "max_retries": 0,
            "connect_timeout_s": min(5.0, PROBE_TIMEOUT_S),
            "read_timeout_s": PROBE_TIMEOUT_S,
            "call_timeout_s": PROBE_TIMEOUT_S,
        }
    )
    client = (make or LLMClient)(quick)
    try:
        await client.models()
    except LLMError as exc:
        return str(exc).splitlines()[0][:200]
    finally:
        await client.aclose()
    return None


async def model_or_exit(config: Settings, start: bool, kept: str = "") -> None:
    """`ensure_model` for a command: progress on stderr, exit 3 with the reason when no model
    (and `kept`: what was stored and how to go on, when something was)."""
    from parforge.cli._common import console, fail

    try:
        with console.status("checking the model endpoint") as spinner:
            await ensure_model(config, start=start, progress=spinner.update)
    except ModelUnavailable as exc:
        fail(f"{exc}" + (f"; {kept}" if kept else ""), 3)


_MODEL_AGENTS = {
    "graph": "parforge.service.runners:build_graph_runner",
    "prompt": "parforge.service.runners:build_prompt_runner",
}
"""ParForge's own runners that call the model (the graph only when `graph.use_model`)."""


def needs_model_here(config: Settings, agent: str) -> bool:
    """Whether running a task of `agent` in this process calls the configured model: one of
    ParForge's own model runners, where no other runner (or none) is configured for every task."""
    server = config.server
    if server.runner is not None:
        return False  # a runner of the user's own, or `none` (a server elsewhere runs it)
    path = server.runners.get(agent)
    if path is None or path != _MODEL_AGENTS.get(agent):
        return False
    return agent != "graph" or config.graph.use_model
