"""JSON schemas that OpenAI-compatible endpoints accept in strict structured-output mode.

OpenAI's strict mode takes a subset of JSON Schema: the root is an object; every object lists
all its properties in `required` and sets `additionalProperties: false` (an optional field is
required and nullable instead); every value names a `type` (or is an `enum`, a `const`, an
`anyOf` of such, or a `$ref`); only the keywords in `STRICT_KEYWORDS` appear. vLLM's grammar
back ends accept the same schemas, so one schema serves both; `strict_problems` is the check,
`strict` the conversion of an ordinary schema (optional fields become required and nullable:
a reply's `null` means "not given", see `without_nulls`; a string's length bounds become the
`pattern` strict mode has, so that the grammar holds a small model's reply to them).
"""

from __future__ import annotations

import copy
from typing import Any

STRICT_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
        "description",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
    }
)
"""The keywords OpenAI documents for strict structured outputs."""
MAX_DEPTH = 10
"""Nesting levels of objects strict mode allows."""
_TYPED = ("type", "enum", "const", "anyOf", "$ref")
_NULL = {"type": "null"}


def strict_problems(schema: dict[str, Any]) -> list[str]:
    """Where `schema` breaks strict mode's rules, one line per break (empty: none)."""
    problems: list[str] = []
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("the root must be an object, not a union")
    _check(schema, "#", 1, problems)
    return problems


def _check(node: Any, path: str, depth: int, problems: list[str]) -> None:
    if not isinstance(node, dict):
        problems.append(f"{path}: not a schema object")
        return
    for key in node.keys() - STRICT_KEYWORDS:
        problems.append(f"{path}: keyword {key!r} is not supported")
    if not any(k in node for k in _TYPED):
        problems.append(f"{path}: no type")
    if "properties" in node:
        if depth > MAX_DEPTH:
            problems.append(f"{path}: objects nested deeper than {MAX_DEPTH} levels")
        if node.get("additionalProperties") is not False:
            problems.append(f"{path}: an object must set additionalProperties: false")
        missing = sorted(set(node["properties"]) - set(node.get("required", [])))
        if missing:
            problems.append(f"{path}: every property must be required ({', '.join(missing)})")
        for name, sub in node["properties"].items():
            _check(sub, f"{path}/properties/{name}", depth + 1, problems)
    elif node.get("type") == "object":
        problems.append(f"{path}: an object must list its properties")
    if isinstance(node.get("items"), dict):
        _check(node["items"], f"{path}/items", depth, problems)
    for i, branch in enumerate(node.get("anyOf", [])):
        _check(branch, f"{path}/anyOf/{i}", depth, problems)
    for name, sub in node.get("$defs", {}).items():
        _check(sub, f"#/$defs/{name}", depth, problems)


def strict(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` converted to strict mode's subset: optional properties required and nullable,
    `additionalProperties: false` on every object, a string's `minLength`/`maxLength` as a
    `pattern` (where it has none), other unsupported keywords (`default`, `title`,
    `uniqueItems`...) dropped: what they asked is checked after parsing instead.
    Raises ValueError for what cannot be converted (a value of no type)."""
    out = _strict(copy.deepcopy(schema), "#")
    problems = strict_problems(out)
    if problems:
        raise ValueError("; ".join(problems))
    return out


def _strict(node: dict[str, Any], path: str) -> dict[str, Any]:
    out = {k: v for k, v in node.items() if k in STRICT_KEYWORDS}
    length = _length_pattern(node)
    if length is not None:
        out["pattern"] = length
    if not any(k in out for k in _TYPED):
        raise ValueError(f"{path}: a value of no type cannot be sent in strict mode")
    if "properties" in out:
        required = set(out.get("required", []))
        props = {}
        for name, sub in out["properties"].items():
            converted = _strict(sub, f"{path}/properties/{name}")
            props[name] = converted if name in required else _nullable(converted)
        out["properties"] = props
        out["required"] = list(props)
        out["additionalProperties"] = False
    if isinstance(out.get("items"), dict):
        out["items"] = _strict(out["items"], f"{path}/items")
    if "anyOf" in out:
        out["anyOf"] = [_strict(b, f"{path}/anyOf/{i}") for i, b in enumerate(out["anyOf"])]
    if "$defs" in out:
        out["$defs"] = {k: _strict(v, f"#/$defs/{k}") for k, v in out["$defs"].items()}
    return out


def bounded_text(max_chars: int) -> dict[str, Any]:
    """A string of at most `max_chars` characters, in strict mode's form (a pattern)."""
    return _strict({"type": "string", "maxLength": max_chars}, "#")


def _length_pattern(node: dict[str, Any]) -> str | None:
    """A string's length bounds as a pattern of any characters, or None where it has none or
    already has a pattern (which the parser's check then bounds)."""
    low, high = node.get("minLength"), node.get("maxLength")
    if node.get("type") != "string" or "pattern" in node or (low is None and high is None):
        return None
    low = int(low or 0)
    if high is not None and int(high) < low:
        raise ValueError(f"minLength {low} exceeds maxLength {high}: no string fits")
    more = "[\\s\\S]*" if high is None else _up_to(int(high) - low)
    return f"^{_exactly(low)}{more}$"


_CHUNK = 16
"""Characters per repeated group: a grammar back end (xgrammar 0.2) fails to compile a single
bounded repetition of 160 characters inside a larger schema (128 compiles), so longer bounds
are spelled as repetitions of chunks (10,000 characters compile so)."""
_ANY = "[\\s\\S]"


def _exactly(n: int) -> str:
    chunks, rest = divmod(n, _CHUNK)
    head = f"(?:{_ANY}{{{_CHUNK}}}){{{chunks}}}" if chunks else ""
    return head + (f"{_ANY}{{{rest}}}" if rest else "")


def _up_to(n: int) -> str:
    """0 to `n` characters, exactly those lengths, in chunks: below `q` whole chunks any tail
    of a chunk, or `q` chunks and at most the rest."""
    chunks, rest = divmod(n, _CHUNK)
    if chunks <= 1:
        return f"{_ANY}{{0,{n}}}" if n > 0 else ""
    below = f"(?:{_ANY}{{{_CHUNK}}}){{0,{chunks - 1}}}{_ANY}{{0,{_CHUNK - 1}}}"
    tail = f"{_ANY}{{0,{rest}}}" if rest else ""
    return f"(?:{below}|{_exactly(chunks * _CHUNK)}{tail})"


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    if node == _NULL or _NULL in node.get("anyOf", []):
        return node
    if "enum" in node and None in node["enum"]:
        return node
    return {"anyOf": [node, dict(_NULL)]}


def without_nulls(args: dict[str, Any]) -> dict[str, Any]:
    """A strict reply's arguments with the `null`s of fields not given removed, so that the
    receiver's defaults apply."""
    return {k: v for k, v in args.items() if v is not None}
