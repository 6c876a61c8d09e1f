"""The one place where docker-py is called and its exceptions become sandbox errors.

Every docker-py call is blocking; `Engine.call` runs it in a worker thread and translates what
docker-py (and requests, underneath it) raise into `SandboxUnavailable` by default, or into the
error type the caller names (`ImageBuildError` while building, `WorkspaceError` while a job runs).
The client is created on first use, never at import. An engine reached over TCP must be reached
over TLS (`DOCKER_TLS_VERIFY`, `DOCKER_CERT_PATH`, or an `https://` URL) or `ssh://`: a plain TCP
engine is root on its host for anyone on the network path, so it is refused unless the config
allows it explicitly (`allow_plain_tcp`).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TypeVar

import docker
import requests
from docker.utils import kwargs_from_env

from sandbox.errors import SandboxError, SandboxUnavailable

T = TypeVar("T")

DOCKER_ERRORS: tuple[type[BaseException], ...] = (
    docker.errors.DockerException,
    requests.RequestException,
    OSError,
)


class Engine:
    """A lazily connected Docker engine (local socket, `DOCKER_HOST`, or an explicit URL)."""

    def __init__(self, docker_host: str | None = None, allow_plain_tcp: bool = False) -> None:
        self.docker_host = docker_host
        self.allow_plain_tcp = allow_plain_tcp
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
                # docker-py's own convention: DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH.
                kwargs = kwargs_from_env()
                if self.docker_host:
                    kwargs["base_url"] = self.docker_host
                if problem := plain_tcp_problem(
                    kwargs.get("base_url"), bool(kwargs.get("tls")), self.allow_plain_tcp
                ):
                    raise SandboxUnavailable(problem)
                self._client = docker.DockerClient(**kwargs)
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


def plain_tcp_problem(base_url: str | None, tls: bool, allow_plain_tcp: bool) -> str | None:
    """Why connecting to `base_url` is refused (None when it is not): TCP without TLS."""
    if base_url is None or allow_plain_tcp or tls:
        return None
    scheme = base_url.split("://", 1)[0].lower() if "://" in base_url else "tcp"
    if scheme not in ("tcp", "http"):
        return None  # unix, npipe, ssh, https
    return (
        f"refusing the Docker engine at {base_url}: TCP without TLS. Set DOCKER_TLS_VERIFY=1 and "
        "DOCKER_CERT_PATH, use ssh://, or allow_plain_tcp in the sandbox config"
    )


def _describe(exc: BaseException) -> str:
    if isinstance(exc, docker.errors.APIError) and exc.explanation:
        return str(exc.explanation)
    return str(exc) or type(exc).__name__
