"""`parforge translate`: bad input is refused before anything is stored; the options reach the
task; the progress lines and the summary of a stored evolution; and the whole command on the real
Docker sandbox with the agent's no-model mode (the analysis's own choice), which must hand back a
verified, race-free program and its JSON summary."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from corpus.store import open_store, tasks
from corpus.store.models import (
    JobStatus,
    ParallelTarget,
    StepKind,
    StepRow,
    TaskCreate,
    TaskOptions,
    TaskRow,
)
from parforge.app import summarize
from parforge.cli import app, translate_cmd
from parforge.cli.translate_cmd import describe, evolution_line
from tests.fakes.paths import GRAPH_PROGRAMS


@pytest.fixture
def translate(tmp_path):
    url = f"sqlite:///{tmp_path / 'store.db'}"
    env = {
        "PARFORGE_DATA_DIR": str(tmp_path / "data"),
        "PARFORGE_STORE__URL": url,
        "PARFORGE_GRAPH__USE_MODEL": "false",
    }

    def invoke(*args: str) -> tuple[int, str, str]:
        result = CliRunner().invoke(app, ["translate", *args], env=env)
        return result.exit_code, result.stdout, result.stderr

    invoke.url = url  # type: ignore[attr-defined]
    return invoke


@pytest.mark.parametrize(
    ("name", "text", "extra", "message"),
    [
        ("script.c", "def main():\n    print('hello')\n" * 3, [], "not a c program"),
        ("script.py", "print('hello')\n", [], "ParForge translates C, C++ and CUDA sources"),
        ("lib.c", "int twice(int x) { return 2 * x; }\n", [], "no main()"),
        (
            "prog.c",
            (GRAPH_PROGRAMS / "reduce.c").read_text(),
            ["--function", "nope"],
            "no function 'nope'",
        ),
    ],
)
def test_bad_input_is_refused_with_exit_2_and_nothing_stored(
    translate, tmp_path, name, text, extra, message
):
    path = tmp_path / name
    path.write_text(text)
    code, _, err = translate(str(path), "--target", "openmp", *extra)
    assert code == 2, err
    assert message in " ".join(err.split())
    engine = open_store(translate.url)
    with Session(engine) as session:
        assert session.exec(select(TaskRow)).all() == []
    engine.dispose()


@pytest.mark.parametrize(
    ("extra", "options"),
    [
        ([], {"reasoning_threads": None, "evolve": None, "generations": None}),
        (["--reasoning-threads", "3"], {"reasoning_threads": 3, "evolve": None}),
        (["--evolve"], {"evolve": True, "generations": None}),
        (["--generations", "7"], {"evolve": True, "generations": 7}),  # implies --evolve
        (["--evolve", "--generations", "100"], {"evolve": True, "generations": 100}),
    ],
)
def test_options_reach_the_task(translate, monkeypatch, extra, options):
    made: list[TaskCreate] = []

    async def fake_translate(config, create, as_json, start_model):
        made.append(create)
        return JobStatus.SUCCEEDED, summary_of("int main(void) { return 0; }\n")

    monkeypatch.setattr(translate_cmd, "_translate", fake_translate)
    code, _, err = translate(str(GRAPH_PROGRAMS / "reduce.c"), "--target", "openmp", *extra)
    assert code == 0, err
    [create] = made
    assert isinstance(create.options, TaskOptions)
    assert {k: getattr(create.options, k) for k in options} == options


@pytest.mark.parametrize("generations", ["0", "101"])
def test_generations_out_of_range_is_refused(translate, generations):
    code, _, err = translate(
        str(GRAPH_PROGRAMS / "reduce.c"), "--target", "openmp", "--generations", generations
    )
    assert code == 2 and "--generations" in err


def _task_with_steps(url: str, results: list[tuple[str, object]]) -> str:
    engine = open_store(url)
    with Session(engine) as s:
        create = TaskCreate(target=ParallelTarget.OPENMP, source="int main(void) { return 0; }")
        task = tasks.claim(s, "w", tasks.submit(s, create).id)
        assert task is not None
        run = tasks.start_run(s, task, "graph", "w")
        assert run.id is not None
        for seq, (name, result) in enumerate(results, 1):
            s.add(
                StepRow(
                    task_id=task.id,
                    run_id=run.id,
                    seq=seq,
                    kind=StepKind.TOOL_CALL,
                    name=name,
                    result=result,
                )
            )
        s.commit()
        task_id = task.id
    engine.dispose()
    return task_id


LINEAGE = [
    {"candidate_id": 3, "operator": "seed", "label": "parallel for", "speedup": 1.02},
    {
        "candidate_id": 12,
        "operator": "mutate",
        "label": "schedule(static)",
        "speedup": 1.71,
        "confidence": 0.93,
        "over_best": 0.98,
        "extra": "not part of the contract",
    },
]
EVOLUTION = {
    "generations": 4,
    "evaluations": 17,
    "first_speedup": 1.02,
    "best_speedup": 1.71,
    "best_candidate_id": 12,
    "best_confidence": 0.98,
    "first_candidate_id": 3,
    "lineage": LINEAGE,
    "stopped": "no improvement for 2 generations",
    "seed": 7,
    "population": ["engine-internal, not passed on"],
}


def test_summary_takes_the_last_evolution_step(tmp_path):
    url = f"sqlite:///{tmp_path / 'store.db'}"
    earlier = {"generations": 1, "evaluations": 2, "first_speedup": 1.0, "best_speedup": 1.1}
    steps = [("evolution", earlier), ("verify", {"status": "passed"}), ("evolution", EVOLUTION)]
    task_id = _task_with_steps(url, steps)
    plain = _task_with_steps(url, [("verify", {"status": "passed"})])
    engine = open_store(url)
    try:
        with Session(engine) as session:
            evolution = summarize(session, task_id).evolution
            assert summarize(session, plain).evolution is None
    finally:
        engine.dispose()
    expected = {k: v for k, v in EVOLUTION.items() if k != "population"}
    expected["lineage"] = [
        {**LINEAGE[0], "confidence": None, "over_best": None},
        {k: v for k, v in LINEAGE[1].items() if k != "extra"},
    ]
    assert evolution == expected
    assert json.loads(json.dumps(evolution)) == evolution
    assert evolution_line(evolution) == (
        "evolution: 4 generations, 17 evaluations, 1.02x -> 1.71x "
        "(best candidate 12, confidence 0.98)"
    )


def test_evolution_line_leaves_out_what_is_unknown():
    evolution = {
        "generations": 2,
        "evaluations": 5,
        "first_speedup": 1.5,
        "best_speedup": 1.5,
        "best_candidate_id": None,
        "lineage": [{"candidate_id": 4, "confidence": None}],
    }
    assert evolution_line(evolution) == "evolution: 2 generations, 5 evaluations, 1.50x -> 1.50x"
    evolution["best_candidate_id"] = 4
    assert evolution_line(evolution).endswith("1.50x -> 1.50x (best candidate 4)")


def test_progress_lines_name_what_happened():
    assert describe(
        "step", {"kind": "llm_call", "name": "plan", "latency_s": 2.5, "completion_tokens": 90}
    ) == ("  model  plan 2.5s, 90 tokens")
    verdict = {
        "name": "verify",
        "kind": "tool_call",
        "arguments": {"candidate_id": 3},
        "result": {"status": "race"},
    }
    assert describe("step", verdict) == "  sandbox verify candidate 3: race"
    # the analysis branch's own `verify` tool step (no call id) wraps the sandbox's step
    branch = {"name": "verify", "kind": "tool_call", "arguments": {"candidate": {"id": 3}}}
    assert describe("step", {**branch, "latency_s": 2.0}) == "  tool   verify 2.0s"
    tool = {
        "name": "annotate",
        "kind": "tool_call",
        "tool_call_id": "c1",
        "error": "ToolError: no loop",
    }
    assert describe("step", tool) == "  tool   annotate (ToolError: no loop)"
    assert (
        describe("status", {"status": "succeeded", "reason": "1 of 1 passed"})
        == "task succeeded: 1 of 1 passed"
    )


@pytest.mark.docker
@pytest.mark.vllm
@pytest.mark.slow
def test_translate_hands_back_a_verified_program_as_json(translate, sandbox_image, vllm_server):
    code, out, err = translate(
        str(GRAPH_PROGRAMS / "reduce.c"),
        "--target",
        "openmp",
        "--test",
        "1000",
        "--test",
        "2000000",
        "--json",
    )
    summary = json.loads(out)
    assert code == 0, err
    assert summary["status"] == "succeeded" and summary["verified"], summary["reason"]
    best = summary["best"]
    assert best["verdict"]["status"] == "passed" and best["verdict"]["race_free"] is True
    assert isinstance(best["verdict"]["faster"], bool)
    assert "#pragma omp parallel for reduction(+:total)" in best["source"]
    assert summary["llm_calls"] == 0 and summary["tool_calls"] >= 2 and summary["candidates"] >= 1


@pytest.mark.parametrize("fast", [True, False])
def test_a_verified_program_that_is_not_faster_says_so(monkeypatch, fast):
    from io import StringIO

    from rich.console import Console

    said = StringIO()
    monkeypatch.setattr(translate_cmd, "console", Console(file=said, width=200))
    translate_cmd._print(summary_of("x", faster=fast))
    assert ("not faster than the original" in said.getvalue()) is not fast


def summary_of(source: str, faster: bool = True):
    from parforge.app.summary import BestCandidate, BestVerdict, TaskSummary

    verdict = BestVerdict(
        status="passed", race_free=True, speedup={"2": 0.68}, faster=faster, reason=""
    )
    return TaskSummary(
        task_id="t",
        status="succeeded",
        verified=True,
        reason="",
        best=BestCandidate(candidate_id=1, strategy="annotate", source=source, verdict=verdict),
        candidates=1,
        llm_calls=0,
        tool_calls=2,
        tokens=0,
        reasoning=None,
        evolution=None,
    )


LONG = (
    "#include <stdio.h>\n"
    "int main(void) {\n"
    "  long total = 0;\n"
    "  #pragma omp parallel for reduction(+:total) schedule(static) default(none) "
    "shared(stdout) firstprivate(total) [bold]not markup[/bold]\n"
    "  for (int i = 0; i < 10; ++i) total += i;\n"
    '  printf("%ld\\n", total);\n'
    "}"
)


@pytest.mark.parametrize("as_json", [False, True])
def test_the_program_comes_out_exactly_as_verified(translate, monkeypatch, tmp_path, as_json):
    # Piped output used to go through a console that wrapped at 80 columns (a pragma split in
    # two does not compile) and read `[...]` as markup.
    async def fake_translate(config, create, as_json, start_model):
        return JobStatus.SUCCEEDED, summary_of(LONG)

    monkeypatch.setattr(translate_cmd, "_translate", fake_translate)
    monkeypatch.setenv("COLUMNS", "80")
    flags = ["--json"] if as_json else []
    code, out, err = translate(str(GRAPH_PROGRAMS / "reduce.c"), "--target", "openmp", *flags)
    assert code == 0, err
    if as_json:
        assert json.loads(out)["best"]["source"] == LONG
    else:
        assert out == LONG + "\n"

    written = tmp_path / "out" / "sum_omp.c"
    written.parent.mkdir()
    code, out, err = translate(
        str(GRAPH_PROGRAMS / "reduce.c"), "--target", "openmp", "--out", str(written), *flags
    )
    assert code == 0, err
    assert written.read_text() == LONG + "\n"
    if not as_json:
        assert LONG.splitlines()[3] not in out  # the file has it; stdout keeps the summary
    assert f"wrote {written}" in " ".join(err.split())


def test_an_unwritable_out_file_is_bad_input(translate, monkeypatch, tmp_path):
    async def fake_translate(config, create, as_json, start_model):
        return JobStatus.SUCCEEDED, summary_of(LONG)

    monkeypatch.setattr(translate_cmd, "_translate", fake_translate)
    missing = tmp_path / "no such dir" / "x.c"
    code, _, err = translate(
        str(GRAPH_PROGRAMS / "reduce.c"), "--target", "openmp", "--out", str(missing)
    )
    assert code == 2 and "cannot write" in err
