"""The light commands stay light: building the command tree, `--help`, `keys --help` and
`tasks list` (settings, a fresh SQLite store) import none of the heavy libraries. Those are
imported by the commands that use them, so that `parforge --help` starts in a fraction of a
second (`benchmarks/cli_startup.py` measures how long it takes)."""

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

PROBE = """
import json, sys
from typer.main import get_command
from typer.testing import CliRunner
from parforge.cli import app

get_command(app)
runner = CliRunner()
codes = [runner.invoke(app, args).exit_code for args in (["--help"], ["keys", "--help"])]
after_help = sorted(m for m in sys.argv[1:] if m in sys.modules)
listed = runner.invoke(app, ["tasks", "list", "--json"])
codes.append(listed.exit_code)
after_list = sorted(m for m in sys.argv[1:] if m in sys.modules)
print(json.dumps({"codes": codes, "help": after_help, "list": after_list}))
"""


def test_light_commands_import_no_heavy_library(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARFORGE_")}
    env["PARFORGE_DATA_DIR"] = str(tmp_path / "data")  # a fresh SQLite store, not a real one
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *LAZY],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["codes"] == [0, 0, 0]
    assert found["help"] == [], f"imported by `parforge --help`: {found['help']}"
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
