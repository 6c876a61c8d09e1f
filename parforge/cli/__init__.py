"""The `parforge` command line: one module per command or command group, each imported only
when its command runs, so that `parforge --help` and the light commands start fast.

`COMMANDS` names every command: its module, the Typer app or function there, and the line
`--help` shows for it (a test checks that line against the command's own help).
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

import typer
from typer.core import TyperCommand, TyperGroup


class Lazy(NamedTuple):
    module: str
    attr: str
    """A `typer.Typer` (a command group) or a function (one command)."""
    help: str


COMMANDS: dict[str, Lazy] = {
    "translate": Lazy(
        "translate_cmd", "translate", "Translate a sequential program into a verified parallel one."
    ),
    "analyse": Lazy(
        "analyse_cmd",
        "analyse",
        "Show the loops of a program and what the dependence analysis says about each.",
    ),
    "verify": Lazy(
        "verify_cmd",
        "verify",
        "Build, test, race-check and time a candidate against a spec's reference.",
    ),
    "export": Lazy(
        "export_cmd",
        "export",
        "Export stored trajectories as fine-tuning data, streamed (constant memory).",
    ),
    "serve": Lazy(
        "serve_cmd",
        "serve",
        "Serve the API (OpenAPI at /docs) and the web UI (/ui), and run queued tasks.",
    ),
    "sandbox": Lazy("sandbox_cmd", "app", "The sandbox that builds and checks candidates."),
    "model": Lazy(
        "model_cmd", "app", "The served model: vLLM's OpenAI-compatible server, in the background."
    ),
    "check": Lazy("verify_cmd", "check_app", "Check programs for concurrency defects."),
    "tasks": Lazy("tasks_cmd", "app", "Translation tasks in the local store."),
    "keys": Lazy(
        "keys_cmd", "app", "API keys: created here, sent as `Authorization: Bearer <key>`."
    ),
    "eval": Lazy(
        "eval_cmd",
        "app",
        "Batch evaluations: pass@k, build@k, speedup@k and efficiency@k over a suite.",
    ),
    "cluster": Lazy("cluster_cmd", "app", "The Ray cluster of sandbox hosts."),
    "deploy": Lazy(
        "deploy_cmd", "app", "Run ParForge as a service in containers: images and a compose file."
    ),
}


def load(name: str) -> Any:
    """The command (or group) of `name`, its module imported now."""
    lazy = COMMANDS[name]
    target: Any = getattr(importlib.import_module(f"parforge.cli.{lazy.module}"), lazy.attr)
    if isinstance(target, typer.Typer):
        command: Any = typer.main.get_group(target)
    else:
        single = typer.Typer(add_completion=False)
        single.command(name)(target)
        command = typer.main.get_command(single)
    command.name = name
    return command


class LazyGroup(TyperGroup):
    """Lists every command from `COMMANDS` without importing it; imports one to run it."""

    listing = False

    # Typer's click types are its own vendored copy: the overrides take what the base takes.
    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in COMMANDS:
            return None
        if self.listing:  # `--help`: the line it shows is all it needs
            return TyperCommand(cmd_name, help=COMMANDS[cmd_name].help)
        return load(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False


app = typer.Typer(
    name="parforge",
    cls=LazyGroup,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"parforge {version('parforge')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            typer.echo("parforge (not installed)")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Turn sequential code into fast, verified parallel code (OpenMP, MPI, CUDA)."""
    # A group needs a callback when its commands are not registered with Typer; its docstring
    # is the root's help.


def main() -> None:
    """Console-script entry point."""
    app()
