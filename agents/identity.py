"""Which served model a run's calls go to (a LoRA adapter is told from its base model)."""

from __future__ import annotations

from dataclasses import dataclass

from agents.llm import LLMClient, LLMStatusError


@dataclass(frozen=True)
class Identity:
    """The served model a call went to; `adapter` is set when the name was a LoRA adapter."""

    model: str
    adapter: str | None = None


async def identify(llm: LLMClient) -> Identity:
    """The served model the calls go to; an adapter is told from its base by `/models`."""
    try:
        served = await llm.models()
    except LLMStatusError:
        served = []  # an endpoint without /models: the configured name is all we know
    name = await llm.model_name() if llm.config.model is None else llm.config.model
    parents = {str(m.get("id")): m.get("parent") for m in served}
    parent = parents.get(name)
    return Identity(model=str(parent), adapter=name) if parent else Identity(model=name)
