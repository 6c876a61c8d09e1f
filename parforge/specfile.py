"""Spec files: a verification spec (`sandbox.spec.Spec`) written as TOML or JSON.

The fields are `Spec`'s. Where a field holds source code (`reference`, `driver`, the values of
`files`) a value without a newline names a file relative to the spec file instead; `files`
may also be a list of such names (each written under its own base name). A test may give
`stdin_file` instead of `stdin`. Example (TOML):

    name = "heat2d"
    language = "c"
    reference = "heat2d.c"
    tolerance = { rtol = 1e-9 }
    threads = [1, 2, 4]

    [[tests]]
    name = "small"
    args = ["32", "10"]

    [timing]
    name = "large"
    args = ["1000", "100"]
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sandbox.spec import Language, Spec

_SUFFIX_LANGUAGE = {
    ".c": Language.C,
    ".cpp": Language.CPP,
    ".cc": Language.CPP,
    ".cxx": Language.CPP,
    ".cu": Language.CUDA,
}


class SpecFileError(Exception):
    """The spec file is missing, unreadable or does not describe a valid spec."""


def load_spec(path: Path) -> Spec:
    """Read a spec file, resolving file references relative to it."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise SpecFileError(f"cannot read spec {path}: {exc.strerror}") from exc
    try:
        raw = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SpecFileError(
            f"{path} is not valid {'JSON' if path.suffix == '.json' else 'TOML'}: {exc}"
        ) from exc
    if not isinstance(raw, dict):
        raise SpecFileError(f"{path}: the top level must be a table of fields")
    base = path.parent
    raw.setdefault("name", path.stem)
    for key in ("reference", "driver"):
        if isinstance(raw.get(key), str):
            raw[key] = _source(base, raw[key], key)
    files = raw.get("files")
    if isinstance(files, list):
        raw["files"] = {Path(name).name: _source(base, name, "files") for name in files}
    elif isinstance(files, dict):
        raw["files"] = {k: _source(base, v, f"files.{k}") for k, v in files.items()}
    for case in [*raw.get("tests", []), raw.get("timing")]:
        if isinstance(case, dict) and "stdin_file" in case:
            case["stdin"] = _source(base, case.pop("stdin_file"), "stdin_file", must_be_file=True)
    unknown = _unknown_keys(raw)
    if unknown:
        raise SpecFileError(f"{path}: {'; '.join(unknown)}")
    try:
        return Spec.model_validate(raw)
    except ValidationError as exc:
        raise SpecFileError(f"{path} is not a valid spec: {field_errors(exc)}") from exc


def field_errors(exc: ValidationError) -> str:
    """`field: message` for each error, on one line (pydantic's own text spans lines and URLs)."""
    said = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "(top level)"
        said.append(f"{where}: {error['msg']}")
    return "; ".join(said)


def _unknown_keys(raw: dict[str, Any]) -> list[str]:
    """A line per key that `Spec` (or one of its tests) does not have: a typo such as
    `threds` would otherwise be dropped silently and the default used."""
    from difflib import get_close_matches

    from sandbox.spec import TestCase

    def check(keys: list[str], known: set[str], where: str) -> list[str]:
        lines = []
        for key in keys:
            if key not in known:
                close = get_close_matches(key, sorted(known), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                lines.append(f"unknown field {where}{key!r}{hint}")
        return lines

    lines = check(list(raw), set(Spec.model_fields), "")
    case_fields = set(TestCase.model_fields) | {"stdin_file"}
    for i, case in enumerate(raw.get("tests") or []):
        if isinstance(case, dict):
            lines += check(list(case), case_fields, f"in tests[{i}]: ")
    if isinstance(raw.get("timing"), dict):
        lines += check(list(raw["timing"]), case_fields, "in timing: ")
    return lines


def language_of(path: Path) -> Language | None:
    """The language a source file's suffix implies (None when it implies nothing)."""
    return _SUFFIX_LANGUAGE.get(path.suffix.lower())


def _source(base: Path, value: Any, field: str, must_be_file: bool = False) -> Any:
    if not isinstance(value, str) or ("\n" in value and not must_be_file):
        return value
    target = base / value
    try:
        return target.read_text()
    except OSError as exc:
        raise SpecFileError(f"{field}: cannot read {target}: {exc.strerror}") from exc
