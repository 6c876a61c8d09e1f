"""`parforge sandbox ...`: inspect the configured sandbox backend."""

from __future__ import annotations

import json

import typer

from parforge.cli._common import run, settings

app = typer.Typer(help="The sandbox that builds and checks candidates.", no_args_is_help=True)


@app.command()
def info(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Show the configured backend and its isolation."""

    async def _info() -> str:
        sandbox = settings().sandbox.build()
        try:
            return sandbox.info().model_dump_json(indent=None if as_json else 2)
        finally:
            await sandbox.aclose()

    text = run(_info())
    typer.echo(text if as_json else json.dumps(json.loads(text), indent=2))
