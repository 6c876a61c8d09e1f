"""A real `parforge serve` killed with SIGKILL mid-task, then restarted: the task is resumed (or
failed with the reason when it has no attempts left) and every step written before the kill stays."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session, select

from corpus.store import keys, open_store, tasks
from corpus.store.models import StepRow
from tests.fakes.paths import ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, store_url: str, data_dir: Path, max_attempts: int) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = data_dir / "server.log"
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "PARFORGE_DATA_DIR": str(data_dir),
            "PARFORGE_STORE__URL": store_url,
            # Submissions' originals are built and run here (the scripted runner needs no
            # sandbox of its own).
            "PARFORGE_SANDBOX__TYPE": "local",
            "PARFORGE_SERVER__RUNNER": "tests.fakes.runners:build_scripted_runner",
            "PARFORGE_SERVER__RUNNER_OPTIONS": json.dumps({"samples": 12, "delay_s": 0.1}),
            "PARFORGE_SERVER__MAX_ATTEMPTS": str(max_attempts),
            "PARFORGE_SERVER__HEARTBEAT_S": "0.2",
            # The dead server's jobs are taken back once its heartbeats stop for this long.
            "PARFORGE_SERVER__LEASE_S": "2",
            "PARFORGE_SERVER__POLL_S": "0.1",
        }
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "parforge.cli", "serve", "--port", str(self.port)],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"server did not start:\n{self.log.read_text()}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _steps(store_url: str, task_id: str) -> list[tuple[int, int]]:
    engine = open_store(store_url)
    with Session(engine) as s:
        rows = s.exec(select(StepRow.id, StepRow.run_id).where(StepRow.task_id == task_id)).all()
    engine.dispose()
    return sorted((int(a), int(b)) for a, b in rows)


@pytest.mark.slow
@pytest.mark.parametrize("max_attempts", [2, 1], ids=["resumed", "failed"])
def test_sigkill_mid_task_then_restart(store_url, tmp_path, max_attempts):
    engine = open_store(store_url)
    with Session(engine) as s:
        auth = {"Authorization": f"Bearer {keys.create(s, 'restart').token}"}
    engine.dispose()
    server = Server(store_url, tmp_path, max_attempts)
    server.start()
    try:
        r = httpx.post(
            f"{server.url}/v1/tasks",
            json={"source": "int main(void) { return 0; }", "target": "openmp"},
            headers=auth,
        )
        task_id = r.json()["id"]
        # Follow the live event stream until a few steps are in, then kill the server.
        seen = 0
        with httpx.stream(
            "GET", f"{server.url}/v1/tasks/{task_id}/events", headers=auth, timeout=20
        ) as events:
            for line in events.iter_lines():
                if line == "event: step":
                    seen += 1
                    if seen == 5:
                        break
        server.kill()
        before = _steps(store_url, task_id)
        assert len(before) >= 5
        server.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            task = httpx.get(f"{server.url}/v1/tasks/{task_id}", headers=auth).json()
            if task["status"] in ("succeeded", "failed", "cancelled"):
                break
            time.sleep(0.1)
        after = _steps(store_url, task_id)
        assert after[: len(before)] == before  # nothing written before the kill was lost
        engine = open_store(store_url)
        with Session(engine) as s:
            runs = tasks.runs(s, task_id)
        engine.dispose()
        assert runs[0].status == "failed" and "stopped" in runs[0].reason
        if max_attempts == 2:
            assert task["status"] == "succeeded", task
            assert task["attempts"] == 2 and len(runs) == 2
            assert len(after) == len(before) + 24  # the second run's 12 samples, 2 steps each
        else:
            assert task["status"] == "failed", task
            assert "stopped answering during attempt 1 of 1; giving up" in task["reason"]
            assert after == before
    finally:
        server.stop()
