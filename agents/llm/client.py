"""The async client for OpenAI-compatible servers (vLLM first): the one place that does HTTP.

Every call streams under the hood, which gives each call a time to first token and lets a
caller abort it: leaving a stream early, or cancelling the task that awaits a call, closes the
HTTP connection, and vLLM aborts a request whose connection closed. Fan-out (parallel reasoning
threads, `n` samples, parallel tool calls) is plain `asyncio` on top: the client bounds how many
calls are in flight and every call yields a `CallRecord`.

HTTP, retries (connection errors, 429 and 5xx, honouring `Retry-After`), error types and
server-sent events are the `openai` SDK's (on httpx2); what is ParForge's own is above it: the
request body (`protocol.encode`, with vLLM's extensions), folding chunks into choices with their
logprobs (`protocol.Assembler`), the whole-call deadline, the concurrency limit, the schema
fallback and the record of every call.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, TypeVar

import httpx2
import openai
from openai import AsyncOpenAI, AsyncStream, Omit
from openai._types import RequestOptions

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
from agents.llm.protocol import (
    SCHEMA_MODES,
    Assembler,
    ChatRequest,
    CompletionRequest,
    Delta,
    Request,
    encode,
)
from agents.llm.records import CallRecord, Generation

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})

RecordSink = Callable[[CallRecord], None]
T = TypeVar("T")


class _SDK(AsyncOpenAI):
    """The SDK's client with ParForge's backoff (`LLMConfig.backoff_*`): the SDK honours a
    server's `Retry-After` and retries the same statuses, but its delays are fixed."""

    def __init__(self, config: LLMConfig, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._backoff = (config.backoff_initial_s, config.backoff_max_s)

    def _calculate_retry_timeout(  # the SDK's hook for the delay before a retry
        self,
        remaining_retries: int,
        options: Any,
        response_headers: httpx2.Headers | None = None,
    ) -> float:
        attempt = options.get_max_retries(self.max_retries) - remaining_retries + 1
        header = response_headers.get("retry-after") if response_headers is not None else None
        return backoff_delay(attempt, *self._backoff, _retry_after(header))


class LLMClient:
    """Chat and text completions against one endpoint, with retries and a concurrency limit.

    Use it as an async context manager (or call `aclose()`); pass `transport` to run it against
    an in-memory fake, and `on_record` to receive the record of every call, failed ones too.
    """

    def __init__(
        self,
        config: LLMConfig,
        *,
        transport: httpx2.AsyncBaseTransport | None = None,
        on_record: RecordSink | None = None,
    ) -> None:
        if not config.url:
            raise LLMUnavailable("no model endpoint configured (LLMConfig.url is empty)")
        self.config = config
        self._on_record = on_record
        key = config.api_key.get_secret_value() if config.api_key is not None else None
        # Nothing from the environment goes to an endpoint the user named: no OPENAI_API_KEY,
        # organisation or project (the SDK would read them), and no key header without a key.
        self._headers: dict[str, str | Omit] = {
            "OpenAI-Organization": Omit(),
            "OpenAI-Project": Omit(),
            **({} if key else {"Authorization": Omit()}),
        }
        timeout = httpx2.Timeout(
            connect=config.connect_timeout_s,
            read=config.read_timeout_s,
            write=config.read_timeout_s,
            pool=config.call_timeout_s,
        )
        self._api = _SDK(
            config,
            api_key=key or "unused",
            organization="",
            project="",
            base_url=config.url.rstrip("/"),
            timeout=timeout,
            max_retries=config.max_retries,
            http_client=httpx2.AsyncClient(
                transport=transport,
                timeout=timeout,
                limits=httpx2.Limits(
                    max_connections=config.max_concurrency,
                    max_keepalive_connections=config.max_concurrency,
                ),
            ),
        )
        self._slots = asyncio.Semaphore(config.max_concurrency)
        self._model = config.model
        self._model_lock = asyncio.Lock()
        self.schema_floor = 0
        """Index in `SCHEMA_MODES` of the tightest mode the endpoint has not refused: once
        refused, a mode is not tried again by this client."""

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every connection."""
        await self._api.close()

    async def models(self) -> list[dict[str, Any]]:
        """The models the endpoint serves (`/v1/models` entries; LoRA adapters have a `parent`)."""
        try:
            body = await self._sdk(
                lambda options: self._api.get("/models", cast_to=object, options=options),
                deadline=self._deadline(),
            )
        except json.JSONDecodeError as exc:
            raise LLMStreamError(f"unreadable /models reply: {exc}") from exc
        if not isinstance(body, dict):
            raise LLMStreamError(f"unreadable /models reply: {str(body)[:200]}")
        return list(body.get("data") or [])

    async def model_name(self) -> str:
        """The configured model name, or the endpoint's first base model when none is set."""
        async with self._model_lock:
            if self._model is None:
                served = [m for m in await self.models() if not m.get("parent")]
                if not served:
                    raise ModelNotFound("the endpoint serves no model", status_code=404)
                self._model = str(served[0]["id"])
            return self._model

    async def chat(self, request: ChatRequest) -> Generation:
        """Run a chat completion to the end."""
        return await self.generate(request)

    async def complete(self, request: CompletionRequest) -> Generation:
        """Run a text completion to the end."""
        return await self.generate(request)

    async def generate(self, request: Request) -> Generation:
        """Run either kind of request to the end; cancelling the awaiting task aborts it."""
        async with self.stream(request) as stream:
            async for _ in stream:
                pass
        return stream.generation()

    async def generate_many(self, requests: Sequence[Request]) -> list[Generation | LLMError]:
        """Fan out: run every request at once (within the concurrency limit), in order.

        A call that fails takes its `LLMError` as its place in the list instead of failing the
        others, so eight reasoning threads with one bad sample still give seven answers.
        """
        results = await asyncio.gather(
            *(self.generate(r) for r in requests), return_exceptions=True
        )
        for result in results:
            if not isinstance(result, Generation | LLMError):
                raise result  # a bug or a cancellation, not a model failure
        return [r for r in results if isinstance(r, Generation | LLMError)]

    def stream(self, request: Request) -> CallStream:
        """Stream a call: `async with client.stream(req) as s: async for delta in s: ...`.

        Leaving the block before the end aborts the request on the server.
        """
        return CallStream(self, request)

    async def call(self, request: Request) -> tuple[CallRecord, LLMError | None]:
        """Run a call to its end and keep its record even when it fails: (record, None), or
        (record, the error) for a call that failed after it started. A call that never got a
        record (it could not start) raises."""
        stream = self.stream(request)
        try:
            async with stream:
                async for _ in stream:
                    pass
        except LLMError as exc:
            if stream.record is None:
                raise
            return stream.record, exc
        assert stream.record is not None
        return stream.record, None

    def _deadline(self) -> float:
        return time.monotonic() + self.config.call_timeout_s

    async def _sdk(self, call: Callable[[RequestOptions], Awaitable[T]], *, deadline: float) -> T:
        """Run one SDK request (its retries included) within `deadline`, with the SDK's errors
        as the project's; `call` gets the request options to pass on."""
        url = self.config.url
        try:
            async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                return await call({"headers": self._headers})
        except TimeoutError as exc:
            raise LLMTimeout(
                f"call deadline of {self.config.call_timeout_s:g}s reached before {url} answered"
            ) from exc
        except openai.APITimeoutError as exc:
            raise LLMTimeout(f"{url} did not answer in time: {exc.__cause__!r}") from exc
        except openai.APIConnectionError as exc:
            raise LLMUnavailable(f"cannot reach {url}: {exc.__cause__!r}") from exc
        except openai.APIStatusError as exc:
            raise status_error(exc.status_code, _error_text(exc.response)) from exc
        except openai.OpenAIError as exc:  # anything else the SDK raises is still the call's
            raise LLMStreamError(f"unexpected reply from {url}: {exc!r}") from exc


class CallStream:
    """One streaming call: iterate for `Delta`s; the record is complete after the block exits."""

    def __init__(self, client: LLMClient, request: Request) -> None:
        self._client = client
        self._request = request
        self._assembler = Assembler(request.sampling.n)
        self._pending: deque[Delta] = deque()
        self._response: AsyncStream[object] | None = None
        self._chunks: AsyncIterator[object] | None = None
        self._t0 = 0.0
        self._deadline = 0.0
        self._ended = False
        self.record: CallRecord | None = None

    async def __aenter__(self) -> CallStream:
        client = self._client
        await client._slots.acquire()
        self._t0 = time.perf_counter()
        self._deadline = client._deadline()
        chat = isinstance(self._request, ChatRequest)
        self.record = CallRecord(
            id=uuid.uuid4().hex,
            kind="chat" if chat else "completion",
            model=self._request.model or client.config.model or "",
            messages=self._request.messages if isinstance(self._request, ChatRequest) else None,
            prompt=self._request.prompt if isinstance(self._request, CompletionRequest) else None,
            sampling=self._request.sampling,
            response_schema=self._request.response_schema,
            started_at=datetime.now(UTC),
        )
        try:
            self.record.model = self._request.model or await client.model_name()
            self._response = await self._send_stepping_down(chat)
            retries = self._response.response.request.headers.get("x-stainless-retry-count")
            self.record.attempts = int(retries or 0) + 1
            self._chunks = aiter(self._response)
        except BaseException as exc:
            await self._finish(exc)
            raise
        return self

    async def _send_stepping_down(self, chat: bool) -> AsyncStream[object]:
        """Send the request; where the endpoint refuses how its response schema went out, send
        it again in the next looser mode (`SCHEMA_MODES`), and record what was refused."""
        client, record = self._client, self.record
        assert record is not None
        path = "/chat/completions" if chat else "/completions"
        has_schema = self._request.response_schema is not None
        while True:
            mode = SCHEMA_MODES[client.schema_floor]
            body = encode(self._request, record.model, mode)
            try:
                response = await client._sdk(
                    lambda options, body=body: client._api.post(  # type: ignore[misc]
                        path,
                        body=body,
                        cast_to=object,
                        stream=True,
                        stream_cls=AsyncStream[object],
                        options=options,
                    ),
                    deadline=self._deadline,
                )
            except LLMBadRequest as exc:
                last = client.schema_floor == len(SCHEMA_MODES) - 1
                if not has_schema or last or not refuses_schema(exc):
                    raise
                if SCHEMA_MODES[client.schema_floor] == mode:  # not already stepped down
                    client.schema_floor += 1
                record.schema_refused.append(f"{mode}: {exc}"[:300])
                continue
            if has_schema:
                record.response_format = mode
            return response

    def __aiter__(self) -> CallStream:
        return self

    async def __anext__(self) -> Delta:
        while not self._pending:
            if self._ended or self._chunks is None:
                raise StopAsyncIteration
            chunk = await self._next_chunk()
            if chunk is None:
                self._ended = True
                if not self._assembler.finished:
                    raise LLMStreamError("the response ended before every sample finished")
                raise StopAsyncIteration
            deltas = self._assembler.feed(chunk)
            if deltas and self.record is not None and self.record.ttft_s is None:
                self.record.ttft_s = time.perf_counter() - self._t0
            self._pending.extend(deltas)
        return self._pending.popleft()

    async def _next_chunk(self) -> dict[str, Any] | None:
        """The next parsed chunk of the stream, None at its end."""
        assert self._chunks is not None
        try:
            async with asyncio.timeout(max(0.0, self._deadline - time.monotonic())):
                chunk = await anext(self._chunks)
        except StopAsyncIteration:
            return None
        except TimeoutError as exc:
            raise LLMTimeout(
                f"call exceeded its deadline of {self._client.config.call_timeout_s:g}s"
            ) from exc
        except (httpx2.ReadTimeout, openai.APITimeoutError) as exc:
            raise LLMTimeout(
                f"no data from the server for {self._client.config.read_timeout_s:g}s"
            ) from exc
        except (httpx2.HTTPError, openai.APIConnectionError) as exc:
            cause = exc.__cause__ or exc
            raise LLMStreamError(f"the connection broke mid-stream: {cause!r}") from exc
        except openai.APIError as exc:
            # vLLM reports failures after the 200 status inside the stream.
            raise LLMStreamError(f"server error mid-stream: {exc.message}") from exc
        except json.JSONDecodeError as exc:
            raise LLMStreamError(f"malformed stream chunk: {exc.doc[:200]!r}") from exc
        except openai.OpenAIError as exc:
            raise LLMStreamError(f"unreadable stream: {exc!r}") from exc
        if not isinstance(chunk, dict):
            raise LLMStreamError(f"stream chunk is not an object: {str(chunk)[:200]!r}")
        return chunk

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._finish(exc)

    def generation(self) -> Generation:
        """The finished call (only after the stream was read to its end)."""
        if self.record is None or self.record.status != "ok":
            raise LLMStreamError("the call did not finish")
        return Generation(record=self.record)

    async def _finish(self, exc: BaseException | None) -> None:
        """Close the connection (aborting an unfinished request) and emit the record."""
        try:
            if self._chunks is not None and hasattr(self._chunks, "aclose"):
                await self._chunks.aclose()
            if self._response is not None:
                await self._response.close()
        finally:
            self._client._slots.release()
        record = self.record
        if record is None:
            return
        a = self._assembler
        record.choices = a.choices
        record.usage = a.usage
        record.response_id = a.response_id
        record.response_model = a.response_model
        record.latency_s = time.perf_counter() - self._t0
        if exc is None and self._ended:
            record.status = "ok"
        elif isinstance(exc, LLMError):
            record.status = "error"
            record.error = f"{type(exc).__name__}: {exc}"
        else:
            # Left early, cancelled, or the caller's own code raised: the request was aborted.
            record.status = "cancelled"
        if self._client._on_record is not None:
            self._client._on_record(record)


_SCHEMA_WORDS = ("schema", "response_format", "strict", "json_object", "structured", "guided")


_OVERFLOW = re.compile(
    r"context[ _](?:length|window|size)|maximum context|prompt is too long|too many tokens", re.I
)


def overflows_context(reply: str) -> bool:
    """Whether a bad-request reply says the prompt (with the completion's cap) is longer than
    the model's context: vLLM's "maximum context length is 4096 tokens", OpenAI's
    `context_length_exceeded`, llama.cpp's "exceeds the available context size"."""
    return _OVERFLOW.search(reply) is not None


def refuses_schema(error: LLMBadRequest) -> bool:
    """Whether a bad-request reply is about how the response schema was sent (the endpoint
    does not take strict schemas, or JSON mode), not about the rest of the request."""
    message = str(error).lower()
    return any(word in message for word in _SCHEMA_WORDS)


def status_error(status_code: int, body: str) -> LLMStatusError:
    """Map an HTTP error reply to the project's error type, with the server's own message."""
    message = _error_message(body)
    if status_code == 404:
        if "model" in message.lower():
            return ModelNotFound(message, status_code=404, body=body)
        return LLMStatusError(
            f"404 {message} (does the endpoint URL end in /v1?)", status_code=404, body=body
        )
    if status_code in (400, 422):
        if overflows_context(f"{message} {body}"):
            return ContextOverflow(message, status_code=status_code, body=body)
        return LLMBadRequest(message, status_code=status_code, body=body)
    if status_code in (401, 403):
        return LLMAuthError(message, status_code=status_code, body=body)
    if status_code in RETRYABLE_STATUS:
        return LLMServerError(f"{status_code}: {message}", status_code=status_code, body=body)
    return LLMStatusError(f"{status_code}: {message}", status_code=status_code, body=body)


def backoff_delay(
    attempt: int, initial: float, maximum: float, retry_after: float | None = None
) -> float:
    """Seconds to wait before retry number `attempt` (1-based): exponential with jitter, capped.

    Half of the delay is random so that parallel threads failing together do not retry in step;
    a server's `Retry-After` wins when it asks for longer, up to the cap.
    """
    base = min(maximum, initial * 2 ** (attempt - 1))
    delay = base / 2 + random.uniform(0, base / 2)
    if retry_after is not None:
        delay = max(delay, min(retry_after, maximum))
    return delay


def _error_message(body: str) -> str:
    try:
        parsed = json.loads(body)
    except json.JSONDecodeError:
        return body.strip()[:500] or "(empty reply)"
    if isinstance(parsed, dict):
        error = parsed.get("error", parsed)
        if isinstance(error, dict):
            return str(error.get("message") or error.get("detail") or error)[:500]
        return str(error)[:500]
    return str(parsed)[:500]


def _retry_after(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _error_text(response: httpx2.Response) -> str:
    """The body of an error reply (the SDK has read it before raising)."""
    try:
        return response.text
    except httpx2.HTTPError:
        return ""
