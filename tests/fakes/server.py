"""A real `parforge serve` in a subprocess, on a free port, with the scripted runner (tests that
need the server as users run it: restarts, the Python client)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.fakes.paths import ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(
        self,
        store_url: str,
        data_dir: Path,
        max_attempts: int = 2,
        env: dict[str, str] | None = None,
        **runner: Any,
    ) -> None:
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
            "PARFORGE_SERVER__RUNNER_OPTIONS": json.dumps({"samples": 12, "delay_s": 0.1} | runner),
            "PARFORGE_SERVER__MAX_ATTEMPTS": str(max_attempts),
            "PARFORGE_SERVER__HEARTBEAT_S": "0.2",
            # The dead server's jobs are taken back once its heartbeats stop for this long.
            "PARFORGE_SERVER__LEASE_S": "2",
            "PARFORGE_SERVER__POLL_S": "0.1",
            **(env or {}),
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
