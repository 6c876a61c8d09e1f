"""Sandbox configurations: how a verification is done (`VerifyOptions`, with the race
checker's `RaceCheckConfig`), and where (a union discriminated by `type`, which
`sandbox.verify.verifier.open_verifier` turns into a `Verifier`: `docker` and `local` through
`sandbox.backends.open_sandbox`, `ray` as the cluster's verifier). Plain data: nothing here
imports a backend or the verifier."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Discriminator, Field, Tag, model_validator

from sandbox.models import DEFAULT_OUTPUT_LIMIT

DEFAULT_SCHEDULE = "default"
"""The OMP_SCHEDULE value that leaves each loop its own schedule."""


class RaceCheckConfig(BaseModel):
    """How hard the OpenMP race checker looks (defaults: the full checker)."""

    threads: list[int] = Field(default_factory=lambda: [2, 4, 3, 8])
    """Thread counts, in the order they are tried (on any number of cores)."""
    schedules: list[str] = Field(
        default_factory=lambda: [DEFAULT_SCHEDULE, "static,1", "dynamic,1"]
    )
    """OMP_SCHEDULE values; `default` runs the loops' own (static) schedule."""
    repeats: int = Field(default=1, ge=1)
    parallel: int = Field(default=2, ge=1)
    """Instrumented runs at once in the workspace."""
    timeout_s: float = Field(default=60.0, gt=0)
    """Limit of one instrumented run (TSan slows programs 5-15x)."""
    static: bool = True
    """Run the static simd/ordered pass."""
    stop_at_first_race: bool = True
    skip_runtime_internals: bool = True
    """Drop Archer's known false alarms on the runtime's own memory (see `tsan.parse_tsan`)."""
    max_inputs: int = Field(default=2, ge=1)
    """Test inputs the dynamic runs use: the last ones, since specs list inputs from small to
    large and a one-element input gives threads nothing to race on."""
    large: bool = True
    """Also run the large inputs (the timing input), once each, at the first thread count."""

    @classmethod
    def single_run(cls, threads: int = 2) -> RaceCheckConfig:
        """The plain approach the full checker is measured against: one Archer run, no extras."""
        return cls(
            threads=[threads],
            schedules=[DEFAULT_SCHEDULE],
            static=False,
            parallel=1,
            skip_runtime_internals=False,
            large=False,
        )


class VerifyOptions(BaseModel):
    """Knobs of one verification (the spec holds the task's own: tests, counts, time-outs)."""

    timing: bool = True
    race: RaceCheckConfig = Field(default_factory=RaceCheckConfig)
    parallel_runs: int = Field(default=2, ge=1)
    """Test runs at once in the workspace (timing runs are always one at a time)."""
    omp_wait_policy: str | None = "passive"
    """OMP_WAIT_POLICY of OpenMP candidate runs (None: the runtime's default). Sandboxes share
    cores; threads spinning at barriers turn any contention into slowdowns of several times."""
    cuda_arch: str | None = None
    """nvcc `-arch`; None = `native` on a GPU sandbox, `sm_80` without one."""
    probe: bool = False
    """A behaviour probe, not a verification: build, integrity and the visible tests only (no
    hidden input, no race check, no timing). Its `passed` says no more than that the outputs
    matched; agents use it to tell candidates apart cheaply and never store it as a candidate's
    verdict."""
    hidden: int | None = Field(default=None, ge=0, le=16)
    """Hidden tests per verification (None: the spec's `hidden.count`, else 2)."""
    seed: int | None = None
    """The seed hidden inputs are drawn from (None: a fresh random one, which is the point;
    set it only to reproduce a verdict)."""

    @classmethod
    def of(cls, options: VerifyOptions | None, timing: bool = True) -> VerifyOptions:
        """`options` (the defaults when None), timed only if both it and `timing` say so."""
        given = options or cls()
        return given.model_copy(update={"timing": timing and given.timing})


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
    """How long a new container's supervisor may take to say it is ready."""

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
    each verification is a Ray task that needs one unit of it (`sandbox.verify.cluster`)."""

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
