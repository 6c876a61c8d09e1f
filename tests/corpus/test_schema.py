"""The committed JSON schemas match the format models, and the built-in files follow them."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest

from corpus.schema import SCHEMA_DIR, SCHEMAS, render, schema
from corpus.suites import builtin_root

TASK_FILES = sorted(builtin_root().rglob("task.toml"))


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_committed_schema_is_current(name: str) -> None:
    committed = (SCHEMA_DIR / name).read_text(encoding="utf-8")
    assert committed == render(name), "run `python -m corpus.schema` and commit the result"


@pytest.mark.parametrize("path", TASK_FILES, ids=lambda p: p.parent.name)
def test_builtin_task_files_follow_the_schema(path: Path) -> None:
    jsonschema.validate(tomllib.loads(path.read_text()), schema("task.schema.json"))


def test_builtin_manifests_follow_the_schema() -> None:
    for manifest in builtin_root().glob("*/suite.toml"):
        jsonschema.validate(tomllib.loads(manifest.read_text()), schema("suite.schema.json"))


def test_schema_rejects_unknown_keys_and_bad_kinds() -> None:
    task = tomllib.loads(TASK_FILES[0].read_text())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**task, "colour": "blue"}, schema("task.schema.json"))
    bad = json.loads(json.dumps(task))
    bad["targets"]["openmp"]["solutions"][0]["mutants"][0]["kind"] = "typo"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema("task.schema.json"))
