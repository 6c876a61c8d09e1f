"""One hardened sandbox container: how it is configured, started, reached, removed and pruned.

`container_spec` is pure (config in, docker-py keyword arguments out), so the hardening is
checked by unit tests without an engine; `Box` is a started container with its supervisor channel.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docker
from docker.types import DeviceRequest, LogConfig, Mount, Ulimit

from sandbox.backends.channel import SupervisorChannel
from sandbox.backends.engine import Engine
from sandbox.config import DockerConfig
from sandbox.errors import SandboxUnavailable, WorkspaceError

WORKDIR = "/work"
USER = "0:0"
"""The supervisor runs as root with `CAPABILITIES` only; it starts every command as a fresh
unprivileged uid (see `images/supervisor.py`)."""
CAPABILITIES = ["CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETUID", "SETGID"]
"""What the supervisor needs to give each command its own identity, seal directories, clean up
after any uid and kill a uid's processes; commands have none (no-new-privileges)."""
SYSCTLS = {"fs.mqueue.queues_max": "0", "kernel.msgmni": "0"}
"""POSIX message queues and System V message queues cannot be created at all: no correct
program needs them, and a queue outlives its creator (a channel between commands)."""
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
CUDA_MOUNT = "/usr/local/cuda"
LABEL = "parforge.sandbox"
OWNER = uuid.uuid4().hex[:12]
"""This process's id on its containers (with host name and pid), so `prune` can tell stale ones."""


@dataclass(frozen=True)
class Setup:
    """What every container of a sandbox shares, worked out once from the config and the engine."""

    image: str
    gpu: bool
    cuda_root: Path | None
    """A host CUDA toolkit (symlinks resolved) mounted read-only at the same path and at CUDA_MOUNT."""
    path: str = DEFAULT_PATH
    """The image's own PATH (a CUDA base image puts its toolkit there)."""
    engine_cpus: int = 0
    """CPUs of the engine's host (0: unknown). The engine refuses a CPU limit above it."""


def owner_labels() -> dict[str, str]:
    return {
        LABEL: "1",
        "parforge.owner": OWNER,
        "parforge.host": socket.gethostname(),
        "parforge.pid": str(os.getpid()),
    }


def container_spec(config: DockerConfig, setup: Setup) -> dict[str, Any]:
    """Keyword arguments for `client.containers.create`: the hardening lives here."""
    tmpfs_opts = "rw,exec,nosuid,nodev,uid=0,gid=0"
    environment = {"HOME": WORKDIR, "LANG": "C.UTF-8", "PATH": setup.path}
    mounts = []
    if setup.cuda_root is not None:
        for target in dict.fromkeys([str(setup.cuda_root), CUDA_MOUNT]):
            mounts.append(Mount(target, str(setup.cuda_root), type="bind", read_only=True))
        if f"{CUDA_MOUNT}/bin" not in setup.path.split(":"):
            environment["PATH"] = f"{CUDA_MOUNT}/bin:{setup.path}"
        environment["CUDA_HOME"] = CUDA_MOUNT
    file_size = config.workdir_mb << 20
    spec: dict[str, Any] = {
        "image": setup.image,
        "user": USER,
        "working_dir": WORKDIR,
        "environment": environment,
        "stdin_open": True,  # the supervisor's request channel
        # Not detached: docker-py then sets StdinOnce, so the engine closes stdin when the host's
        # attach connection goes (its owner died); the supervisor exits and the container with it.
        "detach": False,
        "network_mode": "none",
        "read_only": True,
        "tmpfs": {
            WORKDIR: f"{tmpfs_opts},mode=0755,size={config.workdir_mb}m",
            "/tmp": f"{tmpfs_opts},mode=1777,size={config.tmp_mb}m",
        },
        "shm_size": f"{config.tmp_mb}m",
        "cap_drop": ["ALL"],
        "cap_add": CAPABILITIES,
        "security_opt": ["no-new-privileges"],
        "sysctls": SYSCTLS,
        "pids_limit": config.pids_limit,
        "mem_limit": f"{config.memory_mb}m",
        "memswap_limit": f"{config.memory_mb}m",  # equal: no swap beyond the memory limit
        "ulimits": [
            Ulimit(name="core", soft=0, hard=0),
            Ulimit(name="fsize", soft=file_size, hard=file_size),
        ],
        "log_config": LogConfig(type=LogConfig.types.NONE),  # output travels on the attach stream
        "labels": owner_labels(),
        "hostname": "sandbox",
        "mounts": mounts,
    }
    if not setup.engine_cpus or config.cpus < setup.engine_cpus:
        spec["nano_cpus"] = int(config.cpus * 1e9)  # else there is nothing to limit
    if setup.gpu:
        spec["device_requests"] = [DeviceRequest(count=-1, capabilities=[["gpu"]])]
        # What the NVIDIA runtime mounts in: the CUDA driver (compute) and nvidia-smi (utility).
        environment["NVIDIA_DRIVER_CAPABILITIES"] = "compute,utility"
    return spec


class Box:
    """A started container and the channel to its supervisor."""

    def __init__(self, engine: Engine, container_id: str, channel: SupervisorChannel) -> None:
        self.engine = engine
        self.id = container_id
        self.channel = channel
        self.broken: str | None = None
        """Why the container must not be reused (killed by the watchdog, wipe failed)."""
        self.landlock = 0
        """The Landlock ABI its supervisor confines commands with (0: none on this kernel)."""

    @classmethod
    async def start(cls, engine: Engine, spec: dict[str, Any], start_timeout_s: float) -> Box:
        """Create and start a container, attached before start so no supervisor output is lost."""

        def create(client: docker.DockerClient) -> tuple[str, Any]:
            container = client.containers.create(**spec)
            container_id = str(container.id)
            try:
                sock = client.api.attach_socket(
                    container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
                )
                container.start()
            except BaseException:
                container.remove(force=True)
                raise
            return container_id, sock

        container_id, sock = await engine.call(create, f"starting a container from {spec['image']}")
        box = cls(engine, container_id, SupervisorChannel(sock, container_id[:12]))
        try:
            hello = await box.channel.hello(start_timeout_s)
        except (TimeoutError, WorkspaceError) as exc:
            detail = box.channel.stderr_tail() or str(exc) or "no answer"
            await box.remove()
            raise SandboxUnavailable(
                f"the sandbox supervisor did not start in {spec['image']}: {detail}"
            ) from exc
        if hello.get("uid") != 0:
            await box.remove()
            raise SandboxUnavailable(
                f"the sandbox supervisor runs as uid {hello.get('uid')}, not root: it cannot give "
                "each command an identity of its own (a runtime that remaps users?)"
            )
        box.landlock = int(hello.get("landlock") or 0)
        return box

    async def remove(self) -> None:
        """Kill and remove the container (idempotent)."""
        self.channel.close()

        def remove(client: docker.DockerClient) -> None:
            for attempt in range(1, _REMOVE_ATTEMPTS + 1):
                try:
                    client.api.remove_container(self.id, force=True)
                    return
                except docker.errors.NotFound:
                    return
                except docker.errors.APIError as exc:
                    # A watchdog and a pool shutdown may both remove a stuck container; the
                    # engine answers 409 to the second while the first is under way. Gone is gone.
                    if exc.status_code == 409 and "already in progress" in str(exc.explanation):
                        return
                    # A loaded engine may give up waiting for the kill ("did not receive an
                    # exit event", 500); the kill is under way, so ask again a little later.
                    if not exc.is_server_error() or attempt == _REMOVE_ATTEMPTS:
                        raise
                    time.sleep(attempt)

        await self.engine.call(remove, f"removing container {self.id[:12]}")


_REMOVE_ATTEMPTS = 3


async def prune(engine: Engine, everything: bool = False) -> list[str]:
    """Remove sandbox containers whose creating process is gone; return their ids.

    A container is stale when it was created on this host by a process that no longer exists.
    With `everything`, every sandbox container not created by this process goes.
    """
    host = socket.gethostname()

    def stale(labels: dict[str, str]) -> bool:
        if labels.get("parforge.owner") == OWNER:
            return False
        if everything:
            return True
        return labels.get("parforge.host") == host and not _alive(
            int(labels.get("parforge.pid", "0"))
        )

    def run(client: docker.DockerClient) -> list[str]:
        removed = []
        with _pruning_lock():
            # Sparse: the listing's own labels, no inspection per container, which fails on
            # one that a process on another host (or without the lock) removes meanwhile.
            listed = client.containers.list(all=True, sparse=True, filters={"label": f"{LABEL}=1"})
            for container in listed:
                if stale(container.attrs.get("Labels") or {}):
                    try:
                        container.remove(force=True)
                    except docker.errors.APIError as exc:
                        # Gone, or being removed, by another process pruning at the same time.
                        if exc.status_code in (404, 409):
                            continue
                        raise
                    removed.append(str(container.id))
        return removed

    return await engine.call(run, "pruning sandbox containers")


PRUNE_LOCK = Path(tempfile.gettempdir()) / "parforge-prune.lock"
"""Held while a process on this host lists and removes stale containers. Without it two
processes pruning at once could both remove one container and both report it (seen: the
engine answered both removals with success)."""


@contextlib.contextmanager
def _pruning_lock() -> Iterator[None]:
    """This host's pruning lock (an advisory `flock`, released if the process dies); without
    a lock file this user can open, no lock: the engine's 404 and 409 still keep two
    processes from failing, only their reports may overlap."""
    try:
        fd = os.open(PRUNE_LOCK, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        try:
            fd = os.open(PRUNE_LOCK, os.O_RDONLY)
        except OSError:
            yield
            return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
