"""The LLM client against the scripted fake server: results, records, retries, aborts."""

from __future__ import annotations

import asyncio
import time

import httpx2
import pytest
from pydantic import SecretStr

from agents.llm import (
    CallRecord,
    ChatRequest,
    CompletionRequest,
    ContextOverflow,
    JsonSchema,
    LLMAuthError,
    LLMBadRequest,
    LLMClient,
    LLMConfig,
    LLMServerError,
    LLMStatusError,
    LLMStreamError,
    LLMTimeout,
    LLMUnavailable,
    Message,
    ModelNotFound,
    Sampling,
)
from agents.llm.client import backoff_delay
from tests.fakes.llm import FAKE_ADAPTER, FAKE_MODEL, FakeLLMServer, Reply


def chat(text: str = "hi", **kw: object) -> ChatRequest:
    return ChatRequest(messages=[Message(role="user", content=text)], **kw)  # type: ignore[arg-type]


def client(
    fake: FakeLLMServer, config: LLMConfig, records: list[CallRecord] | None = None
) -> LLMClient:
    sink = records.append if records is not None else None
    return LLMClient(config, transport=fake.transport(), on_record=sink)


async def test_chat_returns_text_usage_and_a_complete_record(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    fake_llm.script(Reply(texts=["hello there world"], cached_tokens=5))
    records: list[CallRecord] = []
    async with client(fake_llm, llm_config, records) as llm:
        gen = await llm.chat(chat("say hello", sampling=Sampling(max_tokens=9, temperature=0.2)))
    assert gen.text == "hello there world"
    assert gen.choices[0].finish_reason == "stop"
    assert (gen.usage.prompt_tokens, gen.usage.completion_tokens) == (7, 3)
    assert gen.usage.cached_tokens == 5
    rec = records[0]
    assert rec is gen.record
    assert rec.status == "ok" and rec.attempts == 1 and rec.kind == "chat"
    assert rec.model == FAKE_MODEL and rec.response_model == FAKE_MODEL
    assert rec.messages is not None and rec.messages[0].content == "say hello"
    assert rec.sampling.max_tokens == 9
    assert rec.ttft_s is not None and 0 <= rec.ttft_s <= rec.latency_s
    body = fake_llm.requests[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 9 and body["temperature"] == 0.2
    assert "top_k" not in body and "seed" not in body  # unset fields stay server defaults


async def test_completion_with_n_samples_stop_and_seed(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    async with client(fake_llm, llm_config) as llm:
        gen = await llm.complete(
            CompletionRequest(
                prompt="int main() {", sampling=Sampling(n=4, stop=["}"], seed=7, top_k=20)
            )
        )
    assert gen.texts == ["sample 0", "sample 1", "sample 2", "sample 3"]
    assert gen.record.kind == "completion" and gen.record.prompt == "int main() {"
    body = fake_llm.requests[0]
    assert body["prompt"] == "int main() {" and "messages" not in body
    assert (body["n"], body["stop"], body["seed"], body["top_k"]) == (4, ["}"], 7, 20)


async def test_json_schema_is_sent_as_response_format(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    fake_llm.script(Reply(texts=['{"x": 3}']))
    records: list[CallRecord] = []
    async with client(fake_llm, llm_config, records) as llm:
        gen = await llm.chat(chat(response_schema=JsonSchema(json_schema=schema, name="plan")))
    assert gen.parse_json() == {"x": 3}
    sent = schema | {"additionalProperties": False}  # strict mode's rules, applied
    assert fake_llm.requests[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "plan", "schema": sent, "strict": True},
    }
    assert records[0].response_format == "strict" and records[0].schema_refused == []


@pytest.mark.parametrize(
    ("refuses", "used"),
    [
        ({"strict"}, "loose"),
        ({"json_schema"}, "json_object"),
        ({"json_schema", "json_object"}, "none"),
    ],
)
async def test_an_endpoint_that_refuses_a_schema_mode_gets_the_next_looser_one(
    fake_llm: FakeLLMServer, llm_config: LLMConfig, refuses: set[str], used: str
) -> None:
    """An endpoint without strict structured outputs answers 400: the call goes out again in
    the next looser mode, the record says which and why, and the next call starts there."""
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    fake_llm.refuses = refuses
    records: list[CallRecord] = []
    request = chat(response_schema=JsonSchema(json_schema=schema, name="plan"))
    async with client(fake_llm, llm_config, records) as llm:
        await llm.chat(request)
        sent_first = len(fake_llm.requests)
        await llm.chat(request)
    assert [r.response_format for r in records] == [used, used]
    assert records[0].schema_refused and records[0].schema_refused[0].startswith("strict:")
    assert records[1].schema_refused == []  # the refused modes are not tried again
    assert len(fake_llm.requests) == sent_first + 1
    last = fake_llm.requests[-1].get("response_format")
    expected = {
        "loose": "json_schema",
        "json_object": "json_object",
        "none": None,
    }[used]
    assert (last or {}).get("type") == expected
    if used == "loose":
        assert last["json_schema"]["strict"] is False


async def test_a_bad_request_about_something_else_is_not_retried_looser(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    fake_llm.script(Reply(status=400, error="maximum context length is 2048 tokens"))
    async with client(fake_llm, llm_config) as llm:
        with pytest.raises(LLMBadRequest):
            await llm.chat(chat(response_schema=JsonSchema(json_schema=schema, name="plan")))
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize("kind", ["chat", "completion"])
async def test_logprobs_when_asked(
    fake_llm: FakeLLMServer, llm_config: LLMConfig, kind: str
) -> None:
    sampling = Sampling(logprobs=2)
    request = (
        chat(sampling=sampling)
        if kind == "chat"
        else CompletionRequest(prompt="a", sampling=sampling)
    )
    async with client(fake_llm, llm_config) as llm:
        gen = await llm.generate(request)
    lps = gen.choices[0].logprobs
    assert lps is not None and [t.token for t in lps] == ["sample", " 0"]
    assert all(t.logprob == -0.5 for t in lps)
    body = fake_llm.requests[0]
    if kind == "chat":
        assert (body["logprobs"], body["top_logprobs"]) == (True, 2)
    else:
        assert body["logprobs"] == 2


async def test_model_is_discovered_and_adapters_are_chosen_per_request(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    config = llm_config.model_copy(update={"model": None})
    async with client(fake_llm, config) as llm:
        assert await llm.model_name() == FAKE_MODEL  # the base model, not the adapter
        await llm.chat(chat())
        await llm.chat(chat(model=FAKE_ADAPTER))
    assert [r["model"] for r in fake_llm.requests] == [FAKE_MODEL, FAKE_ADAPTER]


async def test_unknown_model_is_a_clear_error_and_an_error_record(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    records: list[CallRecord] = []
    async with client(fake_llm, llm_config, records) as llm:
        with pytest.raises(ModelNotFound, match="`nope` does not exist"):
            await llm.chat(chat(model="nope"))
    assert len(fake_llm.requests) == 1  # a 404 is not retried
    assert records[0].status == "error" and "ModelNotFound" in (records[0].error or "")


async def test_5xx_and_429_are_retried_then_succeed(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    fake_llm.script(Reply(status=503), Reply(status=429, headers={"retry-after": "0"}), Reply())
    async with client(fake_llm, llm_config) as llm:
        gen = await llm.chat(chat())
    assert gen.record.attempts == 3 and gen.text == "sample 0"


async def test_5xx_gives_up_after_the_retries(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    fake_llm.script(*[Reply(status=500, error="engine dead")] * 10)
    async with client(fake_llm, llm_config) as llm:
        with pytest.raises(LLMServerError, match="engine dead") as info:
            await llm.chat(chat())
    assert info.value.status_code == 500
    assert len(fake_llm.requests) == llm_config.max_retries + 1


async def test_bad_request_is_not_retried(fake_llm: FakeLLMServer, llm_config: LLMConfig) -> None:
    fake_llm.script(Reply(status=400, error="max_tokens is too large"))
    async with client(fake_llm, llm_config) as llm:
        with pytest.raises(LLMBadRequest, match="max_tokens is too large"):
            await llm.chat(chat())
    assert len(fake_llm.requests) == 1


async def test_a_prompt_past_the_context_is_a_context_overflow(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    """vLLM's reply for a prompt longer than the window is its own kind of bad request (the
    tools make it one step's failure, not the run's); another bad request is not."""
    fake_llm.script(
        Reply(
            status=400,
            error="This model's maximum context length is 4096 tokens. However, your prompt "
            "contains at least 4097 input tokens, which exceeds this limit even without any "
            "output tokens. Please reduce the length of the input prompt.",
        )
    )
    async with client(fake_llm, llm_config) as llm:
        with pytest.raises(ContextOverflow, match="maximum context length"):
            await llm.chat(chat())
    fake_llm.script(Reply(status=400, error="max_tokens is too large"))
    async with client(fake_llm, llm_config) as llm:
        with pytest.raises(LLMBadRequest) as info:
            await llm.chat(chat())
    assert not isinstance(info.value, ContextOverflow)


async def test_api_key_is_sent_and_401_is_an_auth_error(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    seen: list[str | None] = []
    transport = fake_llm.transport()
    handler = transport.handler  # type: ignore[attr-defined]

    async def spy(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.headers.get("authorization"))
        return await handler(request)

    transport.handler = spy  # type: ignore[attr-defined]
    fake_llm.script(Reply(status=401, error="bad key"))
    config = llm_config.model_copy(update={"api_key": SecretStr("s3cret")})
    async with LLMClient(config, transport=transport) as llm:
        with pytest.raises(LLMAuthError, match="bad key"):
            await llm.chat(chat())
    assert seen == ["Bearer s3cret"]


async def test_connection_errors_are_retried_then_reported(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    fake_llm.script(Reply(connect_error=True), Reply(texts=["back"]))
    async with client(fake_llm, llm_config) as llm:
        assert (await llm.chat(chat())).text == "back"
        fake_llm.script(*[Reply(connect_error=True)] * 10)
        with pytest.raises(LLMUnavailable, match="cannot reach"):
            await llm.chat(chat())


async def test_leaving_a_stream_early_aborts_the_request(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    fake_llm.script(Reply(texts=["one two three four five six seven eight"]))
    records: list[CallRecord] = []
    async with client(fake_llm, llm_config, records) as llm, llm.stream(chat()) as stream:
        seen = []
        async for delta in stream:
            seen.append(delta.text)
            if len(seen) == 2:
                break
    assert seen == ["one", " two"]
    assert fake_llm.streams[0].aborted  # the connection was closed before the end
    assert records[0].status == "cancelled" and records[0].choices[0].text == "one two"
    assert records[0].ttft_s is not None


async def test_cancelling_the_task_aborts_the_request(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    fake_llm.script(Reply(texts=["a b c d e f g h i j"], chunk_delay_s=0.05))
    records: list[CallRecord] = []
    async with client(fake_llm, llm_config, records) as llm:
        task = asyncio.create_task(llm.chat(chat()))
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert fake_llm.streams[0].aborted
    assert records[0].status == "cancelled"


async def test_server_dying_mid_stream_is_a_stream_error(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    fake_llm.script(Reply(texts=["a b c d"], break_after=2))
    records: list[CallRecord] = []
    async with client(fake_llm, llm_config, records) as llm:
        with pytest.raises(LLMStreamError, match="broke mid-stream"):
            await llm.chat(chat())
    assert len(fake_llm.requests) == 1  # output had started: no silent retry
    assert records[0].status == "error" and records[0].choices[0].text == "a b"


async def test_a_stalled_stream_fails_at_the_call_deadline(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    fake_llm.script(Reply(texts=["a b c"], stall_after=1))
    config = llm_config.model_copy(update={"call_timeout_s": 0.5})
    async with client(fake_llm, config) as llm:
        t0 = time.monotonic()
        with pytest.raises(LLMTimeout, match="deadline"):
            await llm.chat(chat())
    assert time.monotonic() - t0 < 5.0  # the stall is endless: well past the deadline is a hang
    assert fake_llm.streams[0].aborted


async def test_concurrency_is_bounded(fake_llm: FakeLLMServer, llm_config: LLMConfig) -> None:
    fake_llm.script(*[Reply(texts=["x y z"], chunk_delay_s=0.02) for _ in range(8)])
    config = llm_config.model_copy(update={"max_concurrency": 2})
    async with client(fake_llm, config) as llm:
        gens = await asyncio.gather(*(llm.chat(chat(str(i))) for i in range(8)))
    assert [g.text for g in gens] == ["x y z"] * 8
    assert fake_llm.max_in_flight == 2


async def test_error_event_inside_a_stream(fake_llm: FakeLLMServer, llm_config: LLMConfig) -> None:
    async def broken(request: httpx2.Request) -> httpx2.Response:
        body = b'data: {"error": {"message": "grammar failed"}}\n\n'
        return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})

    async with LLMClient(llm_config, transport=httpx2.MockTransport(broken)) as llm:
        with pytest.raises(LLMStreamError, match="grammar failed"):
            await llm.chat(chat())


@pytest.mark.parametrize("data", [b"{not json", b"[1, 2]"])
async def test_a_garbled_stream_chunk_is_a_stream_error(llm_config: LLMConfig, data: bytes) -> None:
    def garbled(request: httpx2.Request) -> httpx2.Response:
        body = b"data: " + data + b"\n\n"
        return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})

    async with LLMClient(llm_config, transport=httpx2.MockTransport(garbled)) as llm:
        with pytest.raises(LLMStreamError, match="chunk"):
            await llm.chat(chat())


async def test_nothing_from_the_environment_reaches_the_endpoint(
    fake_llm: FakeLLMServer, llm_config: LLMConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The SDK reads these; an endpoint the user named (a vLLM host) must not receive them.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-from-the-environment")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-from-the-environment")
    seen: list[httpx2.Headers] = []
    transport = fake_llm.transport()
    handler = transport.handler  # type: ignore[attr-defined]

    async def spy(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.headers)
        return await handler(request)

    transport.handler = spy  # type: ignore[attr-defined]
    async with LLMClient(llm_config.model_copy(update={"model": None}), transport=transport) as llm:
        await llm.chat(chat())
    assert len(seen) == 2  # /models, then the call
    for headers in seen:
        assert "authorization" not in headers
        assert not any("environment" in value for value in headers.values())


async def test_a_response_that_ends_early_is_an_error(llm_config: LLMConfig) -> None:
    def truncated(request: httpx2.Request) -> httpx2.Response:
        body = b'data: {"choices": [{"index": 0, "delta": {"content": "hal"}}]}\n\n'
        return httpx2.Response(200, content=body)

    async with LLMClient(llm_config, transport=httpx2.MockTransport(truncated)) as llm:
        with pytest.raises(LLMStreamError, match="ended before"):
            await llm.chat(chat())


async def test_a_404_without_a_model_message_hints_at_the_url(llm_config: LLMConfig) -> None:
    transport = httpx2.MockTransport(lambda r: httpx2.Response(404, text="Not Found"))
    async with LLMClient(llm_config, transport=transport) as llm:
        with pytest.raises(LLMStatusError, match="end in /v1") as info:
            await llm.chat(chat())
    assert not isinstance(info.value, ModelNotFound)


def test_backoff_grows_is_capped_and_honours_retry_after() -> None:
    for attempt in range(1, 8):
        base = min(8.0, 0.5 * 2 ** (attempt - 1))
        assert base / 2 <= backoff_delay(attempt, 0.5, 8.0) <= base
    assert backoff_delay(1, 0.5, 8.0, retry_after=5.0) == 5.0
    assert backoff_delay(1, 0.5, 8.0, retry_after=60.0) == 8.0


def test_a_client_needs_a_url() -> None:
    with pytest.raises(LLMUnavailable, match="no model endpoint"):
        LLMClient(LLMConfig())


async def test_fan_out_keeps_going_when_one_thread_fails(
    fake_llm: FakeLLMServer, llm_config: LLMConfig
) -> None:
    fake_llm.script(Reply(texts=["a"]), Reply(status=400, error="bad"), Reply(texts=["c"]))
    async with client(fake_llm, llm_config) as llm:
        results = await llm.generate_many([chat("1"), chat("2"), chat("3")])
    assert isinstance(results[1], LLMBadRequest)
    assert [r.text for r in (results[0], results[2]) if not isinstance(r, Exception)] == ["a", "c"]
