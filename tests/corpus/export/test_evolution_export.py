"""Preference pairs from evolution histories, on a real store written the way evolution writes
it: candidates with parents and verdicts, then the task's `evolution` step with its history."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from sqlalchemy import Engine

from corpus.export import ExportFilter, ExportFormat, export_lines, schema_for
from corpus.export.evolution import EvolvedTask, Side, evolution_pairs, evolution_prompt
from tests.fakes.evolution import (
    SEED,
    SOURCE,
    add_candidate,
    history_row,
    passed_verdict,
    start_recorder,
    store_evolution,
)
from tests.fakes.runners import FAILED_VERDICT


def _lines(engine: Engine, **filters: Any) -> list[dict[str, Any]]:
    lines = [
        json.loads(x)
        for x in export_lines(engine, ExportFormat.EVOLUTION_PAIRS, ExportFilter(**filters))
    ]
    validator = jsonschema.Draft202012Validator(schema_for(ExportFormat.EVOLUTION_PAIRS))
    for line in lines:
        validator.validate(line)
    return lines


def _pairs(lines: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    return [
        (
            x["metadata"]["kind"],
            x["metadata"]["chosen_candidate_id"],
            x["metadata"]["rejected_candidate_id"],
        )
        for x in lines
    ]


async def test_faster_and_correct_pairs_in_the_right_order(engine):
    ids = await store_evolution(engine)
    lines = _lines(engine)
    assert _pairs(lines) == [
        ("faster", ids["fast"], ids["seed"]),
        ("correct", ids["seed"], ids["racy"]),
        ("faster", ids["fast"], ids["slow"]),  # the parent, faster with confidence
    ]
    fast, racy, slow = (x["metadata"] for x in lines)
    assert (fast["chosen_speedup"], fast["rejected_speedup"], fast["confidence"]) == (
        3.0,
        2.5,
        0.99,
    )
    assert (racy["chosen_speedup"], racy["rejected_speedup"], racy["confidence"]) == (
        2.5,
        0.0,
        None,
    )
    assert (slow["chosen_speedup"], slow["rejected_speedup"], slow["confidence"]) == (
        3.0,
        1.5,
        0.99,
    )
    first = lines[0]
    assert first["prompt"] == evolution_prompt(SOURCE, "c", "openmp")
    assert first["prompt"][1]["content"].startswith(
        "Parallelise this C program with OpenMP; print exactly the same output."
    )
    assert first["chosen"] == [{"role": "assistant", "content": f"```c\n{SEED}\n// tiled 64\n```"}]
    assert first["rejected"] == [{"role": "assistant", "content": f"```c\n{SEED}\n```"}]
    assert {x["metadata"]["task_id"] for x in lines} == {lines[0]["metadata"]["task_id"]}


async def test_unsure_identical_and_orphaned_children_give_no_pair(engine):
    ids = await store_evolution(engine)
    named = {i for pair in _pairs(_lines(engine)) for i in pair[1:]}
    assert ids["unsure"] not in named  # confidence 0.6: neither faster nor slower
    assert ids["same"] not in named  # the seed up to whitespace
    assert ids["orphan"] not in named  # a correct child of a failing parent


async def test_filters_apply(engine):
    ids = await store_evolution(engine)
    assert _pairs(_lines(engine, min_speedup=2.9)) == [
        ("faster", ids["fast"], ids["seed"]),
        ("faster", ids["fast"], ids["slow"]),
    ]
    assert _lines(engine, target="mpi") == []
    assert _lines(engine, model="nobody") == []
    train = _lines(engine, split="train", validation_fraction=0.5)
    validation = _lines(engine, split="validation", validation_fraction=0.5)
    assert len(train) + len(validation) == 3 and not (train and validation)


async def test_a_task_without_evolution_gives_no_pair(engine):
    rec = start_recorder(engine)
    seed = await add_candidate(rec, SEED, passed_verdict(2.5))
    await add_candidate(rec, "#pragma omp parallel for", FAILED_VERDICT, seed)
    await rec.aclose()
    assert _lines(engine) == []
    assert len(list(export_lines(engine, ExportFormat.SFT))) == 0  # no LLM calls either


def test_pairing_is_pure():
    task = EvolvedTask(
        "t",
        "cpp",
        "cuda",
        "int main() {}",
        [history_row(2, 1, "passed", 4.0, 0.97), {"parents": []}],
    )
    sides = {1: Side(1, "a", True, 2.0), 2: Side(2, "b", True, 4.0)}
    [pair] = evolution_pairs(task, sides, ExportFilter())
    assert pair["chosen"][0]["content"] == "```cuda\nb\n```"
    assert "```cpp\nint main() {}\n```" in pair["prompt"][1]["content"]
    assert list(evolution_pairs(task, {2: sides[2]}, ExportFilter())) == []  # parent not stored
