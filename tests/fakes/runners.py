"""A scripted task runner (the fake that stands in for the LLM agents) and the verdicts it
stores."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from corpus.runner import RunOutcome, TaskContext
from corpus.store.models import CandidateCreate, JobStatus, RunMeta, StepCreate, StepKind

PASSED_VERDICT: dict[str, Any] = {
    "target": "openmp",
    "status": "passed",
    "reason": "",
    "timing": {
        "reference_s": 1.0,
        "candidate_s": {"1": 1.0, "4": 0.4},
        "speedup": {"1": 1.0, "4": 2.5},
    },
    "steps": [{"name": "build", "command": "clang ...", "exit_code": 0, "duration_s": 0.2}],
    "duration_s": 1.5,
}
FAILED_VERDICT: dict[str, Any] = {
    "target": "openmp",
    "status": "race",
    "reason": "data race on sum",
    "steps": [{"name": "race", "command": "./a.out", "exit_code": 66, "duration_s": 0.3}],
    "duration_s": 0.9,
}

VERIFY_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "verify",
        "description": "Build, test, race-check and time a candidate.",
        "parameters": {
            "type": "object",
            "properties": {"source": {"type": "string"}},
            "required": ["source"],
        },
    },
}


class ScriptedRunner:
    """Plays a fixed trajectory: per sample an LLM call, a `verify` tool call, a candidate and a
    verdict (the first `passes` samples pass, the rest race). Optional delay between steps and
    failure."""

    name = "scripted"

    def __init__(
        self,
        samples: int = 2,
        delay_s: float = 0.0,
        fail: str | None = None,
        model: str = "scripted-model",
        passes: int = 1,
    ) -> None:
        self.samples = samples
        self.delay_s = delay_s
        self.fail = fail
        self.model = model
        self.passes = passes
        self.contexts: list[TaskContext] = []

    async def run(self, context: TaskContext) -> RunOutcome:
        self.contexts.append(context)
        rec, task = context.recorder, context.task
        await rec.set_run(RunMeta(model=self.model, budgets={"samples": self.samples}))
        messages = [
            {"role": "system", "content": f"Translate C++ to {task.target}."},
            {"role": "user", "content": task.source},
        ]
        passed = 0
        for i in range(self.samples):
            code = f"// sample {i} of attempt {context.attempt}\n#pragma omp parallel for\n{task.source}"
            call_id = f"call_{i}"
            llm = await rec.add_step(
                StepCreate(
                    kind=StepKind.LLM_CALL,
                    name="generate",
                    model=self.model,
                    messages=messages,
                    response={
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": call_id,
                                "type": "function",
                                "function": {
                                    "name": "verify",
                                    "arguments": json.dumps({"source": code}),
                                },
                            }
                        ],
                    },
                    tools=[VERIFY_TOOL],
                    sampling={"temperature": 0.8, "n": 1},
                    prompt_tokens=40,
                    completion_tokens=30,
                    cached_tokens=16,
                    ttft_s=0.01,
                    latency_s=0.05,
                )
            )
            await asyncio.sleep(self.delay_s)
            verdict = PASSED_VERDICT if i < self.passes else FAILED_VERDICT
            await rec.add_step(
                StepCreate(
                    kind=StepKind.TOOL_CALL,
                    name="verify",
                    parent_id=llm,
                    tool_name="verify",
                    tool_call_id=call_id,
                    arguments={"source": code},
                    result={"status": verdict["status"], "reason": verdict["reason"]},
                    latency_s=1.5,
                )
            )
            candidate = await rec.add_candidate(
                CandidateCreate(target=task.target, source=code, strategy="prompt", step_id=llm)
            )
            await rec.add_verdict(candidate, verdict)
            passed += verdict["status"] == "passed"
            if self.fail is not None:
                raise RuntimeError(self.fail)
            await asyncio.sleep(self.delay_s)
        status = JobStatus.SUCCEEDED if passed else JobStatus.NO_VERIFIED_CANDIDATE
        return RunOutcome(status=status, reason=f"{passed} of {self.samples} passed")


def build_scripted_runner(settings: Any) -> ScriptedRunner:
    """Factory for `PARFORGE_SERVER__RUNNER=tests.fakes.runners:build_scripted_runner`,
    configured by `PARFORGE_SERVER__RUNNER_OPTIONS` (used by the tests that start a real server
    process)."""
    return ScriptedRunner(**settings.server.runner_options)
