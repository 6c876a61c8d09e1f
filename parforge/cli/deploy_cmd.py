"""`parforge deploy ...`: the service's container images and its compose directory."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from parforge.cli._common import console, fail, run
from parforge.cli.sandbox_cmd import BuildDisplay, docker_sandbox

app = typer.Typer(
    help="Run ParForge as a service in containers: images and a compose file.",
    no_args_is_help=True,
)


@app.command()
def build(
    model_server: Annotated[
        bool,
        typer.Option(help="Also build the model server's image (vLLM on CPU, about 4 GB)."),
    ] = True,
    base: Annotated[
        str | None,
        typer.Option(
            help="Base image (default: the sandbox's Debian base, bootstrapped offline); with "
            "images already built, add --force: tags follow the sources, not the base."
        ),
    ] = None,
    force: Annotated[bool, typer.Option(help="Rebuild without the layer cache.")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print {images, seconds} as JSON.")
    ] = False,
) -> None:
    """Build the images of the service, PostgreSQL, the model server and the sandbox."""
    from parforge.deploy.images import IMAGES, Image, build_images

    images: tuple[Image, ...] = IMAGES if model_server else ("postgres", "service")

    async def _build() -> dict[str, str]:
        sandbox = docker_sandbox()
        try:
            with console.status("preparing") as status:
                progress = BuildDisplay(status)
                sandbox_image = await sandbox.build_image(base=base, force=force, progress=progress)
                tags = await build_images(
                    sandbox.engine, images, base=base, force=force, progress=progress
                )
                return {**{str(name): tag for name, tag in tags.items()}, "sandbox": sandbox_image}
        finally:
            await sandbox.aclose()

    started = time.monotonic()
    tags = run(_build())
    if as_json:
        seconds = round(time.monotonic() - started, 1)
        typer.echo(json.dumps({"images": tags, "seconds": seconds}))
    else:
        for tag in tags.values():
            typer.echo(tag)


@app.command()
def compose(
    directory: Annotated[Path, typer.Argument(help="Where to write the compose files.")],
    port: Annotated[
        int, typer.Option(help="Port on the host's loopback.", min=1, max=65535)
    ] = 8080,
    model_server: Annotated[
        bool,
        typer.Option(
            help="Run the bundled model server; without it, set the endpoint with --set "
            "PARFORGE_MODEL__ENDPOINT__URL=... (any OpenAI-compatible URL)."
        ),
    ] = True,
    setting: Annotated[
        list[str] | None,
        typer.Option(
            "--set", help="A service setting PARFORGE_<FIELD>=value for parforge.env (repeatable)."
        ),
    ] = None,
) -> None:
    """Write compose.yaml, .env and parforge.env for the images this checkout builds."""
    from parforge.deploy.compose import write_compose
    from parforge.deploy.images import image_tags

    settings = {}
    for item in setting or []:
        key, sep, value = item.partition("=")
        if not sep or not key.startswith("PARFORGE_"):
            fail(f"--set wants PARFORGE_<FIELD>=value, got {item!r}", 2)
        settings[key] = value
    tags = dict(image_tags())
    if not model_server:
        tags.pop("model")
    try:
        written = write_compose(
            directory, tags, port=port, model_server=model_server, settings=settings
        )
    except (FileNotFoundError, ValueError) as exc:
        fail(str(exc), 2)
    for path in written:
        typer.echo(path)
    console.print(
        f"next: [bold]parforge deploy build{'' if model_server else ' --no-model-server'}[/] "
        f"(if not done), then in {escape(str(directory))}: [bold]docker-compose up -d[/], and "
        "a key: [bold]docker-compose exec service parforge keys create NAME[/]"
    )
