"""An export as a Hugging Face dataset directory, written in one pass over the store:

    DIR/train.jsonl, DIR/validation.jsonl   the lines of each split (by a hash of the task id,
                                            so no task is in both)
    DIR/*.metadata.jsonl                    for OpenAI's formats, whose files may hold no other
                                            key: each line's provenance, line for line
    DIR/*.parquet                           with `parquet`: each split as Parquet too
    DIR/schema.json                         the JSON schema of a line
    DIR/README.md                           the dataset card: what the lines are, how they were
                                            chosen and verified, the counts, the filters, and the
                                            `configs` that `datasets.load_dataset(DIR)` reads

The directory is written beside itself and renamed into place once complete.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine

from corpus.errors import ExportError
from corpus.export.filters import ExportFilter, ExportFormat, Split, split_of
from corpus.export.formats import METADATA
from corpus.export.schemas import schema_for
from corpus.export.writer import ExportStats, export_records
from corpus.store.tasks import ANY_OWNER, Owner

SPLITS = (Split.TRAIN, Split.VALIDATION)

_WHAT = {
    ExportFormat.OPENAI: "OpenAI chat fine-tuning lines: `messages` (and `tools`), tool-call "
    "arguments as JSON strings; upload a split's file as it is.",
    ExportFormat.SFT: "TRL SFT lines (conversational): `messages` with tool-call arguments as "
    "objects, and the `tools` offered; for `SFTTrainer`.",
    ExportFormat.DPO: "TRL DPO lines (conversational): `prompt`, `chosen` (a verified answer, "
    "the fastest), `rejected` (one that failed verification, or passed but was slower); for "
    "`DPOTrainer`.",
    ExportFormat.EVOLUTION_PAIRS: "TRL DPO lines from evolution: a child against its first "
    "parent, measured side by side (`faster`) or one correct and one failing (`correct`).",
    ExportFormat.OPENAI_DPO: "OpenAI preference fine-tuning lines: `input`, `preferred_output`, "
    "`non_preferred_output`; upload a split's file as it is.",
}


@dataclass
class DatasetStats:
    lines: dict[str, int] = field(default_factory=lambda: {s.value: 0 for s in SPLITS})
    duplicates: int = 0
    files: list[str] = field(default_factory=list)


def export_dataset(
    engine: Engine,
    fmt: ExportFormat,
    out_dir: Path,
    filters: ExportFilter | None = None,
    owner: Owner = ANY_OWNER,
    *,
    parquet: bool = False,
) -> DatasetStats:
    """Write the dataset directory `out_dir` (replacing one that is there)."""
    filters = (filters or ExportFilter()).model_copy(update={"split": Split.ALL})
    inline = fmt.takes_metadata if filters.metadata is None else filters.metadata
    stats, counted = DatasetStats(), ExportStats()
    partial = out_dir.with_name(out_dir.name + ".partial")
    try:
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        sinks = {s: (partial / f"{s.value}.jsonl").open("w", encoding="utf-8") for s in SPLITS}
        sides = (
            {}
            if inline
            else {
                s: (partial / f"{s.value}.metadata.jsonl").open("w", encoding="utf-8")
                for s in SPLITS
            }
        )
        try:
            for record in export_records(engine, fmt, filters, owner, counted):
                provenance = record.get(METADATA) or {}
                split = split_of(str(provenance.get("task_id", "")), filters.validation_fraction)
                line = record if inline else {k: v for k, v in record.items() if k != METADATA}
                sinks[split].write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
                if split in sides:
                    sides[split].write(json.dumps(provenance, sort_keys=True) + "\n")
                stats.lines[split.value] += 1
        finally:
            for handle in [*sinks.values(), *sides.values()]:
                handle.close()
        stats.duplicates = counted.duplicates
        (partial / "schema.json").write_text(json.dumps(schema_for(fmt), indent=2) + "\n")
        if parquet:
            _parquet(partial)
        (partial / "README.md").write_text(card(fmt, filters, stats, inline, parquet))
        if out_dir.exists():
            shutil.rmtree(out_dir)
        partial.replace(out_dir)
    except OSError as exc:
        raise ExportError(f"cannot write {out_dir}: {exc}") from exc
    stats.files = sorted(p.name for p in out_dir.iterdir())
    return stats


def _parquet(directory: Path) -> None:
    """Each split's lines as Parquet too, through `datasets` (which infers one schema)."""
    try:
        import datasets
    except ImportError:
        raise ExportError(
            "Parquet output needs the `datasets` package (pip install datasets)"
        ) from None
    for split in SPLITS:
        source = directory / f"{split.value}.jsonl"
        if source.stat().st_size == 0:
            continue
        try:
            table = datasets.Dataset.from_json(str(source), keep_in_memory=True)
        except Exception as exc:  # the library's own errors: lines it cannot give one schema
            raise ExportError(f"cannot write {split.value} as Parquet: {exc}") from exc
        table.to_parquet(str(directory / f"{split.value}.parquet"))


def card(
    fmt: ExportFormat,
    filters: ExportFilter,
    stats: DatasetStats,
    inline: bool,
    parquet: bool,
) -> str:
    """The dataset card (README.md, with the YAML that `datasets` reads)."""
    suffix = "parquet" if parquet else "jsonl"
    present = [s for s in SPLITS if stats.lines[s.value]]
    files = "\n".join(
        f"  - split: {s.value}\n    path: {s.value}.{suffix}" for s in present or SPLITS[:1]
    )
    total = sum(stats.lines.values())
    chosen = {
        k: v
        for k, v in filters.model_dump(mode="json").items()
        if k not in ("split", "metadata") and v is not None
    }
    provenance = (
        "Each line's `metadata`"
        if inline
        else "Each line's provenance, in `<split>.metadata.jsonl` line for line (OpenAI's files "
        "may hold no other key),"
    )
    return f"""---
configs:
- config_name: default
  data_files:
{files}
task_categories:
- text-generation
tags:
- code
- parallel-programming
- parforge
size_categories:
- {_size(total)}
---

# ParForge export: `{fmt.value}`

{_WHAT[fmt]}

Made by ParForge from its store of agent trajectories. Every candidate program in it was built,
run against its sequential original on the task's tests and on hidden inputs, race-checked and
timed in a sandbox; a line says what that verification found. {provenance} names the task, the
run (trajectory) and model call (step) that wrote it, the candidate and its latest verdict
(`passed`, `race`, `wrong_answer`, ...), the speedup measured over the original, the model and
adapter, the agent and the target.

| split | lines |
|---|---|
{chr(10).join(f"| {s.value} | {stats.lines[s.value]} |" for s in SPLITS)}

Splits are by a hash of the task id (validation fraction {filters.validation_fraction}), so no
task is in both. {stats.duplicates} lines whose content repeated another's were dropped.
Filters: `{json.dumps(chosen, sort_keys=True)}`. Each line satisfies `schema.json`.

```python
from datasets import load_dataset
dataset = load_dataset("path/to/this/directory")
```
"""


def _size(n: int) -> str:
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < bound:
            return label
    return "100K<n<1M" if n < 1_000_000 else "n>1M"
