"""Turning model text into candidates, and the replay sources."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import Session

from agents.llm import LLMConfig
from corpus.store import evals as store
from corpus.store import keys
from corpus.store.models import EvalRunRow
from corpus.store.tasks import ANY_OWNER
from corpus.suites import load_suite
from evals.config import RunOptions
from evals.errors import EvalSetupError
from evals.extract import brace_depth, close_function, code_block, from_chat, from_completion
from evals.outcomes import unverified_result
from evals.sources import Sample, SampleSource
from evals.sources.factory import open_source
from evals.sources.prompt import PromptSource
from evals.sources.replay import ReplaySource
from sandbox.spec import Target
from tests.fakes.evals import new_run, new_store

PROMPT = (
    "#include <omp.h>\nstruct P { int x; };\n/* a { in a comment */\nvoid f(std::vector<P> &v) {"
)


def test_completion_is_cut_after_the_function_it_completes() -> None:
    completion = (
        "\n  char c = '}'; const char *s = \"}}\";\n  // }\n  for (;;) { }\n}\nint main() {}\n"
    )
    assert brace_depth(PROMPT) == 1
    assert from_completion(PROMPT, completion) == PROMPT + completion[
        : completion.index("int main")
    ].rstrip("\n")
    assert close_function(PROMPT, "  return;") == "  return;"  # never closed: kept, fails to build
    assert close_function("int x;", " anything }") == " anything }"


def test_chat_reply_with_the_whole_function_or_only_its_body() -> None:
    whole = "Sure!\n```cpp\n#include <omp.h>\nvoid f(std::vector<P> &v) {\n  v.clear();\n}\nint main() {}\n```\nBye"
    candidate = from_chat(PROMPT, whole, "f")
    assert candidate.startswith("#include <omp.h>\nstruct P { int x; };")
    assert candidate.count("void f(") == 1 and candidate.rstrip().endswith("v.clear();\n}")
    assert "int main" not in candidate and "Sure" not in candidate
    body = "```\n  v.clear();\n}\n```"
    assert from_chat(PROMPT, body, "f") == PROMPT + "\n  v.clear();\n}"
    assert code_block("no fence at all") == "no fence at all"


def test_chat_reply_that_quotes_the_prompt_before_its_answer() -> None:
    quoted = f"You asked:\n```cpp\n{PROMPT}\n```\nHere it is:\n~~~cpp\nvoid f(std::vector<P> &v) {{\n  v.pop_back();\n}}\n~~~\n"
    candidate = from_chat(PROMPT, quoted, "f")
    assert "v.pop_back();" in candidate and candidate.count("void f(") == 1
    assert code_block("```\nint x;\n```\n```\nint longer_block;\n```") == "int longer_block;\n"


async def test_replay_known_good_and_mutants_cycle() -> None:
    task = load_suite("pareval").task("03_dense_la_axpy")
    good = await ReplaySource("known-good").generate(task, Target.OPENMP, [0, 1])
    assert [s.source for s in good] == [task.target("openmp").solutions[0].source] * 2
    mutants = [m.source for m in task.target("openmp").solutions[0].mutants]
    got = await ReplaySource("mutants").generate(task, Target.OPENMP, list(range(len(mutants) + 1)))
    assert [s.source for s in got] == [*mutants, mutants[0]]
    assert isinstance(ReplaySource("mutants"), SampleSource)


async def test_replay_of_a_stored_run_and_unknown_replays(tmp_path: Path) -> None:
    engine = new_store(tmp_path)
    run_id = new_run(engine, problems=["03_dense_la_axpy"])
    with Session(engine) as session:
        store.save_results(
            session,
            run_id,
            [unverified_result("03_dense_la_axpy", "dense_la", Sample(index=1, source="int x;"))],
        )
    llm = LLMConfig(url="http://unused/v1")
    source = await open_source(f"replay:run={run_id}", RunOptions(), llm, engine)
    assert source.name == f"replay:run={run_id}"
    task = load_suite("pareval").task("03_dense_la_axpy")
    missing, stored = await source.generate(task, Target.OPENMP, [0, 1])
    assert missing.source is None and "has no sample 0" in missing.error
    assert stored.source == "int x;"
    for bad in ("replay:run=999", "replay:run=x", "replay:gold"):
        with pytest.raises(EvalSetupError):
            await open_source(bad, RunOptions(), llm, engine)


async def test_a_model_name_opens_a_prompt_source_on_the_given_url(tmp_path: Path) -> None:
    engine = new_store(tmp_path)
    options = RunOptions(url="http://elsewhere:9000/v1", api="chat")
    source = await open_source("my-adapter", options, LLMConfig(url="http://here/v1"), engine)
    try:
        assert isinstance(source, PromptSource)
        assert source.name == "my-adapter" and source.api == "chat"
        assert source.client.config.url == "http://elsewhere:9000/v1"
    finally:
        await source.aclose()


async def test_a_stored_run_is_replayed_only_for_the_key_that_can_see_it(tmp_path: Path) -> None:
    engine = new_store(tmp_path)
    with Session(engine) as session:
        mine, theirs = keys.create(session, "mine").id, keys.create(session, "theirs").id
    run_id = new_run(engine, problems=["03_dense_la_axpy"])
    with Session(engine) as session:
        store.save_results(
            session,
            run_id,
            [unverified_result("03_dense_la_axpy", "dense_la", Sample(index=0, source="int x;"))],
        )
        session.execute(update(EvalRunRow).values(owner_key_id=mine))
        session.commit()
    llm, model = LLMConfig(url="http://unused/v1"), f"replay:run={run_id}"
    with pytest.raises(
        EvalSetupError, match=f"no eval run {run_id} that this run's API key can see"
    ):
        await open_source(model, RunOptions(), llm, engine, owner=theirs)
    with pytest.raises(EvalSetupError, match="can see"):
        await open_source(model, RunOptions(), llm, engine, owner=None)  # anonymous
    for owner in (mine, ANY_OWNER):
        assert (await open_source(model, RunOptions(), llm, engine, owner=owner)).name == model
