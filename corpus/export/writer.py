"""Exports as a stream of JSON lines: filter, split by task, format, deduplicate."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from corpus.errors import ExportError
from corpus.export.dedupe import DigestSet
from corpus.export.evolution import evolution_records
from corpus.export.filters import ExportFilter, ExportFormat, Split, split_of
from corpus.export.formats import METADATA, dpo_records, openai_record, sft_record
from corpus.export.rows import stream_rows, with_tool_turns
from corpus.store.tasks import ANY_OWNER, Owner


@dataclass
class ExportStats:
    written: int = 0
    duplicates: int = 0


def export_lines(
    engine: Engine,
    fmt: ExportFormat,
    filters: ExportFilter | None = None,
    owner: Owner = ANY_OWNER,
    stats: ExportStats | None = None,
) -> Iterator[str]:
    """JSON lines (each ending in a newline) in task order, identical lines dropped.

    Memory stays flat whatever the store's size: rows come in batches from a cursor, DPO
    holds one task at a time (evolution pairs one evolution step), and the digests of lines
    already written live on disk.
    """
    filters = filters or ExportFilter()
    keep = fmt.takes_metadata if filters.metadata is None else filters.metadata
    for record in export_records(engine, fmt, filters, owner, stats):
        yield _line(record if keep else _without_metadata(record))


def export_records(
    engine: Engine,
    fmt: ExportFormat,
    filters: ExportFilter | None = None,
    owner: Owner = ANY_OWNER,
    stats: ExportStats | None = None,
) -> Iterator[dict[str, Any]]:
    """The export's records, each with its `metadata` (whatever `filters.metadata` says),
    lines whose content (metadata aside) was already written dropped."""
    filters = filters or ExportFilter()
    stats = stats if stats is not None else ExportStats()
    records: Iterator[dict[str, Any]]
    if fmt is ExportFormat.EVOLUTION_PAIRS:
        records = evolution_records(engine, filters, owner)
        yield from _distinct(records, stats)
        return
    pairs = fmt in (ExportFormat.DPO, ExportFormat.OPENAI_DPO)
    rows = stream_rows(engine, filters, owner, dpo=pairs)
    if filters.split is not Split.ALL:
        wanted = filters.split
        rows = (r for r in rows if split_of(r.task_id, filters.validation_fraction) is wanted)
    if pairs:
        openai = fmt is ExportFormat.OPENAI_DPO
        records = (
            record
            for _, task_rows in itertools.groupby(rows, key=lambda r: r.task_id)
            for record in dpo_records(task_rows, filters, openai=openai)
        )
    elif fmt is ExportFormat.OPENAI:
        records = (openai_record(r) for r in with_tool_turns(engine, rows))
    elif fmt is ExportFormat.SFT:
        records = (sft_record(r) for r in with_tool_turns(engine, rows))
    else:
        raise ExportError(f"unknown export format {fmt!r}")
    yield from _distinct(records, stats)


def _without_metadata(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != METADATA}


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"


def _distinct(records: Iterator[dict[str, Any]], stats: ExportStats) -> Iterator[dict[str, Any]]:
    """`records` less those whose content repeats one already seen (metadata aside: two calls
    that wrote the same answer to the same prompt teach the same thing)."""
    with DigestSet() as seen:
        for record in records:
            if not seen.add(_line(_without_metadata(record))):
                stats.duplicates += 1
                continue
            stats.written += 1
            yield record


def export_file(
    engine: Engine,
    fmt: ExportFormat,
    out: Path,
    filters: ExportFilter | None = None,
    owner: Owner = ANY_OWNER,
) -> ExportStats:
    """Write an export to `out` (replaced atomically once complete)."""
    stats = ExportStats()
    partial = out.with_name(out.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8") as handle:
            for line in export_lines(engine, fmt, filters, owner, stats):
                handle.write(line)
        partial.replace(out)
    except OSError as exc:
        raise ExportError(f"cannot write {out}: {exc}") from exc
    return stats
