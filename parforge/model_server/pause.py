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
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

from parforge.model_server import process
from parforge.model_server.config import ModelConfig


class ModelServerPause:
    """A `TimingGate` quiet hook that stops the embedded model server during timing runs."""

    def __init__(self, state_file: Path) -> None:
        self.state_file = state_file
        self._holders = 0
        self._paused: int | None = None
        self._lock = asyncio.Lock()

    def __call__(self) -> AbstractAsyncContextManager[None]:
        return self._hold()

    @asynccontextmanager
    async def _hold(self) -> AsyncIterator[None]:
        async with self._lock:
            self._holders += 1
            if self._holders == 1:
                self._paused = await asyncio.to_thread(self._stop)
        try:
            yield
        finally:
            async with self._lock:
                self._holders -= 1
                if self._holders == 0 and self._paused is not None:
                    await asyncio.to_thread(process.resume, self._paused)
                    self._paused = None

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


def timing_pause(model: ModelConfig, data_dir: Path) -> ModelServerPause | None:
    """The quiet hook for the configured model: the embedded server's pause, or None when the
    agents call an external endpoint."""
    if model.endpoint.url:
        return None
    return ModelServerPause(data_dir.resolve() / "model-server" / "server.json")
