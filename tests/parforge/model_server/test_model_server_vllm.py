"""The launcher and CLI against the real embedded vLLM server."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents.llm import CompletionRequest, LLMClient, LLMConfig, LLMStreamError, Sampling
from parforge.model_server import ModelServer

pytestmark = pytest.mark.vllm


def test_cli_status_reports_the_running_server(vllm_server: ModelServer) -> None:
    out = subprocess.run(
        [str(Path(sys.executable).parent / "parforge"), "model", "status", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    status = json.loads(out.stdout)
    assert status["healthy"] and status["model"] == vllm_server.config.name()
    assert status["url"] == vllm_server.config.url and status["uptime_s"] > 0


async def test_serve_again_finds_the_running_server(vllm_server: ModelServer) -> None:
    before = vllm_server.read_state()
    t0 = time.monotonic()
    state = await vllm_server.start()
    assert before is not None and state.pid == before.pid
    assert time.monotonic() - t0 < 30


@pytest.mark.kills_server
async def test_server_killed_mid_stream(vllm_server: ModelServer, vllm_config: LLMConfig) -> None:
    state = vllm_server.read_state()
    assert state is not None
    request = CompletionRequest(prompt="Once", sampling=Sampling(max_tokens=2000, ignore_eos=True))
    t0 = 0.0
    async with LLMClient(vllm_config) as llm:
        with pytest.raises(LLMStreamError):
            async with llm.stream(request) as stream:
                received = 0
                async for _ in stream:
                    received += 1
                    if received == 3:
                        os.killpg(state.pid, signal.SIGKILL)
                        t0 = time.monotonic()
    assert time.monotonic() - t0 < 10, "the client hung after the server died"
    await asyncio.sleep(0.5)
    assert not (await vllm_server.status()).running
    await vllm_server.stop()
