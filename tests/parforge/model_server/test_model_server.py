"""The launcher's logic: command lines, settings, metrics, and a lifecycle on a stand-in vLLM."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from parforge.cli import app
from parforge.model_server import (
    ModelConfig,
    ModelServer,
    ModelServerConfig,
    ServerConflict,
    ServerStartError,
)
from parforge.model_server.launcher import build_command, build_environment
from parforge.model_server.metrics import parse_metrics
from parforge.model_server.process import alive
from parforge.settings import load_settings


def test_embedded_cpu_command() -> None:
    argv = build_command(ModelServerConfig(), Path("/env/bin/python"), "/models/smol")
    assert argv[:3] == ["/env/bin/python", "-m", "vllm.entrypoints.openai.api_server"]
    joined = " ".join(argv)
    assert "--model /models/smol --served-model-name smollm2-135m-instruct" in joined
    assert "--enable-prefix-caching" in argv and "--enable-prompt-tokens-details" in argv
    # Left unset here: the launcher chooses them from the CPU (test_model_server_cpu.py).
    assert "--enforce-eager" not in argv and "--dtype" not in argv
    assert argv[argv.index("--kv-cache-memory-bytes") + 1] == str(2 * 2**30)
    assert '"disable_any_whitespace": true' in joined


def test_gpu_command_with_tensor_parallel_and_loras() -> None:
    config = ModelServerConfig(
        model="Qwen/Qwen2.5-Coder-7B-Instruct",
        python=Path("/opt/vllm/bin/python"),
        tensor_parallel_size=4,
        loras={"omp": "/adapters/omp", "mpi": "/adapters/mpi"},
        enforce_eager=False,
        extra_args=["--max-lora-rank", "64"],
    )
    argv = build_command(config, config.python or Path(), config.model or "")
    assert argv[argv.index("--tensor-parallel-size") + 1] == "4"
    assert argv[argv.index("--served-model-name") + 1] == "Qwen/Qwen2.5-Coder-7B-Instruct"
    i = argv.index("--lora-modules")
    assert argv[i - 1] == "--enable-lora" and argv[i + 1 : i + 3] == [
        "omp=/adapters/omp",
        "mpi=/adapters/mpi",
    ]
    assert argv[-2:] == ["--max-lora-rank", "64"]
    assert "--kv-cache-memory-bytes" not in argv and "--enforce-eager" not in argv


def test_environment_of_the_embedded_server() -> None:
    env = build_environment(
        ModelServerConfig(cpu_threads_bind="0-1"),
        Path("/data/cache"),
        ["libtc.so", "/e/libiomp5.so"],
    )
    assert env["VLLM_CPU_OMP_THREADS_BIND"] == "0-1" and env["HF_HUB_OFFLINE"] == "1"
    assert env["LD_PRELOAD"] == "libtc.so:/e/libiomp5.so"
    no_preload = build_environment(ModelServerConfig(cpu_preload=False), Path("/c"), ["libtc.so"])
    assert "LD_PRELOAD" not in no_preload
    assert env["VLLM_CACHE_ROOT"] == "/data/cache"
    gpu = build_environment(
        ModelServerConfig(model="m", python=Path("/p"), env={"VLLM_LOGGING_LEVEL": "DEBUG"}),
        Path("/c"),
    )
    assert "VLLM_CPU_OMP_THREADS_BIND" not in gpu and "HF_HUB_OFFLINE" not in gpu
    assert "LD_PRELOAD" not in gpu
    assert gpu["VLLM_LOGGING_LEVEL"] == "DEBUG"


def test_client_config_follows_the_server_unless_an_endpoint_is_set() -> None:
    own = ModelConfig(server=ModelServerConfig(port=9001)).client_config()
    assert (own.url, own.model) == ("http://127.0.0.1:9001/v1", "smollm2-135m-instruct")
    remote = ModelConfig.model_validate(
        {"endpoint": {"url": "https://llm.example/v1", "model": "coder", "api_key": "k"}}
    ).client_config()
    assert (remote.url, remote.model) == ("https://llm.example/v1", "coder")


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PARFORGE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PARFORGE_MODEL__ENDPOINT__URL", "http://gpu-host:8000/v1")
    monkeypatch.setenv("PARFORGE_MODEL__ENDPOINT__API_KEY", "secret")
    monkeypatch.setenv("PARFORGE_MODEL__SERVER__PORT", "8123")
    monkeypatch.setenv("PARFORGE_MODEL__SERVER__LORAS", '{"omp": "/a/omp"}')
    model = load_settings().model
    assert model.endpoint.url == "http://gpu-host:8000/v1"
    assert model.endpoint.api_key is not None
    assert model.endpoint.api_key.get_secret_value() == "secret"
    assert model.server.port == 8123 and model.server.loras == {"omp": "/a/omp"}


METRICS = """\
# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1000.0
vllm:prefix_cache_queries_created{engine="0",model_name="m"} 1.7e+09
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 768.0
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 2.0
# TYPE vllm:generation_tokens counter
vllm:generation_tokens_total{engine="0",model_name="m"} 42.0
# TYPE vllm:request_success counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="m"} 3.0
vllm:request_success_total{engine="0",finished_reason="length",model_name="m"} 1.0
"""


def test_parse_metrics_and_hit_rate() -> None:
    m = parse_metrics(METRICS)
    assert (m.prefix_cache_queries, m.prefix_cache_hits) == (1000.0, 768.0)
    assert m.requests_running == 2.0 and m.generation_tokens == 42.0
    assert m.finished == {"stop": 3.0, "length": 1.0}
    assert m.hit_rate_since(parse_metrics("")) == pytest.approx(0.768)
    assert m.hit_rate_since(m) is None


async def test_lifecycle_on_a_stand_in_server(fake_vllm: ModelServerConfig, tmp_path: Path) -> None:
    server = ModelServer(fake_vllm, tmp_path)
    messages: list[str] = []
    state = await server.start(progress=messages.append)
    try:
        assert alive(state.pid) and state.url == fake_vllm.url
        assert any("warming up" in m for m in messages)
        status = await server.status()
        assert status.healthy and status.pid == state.pid and status.model == "fake/model"
        assert status.uptime_s is not None and status.uptime_s >= 0
        again = await server.start()  # already running: the same server
        assert again.pid == state.pid
        other = ModelServer(fake_vllm.model_copy(update={"served_model_name": "x"}), tmp_path)
        with pytest.raises(ServerConflict, match="already running"):
            await other.start()
    finally:
        assert await server.stop()
    assert not alive(state.pid)
    assert not (await server.status()).running
    assert not await server.stop()


async def test_a_server_that_dies_while_starting_shows_its_log(
    fake_vllm: ModelServerConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_VLLM_FAIL", "1")
    server = ModelServer(fake_vllm, tmp_path)
    with pytest.raises(ServerStartError, match="not enough memory for the KV cache"):
        await server.start()
    assert server.read_state() is None


async def test_a_taken_port_is_a_conflict(fake_vllm: ModelServerConfig, tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind((fake_vllm.host, fake_vllm.port))
        sock.listen()
        with pytest.raises(ServerConflict, match="in use"):
            await ModelServer(fake_vllm, tmp_path).start()


async def test_another_data_dirs_server_for_the_same_model_is_used(
    fake_vllm: ModelServerConfig, tmp_path: Path
) -> None:
    """The scripts and the CLI once kept different data dirs: the second to start found the
    port taken by ParForge's own server for the same model and refused it."""
    first = ModelServer(fake_vllm, tmp_path / "scripts")
    state = await first.start()
    try:
        said: list[str] = []
        reused = await ModelServer(fake_vllm, tmp_path / "cli").start(progress=said.append)
        assert reused.adopted and reused.url == state.url and reused.pid == 0
        assert any("using the server already serving fake/model" in m for m in said)
        assert not await ModelServer(fake_vllm, tmp_path / "cli").stop()  # not its to stop
        assert alive(state.pid)
        other = fake_vllm.model_copy(update={"served_model_name": "another/model"})
        with pytest.raises(ServerConflict, match="in use by a model server for fake/model"):
            await ModelServer(other, tmp_path / "third").start()
    finally:
        assert await first.stop()


def test_cli_status_when_nothing_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PARFORGE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PARFORGE_MODEL__SERVER__PORT", "8999")
    result = CliRunner().invoke(app, ["model", "status", "--json"])
    assert result.exit_code == 3
    assert '"running":false' in result.stdout and "8999" in result.stdout
    assert CliRunner().invoke(app, ["model", "stop"]).exit_code == 0


def test_cli_rejects_a_malformed_lora(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PARFORGE_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(app, ["model", "serve", "--lora", "no-equals-sign"])
    assert result.exit_code == 2 and "NAME=PATH" in result.output
    assert not os.path.exists(tmp_path / "model-server" / "server.json")


def test_foreground_serve_becomes_the_server(fake_vllm: ModelServerConfig, tmp_path: Path) -> None:
    """`serve --foreground` (a container's command) execs vLLM in its own process: the pid the
    supervisor started is the server's, and stopping it stops the server."""
    import subprocess
    import sys
    import time

    import httpx

    argv = [sys.executable, "-m", "parforge", "model", "serve", "--foreground"]
    argv += ["--python", sys.executable, "--model", "fake/model", "--port", str(fake_vllm.port)]
    env = {**os.environ, "PARFORGE_DATA_DIR": str(tmp_path)}
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
            try:
                if httpx.get(f"http://127.0.0.1:{fake_vllm.port}/health").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the foreground server never answered"
            time.sleep(0.2)
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes().split(b"\0")
        assert b"vllm.entrypoints.openai.api_server" in cmdline
        assert not (tmp_path / "model-server" / "server.json").exists()  # nothing to adopt
    finally:
        proc.terminate()
        proc.wait(timeout=10)
