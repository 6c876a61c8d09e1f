"""`parforge eval run / list / report` on a real store and real compilers (the local sandbox
backend, so that it needs no image), replaying known-good solutions; and the graph agent's
options, stored with the run or refused for other agents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlmodel import Session
from typer.testing import CliRunner

from corpus.store import evals as store
from corpus.store import open_store
from evals.config import RunOptions
from parforge.cli import app, eval_cmd


@pytest.fixture
def cli(tmp_path: Path):
    env = {
        "PARFORGE_DATA_DIR": str(tmp_path / "data"),
        "PARFORGE_STORE__URL": f"sqlite:///{tmp_path / 'cli.db'}",
        "PARFORGE_SANDBOX__TYPE": "local",
    }
    runner = CliRunner()

    def invoke(*args: str, code: int = 0) -> tuple[str, str]:
        result = runner.invoke(app, list(args), env=env)
        assert result.exit_code == code, result.output
        return result.stdout, result.stderr

    return invoke


@pytest.mark.slow
def test_run_list_report_and_resume(cli, tmp_path: Path) -> None:
    args = ["--model", "replay:known-good", "--problems", "03_*", "--samples", "2", "--no-timing"]
    _, err = cli("eval", "run", *args)
    assert "eval run 1" in err and "succeeded pass@1 100.0%" in err.replace("\n", " ")
    [listed] = json.loads(cli("eval", "list", "--json")[0])
    assert listed["model"] == "replay:known-good" and listed["status"] == "succeeded"
    assert listed["progress"]["finished"] == listed["progress"]["total"] == 2
    assert listed["problems"] == ["03_dense_la_axpy"] and listed["timing"] is False
    assert "100.0%" in cli("eval", "list")[0]

    out = tmp_path / "report"
    table, err = cli("eval", "report", "1", "--out", str(out), "--k", "1,2,5")
    assert "100.0%" in table
    assert "warning: k = 5 left out: run 1 has 2 sample(s) per problem" in " ".join(err.split())
    md = (out / "report.md").read_text()
    assert "| 03_dense_la_axpy | dense_la | 2 | 2 | 2 | 2 |" in md
    assert "Speed was not measured" in md
    assert (out / "rates.png").exists()

    _, err = cli("eval", "run", "--resume", "1")  # nothing left to do: finishes at once
    assert "succeeded" in err
    printed, _ = cli("eval", "run", "--resume", "1", "--json")
    summary = json.loads(printed)  # one object on stdout; the progress went to stderr
    assert summary["id"] == 1 and summary["status"] == "succeeded"
    assert summary["progress"]["statuses"] == {"passed": 2}
    assert summary["summary"] == listed["summary"] and summary["summary"]["rows"]
    cli("eval", "run", "--resume", "7", code=1)
    cli("eval", "report", "7", code=1)
    _, err = cli("eval", "run", "--problems", "nothing*", code=2)  # bad input
    assert "no openmp tasks matching nothing*" in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--reasoning-threads", "2"], "--reasoning-threads needs --agent graph"),
        (["--evolve"], "--evolve needs --agent graph"),
        (["--generations", "3"], "--generations needs --agent graph"),
        (["--agent", "analysis", "--evolve"], "--evolve needs --agent graph"),
    ],
)
def test_graph_options_need_the_graph_agent(cli, extra: list[str], message: str) -> None:
    _, err = cli("eval", "run", "--problems", "03_*", *extra, code=2)
    assert message in err


@pytest.mark.parametrize(
    ("extra", "evolve", "generations"),
    [
        ([], None, None),
        (["--evolve"], True, None),
        (["--generations", "3"], True, 3),  # implies --evolve
        (["--evolve", "--generations", "100"], True, 100),
    ],
)
def test_evolution_options_are_stored_with_the_run(
    cli, tmp_path: Path, monkeypatch, extra: list[str], evolve, generations
) -> None:
    async def fake_execute(config, engine, eval_id):
        with Session(engine) as session:
            return store.get(session, eval_id)

    async def model_answers(config, start, kept=""):
        pass

    monkeypatch.setattr(eval_cmd, "_execute", fake_execute)
    monkeypatch.setattr(eval_cmd, "model_or_exit", model_answers)
    cli("eval", "run", "--agent", "graph", "--problems", "03_*", *extra, code=1)  # still queued
    engine = open_store(f"sqlite:///{tmp_path / 'cli.db'}")
    with Session(engine) as session:
        row = store.get(session, 1)
    engine.dispose()
    assert row is not None
    options = RunOptions.model_validate(row.options)
    assert (options.agent, options.evolve, options.generations) == ("graph", evolve, generations)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--target", "fortran"], "unknown target 'fortran'"),
        (["run", "--api", "grpc"], "unknown api 'grpc'"),
        (["run", "--translate-from", "fortran"], "unknown source model 'fortran'"),
    ],
)
def test_bad_values_are_bad_input_exit_2(cli, args: list[str], message: str) -> None:
    _, err = cli("eval", *args, code=2)
    assert message in err
