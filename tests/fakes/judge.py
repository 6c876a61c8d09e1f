"""A scripted judge for the task runners' unit tests and for submissions' checks."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from sandbox.spec import Target
from sandbox.verdict import Status, Verdict


class ScriptedJudge:
    """A `Judge` for the task runners' unit tests: `judge(source) -> Verdict` answers.

    With `gate`, every verification waits until the event is set (for cancellation and time
    budget tests); with `error`, it raises that instead of answering.
    """

    def __init__(
        self,
        judge: Callable[[str], Any],
        gate: asyncio.Event | None = None,
        error: Exception | None = None,
    ) -> None:
        self.judge = judge
        self.gate = gate
        self.error = error
        self.sources: list[str] = []
        self.probes: list[str] = []
        self.cancelled = 0
        self.closed = False
        self.untimed_asked = False

    async def __call__(self, spec: Any, candidate: Any) -> Any:
        self.sources.append(candidate.source)
        try:
            if self.gate is not None:
                await self.gate.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        if self.error is not None:
            raise self.error
        return self.judge(candidate.source)

    async def probe(self, spec: Any, candidate: Any) -> Any:
        """The judge's verdict stands for the behaviour probe too (its steps carry the output)."""
        self.probes.append(candidate.source)
        return self.judge(candidate.source)

    def untimed(self) -> ScriptedJudge:
        """Its answers stand with timing off too (they hold what timing they script)."""
        self.untimed_asked = True
        return self

    async def aclose(self) -> None:
        self.closed = True


def judging_originals(status: Status = Status.PASSED, reason: str = "") -> ScriptedJudge:
    """A judge that answers every program, a submission's original checked against itself
    included, with `status`."""
    return ScriptedJudge(lambda source: Verdict(target=Target.SERIAL, status=status, reason=reason))
