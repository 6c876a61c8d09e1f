"""The `parforge` command line: one module per command group, assembled here."""

from __future__ import annotations

import typer

from parforge.cli import sandbox_cmd, verify_cmd

app = typer.Typer(
    name="parforge",
    help="Turn sequential code into fast, verified parallel code (OpenMP, MPI, CUDA).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(sandbox_cmd.app, name="sandbox")
app.command("verify")(verify_cmd.verify)
app.add_typer(verify_cmd.check_app, name="check")


def main() -> None:
    """Console-script entry point."""
    app()
