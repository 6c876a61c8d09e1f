"""Run reasoning threads at once, each its own streamed completion, and prune them online.

Every thread streams from the same server; after every few deltas, the thread just fed is
checked against the others by the pruning rule:

- `fingerprint`: its code so far has converged on what another thread already wrote (`shape`s
  alike over what both wrote): the thread behind is pruned, the one ahead keeps going. A thread
  whose code has converged on itself (one short pattern repeated, how small models degenerate)
  is pruned too.
- `confidence`: its recent token confidence fell below `keep` x the median of the others'
  (DeepConf, online over concurrent threads instead of warm-up traces).

A pruned or stopped thread leaves its stream, which closes the HTTP response: vLLM aborts the
request and frees its batch slot at once. Budgets (tokens of all threads together, wall time)
stop what is still running; cancelling the caller cancels every stream.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any, Literal

from agents.llm import CallRecord, ChatRequest, Delta, LLMClient, LLMError
from agents.reasoning.confidence import WindowConfidence, below_group
from agents.reasoning.fingerprint import code_part, converged, looping, shape, similarity
from agents.reasoning.outlines import Outline
from sandbox.spec import Language

Rule = Literal["none", "fingerprint", "confidence", "both"]
ThreadStatus = Literal["waiting", "running", "finished", "pruned", "stopped", "failed"]


@dataclass
class Pruning:
    """How threads are pruned while they stream."""

    rule: Rule = "fingerprint"
    min_tokens: int = 40
    """Abstract code tokens both threads must have written before they are compared."""
    similarity: float = 0.9
    """How alike (0-1) two threads' code must be to count as converged."""
    check_every: int = 8
    """Deltas of one thread between its checks."""
    window: int = 32
    """Tokens of the confidence window."""
    keep: float = 0.8
    """The confidence rule stops a thread below this fraction of the group's median."""


@dataclass
class ThreadBudget:
    tokens: int | None = None
    """Completion tokens of all threads together (None: each thread's max_tokens only)."""
    time_s: float | None = None


@dataclass
class Thread:
    """One reasoning thread: its outline, its request, and what it has written."""

    index: int
    outline: Outline
    request: ChatRequest
    language: Language
    status: ThreadStatus = "waiting"
    reason: str = ""
    text: str = ""
    tokens: int = 0
    """Completion tokens streamed (the server's count once the call finished)."""
    pruned_by: int | None = None
    finish_reason: str | None = None
    record: CallRecord | None = None
    shape: list[str] = field(default_factory=list)
    confidence: WindowConfidence = field(default_factory=lambda: WindowConfidence(32))
    since_check: int = 0

    @property
    def alive(self) -> bool:
        """Still writing, or done writing on its own: what another thread may converge on."""
        return self.status in ("running", "finished")

    def feed(self, delta: Delta) -> int:
        """Take one delta; the tokens it carried."""
        self.text += delta.text
        self.confidence.add(delta.logprobs)
        count = len(delta.logprobs) or 1  # vLLM streams one token per delta
        self.tokens += count
        return count


class _Group:
    def __init__(self, threads: list[Thread], pruning: Pruning, budget: ThreadBudget) -> None:
        self.threads = threads
        self.pruning = pruning
        self.budget = budget
        self.spent = 0

    async def run(self, llm: LLMClient, thread: Thread, deadline: float | None) -> None:
        thread.status = "running"
        stream = llm.stream(thread.request)
        timeout = asyncio.timeout_at(deadline) if deadline is not None else contextlib.nullcontext()
        try:
            async with timeout, stream:
                async for delta in stream:
                    self.spent += thread.feed(delta)
                    verdict = self.check(thread)
                    if verdict is not None:
                        thread.status, thread.reason = verdict
                        break
            if thread.status == "running":
                thread.status = "finished"
        except TimeoutError:
            thread.status, thread.reason = "stopped", "the time budget ran out"
        except LLMError as exc:
            thread.status, thread.reason = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            thread.record = stream.record
            record = stream.record
            if record is not None and record.choices:
                thread.finish_reason = record.choices[0].finish_reason
            if record is not None and record.usage is not None and thread.status == "finished":
                thread.tokens = record.usage.completion_tokens
            if thread.status == "finished":
                thread.shape = shape(code_part(thread.text), thread.language)

    def check(self, thread: Thread) -> tuple[ThreadStatus, str] | None:
        budget = self.budget.tokens
        if budget is not None and self.spent >= budget:
            return "stopped", f"the threads' token budget of {budget} was spent"
        rule = self.pruning.rule
        if rule == "none":
            return None
        thread.since_check += 1
        if thread.since_check < self.pruning.check_every:
            return None
        thread.since_check = 0
        others = [t for t in self.threads if t is not thread and t.alive]
        if rule in ("fingerprint", "both"):
            thread.shape = shape(code_part(thread.text), thread.language)
            if looping(thread.shape):
                return "pruned", "repeating itself: one short pattern over its last code tokens"
            for other in others:
                if self._behind(thread, other) and converged(
                    thread.shape, other.shape, self.pruning.min_tokens, self.pruning.similarity
                ):
                    thread.pruned_by = other.index
                    alike = similarity(thread.shape, other.shape)
                    return "pruned", (
                        f"converged on thread {other.index}: {alike:.2f} alike over its first "
                        f"{len(thread.shape)} code tokens"
                    )
        if rule in ("confidence", "both") and thread.confidence.ready:
            group = [t.confidence.value for t in others if t.confidence.ready]
            mine = thread.confidence.value
            if below_group(mine, group, self.pruning.keep):
                return "pruned", (
                    f"confidence {mine:.2f} over its last {thread.confidence.window} tokens, "
                    f"below {self.pruning.keep:g} x the group's median"
                )
        return None

    @staticmethod
    def _behind(thread: Thread, other: Thread) -> bool:
        """Is `thread` the one to prune if both converged? The one with less code written (a
        finished thread is never behind a running one), the later one on a tie."""
        if other.status == "finished":
            return True
        return (len(thread.shape), -thread.index) < (len(other.shape), -other.index)


async def run_threads(
    llm: LLMClient,
    threads: list[Thread],
    pruning: Pruning | None = None,
    budget: ThreadBudget | None = None,
) -> list[Thread]:
    """Run every thread at once until it finishes, is pruned or a budget stops it."""
    pruning = pruning or Pruning()
    for thread in threads:
        thread.confidence = WindowConfidence(pruning.window)
    group = _Group(threads, pruning, budget or ThreadBudget())
    loop = asyncio.get_running_loop()
    time_s = (budget or ThreadBudget()).time_s
    deadline = loop.time() + time_s if time_s is not None else None
    await asyncio.gather(*(group.run(llm, t, deadline) for t in threads))
    return threads


def tokens_saved(threads: list[Thread]) -> int:
    """What the pruned threads would still have spent (see `estimate_saved`)."""
    return sum(saved_per_thread(threads))


def saved_per_thread(threads: list[Thread]) -> list[int]:
    """Per thread, what it would still have written had it not been pruned (0 unless pruned)."""
    return _saved([(t.status, t.tokens, t.request.sampling.max_tokens) for t in threads])


def estimate_saved(threads: list[tuple[str, int, int]]) -> int:
    """Of (status, tokens written, token limit) per thread: what the pruned ones would still
    have written (see `_saved`)."""
    return sum(_saved(threads))


def _saved(threads: list[tuple[str, int, int]]) -> list[int]:
    """A pruned thread that had written t tokens had not finished, so it would have ended
    longer than t: like the finished threads of the group that were longer than t (their
    mean), or at its own limit when none was. Threads that were not pruned saved nothing."""
    finished = [tokens for status, tokens, _ in threads if status == "finished"]
    saved = []
    for status, tokens, limit in threads:
        if status != "pruned":
            saved.append(0)
            continue
        longer = [n for n in finished if n > tokens]
        end = sum(longer) / len(longer) if longer else limit
        saved.append(max(0, round(end) - tokens))
    return saved


def reasoning_summary(
    steps: list[tuple[dict[str, Any], int, dict[str, Any]]],
) -> dict[str, Any] | None:
    """The `reasoning` object of a run from its stored `thread` steps (result, completion
    tokens, sampling); None when the run had no threads."""
    if not steps:
        return None
    rows = [
        (result.get("status", ""), tokens, int(sampling.get("max_tokens") or 0))
        for result, tokens, sampling in steps
        if not result.get("revived")
    ]
    # Threads run again after pruning (the subgraph's `revive`) spent what pruning saved.
    again = [tokens for result, tokens, _ in steps if result.get("revived")]
    return {
        "threads": len(steps),
        "pruned": sum(1 for status, _, _ in rows if status == "pruned"),
        "revived": len(again),
        "tokens_generated": sum(tokens for _, tokens, _ in steps),
        "tokens_saved": estimate_saved(rows) - sum(again),
        "per_thread": [
            {
                "strategy": (result.get("outline") or {}).get("strategy", ""),
                "status": result.get("status", ""),
                "reason": result.get("reason", ""),
                "tokens": tokens,
            }
            for result, tokens, _ in steps
        ],
    }
