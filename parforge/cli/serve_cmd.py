"""`parforge serve`: the HTTP API and its worker pool, under uvicorn."""

from __future__ import annotations

from typing import Annotated

import typer

from parforge.cli._common import console, fail, settings


def serve(
    host: Annotated[str | None, typer.Option(help="Address to bind (default: settings).")] = None,
    port: Annotated[int | None, typer.Option(help="Port to bind (default: settings).")] = None,
    workers: Annotated[int | None, typer.Option(help="Tasks run at once (0: queue only).")] = None,
) -> None:
    """Serve the API (OpenAPI at /docs) and the web UI (/ui), and run queued tasks."""
    import uvicorn

    from parforge.api import create_app
    from parforge.service.runners import Runners

    config = settings()
    overrides = {
        k: v for k, v in {"host": host, "port": port, "workers": workers}.items() if v is not None
    }
    config.server = config.server.model_copy(update=overrides)
    server = config.server
    if server.workers > 0 and Runners.from_settings(config) is None:
        console.print(
            "[yellow]no task runner configured (PARFORGE_SERVER__RUNNER): "
            "tasks are queued but not run[/]"
        )
    shown = "127.0.0.1" if server.host in ("0.0.0.0", "::") else server.host
    console.print(
        f"web UI: http://{shown}:{server.port}/ui/login?key=<an API key> "
        "(the key becomes a session cookie)"
    )
    try:
        uvicorn.run(create_app(config), host=server.host, port=server.port, log_level="info")
    except OSError as exc:
        fail(f"cannot serve on {server.host}:{server.port}: {exc}")
