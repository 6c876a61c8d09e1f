"""What one evolution run keeps between generations, when it stops, and what it reports (pure).

The record is plain JSON, checkpointed with the translate graph after every generation, so an
interrupted evolution resumes at the generation it was in. It holds the archive, the best
candidate so far, the candidates still needed as parents (with their verdicts), the history of
every child, and the counters the budgets are checked against.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agents.evolve.archive import Archive


def new_record(seed: int, started_at: float, tokens_at_start: int) -> dict[str, Any]:
    return {
        "seed": seed,
        "generation": 0,
        "evaluations": 0,
        "archive": {},
        "best": None,
        "first": None,
        "first_speedup": 0.0,
        "members": {},
        "history": [],
        "tried": [],
        "plateau": 0,
        "stopped": "",
        "started_at": started_at,
        "tokens_at_start": tokens_at_start,
    }


def code_hash(key: str) -> str:
    """A short stable name of a normalised program (the `tried` list stays small)."""
    return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Limits:
    generations: int
    evaluations: int
    plateau: int
    time_s: float | None


def stop_reason(
    record: dict[str, Any], limits: Limits, now: float, budget_spent: str | None
) -> str:
    """Why evolution stops before another generation ("" when it goes on)."""
    if record.get("stopped"):
        return str(record["stopped"])
    if record["best"] is None:
        return "no correct candidate to evolve"
    if record["generation"] >= limits.generations:
        return f"{limits.generations} generations done"
    if record["evaluations"] >= limits.evaluations:
        return f"the evaluation budget ({limits.evaluations}) is spent"
    if record["plateau"] >= limits.plateau:
        return f"no confident improvement in {limits.plateau} generations"
    if limits.time_s is not None and now - record["started_at"] >= limits.time_s:
        return f"the evolution time budget ({limits.time_s:g}s) ran out"
    if budget_spent is not None:
        return f"the task's {budget_spent}"
    return ""


def lineage(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The best candidate's ancestry from the first correct candidate: each step's operator,
    speedup, the confidence that it beat its parent (`confidence`) and, for a step that became
    the best, the confidence that it beat the best it replaced, confirmation included
    (`over_best`). An ancestor may be slower than its parent: it held a cell, not the title."""
    by_child = {item["candidate_id"]: item for item in record["history"]}
    chain: list[dict[str, Any]] = []
    at = record["best"]
    seen: set[int] = set()
    while at is not None and at not in seen:
        seen.add(at)
        item = by_child.get(at)
        if item is None:  # a seed: the translate graph made it
            elite = _elite(record, at)
            chain.append(
                {
                    "candidate_id": at,
                    "operator": "seed",
                    "label": "",
                    "speedup": elite.speedup if elite else record["first_speedup"],
                    "confidence": None,
                    "over_best": None,
                }
            )
            break
        chain.append(
            {
                "candidate_id": at,
                "operator": item["operator"],
                "label": item["label"],
                "speedup": item["speedup"],
                "confidence": item["confidence"],
                "over_best": item.get("over_best"),
            }
        )
        at = item["parents"][0] if item["parents"] else None
    return list(reversed(chain))


def _elite(record: dict[str, Any], candidate_id: int) -> Any:
    for elite in Archive.from_json(record["archive"]).cells.values():
        if elite.candidate_id == candidate_id:
            return elite
    return None


def summary(record: dict[str, Any], tokens_now: int) -> dict[str, Any]:
    """The `evolution` object users see (`--json`, the stored `evolution` step)."""
    chain = lineage(record)
    best_speedup = chain[-1]["speedup"] if chain else 0.0
    return {
        "generations": record["generation"],
        "evaluations": record["evaluations"],
        "first_candidate_id": record["first"],
        "first_speedup": record["first_speedup"],
        "best_candidate_id": record["best"],
        "best_speedup": best_speedup,
        "best_confidence": chain[-1]["over_best"] if chain else None,
        "lineage": chain,
        "stopped": record["stopped"],
        "seed": record["seed"],
        "cells": len(record["archive"]),
        "tokens": max(0, tokens_now - record["tokens_at_start"]),
        "history": record["history"],
    }


def evolution_line(record: dict[str, Any], made: Mapping[int, Any]) -> str:
    """`evolved 5 generations: 1.02x -> 1.71x (candidate 12)` for the task's reason."""
    best = record["best"]
    verdict = made[best].verdict if best in made else None
    speed = verdict.speedup if verdict is not None else 0.0
    return (
        f"evolved {record['generation']} generation(s), {record['evaluations']} evaluation(s): "
        f"{record['first_speedup']:.2f}x -> {speed:.2f}x (candidate {best}; "
        f"{record['stopped'] or 'stopped'})"
    )
