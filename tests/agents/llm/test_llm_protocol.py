"""Pure wire functions: request encoding, SSE parsing and stream assembly."""

from __future__ import annotations

from agents.llm import ChatRequest, CompletionRequest, Message, Sampling
from agents.llm.protocol import Assembler, encode, parse_logprobs, parse_usage


def test_encode_chat_drops_unset_fields() -> None:
    body = encode(ChatRequest(messages=[Message(role="user", content="hi")]), "m")
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert set(body) == {"model", "stream", "stream_options", "max_tokens", "n", "messages"}


def test_encode_vllm_extensions_only_when_set() -> None:
    s = Sampling(top_k=5, min_p=0.1, repetition_penalty=1.1, ignore_eos=True)
    body = encode(CompletionRequest(prompt="p", sampling=s), "m")
    assert (body["top_k"], body["min_p"], body["repetition_penalty"], body["ignore_eos"]) == (
        5,
        0.1,
        1.1,
        True,
    )


def test_assembler_interleaves_choices_and_reads_usage() -> None:
    a = Assembler(n=2)
    chunks = [
        {"id": "x", "model": "m", "choices": [{"index": 1, "delta": {"content": "B"}}]},
        {"choices": [{"index": 0, "delta": {"content": "A"}}]},
        {"choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": "stop"}]},
        {"choices": [{"index": 1, "delta": {}, "finish_reason": "length"}]},
        {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 3}},
    ]
    deltas = [d for c in chunks for d in a.feed(c)]
    assert [(d.index, d.text) for d in deltas] == [(1, "B"), (0, "A"), (0, "a")]
    assert [c.text for c in a.choices] == ["Aa", "B"]
    assert [c.finish_reason for c in a.choices] == ["stop", "length"]
    assert a.finished and a.response_id == "x" and a.response_model == "m"
    assert a.usage is not None and a.usage.cached_tokens is None


def test_usage_reads_cached_tokens() -> None:
    usage = parse_usage({"prompt_tokens": 600, "prompt_tokens_details": {"cached_tokens": 512}})
    assert usage.cached_tokens == 512 and usage.completion_tokens == 0


def test_logprobs_in_completion_shape_with_a_missing_value() -> None:
    lps = parse_logprobs(
        {"tokens": ["a", "b"], "token_logprobs": [None, -1.0], "top_logprobs": [None, {"b": -1.0}]}
    )
    assert lps[0].logprob == float("-inf") and lps[1].top == {"b": -1.0}
