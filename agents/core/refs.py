"""`$N` references: how one plan step uses the results of earlier ones.

An argument that is exactly `$N` (or `$N.field.field`) stands for step N's result (or a field
of it) and is replaced by that value, whatever its type. A `$N` inside longer text is replaced
by the value written as text, so a step can say `"explain why $2 fails"`. Both kinds are
dependencies: a step runs only once every step it refers to has finished.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

REF_PATTERN = r"^\$[0-9]+(\.[A-Za-z_][A-Za-z0-9_]*)*$"
"""A whole string that is one reference (the plan schema lets typed fields take it)."""

_WHOLE = re.compile(r"\$([0-9]+)((?:\.[A-Za-z_][A-Za-z0-9_]*)*)")
# Inside text a reference must not follow a word character or another `$` (`a$1`, `$$1`), and
# its path stops at a dot that ends a sentence ("see $2." is step 2, not a field named "").
_INLINE = re.compile(r"(?<![\w$])\$([0-9]+)((?:\.[A-Za-z_][A-Za-z0-9_]*)*)")


class ReferenceMissing(LookupError):
    """A reference names a result (or a field of one) that is not there."""


def references(args: Any) -> set[int]:
    """The ids of every step that `args` (nested dicts, lists, strings) refers to."""
    found: set[int] = set()
    _collect(args, found)
    return found


def _collect(value: Any, found: set[int]) -> None:
    if isinstance(value, str):
        found.update(int(m.group(1)) for m in _INLINE.finditer(value))
    elif isinstance(value, Mapping):
        for item in value.values():
            _collect(item, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _collect(item, found)


def substitute(args: Mapping[str, Any], results: Mapping[int, Any]) -> dict[str, Any]:
    """A copy of `args` with every reference replaced by the result it names.

    Raises `ReferenceMissing` for a step not in `results` or a field its result lacks.
    """
    return {key: _replace(value, results) for key, value in args.items()}


def _replace(value: Any, results: Mapping[int, Any]) -> Any:
    if isinstance(value, str):
        whole = _WHOLE.fullmatch(value)
        if whole:
            return resolve(int(whole.group(1)), whole.group(2), results)
        return _INLINE.sub(lambda m: _text(resolve(int(m.group(1)), m.group(2), results)), value)
    if isinstance(value, Mapping):
        return {key: _replace(item, results) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_replace(item, results) for item in value]
    return value


def resolve(step: int, path: str, results: Mapping[int, Any]) -> Any:
    """Step `step`'s result, followed along `path` (`.a.b`: keys of mappings, attributes of
    models and other objects)."""
    if step not in results:
        raise ReferenceMissing(f"${step}: step {step} has no result")
    value = results[step]
    walked = f"${step}"
    for name in path.split(".")[1:]:
        if isinstance(value, Mapping):
            if name not in value:
                raise ReferenceMissing(f"{walked} has no key {name!r}")
            value = value[name]
        elif hasattr(value, name) and not name.startswith("_"):
            value = getattr(value, name)
        else:
            raise ReferenceMissing(f"{walked} ({type(value).__name__}) has no field {name!r}")
        walked += f".{name}"
    return value


def _text(value: Any) -> str:
    """A value as it reads inside text: strings and numbers as they are, structures as JSON."""
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    if isinstance(value, Mapping | list | tuple):
        return json.dumps(value, default=str)
    return str(value)
