"""The light commands stay light: building the command tree, `--help`, `keys --help` and
`tasks list` (settings, a fresh SQLite store) import none of the heavy libraries; the two help
commands not even the store's SQLAlchemy, and `tasks list` on a store already at the newest
schema neither Alembic nor the verifier's models. Those are imported by the commands that use
them, so that `parforge --help` starts in a fraction of a second (`benchmarks/cli_startup.py`
measures how long it takes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[3]

# What only the heavy commands need: the agents' graphs, tracing, the sandbox's Docker SDK,
# the cluster, the LLM client, the model server, the HTTP API.
LAZY = (
    "langgraph",
    "langsmith",
    "docker",
    "ray",
    "openai",
    "httpx",
    "fastapi",
    "uvicorn",
    "vllm",
)

# What the help commands do without: the store (SQLAlchemy, SQLModel, Alembic), an event loop.
STORE = ("sqlalchemy", "sqlmodel", "alembic", "asyncio")

# What listing tasks does without once the store is at the newest schema: the migrations, the
# PostgreSQL dialect (SQLite here), the verifier's models and `tasks show`'s view of them, the
# model client's wire models (the settings import only its config).
AT_HEAD = (
    "alembic",
    "sqlalchemy.dialects.postgresql",
    "sandbox.verdict",
    "parforge.cli.verify_cmd",
    "parforge.cli._task_view",
    "agents.llm.protocol",
)

PROBE = """
import json, sys
from typer.main import get_command
from typer.testing import CliRunner
from parforge.cli import app

def imported():
    return sorted(m for m in sys.argv[1:] if m in sys.modules)

get_command(app)
runner = CliRunner()
codes = [runner.invoke(app, args).exit_code for args in (["--help"], ["keys", "--help"])]
after_help = imported()
listed = runner.invoke(app, ["tasks", "list", "--json"])
codes.append(listed.exit_code)
print(json.dumps({"codes": codes, "help": after_help, "list": imported()}))
"""


def probe(data_dir: Path, modules: tuple[str, ...]) -> dict[str, list[object]]:
    """Which of `modules` a fresh interpreter has imported after the help commands, and then
    after `tasks list` on the store in `data_dir` (with the exit codes of all three)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARFORGE_")}
    env["PARFORGE_DATA_DIR"] = str(data_dir)  # a throw-away SQLite store, not a real one
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *modules],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, list[object]] = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["codes"] == [0, 0, 0]
    return found


def test_light_commands_import_no_heavy_library(tmp_path: Path) -> None:
    found = probe(tmp_path / "data", LAZY + STORE)
    assert found["help"] == [], f"imported by `parforge --help`, `keys --help`: {found['help']}"
    heavy = sorted(set(LAZY) & set(map(str, found["list"])))
    assert heavy == [], f"imported by `parforge tasks list`: {heavy}"


def test_listing_tasks_on_a_store_at_head_imports_neither_migrations_nor_verdicts(
    tmp_path: Path,
) -> None:
    probe(tmp_path / "data", AT_HEAD)  # creates and migrates the store
    found = probe(tmp_path / "data", AT_HEAD)
    assert found["list"] == [], f"imported by `parforge tasks list`: {found['list']}"


def test_the_root_help_lists_each_command_with_its_own_help_line() -> None:
    """The lines `parforge --help` shows without importing a command are the commands' own."""
    from typer.core import TyperGroup

    from parforge.cli import COMMANDS, app, load

    for name, lazy in COMMANDS.items():
        command = load(name)
        assert command.name == name
        assert (command.help or "").split("\n\n")[0].strip() == lazy.help, name
    help_text = CliRunner().invoke(app, ["--help"]).output
    for name in COMMANDS:
        assert name in help_text
    assert isinstance(load("tasks"), TyperGroup) and not isinstance(load("serve"), TyperGroup)


PROBE_ROOT_HELP = """
import sys
from typer.testing import CliRunner
from parforge.cli import app
assert CliRunner().invoke(app, ["--help"]).exit_code == 0
print(sorted(m for m in sys.modules if m.startswith("parforge.cli.")))
"""


def test_the_root_help_imports_no_command_module() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE_ROOT_HELP],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
