"""The embedded model server is held still during timing runs (`ModelServerPause`), on a real
process that stands in for vLLM (its command line names it, as the guard against pid reuse
asks)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from parforge.model_server import process
from parforge.model_server.config import ModelConfig
from parforge.model_server.pause import ModelServerPause, timing_pause
from parforge.model_server.process import ServerState


def state_of(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def fake_server(tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "vllm"], start_new_session=True
    )
    # Until the child has exec'd, its command line is still the parent's: no "vllm" in it, and
    # the pause (rightly) leaves it alone. Under load that took long enough to fail the test.
    deadline = time.monotonic() + 10
    while not process.looks_like_vllm(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    state = ServerState(
        pid=proc.pid,
        url="http://127.0.0.1:1/v1",
        model="m",
        served_model_name="m",
        argv=["vllm"],
        log=tmp_path / "log",
        started_at=datetime.now(UTC),
    )
    path = tmp_path / "model-server" / "server.json"
    process.write_state(path, state)
    return proc, path


async def test_the_server_is_stopped_while_a_timing_run_holds_the_gate(tmp_path: Path) -> None:
    proc, path = fake_server(tmp_path)
    try:
        pause = ModelServerPause(path)
        async with pause():
            assert state_of(proc.pid) == "T"
            async with pause():  # a second holder in this process: still stopped after it
                pass
            assert state_of(proc.pid) == "T"
        await asyncio.sleep(0.05)
        assert state_of(proc.pid) in "SR"
    finally:
        proc.kill()
        proc.wait()


async def test_no_server_of_ours_nothing_to_stop(tmp_path: Path) -> None:
    async with ModelServerPause(tmp_path / "missing.json")():
        pass
    assert timing_pause(ModelConfig(), tmp_path) is not None
    external = ModelConfig.model_validate({"endpoint": {"url": "http://gpu:8000/v1"}})
    assert timing_pause(external, tmp_path) is None  # not ParForge's to stop


def test_a_server_left_stopped_by_a_dead_process_is_continued(tmp_path: Path) -> None:
    proc, _ = fake_server(tmp_path)
    try:
        os.killpg(proc.pid, signal.SIGSTOP)
        time.sleep(0.05)
        assert state_of(proc.pid) == "T"
        process.resume(proc.pid)
        time.sleep(0.05)
        assert state_of(proc.pid) in "SR"
    finally:
        proc.kill()
        proc.wait()


async def test_a_run_cancelled_while_the_server_stops_still_resumes_it() -> None:
    """The stop runs in a thread; a timing run cancelled meanwhile (a task cancelled, a time-out)
    must not leave the count up and the server stopped for good."""
    import threading

    from parforge.model_server.pause import _Pause

    class Slow(_Pause):
        def __init__(self) -> None:
            super().__init__()
            self.release = threading.Event()
            self.events: list[str] = []

        def _stop(self) -> str:
            self.release.wait(5)
            self.events.append("stopped")
            return "handle"

        def _resume(self, paused: str) -> None:
            self.events.append(f"resumed {paused}")

    pause = Slow()

    async def timing_run() -> None:
        async with pause():
            await asyncio.sleep(10)

    run = asyncio.create_task(timing_run())
    await asyncio.sleep(0.05)  # inside `_stop`
    run.cancel()
    await asyncio.sleep(0.05)
    pause.release.set()
    for _ in range(100):
        if pause.events == ["stopped", "resumed handle"]:
            break
        await asyncio.sleep(0.02)
    assert pause.events == ["stopped", "resumed handle"]
    async with pause():  # and the next run stops it again: the count went back to zero
        assert pause.events[-1] == "stopped"
    assert pause.events[-1] == "resumed handle"
