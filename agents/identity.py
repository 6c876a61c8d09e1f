"""Which served model a run's calls go to (a LoRA adapter is told from its base model)."""

from __future__ import annotations

from dataclasses import dataclass

from agents.llm import LLMClient, LLMStatusError


@dataclass(frozen=True)
class Identity:
    """The served model a call went to; `adapter` is set when the name was a LoRA adapter."""

    model: str
    adapter: str | None = None
    context_window: int | None = None
    """Tokens the model's context holds: the endpoint's `max_model_len` (vLLM), else the
    configured `LLMConfig.context_window`, else None (unknown)."""


async def identify(llm: LLMClient) -> Identity:
    """The served model the calls go to; an adapter is told from its base by `/models`."""
    try:
        served = await llm.models()
    except LLMStatusError:
        served = []  # an endpoint without /models: the configured name is all we know
    name = await llm.model_name() if llm.config.model is None else llm.config.model
    by_id = {str(m.get("id")): m for m in served}
    entry = by_id.get(name, {})
    parent = entry.get("parent")
    window = entry.get("max_model_len") or by_id.get(str(parent), {}).get("max_model_len")
    window = int(window) if isinstance(window, int) and window > 0 else llm.config.context_window
    if parent:
        return Identity(model=str(parent), adapter=name, context_window=window)
    return Identity(model=name, context_window=window)
