"""Where samples come from: the seam between an eval and whatever writes the code.

An eval asks a `SampleSource` for the samples of one task at given indices and verifies what it
gets. Prompt mode (`PromptSource`: the model completes the task's prompt) and replay
(`ReplaySource`: stored or reference solutions, no model at all) are the sources shipped today;
an agent that plans, reasons and repairs becomes one more source, with the runner, the store and
the reports unchanged.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from corpus.tasks import SuiteTask
from sandbox.spec import Target


class Sample(BaseModel):
    """One sample of one task, before verification."""

    index: int
    source: str | None
    """The complete candidate (the prompt included), None when nothing usable came back."""
    call: dict[str, Any] | None = None
    """The record of the model call that produced it (`agents.llm.CallRecord`, as JSON)."""
    error: str = ""
    """Why there is no source (the request was refused, the replay has no such sample)."""


@runtime_checkable
class SampleSource(Protocol):
    """Produces candidate sources; failures of single samples are `Sample.error`, not raised.

    Raise (an `LLMError`, a `SandboxError`, an `EvalError`) only when the source cannot work at
    all (the model is unreachable): the run stops and resumes later.
    """

    name: str
    """What the run stores as its model (`smollm2-135m-instruct`, `replay:known-good`)."""

    async def generate(self, task: SuiteTask, target: Target, indices: list[int]) -> list[Sample]:
        """One `Sample` per index, for `task` in `target`."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
