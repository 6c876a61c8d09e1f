"""Between candidates and the join: what a verified candidate looks like in the state (pure)."""

from __future__ import annotations

from typing import Any, TypedDict

from agents.analysis import LoopChoice
from agents.core import Observation, evidence
from agents.tools import Made
from sandbox.verdict import Verdict


class Judged(TypedDict):
    """A candidate with its verdict as the graph state keeps it: JSON-able, so a re-queued
    task resumes from its checkpoint in a new process, and typed, so its readers agree."""

    candidate_id: int
    key: str
    """Normalised code."""
    strategy: str
    source: str
    generation: int
    step_id: int
    choices: list[dict[str, Any]] | None
    assumptions: list[str]
    """What the candidate's annotation takes for granted (`Made.assumptions`)."""
    verdict: dict[str, Any]


def by_candidate(old: list[Judged], new: list[Judged]) -> list[Judged]:
    """Fan-in of judged candidates, merged by id: parallel branches (repairs, reasoning
    threads) add theirs, and a candidate judged again replaces its earlier entry in place."""
    merged = {item["candidate_id"]: item for item in old}
    merged.update((item["candidate_id"], item) for item in new)
    return list(merged.values())


def observation(made: Made) -> Judged:
    """A judged candidate as the state keeps it."""
    assert made.verdict is not None
    return {
        "candidate_id": made.candidate_id,
        "key": made.key,
        "strategy": made.strategy,
        "source": made.source,
        "generation": made.generation,
        "step_id": made.step_id,
        "choices": [c.model_dump() for c in made.choices] if made.choices else None,
        "assumptions": list(made.assumptions),
        "verdict": made.verdict.model_dump(mode="json"),
    }


def as_core(item: Judged) -> Observation:
    return Observation(
        candidate_id=item["candidate_id"],
        source_key=item["key"],
        verdict=Verdict.model_validate(item["verdict"]),
        strategy=item["strategy"],
    )


def feedback(items: list[Judged]) -> str:
    """What a replan is told about the previous plan's candidates."""
    lines = []
    for item in items:
        verdict = Verdict.model_validate(item["verdict"])
        lines.append(
            f"- {item['strategy']}: {verdict.status.value}: {evidence(verdict, max_chars=300)}"
        )
    return "\n".join(lines) or "- no candidate was made"


def restore(item: Judged) -> Made:
    return Made(
        candidate_id=item["candidate_id"],
        source=item["source"],
        strategy=item["strategy"],
        key=item["key"],
        step_id=item["step_id"],
        generation=item.get("generation", 0),
        choices=[LoopChoice.model_validate(c) for c in item.get("choices") or []] or None,
        assumptions=list(item.get("assumptions") or []),
        verdict=Verdict.model_validate(item["verdict"]),
    )
