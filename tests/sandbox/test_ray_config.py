"""The Ray backend's wiring, without a cluster: configuration from the environment, `verify`
handing whole verifications to a remote backend, and what the backend refuses."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from parforge.service.evals import pool_size
from parforge.settings import Settings
from sandbox.backends import open_sandbox
from sandbox.backends.cluster import RaySandbox
from sandbox.config import DockerConfig, RayConfig
from sandbox.errors import SandboxUnavailable
from sandbox.models import SandboxInfo
from sandbox.spec import Candidate, Spec, Target, TestCase
from sandbox.verdict import Status, Verdict
from sandbox.verify import VerifyOptions, verify


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
    assert isinstance(open_sandbox(config), RaySandbox)
    assert pool_size(config) == config.max_in_flight
    monkeypatch.setenv("PARFORGE_SANDBOX__TYPE", "docker")
    monkeypatch.delenv("PARFORGE_SANDBOX__ADDRESS")
    monkeypatch.delenv("PARFORGE_SANDBOX__NODE__POOL_SIZE")
    assert isinstance(Settings().sandbox, DockerConfig)


class Remote:
    """A backend that verifies elsewhere: records what `verify` hands it."""

    def __init__(self) -> None:
        self.calls: list[tuple[Spec, Candidate, VerifyOptions]] = []

    def info(self) -> SandboxInfo:
        return SandboxInfo(backend="remote", isolation="elsewhere")

    def workspace(self):  # type: ignore[no-untyped-def]
        raise AssertionError("a remote backend lends no workspace")

    async def aclose(self) -> None:
        pass

    async def verify_remote(
        self, spec: Spec, candidate: Candidate, options: VerifyOptions
    ) -> Verdict:
        self.calls.append((spec, candidate, options))
        return Verdict(target=candidate.target, status=Status.PASSED)


async def test_verify_hands_the_whole_verification_to_a_remote_backend() -> None:
    remote = Remote()
    spec = Spec(name="s", language="c", reference="int main(){}", tests=[TestCase(name="t")])
    candidate = Candidate(target=Target.OPENMP, source="int main(){}")
    verdict = await verify(remote, spec, candidate, timing=False, options=VerifyOptions(probe=True))
    assert verdict.passed
    [(seen_spec, seen_candidate, options)] = remote.calls
    assert seen_spec == spec and seen_candidate == candidate
    assert options.probe and not options.timing  # `timing=False` reaches the node


async def test_the_ray_backend_lends_no_workspace() -> None:
    sandbox = RaySandbox(RayConfig())
    with pytest.raises(SandboxUnavailable, match="lends no workspaces"):
        async with sandbox.workspace():
            pass
    assert sandbox.info().backend == "ray"


def test_cluster_status_needs_the_ray_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    from parforge.cli import app

    monkeypatch.setenv("PARFORGE_SANDBOX__TYPE", "docker")
    result = CliRunner().invoke(app, ["cluster", "status"])
    assert result.exit_code == 2 and "PARFORGE_SANDBOX__TYPE=ray" in " ".join(result.output.split())
