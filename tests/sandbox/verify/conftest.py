"""Fixtures for the verify tests: a real sandbox (the local backend until Docker is wired in)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sandbox.base import Sandbox
from sandbox.config import LocalConfig

PROGRAMS = Path(__file__).resolve().parent.parent / "programs"
"""The labelled OpenMP programs (manifest.json says which are racy) shared with the benchmark."""


@pytest.fixture
async def verify_sandbox() -> AsyncIterator[Sandbox]:
    """A sandbox with the real toolchains (gcc, clang+Archer, OpenMPI, nvcc)."""
    sandbox = LocalConfig().build()
    try:
        yield sandbox
    finally:
        await sandbox.aclose()
