"""Backend configurations: a union discriminated by `type`; `sandbox.backends.open_sandbox`
turns one into a `Sandbox`. Plain data: nothing here imports a backend."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Discriminator, Field, Tag, model_validator

from sandbox.models import DEFAULT_OUTPUT_LIMIT


class DockerConfig(BaseModel):
    """Hardened containers from the sandbox image, kept warm in a pool."""

    type: Literal["docker"] = "docker"
    image: str | None = None
    """Image to run; None means the tag `parforge sandbox build` derives from the Dockerfile."""
    docker_host: str | None = None
    """Engine URL (`unix://...`, `tcp://gpu-host:2376`); None uses DOCKER_HOST or the local socket."""
    allow_plain_tcp: bool = False
    """Accept a `tcp://` engine without TLS (DOCKER_TLS_VERIFY/DOCKER_CERT_PATH); off: refused."""
    pool_size: int = Field(default=2, ge=1)
    """Containers kept warm and reused across jobs; also the number of concurrent jobs."""
    cpus: float = Field(default=2.0, gt=0)
    memory_mb: int = Field(default=2048, ge=64)
    pids_limit: int = Field(default=512, ge=16)
    workdir_mb: int = Field(default=512, ge=16)
    """Size of the tmpfs work dir; the root filesystem is read-only."""
    output_limit: int = Field(default=DEFAULT_OUTPUT_LIMIT, ge=1024)
    gpus: Literal["auto", "on", "off"] = "auto"
    """Pass the host's GPUs through (`device_requests`); auto = when the engine has the nvidia runtime."""
    cuda_toolkit: Path | None = None
    """Host CUDA toolkit to mount read-only for nvcc (None = autodetect /usr/local/cuda)."""
    reuse: bool = True
    """Wipe containers and reuse them across jobs; False starts a fresh container per job."""
    tmp_mb: int = Field(default=256, ge=16)
    """Size of each of the tmpfs /tmp and /dev/shm (memory: counted in `memory_mb`)."""
    watchdog_grace_s: float = Field(default=10.0, gt=0)
    """The host kills the container when a command outlives its time-out by this much."""
    start_timeout_s: float = Field(default=60.0, gt=0)
    """How long a new container's agent may take to say it is ready."""

    @model_validator(mode="after")
    def _tmpfs_fits_in_memory(self) -> DockerConfig:
        # tmpfs pages are charged to the container's memory: full file systems must leave room
        # for the programs, or the kernel's OOM killer would pick among them.
        if self.workdir_mb + 2 * self.tmp_mb + 256 > self.memory_mb:
            raise ValueError("memory_mb must exceed workdir_mb + 2 * tmp_mb by at least 256")
        return self


class LocalConfig(BaseModel):
    """Plain subprocesses with rlimits (and bubblewrap when present): weaker isolation."""

    type: Literal["local"] = "local"
    root: Path | None = None
    """Where workspaces are created; None = the system temp dir."""
    max_concurrency: int = Field(default=2, ge=1)
    memory_mb: int = Field(default=4096, ge=64)
    file_size_mb: int = Field(default=512, ge=1)
    output_limit: int = Field(default=DEFAULT_OUTPUT_LIMIT, ge=1024)
    bubblewrap: Literal["auto", "on", "off"] = "auto"


class RayConfig(BaseModel):
    """Verifications spread over a Ray cluster: every node that offers the `resource` runs a
    sandbox actor with its own Docker engine, warm pool, reference cache and timing gate, and
    each verification is a Ray task that needs one unit of it (`sandbox.backends.cluster`)."""

    type: Literal["ray"] = "ray"
    address: str = "auto"
    """The cluster: `auto` (one started on this host with `ray start`), `host:6379`, or
    `ray://head:10001` (Ray Client)."""
    namespace: str = "parforge"
    """Where the sandbox actors are named; processes in one namespace share them."""
    resource: str = "docker"
    """The custom resource a sandbox host offers (`ray start --resources '{"docker": 2}'`): one
    unit per verification running there, so its count is that node's concurrent verifications."""
    node: DockerConfig = Field(default_factory=DockerConfig)
    """Each node's Docker sandbox (its `pool_size` should match the node's `resource` count)."""
    gpu_share: float = Field(default=0.25, gt=0, le=1)
    """The part of a GPU one CUDA verification asks Ray for: 0.25 lets four share a GPU (the
    tests and compute-sanitizer runs of several candidates fit on one; the node's timing gate
    still times each alone). 1 gives each its own GPU."""
    retries: int = Field(default=2, ge=0)
    """Times a verification whose node died is run again on another node."""
    max_in_flight: int = Field(default=32, ge=1)
    """Verifications one process has in the cluster at once; the rest wait here."""


def _backend(value: Any) -> str:
    """The backend a config names; `docker` when it names none (`PARFORGE_SANDBOX__POOL_SIZE=4`
    alone configures the default backend)."""
    if isinstance(value, dict):
        return str(value.get("type", "docker"))
    return str(getattr(value, "type", "docker"))


SandboxConfig = Annotated[
    Annotated[DockerConfig, Tag("docker")]
    | Annotated[LocalConfig, Tag("local")]
    | Annotated[RayConfig, Tag("ray")],
    Discriminator(_backend),
]
