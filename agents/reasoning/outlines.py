"""Strategy outlines: what each reasoning thread will try, asked for as schema-constrained JSON.

The model picks each outline's strategy from the target's catalogue (its kit's `strategies`) and says in
a sentence how it applies here. Outlines that say the same thing (same strategy, details that
share most of their words) are merged before any thread starts; the catalogue then fills the
free places with strategies no outline took, so K threads explore K different strategies.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ValidationError

from agents.targets import kit
from sandbox.spec import Target

DETAIL_CHARS = 240
SAME_DETAIL = 0.5
"""Word-set Jaccard of two details of one strategy at or above which they say the same thing."""


class OutlineError(ValueError):
    """The model's outlines are not JSON of the expected shape."""


class Outline(BaseModel):
    strategy: str
    detail: Annotated[str, AfterValidator(lambda text: text[:DETAIL_CHARS])] = ""
    """One sentence (the schema's bound, which the grammar holds on vLLM, clipped again here for
    an endpoint that answered without a schema)."""
    origin: Literal["model", "catalogue"] = "model"
    """Who proposed it: the model, or the catalogue filling a place after a merge."""


def outline_schema(target: Target, k: int) -> dict[str, Any]:
    """JSON schema of `{"outlines": [{"strategy": <one of the catalogue>, "detail": str}]}`."""
    item = {
        "type": "object",
        "properties": {
            "strategy": {"type": "string", "enum": list(kit(target).strategies)},
            "detail": {"type": "string", "maxLength": DETAIL_CHARS},
        },
        "required": ["strategy", "detail"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"outlines": {"type": "array", "items": item, "minItems": 1, "maxItems": k}},
        "required": ["outlines"],
        "additionalProperties": False,
    }


def parse_outlines(text: str, target: Target) -> list[Outline]:
    """The outlines of a reply; `OutlineError` when it is not the schema's JSON, or names a
    strategy outside the catalogue (a server without structured outputs may answer anything)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OutlineError(f"the outlines are not JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("outlines"), list):
        raise OutlineError('the outlines are not an object with an "outlines" list')
    try:
        outlines = [Outline.model_validate(item) for item in data["outlines"]]
    except ValidationError as exc:
        raise OutlineError(f"an outline is malformed: {exc.errors()[0]['msg']}") from exc
    unknown = [o.strategy for o in outlines if o.strategy not in kit(target).strategies]
    if unknown:
        raise OutlineError(f"unknown strategy {unknown[0]!r}")
    if not outlines:
        raise OutlineError("no outline")
    return outlines


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9_]+", text.lower()))


def same(a: Outline, b: Outline) -> bool:
    """Do two outlines say the same thing? Same strategy, and details that add nothing (one
    empty) or share at least half their words."""
    if a.strategy != b.strategy:
        return False
    wa, wb = _words(a.detail), _words(b.detail)
    if not wa or not wb:
        return True
    return len(wa & wb) / len(wa | wb) >= SAME_DETAIL


def merge(outlines: list[Outline]) -> tuple[list[Outline], dict[int, int]]:
    """Outlines with duplicates merged into the first that says the same thing: the kept ones,
    and for each merged outline's position the position (in the input) it was merged into."""
    kept: list[tuple[int, Outline]] = []
    merged: dict[int, int] = {}
    for position, outline in enumerate(outlines):
        into = next((i for i, k in kept if same(k, outline)), None)
        if into is None:
            kept.append((position, outline))
        else:
            merged[position] = into
    return [o for _, o in kept], merged


def complete(outlines: list[Outline], target: Target, k: int) -> list[Outline]:
    """At most `k` outlines: the given ones, then catalogue strategies no outline took."""
    chosen = list(outlines[:k])
    taken = {o.strategy for o in chosen}
    for strategy in kit(target).strategies:
        if len(chosen) >= k:
            break
        if strategy not in taken:
            chosen.append(Outline(strategy=strategy, origin="catalogue"))
            taken.add(strategy)
    return chosen
