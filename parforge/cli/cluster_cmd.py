"""`parforge cluster status`: the Ray cluster the sandbox verifies on (`PARFORGE_SANDBOX__TYPE=ray`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.table import Table

from parforge.cli._common import console, fail, run, settings

if TYPE_CHECKING:
    from sandbox.verify.cluster import ClusterStatus

app = typer.Typer(help="The Ray cluster of sandbox hosts.", no_args_is_help=True)


@app.command()
def status(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Nodes, their resources, warm sandboxes, running and queued verifications."""
    from sandbox.config import RayConfig
    from sandbox.verify.cluster import RayVerifier

    config = settings().sandbox
    if not isinstance(config, RayConfig):
        fail(
            f"the configured sandbox is {config.type!r}, not a cluster: set "
            "PARFORGE_SANDBOX__TYPE=ray (and PARFORGE_SANDBOX__ADDRESS, default auto)",
            2,
        )
    found = run(RayVerifier(config).status())
    if as_json:
        typer.echo(found.model_dump_json(indent=2))
        return
    _show(found)


def _show(found: ClusterStatus) -> None:
    nodes = [n for n in found.nodes if n.resources.get(found.resource)]
    queued = "unknown" if found.queued is None else str(found.queued)
    console.print(
        f"cluster {found.address}: {sum(n.alive for n in nodes)} sandbox node(s) alive, "
        f"{found.slots:g} {found.resource} slot(s), {found.gpus:g} GPU(s), {found.warm} warm "
        f"sandbox(es), {found.running} running, {queued} queued"
    )
    table = Table("node", "address", "alive", "CPU", "GPU", found.resource, "warm", "running")
    table.add_column("verified")
    for node in nodes:
        account = node.sandbox or {}
        started = bool(account) and "error" not in account
        table.add_row(
            node.id[:12],
            node.address,
            "yes" if node.alive else "no",
            f"{node.resources.get('CPU', 0):g}",
            f"{node.resources.get('GPU', 0):g}",
            f"{node.resources.get(found.resource, 0):g}",
            str(account.get("warm", 0)) if started else "-",
            str(account.get("in_flight", 0)) if started else "-",
            str(account.get("verified", 0)) if started else account.get("error", "-"),
        )
    console.print(table)
