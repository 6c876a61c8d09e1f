"""JSON schemas of the suite format, generated from `corpus.formats`.

The committed copies (`corpus/suites/task.schema.json`, `corpus/suites/suite.schema.json`) are
what users point their editors at; `python -m corpus.schema` rewrites them after a format change,
and a test fails while they are stale.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from corpus.formats import SuiteFile, TaskFile

SCHEMA_DIR = Path(__file__).parent / "suites"
SCHEMAS: dict[str, type[BaseModel]] = {"task.schema.json": TaskFile, "suite.schema.json": SuiteFile}


def schema(name: str) -> dict[str, Any]:
    """The JSON schema called `name` (one of `SCHEMAS`)."""
    model = SCHEMAS[name]
    body = model.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"parforge/{name}",
        **body,
    }


def render(name: str) -> str:
    return json.dumps(schema(name), indent=2, ensure_ascii=False) + "\n"


def main() -> None:
    for name in SCHEMAS:
        (SCHEMA_DIR / name).write_text(render(name), encoding="utf-8")
        print(SCHEMA_DIR / name)


if __name__ == "__main__":
    main()
