"""Shared fixtures. Fakes for fast unit tests live here (and only here); integration tests use
the real Docker engine, vLLM server and databases that `scripts/test` starts."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from corpus.runner import RunOutcome, TaskContext
from corpus.store import open_store
from corpus.store.migrate import target_metadata
from corpus.store.models import CandidateCreate, JobStatus, RunMeta, StepCreate, StepKind
from sandbox.backends.engine import Engine as DockerEngine
from sandbox.backends.image import build_image
from sandbox.errors import WorkspaceError
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
    verdict (the first `passes` samples pass, the rest race). Optional delay between steps and
    failure."""

    name = "scripted"

    def __init__(
        self,
        samples: int = 2,
        delay_s: float = 0.0,
        fail: str | None = None,
        model: str = "scripted-model",
        passes: int = 1,
    ) -> None:
        self.samples = samples
        self.delay_s = delay_s
        self.fail = fail
        self.model = model
        self.passes = passes
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
            verdict = PASSED_VERDICT if i < self.passes else FAILED_VERDICT
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
        status = JobStatus.SUCCEEDED if passed else JobStatus.NO_VERIFIED_CANDIDATE
        return RunOutcome(status=status, reason=f"{passed} of {self.samples} passed")


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
        if path not in self.files:
            raise WorkspaceError(f"no such file in the workspace: {path!r}")
        return self.files[path][:limit]

    async def run(self, command: Command) -> CommandResult:
        self.commands.append(command)
        if command.argv == ["pwd"]:
            return CommandResult(exit_code=0, stdout="/ws\n")
        result = self.handler(command)
        if result.ok and command.writes and "-o" in command.argv:
            # A build that succeeds leaves its output (an object, a program) behind.
            output = command.argv[command.argv.index("-o") + 1]
            self.files.setdefault(f"{command.cwd}/{output}", b"")
        return result


class ScriptedSandbox:
    """A `Sandbox` handing out one `ScriptedWorkspace`; `gpu` says what `info()` claims.

    With `per_job`, every lease gets a fresh workspace instead (concurrent jobs do not share
    files) and the handler is called as `handler(command, workspace)`, so that it can answer
    from the files the job wrote; `leases` counts them and `workspaces` keeps them."""

    def __init__(
        self, handler: Callable[..., CommandResult], gpu: bool = False, per_job: bool = False
    ) -> None:
        self.handler = handler
        self.workspace_ = ScriptedWorkspace(handler)
        self.gpu = gpu
        self.per_job = per_job
        self.workspaces: list[ScriptedWorkspace] = []

    def info(self) -> SandboxInfo:
        return SandboxInfo(backend="scripted", isolation="none", gpu=self.gpu)

    @asynccontextmanager
    async def workspace(self) -> AsyncIterator[ScriptedWorkspace]:
        if not self.per_job:
            yield self.workspace_
            return
        ws = ScriptedWorkspace(lambda command: self.handler(command, ws))
        self.workspaces.append(ws)
        yield ws

    async def aclose(self) -> None:
        """Nothing to release."""


class ScriptedJudge:
    """A `Judge` for the task runners' unit tests: `judge(source) -> Verdict` answers.

    With `gate`, every verification waits until the event is set (for cancellation and time
    budget tests); with `error`, it raises that instead of answering.
    """

    def __init__(
        self,
        judge: Callable[[str], Any],
        gate: asyncio.Event | None = None,
        error: Exception | None = None,
    ) -> None:
        self.judge = judge
        self.gate = gate
        self.error = error
        self.sources: list[str] = []
        self.probes: list[str] = []
        self.cancelled = 0
        self.closed = False

    async def __call__(self, spec: Any, candidate: Any) -> Any:
        self.sources.append(candidate.source)
        try:
            if self.gate is not None:
                await self.gate.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        if self.error is not None:
            raise self.error
        return self.judge(candidate.source)

    async def probe(self, spec: Any, candidate: Any) -> Any:
        """The judge's verdict stands for the behaviour probe too (its steps carry the output)."""
        self.probes.append(candidate.source)
        return self.judge(candidate.source)

    async def aclose(self) -> None:
        self.closed = True


# --------------------------------------------------------------------------------------------
# A scripted OpenAI-compatible server (chat + completions, streaming, aborts) for unit tests.
# --------------------------------------------------------------------------------------------

FAKE_MODEL = "fake-model"
FAKE_ADAPTER = "fake-lora"


@dataclass
class Reply:
    """How the fake answers one generation request."""

    texts: list[str] | None = None
    """One text per choice; None = "sample i" for each of the request's `n`."""
    status: int = 200
    error: str = "scripted failure"
    headers: dict[str, str] = field(default_factory=dict)
    connect_error: bool = False
    """Fail as if nothing listened on the port."""
    chunk_delay_s: float = 0.0
    break_after: int | None = None
    """Drop the connection after this many content chunks (the server died mid-stream)."""
    stall_after: int | None = None
    """Stop sending, without closing, after this many content chunks."""
    finish_reason: str = "stop"
    cached_tokens: int | None = 0
    logprob: float = -0.5
    """The log-probability of every streamed token, when the request asks for logprobs."""
    alt_logprob: float | None = None
    """Chat replies: the log-probability of one alternative token in `top_logprobs` (None:
    no alternatives)."""


class FakeStream(httpx.AsyncByteStream):
    """An SSE body that remembers whether the client closed it before the end."""

    def __init__(self, chunks: list[tuple[bytes, bool]], reply: Reply) -> None:
        self.chunks = chunks
        self.reply = reply
        self.sent = 0
        self.completed = False
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        content_chunks = 0
        for chunk, has_text in self.chunks:
            if self.reply.stall_after is not None and content_chunks >= self.reply.stall_after:
                await asyncio.sleep(3600)
            if self.reply.break_after is not None and content_chunks >= self.reply.break_after:
                raise httpx.RemoteProtocolError("peer closed connection without sending body")
            if self.reply.chunk_delay_s:
                await asyncio.sleep(self.reply.chunk_delay_s)
            self.sent += 1
            content_chunks += has_text
            yield chunk
        self.completed = True

    async def aclose(self) -> None:
        self.closed = True

    @property
    def aborted(self) -> bool:
        """Closed by the client before the server sent everything: vLLM would abort it."""
        return self.closed and not self.completed


class FakeLLMServer:
    """Answers `/v1/models`, `/v1/chat/completions` and `/v1/completions` from a script.

    Push `Reply`s with `script(...)`; requests without a scripted reply get the default. Every
    request body is kept in `requests`, every streamed body in `streams`.
    """

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.streams: list[FakeStream] = []
        self.max_in_flight = 0
        """Most streams open at once (the client's concurrency limit caps it)."""

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    async def handle(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/models"):
            data = [
                {"id": FAKE_MODEL, "object": "model", "parent": None},
                {"id": FAKE_ADAPTER, "object": "model", "parent": FAKE_MODEL},
            ]
            return httpx.Response(200, json={"object": "list", "data": data})
        body = json.loads(request.content)
        self.requests.append(body)
        reply = self.replies.popleft() if self.replies else Reply()
        if reply.connect_error:
            raise httpx.ConnectError("connection refused", request=request)
        if body.get("model") not in (FAKE_MODEL, FAKE_ADAPTER):
            message = f"The model `{body.get('model')}` does not exist."
            return _error(404, message, "NotFoundError")
        if reply.status != 200:
            return _error(reply.status, reply.error, "ScriptedError", reply.headers)
        open_streams = sum(not s.closed for s in self.streams)
        self.max_in_flight = max(self.max_in_flight, open_streams + 1)
        stream = FakeStream(
            _sse_chunks(body, reply, chat=path.endswith("/chat/completions")), reply
        )
        self.streams.append(stream)
        return httpx.Response(200, stream=stream, headers={"content-type": "text/event-stream"})


def _error(
    status: int, message: str, kind: str, headers: dict[str, str] | None = None
) -> httpx.Response:
    body = {"error": {"message": message, "type": kind, "code": status}}
    return httpx.Response(status, json=body, headers=headers or {})


def _sse_chunks(body: dict[str, Any], reply: Reply, *, chat: bool) -> list[tuple[bytes, bool]]:
    """The SSE events of a reply, each flagged when it carries generated text."""
    n = body.get("n", 1)
    texts = reply.texts or [f"sample {i}" for i in range(n)]
    head = {"id": "cmpl-fake", "model": body["model"]}
    events: list[dict[str, Any]] = []
    if chat:
        roles = [{"index": i, "delta": {"role": "assistant", "content": ""}} for i in range(n)]
        events.append({**head, "choices": roles})
    for i, sample in enumerate(texts):
        words = sample.split(" ")
        for piece in [words[0], *(" " + w for w in words[1:])]:
            choice: dict[str, Any] = {"index": i}
            if chat:
                choice["delta"] = {"content": piece}
            else:
                choice["text"] = piece
            if body.get("logprobs"):
                lp = reply.logprob
                choice["logprobs"] = (
                    {
                        "content": [
                            {
                                "token": piece,
                                "logprob": lp,
                                "top_logprobs": []
                                if reply.alt_logprob is None
                                else [
                                    {"token": piece, "logprob": lp},
                                    {"token": " alt", "logprob": reply.alt_logprob},
                                ],
                            }
                        ]
                    }
                    if chat
                    else {
                        "tokens": [piece],
                        "token_logprobs": [lp],
                        "top_logprobs": [{piece: lp}],
                    }
                )
            events.append({**head, "choices": [choice]})
    for i in range(len(texts)):
        final: dict[str, Any] = {"index": i, "finish_reason": reply.finish_reason}
        final.update({"delta": {}} if chat else {"text": ""})
        events.append({**head, "choices": [final]})
    usage: dict[str, Any] = {
        "prompt_tokens": 7,
        "completion_tokens": sum(len(t.split(" ")) for t in texts),
    }
    if reply.cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
    events.append({**head, "choices": [], "usage": usage})
    lines = [(f"data: {json.dumps(e)}\n\n".encode(), _has_text(e)) for e in events]
    return [*lines, (b"data: [DONE]\n\n", False)]


def _has_text(event: dict[str, Any]) -> bool:
    return any(c.get("text") or c.get("delta", {}).get("content") for c in event["choices"])


@pytest.fixture
def fake_llm() -> FakeLLMServer:
    """A fresh scripted server; build a client on it with `llm_config` + `fake_llm.transport()`."""
    return FakeLLMServer()


@pytest.fixture
def llm_config() -> Iterator[Any]:
    from agents.llm import LLMConfig

    yield LLMConfig(
        url="http://fake.invalid/v1",
        model=FAKE_MODEL,
        backoff_initial_s=0.01,
        backoff_max_s=0.05,
        call_timeout_s=5.0,
    )


# --------------------------------------------------------------------------------------------
# The real embedded vLLM server, for tests marked `vllm`.
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def vllm_server() -> Iterator[Any]:
    """The embedded vLLM server of this data dir: started by `scripts/test` (or here when it
    is not running), waited for until healthy. Yields its `ModelServer`."""
    from parforge.model_server import ModelServer
    from parforge.settings import load_settings

    settings = load_settings()
    server = ModelServer(settings.model.server, settings.data_dir)
    state = server.read_state()
    started_here = state is None or not asyncio.run(server.status()).running
    asyncio.run(server.start(wait=True))
    yield server
    if started_here:
        asyncio.run(server.stop())


@pytest.fixture(scope="session")
def model_pause(vllm_server: Any) -> Any:
    """The timing gate's quiet hook for the embedded server, as the service wires it: timing
    runs must not share the cores with generation. (On this kind of host a run pinned to the
    CPU of the server's busy worker can wait for that CPU for minutes.)"""
    from parforge.model_server.pause import timing_pause
    from parforge.settings import load_settings

    settings = load_settings()
    return timing_pause(settings.model, settings.data_dir)


@pytest.fixture
def vllm_config(vllm_server: Any) -> Any:
    """Client config aimed at the real server, with short time-outs so nothing hangs."""
    from agents.llm import LLMConfig

    return LLMConfig(
        url=vllm_server.config.url,
        model=vllm_server.config.name(),
        call_timeout_s=300.0,
        read_timeout_s=60.0,
        max_retries=1,
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that kill the model server run last, so the others share one warm server; a test
    that uses the sandbox image needs Docker, whether or not it says so itself."""
    for item in items:
        if "sandbox_image" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.docker)
    items.sort(key=lambda item: item.get_closest_marker("kills_server") is not None)


# --------------------------------------------------------------------------------------------
# A stand-in `vllm` package for fast launcher tests: the module the launcher runs, answering
# /health and /v1/completions, or dying with a message when FAKE_VLLM_FAIL is set.
# --------------------------------------------------------------------------------------------

_FAKE_API_SERVER = """
import argparse, json, os, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--host")
parser.add_argument("--port", type=int)
args, _ = parser.parse_known_args()
print("fake vllm starting", flush=True)
if os.environ.get("FAKE_VLLM_FAIL"):
    print("RuntimeError: not enough memory for the KV cache", flush=True)
    sys.exit(1)
time.sleep(float(os.environ.get("FAKE_VLLM_DELAY", "0.3")))


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps({"choices": [{"index": 0, "text": "ok"}]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()
"""


@pytest.fixture
def fake_vllm(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A `ModelServerConfig` whose "vLLM" is the stand-in above, on a free port."""
    import socket
    import sys

    from parforge.model_server import ModelServerConfig

    root = tmp_path_factory.mktemp("fake-vllm")
    package = root / "vllm" / "entrypoints" / "openai"
    package.mkdir(parents=True)
    for folder in (root / "vllm", root / "vllm" / "entrypoints", package):
        (folder / "__init__.py").write_text("")
    (package / "api_server.py").write_text(_FAKE_API_SERVER)
    monkeypatch.setenv("PYTHONPATH", str(root))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return ModelServerConfig(
        port=port, model="fake/model", python=sys.executable, start_timeout_s=20, stop_timeout_s=5
    )
