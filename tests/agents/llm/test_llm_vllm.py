"""The client against the real embedded vLLM server (SmolLM2-135M-Instruct on CPU)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from pydantic import BaseModel, Field

from agents.core import parse_plan, plan_schema
from agents.llm import (
    CallRecord,
    ChatRequest,
    CompletionRequest,
    ContextOverflow,
    JsonSchema,
    LLMClient,
    LLMConfig,
    Message,
    ModelNotFound,
    Sampling,
)
from agents.tools import registry
from agents.tools.distribute import _schema as loops_schema
from parforge.model_server import ModelServer, ServerMetrics, read_metrics
from sandbox.spec import Target

pytestmark = pytest.mark.vllm


def ask(text: str) -> list[Message]:
    return [Message(role="user", content=text)]


async def test_chat_completion(vllm_config: LLMConfig) -> None:
    records: list[CallRecord] = []
    async with LLMClient(vllm_config, on_record=records.append) as llm:
        gen = await llm.chat(
            ChatRequest(messages=ask("What is OpenMP?"), sampling=Sampling(max_tokens=24))
        )
    assert gen.text.strip()
    assert gen.choices[0].finish_reason in ("stop", "length")
    assert gen.usage.prompt_tokens > 5 and 0 < gen.usage.completion_tokens <= 24
    assert gen.usage.cached_tokens is not None  # --enable-prompt-tokens-details is on
    rec = records[0]
    assert rec.status == "ok" and rec.response_model == vllm_config.model
    assert rec.ttft_s is not None and 0 < rec.ttft_s <= rec.latency_s


async def _settled(url: str, before: ServerMetrics, timeout_s: float = 20.0) -> ServerMetrics:
    """Metrics once no request runs any more (or the time-out)."""
    deadline = time.monotonic() + timeout_s
    while True:
        now = await read_metrics(url)
        if now.requests_running == 0 and now.requests_waiting == 0:
            return now
        if time.monotonic() > deadline:
            return now
        await asyncio.sleep(0.2)


async def test_a_cancelled_stream_is_aborted_on_the_server(vllm_config: LLMConfig) -> None:
    assert vllm_config.url
    before = await _settled(vllm_config.url, await read_metrics(vllm_config.url))
    request = CompletionRequest(
        prompt="Once upon a time", sampling=Sampling(max_tokens=2000, ignore_eos=True)
    )
    records: list[CallRecord] = []
    async with LLMClient(vllm_config, on_record=records.append) as llm:
        async with llm.stream(request) as stream:
            received = 0
            async for _ in stream:
                received += 1
                if received == 5:
                    break
        running = await read_metrics(vllm_config.url)
    after = await _settled(vllm_config.url, before)
    assert records[0].status == "cancelled"
    # Had the request gone on, it would run for 2000 tokens (minutes here) and end as "length".
    assert after.requests_running == 0, "the server still runs the abandoned request"
    assert after.generation_tokens - before.generation_tokens < 200
    assert after.finished == before.finished, "the request finished instead of being aborted"
    assert running.generation_tokens >= before.generation_tokens + 5


async def test_n_samples(vllm_config: LLMConfig) -> None:
    async with LLMClient(vllm_config) as llm:
        gen = await llm.chat(
            ChatRequest(
                messages=ask("Name a parallel programming model."),
                sampling=Sampling(n=4, max_tokens=16, temperature=1.0, seed=3),
            )
        )
    assert len(gen.choices) == 4
    assert all(c.text and c.finish_reason for c in gen.choices)
    assert len(set(gen.texts)) > 1, "four samples at temperature 1 came out identical"
    assert 4 <= gen.usage.completion_tokens <= 4 * 16


class Kernel(BaseModel):
    """What the tiny model must fill in, whatever it thinks."""

    name: str = Field(max_length=40)
    threads: int
    model: str = Field(pattern="^(openmp|mpi|cuda)$")
    parallel: bool


async def test_json_schema_is_obeyed(vllm_config: LLMConfig) -> None:
    schema = JsonSchema(json_schema=Kernel.model_json_schema(), name="kernel")
    async with LLMClient(vllm_config) as llm:
        gen = await llm.chat(
            ChatRequest(
                messages=ask("Describe a parallel loop kernel as JSON."),
                sampling=Sampling(n=3, max_tokens=120, temperature=0.8, seed=11),
                response_schema=schema,
            )
        )
    for choice in gen.choices:
        assert choice.finish_reason == "stop", f"ran out of tokens: {choice.text!r}"
        Kernel.model_validate_json(choice.text)


async def test_the_strict_plan_schema_is_taken_and_obeyed(vllm_config: LLMConfig) -> None:
    """The plan schema in strict mode's form (every field required, optional ones nullable)
    compiles in vLLM's grammar back end, and what comes back parses as a plan."""
    specs = registry(Target.OPENMP).specs()
    records: list[CallRecord] = []
    async with LLMClient(vllm_config, on_record=records.append) as llm:
        gen = await llm.chat(
            ChatRequest(
                messages=ask("Plan to parallelise a loop with the tools, as JSON steps."),
                sampling=Sampling(max_tokens=400, temperature=0.0, seed=3),
                response_schema=JsonSchema(json_schema=plan_schema(specs, 3), name="plan"),
            )
        )
    assert records[0].response_format == "strict" and not records[0].schema_refused
    if gen.choices[0].finish_reason == "stop":  # a 135M model may ramble to the token cap
        parse_plan(gen.text, specs)


async def test_lengths_and_counts_hold_the_tiny_models_reply(vllm_config: LLMConfig) -> None:
    """The bounds the agent's schemas set (loops picked: at most those offered; a string's
    length) are held by the grammar, not only checked after: without them the 135M model
    repeated one loop's name or rambled in a string until `max_tokens`."""
    schema = {
        "type": "object",
        "properties": {
            "loops": loops_schema(["L1", "L2", "L3"])["properties"]["loops"],  # type: ignore[index]
            "why": {"type": "string", "maxLength": 40},
        },
        "required": ["loops", "why"],
    }
    prompt = "Pick loops L1, L1, L1, L2 ... and explain why at great length, with numbers 1.1.1."
    async with LLMClient(vllm_config) as llm:
        gen = await llm.chat(
            ChatRequest(
                messages=ask(prompt),
                sampling=Sampling(n=4, max_tokens=200, temperature=1.0, seed=5),
                response_schema=JsonSchema(json_schema=schema, name="pick"),
            )
        )
    for choice in gen.choices:
        assert choice.finish_reason == "stop", f"ran out of tokens: {choice.text!r}"
        reply = json.loads(choice.text)
        assert 1 <= len(reply["loops"]) <= 3 and len(reply["why"]) <= 40, reply


async def test_a_prompt_past_the_window_is_a_context_overflow(vllm_config: LLMConfig) -> None:
    """The embedded model's window is 4,096 tokens: a longer prompt is refused before any
    work, and the client names it so (the tools make it one step's failure)."""
    long = " ".join(f"line{k} = line{k - 1} + {k};" for k in range(1, 2000))
    async with LLMClient(vllm_config) as llm:
        with pytest.raises(ContextOverflow):
            await llm.chat(ChatRequest(messages=ask(long), sampling=Sampling(max_tokens=16)))


async def test_an_unknown_model_is_a_clear_error(vllm_config: LLMConfig) -> None:
    async with LLMClient(vllm_config) as llm:
        with pytest.raises(ModelNotFound, match="no-such-adapter"):
            await llm.chat(ChatRequest(model="no-such-adapter", messages=ask("hi")))


async def test_shared_prefix_is_served_from_the_prefix_cache(vllm_config: LLMConfig) -> None:
    prefix = "You translate C loops to OpenMP. " + " ".join(
        f"Rule {i}: keep loop {i} race-free." for i in range(80)
    )
    async with LLMClient(vllm_config) as llm:
        first = await llm.complete(
            CompletionRequest(prompt=prefix + "\nTask A:", sampling=Sampling(max_tokens=4))
        )
        threads = await asyncio.gather(
            *(
                llm.complete(
                    CompletionRequest(
                        prompt=prefix + f"\nTask {t}:", sampling=Sampling(max_tokens=4)
                    )
                )
                for t in "BCD"
            )
        )
    assert first.usage.prompt_tokens > 500
    for gen in threads:
        # vLLM caches whole blocks (128 tokens on CPU): all but the last partial one hit.
        assert gen.usage.cached_tokens is not None
        assert gen.usage.cached_tokens >= first.usage.prompt_tokens - 256


async def test_seed_stop_and_logprobs(vllm_config: LLMConfig) -> None:
    sampling = Sampling(max_tokens=24, temperature=1.0, seed=1234, stop=["\n"], logprobs=2)
    request = CompletionRequest(prompt="for (int i = 0; i < n; i++)", sampling=sampling)
    async with LLMClient(vllm_config) as llm:
        a, b = await llm.complete(request), await llm.complete(request)
    assert a.text == b.text, "the same seed gave different samples"
    assert "\n" not in a.text
    lps = a.choices[0].logprobs
    assert lps and all(t.logprob <= 0 for t in lps)
    assert all(1 <= len(t.top) <= 3 for t in lps)


async def test_status_of_the_running_server(vllm_server: ModelServer) -> None:
    status = await vllm_server.status()
    assert status.healthy and status.running and status.pid
    assert status.model == vllm_server.config.name()
