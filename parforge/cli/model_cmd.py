"""`parforge model ...`: serve, inspect and stop the model server."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from parforge.cli._common import console, fail, run, settings

if TYPE_CHECKING:
    from parforge.model_server import ModelServer

app = typer.Typer(
    help="The served model: vLLM's OpenAI-compatible server, in the background.",
    no_args_is_help=True,
)


def _server(**overrides: Any) -> ModelServer:
    from parforge.model_server import ModelServer, ModelServerConfig

    s = settings()
    given = {k: v for k, v in overrides.items() if v is not None}
    config = ModelServerConfig.model_validate({**s.model.server.model_dump(), **given})
    return ModelServer(config, s.data_dir)


def _parse_loras(specs: list[str]) -> dict[str, str] | None:
    if not specs:
        return None
    loras = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            fail(f"--lora wants NAME=PATH, got {spec!r}", 2)
        loras[name] = path
    return loras


@app.command()
def serve(
    model: Annotated[
        str | None,
        typer.Option(
            help="Model name or path; default: the embedded SmolLM2-135M-Instruct on CPU."
        ),
    ] = None,
    served_model_name: Annotated[
        str | None, typer.Option(help="Name clients send as `model`.")
    ] = None,
    tensor_parallel_size: Annotated[
        int | None, typer.Option(help="GPUs to shard the model over.")
    ] = None,
    lora: Annotated[
        list[str] | None,
        typer.Option(help="LoRA adapter NAME=PATH (repeatable); requests select it by NAME."),
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port (default from settings: 8000).")] = None,
    python: Annotated[
        Path | None,
        typer.Option(help="Python of an environment with vLLM (GPU hosts); default: the CPU env."),
    ] = None,
    wait: Annotated[bool, typer.Option(help="Wait until the server is healthy.")] = True,
    foreground: Annotated[
        bool,
        typer.Option(
            help="Become the server (exec vLLM in this process) instead of starting it in the "
            "background: for containers and process supervisors."
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the server's state (url, model, pid) as JSON.")
    ] = False,
) -> None:
    """Start the server in the background (installing and converting on first use)."""
    server = _server(
        model=model,
        served_model_name=served_model_name,
        tensor_parallel_size=tensor_parallel_size,
        loras=_parse_loras(lora or []),
        port=port,
        python=python,
    )
    if foreground:
        argv, env = run(
            server.command(progress=lambda message: console.print(message, markup=False))
        )
        console.print(f"exec {' '.join(argv)}", soft_wrap=True)
        os.execve(argv[0], argv, {**os.environ, **env})
    with console.status("preparing the model server") as spinner:
        state = run(server.start(wait=wait, progress=spinner.update))
    if state.adopted:
        console.print(
            f"[green]serving[/] {state.served_model_name} at {state.url}: a server another data "
            "dir started, used as it is (stop it from there)"
        )
    else:
        verb = "serving" if wait else "starting"
        console.print(
            f"[green]{verb}[/] {state.served_model_name} at {state.url} "
            f"(pid {state.pid}, log {state.log})"
        )
    if as_json:
        typer.echo(state.model_dump_json())


@app.command()
def prepare(
    python: Annotated[
        Path | None,
        typer.Option(help="Python of an environment with vLLM; default: install the CPU env."),
    ] = None,
) -> None:
    """Install the CPU environment and convert the embedded model now, without serving (as an
    image build does, so that a container starts serving at once)."""
    server = _server(python=python)
    python_used, model = run(
        server.prepare(progress=lambda message: console.print(message, markup=False))
    )
    console.print(f"[green]ready[/]: {model} with {python_used}", soft_wrap=True)


@app.command()
def status(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show URL, model, health, pid and uptime; exit status 3 when not healthy."""
    info = run(_server().status())
    if as_json:
        typer.echo(info.model_dump_json())
    else:
        table = Table(show_header=False, box=None)
        table.add_row("url", info.url)
        table.add_row("model", info.model or "-")
        table.add_row("running", "yes" if info.running else "no")
        table.add_row("healthy", "[green]yes[/]" if info.healthy else "[red]no[/]")
        table.add_row("pid", str(info.pid or "-"))
        uptime = f"{info.uptime_s:.0f}s" if info.uptime_s is not None else "-"
        table.add_row("uptime", uptime)
        table.add_row("log", str(info.log or "-"))
        console.print(table)
    if not info.healthy:
        raise typer.Exit(3)


@app.command()
def stop() -> None:
    """Stop the server started from this data dir."""
    if run(_server().stop()):
        console.print("stopped")
    else:
        console.print("no server was running")


@app.command()
def logs(lines: Annotated[int, typer.Option("-n", help="How many lines.")] = 50) -> None:
    """Print the end of the server's log."""
    from parforge.model_server.process import log_tail

    typer.echo(log_tail(_server().log_file, lines))
