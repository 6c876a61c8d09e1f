"""Between candidates and the join: what a verified candidate looks like in the state (pure)."""

from __future__ import annotations

from typing import Any

from agents.analysis import LoopChoice
from agents.core import Observation, evidence
from agents.tools import Made
from sandbox.verdict import Verdict


def observation(made: Made) -> dict[str, Any]:
    """A verified candidate as the state keeps it (JSON-able)."""
    assert made.verdict is not None
    return {
        "candidate_id": made.candidate_id,
        "key": made.key,
        "strategy": made.strategy,
        "source": made.source,
        "generation": made.generation,
        "step_id": made.step_id,
        "choices": [c.model_dump() for c in made.choices] if made.choices else None,
        "verdict": made.verdict.model_dump(mode="json"),
    }


def as_core(item: dict[str, Any]) -> Observation:
    return Observation(
        candidate_id=item["candidate_id"],
        source_key=item["key"],
        verdict=Verdict.model_validate(item["verdict"]),
        strategy=item["strategy"],
    )


def feedback(items: list[dict[str, Any]]) -> str:
    """What a replan is told about the previous plan's candidates."""
    lines = []
    for item in items:
        verdict = Verdict.model_validate(item["verdict"])
        lines.append(
            f"- {item['strategy']}: {verdict.status.value}: {evidence(verdict, max_chars=300)}"
        )
    return "\n".join(lines) or "- no candidate was made"


def restore(item: dict[str, Any]) -> Made:
    return Made(
        candidate_id=item["candidate_id"],
        source=item["source"],
        strategy=item["strategy"],
        key=item["key"],
        step_id=item["step_id"],
        generation=item.get("generation", 0),
        choices=[LoopChoice.model_validate(c) for c in item["choices"]]
        if item.get("choices")
        else None,
        verdict=Verdict.model_validate(item["verdict"]),
    )
