"""JSON schemas of the export formats' lines (package data), one file per format."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from corpus.export.filters import ExportFormat


def schema_for(fmt: ExportFormat) -> dict[str, Any]:
    """The JSON schema every line of `fmt` satisfies."""
    text = resources.files("corpus.export").joinpath(f"schemas/{fmt.value}.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema
