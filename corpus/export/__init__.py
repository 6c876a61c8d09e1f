"""Fine-tuning data from the store: OpenAI chat JSONL, TRL SFT, TRL DPO and preference pairs
from evolution histories, as streams.

JSON schemas of each format's lines ship in `schemas/` (see `schema_for`).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from corpus.export.filters import ExportFilter, ExportFormat, Split, split_of
from corpus.export.writer import ExportStats, export_file, export_lines


def schema_for(fmt: ExportFormat) -> dict[str, Any]:
    """The JSON schema every line of `fmt` satisfies."""
    text = resources.files("corpus.export").joinpath(f"schemas/{fmt.value}.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


__all__ = [
    "ExportFilter",
    "ExportFormat",
    "ExportStats",
    "Split",
    "export_file",
    "export_lines",
    "schema_for",
    "split_of",
]
