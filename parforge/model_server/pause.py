"""Holding the embedded model server still while the sandbox times a program.

On a small host the vLLM server ParForge runs itself is the biggest load beside a timing run:
generating on two cores, it made one plain prime count measure 2.30x at one thread. The timing
gate (`sandbox.verify.gate.TimingGate`) takes a `quiet` hook for exactly this; `ModelServerPause` is
ParForge's: it stops the server's process group (SIGSTOP) for the length of each timing run and
continues it after (SIGCONT). Requests in flight simply wait. A server at an external URL is not
ParForge's to stop and is left alone; what load remains is measured and flagged by the sandbox.

If a ParForge process dies between the two signals the server stays stopped, so every
`parforge model` command continues it first (`process.resume`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from parforge.model_server import process
from parforge.model_server.config import ModelConfig


class _Pause:
    """A `TimingGate` quiet hook: the first of the timing runs that overlap stops the server
    (`_stop`, which returns what `_resume` needs, or None when there is nothing to stop) and
    the last one resumes it. A run cancelled while the server is being stopped still resumes
    it: the stop finishes in its thread, and the release is shielded from the cancellation."""

    def __init__(self) -> None:
        self._holders = 0
        self._stopping: asyncio.Future[Any] | None = None
        """The first holder's stop, running or done; its result is what `_resume` needs."""
        self._lock = asyncio.Lock()

    def __call__(self) -> AbstractAsyncContextManager[None]:
        return self._hold()

    @asynccontextmanager
    async def _hold(self) -> AsyncIterator[None]:
        counted = False
        try:
            async with self._lock:
                self._holders += 1
                counted = True
                if self._holders == 1:
                    self._stopping = asyncio.ensure_future(asyncio.to_thread(self._stop))
                    await asyncio.shield(self._stopping)
            yield
        finally:
            if counted:
                await asyncio.shield(self._release())

    async def _release(self) -> None:
        async with self._lock:
            self._holders -= 1
            if self._holders > 0 or self._stopping is None:
                return
            stopping, self._stopping = self._stopping, None
            try:
                paused = await stopping  # done, unless its run was cancelled while it stopped
            except Exception:
                return
            if paused is not None:
                await asyncio.to_thread(self._resume, paused)

    def _stop(self) -> Any:
        raise NotImplementedError

    def _resume(self, paused: Any) -> None:
        raise NotImplementedError


class ModelServerPause(_Pause):
    """Stops the embedded model server (its process group, SIGSTOP) during timing runs."""

    def __init__(self, state_file: Path) -> None:
        super().__init__()
        self.state_file = state_file

    def _stop(self) -> int | None:
        """Stop the server's process group; its pid, or None when no server of ours runs."""
        state = process.read_state(self.state_file)
        if state is None or not process.alive(state.pid) or not process.looks_like_vllm(state.pid):
            return None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(state.pid, signal.SIGSTOP)
            # Whatever has not stopped by then is load like any other: measured and flagged.
            process.wait_stopped(state.pid)
            return state.pid
        return None

    def _resume(self, paused: int) -> None:
        process.resume(paused)


class ContainerPause(_Pause):
    """A `TimingGate` quiet hook that freezes the model server's container for timing runs.

    For ParForge in a compose project (`parforge deploy compose`): the model server runs in a
    container of its own, out of reach of signals, but the service holds the Docker socket, so
    it pauses that container (the cgroup freezer, `docker pause`) and unpauses it after. The
    container is the one compose labels as the project's service named `service`; the project
    is the one of the container this process runs in, unless given.
    """

    def __init__(self, service: str, project: str | None = None) -> None:
        super().__init__()
        self.service = service
        self.project = project
        self._client: Any = None

    def _stop(self) -> Any:
        """Pause the container; it, or None when there is none to pause (then the load it
        makes is measured and flagged like any other). Runs under the lock, one at a time."""
        from sandbox.backends.engine import DOCKER_ERRORS

        try:
            container = self._container()
            if container is None:
                return None
            # Paused already: left so by a process that died holding it; unpaused after this run.
            if container.status == "running":
                container.pause()
            return container
        except DOCKER_ERRORS:
            return None

    def _resume(self, paused: Any) -> None:
        from sandbox.backends.engine import DOCKER_ERRORS

        with contextlib.suppress(*DOCKER_ERRORS):
            paused.unpause()

    def recover(self) -> None:
        """Unpause the container if a service that died holding the pause left it paused (a
        model that never runs again would hang every task before any timing run). Blocking."""
        from sandbox.backends.engine import DOCKER_ERRORS

        with contextlib.suppress(*DOCKER_ERRORS):
            container = self._container()
            if container is not None and container.status == "paused":
                container.unpause()

    def _container(self) -> Any:
        """The project's container of `service` that runs or is paused, or None."""
        import docker

        if self._client is None:
            self._client = docker.from_env()
        # Looked up until found: the engine may not have answered the first time.
        self.project = self.project or _own_project(self._client)
        if self.project is None:
            return None
        labels = [
            f"com.docker.compose.project={self.project}",
            f"com.docker.compose.service={self.service}",
        ]
        found = [
            c
            for c in self._client.containers.list(filters={"label": labels})
            if c.status in ("running", "paused")
        ]
        return found[0] if found else None


def _own_project(client: Any) -> str | None:
    """The compose project of the container this process runs in (its hostname is the
    container's id, as Docker sets it), or None outside one."""
    from sandbox.backends.engine import DOCKER_ERRORS

    try:
        me = client.containers.get(socket.gethostname())
    except DOCKER_ERRORS:
        return None
    return me.labels.get("com.docker.compose.project")


_RECOVERED: set[str] = set()
"""Compose services whose container this process has unpaused at start (`ContainerPause.recover`)."""


def timing_pause(model: ModelConfig, data_dir: Path) -> ModelServerPause | ContainerPause | None:
    """The quiet hook for the configured model: the embedded server's pause, the model
    container's pause in a compose project, or None when the agents call an external endpoint."""
    if model.pause_compose_service:
        pause = ContainerPause(model.pause_compose_service)
        # Once per process, when its first runner is built: a later runner's would unpause the
        # container under another runner's timing run.
        if model.pause_compose_service not in _RECOVERED:
            _RECOVERED.add(model.pause_compose_service)
            pause.recover()
        return pause
    if model.endpoint.url:
        return None
    return ModelServerPause(data_dir.resolve() / "model-server" / "server.json")
