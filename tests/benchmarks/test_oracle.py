"""The simulated capable model (`benchmarks/oracle.py`): it must know every task, answer each
attempt the same way in every mode, and speak the protocol the client speaks."""

from __future__ import annotations

import json

import httpx2
import pytest

from agents.analysis import analyse, choice_schema
from agents.core import parse_plan, plan_schema
from agents.llm import ChatRequest, JsonSchema, LLMClient, LLMConfig, Sampling
from agents.prompts.program import build_messages
from agents.prompts.translate import plan_messages
from agents.reasoning.fingerprint import shape
from agents.tools import registry
from benchmarks.oracle import Oracle, vary
from corpus.suites import load_suite
from sandbox.spec import Language, Target
from tests.fakes.pch import use_precompiled

pytestmark = pytest.mark.unit

SUITE = load_suite("pareval")
SERIAL = [t for t in SUITE.translations if t.source_model == "serial" and t.supported]


def language(name: str) -> Language:
    task = next(t for t in SUITE.tasks if t.name == name)
    return Language.C if task.language == "c" else Language.CPP


def asked(messages: list) -> str:
    return "\n".join(m.content or "" for m in messages if m.role != "system")


def test_every_serial_task_and_target_is_recognised_in_every_kind_of_prompt() -> None:
    oracle = Oracle(p=0.5, tasks=list(SUITE.tasks))
    for translation in SERIAL:
        task, target = translation.task, Target(translation.target_model)
        assert task is not None
        lang = language(task.name)
        rewrite = asked(build_messages(task.reference, lang, target, [], function_only=True))
        plan = asked(plan_messages(task.reference, lang, target, analyse(task.reference, lang), []))
        for prompt in (rewrite, plan):
            found = oracle.recognise(prompt)
            assert found is not None and found.name == task.name, translation.name
            assert oracle.target_of(prompt) is target, translation.name


def test_the_nth_attempt_is_the_same_in_every_run_and_p_sets_the_share_of_good_answers() -> None:
    task = next(t for t in SUITE.tasks if t.name.startswith("25_reduce"))
    runs = []
    for _ in range(2):
        oracle = Oracle(p=0.5, seed=7, tasks=[task])
        for _ in range(40):
            oracle.code(task, Target.OPENMP)
        runs.append([(d.attempt, d.good, d.what) for d in oracle.draws])
    assert runs[0] == runs[1]
    good = sum(1 for _, ok, _ in runs[0] if ok)
    assert 10 <= good <= 30  # 40 draws at p = 0.5
    other = Oracle(p=0.5, seed=8, tasks=[task])
    for _ in range(40):
        other.code(task, Target.OPENMP)
    assert [d.good for d in other.draws] != [ok for _, ok, _ in runs[0]]
    always, never = Oracle(p=1.0, tasks=[task]), Oracle(p=0.0, tasks=[task])
    solution = task.target(Target.OPENMP).solutions[0]
    assert always.code(task, Target.OPENMP) == solution.source  # attempt 0: no variation
    assert never.code(task, Target.OPENMP) in {m.source for m in solution.mutants}


def test_a_varied_answer_differs_as_text_and_converges_as_a_shape() -> None:
    """Threads writing the same solution must be found converging by the fingerprint rule,
    not by equal text. Where the parser misreads a program (CUDA's launch syntax, a function
    named like its parameter), the rule may miss it: a few such programs, no more."""
    differ, solutions = [], 0
    for task in SUITE.tasks:
        lang = language(task.name)
        for target in (Target.OPENMP, Target.MPI, Target.CUDA):
            if not task.applies_to(target):
                continue
            solutions += 1
            source = task.target(target).solutions[0].source
            varied = vary(source, 3, lang)
            assert varied != source
            if shape(varied, lang) != shape(source, lang):
                differ.append(f"{task.name}:{target.value}")
    assert len(differ) <= solutions // 20, differ  # 6 of 180 when written


def test_its_plans_and_choices_are_what_the_agent_parses() -> None:
    oracle = Oracle(p=1.0, tasks=list(SUITE.tasks))
    task = next(t for t in SUITE.tasks if t.name.startswith("25_reduce"))
    lang = language(task.name)
    program = analyse(task.reference, lang)
    for target in (Target.OPENMP, Target.MPI):
        specs = registry(target).specs()
        body = {
            "messages": [
                m.model_dump() for m in plan_messages(task.reference, lang, target, program, specs)
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "plan", "schema": plan_schema(specs, 10), "strict": True},
            },
        }
        plan = parse_plan(oracle.answer(body), specs)
        own = {Target.OPENMP: "annotate", Target.MPI: "distribute"}[target]
        assert [s.tool for s in plan.steps] == ["rewrite", "verify", own, "verify"]
    schema = JsonSchema(json_schema=choice_schema(program.loops), name="choices").json_schema
    body = {
        "messages": [],
        "response_format": {"json_schema": {"name": "choices", "schema": schema}},
    }
    choices = json.loads(oracle.answer(body))["choices"]
    assert [c["loop"] for c in choices] == [loop.id for loop in program.loops][: len(choices)]


async def test_it_streams_to_the_client_at_its_rate() -> None:
    oracle = Oracle(p=1.0, rate=2000.0)
    task = next(t for t in oracle.tasks if t.name.startswith("25_reduce"))
    messages = build_messages(
        task.reference, language(task.name), Target.OPENMP, [], function_only=True
    )
    transport = httpx2.ASGITransport(app=oracle.app)
    async with LLMClient(LLMConfig(url="http://oracle/v1"), transport=transport) as llm:
        generation = await llm.chat(
            ChatRequest(messages=messages, sampling=Sampling(max_tokens=4096))
        )
    assert task.target(Target.OPENMP).solutions[0].source in generation.text
    assert generation.usage.completion_tokens > 20
    assert generation.record.ttft_s is not None


def test_every_varied_known_good_openmp_solution_still_compiles(tmp_path) -> None:
    """Renaming and reordering must not change what a program means: each ParEval OpenMP
    solution, varied as a later attempt would be, compiles against its driver (checked by hand
    for MPI and CUDA)."""
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    def check(task) -> str | None:  # type: ignore[no-untyped-def]
        folder = tmp_path / task.name
        folder.mkdir()
        for name, text in task.files_for(Target.OPENMP).items():
            (folder / name).write_text(text)
        source = task.target(Target.OPENMP).solutions[0].source
        (folder / "solution.inc").write_text(vary(source, 1, language(task.name)))
        (folder / "main.cpp").write_text(task.driver_for(Target.OPENMP))
        flags = ["-fopenmp", "-std=c++17", *task.cflags]
        use_precompiled(folder, ["g++", *flags])
        command = ["g++", *flags, "-fsyntax-only", "main.cpp"]
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True)
        return f"{task.name}: {done.stderr[:300]}" if done.returncode else None

    tasks = [task for task in SUITE.tasks if task.applies_to(Target.OPENMP)]
    with ThreadPoolExecutor(2) as pool:  # the compiler is the cost: one per core
        failed = [message for message in pool.map(check, tasks) if message]
    assert len(tasks) >= 50
    assert not failed, failed
