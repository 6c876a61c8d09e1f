"""`parforge translate`: bad input is refused before anything is stored; the progress lines; and
the whole command on the real Docker sandbox with the agent's no-model mode (the analysis's own
choice), which must hand back a verified, race-free program and its JSON summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from corpus.store import open_store
from corpus.store.models import Task
from parforge.cli import app
from parforge.cli.translate_cmd import describe

PROGRAMS = Path(__file__).parent.parent.parent / "agents/graphs/programs"


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
        ("lib.c", "int twice(int x) { return 2 * x; }\n", [], "no main()"),
        (
            "prog.c",
            (PROGRAMS / "reduce.c").read_text(),
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
    code, _, err = translate(str(path), "--to", "openmp", *extra)
    assert code == 2, err
    assert message in " ".join(err.split())
    engine = open_store(translate.url)
    with Session(engine) as session:
        assert session.exec(select(Task)).all() == []
    engine.dispose()


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
        str(PROGRAMS / "reduce.c"),
        "--to",
        "openmp",
        "--test",
        "1000",
        "--test",
        "2000000",
        "--json",
    )
    summary = json.loads(out)
    assert code == 0, err
    assert summary["status"] == "verified", summary["reason"]
    best = summary["best"]
    assert best["verdict"]["status"] == "passed" and best["verdict"]["race_free"] is True
    assert "#pragma omp parallel for reduction(+:total)" in best["source"]
    assert summary["llm_calls"] == 0 and summary["tool_calls"] >= 2 and summary["candidates"] >= 1
