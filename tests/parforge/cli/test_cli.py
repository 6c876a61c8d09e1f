"""The CLI on a real store: keys, tasks (run here with --wait) and export."""

from __future__ import annotations

import asyncio
import json

import pytest
from typer.testing import CliRunner

from corpus.store import open_store
from parforge.cli import app
from tests.fakes.evolution import store_evolution
from tests.fakes.judge import judging_originals


@pytest.fixture(autouse=True)
def judge(monkeypatch):
    """Submissions' originals pass without a sandbox: these tests are about the commands."""
    monkeypatch.setattr("parforge.app.sandbox_judge", lambda settings: judging_originals())


@pytest.fixture
def cli(store_url, tmp_path):
    env = {
        "PARFORGE_DATA_DIR": str(tmp_path / "data"),
        "PARFORGE_STORE__URL": store_url,
        "PARFORGE_SERVER__RUNNER": "tests.fakes.runners:build_scripted_runner",
        "PARFORGE_SERVER__RUNNER_OPTIONS": json.dumps({"samples": 2}),
        "PARFORGE_SERVER__POLL_S": "0.05",
    }
    runner = CliRunner()

    def invoke(*args: str, code: int = 0) -> str:
        result = runner.invoke(app, list(args), env=env)
        assert result.exit_code == code, result.output
        return result.stdout

    return invoke


def test_keys(cli):
    token = cli("keys", "create", "ci").strip().splitlines()[-1]
    assert token.startswith("pf_")
    assert "ci" in cli("keys", "list")
    cli("keys", "revoke", "ci")
    cli("keys", "revoke", "ci", code=1)  # no live key of that name any more


def test_submit_wait_show_list_export(cli, tmp_path):
    src = tmp_path / "saxpy.c"
    src.write_text(
        "void saxpy(int n, float a, float *x, float *y) { for (int i=0;i<n;i++) y[i]+=a*x[i]; }\n"
        "int main(void) { float x[4] = {1}, y[4] = {2}; saxpy(4, 2.0f, x, y); return 0; }\n"
    )
    task_id = (
        cli("tasks", "submit", str(src), "--target", "openmp", "--wait").strip().splitlines()[-1]
    )
    shown = json.loads(cli("tasks", "show", task_id, "--json"))
    assert shown["task"]["status"] == "succeeded" and shown["task"]["language"] == "c"
    assert [c["verdict"]["status"] for c in shown["candidates"]] == ["passed", "race"]
    listed = json.loads(cli("tasks", "list", "--json"))
    assert [t["id"] for t in listed] == [task_id]
    cli("tasks", "cancel", task_id, code=1)  # already ended
    out = tmp_path / "sft.jsonl"
    cli("export", "--format", "sft", "--out", str(out), "--verified-only")
    [line] = [json.loads(x) for x in out.read_text().splitlines()]
    assert line["messages"][1]["content"].startswith("void saxpy")
    assert len(cli("export", "-f", "openai", "-o", "-").splitlines()) == 1  # verified: the default
    assert len(cli("export", "-f", "openai", "-o", "-", "--all").splitlines()) == 2
    dpo = cli("export", "-f", "dpo", "-o", "-")
    assert len(dpo.splitlines()) == 1
    # A dataset directory: both splits in one run, its card and schema beside them.
    dataset = tmp_path / "ds"
    written = cli(
        "export",
        "-f",
        "openai-dpo",
        "--dataset",
        str(dataset),
        "--validation-fraction",
        "0",
        "--json",
    )
    assert json.loads(written)["lines"] == {"train": 1, "validation": 0}
    assert {p.name for p in dataset.iterdir()} == {
        "README.md",
        "schema.json",
        "train.jsonl",
        "train.metadata.jsonl",
        "validation.jsonl",
        "validation.metadata.jsonl",
    }
    [pair] = [json.loads(x) for x in (dataset / "train.jsonl").read_text().splitlines()]
    assert set(pair) == {"input", "preferred_output", "non_preferred_output"}
    cli("export", "-f", "sft", "-o", "-", "--dataset", str(dataset), code=2)  # one or the other
    cli("export", "-f", "sft", "-o", "-", "--parquet", code=2)


def test_export_evolution_pairs(cli, store_url):
    engine = open_store(store_url)
    try:
        ids = asyncio.run(store_evolution(engine))
    finally:
        engine.dispose()
    lines = [json.loads(x) for x in cli("export", "-f", "evolution-pairs", "-o", "-").splitlines()]
    assert [(x["metadata"]["kind"], x["metadata"]["chosen_candidate_id"]) for x in lines] == [
        ("faster", ids["fast"]),
        ("correct", ids["seed"]),
        ("faster", ids["fast"]),
    ]
    assert cli("export", "-f", "evolution-pairs", "-o", "-", "--target", "mpi") == ""


def test_submit_queues_and_cancel(cli, tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k() {}\nint main() { k<<<1, 1>>>(); return 0; }\n")
    task_id = cli("tasks", "submit", str(src), "--target", "openmp").strip().splitlines()[-1]
    assert json.loads(cli("tasks", "show", task_id, "--json"))["task"]["language"] == "cuda"
    cli("tasks", "cancel", task_id)
    assert json.loads(cli("tasks", "show", task_id, "--json"))["task"]["status"] == "cancelled"
    cli("tasks", "show", "f" * 32, code=1)


def test_submit_with_tests_and_budgets_then_show_the_best_candidate(cli, tmp_path):
    src = tmp_path / "heat.c"
    src.write_text("int main(int argc, char **argv) { return 0; }\n")
    args = ["--target", "openmp", "--test", "32 10", "--test", "'a b' c", "--samples", "2"]
    args += ["--max-tokens", "300", "--budget-time", "60", "--wait"]
    task_id = cli("tasks", "submit", str(src), *args).strip().splitlines()[-1]
    task = json.loads(cli("tasks", "show", task_id, "--json"))["task"]
    assert [(t["name"], t["args"]) for t in task["tests"]] == [
        ("test-1", ["32", "10"]),
        ("test-2", ["a b", "c"]),
    ]
    assert task["budgets"] == {"samples": 2, "max_tokens": 300, "time_s": 60.0, "tokens": None}
    shown = cli("tasks", "show", task_id)
    assert "best candidate: 1" in shown and "PASSED" in shown
    assert "2.50x" in shown and "race" in shown  # the statuses of all candidates
    assert "// sample 0 of attempt 1" in shown  # the best candidate's code
    assert "// sample 0" not in cli("tasks", "show", task_id, "--no-code")
    # an id as `tasks list` shortens it names the task; too short or a pattern does not
    assert cli("tasks", "show", task_id[:8], "--code-only") == cli(
        "tasks", "show", task_id, "--code-only"
    )
    cli("tasks", "show", task_id[:3], code=1)
    cli("tasks", "show", "____", code=1)  # LIKE wildcards are literal
    # --code-only: the best program and nothing else, exactly as stored
    candidates = json.loads(cli("tasks", "show", task_id, "--json"))["candidates"]
    [best] = [c for c in candidates if c["id"] == task["best_candidate_id"]]
    code = cli("tasks", "show", task_id, "--code-only")
    assert code.rstrip("\n") == best["source"].rstrip("\n") and "best candidate" not in code


def test_a_bad_setting_is_a_message_and_exit_2(tmp_path):
    env = {"PARFORGE_DATA_DIR": str(tmp_path), "PARFORGE_SANDBOX__TYPE": "bogus"}
    result = CliRunner().invoke(app, ["tasks", "list"], env=env)
    assert result.exit_code == 2
    assert "invalid settings" in result.output and "bogus" in result.output
    assert "Traceback" not in result.output


def test_a_task_where_nothing_passed_says_so_and_exits_1(store_url, tmp_path):
    env = {
        "PARFORGE_DATA_DIR": str(tmp_path / "data"),
        "PARFORGE_STORE__URL": store_url,
        "PARFORGE_SERVER__RUNNER": "tests.fakes.runners:build_scripted_runner",
        "PARFORGE_SERVER__RUNNER_OPTIONS": json.dumps({"samples": 2, "passes": 0}),
        "PARFORGE_SERVER__POLL_S": "0.05",
    }
    src = tmp_path / "sum.c"
    src.write_text("int main(void) { return 0; }\n")
    runner = CliRunner()
    result = runner.invoke(
        app, ["tasks", "submit", str(src), "--target", "openmp", "--wait"], env=env
    )
    assert result.exit_code == 1, result.output
    task_id = result.stdout.strip().splitlines()[-1]
    assert f"task {task_id} no_verified_candidate: 0 of 2 passed" in result.stderr
    listed = runner.invoke(
        app, ["tasks", "list", "--status", "no_verified_candidate", "--json"], env=env
    )
    assert [t["id"] for t in json.loads(listed.stdout)] == [task_id]
    shown = runner.invoke(app, ["tasks", "show", task_id], env=env).stdout
    assert "no_verified_candidate" in shown and "no candidate passed" in shown
    only = runner.invoke(app, ["tasks", "show", task_id, "--code-only"], env=env)
    assert only.exit_code == 1 and only.stdout == ""
    assert "has no best program (no_verified_candidate" in only.stderr


def test_submit_names_the_agent_and_refuses_an_unknown_one(cli, tmp_path):
    src = tmp_path / "sum.c"
    src.write_text("int main(void) { return 0; }\n")
    task_id = cli("tasks", "submit", str(src), "--target", "openmp", "--agent", "prompt")
    task = json.loads(cli("tasks", "show", task_id.strip().splitlines()[-1], "--json"))["task"]
    assert task["agent"] == "prompt"
    result = CliRunner().invoke(
        app,
        ["tasks", "submit", str(src), "--target", "openmp", "--agent", "evolve"],
        env={"PARFORGE_DATA_DIR": str(tmp_path / "data")},
    )
    assert result.exit_code == 2
    assert "unknown agent 'evolve': use one of graph, prompt" in result.stderr
    assert json.loads(cli("tasks", "list", "--json"))[0]["agent"] == "prompt"
