"""Shared fixtures. Fakes for fast unit tests live here (and only here); integration tests use
the real Docker engine, vLLM server and databases that `scripts/test` starts."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from sandbox._engine import Engine
from sandbox.image import build_image


@pytest.fixture(scope="session")
def sandbox_image() -> str:
    """The sandbox image for the current Dockerfile, built when its tag is missing."""

    async def ensure() -> str:
        engine = Engine()
        try:
            return await build_image(engine)
        finally:
            await engine.aclose()

    # In a thread of its own: the first user may be an async fixture, inside a running loop.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, ensure()).result()
