"""Settings from the environment, as users write them."""

from __future__ import annotations

import pytest

from parforge.settings import Settings
from sandbox.config import DockerConfig, LocalConfig


def test_a_sandbox_field_alone_configures_the_default_docker_backend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PARFORGE_SANDBOX__POOL_SIZE", "3")
    monkeypatch.setenv("PARFORGE_SANDBOX__DOCKER_HOST", "tcp://gpu-host:2376")
    sandbox = Settings().sandbox
    assert isinstance(sandbox, DockerConfig)
    assert sandbox.pool_size == 3 and sandbox.docker_host == "tcp://gpu-host:2376"


def test_the_local_backend_is_chosen_by_type(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARFORGE_SANDBOX__TYPE", "local")
    assert isinstance(Settings().sandbox, LocalConfig)
