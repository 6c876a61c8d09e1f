"""The `parforge` command line: one module per command group, assembled here."""

from __future__ import annotations

import typer

from parforge.cli import (
    cluster_cmd,
    eval_cmd,
    export_cmd,
    keys_cmd,
    model_cmd,
    sandbox_cmd,
    serve_cmd,
    tasks_cmd,
    translate_cmd,
    verify_cmd,
)

app = typer.Typer(
    name="parforge",
    help="Turn sequential code into fast, verified parallel code (OpenMP, MPI, CUDA).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(sandbox_cmd.app, name="sandbox")
app.add_typer(model_cmd.app, name="model")
app.command("translate")(translate_cmd.translate)
app.command("verify")(verify_cmd.verify)
app.add_typer(verify_cmd.check_app, name="check")
app.add_typer(tasks_cmd.app, name="tasks")
app.add_typer(keys_cmd.app, name="keys")
app.command("export")(export_cmd.export)
app.command("serve")(serve_cmd.serve)
app.add_typer(eval_cmd.app, name="eval")
app.add_typer(cluster_cmd.app, name="cluster")


def main() -> None:
    """Console-script entry point."""
    app()
