"""The Ray verifier's wiring, without a cluster: chosen by configuration from the environment,
a verifier rather than a sandbox backend."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from parforge.service.evals import pool_size
from parforge.settings import Settings
from sandbox.base import Sandbox
from sandbox.config import DockerConfig, RayConfig
from sandbox.models import SandboxInfo
from sandbox.verify.cluster import RayVerifier
from sandbox.verify.verifier import LocalVerifier, Verifier, open_verifier


def test_the_backend_is_chosen_by_configuration_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARFORGE_SANDBOX__TYPE", "ray")
    monkeypatch.setenv("PARFORGE_SANDBOX__ADDRESS", "ray://head:10001")
    monkeypatch.setenv("PARFORGE_SANDBOX__NODE__POOL_SIZE", "3")
    config = Settings().sandbox
    assert isinstance(config, RayConfig)
    assert (config.address, config.resource, config.node.pool_size) == (
        "ray://head:10001",
        "docker",
        3,
    )
    assert isinstance(open_verifier(config), RayVerifier)
    assert isinstance(open_verifier(DockerConfig()), LocalVerifier)
    assert pool_size(config) == config.max_in_flight
    monkeypatch.setenv("PARFORGE_SANDBOX__TYPE", "docker")
    monkeypatch.delenv("PARFORGE_SANDBOX__ADDRESS")
    monkeypatch.delenv("PARFORGE_SANDBOX__NODE__POOL_SIZE")
    assert isinstance(Settings().sandbox, DockerConfig)


class Recording:
    """A sandbox backend whose workspaces are never leased: what a verifier must not touch."""

    def info(self) -> SandboxInfo:
        return SandboxInfo(backend="recording", isolation="none")

    def workspace(self):  # type: ignore[no-untyped-def]
        raise AssertionError("no workspace may be leased")

    async def aclose(self) -> None:
        self.closed = True


async def test_a_ray_verifier_is_not_a_sandbox_and_joins_nothing_until_it_verifies() -> None:
    verifier = RayVerifier(RayConfig(address="ray://nowhere:10001"))
    assert isinstance(verifier, Verifier) and not isinstance(verifier, Sandbox)
    assert verifier.info().backend == "ray" and verifier.submitted == 0
    await verifier.aclose()


async def test_a_local_verifier_closes_its_sandbox() -> None:
    backend = Recording()
    verifier = LocalVerifier(backend)  # type: ignore[arg-type]
    assert verifier.info().backend == "recording"
    await verifier.aclose()
    assert backend.closed


def test_cluster_status_needs_the_ray_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    from parforge.cli import app

    monkeypatch.setenv("PARFORGE_SANDBOX__TYPE", "docker")
    result = CliRunner().invoke(app, ["cluster", "status"])
    assert result.exit_code == 2 and "PARFORGE_SANDBOX__TYPE=ray" in " ".join(result.output.split())
