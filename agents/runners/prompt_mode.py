"""The prompt-mode runner: ask the model for K candidates, verify each, keep the best.

One run of one task:

1. ask the served model for K = `budgets.samples` programs with one prompt (`n=K` in one
   request, or K requests), each reply stored as an `llm_call` step as soon as its call ends;
2. take the code out of each reply and store it as a candidate of that step;
3. verify the candidates at once in the sandbox (its pool bounds how many really run), each
   stored as a `verify` tool step and a verdict as it completes;
4. end with the best passed candidate (highest speedup) and a line that says what happened.

A candidate that fails is data: a run whose candidates all fail ends `no_verified_candidate`.
Infrastructure failures (the model cannot be reached, the sandbox cannot run anything) end the
run `failed` with the reason. Cancelling the run aborts the model calls in flight (their
connections close, so vLLM stops generating) and the verifications (their workspaces are
released).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from agents.extract import extract_code
from agents.failures import infrastructure_failure
from agents.identity import identify
from agents.judge import Judge, task_spec
from agents.llm import (
    CallRecord,
    ChatRequest,
    LLMBadRequest,
    LLMClient,
    LLMError,
    Sampling,
)
from agents.prompts.program import build_messages
from agents.runners.config import PromptModeConfig
from agents.targets import kit
from agents.trace import Trace
from agents.trajectory import GENERATE, VERIFY, Tally, verdict_summary, verify_arguments
from corpus.runner import RunOutcome, TaskContext
from corpus.store.models import CandidateCreate, JobStatus, RunMeta, StepKind, TaskDetail
from sandbox.errors import SandboxError
from sandbox.spec import Candidate, Spec, Target
from sandbox.verdict import BuildReport, Status, Verdict

NO_CODE = "the model's reply holds no code"


@dataclass(frozen=True)
class _Plan:
    """One run's fixed inputs."""

    task: TaskDetail
    target: Target
    spec: Spec
    chat: ChatRequest
    """The request for one sample; `request(n)` asks for more."""
    samples: int

    def request(self, n: int) -> ChatRequest:
        sampling = self.chat.sampling.model_copy(update={"n": n})
        return self.chat.model_copy(update={"sampling": sampling})


class PromptRunner:
    """Prompt mode (`name = "prompt"`): K samples, each verified, the best kept."""

    name = "prompt"

    def __init__(
        self, llm: LLMClient, judge: Judge, config: PromptModeConfig | None = None
    ) -> None:
        self.llm = llm
        self.judge = judge
        self.config = config or PromptModeConfig()

    async def aclose(self) -> None:
        """Close the model client and the sandbox."""
        try:
            await self.llm.aclose()
        finally:
            await self.judge.aclose()

    def plan(self, task: TaskDetail) -> _Plan:
        """The spec and the request for `task` (pure)."""
        config = self.config
        target = task.target.target
        spec = task_spec(task, config)
        messages = build_messages(
            task.source,
            spec.language,
            target,
            spec.tests if task.tests else [],
            threads=config.threads,
            ranks=config.ranks,
            tolerance=config.tolerance,
            shown_tests=config.prompt_tests,
            function_only=spec.driver is not None,
            signature=spec.signature,
        )
        sampling = Sampling(
            max_tokens=task.budgets.max_tokens or config.max_tokens,
            temperature=config.temperature,
            top_p=config.top_p,
        )
        request = ChatRequest(messages=messages, sampling=sampling)
        return _Plan(task, target, spec, request, task.budgets.samples)

    async def run(self, context: TaskContext) -> RunOutcome:
        plan = self.plan(context.task)
        time_s = context.task.budgets.time_s
        run = _Run(self, context, plan)
        try:
            async with asyncio.timeout(time_s):
                await run.execute()
        except TimeoutError:
            return run.out_of_time(f"time budget of {time_s:g}s ran out")
        except Exception as exc:
            failure = infrastructure_failure(exc)
            if failure is None:
                raise
            return run.failed(failure)
        return run.finished()


class _Run:
    """The state of one run: what was made and verified so far."""

    def __init__(self, runner: PromptRunner, context: TaskContext, plan: _Plan) -> None:
        self.runner = runner
        self.recorder = context.recorder
        self.trace: Trace | None = None
        self.plan = plan
        self.tally = Tally()
        self.made = 0
        """Candidates stored."""
        self.call_errors: list[LLMError] = []
        """Model calls that failed and yielded no samples."""

    async def execute(self) -> None:
        identity = await identify(self.runner.llm)
        self.trace = trace = Trace(self.recorder, identity)
        sampling = self.plan.chat.sampling
        await trace.run_meta(
            RunMeta(
                model=identity.model,
                adapter=identity.adapter,
                budgets={
                    "samples": self.plan.samples,
                    "max_tokens": sampling.max_tokens,
                    "time_s": self.plan.task.budgets.time_s,
                    "temperature": sampling.temperature,
                    "top_p": sampling.top_p,
                },
            )
        )
        async with (
            asyncio.TaskGroup() as group,
            contextlib.aclosing(self._calls(group)) as calls,
        ):
            async for record in calls:
                await self._keep(trace, record, group)
        if self.made == 0 and self.call_errors:
            raise self.call_errors[-1]

    async def _calls(self, group: asyncio.TaskGroup) -> AsyncGenerator[CallRecord, None]:
        """Each model call's record as it ends: one call with `n=K`, or K calls."""
        k = self.plan.samples
        if self.runner.config.one_request and k > 1:
            record, error = await self._call(self.plan.request(k))
            yield record
            if not isinstance(error, LLMBadRequest):
                if error is not None:
                    self.call_errors.append(error)
                return
            # Some endpoints refuse `n`: K requests of one sample each ask the same.
        calls = [group.create_task(self._call(self.plan.request(1))) for _ in range(k)]
        for next_done in asyncio.as_completed(calls):
            record, error = await next_done
            if error is not None:
                self.call_errors.append(error)
            yield record

    async def _call(self, request: ChatRequest) -> tuple[CallRecord, LLMError | None]:
        return await self.runner.llm.call(request)

    async def _keep(self, trace: Trace, record: CallRecord, group: asyncio.TaskGroup) -> None:
        """Store a call's samples and their candidates; start verifying each."""
        for step_id, reply in await trace.llm_choices(record, GENERATE, parent=None):
            if reply is None:
                continue
            extracted = extract_code(reply)
            language = kit(self.plan.target).language(self.plan.task.language)
            candidate_id = await trace.candidate(
                CandidateCreate(
                    target=self.plan.target.value,
                    language=language,
                    source=extracted.code,
                    strategy="prompt",
                    step_id=step_id,
                )
            )
            self.made += 1
            arguments = verify_arguments(
                candidate_id, self.plan.spec, self.plan.target, extracted.how
            )
            group.create_task(self._verify(trace, candidate_id, step_id, extracted.code, arguments))

    async def _verify(
        self, trace: Trace, candidate_id: int, step_id: int, code: str, arguments: dict[str, Any]
    ) -> None:
        async with trace.step(StepKind.TOOL_CALL, VERIFY, arguments, parent=step_id) as step:
            if not code.strip():
                verdict = Verdict(
                    target=self.plan.target,
                    status=Status.BUILD_FAILED,
                    reason=NO_CODE,
                    build=BuildReport(ok=False),
                )
            else:
                candidate = Candidate(target=self.plan.target, source=code)
                try:
                    verdict = await self.runner.judge(self.plan.spec, candidate)
                except SandboxError as exc:
                    step.error = str(exc)  # the sandbox's failure, not the candidate's
                    raise
            step.result = verdict_summary(verdict)
        await trace.verdict(candidate_id, verdict)
        self.tally.add(candidate_id, verdict)

    def finished(self) -> RunOutcome:
        """Every sample verified: SUCCEEDED if one passed, else NO_VERIFIED_CANDIDATE."""
        summary = self.tally.reason(self.made)
        if self.call_errors:
            last = self.call_errors[-1]
            summary += (
                f"; {len(self.call_errors)} of {self.plan.samples} model calls failed"
                f" ({type(last).__name__}: {last})"
            )
        best = self.tally.best()
        return RunOutcome(_status(best), summary, best)

    def out_of_time(self, why: str) -> RunOutcome:
        """The time budget ran out: a candidate that passed before is still the answer."""
        best = self.tally.best()
        return RunOutcome(_status(best), f"{why}; {self._progress()}", best)

    def failed(self, why: str) -> RunOutcome:
        """The model or the sandbox broke: FAILED, with what was done before."""
        reason = f"{why}; {self._progress()}" if self.made else why
        return RunOutcome(JobStatus.FAILED, reason, self.tally.best())

    def _progress(self) -> str:
        if not self.made:
            return "no candidate was made"
        summary = self.tally.reason(self.made)
        unverified = self.made - len(self.tally.verdicts)
        return summary + (f"; {unverified} not verified" if unverified else "")


def _status(best: int | None) -> JobStatus:
    """How a run that was not broken ends: with the best passed candidate, or without one."""
    return JobStatus.SUCCEEDED if best is not None else JobStatus.NO_VERIFIED_CANDIDATE
