"""In a compose project the model server is a container of its own: the service freezes it
(`docker pause`) for each timing run (`ContainerPause`). On the real engine, with a container
labelled as compose labels the project's `model` service."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docker
import pytest

from parforge.model_server.config import ModelConfig
from parforge.model_server.pause import ContainerPause, timing_pause


@pytest.fixture
def model_container(sandbox_image: str) -> Iterator[tuple[str, Any]]:
    """A stand-in for the project's model server: any long-running container with the labels."""
    client = docker.from_env()
    project = f"parforge-pause-{secrets.token_hex(3)}"
    container = client.containers.run(
        sandbox_image,
        entrypoint=["sleep", "300"],
        labels={"com.docker.compose.project": project, "com.docker.compose.service": "model"},
        detach=True,
        network_mode="none",
    )
    try:
        yield project, container
    finally:
        container.remove(force=True)
        client.close()


def status(container: Any) -> str:
    container.reload()
    return str(container.status)


async def test_the_model_container_is_frozen_while_a_timing_run_holds_the_gate(
    model_container: tuple[str, Any],
) -> None:
    project, container = model_container
    pause = ContainerPause("model", project=project)
    assert status(container) == "running"
    async with pause():
        assert status(container) == "paused"
        async with pause():  # timing runs that overlap share one pause
            assert status(container) == "paused"
        assert status(container) == "paused"
    assert status(container) == "running"


async def test_a_container_left_paused_is_unpaused_after_the_next_run(
    model_container: tuple[str, Any],
) -> None:
    project, container = model_container
    container.pause()  # a service that died holding the pause
    async with ContainerPause("model", project=project)():
        assert status(container) == "paused"
    assert status(container) == "running"


async def test_nothing_to_pause_outside_a_project_or_without_the_service(
    model_container: tuple[str, Any],
) -> None:
    project, container = model_container
    for pause in (ContainerPause("other", project=project), ContainerPause("model")):
        async with pause():  # this test runs in no compose project: no container of its own
            assert status(container) == "running"


def test_the_compose_setting_chooses_the_container_pause(tmp_path: Path) -> None:
    config = ModelConfig.model_validate(
        {"endpoint": {"url": "http://model:8000/v1"}, "pause_compose_service": "model"}
    )
    assert isinstance(timing_pause(config, tmp_path), ContainerPause)
    external = ModelConfig.model_validate({"endpoint": {"url": "http://elsewhere/v1"}})
    assert timing_pause(external, tmp_path) is None


def test_a_service_that_starts_again_unpauses_what_a_dead_one_left_paused(
    model_container: tuple[str, Any],
) -> None:
    project, container = model_container
    container.pause()
    ContainerPause("model", project=project).recover()  # what `timing_pause` does at start
    assert status(container) == "running"
