"""Fixtures for the model server's tests: a stand-in vLLM for the launcher."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes.vllm import fake_vllm_config, install_fake_vllm


@pytest.fixture
def fake_vllm(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A `ModelServerConfig` whose "vLLM" is the stand-in of `tests/fakes/vllm.py`, on a free
    port."""
    root = tmp_path_factory.mktemp("fake-vllm")
    install_fake_vllm(root)
    monkeypatch.setenv("PYTHONPATH", str(root))
    return fake_vllm_config()
