"""The CLI's contract (docs/commands.md): one spelling per concept across commands, old
spellings as hidden aliases that say they are deprecated, `--json` wherever a command lists,
waits or produces, and the documented exit statuses with one-line errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from parforge.cli import COMMANDS, app, load
from tests.fakes.judge import judging_originals


def commands() -> Iterator[tuple[str, Any]]:
    def walk(command: Any, path: str) -> Iterator[tuple[str, Any]]:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                yield from walk(sub, f"{path} {name}")
        else:
            yield path, command

    for name in COMMANDS:
        yield from walk(load(name), name)


def options(command: Any, *, hidden: bool = False) -> set[str]:
    return {
        spelling
        for param in command.params
        if param.param_type_name == "option" and param.hidden is hidden
        for spelling in [*param.opts, *param.secondary_opts]
    }


ALL = dict(commands())
DEPRECATED = {"--to": "--target", "--time-limit": "--budget-time"}
"""Old spelling: the one kept."""
SYNONYMS = {
    "the target model": {"--target", "--to", "--model-target"},
    "the time of a whole task": {"--budget-time", "--time-limit", "--timeout-s"},
    "the tokens of a whole task": {"--budget-tokens", "--token-budget"},
    "JSON output": {"--json", "--as-json", "--format-json"},
}
JSON_COMMANDS = [
    "translate",
    "analyse",
    "verify",
    "tasks submit",
    "tasks show",
    "tasks list",
    "tasks cancel",
    "eval run",
    "eval report",
    "eval list",
    "sandbox info",
    "sandbox build",
    "sandbox prune",
    "export",
    "model serve",
    "model status",
    "keys create",
    "keys list",
    "keys revoke",
    "check race",
    "cluster status",
]


def test_every_command_is_walked():
    assert {"translate", "tasks submit", "eval run", "keys list", "model serve"} <= set(ALL)


def test_one_visible_spelling_per_concept_across_commands():
    visible = {path: options(command) for path, command in ALL.items()}
    for concept, spellings in SYNONYMS.items():
        used = {s for opts in visible.values() for s in opts if s in spellings}
        assert len(used) <= 1, (concept, used)
    for old in DEPRECATED:
        assert all(old not in opts for opts in visible.values()), old


def test_old_spellings_are_hidden_aliases_beside_the_new():
    for path in ("translate", "tasks submit"):
        hidden = options(ALL[path], hidden=True)
        assert set(DEPRECATED) <= hidden, (path, hidden)
        assert set(DEPRECATED.values()) <= options(ALL[path]), path


def test_both_submission_commands_take_the_same_task_options():
    shared = options(ALL["translate"]) & options(ALL["tasks submit"])
    for name in ("--target", "--language", "--function", "--test", "--tests", "--rtol"):
        assert name in shared, name
    for name in ("--samples", "--max-tokens", "--budget-tokens", "--budget-time", "--json"):
        assert name in shared, name
    for name in ("--reasoning-threads", "--evolve", "--generations", "--start-model"):
        assert name in shared, name


@pytest.mark.parametrize("path", JSON_COMMANDS)
def test_commands_that_list_wait_or_produce_print_json(path):
    assert "--json" in options(ALL[path]), path


@pytest.fixture
def invoke(tmp_path, monkeypatch):
    monkeypatch.setattr("parforge.app.sandbox_judge", lambda settings: judging_originals())
    env = {
        "PARFORGE_DATA_DIR": str(tmp_path / "data"),
        "PARFORGE_STORE__URL": f"sqlite:///{tmp_path / 'store.db'}",
        "PARFORGE_SERVER__RUNNER": "none",
    }

    def run(*args: str) -> Any:
        return CliRunner().invoke(app, list(args), env=env)

    return run


def test_an_old_spelling_still_works_and_says_it_is_deprecated(invoke, tmp_path):
    program = tmp_path / "p.c"
    program.write_text("int main(void) { return 0; }\n")
    result = invoke("tasks", "submit", str(program), "--to", "openmp", "--time-limit", "60")
    assert result.exit_code == 0, result.output
    assert "--to is deprecated: use --target" in result.stderr
    assert "--time-limit is deprecated: use --budget-time" in result.stderr
    task_id = result.stdout.strip()
    shown = json.loads(invoke("tasks", "show", task_id, "--json").stdout)["task"]
    assert shown["target"] == "openmp" and shown["budgets"]["time_s"] == 60.0
    # Both spellings that disagree: bad input, before any work.
    clash = invoke("translate", str(program), "--target", "mpi", "--to", "openmp")
    assert clash.exit_code == 2 and "disagree" in clash.stderr
    missing = invoke("translate", str(program))
    assert missing.exit_code == 2 and "missing option --target" in missing.stderr


def test_json_of_submit_cancel_and_keys(invoke, tmp_path):
    program = tmp_path / "p.c"
    program.write_text("int main(void) { return 0; }\n")
    queued = json.loads(
        invoke("tasks", "submit", str(program), "--target", "openmp", "--json").stdout
    )
    assert queued["status"] == "queued"
    cancelled = json.loads(invoke("tasks", "cancel", queued["id"][:8], "--json").stdout)
    assert cancelled == {"id": queued["id"], "status": "cancelled", "detail": "cancelled"}
    again = invoke("tasks", "cancel", queued["id"])
    assert again.exit_code == 1 and "has already cancelled" in again.stderr
    key = json.loads(invoke("keys", "create", "ci", "--json").stdout)
    assert key["token"].startswith("pf_") and key["name"] == "ci"
    [listed] = json.loads(invoke("keys", "list", "--json").stdout)
    assert listed["name"] == "ci" and "token" not in listed


def test_bad_input_is_one_line_and_exit_2(invoke, tmp_path):
    tests = tmp_path / "tests.json"
    tests.write_text('[{"name": "a", "argz": ["1"]}]')
    program = tmp_path / "p.c"
    program.write_text("int main(void) { return 0; }\n")
    result = invoke("translate", str(program), "--target", "openmp", "--tests", str(tests))
    assert result.exit_code == 2, result.output
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: invalid tests") and "argz" in line
    assert "Traceback" not in result.output and "errors.pydantic.dev" not in result.output
