"""Shared fixtures. Fakes for fast unit tests live here (and only here); integration tests use
the real Docker engine, vLLM server and databases that `scripts/test` starts."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from corpus.runner import RunOutcome, TaskContext
from corpus.store import open_store
from corpus.store.migrate import target_metadata
from corpus.store.models import CandidateCreate, JobStatus, RunMeta, StepCreate, StepKind
from sandbox._engine import Engine as DockerEngine
from sandbox.image import build_image
from sandbox.models import Command, CommandResult, SandboxInfo

ROOT = Path(__file__).resolve().parent.parent

# --- the store on both backends ------------------------------------------------------------


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """URL of the throw-away PostgreSQL server that `scripts/setup.sh` starts (started if needed)."""
    url = os.environ.get("PARFORGE_TEST_POSTGRES_URL")
    if not url:
        out = subprocess.run(
            [
                "bash",
                "-c",
                'source scripts/setup.sh && ensure_postgres >&2 && echo "$PARFORGE_TEST_POSTGRES_URL"',
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        url = out.stdout.strip().splitlines()[-1]
    return url


def new_postgres_database(server_url: str) -> str:
    """Create an empty database on the test server; return its SQLAlchemy URL."""
    name = f"pf_{uuid.uuid4().hex[:12]}"
    url = make_url(server_url)
    plain = url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def postgres_store(postgres_server: str) -> str:
    """One migrated database for the session; tests empty it before use."""
    url = new_postgres_database(postgres_server)
    open_store(url).dispose()
    return url


def _empty(engine: Engine) -> None:
    names = ", ".join(t.name for t in target_metadata().sorted_tables)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated, empty store: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    url: str = request.getfixturevalue("postgres_store")
    engine = open_store(url)
    _empty(engine)
    engine.dispose()
    return url


@pytest.fixture
def engine(store_url: str) -> Iterator[Engine]:
    engine = open_store(store_url)
    yield engine
    engine.dispose()


# --- a scripted task runner (the fake that stands in for the LLM agents) ---------------------

PASSED_VERDICT: dict[str, Any] = {
    "target": "openmp",
    "status": "passed",
    "reason": "",
    "timing": {
        "reference_s": 1.0,
        "candidate_s": {"1": 1.0, "4": 0.4},
        "speedup": {"1": 1.0, "4": 2.5},
    },
    "steps": [{"name": "build", "command": "clang ...", "exit_code": 0, "duration_s": 0.2}],
    "duration_s": 1.5,
}
FAILED_VERDICT: dict[str, Any] = {
    "target": "openmp",
    "status": "race",
    "reason": "data race on sum",
    "steps": [{"name": "race", "command": "./a.out", "exit_code": 66, "duration_s": 0.3}],
    "duration_s": 0.9,
}


class ScriptedRunner:
    """Plays a fixed trajectory: per sample an LLM call, a `verify` tool call, a candidate and a
    verdict (the first sample passes, the rest race). Optional delay between steps and failure."""

    name = "scripted"

    def __init__(
        self,
        samples: int = 2,
        delay_s: float = 0.0,
        fail: str | None = None,
        model: str = "scripted-model",
    ) -> None:
        self.samples = samples
        self.delay_s = delay_s
        self.fail = fail
        self.model = model
        self.contexts: list[TaskContext] = []

    async def run(self, context: TaskContext) -> RunOutcome:
        self.contexts.append(context)
        rec, task = context.recorder, context.task
        await rec.set_run(RunMeta(model=self.model, budgets={"samples": self.samples}))
        messages = [
            {"role": "system", "content": f"Translate C++ to {task.target}."},
            {"role": "user", "content": task.source},
        ]
        passed = 0
        for i in range(self.samples):
            code = f"// sample {i} of attempt {context.attempt}\n#pragma omp parallel for\n{task.source}"
            call_id = f"call_{i}"
            llm = await rec.add_step(
                StepCreate(
                    kind=StepKind.LLM_CALL,
                    name="generate",
                    model=self.model,
                    messages=messages,
                    response={
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": call_id,
                                "type": "function",
                                "function": {
                                    "name": "verify",
                                    "arguments": json.dumps({"source": code}),
                                },
                            }
                        ],
                    },
                    tools=[VERIFY_TOOL],
                    sampling={"temperature": 0.8, "n": 1},
                    prompt_tokens=40,
                    completion_tokens=30,
                    cached_tokens=16,
                    ttft_s=0.01,
                    latency_s=0.05,
                )
            )
            await asyncio.sleep(self.delay_s)
            verdict = PASSED_VERDICT if i == 0 else FAILED_VERDICT
            await rec.add_step(
                StepCreate(
                    kind=StepKind.TOOL_CALL,
                    name="verify",
                    parent_id=llm,
                    tool_name="verify",
                    tool_call_id=call_id,
                    arguments={"source": code},
                    result={"status": verdict["status"], "reason": verdict["reason"]},
                    latency_s=1.5,
                )
            )
            candidate = await rec.add_candidate(
                CandidateCreate(target=task.target, source=code, strategy="prompt", step_id=llm)
            )
            await rec.add_verdict(candidate, verdict)
            passed += verdict["status"] == "passed"
            if self.fail is not None:
                raise RuntimeError(self.fail)
            await asyncio.sleep(self.delay_s)
        return RunOutcome(status=JobStatus.SUCCEEDED, reason=f"{passed} of {self.samples} passed")


VERIFY_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "verify",
        "description": "Build, test, race-check and time a candidate.",
        "parameters": {
            "type": "object",
            "properties": {"source": {"type": "string"}},
            "required": ["source"],
        },
    },
}


def build_scripted_runner(settings: Any) -> ScriptedRunner:
    """Factory for `PARFORGE_SERVER__RUNNER=tests.conftest:build_scripted_runner`, configured by
    `PARFORGE_SERVER__RUNNER_OPTIONS` (used by the tests that start a real server process)."""
    return ScriptedRunner(**settings.server.runner_options)


# --- the sandbox image ---------------------------------------------------------------------


@pytest.fixture(scope="session")
def sandbox_image() -> str:
    """The sandbox image for the current Dockerfile, built when its tag is missing."""

    async def ensure() -> str:
        engine = DockerEngine()
        try:
            return await build_image(engine)
        finally:
            await engine.aclose()

    # In a thread of its own: the first user may be an async fixture, inside a running loop.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, ensure()).result()


# --- a scripted sandbox for verify's unit tests -----------------------------------------------


class ScriptedWorkspace:
    """A `Workspace` whose commands answer from a script: `handler(command) -> CommandResult`."""

    def __init__(self, handler: Callable[[Command], CommandResult]) -> None:
        self.handler = handler
        self.files: dict[str, bytes] = {}
        self.commands: list[Command] = []

    async def write_files(self, files: Mapping[str, str | bytes]) -> None:
        for name, content in files.items():
            self.files[name] = content.encode() if isinstance(content, str) else content

    async def read_file(self, path: str, limit: int = 1 << 20) -> bytes:
        return self.files[path][:limit]

    async def run(self, command: Command) -> CommandResult:
        self.commands.append(command)
        if command.argv == ["pwd"]:
            return CommandResult(exit_code=0, stdout="/ws\n")
        return self.handler(command)


class ScriptedSandbox:
    """A `Sandbox` handing out one `ScriptedWorkspace`; `gpu` says what `info()` claims."""

    def __init__(self, handler: Callable[[Command], CommandResult], gpu: bool = False) -> None:
        self.workspace_ = ScriptedWorkspace(handler)
        self.gpu = gpu

    def info(self) -> SandboxInfo:
        return SandboxInfo(backend="scripted", isolation="none", gpu=self.gpu)

    @asynccontextmanager
    async def workspace(self) -> AsyncIterator[ScriptedWorkspace]:
        yield self.workspace_

    async def aclose(self) -> None:
        """Nothing to release."""
