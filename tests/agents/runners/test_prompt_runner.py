"""The prompt-mode runner's logic: the scripted LLM server and a scripted verifier (or the
scripted sandbox) under the real worker pool and store."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from agents.llm import LLMClient, LLMConfig
from agents.runners import PromptModeConfig, PromptRunner, SandboxJudge
from agents.runners.prompt_mode import NO_CODE
from corpus.export import ExportFilter, ExportFormat, export_lines, schema_for
from corpus.store import tasks
from corpus.store.models import (
    Budgets,
    CandidateRow,
    JobStatus,
    RunRow,
    StepRow,
    TaskCreate,
    TaskRow,
    TestInput,
    VerdictRow,
)
from parforge.service.pool import CANCEL, WorkerPool
from sandbox.errors import SandboxUnavailable
from sandbox.models import Command, CommandResult
from sandbox.spec import Target
from sandbox.verdict import Status, Timing
from sandbox.verdict import Verdict as SandboxVerdict
from sandbox.verify.verifier import LocalVerifier
from tests.fakes.judge import ScriptedJudge
from tests.fakes.llm import FAKE_ADAPTER, FAKE_MODEL, FakeLLMServer, Reply
from tests.fakes.pool import ONE_WORKER
from tests.fakes.sandbox import ScriptedSandbox

SOURCE = '#include <stdio.h>\nint main(void) { long s = 0; for (int i = 0; i < 9; i++) s += i; printf("%ld\\n", s); }\n'


def reply(tag: str) -> str:
    """A model reply whose program carries `tag`, so the scripted verifier can tell them apart."""
    return (
        f"Here it is:\n```c\n// {tag}\n#pragma omp parallel for\nint main(void) {{ }}\n```\nDone."
    )


def verdict(status: Status, speedup: dict[int, float] | None = None) -> SandboxVerdict:
    timing = Timing(reference_s=1.0, speedup=speedup) if speedup else None
    return SandboxVerdict(target=Target.OPENMP, status=status, reason=status.value, timing=timing)


JUDGE: dict[str, SandboxVerdict] = {
    "fast": verdict(Status.PASSED, {1: 1.0, 2: 1.8, 4: 1.6}),
    "slow": verdict(Status.PASSED, {1: 1.0, 2: 1.2, 4: 1.1}),
    "wrong": verdict(Status.WRONG_ANSWER),
    "broken": verdict(Status.BUILD_FAILED),
}


def judge(source: str) -> SandboxVerdict:
    tag = source.split("// ", 1)[1].split("\n", 1)[0]
    return JUDGE[tag]


def runner_for(
    fake: FakeLLMServer,
    config: LLMConfig,
    verifier: Any = None,
    **prompt: Any,
) -> PromptRunner:
    llm = LLMClient(config, transport=fake.transport())
    return PromptRunner(llm, verifier or ScriptedJudge(judge), PromptModeConfig(**prompt))


def submit(engine: Engine, samples: int = 3, **extra: Any) -> str:
    budgets = Budgets(samples=samples, **extra)
    create = TaskCreate(
        name="sum",
        language="c",
        target="openmp",
        source=SOURCE,
        tests=[TestInput(name="small", args=["9"])],
        budgets=budgets,
    )
    with Session(engine) as s:
        return tasks.submit(s, create).id


async def run_one(engine: Engine, runner: PromptRunner, task_id: str) -> TaskRow:
    assert await WorkerPool(engine, runner, ONE_WORKER).run_task(task_id)
    with Session(engine) as s:
        task = tasks.get(s, task_id)
        assert task is not None
        return task


def stored(
    engine: Engine, task_id: str
) -> tuple[list[StepRow], list[CandidateRow], list[VerdictRow]]:
    with Session(engine) as s:
        steps = s.exec(
            select(StepRow).where(StepRow.task_id == task_id).order_by(col(StepRow.seq))
        ).all()
        cands = s.exec(
            select(CandidateRow)
            .where(CandidateRow.task_id == task_id)
            .order_by(col(CandidateRow.id))
        ).all()
        verdicts = s.exec(select(VerdictRow).where(VerdictRow.task_id == task_id)).all()
    return list(steps), list(cands), list(verdicts)


async def test_k_samples_in_one_request_every_step_stored_and_the_fastest_kept(
    engine, fake_llm, llm_config
):
    fake_llm.script(Reply(texts=[reply("slow"), reply("wrong"), reply("fast")]))
    runner = runner_for(fake_llm, llm_config, temperature=0.5)
    task_id = submit(engine, samples=3)
    task = await run_one(engine, runner, task_id)

    [request] = fake_llm.requests
    assert request["n"] == 3 and request["temperature"] == 0.5
    assert request["messages"][0]["role"] == "system"
    assert SOURCE.rstrip() in request["messages"][1]["content"]

    steps, cands, verdicts = stored(engine, task_id)
    assert [s.seq for s in steps] == list(range(1, 7))
    llm = [s for s in steps if s.kind == "llm_call"]
    tools = [s for s in steps if s.kind == "tool_call"]
    assert len(llm) == len(tools) == 3
    seq = {s.id: s.seq for s in steps}
    assert all(seq[t.parent_id] < t.seq for t in tools)  # verified after it was written
    assert all(s.messages == request["messages"] for s in llm)
    assert [s.response["content"] for s in llm] == [reply(t) for t in ("slow", "wrong", "fast")]
    assert [s.completion_tokens is not None for s in llm] == [True, False, False]
    assert all(s.model == FAKE_MODEL and s.latency_s and s.ttft_s for s in llm)
    assert [c.step_id for c in cands] == [s.id for s in llm]
    assert all(c.source.startswith("// ") and c.strategy == "prompt" for c in cands)
    assert {t.parent_id for t in tools} == {s.id for s in llm}
    assert all(t.tool_name == "verify" and t.arguments and t.result for t in tools)
    by_candidate = {t.arguments["candidate_id"]: t.result["status"] for t in tools}
    assert by_candidate == {
        cands[0].id: "passed",
        cands[1].id: "wrong_answer",
        cands[2].id: "passed",
    }
    assert sorted(v.candidate_id for v in verdicts) == [c.id for c in cands]

    assert task.status == JobStatus.SUCCEEDED
    assert task.reason == "2 of 3 candidates passed; best 1.80x at 2 threads"
    assert task.best_candidate_id == cands[2].id and task.best_speedup == 1.8
    with Session(engine) as s:
        [run] = s.exec(select(RunRow).where(RunRow.task_id == task_id)).all()
    assert run.runner == "prompt" and run.model == FAKE_MODEL and run.adapter is None
    assert run.budgets["samples"] == 3 and run.budgets["temperature"] == 0.5

    # The samples of one prompt pair up for preference training.
    pairs = [json.loads(line) for line in export_lines(engine, ExportFormat.DPO, ExportFilter())]
    assert len(pairs) == 2
    for pair in pairs:
        jsonschema.validate(pair, schema_for(ExportFormat.DPO))
        assert "// fast" in pair["chosen"][0]["content"]
        assert "// fast" not in pair["rejected"][0]["content"]


async def test_an_adapter_is_stored_as_adapter_of_its_base_model(engine, fake_llm, llm_config):
    config = llm_config.model_copy(update={"model": FAKE_ADAPTER})
    fake_llm.script(Reply(texts=[reply("slow")]))
    task_id = submit(engine, samples=1)
    task = await run_one(engine, runner_for(fake_llm, config), task_id)
    assert task.status == JobStatus.SUCCEEDED
    steps, _, _ = stored(engine, task_id)
    assert (steps[0].model, steps[0].adapter) == (FAKE_MODEL, FAKE_ADAPTER)
    assert fake_llm.requests[0]["model"] == FAKE_ADAPTER and fake_llm.requests[0]["n"] == 1


async def test_no_candidate_passing_is_a_result_not_a_failure(engine, fake_llm, llm_config):
    fake_llm.script(Reply(texts=[reply("broken"), reply("wrong"), reply("broken")]))
    task_id = submit(engine, samples=3)
    task = await run_one(engine, runner_for(fake_llm, llm_config), task_id)
    assert task.status == JobStatus.NO_VERIFIED_CANDIDATE
    assert task.reason == "0 of 3 candidates passed (2 build_failed, 1 wrong_answer)"
    assert task.best_candidate_id is None


async def test_a_reply_without_code_is_a_candidate_that_fails_to_build(
    engine, fake_llm, llm_config
):
    fake_llm.script(Reply(texts=["", reply("slow")]))
    verifier = ScriptedJudge(judge)
    task_id = submit(engine, samples=2)
    task = await run_one(engine, runner_for(fake_llm, llm_config, verifier), task_id)
    assert len(verifier.sources) == 1  # nothing to send to the sandbox for the empty reply
    steps, cands, verdicts = stored(engine, task_id)
    assert cands[0].source == ""
    empty = next(v for v in verdicts if v.candidate_id == cands[0].id)
    assert (empty.status, empty.reason) == ("build_failed", NO_CODE)
    tool = next(s for s in steps if s.kind == "tool_call" and s.parent_id == cands[0].step_id)
    assert tool.result["status"] == "build_failed" and tool.arguments["extracted"] == "empty reply"
    assert task.reason == "1 of 2 candidates passed; best 1.20x at 2 threads"


async def test_k_requests_when_one_request_is_off(engine, fake_llm, llm_config):
    fake_llm.script(*(Reply(texts=[reply(t)]) for t in ("wrong", "fast", "slow")))
    task_id = submit(engine, samples=3)
    task = await run_one(engine, runner_for(fake_llm, llm_config, one_request=False), task_id)
    assert [r["n"] for r in fake_llm.requests] == [1, 1, 1]
    steps, cands, _ = stored(engine, task_id)
    assert [s.kind for s in steps].count("llm_call") == 3 and len(cands) == 3
    assert all(s.completion_tokens is not None for s in steps if s.kind == "llm_call")
    assert task.reason == "2 of 3 candidates passed; best 1.80x at 2 threads"


async def test_a_server_that_refuses_n_gets_k_requests(engine, fake_llm, llm_config):
    fake_llm.script(
        Reply(status=400, error="n > 1 is not supported"),
        *(Reply(texts=[reply(t)]) for t in ("wrong", "slow")),
    )
    task_id = submit(engine, samples=2)
    task = await run_one(engine, runner_for(fake_llm, llm_config), task_id)
    assert [r["n"] for r in fake_llm.requests] == [2, 1, 1]
    steps, cands, _ = stored(engine, task_id)
    refused = steps[0]
    assert refused.response is None and "n > 1 is not supported" in (refused.error or "")
    assert len(cands) == 2
    assert task.status == JobStatus.SUCCEEDED
    assert task.reason == "1 of 2 candidates passed; best 1.20x at 2 threads"


async def test_some_failed_calls_are_said_in_the_reason(engine, fake_llm, llm_config):
    fake_llm.script(Reply(texts=[reply("fast")]), Reply(status=400, error="prompt too long"))
    task_id = submit(engine, samples=2)
    task = await run_one(engine, runner_for(fake_llm, llm_config, one_request=False), task_id)
    assert task.status == JobStatus.SUCCEEDED
    assert task.reason.startswith("1 of 1 candidate passed; best 1.80x at 2 threads; ")
    assert "1 of 2 model calls failed (LLMBadRequest: prompt too long)" in task.reason


async def test_an_unreachable_model_fails_the_task_with_the_reason(engine, fake_llm):
    config = LLMConfig(url="http://127.0.0.1:9/v1", model=FAKE_MODEL, max_retries=0)
    runner = PromptRunner(LLMClient(config), ScriptedJudge(judge))
    task_id = submit(engine, samples=2)
    task = await run_one(engine, runner, task_id)
    assert task.status == JobStatus.FAILED
    assert task.reason.startswith("model unreachable: cannot reach http://127.0.0.1:9/v1")
    await runner.aclose()


async def test_a_generation_that_cannot_connect_is_stored_and_fails_the_task(
    engine, fake_llm, llm_config
):
    fake_llm.script(*[Reply(connect_error=True)] * (llm_config.max_retries + 1))
    task_id = submit(engine, samples=2)
    task = await run_one(engine, runner_for(fake_llm, llm_config), task_id)
    assert task.status == JobStatus.FAILED
    assert task.reason.startswith("model unreachable: cannot reach http://fake.invalid/v1")
    steps, cands, _ = stored(engine, task_id)
    [step] = steps
    assert step.kind == "llm_call" and step.error and step.response is None and not cands


async def test_an_unavailable_sandbox_fails_the_task_and_keeps_the_candidates(
    engine, fake_llm, llm_config
):
    fake_llm.script(Reply(texts=[reply("fast"), reply("slow")]))
    verifier = ScriptedJudge(judge, error=SandboxUnavailable("docker: engine not running"))
    task_id = submit(engine, samples=2)
    task = await run_one(engine, runner_for(fake_llm, llm_config, verifier), task_id)
    assert task.status == JobStatus.FAILED
    assert task.reason.startswith("sandbox unavailable: docker: engine not running; ")
    assert task.reason.endswith("not verified")
    steps, cands, verdicts = stored(engine, task_id)
    assert len(cands) == 2 and not verdicts
    failed = [s for s in steps if s.kind == "tool_call"]
    assert failed and all(s.error == "docker: engine not running" for s in failed)


async def _run_and_cancel(
    engine: Engine, runner: PromptRunner, task_id: str, ready: Callable[[], bool]
) -> TaskRow:
    pool = WorkerPool(engine, runner, ONE_WORKER)
    await pool.start()
    try:
        for _ in range(1000):
            if ready():
                break
            await asyncio.sleep(0.01)
        assert ready()
        with Session(engine) as s:
            assert tasks.request_cancel(s, task_id) == tasks.CancelOutcome.REQUESTED
        pool.notifier.notify(CANCEL)
        async with asyncio.timeout(10):
            while True:
                with Session(engine) as s:
                    task = tasks.get(s, task_id)
                    assert task is not None
                    if task.status == JobStatus.CANCELLED:
                        return task
                await asyncio.sleep(0.02)
    finally:
        await pool.stop()


async def test_cancelling_aborts_the_model_call_in_flight(engine, fake_llm, llm_config):
    fake_llm.script(Reply(texts=[reply("fast") + " and more words"] * 2, stall_after=2))
    task_id = submit(engine, samples=2)
    runner = runner_for(fake_llm, llm_config)
    task = await _run_and_cancel(
        engine, runner, task_id, lambda: bool(fake_llm.streams) and fake_llm.streams[0].sent > 2
    )
    assert task.reason == "cancelled on request"
    assert fake_llm.streams[0].aborted  # the connection closed: vLLM stops generating


async def test_cancelling_aborts_the_verifications_in_flight(engine, fake_llm, llm_config):
    fake_llm.script(Reply(texts=[reply("fast"), reply("slow")]))
    verifier = ScriptedJudge(judge, gate=asyncio.Event())
    task_id = submit(engine, samples=2)
    task = await _run_and_cancel(
        engine,
        runner_for(fake_llm, llm_config, verifier),
        task_id,
        lambda: len(verifier.sources) == 2,
    )
    assert task.status == JobStatus.CANCELLED and verifier.cancelled == 2
    _, cands, verdicts = stored(engine, task_id)
    assert len(cands) == 2 and not verdicts


async def test_the_time_budget_ends_the_run_with_what_was_verified(engine, fake_llm, llm_config):
    gate = asyncio.Event()  # never set: the `slow` candidate's verification never ends

    class HalfGated(ScriptedJudge):
        async def __call__(self, spec: Any, candidate: Any) -> Any:
            if "slow" in candidate.source:
                await gate.wait()
            return judge(candidate.source)

    fake_llm.script(Reply(texts=[reply("fast"), reply("slow")]))
    # Long enough for the model call and the fast verdict on a host busy with other tests.
    task_id = submit(engine, samples=2, time_s=4.0)
    task = await run_one(engine, runner_for(fake_llm, llm_config, HalfGated(judge)), task_id)
    assert task.status == JobStatus.SUCCEEDED, task.reason  # a passed candidate is the answer
    assert task.reason == (
        "time budget of 4s ran out; 1 of 2 candidates passed; best 1.80x at 2 threads; "
        "1 not verified"
    )
    fake_llm.script(Reply(texts=[reply("slow")]))
    task_id = submit(engine, samples=1, time_s=0.5)
    task = await run_one(engine, runner_for(fake_llm, llm_config, HalfGated(judge)), task_id)
    assert task.status == JobStatus.NO_VERIFIED_CANDIDATE  # out of time is not a breakdown
    assert task.reason == "time budget of 0.5s ran out; 0 of 1 candidate passed; 1 not verified"


async def test_max_tokens_comes_from_the_task_or_the_settings(engine, fake_llm, llm_config):
    fake_llm.script(Reply(texts=[reply("fast")]), Reply(texts=[reply("fast")]))
    runner = runner_for(fake_llm, llm_config, max_tokens=777)
    await run_one(engine, runner, submit(engine, samples=1, max_tokens=99))
    await run_one(engine, runner, submit(engine, samples=1))
    assert [r["max_tokens"] for r in fake_llm.requests] == [99, 777]


@pytest.mark.parametrize("gcc_fails", [True, False])
async def test_through_verify_on_the_scripted_sandbox(engine, fake_llm, llm_config, gcc_fails):
    """The real `verify` pipeline on a sandbox that answers from a script (no Docker)."""

    def handler(command: Command) -> CommandResult:
        tool = command.argv[0]
        compiler = tool in ("gcc", "mpicc", "clang")
        if compiler and command.cwd == "cand" and gcc_fails:
            return CommandResult(
                exit_code=1, stderr="main.c:3:5: error: expected ';' before '}' token\n"
            )
        if compiler or tool == "nm":
            return CommandResult(exit_code=0)
        return CommandResult(exit_code=0, stdout="36\n" if command.cwd == "ref" else "35\n")

    llm = LLMClient(llm_config, transport=fake_llm.transport())
    sandbox = ScriptedSandbox(handler)
    runner = PromptRunner(
        llm, SandboxJudge(LocalVerifier(sandbox)), PromptModeConfig(threads=[1, 2])
    )
    fake_llm.script(Reply(texts=[reply("x"), reply("y")]))
    task_id = submit(engine, samples=2)
    task = await run_one(engine, runner, task_id)
    _, _, verdicts = stored(engine, task_id)
    if gcc_fails:
        assert task.reason == "0 of 2 candidates passed (2 build_failed)"
        assert all("expected ';' before '}' token" in v.reason for v in verdicts)
    else:
        assert task.reason == "0 of 2 candidates passed (2 wrong_answer)"
    await runner.aclose()
