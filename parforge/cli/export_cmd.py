"""`parforge export`: fine-tuning data from the local store."""

from __future__ import annotations

import contextlib
import json
from datetime import datetime
from pathlib import Path
from typing import IO, Annotated

import typer
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from corpus.export import ExportFilter, ExportFormat, ExportStats, Split, export_lines
from corpus.store.models import ParallelTarget
from parforge.cli._common import console, fail, settings
from parforge.cli._store import store


def export(
    fmt: Annotated[
        ExportFormat,
        typer.Option("--format", "-f", help="openai, openai-dpo, sft, dpo or evolution-pairs."),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="JSONL file to write ('-': stdout).")
    ] = None,
    dataset: Annotated[
        Path | None,
        typer.Option(
            "--dataset",
            file_okay=False,
            help="Write a Hugging Face dataset directory instead: train and validation splits, "
            "schema.json and a dataset card (README.md).",
        ),
    ] = None,
    parquet: Annotated[
        bool, typer.Option("--parquet", help="With --dataset: each split as Parquet too.")
    ] = False,
    metadata: Annotated[
        bool | None,
        typer.Option(
            "--metadata/--no-metadata",
            help="Each line's provenance in a `metadata` key (default: on, but off for OpenAI's "
            "formats, whose files may hold no other key).",
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print what was written (lines per split, duplicates, files) as JSON; needs "
            "--out FILE or --dataset DIR.",
        ),
    ] = False,
    verified_only: Annotated[
        bool,
        typer.Option(
            "--verified-only/--all",
            help="Only samples whose candidate passed (the default), or all of them, failures "
            "included (DPO always pairs a passing candidate against failures; evolution-pairs "
            "always pairs a correct candidate against a slower or failing one).",
        ),
    ] = True,
    min_speedup: Annotated[
        float | None, typer.Option(min=0, help="Only candidates this fast.")
    ] = None,
    target: Annotated[
        ParallelTarget | None, typer.Option(help="Only tasks for this target.")
    ] = None,
    model: Annotated[str | None, typer.Option(help="Only samples written by this model.")] = None,
    adapter: Annotated[
        str | None, typer.Option(help="Only samples written with this adapter.")
    ] = None,
    since: Annotated[datetime | None, typer.Option(help="Only samples from this time on.")] = None,
    until: Annotated[datetime | None, typer.Option(help="Only samples before this time.")] = None,
    split: Annotated[
        Split, typer.Option(help="all, train or validation (split by task).")
    ] = Split.ALL,
    validation_fraction: Annotated[float, typer.Option(min=0, max=1)] = 0.1,
) -> None:
    """Export stored trajectories as fine-tuning data, streamed (constant memory)."""
    if (out is None) == (dataset is None):
        fail("give one of --out FILE and --dataset DIR", 2)
    if parquet and dataset is None:
        fail("--parquet needs --dataset DIR", 2)
    if as_json and out is not None and str(out) == "-":
        fail("--json prints a summary on stdout, where --out - writes the lines", 2)
    filters = ExportFilter(
        verified_only=verified_only,
        min_speedup=min_speedup,
        target=target,
        model=model,
        adapter=adapter,
        since=since,
        until=until,
        split=split,
        validation_fraction=validation_fraction,
        metadata=metadata,
    )
    if dataset is not None:
        _dataset(fmt, dataset, filters, parquet, as_json)
        return
    assert out is not None
    stats = ExportStats()
    to_stdout = str(out) == "-"
    partial = out.with_name(out.name + ".partial")
    with (
        store(settings()) as engine,
        Progress(
            SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console
        ) as progress,
    ):
        bar = progress.add_task(f"exporting {fmt.value}", total=None)
        try:
            handle: IO[str] = (
                contextlib.nullcontext(typer.get_text_stream("stdout"))  # type: ignore[assignment]
                if to_stdout
                else partial.open("w", encoding="utf-8")
            )
        except OSError as exc:
            fail(f"cannot write {out}: {exc}", 2)
        with handle as sink:
            for line in export_lines(engine, fmt, filters, stats=stats):
                sink.write(line)
                if stats.written % 500 == 0:
                    progress.update(bar, description=f"exporting {fmt.value}: {stats.written}")
    if not to_stdout:
        partial.replace(out)
    console.print(f"{stats.written} lines written to {out}; {stats.duplicates} duplicates dropped")
    if as_json:
        summary = {"lines": stats.written, "duplicates": stats.duplicates, "files": [str(out)]}
        typer.echo(json.dumps(summary))


def _dataset(
    fmt: ExportFormat, directory: Path, filters: ExportFilter, parquet: bool, as_json: bool
) -> None:
    from corpus.errors import ExportError
    from corpus.export import export_dataset

    with store(settings()) as engine, console.status(f"exporting {fmt.value} to {directory}"):
        try:
            stats = export_dataset(engine, fmt, directory, filters, parquet=parquet)
        except ExportError as exc:
            fail(str(exc), 2 if "cannot write" in str(exc) else 1)
    counts = ", ".join(f"{split} {n}" for split, n in stats.lines.items())
    console.print(
        f"{directory}: {counts} lines; {stats.duplicates} duplicates dropped; "
        f"files {', '.join(stats.files)}",
        highlight=False,
    )
    if as_json:
        summary = {
            "lines": stats.lines,
            "duplicates": stats.duplicates,
            "files": [str(directory / name) for name in stats.files],
        }
        typer.echo(json.dumps(summary))
