"""Reasoning threads on the scripted streaming server: what is pruned, what is aborted, what
budgets and cancellation stop."""

from __future__ import annotations

import asyncio
import json

import httpx2
import pytest

from agents.llm import ChatRequest, LLMClient, LLMConfig, Message, Sampling
from agents.reasoning import Outline, Pruning, Thread, ThreadBudget, run_threads, tokens_saved
from sandbox.spec import Language
from tests.fakes.llm import FakeLLMServer, FakeStream, Reply
from tests.fakes.programs import SUM, SUM_ATOMIC, SUM_RENAMED


class ByPrompt(FakeLLMServer):
    """Answers each thread by its prompt (threads start in any order)."""

    def __init__(self, replies: dict[str, Reply]) -> None:
        super().__init__()
        self.by_prompt = replies
        self.stream_of: dict[str, FakeStream] = {}

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("/models"):
            return await super().handle(request)
        prompt = json.loads(request.content)["messages"][-1]["content"]
        self.replies.appendleft(self.by_prompt[prompt])
        before = len(self.streams)
        response = await super().handle(request)
        if len(self.streams) > before:  # an error status has no stream
            self.stream_of[prompt] = self.streams[-1]
        return response


def fenced(code: str) -> str:
    return f"Here is the program:\n```c\n{code}```\nIt sums in parallel."


def threads_for(prompts: list[str], logprobs: int | None = None) -> list[Thread]:
    return [
        Thread(
            i,
            Outline(strategy=f"strategy {i}"),
            ChatRequest(
                messages=[Message(role="user", content=p)],
                sampling=Sampling(max_tokens=400, logprobs=logprobs),
            ),
            Language.C,
        )
        for i, p in enumerate(prompts)
    ]


def client(fake: FakeLLMServer, config: LLMConfig) -> LLMClient:
    return LLMClient(config.model_copy(update={"max_concurrency": 8}), transport=fake.transport())


FAST = Pruning(min_tokens=20, check_every=4)


async def test_a_thread_that_converges_is_aborted_mid_stream_and_different_ones_are_not(
    llm_config,
):
    fake = ByPrompt(
        {
            "lead": Reply(texts=[fenced(SUM)], chunk_delay_s=0.002),
            "copy": Reply(texts=[fenced(SUM_RENAMED)], chunk_delay_s=0.01),
            "other": Reply(texts=[fenced(SUM_ATOMIC)], chunk_delay_s=0.004),
        }
    )
    threads = threads_for(["lead", "copy", "other"])
    async with client(fake, llm_config) as llm:
        await run_threads(llm, threads, FAST)

    lead, copy, other = threads
    assert (lead.status, copy.status, other.status) == ("finished", "pruned", "finished")
    assert copy.pruned_by == 0 and "converged on thread 0" in copy.reason
    assert fake.stream_of["copy"].aborted  # its HTTP stream was closed: vLLM stops generating
    assert not fake.stream_of["lead"].aborted and not fake.stream_of["other"].aborted
    assert copy.record is not None and copy.record.status == "cancelled"
    assert 0 < copy.tokens < lead.tokens
    assert tokens_saved(threads) > 0


async def test_without_pruning_every_thread_runs_to_its_end(llm_config):
    fake = ByPrompt(
        {
            "lead": Reply(texts=[fenced(SUM)]),
            "copy": Reply(texts=[fenced(SUM_RENAMED)], chunk_delay_s=0.005),
        }
    )
    threads = threads_for(["lead", "copy"])
    async with client(fake, llm_config) as llm:
        await run_threads(llm, threads, Pruning(rule="none"))
    assert [t.status for t in threads] == ["finished", "finished"]
    assert tokens_saved(threads) == 0


async def test_the_confidence_rule_stops_the_thread_the_model_was_unsure_of(llm_config):
    sure = {"logprob": -0.01, "alt_logprob": -8.0}
    fake = ByPrompt(
        {
            "a": Reply(texts=[fenced(SUM)], **sure),
            "b": Reply(texts=[fenced(SUM_ATOMIC)], **sure),
            "unsure": Reply(
                texts=[fenced(SUM_RENAMED)], logprob=-0.7, alt_logprob=-0.7, chunk_delay_s=0.005
            ),
        }
    )
    threads = threads_for(["a", "b", "unsure"], logprobs=2)
    async with client(fake, llm_config) as llm:
        await run_threads(llm, threads, Pruning(rule="confidence", window=8, check_every=2))
    assert [t.status for t in threads] == ["finished", "finished", "pruned"]
    assert "confidence" in threads[2].reason
    assert fake.stream_of["unsure"].aborted


async def test_the_token_budget_stops_every_thread(llm_config):
    fake = ByPrompt(
        {
            "a": Reply(texts=[fenced(SUM)], chunk_delay_s=0.002),
            "b": Reply(texts=[fenced(SUM_ATOMIC)], chunk_delay_s=0.002),
        }
    )
    threads = threads_for(["a", "b"])
    async with client(fake, llm_config) as llm:
        await run_threads(llm, threads, FAST, ThreadBudget(tokens=30))
    assert [t.status for t in threads] == ["stopped", "stopped"]
    assert all("token budget of 30" in t.reason for t in threads)
    assert sum(t.tokens for t in threads) <= 31  # one delta past the line at most
    assert all(s.aborted for s in fake.stream_of.values())


async def test_the_time_budget_stops_a_thread_that_stalls(llm_config):
    fake = ByPrompt(
        {
            "stalls": Reply(texts=[fenced(SUM)], stall_after=5),
            "quick": Reply(texts=[fenced(SUM_ATOMIC)]),
        }
    )
    threads = threads_for(["stalls", "quick"])
    async with client(fake, llm_config) as llm:
        await run_threads(llm, threads, FAST, ThreadBudget(time_s=2.0))  # quick ends under load
    assert (threads[0].status, threads[1].status) == ("stopped", "finished")
    assert threads[0].reason == "the time budget ran out"
    assert fake.stream_of["stalls"].aborted


async def test_cancelling_stops_every_thread(llm_config):
    fake = ByPrompt(
        {
            "a": Reply(texts=[fenced(SUM)], stall_after=3),
            "b": Reply(texts=[fenced(SUM_ATOMIC)], stall_after=3),
        }
    )
    threads = threads_for(["a", "b"])
    async with client(fake, llm_config) as llm:
        running = asyncio.create_task(run_threads(llm, threads, FAST))
        while len(fake.streams) < 2 or any(s.sent < 3 for s in fake.streams):  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
    assert all(s.aborted for s in fake.streams)
    assert all(t.record is not None and t.record.status == "cancelled" for t in threads)


async def test_a_thread_whose_call_fails_is_failed_and_the_others_go_on(llm_config):
    fake = ByPrompt(
        {"broken": Reply(status=400, error="bad request"), "fine": Reply(texts=[fenced(SUM)])}
    )
    threads = threads_for(["broken", "fine"])
    async with client(fake, llm_config) as llm:
        await run_threads(llm, threads, FAST)
    assert [t.status for t in threads] == ["failed", "finished"]
    assert "bad request" in threads[0].reason
