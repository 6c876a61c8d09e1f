"""Wire models of the OpenAI-compatible API and the pure functions around them.

Requests are encoded to JSON bodies here and streamed chunks are assembled here; the client
only moves bytes. Every call streams (`stream: true` with usage in the last chunk), so each one
has a time to first token and can be aborted by closing its connection.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from agents.llm.schema import strict

Role = Literal["system", "user", "assistant", "tool"]


class FunctionCall(BaseModel):
    """The function an assistant message asked to call, with its JSON-encoded arguments."""

    name: str
    arguments: str


class ToolCall(BaseModel):
    """One tool call carried by an assistant message (kept so trajectories replay exactly)."""

    id: str
    type: Literal["function"] = "function"
    function: FunctionCall


class Message(BaseModel):
    """One chat message."""

    role: Role
    content: str | None = None
    name: str | None = None
    tool_call_id: str | None = None
    tool_calls: list[ToolCall] | None = None


class Sampling(BaseModel):
    """Sampling parameters; a field left at None is not sent, so the server's default applies."""

    max_tokens: int = Field(default=512, ge=1)
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    """vLLM extension; hosted APIs reject it, so leave it None there."""
    min_p: float | None = None
    """vLLM extension."""
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    repetition_penalty: float | None = None
    """vLLM extension."""
    seed: int | None = None
    stop: list[str] = Field(default_factory=list)
    n: int = Field(default=1, ge=1)
    """Independent samples of the same prompt, returned as `choices[0..n-1]`."""
    logprobs: int | None = Field(default=None, ge=0)
    """Return the log-probability of every sampled token and this many top alternatives."""
    ignore_eos: bool = False
    """vLLM extension: generate exactly `max_tokens` (benchmarks)."""


class JsonSchema(BaseModel):
    """Constrain the output to JSON that validates against `json_schema` (structured outputs).

    A strict schema is held to strict mode's rules (`agents.llm.schema.strict`) when it is
    made, so every endpoint that implements OpenAI's strict structured outputs accepts it:
    optional fields become required and nullable, and keywords strict mode lacks are dropped
    (the reply's parser checks what they said)."""

    json_schema: dict[str, Any]
    name: str = "output"
    strict: bool = True

    @model_validator(mode="after")
    def _strict_rules(self) -> JsonSchema:
        if self.strict:
            self.json_schema = strict(self.json_schema)
        return self


class ChatRequest(BaseModel):
    """A chat completion: messages in, `sampling.n` assistant replies out."""

    messages: list[Message]
    sampling: Sampling = Field(default_factory=Sampling)
    response_schema: JsonSchema | None = None
    model: str | None = None
    """Model or LoRA adapter name; None = the client's configured model."""


class CompletionRequest(BaseModel):
    """A raw text completion: the prompt is continued as is (no chat template)."""

    prompt: str
    sampling: Sampling = Field(default_factory=Sampling)
    response_schema: JsonSchema | None = None
    model: str | None = None


Request = ChatRequest | CompletionRequest


class TokenLogprob(BaseModel):
    """The log-probability of one sampled token and of its top alternatives."""

    token: str
    logprob: float
    top: dict[str, float] = Field(default_factory=dict)


class Choice(BaseModel):
    """One sample of the output."""

    index: int
    text: str = ""
    finish_reason: str | None = None
    """`stop`, `length`, `abort`, ... as the server says; None when the call did not finish."""
    logprobs: list[TokenLogprob] | None = None


class Usage(BaseModel):
    """Token counts the server reported."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int | None = None
    """Prompt tokens served from the prefix cache (None when the server does not say)."""


class Delta(BaseModel):
    """New text for one choice, as it streams in."""

    index: int
    text: str
    logprobs: list[TokenLogprob] = Field(default_factory=list)
    """The tokens of `text` with their log-probabilities (when the request asked for them)."""


SchemaMode = Literal["strict", "loose", "json_object", "none"]
SCHEMA_MODES: tuple[SchemaMode, ...] = ("strict", "loose", "json_object", "none")
"""How a response schema is sent, from the tightest to none: strict structured outputs, the
schema without `strict`, JSON mode (any object), nothing (the prompt asks for the JSON). A
client steps down this list when an endpoint refuses a mode."""


def encode(request: Request, model: str, schema_mode: SchemaMode = "strict") -> dict[str, Any]:
    """Build the JSON body of a streaming request (`schema_mode`: how its response schema, if
    any, is sent; a loose schema stays loose in every mode but `none`)."""
    s = request.sampling
    body: dict[str, Any] = {
        "model": model,
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": s.max_tokens,
        "n": s.n,
    }
    if isinstance(request, ChatRequest):
        body["messages"] = [m.model_dump(exclude_none=True) for m in request.messages]
    else:
        body["prompt"] = request.prompt
    optional = {
        "temperature": s.temperature,
        "top_p": s.top_p,
        "top_k": s.top_k,
        "min_p": s.min_p,
        "presence_penalty": s.presence_penalty,
        "frequency_penalty": s.frequency_penalty,
        "repetition_penalty": s.repetition_penalty,
        "seed": s.seed,
    }
    body.update({k: v for k, v in optional.items() if v is not None})
    if s.stop:
        body["stop"] = s.stop
    if s.ignore_eos:
        body["ignore_eos"] = True
    if s.logprobs is not None:
        if isinstance(request, ChatRequest):
            body["logprobs"] = True
            body["top_logprobs"] = s.logprobs
        else:
            body["logprobs"] = s.logprobs
    rs = request.response_schema
    if rs is not None and schema_mode == "json_object":
        body["response_format"] = {"type": "json_object"}
    elif rs is not None and schema_mode != "none":
        # The portable OpenAI field; vLLM maps it onto its structured-outputs engine.
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": rs.name,
                "schema": rs.json_schema,
                "strict": rs.strict and schema_mode == "strict",
            },
        }
    return body


class Assembler:
    """Folds streamed chunks into choices and usage (chat and completion chunks alike)."""

    def __init__(self, n: int) -> None:
        self.choices = [Choice(index=i) for i in range(n)]
        self.usage: Usage | None = None
        self.response_id: str | None = None
        self.response_model: str | None = None
        self.finished = False
        """True once every choice has a finish reason."""

    def feed(self, chunk: dict[str, Any]) -> list[Delta]:
        """Apply one chunk; return the text deltas it carried."""
        self.response_id = self.response_id or chunk.get("id")
        self.response_model = self.response_model or chunk.get("model")
        if chunk.get("usage"):
            self.usage = parse_usage(chunk["usage"])
        deltas: list[Delta] = []
        for raw in chunk.get("choices") or []:
            index = int(raw.get("index", 0))
            while index >= len(self.choices):
                self.choices.append(Choice(index=len(self.choices)))
            choice = self.choices[index]
            text = raw["delta"].get("content") if "delta" in raw else raw.get("text")
            logprobs = parse_logprobs(raw["logprobs"]) if raw.get("logprobs") else []
            if text:
                choice.text += text
                deltas.append(Delta(index=index, text=text, logprobs=logprobs))
            if logprobs:
                choice.logprobs = (choice.logprobs or []) + logprobs
            if raw.get("finish_reason"):
                choice.finish_reason = raw["finish_reason"]
        self.finished = all(c.finish_reason for c in self.choices)
        return deltas


def parse_usage(raw: dict[str, Any]) -> Usage:
    """Read `usage`, including vLLM's `prompt_tokens_details.cached_tokens` when present."""
    details = raw.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens")
    return Usage(
        prompt_tokens=raw.get("prompt_tokens") or 0,
        completion_tokens=raw.get("completion_tokens") or 0,
        cached_tokens=int(cached) if cached is not None else None,
    )


def parse_logprobs(raw: dict[str, Any]) -> list[TokenLogprob]:
    """Read logprobs in either shape: chat (`content: [...]`) or completions (parallel lists)."""
    if "content" in raw:
        return [
            TokenLogprob(
                token=item["token"],
                logprob=item["logprob"],
                top={t["token"]: t["logprob"] for t in item.get("top_logprobs") or []},
            )
            for item in raw["content"] or []
        ]
    tokens = raw.get("tokens") or []
    values = raw.get("token_logprobs") or []
    tops = raw.get("top_logprobs") or [None] * len(tokens)
    return [
        TokenLogprob(token=t, logprob=v if v is not None else float("-inf"), top=dict(top or {}))
        for t, v, top in zip(tokens, values, tops, strict=False)
    ]
