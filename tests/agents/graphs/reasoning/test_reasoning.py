"""The reasoning-threads subgraph inside the translate graph, on the scripted model and a
scripted verifier, under the real worker pool and store."""

from __future__ import annotations

import json
import re
from collections import deque

import httpx2
from sqlmodel import Session, col, select

from agents.reasoning import reasoning_summary
from agents.targets import kit
from corpus.store import tasks
from corpus.store.models import (
    CandidateRow,
    JobStatus,
    TaskCreate,
    TaskOptions,
    TestInput,
    VerdictRow,
)
from sandbox.spec import Target
from sandbox.verdict import Status
from tests.fakes.graphs import (
    DIFFERENT_TEXT,
    SOURCE,
    WITH_REDUCTION,
    RoutedLLM,
    passes_with_reduction,
    run_one,
    runner,
    stored,
    verdict,
)
from tests.fakes.judge import ScriptedJudge
from tests.fakes.llm import Reply

OMP = list(kit(Target.OPENMP).strategies)
THREAD_TOKENS = 1000

# The same program under other names: a thread writing it has converged on the first one.
RENAMED = re.sub(r"\bsum\b", "total", re.sub(r"\ba\b", "xs", WITH_REDUCTION))


class Threads(RoutedLLM):
    """RoutedLLM plus outlines (by schema name) and threads (by the strategy they follow)."""

    def __init__(self, outlines: list[dict[str, str]], code: dict[str, Reply]) -> None:
        super().__init__()
        self.outlines = Reply(texts=[json.dumps({"outlines": outlines})])
        self.code_by_strategy = code
        self.thread_requests: deque[str] = deque()
        self.thread_prompts: list[str] = []

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        if not request.url.path.endswith("/models"):
            body = json.loads(request.content)
            schema = (body.get("response_format") or {}).get("json_schema", {}).get("name")
            last = body["messages"][-1]["content"]
            if schema == "outlines":
                self.replies.appendleft(self.outlines)
                return await super(RoutedLLM, self).handle(request)
            for strategy, reply in self.code_by_strategy.items():
                thread = body["max_tokens"] == THREAD_TOKENS  # the plan's rewrites ask more
                if thread and f"Strategy to follow: {strategy}" in last:
                    self.thread_requests.append(strategy)
                    self.thread_prompts.append(last)
                    self.replies.appendleft(reply)
                    return await super(RoutedLLM, self).handle(request)
        return await super().handle(request)


def fenced(code: str) -> str:
    return f"```c\n{code}```\n"


def submit_with_threads(engine, k: int) -> str:
    create = TaskCreate(
        name="sum",
        language="c",
        target="openmp",
        source=SOURCE,
        tests=[TestInput(name="small", args=["100"]), TestInput(name="big", args=["100000"])],
        options=TaskOptions(reasoning_threads=k),
    )
    with Session(engine) as s:
        return tasks.submit(s, create).id


async def test_threads_run_beside_the_plan_pruned_merged_and_joined(engine, llm_config):
    fake = Threads(
        outlines=[
            {"strategy": OMP[0], "detail": "outer loop with a reduction on sum"},
            {"strategy": OMP[0], "detail": "a reduction on sum over the outer loop"},
            {"strategy": OMP[2], "detail": "per-thread copies"},
        ],
        code={
            OMP[0]: Reply(texts=[fenced(WITH_REDUCTION)], chunk_delay_s=0.002),
            OMP[2]: Reply(texts=[fenced(RENAMED)], chunk_delay_s=0.02),
            OMP[1]: Reply(texts=[fenced(DIFFERENT_TEXT)], chunk_delay_s=0.002),
        },
    )
    verifier = ScriptedJudge(passes_with_reduction)
    task_id = submit_with_threads(engine, 3)
    graph = runner(fake, llm_config, verifier, planner=False, thread_tokens=THREAD_TOKENS)
    task = await run_one(engine, graph, task_id)

    assert task.status == JobStatus.SUCCEEDED, task.reason
    steps, cands = stored(engine, task_id)
    outline = next(s for s in steps if s.name == "outline")
    threads = [s for s in steps if s.name == "thread"]
    # Two outlines said the same thing: merged; the catalogue filled the place (OMP[1]).
    assert sorted(fake.thread_requests) == sorted([OMP[0], OMP[2], OMP[1]])
    # One shared prefix (program, tests, the analysis's loop facts); only the outline differs.
    prefixes = {p.split("Strategy to follow:")[0] for p in fake.thread_prompts}
    assert len(prefixes) == 1
    assert "dependence analysis" in prefixes.pop() and "reduction(+:sum)" in fake.thread_prompts[0]
    assert len(threads) == 3 and all(t.parent_id == outline.id for t in threads)
    by_strategy = {t.result["outline"]["strategy"]: t for t in threads}
    assert by_strategy[OMP[2]].result["status"] == "pruned"  # it converged on OMP[0]'s program
    assert "converged on thread 0" in by_strategy[OMP[2]].result["reason"]
    assert by_strategy[OMP[2]].response["content"]  # what it wrote before it was pruned
    assert by_strategy[OMP[2]].result["tokens_saved"] > 0  # what it would still have written
    assert by_strategy[OMP[0]].result["status"] == by_strategy[OMP[1]].result["status"]
    assert by_strategy[OMP[0]].result["status"] == "finished"

    # Both finished threads became candidates below their thread; the behaviour fingerprint
    # found them alike, so only the first was verified.
    first = next(c for c in cands if c.step_id == by_strategy[OMP[0]].id)
    second = next(c for c in cands if c.step_id == by_strategy[OMP[1]].id)
    assert first.strategy == f"thread:{OMP[0]}" and second.strategy == f"thread:{OMP[1]}"
    assert {first.source, second.source} == {WITH_REDUCTION, DIFFERENT_TEXT}
    fingerprint = next(s for s in steps if s.name == "fingerprint")
    assert fingerprint.parent_id == outline.id
    assert fingerprint.result["merged"] == {str(second.id): first.id}
    assert set(verifier.probes) >= {WITH_REDUCTION, DIFFERENT_TEXT}
    verified = _verified(engine, task_id)
    assert first.id in verified and second.id not in verified
    verify_steps = [s for s in steps if s.name == "verify" and s.parent_id == first.step_id]
    assert verify_steps and not any(s.arguments.get("probe") for s in verify_steps)

    summary = reasoning_summary(
        [(t.result, t.completion_tokens or 0, t.sampling or {}) for t in threads]
    )
    assert summary is not None
    assert (summary["threads"], summary["pruned"]) == (3, 1)
    assert summary["tokens_generated"] > 0 and summary["tokens_saved"] > 0


async def test_when_no_candidate_passes_the_threads_pruned_as_converged_run_again(
    engine, llm_config
):
    # The thread ahead writes a program that fails; the two behind write what converges on it
    # (the same shape: only names differ) and are pruned. Only the last passes, and nothing
    # else does: without running the pruned threads again, one by one, the task fails.
    fake = Threads(
        outlines=[
            {"strategy": OMP[0], "detail": "outer loop with a reduction"},
            {"strategy": OMP[1], "detail": "a reduction, dynamic"},
            {"strategy": OMP[2], "detail": "per-thread copies"},
        ],
        code={
            OMP[0]: Reply(texts=[fenced(WITH_REDUCTION)], chunk_delay_s=0.002),
            OMP[1]: Reply(texts=[fenced(RENAMED.replace("total", "acc"))], chunk_delay_s=0.02),
            OMP[2]: Reply(texts=[fenced(RENAMED)], chunk_delay_s=0.02),
        },
    )
    verifier = ScriptedJudge(
        lambda source: verdict(Status.PASSED if "total" in source else Status.WRONG_ANSWER)
    )
    task_id = submit_with_threads(engine, 3)
    graph = runner(fake, llm_config, verifier, planner=False, thread_tokens=THREAD_TOKENS)
    task = await run_one(engine, graph, task_id)

    assert task.status == JobStatus.SUCCEEDED, task.reason
    steps, cands = stored(engine, task_id)
    threads = [s for s in steps if s.name == "thread"]
    statuses = [(t.result["outline"]["strategy"], t.result["status"]) for t in threads]
    assert statuses == [
        (OMP[0], "finished"),
        (OMP[1], "pruned"),
        (OMP[2], "pruned"),
        (OMP[1], "finished"),  # run again: it fails too
        (OMP[2], "finished"),  # run again: it passes
    ]
    assert [t.result["revived"] for t in threads] == [False, False, False, True, True]
    assert fake.thread_requests.count(OMP[1]) == fake.thread_requests.count(OMP[2]) == 2
    passed = next(c for c in cands if c.step_id == threads[4].id)
    assert passed.source == RENAMED and passed.id in _verified(engine, task_id)


async def test_threads_do_not_run_again_when_a_candidate_passed(engine, llm_config):
    fake = Threads(
        outlines=[
            {"strategy": OMP[0], "detail": "outer loop with a reduction"},
            {"strategy": OMP[2], "detail": "per-thread copies"},
        ],
        code={
            OMP[0]: Reply(texts=[fenced(WITH_REDUCTION)], chunk_delay_s=0.002),
            OMP[2]: Reply(texts=[fenced(RENAMED)], chunk_delay_s=0.02),
        },
    )
    task_id = submit_with_threads(engine, 2)
    graph = runner(
        fake,
        llm_config,
        ScriptedJudge(passes_with_reduction),
        planner=False,
        thread_tokens=THREAD_TOKENS,
    )
    task = await run_one(engine, graph, task_id)
    assert task.status == JobStatus.SUCCEEDED, task.reason
    assert fake.thread_requests.count(OMP[2]) == 1


async def test_a_failing_probe_is_the_verdict_and_no_full_verification_runs(engine, llm_config):
    fake = Threads(
        outlines=[{"strategy": OMP[0], "detail": "outer loop"}],
        code={
            OMP[0]: Reply(texts=[fenced(SOURCE.replace("sum +=", "sum -="))]),
            OMP[1]: Reply(texts=[fenced(WITH_REDUCTION)]),
        },
    )
    # The plan branch's annotation is judged by the real rule; both thread candidates fail.
    verifier = ScriptedJudge(passes_with_reduction)
    task_id = submit_with_threads(engine, 2)
    task = await run_one(
        engine,
        runner(fake, llm_config, verifier, planner=False, thread_tokens=THREAD_TOKENS),
        task_id,
    )
    assert task.status == JobStatus.SUCCEEDED, task.reason
    steps, cands = stored(engine, task_id)
    serial = next(c for c in cands if c.strategy == f"thread:{OMP[0]}")
    # Its probe said not_parallel: stored as its verdict, and never verified in full.
    assert verifier.sources.count(serial.source) == 0
    assert serial.id in _verified(engine, task_id)
    probe = next(
        s for s in steps if s.name == "verify" and s.arguments.get("candidate_id") == serial.id
    )
    assert probe.arguments["probe"] is True and probe.result["status"] == "not_parallel"


async def test_no_threads_without_the_option(engine, llm_config):
    fake = Threads(outlines=[], code={})
    task_id = submit_with_threads(engine, 0)
    task = await run_one(
        engine,
        runner(
            fake,
            llm_config,
            ScriptedJudge(passes_with_reduction),
            planner=False,
            thread_tokens=THREAD_TOKENS,
        ),
        task_id,
    )
    assert task.status == JobStatus.SUCCEEDED
    steps, _ = stored(engine, task_id)
    assert not [s for s in steps if s.name in ("outline", "thread", "fingerprint")]


def _verified(engine, task_id: str) -> set[int]:
    with Session(engine) as s:
        rows = s.exec(
            select(VerdictRow.candidate_id)
            .join(CandidateRow, col(CandidateRow.id) == col(VerdictRow.candidate_id))
            .where(CandidateRow.task_id == task_id)
        ).all()
    return set(rows)
