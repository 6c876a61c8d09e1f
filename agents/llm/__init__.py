"""The model client: async, streaming, retrying, bounded, and recording every call.

from agents.llm import ChatRequest, LLMClient, LLMConfig, Message, Sampling

async with LLMClient(LLMConfig(url="http://127.0.0.1:8000/v1")) as llm:
    gen = await llm.chat(ChatRequest(messages=[Message(role="user", content="hi")]))
    print(gen.text, gen.record.ttft_s, gen.usage.cached_tokens)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from agents.llm.config import LLMConfig
from agents.llm.errors import (
    ContextOverflow,
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

if TYPE_CHECKING:
    from agents.llm.client import CallStream, LLMClient
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

# Imported on first use: the settings import `agents.llm.config`, which runs this file, on
# every command; the client pulls in the openai SDK, and the wire models are models to build.
_EXPORTS = {
    "CallStream": "agents.llm.client",
    "LLMClient": "agents.llm.client",
    "CallRecord": "agents.llm.records",
    "Generation": "agents.llm.records",
    **dict.fromkeys(
        (
            "ChatRequest",
            "Choice",
            "CompletionRequest",
            "Delta",
            "JsonSchema",
            "Message",
            "Request",
            "Sampling",
            "TokenLogprob",
            "Usage",
        ),
        "agents.llm.protocol",
    ),
}


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CallRecord",
    "CallStream",
    "ChatRequest",
    "Choice",
    "CompletionRequest",
    "ContextOverflow",
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
