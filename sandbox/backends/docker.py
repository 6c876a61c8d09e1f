"""Docker backend: hardened containers from the sandbox image, kept warm in a pool.

Each container runs the ParForge supervisor (`images/supervisor.py`) as PID 1, as the unprivileged
`sandbox` user (uid 1000), with no network, a read-only root file system, a tmpfs `/work` (the
workspace) and `/tmp`, no capabilities, no-new-privileges, and pids, memory, CPU, file-size and
core-dump limits (`container.container_spec`). The host talks to the supervisor over the container's
attach stream (`_channel.py`): files go in and commands run without a `docker exec` or a
`put_archive` per operation, which is what keeps a warm sandbox close to running on the host.

Time-outs are enforced twice: by the supervisor, which SIGKILLs the command's process group at its
deadline, and by a host-side watchdog a grace period later, which kills and removes the whole
container when the supervisor did not answer (the workspace is then broken and the pool replaces the
container). Output beyond the limit is dropped and the command killed.

Pool: up to `pool_size` containers, started on demand (or all at once by `await start()`), one
per leased workspace. When a job ends its container is wiped (every process but PID 1 killed;
/work, /tmp and /dev/shm emptied) in the background and goes back to the pool; the next lease
waits for that wipe, and a container that failed it is replaced. With `reuse=False` every job
gets a fresh container, removed afterwards.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sandbox._paths import safe_relative
from sandbox.backends import container
from sandbox.backends.container import Box, Setup
from sandbox.backends.engine import Engine
from sandbox.backends.image import BuildProgress, build_image, ensure_image, image_tag
from sandbox.config import DockerConfig
from sandbox.errors import SandboxError, SandboxUnavailable, WorkspaceError
from sandbox.models import DEFAULT_OUTPUT_LIMIT, Command, CommandResult, SandboxInfo

log = logging.getLogger(__name__)

_WIPE_TIMEOUT_S = 30.0
_FILE_TIMEOUT_S = 60.0
_ISOLATION = (
    "container: no network, read-only root, tmpfs /work, a fresh uid per command with no "
    "capabilities (no-new-privileges), sealed build outputs, pids/memory/CPU limits"
)


class DockerSandbox:
    """Workspaces in hardened containers, reused across jobs."""

    def __init__(self, config: DockerConfig) -> None:
        self.config = config
        self.engine = Engine(config.docker_host, config.allow_plain_tcp)
        self._slots = asyncio.Semaphore(config.pool_size)
        self._setup: Setup | None = None
        self._setup_lock = asyncio.Lock()
        self._idle: deque[asyncio.Task[Box]] = deque()
        self._boxes: set[Box] = set()
        self._starting = 0
        self._chores: set[asyncio.Task[Any]] = set()
        self._closed = False
        self._landlock: int | None = None
        """The Landlock ABI the containers' agents reported (None before the first start)."""

    def info(self) -> SandboxInfo:
        """Backend, isolation, image; `gpu` is exact once the engine was asked (first job or start)."""
        setup = self._setup
        gpu = setup.gpu if setup else self.config.gpus == "on"
        image = setup.image if setup else self.config.image or image_tag()
        cpus = self.config.cpus
        if setup and setup.engine_cpus:
            cpus = min(cpus, float(setup.engine_cpus))
        isolation = _ISOLATION
        if self._landlock is not None:
            isolation += f", Landlock ABI {self._landlock}" if self._landlock else ", no Landlock"
        return SandboxInfo(backend="docker", isolation=isolation, gpu=gpu, image=image, cpus=cpus)

    @property
    def warm(self) -> int:
        """Containers this sandbox holds (leased or idle)."""
        return len(self._boxes)

    async def start(self) -> None:
        """Check the engine and image, then warm the whole pool (with `reuse`) before any job."""
        await self._prepare()
        if self.config.reuse:
            for _ in range(self.config.pool_size - len(self._boxes) - self._starting):
                self._idle.append(self._spawn(self._new_box()))
            await asyncio.gather(*self._idle)

    @asynccontextmanager
    async def workspace(self) -> AsyncIterator[DockerWorkspace]:
        if self._closed:
            raise SandboxUnavailable("the docker sandbox is closed")
        async with self._slots:
            box = await self._lease()
            try:
                yield DockerWorkspace(box, self.config)
            finally:
                self._release(box)

    async def aclose(self) -> None:
        """Remove every container this sandbox created and close the engine client."""
        self._closed = True
        await self.settle()
        boxes, self._boxes = list(self._boxes), set()
        self._idle.clear()
        await asyncio.gather(*(box.remove() for box in boxes), return_exceptions=True)
        await self.engine.aclose()

    async def settle(self) -> None:
        """Wait for background work (wipes, removals, replacements) to finish."""
        while self._chores:
            await asyncio.gather(*self._chores, return_exceptions=True)

    async def prune(self, everything: bool = False) -> list[str]:
        """Remove containers left behind by crashed ParForge processes (see `container.prune`)."""
        return await container.prune(self.engine, everything)

    async def build_image(
        self, base: str | None = None, force: bool = False, progress: BuildProgress | None = None
    ) -> str:
        """Build the sandbox image in this sandbox's engine (see `sandbox.backends.image.build_image`)."""
        return await build_image(self.engine, base=base, force=force, progress=progress)

    async def _prepare(self) -> Setup:
        async with self._setup_lock:
            if self._setup is None:
                # Containers of ParForge processes that died on this host go before new ones start.
                await self.prune()
                image = await ensure_image(self.engine, self.config.image)
                engine = await self.engine.call(
                    lambda client: client.info(), "asking the engine about itself"
                )
                runtimes = engine.get("Runtimes") or {}
                gpu = self.config.gpus == "on" or (
                    self.config.gpus == "auto" and "nvidia" in runtimes
                )
                self._setup = Setup(
                    image=image,
                    gpu=gpu,
                    cuda_root=self._cuda_root(),
                    path=await self._image_path(image),
                    engine_cpus=int(engine.get("NCPU") or 0),
                )
            return self._setup

    async def _image_path(self, image: str) -> str:
        attrs = await self.engine.call(
            lambda client: client.images.get(image).attrs, f"inspecting {image}"
        )
        for item in (attrs.get("Config") or {}).get("Env") or []:
            if item.startswith("PATH="):
                return str(item[len("PATH=") :])
        return container.DEFAULT_PATH

    def _cuda_root(self) -> Path | None:
        """The host's CUDA toolkit when it can be mounted (a local engine and nvcc present)."""
        if not self.engine.is_local:
            return None
        explicit = self.config.cuda_toolkit
        root = (explicit or Path("/usr/local/cuda")).resolve()
        if (root / "bin" / "nvcc").is_file():
            return root
        if explicit is not None:
            raise SandboxUnavailable(f"cuda_toolkit {explicit} has no bin/nvcc")
        return None

    async def _new_box(self) -> Box:
        self._starting += 1
        try:
            setup = await self._prepare()
            spec = container.container_spec(self.config, setup)
            box = await Box.start(self.engine, spec, self.config.start_timeout_s)
        finally:
            self._starting -= 1
        self._boxes.add(box)
        self._landlock = box.landlock
        return box

    async def _lease(self) -> Box:
        while self._idle:
            ready = self._idle.popleft()
            try:
                return await asyncio.shield(ready)
            except asyncio.CancelledError:
                self._idle.appendleft(ready)  # the caller gave up; the container stays pooled
                raise
            except SandboxError:
                continue  # that replacement failed; try the next one or start afresh
        return await self._new_box()

    def _release(self, box: Box) -> None:
        if self.config.reuse and box.broken is None and not self._closed:
            self._idle.append(self._spawn(self._recycle(box)))
        else:
            self._boxes.discard(box)
            self._spawn(box.remove())
            if self.config.reuse and not self._closed:
                self._idle.append(self._spawn(self._new_box()))

    async def _recycle(self, box: Box) -> Box:
        """Wipe a container for the next job, or replace it when the wipe fails."""
        try:
            await box.channel.request({"op": "wipe"}, _WIPE_TIMEOUT_S)
            return box
        except (WorkspaceError, TimeoutError):
            self._boxes.discard(box)
            await box.remove()
            return await self._new_box()

    def _spawn(self, work: Awaitable[Any]) -> asyncio.Task[Any]:
        """Run background work (wipes, removals, replacements) that `aclose` waits for."""
        task = asyncio.ensure_future(work)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)
        task.add_done_callback(_log_failed_chore)
        return task


def _text(data: str) -> str:
    return base64.b64decode(data).decode(errors="replace")


def _log_failed_chore(task: asyncio.Task[Any]) -> None:
    """A background chore's failure is logged (a container left behind goes at the next
    `prune`), never an unretrieved exception; whoever awaits the task still gets it."""
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.warning("sandbox pool: %s", exc)


_KILLED = "killed by the host watchdog after a time-out"
"""Why a workspace's container is gone when the watchdog took it."""


def _after_kill(which: str, elapsed: float) -> CommandResult:
    """A command of a workspace whose container the watchdog took at `which` command's
    time-out: a time-out too."""
    return CommandResult(
        exit_code=-9,
        stderr=f"[parforge: the sandbox was killed at {which} command's time-out]",
        duration_s=elapsed,
        timed_out=True,
        sandbox_killed=True,
        ended_with=f"the sandbox was killed at {which} command's time-out",
    )


class DockerWorkspace:
    """One leased container: its /work is the workspace root."""

    def __init__(self, box: Box, config: DockerConfig) -> None:
        self._box = box
        self._config = config

    async def write_files(self, files: Mapping[str, str | bytes]) -> None:
        encoded = {}
        for name, content in files.items():
            data = content.encode() if isinstance(content, str) else content
            encoded[str(safe_relative(name))] = base64.b64encode(data).decode("ascii")
        await self._request({"op": "write", "files": encoded}, "writing files")

    async def read_file(self, path: str, limit: int = DEFAULT_OUTPUT_LIMIT) -> bytes:
        message = {"op": "read", "path": str(safe_relative(path)), "limit": limit}
        response = await self._request(message, f"reading {path!r}")
        return base64.b64decode(response["data"])

    async def run(self, command: Command) -> CommandResult:
        cwd = str(safe_relative(command.cwd)) if command.cwd not in ("", ".") else "."
        message = {
            "op": "run",
            "argv": command.argv,
            "cwd": cwd,
            "env": command.env,
            "stdin": base64.b64encode(command.stdin.encode()).decode("ascii"),
            "timeout": command.timeout_s,
            "limit": min(command.output_limit, self._config.output_limit),
            "reads": [str(safe_relative(d)) for d in command.reads],
            "writes": [str(safe_relative(d)) for d in command.writes],
            "collect": command.collect,
            "cpus": command.cpus,
        }
        start = time.monotonic()
        watchdog = command.timeout_s + self._config.watchdog_grace_s
        if self._box.broken == _KILLED:
            # The watchdog took the container at an earlier command's time-out: nothing runs
            # here any more, and that is the candidate's making (its program hung), so a later
            # stage's command ends as the same time-out, never as a failure of the sandbox that
            # would stop a whole evaluation.
            return _after_kill("an earlier", 0.0)
        if self._box.broken is not None:
            raise WorkspaceError(
                f"running {command.argv[:1]}: the workspace's container is gone ({self._box.broken})"
            )
        try:
            response = await self._request(message, f"running {command.argv[:1]}", watchdog)
        except TimeoutError:
            return await self._kill_container(time.monotonic() - start)
        except WorkspaceError:
            if self._box.broken != _KILLED:
                raise
            # Under way when another command of this workspace ran past its time-out and the
            # watchdog took the container: this one ends with it, the same time-out.
            return _after_kill("another", time.monotonic() - start)
        if response["exit_code"] is None and not response.get("timed_out"):
            raise WorkspaceError(f"the sandbox supervisor returned no exit status: {response}")
        return CommandResult(
            exit_code=response["exit_code"] if response["exit_code"] is not None else -9,
            stdout=_text(response.get("stdout", "")),
            stderr=_text(response.get("stderr", "")),
            duration_s=response.get("duration_s", 0.0),
            timed_out=response.get("timed_out", False),
            output_truncated=response.get("output_truncated", False),
            out_of_memory=response.get("out_of_memory", False),
            cpu_s=response.get("cpu_s"),
            threads=response.get("threads"),
            host_busy_s=response.get("host_busy_s"),
            files={name: _text(data) for name, data in (response.get("files") or {}).items()},
        )

    async def _request(
        self, message: dict[str, Any], what: str, watchdog: float | None = None
    ) -> dict[str, Any]:
        """One supervisor request; `TimeoutError` only for a `watchdog`, as `run` handles it."""
        if self._box.broken is not None:
            raise WorkspaceError(f"{what}: the workspace's container is gone ({self._box.broken})")
        try:
            return await self._box.channel.request(message, watchdog or _FILE_TIMEOUT_S)
        except WorkspaceError as exc:
            raise type(exc)(f"{what}: {exc}") from exc
        except TimeoutError as exc:
            if watchdog is not None:
                raise
            raise WorkspaceError(f"{what}: the sandbox supervisor did not answer") from exc

    async def _kill_container(self, elapsed: float) -> CommandResult:
        """The watchdog: the supervisor did not end the command in time, so the container goes."""
        self._box.broken = _KILLED
        try:
            await self._box.remove()
        except SandboxError as exc:
            # The verdict is a time-out either way: the container is broken, so the pool removes
            # it again on release, and `prune` at the next start if that fails too.
            log.warning("sandbox watchdog: %s", exc)
        return CommandResult(
            exit_code=-9,
            stderr="[parforge: the sandbox did not stop the program at its time-out; container killed]",
            duration_s=elapsed,
            timed_out=True,
            sandbox_killed=True,
        )
