"""Shared fixtures and hooks; the fakes and helpers they build on live in `tests/fakes`.
Integration tests use the real Docker engine, vLLM server and databases that `scripts/test`
starts."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from corpus.store import open_store
from sandbox.backends import open_sandbox
from sandbox.backends.engine import Engine as DockerEngine
from sandbox.backends.image import build_image
from sandbox.base import Sandbox
from sandbox.config import DockerConfig
from tests.fakes.llm import FAKE_MODEL, FakeLLMServer
from tests.fakes.stores import empty_store, new_postgres_database, postgres_server_url

# Commands that need the model start the embedded server when nothing answers; a test that
# reached that by accident would install and start vLLM in its temporary data dir and leave it
# holding the port. Tests that mean it say so (`ensure_model(start=True)` with a fake launcher,
# or `PARFORGE_MODEL__AUTOSTART=true` in a command's environment).
os.environ["PARFORGE_MODEL__AUTOSTART"] = "false"


# --- the store on both backends ------------------------------------------------------------


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """URL of the throw-away PostgreSQL server that `scripts/setup.sh` starts (started if needed)."""
    return os.environ.get("PARFORGE_TEST_POSTGRES_URL") or postgres_server_url()


@pytest.fixture(scope="session")
def postgres_store(postgres_server: str) -> str:
    """One migrated database for the session; tests empty it before use."""
    url = new_postgres_database(postgres_server)
    open_store(url).dispose()
    return url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated, empty store: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    url: str = request.getfixturevalue("postgres_store")
    engine = open_store(url)
    empty_store(engine)
    engine.dispose()
    return url


@pytest.fixture
def engine(store_url: str) -> Iterator[Engine]:
    engine = open_store(store_url)
    yield engine
    engine.dispose()


# --- the sandbox image and a warm Docker pool -----------------------------------------------


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


@pytest.fixture
async def verify_sandbox(sandbox_image: str) -> AsyncIterator[Sandbox]:
    """A warm Docker pool with the real toolchains (gcc, clang+Archer, OpenMPI, nvcc)."""
    sandbox = open_sandbox(DockerConfig(pool_size=2))
    try:
        yield sandbox
    finally:
        await sandbox.aclose()


# --- the scripted OpenAI-compatible server (tests/fakes/llm.py) ------------------------------


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


# --- the real embedded vLLM server, for tests marked `vllm` ----------------------------------


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


TIERS = {
    "e2e": ("vllm", "kills_server"),
    "integration": ("docker", "postgres", "ray"),
}
"""A test's tier follows from the real services it needs: `e2e` the model server, `integration`
Docker, PostgreSQL or a Ray cluster, `unit` none of them (`scripts/check` runs `-m unit`)."""


def tier(item: pytest.Item) -> str:
    for name, needs in TIERS.items():
        if any(item.get_closest_marker(need) for need in needs):
            return name
    return "unit"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that uses the sandbox image needs Docker, and one that uses the model server
    needs it, whether or not it says so itself; each
    test gets its tier's marker. The model server's tests run after the others, so the server
    that `scripts/test` started warms up meanwhile instead of being waited for, and those that
    kill it run last, so the others share one warm server."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "sandbox_image" in fixtures:
            item.add_marker(pytest.mark.docker)
        if "vllm_server" in fixtures:
            item.add_marker(pytest.mark.vllm)
        item.add_marker(tier(item))
    items.sort(
        key=lambda item: (
            item.get_closest_marker("kills_server") is not None,
            item.get_closest_marker("vllm") is not None,
        )
    )
