"""A scripted OpenAI-compatible server (chat + completions, streaming, aborts) for unit tests,
reached through httpx2's mock transport (the SDK's HTTP)."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx2

FAKE_MODEL = "fake-model"
FAKE_ADAPTER = "fake-lora"


@dataclass
class Reply:
    """How the fake answers one generation request."""

    texts: list[str] | None = None
    """One text per choice; None = "sample i" for each of the request's `n`."""
    status: int = 200
    error: str = "scripted failure"
    headers: dict[str, str] = field(default_factory=dict)
    connect_error: bool = False
    """Fail as if nothing listened on the port."""
    chunk_delay_s: float = 0.0
    break_after: int | None = None
    """Drop the connection after this many content chunks (the server died mid-stream)."""
    stall_after: int | None = None
    """Stop sending, without closing, after this many content chunks."""
    finish_reason: str = "stop"
    cached_tokens: int | None = 0
    logprob: float = -0.5
    """The log-probability of every streamed token, when the request asks for logprobs."""
    alt_logprob: float | None = None
    """Chat replies: the log-probability of one alternative token in `top_logprobs` (None:
    no alternatives)."""


class FakeStream(httpx2.AsyncByteStream):
    """An SSE body that remembers whether the client closed it before the end."""

    def __init__(self, chunks: list[tuple[bytes, bool]], reply: Reply) -> None:
        self.chunks = chunks
        self.reply = reply
        self.sent = 0
        self.completed = False
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        # One pass over the body, as a socket gives: iterating again (the SDK drains what is
        # left after `[DONE]`) goes on from where the last pass stopped.
        content_chunks = sum(has_text for _, has_text in self.chunks[: self.sent])
        for chunk, has_text in self.chunks[self.sent :]:
            if self.reply.stall_after is not None and content_chunks >= self.reply.stall_after:
                await asyncio.sleep(3600)
            if self.reply.break_after is not None and content_chunks >= self.reply.break_after:
                raise httpx2.RemoteProtocolError("peer closed connection without sending body")
            if self.reply.chunk_delay_s:
                await asyncio.sleep(self.reply.chunk_delay_s)
            self.sent += 1
            content_chunks += has_text
            # The server has sent everything once its last chunk is out; vLLM aborts only
            # a request whose connection closed before that.
            self.completed = self.sent == len(self.chunks)
            yield chunk
        self.completed = True

    async def aclose(self) -> None:
        self.closed = True

    @property
    def aborted(self) -> bool:
        """Closed by the client before the server sent everything: vLLM would abort it."""
        return self.closed and not self.completed


class FakeLLMServer:
    """Answers `/v1/models`, `/v1/chat/completions` and `/v1/completions` from a script.

    Push `Reply`s with `script(...)`; requests without a scripted reply get the default. Every
    request body is kept in `requests`, every streamed body in `streams`.
    """

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.streams: list[FakeStream] = []
        self.max_in_flight = 0
        """Most streams open at once (the client's concurrency limit caps it)."""
        self.refuses: set[str] = set()
        """Response formats it answers 400 to, as an endpoint without them does: `strict`
        (a strict json_schema), `json_schema` (any), `json_object`."""
        self.context_window: int | None = None
        """`max_model_len` in its `/models` entries (vLLM reports it), when set."""

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def transport(self) -> httpx2.MockTransport:
        return httpx2.MockTransport(self.handle)

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        if path.endswith("/models"):
            data: list[dict[str, Any]] = [
                {"id": FAKE_MODEL, "object": "model", "parent": None},
                {"id": FAKE_ADAPTER, "object": "model", "parent": FAKE_MODEL},
            ]
            if self.context_window is not None:
                for entry in data:
                    entry["max_model_len"] = self.context_window
            return httpx2.Response(200, json={"object": "list", "data": data})
        body = json.loads(request.content)
        self.requests.append(body)
        refused = self._refused(body.get("response_format"))
        if refused:
            return _error(400, refused, "BadRequestError")
        reply = self.replies.popleft() if self.replies else Reply()
        if reply.connect_error:
            raise httpx2.ConnectError("connection refused", request=request)
        if body.get("model") not in (FAKE_MODEL, FAKE_ADAPTER):
            message = f"The model `{body.get('model')}` does not exist."
            return _error(404, message, "NotFoundError")
        if reply.status != 200:
            return _error(reply.status, reply.error, "ScriptedError", reply.headers)
        open_streams = sum(not s.closed for s in self.streams)
        self.max_in_flight = max(self.max_in_flight, open_streams + 1)
        stream = FakeStream(
            _sse_chunks(body, reply, chat=path.endswith("/chat/completions")), reply
        )
        self.streams.append(stream)
        return httpx2.Response(200, stream=stream, headers={"content-type": "text/event-stream"})

    def _refused(self, fmt: dict[str, Any] | None) -> str:
        """Why the endpoint refuses a response format ("": it takes it)."""
        if not fmt:
            return ""
        if fmt.get("type") == "json_object" and "json_object" in self.refuses:
            return "response_format json_object is not supported by this model"
        if fmt.get("type") == "json_schema":
            if "json_schema" in self.refuses:
                return "response_format json_schema is not supported"
            if fmt["json_schema"].get("strict") and "strict" in self.refuses:
                return "Invalid schema for response_format 'plan': strict mode is not supported"
        return ""


def _error(
    status: int, message: str, kind: str, headers: dict[str, str] | None = None
) -> httpx2.Response:
    body = {"error": {"message": message, "type": kind, "code": status}}
    return httpx2.Response(status, json=body, headers=headers or {})


def _sse_chunks(body: dict[str, Any], reply: Reply, *, chat: bool) -> list[tuple[bytes, bool]]:
    """The SSE events of a reply, each flagged when it carries generated text."""
    n = body.get("n", 1)
    texts = reply.texts or [f"sample {i}" for i in range(n)]
    head = {"id": "cmpl-fake", "model": body["model"]}
    events: list[dict[str, Any]] = []
    if chat:
        roles = [{"index": i, "delta": {"role": "assistant", "content": ""}} for i in range(n)]
        events.append({**head, "choices": roles})
    for i, sample in enumerate(texts):
        words = sample.split(" ")
        for piece in [words[0], *(" " + w for w in words[1:])]:
            choice: dict[str, Any] = {"index": i}
            if chat:
                choice["delta"] = {"content": piece}
            else:
                choice["text"] = piece
            if body.get("logprobs"):
                lp = reply.logprob
                choice["logprobs"] = (
                    {
                        "content": [
                            {
                                "token": piece,
                                "logprob": lp,
                                "top_logprobs": []
                                if reply.alt_logprob is None
                                else [
                                    {"token": piece, "logprob": lp},
                                    {"token": " alt", "logprob": reply.alt_logprob},
                                ],
                            }
                        ]
                    }
                    if chat
                    else {
                        "tokens": [piece],
                        "token_logprobs": [lp],
                        "top_logprobs": [{piece: lp}],
                    }
                )
            events.append({**head, "choices": [choice]})
    for i in range(len(texts)):
        final: dict[str, Any] = {"index": i, "finish_reason": reply.finish_reason}
        final.update({"delta": {}} if chat else {"text": ""})
        events.append({**head, "choices": [final]})
    usage: dict[str, Any] = {
        "prompt_tokens": 7,
        "completion_tokens": sum(len(t.split(" ")) for t in texts),
    }
    if reply.cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
    events.append({**head, "choices": [], "usage": usage})
    lines = [(f"data: {json.dumps(e)}\n\n".encode(), _has_text(e)) for e in events]
    return [*lines, (b"data: [DONE]\n\n", False)]


def _has_text(event: dict[str, Any]) -> bool:
    return any(c.get("text") or c.get("delta", {}).get("content") for c in event["choices"])
