"""What an export selects: the format, the filters, the split."""

from __future__ import annotations

import hashlib
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from corpus.store.models import ParallelTarget


class ExportFormat(StrEnum):
    OPENAI = "openai"
    """OpenAI chat fine-tuning JSONL: `messages` (+ `tools`), tool-call arguments as JSON strings."""
    SFT = "sft"
    """TRL SFT: `messages` with tool-call arguments as objects, and a `tools` column."""
    DPO = "dpo"
    """TRL DPO: `prompt`, `chosen`, `rejected` (conversational)."""
    EVOLUTION_PAIRS = "evolution-pairs"
    """TRL DPO: a child against its parent from evolution histories (faster or correct,
    measured side by side)."""
    OPENAI_DPO = "openai-dpo"
    """OpenAI preference fine-tuning JSONL: `input` (`messages`, `tools`), `preferred_output`,
    `non_preferred_output`; the pairs of `dpo`."""

    @property
    def takes_metadata(self) -> bool:
        """Whether the format's consumers accept a `metadata` key on each line (OpenAI's
        fine-tuning files refuse keys they do not know)."""
        return self not in (ExportFormat.OPENAI, ExportFormat.OPENAI_DPO)


class Split(StrEnum):
    ALL = "all"
    TRAIN = "train"
    VALIDATION = "validation"


class ExportFilter(BaseModel):
    """Which samples to export. For DPO, `verified_only` and `min_speedup` apply to `chosen`."""

    verified_only: bool = True
    """Only LLM calls whose candidate passed verification: failing code would teach a model to
    write broken code. False includes the failures and the calls that wrote no candidate."""
    min_speedup: float | None = Field(default=None, ge=0)
    """Only candidates that passed at least this fast (implies verified_only)."""
    target: ParallelTarget | None = None
    task_id: str | None = Field(default=None, pattern="^[0-9a-f]{32}$")
    """Only this task's samples."""
    model: str | None = Field(default=None, max_length=200)
    """The model that wrote the sample."""
    adapter: str | None = Field(default=None, max_length=200)
    since: datetime | None = None
    until: datetime | None = None
    split: Split = Split.ALL
    validation_fraction: float = Field(default=0.1, ge=0, le=1)
    dpo_margin: float = Field(default=0.1, ge=0, le=10)
    """A passing candidate is `rejected` against a faster one only if at least this much slower."""
    metadata: bool | None = None
    """Each line's provenance in a `metadata` key (task, run, step, candidate, verdict,
    speedup, model, agent); None: on for the formats whose consumers accept it, off for
    OpenAI's (a dataset directory keeps it beside them, in `metadata.jsonl`)."""


def split_of(task_id: str, validation_fraction: float) -> Split:
    """Train or validation, from a hash of the task id: stable, so no task is ever in both."""
    return Split.VALIDATION if bucket_of(task_id) < validation_fraction else Split.TRAIN


def bucket_of(task_id: str) -> float:
    """Where a task falls in [0, 1): in validation below `validation_fraction`."""
    return int.from_bytes(hashlib.sha256(task_id.encode()).digest()[:8], "big") / 2**64
