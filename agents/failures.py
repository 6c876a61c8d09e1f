"""Which failures are the infrastructure's (the model or the sandbox), not the candidate's."""

from __future__ import annotations

from agents.llm import LLMError, LLMTimeout, LLMUnavailable
from sandbox.errors import SandboxError, SandboxUnavailable


def infrastructure_failure(exc: BaseException) -> str | None:
    """The reason for an infrastructure failure in `exc` (or a group of them), else None."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            if (found := infrastructure_failure(inner)) is not None:
                return found
        return None
    if isinstance(exc, LLMUnavailable):
        return f"model unreachable: {exc}"
    if isinstance(exc, LLMTimeout):
        return f"model timed out: {exc}"
    if isinstance(exc, LLMError):
        return f"model call failed: {type(exc).__name__}: {exc}"
    if isinstance(exc, SandboxUnavailable):
        return f"sandbox unavailable: {exc}"
    if isinstance(exc, SandboxError):
        return f"sandbox failed: {type(exc).__name__}: {exc}"
    return None
