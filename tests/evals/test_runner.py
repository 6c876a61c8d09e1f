"""The eval runner's logic on the scripted LLM server and the scripted sandbox: what is stored,
failures as data, resumption, the sample-source seam, the not-run path."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from agents.llm import LLMClient, LLMConfig
from corpus.store import evals as store
from corpus.store.models import EvalResultRow, TaskRow
from corpus.suites import load_suite
from evals.config import RunOptions
from evals.errors import EvalInterrupted
from evals.outcomes import unverified_result
from evals.plan import Progress
from evals.report import write_report
from evals.runner import EvalRunner
from evals.sources import Sample
from evals.sources.prompt import PromptSource
from evals.stored import load_run
from evals.summary import OVERALL
from sandbox.errors import WorkspaceError
from sandbox.models import Command, CommandResult
from sandbox.verify.verifier import LocalVerifier
from tests.fakes.evals import BROKEN, TASKS, WRONG, ListSource, new_run, new_store, scripted
from tests.fakes.llm import FAKE_MODEL, FakeLLMServer, Reply
from tests.fakes.sandbox import ScriptedSandbox

GOOD = "\n  #pragma omp parallel for\n  for (size_t i = 0; i < x.size(); ++i) z[i] = 1;\n}\nint main() { return 1; }\n"


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    return new_store(tmp_path)


def runner(engine: Engine, sandbox: object | None = None) -> EvalRunner:
    return EvalRunner(
        engine, LocalVerifier(sandbox or scripted()), llm=LLMConfig(url="http://unused/v1")
    )  # type: ignore[arg-type]


def prompt_source(
    fake_llm: FakeLLMServer, llm_config: LLMConfig, api: str = "auto"
) -> PromptSource:
    client = LLMClient(llm_config, transport=fake_llm.transport())
    return PromptSource(client, FAKE_MODEL, api)  # type: ignore[arg-type]


def rows(engine: Engine, run_id: int) -> list[EvalResultRow]:
    with Session(engine) as session:
        return store.rows(session, run_id)


async def test_prompt_mode_stores_sources_calls_and_verdicts(engine, fake_llm, llm_config):
    texts = [
        GOOD,
        GOOD.replace("z[i] = 1", BROKEN),
        GOOD.replace("z[i] = 1", f"z[i] = 1; // {WRONG}"),
    ]
    fake_llm.script(Reply(texts=texts), Reply(texts=texts))
    run_id = new_run(engine, samples=3)
    seen: list[Progress] = []
    outcome = await runner(engine).run(
        run_id, source=prompt_source(fake_llm, llm_config), on_progress=seen.append
    )

    suite = load_suite("pareval")
    for body in fake_llm.requests:
        assert body["n"] == 3 and body["temperature"] == 0.2 and body["top_p"] == 0.95
        assert body["prompt"] in {suite.task(t).prompt_for("openmp") for t in TASKS}
    stored = rows(engine, run_id)
    assert [r.status for r in stored] == ["passed", "build_failed", "wrong_answer"] * 2
    first = stored[0]
    prompt = suite.task(first.problem).prompt_for("openmp")
    assert first.source is not None and first.source.startswith(prompt)
    assert "int main" not in first.source  # cut after the function, as ParEval does
    assert first.call is not None and first.call["model"] == FAKE_MODEL
    assert [c["text"] for c in first.call["choices"]] == [GOOD]
    assert first.problem_type == "dense_la" and first.built and first.passed
    assert stored[1].verdict["failed_step"]["stderr"].endswith("BROKEN is not a type")
    assert stored[2].verdict["correct"] is False and stored[2].built

    overall = next(r for r in outcome.summary["rows"] if r["group"] == OVERALL and r["k"] == 1)
    assert overall["passed"] == pytest.approx(1 / 3) and overall["build"] == pytest.approx(2 / 3)
    assert outcome.reason.startswith("pass@1 33.3%, build@1 66.7%")
    assert [p.finished for p in seen][-1] == 6 and seen[-1].generated == 6
    assert all(a.finished <= b.finished for a, b in itertools.pairwise(seen))


async def test_a_translation_run_completes_the_translation_prompts(engine, fake_llm, llm_config):
    fake_llm.script(Reply(texts=[GOOD]), Reply(texts=[GOOD]))
    run_id = new_run(engine, samples=1, options=RunOptions(translate_from="serial"))
    outcome = await runner(engine).run(run_id, source=prompt_source(fake_llm, llm_config))

    suite = load_suite("pareval")
    prompts = {suite.translation(f"{t}:serial->openmp").prompt for t in TASKS}
    assert {body["prompt"] for body in fake_llm.requests} == prompts
    stored = rows(engine, run_id)
    assert [r.status for r in stored] == ["passed", "passed"]
    assert all(r.source is not None and r.source.startswith(tuple(prompts)) for r in stored)
    assert outcome.reason.startswith("pass@1 100.0%")
    assert load_run(engine, run_id).info.target == "serial->openmp translation"


async def test_a_broken_sandbox_stops_the_run_and_resume_verifies_without_regenerating(
    engine, fake_llm, llm_config
):
    def vanished(command: Command, ws: object) -> CommandResult:
        raise WorkspaceError("the container vanished")

    fake_llm.script(Reply(texts=[GOOD, GOOD]), Reply(texts=[GOOD, GOOD]))
    run_id = new_run(engine)
    with pytest.raises(EvalInterrupted, match="the sandbox failed: the container vanished"):
        await runner(engine, ScriptedSandbox(vanished, per_job=True)).run(
            run_id, source=prompt_source(fake_llm, llm_config)
        )
    generated = rows(engine, run_id)
    assert generated and {r.status for r in generated} == {"generated"}
    suite = load_suite("pareval")
    left = [
        suite.task(t).prompt_for("openmp") for t in TASKS if t not in {r.problem for r in generated}
    ]

    again = FakeLLMServer()
    outcome = await runner(engine).run(run_id, source=prompt_source(again, llm_config))
    # Generated samples are verified, not generated again; only what is missing is asked for.
    assert [body["prompt"] for body in again.requests] == left
    assert [r.status for r in rows(engine, run_id)] == ["passed"] * 4
    assert "pass@1 100.0%" in outcome.reason


async def test_an_unreachable_model_stops_the_run_and_it_resumes(engine, fake_llm, llm_config):
    fake_llm.script(*[Reply(connect_error=True)] * 8)
    run_id = new_run(engine)
    with pytest.raises(EvalInterrupted, match="the model failed: cannot reach"):
        await runner(engine).run(run_id, source=prompt_source(fake_llm, llm_config))
    assert rows(engine, run_id) == []

    fake_llm.replies.clear()
    await runner(engine).run(run_id, source=prompt_source(fake_llm, llm_config))
    assert len(rows(engine, run_id)) == 4


async def test_finished_samples_are_not_redone_and_any_source_plugs_in(engine):
    run_id = new_run(engine, model=None)
    task = load_suite("pareval").task(TASKS[0])
    done = unverified_result(task.name, task.problem_type, Sample(index=0, source=None, error="x"))
    with Session(engine) as session:
        store.save_results(session, run_id, [done])
    source = ListSource()
    sandbox = scripted()
    await runner(engine, sandbox).run(run_id, source=source)
    assert sorted(source.asked) == [(TASKS[0], [1]), (TASKS[1], [0, 1])]
    assert len(sandbox.workspaces) == 3
    with Session(engine) as session:
        assert store.get(session, run_id).model == "scripted-agent"  # type: ignore[union-attr]

    again = ListSource()
    await runner(engine, sandbox).run(run_id, source=again)
    assert again.asked == [] and len(sandbox.workspaces) == 3


async def test_a_refused_request_is_a_failed_sample(engine, fake_llm, llm_config):
    fake_llm.script(Reply(status=400, error="prompt is too long"), Reply(texts=[GOOD, GOOD]))
    run_id = new_run(engine)
    outcome = await runner(engine).run(run_id, source=prompt_source(fake_llm, llm_config))
    statuses = sorted(r.status for r in rows(engine, run_id))
    assert statuses == ["generation_failed", "generation_failed", "passed", "passed"]
    failed = next(r for r in rows(engine, run_id) if r.status == "generation_failed")
    assert "prompt is too long" in failed.verdict["reason"] and not failed.built
    assert "build@1 50.0%" in outcome.reason


async def test_chat_only_endpoint_gets_the_prompt_as_a_message(engine, fake_llm, llm_config):
    task = load_suite("pareval").task(TASKS[1])
    signature = task.prompt_for("openmp").rstrip().splitlines()[-1]
    reply = f"Here:\n```cpp\n{signature}\n#pragma omp parallel for\nfor (size_t i = 0; i < x.size(); ++i) x[i] = 0;\n}}\n```"
    fake_llm.script(Reply(status=404, error="This is a chat model, not supported here"))
    fake_llm.script(Reply(texts=[reply]))
    run_id = new_run(engine, samples=1, problems=[TASKS[1]])
    await runner(engine).run(run_id, source=prompt_source(fake_llm, llm_config))
    assert "prompt" in fake_llm.requests[0] and "messages" in fake_llm.requests[1]
    assert task.prompt_for("openmp") in fake_llm.requests[1]["messages"][1]["content"]
    [row] = rows(engine, run_id)
    assert row.status == "passed" and row.source is not None
    assert row.source.count(signature) == 1 and "Here:" not in row.source


async def test_cuda_without_a_gpu_is_not_run_never_a_pass(engine, tmp_path):
    run_id = new_run(engine, target="cuda", options=RunOptions())
    source = ListSource("  if (threadIdx.x == 0) {}\n}\n")
    outcome = await runner(engine, scripted(gpu=False)).run(run_id, source=source)
    assert {r.status for r in rows(engine, run_id)} == {"not_run"}
    overall = next(r for r in outcome.summary["rows"] if r["group"] == OVERALL and r["k"] == 1)
    assert overall["passed"] is None and overall["race_free"] is None and overall["build"] == 1.0
    assert overall["not_run"] == 4 and outcome.summary["not_run"] == {"not run: no GPU": 4}
    assert "pass@1 not run" in outcome.reason

    paths = write_report(tmp_path / "r", load_run(engine, run_id), ks=[1], resources=None)
    md = paths["markdown"].read_text()
    assert "4 sample(s) not run: no GPU" in md
    assert "| **all** | 1 | 2 | 4 | 100.0% [100.0–100.0] | not run | not run |" in md
    assert "| 03_dense_la_axpy | dense_la | 2 | 2 | not run | not run |" in md


async def test_the_reference_runs_its_tests_once_per_task_with_the_cache(engine):
    spec = load_suite("pareval").task(TASKS[0]).spec_for("openmp")
    visible = [t["args"] for t in spec["tests"]]

    def reference_test_runs(sandbox: ScriptedSandbox) -> int:
        """Hidden inputs and timing are the reference's in every verification, cache or not."""
        return sum(
            1
            for ws in sandbox.workspaces
            for c in ws.commands
            if c.cwd == "ref" and c.argv[0] == "./prog" and c.argv[1:] in visible
        )

    cached, uncached = scripted(), scripted()
    run_a = new_run(engine, samples=3, problems=TASKS[:1])
    run_b = new_run(
        engine, samples=3, problems=TASKS[:1], options=RunOptions(reference_cache=False)
    )
    await runner(engine, cached).run(run_a, source=ListSource())
    await runner(engine, uncached).run(run_b, source=ListSource())
    assert reference_test_runs(uncached) == 3 * len(visible)
    # Even the verifications that start together wait for the first one's reference.
    assert reference_test_runs(cached) == len(visible)
    assert all(r.status == "passed" for r in rows(engine, run_a) + rows(engine, run_b))


async def run_with_agent(engine: Engine, run_id: int, run_task) -> None:
    """Run `run_id` with `run_task` as its graph agent, on a scripted sandbox."""
    eval_runner = EvalRunner(
        engine,
        LocalVerifier(scripted()),
        llm=LLMConfig(url="http://unused/v1"),
        agents={"graph": run_task},
    )
    await eval_runner.run(run_id)


async def test_the_graph_agent_gets_the_runs_reasoning_and_evolution_options(engine):
    ran: list[str] = []

    async def run_task(task_id: str) -> None:
        ran.append(task_id)  # makes no candidate: each sample fails to generate

    options = RunOptions(agent="graph", reasoning_threads=2, evolve=True, generations=3)
    run_id = new_run(engine, samples=1, problems=TASKS[:1], options=options)
    await run_with_agent(engine, run_id, run_task)
    assert [r.status for r in rows(engine, run_id)] == ["generation_failed"]
    with Session(engine) as session:
        [task] = session.exec(select(TaskRow)).all()
    assert ran == [task.id] and task.options is not None
    assert task.options["reasoning_threads"] == 2
    assert task.options["evolve"] is True and task.options["generations"] == 3
    assert task.options["timing"] is None  # evolving: its fitness is speed, so the agent times


@pytest.mark.parametrize("timing", [False, True])
async def test_the_graph_agent_verifies_as_the_run_does_with_or_without_timing(engine, timing):
    # The eval verifies its samples with timing off; an agent that timed its own candidates
    # would reject programs the eval passes (a timing input too big for the sandbox at 4 ranks).
    async def run_task(task_id: str) -> None:
        pass

    run_id = new_run(
        engine, samples=1, problems=TASKS[:1], timing=timing, options=RunOptions(agent="graph")
    )
    await run_with_agent(engine, run_id, run_task)
    with Session(engine) as session:
        [task] = session.exec(select(TaskRow)).all()
    assert task.options is not None
    assert task.options["timing"] is (None if timing else False)


async def test_a_candidate_refused_before_its_tests_ran_is_not_correct(engine):
    """The integrity check refuses a candidate that interferes with the checkers (here inline
    assembly) as `sanitizer_error` before any test runs. That status is also what a candidate
    that passed its tests and then failed a sanitizer ends with, and pass@k counts those:
    counted by status, a refused candidate was correct without a test (a session's kernel
    writer put an `asm` in every kernel, and pass@1 read 0.633 with nothing run)."""
    run_id = new_run(engine, model=None)
    source = ListSource(body='  asm("nop");\n  z[0] = 1;\n}\n')
    outcome = await runner(engine).run(run_id, source=source)
    stored = rows(engine, run_id)
    assert {r.status for r in stored} == {"sanitizer_error"}
    assert not any(r.verdict["correct"] or r.verdict["race_free"] for r in stored)
    data = load_run(engine, run_id)
    assert not any(o.correct for o in data.outcomes)
    assert "pass@1 0.0%" in outcome.reason, outcome.reason
    with Session(engine) as session:
        progress = store.get(session, run_id).progress  # type: ignore[union-attr]
    assert progress["correct"] == 0 and progress["finished"] == len(stored)
