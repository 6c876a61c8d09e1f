"""The compose project for real: the service and PostgreSQL images built from the local base,
`docker-compose up`, a key made in the service container, a task verified through the host's
Docker socket, the web UI's sign-in, a restart that keeps the task (it lives in PostgreSQL).
The model server's image is not built here (3.5 GB); the task runs the analysis alone."""

from __future__ import annotations

import asyncio
import json
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from parforge.deploy.compose import write_compose
from parforge.deploy.images import build_images
from sandbox.backends.engine import Engine
from tests.fakes.paths import ROOT

pytestmark = pytest.mark.slow


class _Log:
    def step(self, message: str) -> None:
        print(message)

    def line(self, text: str) -> None:
        pass


def _build() -> dict[str, str]:
    async def build() -> dict[str, str]:
        engine = Engine()
        try:
            return await build_images(engine, ("postgres", "service"), progress=_Log())
        finally:
            await engine.aclose()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, build()).result()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Project:
    def __init__(self, directory: Path, port: int) -> None:
        self.directory = directory
        self.name = f"parforge-test-{secrets.token_hex(4)}"
        self.url = f"http://127.0.0.1:{port}"

    def compose(self, *args: str, timeout: float = 300) -> str:
        done = subprocess.run(
            ["docker-compose", "--project-name", self.name, *args],
            cwd=self.directory,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, f"docker-compose {' '.join(args)}:\n{done.stderr[-3000:]}"
        return done.stdout

    def wait_healthy(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(1)
        raise AssertionError(
            f"the service never became healthy:\n{self.compose('logs', '--tail=40')}"
        )


@pytest.fixture(scope="module")
def project(sandbox_image: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    assert shutil.which("docker-compose"), (
        "docker-compose is missing (scripts/setup.sh installs it)"
    )
    tags = _build()
    port = _free_port()
    directory = tmp_path_factory.mktemp("compose")
    write_compose(
        directory,
        tags,  # type: ignore[arg-type]
        port=port,
        model_server=False,
        settings={"PARFORGE_GRAPH__USE_MODEL": "false", "PARFORGE_SERVER__WORKERS": "1"},
    )
    project = Project(directory, port)
    try:
        project.compose("up", "-d")
        project.wait_healthy()
        yield project
    finally:
        project.compose("down", "--volumes", "--remove-orphans")


def test_a_task_is_verified_through_the_hosts_engine_and_survives_a_restart(
    project: Project,
) -> None:
    health = httpx.get(f"{project.url}/healthz").json()
    assert health["status"] == "ok" and health["database"] == "postgresql"
    created = project.compose("exec", "-T", "service", "parforge", "keys", "create", "compose-test")
    key = created.strip().splitlines()[-1].strip()
    client = httpx.Client(base_url=project.url, headers={"Authorization": f"Bearer {key}"})
    assert client.get("/v1/tasks").status_code == 200
    assert httpx.get(f"{project.url}/v1/tasks").status_code == 401  # keys are required

    example = ROOT / "examples" / "sum"
    response = client.post(
        "/v1/tasks",
        json={
            "source": (example / "sum.c").read_text(),
            "language": "c",
            "target": "openmp",
            "tests": [{"name": "small", "args": ["1000"]}, {"name": "odd", "args": ["4097"]}],
        },
    )
    assert response.status_code == 202, response.text
    task_id = response.json()["id"]
    deadline = time.monotonic() + 240
    while (task := client.get(f"/v1/tasks/{task_id}").json())["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, task
        time.sleep(1)
    assert task["status"] == "succeeded", task
    verdicts = [
        c["verdict"]["status"]
        for c in client.get(f"/v1/tasks/{task_id}/candidates").json()["items"]
    ]
    assert "passed" in verdicts, verdicts

    # The web UI: the key becomes a session cookie, and the task list shows the task.
    ui = httpx.Client(base_url=project.url)
    login = ui.get("/ui/login", params={"key": key})
    assert login.status_code in (302, 303) and "key=" not in login.headers["location"]
    assert task_id in ui.get("/ui/").text

    # State lives in PostgreSQL's volume, not in the service container.
    project.compose("restart", "service")
    project.wait_healthy()
    again = client.get(f"/v1/tasks/{task_id}").json()
    assert again["status"] == "succeeded" and json.dumps(again) == json.dumps(task)
