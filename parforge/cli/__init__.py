"""The `parforge` command line: one module per command group, assembled here."""

from __future__ import annotations

import typer

from parforge.cli import model_cmd, sandbox_cmd

app = typer.Typer(
    name="parforge",
    help="Turn sequential code into fast, verified parallel code (OpenMP, MPI, CUDA).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(sandbox_cmd.app, name="sandbox")
app.add_typer(model_cmd.app, name="model")


def main() -> None:
    """Console-script entry point."""
    app()
