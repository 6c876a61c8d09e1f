"""The one place where docker-py is called and its exceptions become sandbox errors.

Every docker-py call is blocking; `Engine.call` runs it in a worker thread and translates what
docker-py (and requests, underneath it) raise into `SandboxUnavailable` by default, or into the
error type the caller names (`ImageBuildError` while building, `WorkspaceError` while a job runs).
The client is created on first use, never at import.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TypeVar

import docker
import requests

from sandbox.errors import SandboxError, SandboxUnavailable

T = TypeVar("T")

DOCKER_ERRORS: tuple[type[BaseException], ...] = (
    docker.errors.DockerException,
    requests.RequestException,
    OSError,
)


class Engine:
    """A lazily connected Docker engine (local socket, `DOCKER_HOST`, or an explicit URL)."""

    def __init__(self, docker_host: str | None = None) -> None:
        self.docker_host = docker_host
        self._client: docker.DockerClient | None = None
        self._lock = threading.Lock()

    @property
    def is_local(self) -> bool:
        """Whether the engine runs on this host, so host paths (a CUDA toolkit) can be mounted."""
        return self.docker_host is None or self.docker_host.startswith("unix://")

    def client(self) -> docker.DockerClient:
        """The shared client (blocking: call it from a worker thread, as `call` does)."""
        with self._lock:
            if self._client is None:
                if self.docker_host:
                    self._client = docker.DockerClient(base_url=self.docker_host)
                else:
                    # docker-py's own convention: DOCKER_HOST / DOCKER_TLS_VERIFY, else the socket.
                    self._client = docker.from_env()
            return self._client

    async def call(
        self,
        fn: Callable[[docker.DockerClient], T],
        what: str,
        error: type[SandboxError] = SandboxUnavailable,
    ) -> T:
        """Run `fn(client)` in a thread; docker failures become `error(f"{what}: ...")`."""
        return await asyncio.to_thread(self.call_blocking, fn, what, error)

    def call_blocking(
        self,
        fn: Callable[[docker.DockerClient], T],
        what: str,
        error: type[SandboxError] = SandboxUnavailable,
    ) -> T:
        """`call` for code that already runs in a worker thread."""
        try:
            return fn(self.client())
        except DOCKER_ERRORS as exc:
            where = self.docker_host or "the local Docker engine"
            raise error(f"{what} ({where}): {_describe(exc)}") from exc

    async def aclose(self) -> None:
        """Close the client's connection pool."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            await asyncio.to_thread(client.close)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, docker.errors.APIError) and exc.explanation:
        return str(exc.explanation)
    return str(exc) or type(exc).__name__
