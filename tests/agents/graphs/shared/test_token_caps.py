"""Per-call token caps and the task's token budget, sized for the served model's window."""

from __future__ import annotations

import pytest

from agents.graphs.shared.config import GraphConfig
from agents.identity import identify
from agents.llm import LLMClient, LLMConfig
from tests.fakes.llm import FAKE_ADAPTER, FakeLLMServer

pytestmark = pytest.mark.unit

CAPS = ("plan_tokens", "annotate_tokens", "rewrite_tokens", "thread_tokens", "tokens")


def caps(config: GraphConfig) -> dict[str, int | None]:
    return {name: getattr(config, name) for name in CAPS}


def test_the_embedded_models_window_keeps_its_caps_and_an_unknown_one_changes_nothing():
    config = GraphConfig()
    assert caps(config.for_model(None, 50_000)) == caps(config)
    assert caps(config.for_model(4096, 1_500)) == caps(config)  # the 135M server's window
    assert caps(config.for_model(4096, 40_000)) == caps(config)  # no room to grow into


def test_a_large_window_gives_a_long_program_room_and_a_reasoning_model_room_to_think():
    config = GraphConfig()
    big = config.for_model(131_072, 18_000)  # about 450 lines of C
    assert big.rewrite_tokens >= 2 * 18_000 // 3 and big.rewrite_tokens >= 131_072 // 8
    assert big.plan_tokens == 4096 and big.annotate_tokens == 2048
    assert big.thread_tokens == config.thread_tokens * big.rewrite_tokens // config.rewrite_tokens
    assert big.tokens is not None and config.tokens is not None
    assert big.tokens == config.tokens * big.rewrite_tokens // config.rewrite_tokens
    # Never beyond what the window leaves after a prompt that shows the program.
    squeezed = config.for_model(16_384, 30_000)
    assert squeezed.rewrite_tokens == max(config.rewrite_tokens, 16_384 - (2 * 10_001 + 1024))


def test_caps_kept_as_configured_stay_so_whatever_the_window():
    config = GraphConfig(rewrite_tokens=320, thread_tokens=320, size_to_window=False)
    for window, source in ((4096, 600), (131_072, 18_000)):
        assert caps(config.for_model(window, source)) == caps(config)
    # The same small caps, sized: a 4k window gives a short program room to be written twice.
    sized = config.model_copy(update={"size_to_window": True}).for_model(4096, 600)
    assert sized.rewrite_tokens > 320 and sized.thread_tokens > 320


async def test_the_window_comes_from_the_endpoint_else_from_the_setting():
    fake = FakeLLMServer()
    fake.context_window = 32_768
    base = LLMConfig(url="http://fake/v1", model=FAKE_ADAPTER)
    async with LLMClient(base, transport=fake.transport()) as llm:
        assert (await identify(llm)).context_window == 32_768
    fake.context_window = None
    configured = base.model_copy(update={"context_window": 8192})
    async with LLMClient(configured, transport=fake.transport()) as llm:
        assert (await identify(llm)).context_window == 8192
    async with LLMClient(base, transport=fake.transport()) as llm:
        assert (await identify(llm)).context_window is None
