"""Prompt mode: the model completes the task's prompt, as in ParEval.

A completion endpoint gets the prompt as text and continues it; a chat-only endpoint gets it
wrapped in a user message and the code is taken from the reply (`evals.extract`). All missing
samples of a task are one request with `n` choices, so the server shares the prompt's prefix.
"""

from __future__ import annotations

from agents.llm import (
    ChatRequest,
    CompletionRequest,
    Generation,
    LLMAuthError,
    LLMBadRequest,
    LLMClient,
    LLMServerError,
    LLMStatusError,
    Message,
    Sampling,
)
from corpus.tasks import SuiteTask
from evals.config import Api, SamplingOptions
from evals.extract import from_chat, from_completion
from evals.sources import Sample
from sandbox.spec import Target

SYSTEM = (
    "You are an expert in parallel programming. Complete the function the user gives you. "
    "Reply with the complete function in one fenced code block and nothing else."
)


def chat_messages(prompt: str, language: str) -> list[Message]:
    """The chat wrapping of a completion prompt."""
    fence = "cuda" if language == "cuda" else "cpp"
    user = f"Complete this function:\n\n```{fence}\n{prompt}\n```"
    return [Message(role="system", content=SYSTEM), Message(role="user", content=user)]


class PromptSource:
    """Samples from a served model; `api` picks completions, chat, or completions-then-chat."""

    def __init__(
        self,
        client: LLMClient,
        name: str,
        api: Api = "auto",
        sampling: SamplingOptions | None = None,
    ) -> None:
        self.client = client
        self.name = name
        self.api: Api = api
        self.sampling = sampling or SamplingOptions()

    async def generate(self, task: SuiteTask, target: Target, indices: list[int]) -> list[Sample]:
        prompt = task.prompt_for(target)
        sampling = Sampling(n=len(indices), **self.sampling.model_dump())
        try:
            chat, generation = await self._call(prompt, target, sampling)
        except LLMBadRequest as exc:
            # This request (say, a prompt longer than the model's context) is the sample's
            # failure; the endpoint itself works.
            why = f"the model refused the request: {exc}"
            return [Sample(index=i, source=None, error=why) for i in indices]
        samples = []
        for index, choice in zip(indices, generation.choices, strict=False):
            text = choice.text
            source = (
                from_chat(prompt, text, task.function) if chat else from_completion(prompt, text)
            )
            record = generation.record.model_copy(update={"choices": [choice]})
            samples.append(Sample(index=index, source=source, call=record.model_dump(mode="json")))
        got = {s.index for s in samples}
        samples += [
            Sample(index=i, source=None, error="the server returned fewer choices than asked")
            for i in indices
            if i not in got
        ]
        return samples

    async def _call(
        self, prompt: str, target: Target, sampling: Sampling
    ) -> tuple[bool, Generation]:
        """(whether chat was used, the generation)."""
        if self.api == "chat":
            return True, await self._chat(prompt, target, sampling)
        try:
            generation = await self.client.complete(
                CompletionRequest(prompt=prompt, sampling=sampling)
            )
        except (LLMAuthError, LLMServerError, LLMBadRequest):
            raise
        except LLMStatusError:
            if self.api != "auto":
                raise
            # A chat-only endpoint (hosted chat models) refuses /completions outright.
            generation = await self._chat(prompt, target, sampling)
            self.api = "chat"
            return True, generation
        self.api = "completion"
        return False, generation

    async def _chat(self, prompt: str, target: Target, sampling: Sampling) -> Generation:
        language = "cuda" if target is Target.CUDA else "cpp"
        return await self.client.chat(
            ChatRequest(messages=chat_messages(prompt, language), sampling=sampling)
        )

    async def aclose(self) -> None:
        await self.client.aclose()
