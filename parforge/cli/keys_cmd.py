"""`parforge keys ...`: API keys for the HTTP API. The store is imported by the commands that
use it, so `keys --help` starts fast."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from parforge.cli._common import console, fail, settings
from parforge.cli._store import store

T = TypeVar("T")

out = Console()
"""Tables go to stdout; progress and messages to stderr."""

app = typer.Typer(help="API keys: created here, sent as `Authorization: Bearer <key>`.")


JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]


@app.command()
def create(
    name: str = typer.Argument(..., help="Who or what the key is for."), as_json: JsonOption = False
) -> None:
    """Create a key and print its token (shown this once; only a digest is stored)."""
    key = _with_keys(lambda keys, session: keys.create(session, name))
    console.print(f"key {key.id} ({key.name}) created; its token, shown only now:")
    if as_json:
        typer.echo(key.model_dump_json())
    else:
        typer.echo(key.token)


@app.command()
def revoke(
    ref: str = typer.Argument(..., help="The key's id, name or token prefix."),
    as_json: JsonOption = False,
) -> None:
    """Revoke a key: requests with it get 401 from now on."""
    key = _with_keys(lambda keys, session: keys.revoke(session, ref))
    if key is None:
        fail(f"no single live key matches {ref!r} (see `parforge keys list`)")
    console.print(f"key {key.id} ({key.name}) revoked")
    if as_json:
        typer.echo(key.model_dump_json())


@app.command("list")
def list_keys(as_json: JsonOption = False) -> None:
    """List keys (never their tokens)."""
    rows = _with_keys(lambda keys, session: keys.list_keys(session))
    if as_json:
        typer.echo(json.dumps([k.model_dump(mode="json") for k in rows], indent=2))
        return
    table = Table("id", "name", "prefix", "created", "last used", "revoked")
    for k in rows:
        table.add_row(
            str(k.id),
            k.name,
            k.prefix,
            f"{k.created_at:%Y-%m-%d %H:%M}",
            f"{k.last_used_at:%Y-%m-%d %H:%M}" if k.last_used_at else "-",
            f"{k.revoked_at:%Y-%m-%d %H:%M}" if k.revoked_at else "-",
        )
    out.print(table)


def _with_keys(work: Callable[..., T]) -> T:
    """`work(keys, session)` on the configured store: `corpus.store.keys` and a session."""
    from sqlmodel import Session

    from corpus.store import keys

    with store(settings()) as engine, Session(engine) as session:
        return work(keys, session)
