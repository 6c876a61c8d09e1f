"""Every `parforge ...` command the README and the docs show parses as written: no option that
the command does not take, no deprecated spelling, no missing argument. (Running each is the
business of the tests of each command and of `scripts/demo`; this keeps the pages true to the
CLI as it changes.)"""

from __future__ import annotations

import re
import shlex
from typing import Any

import pytest
import typer

from parforge.cli import COMMANDS, load
from tests.fakes.paths import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COMMAND = re.compile(r"(?:^|\s)(?:\.venv/bin/|\"\$PARFORGE\" )?parforge (.*)$")
PLACEHOLDERS = {"<task id>": "1", " ID": " 1", " RUN": " 1", " K": " 2"}
SHELL = re.compile(r"\s(?:&|>|\||;|#|\\$)")
"""Where the shell takes over: redirections, pipes, comments, a continued line."""


def documented() -> list[tuple[str, str]]:
    """The command lines of the pages' shell blocks (inline mentions name commands, they do
    not show how to call them)."""
    found = []
    for page in PAGES:
        for block in re.findall(r"```(?:sh|bash)?\n(.*?)```", page.read_text(), re.S):
            for line in block.splitlines():
                match = COMMAND.search(line)
                if match:
                    command = SHELL.split(" " + match.group(1), maxsplit=1)[0].strip()
                    found.append((page.name, command))
    return found


def words_of(command: str) -> list[str] | None:
    command = re.sub(r"\s\[[^\]]*\]", "", command)  # optional parts: `status [--json]`
    for placeholder, value in PLACEHOLDERS.items():
        command = command.replace(placeholder, value)
    if "..." in command or "|" in command:
        return None  # an elided or alternative form (`--format openai|sft`), not a command
    try:
        return shlex.split(command)
    except ValueError:
        return None


def resolve(words: list[str]) -> tuple[Any, list[str]] | None:
    """The command the words name (a group's subcommand followed) and the words left."""
    if words[0] not in COMMANDS:
        return None
    command, rest = load(words[0]), words[1:]
    while hasattr(command, "commands"):
        if not rest or rest[0] not in command.commands:
            return None
        command, rest = command.commands[rest[0]], rest[1:]
    return command, rest


COMMANDS_SHOWN = [
    (page, line) for page, line in documented() if (w := words_of(line)) and resolve(w)
]


def test_the_pages_show_commands():
    assert len(COMMANDS_SHOWN) >= 20
    assert any(line.startswith("translate ") for _, line in COMMANDS_SHOWN)


@pytest.mark.parametrize(("page", "line"), COMMANDS_SHOWN)
def test_a_documented_command_parses(page, line):
    words = words_of(line)
    assert words is not None
    resolved = resolve(words)
    assert resolved is not None
    command, rest = resolved
    hidden = {o for p in command.params if getattr(p, "hidden", False) for o in p.opts}
    used_hidden = [w for w in rest if w.split("=")[0] in hidden]
    assert not used_hidden, f"{page}: `parforge {line}` uses deprecated {used_hidden}"
    try:
        command.make_context(command.name, list(rest), resilient_parsing=False)
    except typer.BadParameter as exc:
        # A file the example names in another directory passes; any other bad value does not.
        if "does not exist" not in str(exc):
            raise AssertionError(f"{page}: `parforge {line}`: {exc}") from None
    except Exception as exc:  # the CLI's own click (Typer's): a usage error of the line
        raise AssertionError(f"{page}: `parforge {line}`: {exc}") from None
