"""Fixtures for the verify tests: the real Docker sandbox, as users run it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sandbox.backends import open_sandbox
from sandbox.base import Sandbox
from sandbox.config import DockerConfig

PROGRAMS = Path(__file__).resolve().parent.parent / "programs"
"""The labelled OpenMP programs (manifest.json says which are racy) shared with the benchmark."""


@pytest.fixture
async def verify_sandbox(sandbox_image: str) -> AsyncIterator[Sandbox]:
    """A warm Docker pool with the real toolchains (gcc, clang+Archer, OpenMPI, nvcc)."""
    sandbox = open_sandbox(DockerConfig(pool_size=2))
    try:
        yield sandbox
    finally:
        await sandbox.aclose()
