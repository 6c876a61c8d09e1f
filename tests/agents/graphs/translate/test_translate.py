"""The translate graph's logic under the real worker pool and store, with the scripted LLM
server (answers routed by what each call asks for) and a scripted verifier."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from agents.graphs.shared.config import GraphConfig
from agents.llm import LLMClient
from agents.runners import GraphRunner
from corpus.store import tasks
from corpus.store.models import JobStatus, TaskCreate, TaskOptions, TestInput
from parforge.service.checkpoints import checkpoints_for
from parforge.service.pool import WorkerPool
from sandbox.verdict import Status, Verdict
from tests.fakes.graphs import (
    SOURCE,
    RoutedLLM,
    analysis_fails,
    claimed,
    passes_with_reduction,
    run_one,
    runner,
    stored,
    verdict,
)
from tests.fakes.judge import ScriptedJudge
from tests.fakes.llm import Reply
from tests.fakes.pool import ONE_WORKER


def submit(
    engine: Engine, source: str = SOURCE, tests: bool = True, options: dict | None = None
) -> str:
    create = TaskCreate(
        name="sum",
        language="c",
        target="openmp",
        source=source,
        tests=[TestInput(name="small", args=["100"]), TestInput(name="big", args=["100000"])]
        if tests
        else None,
        options=options,
    )
    with Session(engine) as s:
        return tasks.submit(s, create).id


async def test_default_plan_makes_a_verified_candidate_from_the_analysis(engine, llm_config):
    fake = RoutedLLM()
    verifier = ScriptedJudge(passes_with_reduction)
    task_id = submit(engine)
    task = await run_one(engine, runner(fake, llm_config, verifier, planner=False), task_id)

    assert task.status == JobStatus.SUCCEEDED, task.reason
    steps, cands = stored(engine, task_id)
    best = next(c for c in cands if c.id == task.best_candidate_id)
    assert "reduction(+:sum)" in best.source
    assert best.strategy.startswith("annotate[")
    names = [s.name for s in steps]
    assert names[0] == "analyse" and "default-plan" in names
    # Every tool step of the plan hangs below the plan's step. (Candidates that differ only in
    # comments are one program: the scripted code differs in identifiers.)
    plan_id = next(s.id for s in steps if s.name == "default-plan")
    assert all(s.parent_id == plan_id for s in steps if s.tool_call_id)
    assert "plan" not in fake.kinds  # the planner was off


async def test_garbage_plan_falls_back_to_the_default_plan_and_says_so(engine, llm_config):
    fake = RoutedLLM()
    fake.routes["plan"].append(Reply(texts=['{"steps": [{"id": 1, "tool": "nonsense"']))
    task_id = submit(engine)
    task = await run_one(
        engine, runner(fake, llm_config, ScriptedJudge(passes_with_reduction)), task_id
    )

    assert task.status == JobStatus.SUCCEEDED
    steps, _ = stored(engine, task_id)
    plan = next(s for s in steps if s.name == "plan")
    fallback = next(s for s in steps if s.name == "default-plan")
    assert fallback.parent_id == plan.id
    # The plan broke off before its first step was complete, so no step was accepted: that is
    # the reason given, in the fallback's step and in the task's notes alike.
    assert fallback.arguments["why"] == "no step makes a candidate"
    assert "default plan used: no step makes a candidate" in task.reason


async def test_a_valid_plan_that_makes_nothing_is_followed_by_the_default_plan(engine, llm_config):
    """The real embedded model once planned a lone rewrite and replied without code: with no
    replan left that ended the task with nothing, though the analysis could annotate it."""
    fake = RoutedLLM()
    plan = {"steps": [{"id": 1, "tool": "rewrite", "args": {"strategy": ""}, "why": "all"}]}
    fake.routes["plan"].append(Reply(texts=[json.dumps(plan)]))
    fake.routes["code"].append(Reply(texts=["Here is the program, parallelised: ```c\nint"]))
    task_id = submit(engine)
    graph = runner(fake, llm_config, ScriptedJudge(passes_with_reduction), replans=0)
    task = await run_one(engine, graph, task_id)

    assert task.status == JobStatus.SUCCEEDED, task.reason
    steps, cands = stored(engine, task_id)
    fallback = next(s for s in steps if s.name == "default-plan")
    assert fallback.arguments["why"] == "the model's plan made no candidate"
    best = next(c for c in cands if c.id == task.best_candidate_id)
    assert best.strategy.startswith("annotate[") and "reduction(+:sum)" in best.source
    assert [s.name for s in steps].count("plan") == 1  # the same round: no replan was spent


async def test_a_confident_wrong_plan_never_ends_below_the_analysis_alone(engine, llm_config):
    """A model that plans only rewrites, each wrong however often it is asked: the analysis's
    candidate runs beside its first plan, so the task ends verified, as with no model at all,
    and the branch's steps are not stored as the model's tool calls."""
    fake = RoutedLLM()
    rewrite_only = {"steps": [{"id": 1, "tool": "rewrite", "args": {"strategy": "sure"}}]}
    for _ in range(3):
        fake.routes["plan"].append(Reply(texts=[json.dumps(rewrite_only)]))
    fake.routes["code"].append(Reply(texts=["```c\nint main(void) { int wrong = 1; }\n```"]))

    def judge(source: str) -> Verdict:
        return verdict(Status.WRONG_ANSWER) if "wrong" in source else passes_with_reduction(source)

    task_id = submit(engine)
    task = await run_one(engine, runner(fake, llm_config, ScriptedJudge(judge)), task_id)

    assert task.status == JobStatus.SUCCEEDED, task.reason
    steps, cands = stored(engine, task_id)
    best = next(c for c in cands if c.id == task.best_candidate_id)
    assert best.strategy.startswith("annotate[") and "reduction(+:sum)" in best.source
    assert any("wrong" in c.source for c in cands)  # the model's plan ran too
    branch = next(s for s in steps if s.name == "analysis-branch")
    below = [s for s in steps if s.parent_id == branch.id]
    assert {s.name for s in below} == {"annotate", "verify"}
    assert all(s.tool_call_id is None for s in below)
    plan = next(s for s in steps if s.name == "plan")
    assert [c["function"]["name"] for c in plan.response["tool_calls"]] == ["rewrite"]


async def test_steps_run_while_the_plan_still_streams(engine, llm_config):
    fake = RoutedLLM()
    plan = {
        "steps": [
            {"id": 1, "tool": "annotate", "args": {"mode": "analysis"}, "why": "plain"},
            {"id": 2, "tool": "verify", "args": {"candidate": "$1"}, "why": "prove"},
            {"id": 3, "tool": "analyse", "args": {}, "why": "look"},
        ]
    }
    # Slow tokens: the plan takes a while to stream after its first step is complete.
    fake.routes["plan"].append(
        Reply(texts=[json.dumps(plan).replace(",", " ,")], chunk_delay_s=0.02)
    )
    task_id = submit(engine)
    task = await run_one(
        engine, runner(fake, llm_config, ScriptedJudge(passes_with_reduction)), task_id
    )

    assert task.status == JobStatus.SUCCEEDED
    steps, _ = stored(engine, task_id)
    plan_step = next(s for s in steps if s.name == "plan")
    verify = next(s for s in steps if s.name == "verify" and s.tool_call_id)
    assert plan_step.finished_at is not None and verify.started_at is not None
    assert verify.started_at < plan_step.finished_at  # dispatched before the plan was done
    calls = plan_step.response["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["annotate", "verify", "analyse"]
    assert {s.tool_call_id for s in steps if s.tool_call_id} == {c["id"] for c in calls}


async def test_the_same_program_from_parallel_branches_is_verified_once(engine, llm_config):
    """The model's plan picks what the analysis's branch writes beside it: one program made
    twice. While its verification runs the second waits for that verdict (on the embedded
    model's MPI runs each task's program was verified three times, side by side, and once
    judged both passed and deadlocked)."""
    fake = RoutedLLM()
    plan = {
        "steps": [
            {"id": 1, "tool": "annotate", "args": {"mode": "analysis"}, "why": "plain"},
            {"id": 2, "tool": "verify", "args": {"candidate": "$1"}, "why": "prove"},
        ]
    }
    fake.routes["plan"].append(Reply(texts=[json.dumps(plan)]))
    gate = asyncio.Event()
    verifier = ScriptedJudge(passes_with_reduction, gate=gate)
    task_id = submit(engine)
    running = asyncio.create_task(run_one(engine, runner(fake, llm_config, verifier), task_id))
    for _ in range(200):  # both branches have made their candidate
        await asyncio.sleep(0.05)
        if len(stored(engine, task_id)[1]) >= 2:
            break
    await asyncio.sleep(0.3)
    gate.set()
    task = await running

    assert task.status == JobStatus.SUCCEEDED, task.reason
    steps, cands = stored(engine, task_id)
    assert len(cands) == 2 and cands[0].source == cands[1].source
    assert len(verifier.sources) == 1  # run once in the sandbox
    runs = [s for s in steps if s.name == "verify" and "candidate_id" in s.arguments]
    assert sorted(s.arguments["candidate_id"] for s in runs) == [c.id for c in cands]
    assert sum(1 for s in runs if "same_as" in s.arguments) == 1
    assert all(s.result["status"] == "passed" for s in runs)


async def test_a_failing_candidate_is_repaired_with_its_evidence(engine, llm_config):
    fake = RoutedLLM()
    fake.routes["plan"].append(
        Reply(
            texts=[
                json.dumps(
                    {
                        "steps": [
                            {"id": 1, "tool": "rewrite", "args": {"strategy": "x"}},
                            {"id": 2, "tool": "verify", "args": {"candidate": "$1"}},
                        ]
                    }
                )
            ]
        )
    )
    fake.routes["code"].append(
        Reply(texts=["```c\nint main(void) { int racy = 0; return racy; }\n```"])
    )
    fake.routes["code"].append(
        Reply(texts=["```c\nint main(void) { int fixed = 0; return fixed; }\n```"])
    )

    def judge(source: str) -> Verdict:
        return verdict(Status.RACE, race=True) if "racy" in source else verdict(Status.PASSED)

    task_id = submit(engine)
    task = await run_one(
        engine, runner(fake, llm_config, ScriptedJudge(analysis_fails(judge))), task_id
    )

    assert task.status == JobStatus.SUCCEEDED, task.reason
    _, cands = stored(engine, task_id)
    fixed = next(c for c in cands if "fixed" in c.source)
    racy = next(c for c in cands if "racy" in c.source)
    assert (
        fixed.parent_id == racy.id and fixed.generation == 1 and fixed.id == task.best_candidate_id
    )
    repair_request = next(r for r in fake.requests if "racy" in json.dumps(r.get("messages", [])))
    assert "data race on sum" in json.dumps(repair_request["messages"])


async def test_parallel_repairs_that_both_succeed_join_cleanly(engine, llm_config):
    # Two repair branches (Send) finish in one superstep, each reporting the budget ledger:
    # the state must merge them, not fail the task ("can receive only one value per step").
    fake = RoutedLLM()
    steps = [
        {"id": 1, "tool": "rewrite", "args": {"strategy": "a"}},
        {"id": 2, "tool": "rewrite", "args": {"strategy": "b"}},
        {"id": 3, "tool": "verify", "args": {"candidate": "$1"}},
        {"id": 4, "tool": "verify", "args": {"candidate": "$2"}},
    ]
    fake.routes["plan"].append(Reply(texts=[json.dumps({"steps": steps})]))
    for word in ("racy_a", "racy_b", "fixed_a", "fixed_b"):
        fake.routes["code"].append(
            Reply(texts=[f"```c\nint main(void) {{ int {word} = 0; return {word}; }}\n```"])
        )

    def judge(source: str) -> Verdict:
        return verdict(Status.RACE, race=True) if "racy" in source else verdict(Status.PASSED)

    task_id = submit(engine)
    graph = runner(
        fake, llm_config, ScriptedJudge(analysis_fails(judge)), repair_width=2, repairs=1
    )
    task = await run_one(engine, graph, task_id)

    assert task.status == JobStatus.SUCCEEDED, task.reason
    _, cands = stored(engine, task_id)
    assert sum("fixed" in c.source for c in cands) == 2


async def test_nothing_passes_ends_no_verified_candidate_within_the_budget(engine, llm_config):
    fake = RoutedLLM()
    verifier = ScriptedJudge(lambda source: verdict(Status.WRONG_ANSWER))
    task_id = submit(engine)
    task = await run_one(
        engine, runner(fake, llm_config, verifier, candidates=4, repairs=1), task_id
    )

    assert task.status == JobStatus.NO_VERIFIED_CANDIDATE
    assert task.best_candidate_id is None
    _, cands = stored(engine, task_id)
    # Every candidate is reserved (checked and charged with no await between) before its step
    # starts, so parallel steps cannot make more than the budget, and repairs use what is left.
    assert len(cands) == 4
    assert "the candidate budget of 4 spent" in task.reason


async def test_a_scan_is_never_annotated_as_a_plain_parallel_for(engine, llm_config):
    scan = SOURCE.replace(
        "        sum += a[i];", "    {\n        sum += a[i];\n        a[i] = sum;\n    }"
    )
    fake = RoutedLLM()
    verifier = ScriptedJudge(passes_with_reduction)
    task_id = submit(engine, scan)
    await run_one(engine, runner(fake, llm_config, verifier, planner=False), task_id)

    _, cands = stored(engine, task_id)
    assert any(c.strategy.startswith("annotate") for c in cands)
    for cand in cands:
        if cand.strategy.startswith("annotate"):
            # Left alone, or a two-pass blocked scan: worksharing loops in one region that
            # keeps `sum` per thread, never `parallel for` on the scan.
            scan_loop = cand.source.split("a[i] = i * 0.5;")[1]
            assert "parallel for" not in scan_loop, cand.source
            if "#pragma omp" in scan_loop:
                assert "#pragma omp parallel private(sum)" in scan_loop
                assert scan_loop.count("#pragma omp for schedule(static)") == 2
    # The analysis's plain choice takes the scan too, as a blocked scan.
    assert any("#pragma omp parallel private(sum)" in c.source for c in cands)


async def test_cancel_stops_every_branch(engine, llm_config):
    fake = RoutedLLM()
    gate = asyncio.Event()
    verifier = ScriptedJudge(passes_with_reduction, gate=gate)
    graph = runner(fake, llm_config, verifier, planner=False)
    task_id = submit(engine)
    pool = WorkerPool(engine, graph, ONE_WORKER)
    job = asyncio.create_task(pool.run_task(task_id))
    for _ in range(200):
        await asyncio.sleep(0.02)
        if verifier.sources:
            break
    assert verifier.sources, "no verification started"
    with Session(engine) as s:
        tasks.request_cancel(s, task_id)
    await asyncio.wait_for(job, 10)
    assert verifier.cancelled >= 1
    with Session(engine) as s:
        assert tasks.get(s, task_id).status == JobStatus.CANCELLED


async def test_a_requeued_task_resumes_from_its_checkpoint(engine, llm_config, store_url):
    """The worker dies in the middle of the plan: the next attempt does not analyse again."""
    fake = RoutedLLM()
    gate = asyncio.Event()
    checkpoints = checkpoints_for(store_url)
    first = GraphRunner(
        LLMClient(llm_config, transport=fake.transport()),
        ScriptedJudge(passes_with_reduction, gate=gate),
        GraphConfig(planner=False),
        checkpoints=checkpoints,
    )
    task_id = submit(engine)
    run_id, detail = claimed(engine, task_id, first.name)
    from corpus.runner import TaskContext
    from corpus.store.recorder import Recorder

    recorder = Recorder(engine, task_id, run_id)
    job = asyncio.create_task(first.run(TaskContext(detail, run_id, 1, recorder)))
    for _ in range(200):
        await asyncio.sleep(0.02)
        if first.judge.sources:
            break
    job.cancel()  # the worker died mid-plan
    with contextlib.suppress(asyncio.CancelledError):
        await job
    await recorder.aclose()

    second = GraphRunner(
        LLMClient(llm_config, transport=fake.transport()),
        ScriptedJudge(passes_with_reduction),
        GraphConfig(planner=False),
        checkpoints=checkpoints,
    )
    recorder2 = Recorder(engine, task_id, run_id)
    outcome = await second.run(TaskContext(detail, run_id, 2, recorder2))
    await recorder2.aclose()
    assert outcome.status == JobStatus.SUCCEEDED
    steps, _ = stored(engine, task_id)
    assert [s.name for s in steps].count("analyse") == 1


@pytest.mark.parametrize("budget", [{"candidates": 1, "repairs": 0, "replans": 0}])
async def test_budgets_stop_the_run(engine, llm_config, budget):
    fake = RoutedLLM()
    verifier = ScriptedJudge(lambda source: verdict(Status.WRONG_ANSWER))
    task_id = submit(engine)
    task = await run_one(
        engine, runner(fake, llm_config, verifier, planner=False, **budget), task_id
    )
    _, cands = stored(engine, task_id)
    # Candidates are reserved before their step starts: the steps that start in parallel with
    # the first one find the budget spent and make nothing.
    assert len(cands) == 1
    assert "the candidate budget of 1 spent" in task.reason
    assert task.status == JobStatus.NO_VERIFIED_CANDIDATE


async def test_a_plan_whose_candidates_do_not_build_is_replanned_with_what_happened(
    engine, llm_config
):
    fake = RoutedLLM()
    rewrite_only = {"steps": [{"id": 1, "tool": "rewrite", "args": {"strategy": "x"}}]}
    fake.routes["plan"].append(Reply(texts=[json.dumps(rewrite_only)]))
    fake.routes["plan"].append(Reply(texts=[json.dumps(rewrite_only)]))
    fake.routes["code"].append(Reply(texts=["I cannot do that."]))  # no code: nothing to repair
    fake.routes["code"].append(Reply(texts=["```c\nint main(void) { int ok = 1; return 0; }\n```"]))
    verifier = ScriptedJudge(analysis_fails(lambda source: verdict(Status.PASSED)))
    task_id = submit(engine)
    task = await run_one(engine, runner(fake, llm_config, verifier, replans=1), task_id)

    assert task.status == JobStatus.SUCCEEDED, task.reason
    assert fake.kinds.count("plan") == 2
    replan = [
        r
        for r in fake.requests
        if (r.get("response_format") or {}).get("json_schema", {}).get("name") == "plan"
    ][1]
    assert "What happened with the previous plan" in replan["messages"][-1]["content"]
    steps, _ = stored(engine, task_id)
    assert [s.name for s in steps].count("plan") == 2


async def test_a_reassociated_floating_point_sum_is_verified_with_its_tolerance_said(
    engine, llm_config
):
    """The sum of doubles becomes a reduction, whose threads add in another order: the verify
    step says so, and how its outputs were compared (as printed: the task gives no tolerance)."""
    task_id = submit(engine)
    verifier = ScriptedJudge(passes_with_reduction)
    task = await run_one(engine, runner(RoutedLLM(), llm_config, verifier, planner=False), task_id)
    assert task.status == JobStatus.SUCCEEDED, task.reason
    steps, _ = stored(engine, task_id)
    said = [a for s in steps if s.name == "verify" for a in (s.result or {}).get("assumptions", [])]
    assert any("reduction(sum) may be floating-point" in a for a in said), said
    assert any(a.startswith("outputs compared exactly as printed") for a in said), said


async def test_without_a_tolerance_a_floating_point_sum_is_not_offered(engine, llm_config):
    """rtol = atol = 0 asks for exact numbers: a reassociated sum may differ in the last digit,
    so the analysis offers the map loop alone and the sum stays sequential."""
    task_id = submit(engine, options={"rtol": 0, "atol": 0})
    verifier = ScriptedJudge(lambda source: verdict(Status.PASSED))
    await run_one(engine, runner(RoutedLLM(), llm_config, verifier, planner=False), task_id)
    _, cands = stored(engine, task_id)
    annotated = [c for c in cands if c.strategy.startswith("annotate[")]
    assert annotated and all("reduction(" not in c.source for c in annotated)
    assert all(c.source.count("#pragma omp parallel for") == 1 for c in annotated)


async def test_an_annotation_that_fails_again_is_escalated_to_a_rewrite(engine, llm_config):
    """Re-choosing loop options is all a repair of an annotation could do: when the new choice
    fails too, the next repair rewrites the annotated program with the evidence, told in words
    what the annotation did."""
    fake = RoutedLLM()
    fake.routes["code"].append(
        Reply(texts=["```c\n// model code\nint main(void) { return 1; }```"])
    )
    fake.routes["code"].append(
        Reply(texts=["```c\nint main(void) { int escalated = 0; return escalated; }\n```"])
    )

    def judge(source: str) -> Verdict:
        if "escalated" in source:
            return verdict(Status.PASSED)
        if "#pragma omp" in source:
            return verdict(Status.RACE, race=True)
        return verdict(Status.BUILD_FAILED)

    task_id = submit(engine, tests=False)
    graph = runner(fake, llm_config, ScriptedJudge(judge), planner=False, repairs=2, repair_width=1)
    task = await run_one(engine, graph, task_id)

    assert task.status == JobStatus.SUCCEEDED, task.reason
    _, cands = stored(engine, task_id)
    escalated = next(c for c in cands if "escalated" in c.source)
    parent = next(c for c in cands if c.id == escalated.parent_id)
    assert parent.strategy.startswith("annotate[") and escalated.strategy.startswith("repair:")
    asked = next(r for r in fake.requests if "Write a corrected version" in json.dumps(r))
    text = json.dumps(asked["messages"])
    assert "keep OpenMP directives on loops L" in text and "]:L" not in text


async def test_an_endpoint_that_refuses_strict_schemas_still_gets_the_models_plan(
    engine, llm_config
):
    """A refused strict schema once meant every plan went to the default plan, silently: the
    plan goes out again without `strict`, and its stored step says so."""
    fake = RoutedLLM()
    fake.refuses = {"strict"}
    plan = {"steps": [{"id": 1, "tool": "annotate", "args": {"mode": "model"}, "why": "w"}]}
    fake.routes["plan"].append(Reply(texts=[json.dumps(plan)]))
    task_id = submit(engine)
    task = await run_one(
        engine, runner(fake, llm_config, ScriptedJudge(passes_with_reduction)), task_id
    )

    assert task.status == JobStatus.SUCCEEDED, task.reason
    assert "default plan used" not in (task.reason or "")
    steps, _ = stored(engine, task_id)
    stored_plan = next(s for s in steps if s.name == "plan")
    assert stored_plan.sampling["response_format"] == "loose"
    assert stored_plan.sampling["schema_refused"][0].startswith("strict: ")
    formats = [(r.get("response_format") or {}).get("json_schema", {}) for r in fake.requests]
    assert [f.get("strict") for f in formats if f.get("name") == "plan"] == [True, False]


async def test_a_model_with_a_large_window_is_given_room_to_write(engine, llm_config):
    """Caps sized for the 135M model once cut a capable model's rewrite of a long program
    short: the served model's window (vLLM's `max_model_len`) sizes them."""
    fake = RoutedLLM()
    fake.context_window = 65_536
    task_id = submit(engine)
    graph = runner(fake, llm_config, ScriptedJudge(passes_with_reduction), planner=False)
    await run_one(engine, graph, task_id)
    rewrites = [r for r in fake.requests if not r.get("response_format")]
    assert rewrites and all(r["max_tokens"] == 65_536 // 8 for r in rewrites)
    choices = [r for r in fake.requests if (r.get("response_format") or {}).get("type")]
    assert all(r["max_tokens"] == 2048 for r in choices)


async def test_parallel_model_calls_cannot_overrun_the_token_budget_together(engine, llm_config):
    """Two rewrites start at once under a budget with room for one: the second is refused
    before it is sent, not charged after it overran."""
    fake = RoutedLLM()
    steps = [
        {"id": 1, "tool": "rewrite", "args": {"strategy": "a"}},
        {"id": 2, "tool": "rewrite", "args": {"strategy": "b"}},
    ]
    fake.routes["plan"].append(Reply(texts=[json.dumps({"steps": steps})]))
    slow = "```c\n// model code\nint main(void) { return 1; }\n```"
    fake.routes["code"].extend([Reply(texts=[slow], chunk_delay_s=0.1)] * 2)
    task_id = submit(engine)
    graph = runner(
        fake, llm_config, ScriptedJudge(analysis_fails(passes_with_reduction)), tokens=4000
    )
    await run_one(engine, graph, task_id)

    steps_stored, _ = stored(engine, task_id)
    refused = [
        s for s in steps_stored if s.name == "rewrite" and "token budget has" in (s.error or "")
    ]
    assert len(refused) == 1
    first = next(r for r in fake.requests if not r.get("response_format"))
    assert first["max_tokens"] == 1536


async def test_a_task_without_timing_is_verified_untimed_and_never_evolved(engine, llm_config):
    # An eval run without timing asks this of its agent: its verifications check what the eval's
    # will. The runner's own judge (timed) sees nothing, and evolution, whose fitness is speed,
    # does not start even where the runner evolves by default.
    untimed = ScriptedJudge(passes_with_reduction)

    class Timed(ScriptedJudge):
        def untimed(self) -> ScriptedJudge:
            return untimed

    timed = Timed(passes_with_reduction)
    task_id = submit(engine, options={"timing": False})
    graph = runner(RoutedLLM(), llm_config, timed, planner=False, evolve=True)
    task = await run_one(engine, graph, task_id)

    assert task.status == JobStatus.SUCCEEDED, task.reason
    assert untimed.sources and not timed.sources
    steps, _ = stored(engine, task_id)
    assert not any("evolve" in s.name for s in steps), [s.name for s in steps]


def test_evolution_without_timing_is_refused_at_submission():
    with pytest.raises(ValueError, match="evolution needs timing"):
        TaskOptions(timing=False, evolve=True)
    with pytest.raises(ValueError, match="evolution needs timing"):
        TaskOptions(timing=False, generations=2)
    assert TaskOptions(timing=False, evolve=False).timing is False
