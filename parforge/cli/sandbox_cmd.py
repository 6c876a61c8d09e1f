"""`parforge sandbox ...`: inspect the configured backend, build its image, prune leftovers."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import typer
from rich.markup import escape
from rich.status import Status

from parforge.cli._common import console, run, settings

if TYPE_CHECKING:
    from sandbox.backends.docker import DockerSandbox

app = typer.Typer(help="The sandbox that builds and checks candidates.", no_args_is_help=True)


@app.command()
def info(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Show the configured backend and its isolation."""

    async def _info() -> str:
        from sandbox.verify.verifier import open_verifier

        verifier = open_verifier(settings().sandbox)
        try:
            return verifier.info().model_dump_json(indent=None if as_json else 2)
        finally:
            await verifier.aclose()

    text = run(_info())
    typer.echo(text if as_json else json.dumps(json.loads(text), indent=2))


@app.command()
def build(
    base: str | None = typer.Option(
        None,
        "--base",
        help="Base image (default: the Dockerfile's Debian base, bootstrapped offline if needed).",
    ),
    force: bool = typer.Option(
        False, "--force", help="Rebuild without the layer cache even if the tag exists."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print {image, seconds} as JSON."),
) -> None:
    """Build the sandbox image; fast when the tag for the current Dockerfile already exists."""

    async def _build() -> str:
        sandbox = docker_sandbox()
        try:
            with console.status("preparing") as status:
                progress = BuildDisplay(status)
                return await sandbox.build_image(base=base, force=force, progress=progress)
        finally:
            await sandbox.aclose()

    started = time.monotonic()
    image = run(_build())
    if as_json:
        typer.echo(json.dumps({"image": image, "seconds": round(time.monotonic() - started, 1)}))
    else:
        typer.echo(image)


@app.command()
def prune(
    everything: bool = typer.Option(
        False,
        "--all",
        help="Remove every sandbox container, also those of ParForge processes still running.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the removed container ids as JSON."),
) -> None:
    """Remove sandbox containers left behind by ParForge processes that are gone."""

    async def _prune() -> list[str]:
        sandbox = docker_sandbox()
        try:
            return await sandbox.prune(everything)
        finally:
            await sandbox.aclose()

    removed = run(_prune())
    console.print(f"removed {len(removed)} container(s)")
    if as_json:
        typer.echo(json.dumps({"removed": removed}))
        return
    for container_id in removed:
        typer.echo(container_id[:12])


def docker_sandbox() -> DockerSandbox:
    """The configured docker sandbox, or the default one when another backend is configured."""
    from sandbox.backends.docker import DockerSandbox
    from sandbox.config import DockerConfig, RayConfig

    config = settings().sandbox
    if isinstance(config, RayConfig):
        return DockerSandbox(config.node)  # this host's engine, as a sandbox node's actor has
    return DockerSandbox(config if isinstance(config, DockerConfig) else DockerConfig())


class BuildDisplay:
    """Build progress on the terminal: each stage on its own line, tool output in the spinner."""

    def __init__(self, status: Status) -> None:
        self._status = status
        self._stage = ""
        self._start = time.monotonic()

    def step(self, message: str) -> None:
        console.print(
            f"[bold]==>[/] {escape(message)} [dim]({time.monotonic() - self._start:.0f} s)[/]"
        )
        self._stage = escape(message)
        self._status.update(self._stage)

    def line(self, text: str) -> None:
        self._status.update(f"{self._stage}\n  [dim]{escape(text[:150])}[/]")
