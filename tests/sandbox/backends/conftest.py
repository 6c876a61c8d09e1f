"""Sandbox fixtures: the real Docker engine and image, and the local backend with bubblewrap.

Nothing here is faked and nothing skips when Docker is missing: `scripts/test` installs and
starts the engine and builds the image first; when the image tag is missing anyway (a changed
Dockerfile), the session builds it before the first docker test.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from sandbox.base import Sandbox
from tests.fakes.backends import BACKENDS, make_sandbox


@pytest.fixture(params=BACKENDS)
async def sandbox(request: pytest.FixtureRequest) -> AsyncIterator[Sandbox]:
    """Each backend in turn (docker: one warm container, so every job reuses it)."""
    if request.param == "docker":
        request.getfixturevalue("sandbox_image")
    box = make_sandbox(request.param)
    try:
        yield box
    finally:
        await box.aclose()


@pytest.fixture
async def docker_sandbox(sandbox_image: str) -> AsyncIterator[Sandbox]:
    """The docker backend alone, for its own tests."""
    box = make_sandbox("docker")
    try:
        yield box
    finally:
        await box.aclose()
