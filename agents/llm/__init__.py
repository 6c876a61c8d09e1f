"""The model client: async, streaming, retrying, bounded, and recording every call.

from agents.llm import ChatRequest, LLMClient, LLMConfig, Message, Sampling

async with LLMClient(LLMConfig(url="http://127.0.0.1:8000/v1")) as llm:
    gen = await llm.chat(ChatRequest(messages=[Message(role="user", content="hi")]))
    print(gen.text, gen.record.ttft_s, gen.usage.cached_tokens)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.llm.config import LLMConfig
from agents.llm.errors import (
    LLMAuthError,
    LLMBadRequest,
    LLMError,
    LLMServerError,
    LLMStatusError,
    LLMStreamError,
    LLMTimeout,
    LLMUnavailable,
    ModelNotFound,
)
from agents.llm.protocol import (
    ChatRequest,
    Choice,
    CompletionRequest,
    Delta,
    JsonSchema,
    Message,
    Request,
    Sampling,
    TokenLogprob,
    Usage,
)
from agents.llm.records import CallRecord, Generation

if TYPE_CHECKING:
    from agents.llm.client import CallStream, LLMClient


def __getattr__(name: str) -> object:
    # The client (and httpx under it) is imported on first use: the settings import
    # `agents.llm.config`, which runs this file, on every command.
    if name in ("CallStream", "LLMClient"):
        from agents.llm import client

        return getattr(client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CallRecord",
    "CallStream",
    "ChatRequest",
    "Choice",
    "CompletionRequest",
    "Delta",
    "Generation",
    "JsonSchema",
    "LLMAuthError",
    "LLMBadRequest",
    "LLMClient",
    "LLMConfig",
    "LLMError",
    "LLMServerError",
    "LLMStatusError",
    "LLMStreamError",
    "LLMTimeout",
    "LLMUnavailable",
    "Message",
    "ModelNotFound",
    "Request",
    "Sampling",
    "TokenLogprob",
    "Usage",
]
