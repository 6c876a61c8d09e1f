"""Fine-tuning data from the store: OpenAI chat and preference JSONL, TRL SFT, TRL DPO and
preference pairs from evolution histories, as streams or as a Hugging Face dataset directory;
each line with its provenance.

JSON schemas of each format's lines ship in `schemas/` (see `schema_for`).
"""

from __future__ import annotations

from corpus.export.dataset import DatasetStats, export_dataset
from corpus.export.filters import ExportFilter, ExportFormat, Split, split_of
from corpus.export.schemas import schema_for
from corpus.export.writer import ExportStats, export_file, export_lines, export_records

__all__ = [
    "DatasetStats",
    "ExportFilter",
    "ExportFormat",
    "ExportStats",
    "Split",
    "export_dataset",
    "export_file",
    "export_lines",
    "export_records",
    "schema_for",
    "split_of",
]
