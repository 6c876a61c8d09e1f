"""Errors raised by the LLM client, mapped from the openai SDK's and the server's replies at one
boundary.

Only infrastructure failures raise. A completion that is wrong, truncated (`finish_reason ==
"length"`) or not what the agent hoped for is a result, never an exception; a stream that the
caller leaves early is a cancelled call, recorded as such.

    LLMError                      root of everything this package raises
    ├── LLMUnavailable            the endpoint cannot be reached (refused, DNS, TLS), retries spent
    ├── LLMTimeout                connecting, a stalled read, or the call's whole deadline ran out
    ├── LLMStatusError            the server answered with an error status
    │   ├── LLMBadRequest         400/422: the request is wrong (schema, prompt too long, params)
    │   │   └── ContextOverflow   the prompt (and the completion's cap) past the model's context
    │   ├── LLMAuthError          401/403: missing or wrong API key
    │   ├── ModelNotFound         404: no such model or LoRA adapter on this server
    │   └── LLMServerError        429 or 5xx, still failing after the retries
    └── LLMStreamError            the response broke off or could not be parsed (server died
                                  mid-stream, a proxy cut the connection)
"""

from __future__ import annotations


class LLMError(Exception):
    """Root of every error the LLM client raises."""


class LLMUnavailable(LLMError):
    """The endpoint could not be reached at all."""


class LLMTimeout(LLMError):
    """A connect, a read or the whole call took longer than its time-out."""


class LLMStatusError(LLMError):
    """The server answered with an HTTP error status."""

    def __init__(self, message: str, *, status_code: int, body: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.body = body


class LLMBadRequest(LLMStatusError):
    """The server rejected the request itself (400/422)."""


class ContextOverflow(LLMBadRequest):
    """The prompt, with the completion's cap, does not fit the model's context window: a limit
    of this one request (a program too long for a small model), not of the server."""


class LLMAuthError(LLMStatusError):
    """The API key is missing or wrong (401/403)."""


class ModelNotFound(LLMStatusError):
    """The named model or LoRA adapter is not served by this endpoint (404)."""


class LLMServerError(LLMStatusError):
    """The server kept failing (5xx) or throttling (429) after every retry."""


class LLMStreamError(LLMError):
    """A response stream broke off or carried something that is not the OpenAI protocol."""
