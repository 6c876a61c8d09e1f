"""Where verifications run: in the workspaces of this host's sandbox backend, or as whole
verifications on the sandbox hosts of a Ray cluster (`cluster`). Which one is configuration
(`open_verifier`); both judge the same way, because both end in `sandbox.verify.verify` on a
host that owns its workspaces."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from sandbox.backends import open_sandbox
from sandbox.base import Sandbox
from sandbox.config import RayConfig, SandboxConfig, VerifyOptions
from sandbox.models import SandboxInfo
from sandbox.spec import Candidate, Spec
from sandbox.verdict import Verdict
from sandbox.verify import verify
from sandbox.verify.gate import TimingGate
from sandbox.verify.refcache import ReferenceCache


@runtime_checkable
class Verifier(Protocol):
    """Verifies candidates somewhere: `verify` with its sandbox already chosen."""

    def info(self) -> SandboxInfo:
        """What the verifications run on (backend, isolation, GPU)."""
        ...

    async def verify(
        self,
        spec: Spec,
        candidate: Candidate,
        *,
        timing: bool = True,
        options: VerifyOptions | None = None,
        reference_cache: ReferenceCache | None = None,
        timing_gate: TimingGate | None = None,
    ) -> Verdict:
        """The verdict on `candidate`; a remote verifier uses its hosts' own cache and gate."""
        ...

    async def aclose(self) -> None:
        """Release what the verifier holds (warm containers, temporary directories)."""
        ...


class LocalVerifier:
    """Verifications in the workspaces of one sandbox backend on this host."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    def info(self) -> SandboxInfo:
        return self.sandbox.info()

    async def verify(
        self,
        spec: Spec,
        candidate: Candidate,
        *,
        timing: bool = True,
        options: VerifyOptions | None = None,
        reference_cache: ReferenceCache | None = None,
        timing_gate: TimingGate | None = None,
    ) -> Verdict:
        return await verify(
            self.sandbox,
            spec,
            candidate,
            timing=timing,
            options=options,
            reference_cache=reference_cache,
            timing_gate=timing_gate,
        )

    async def aclose(self) -> None:
        await self.sandbox.aclose()


def open_verifier(config: SandboxConfig) -> Verifier:
    """The verifier a sandbox configuration describes: local workspaces for `docker` and
    `local`, the cluster's hosts for `ray` (joined on the first verification)."""
    if isinstance(config, RayConfig):
        from sandbox.verify.cluster import RayVerifier

        return RayVerifier(config)
    return LocalVerifier(open_sandbox(config))
