"""Preference pairs from evolution histories, on a real store written the way evolution writes
it: candidates with parents and verdicts, then the task's `evolution` step with its history."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
from sqlalchemy import Engine
from sqlmodel import Session

from corpus.export import ExportFilter, ExportFormat, export_lines, schema_for
from corpus.export.evolution import EvolvedTask, Side, evolution_pairs, evolution_prompt
from corpus.store import tasks
from corpus.store.models import CandidateCreate, StepCreate, StepKind, TaskCreate
from corpus.store.recorder import Recorder
from tests.conftest import FAILED_VERDICT, PASSED_VERDICT

SOURCE = "int main(void) { long s = 0; for (long i = 0; i < 100; i++) s += i; return 0; }"
SEED = "#pragma omp parallel for reduction(+:s)\nfor (...) s += i;"


def _passed(speedup: float) -> dict[str, Any]:
    verdict = copy.deepcopy(PASSED_VERDICT)
    verdict["timing"]["speedup"] = {"1": 1.0, "4": speedup}
    return verdict


def _start(engine: Engine, source: str = SOURCE) -> Recorder:
    with Session(engine) as s:
        task = tasks.submit(s, TaskCreate(target="openmp", language="c", source=source))
        task = tasks.claim(s, "w", task.id)
        assert task is not None
        run = tasks.start_run(s, task, "graph", "w")
        assert run.id is not None
        return Recorder(engine, task.id, run.id)


async def _candidate(
    rec: Recorder, source: str, verdict: dict[str, Any], parent: int | None = None
) -> int:
    candidate = await rec.add_candidate(
        CandidateCreate(
            target="openmp",
            source=source,
            strategy="evolve:tile" if parent else "reduction",
            generation=1 if parent else 0,
            parent_id=parent,
        )
    )
    await rec.add_verdict(candidate, verdict)
    return candidate


def _row(child: int, parent: int, status: str, speedup: float, confidence: float) -> dict:
    correct = status == "passed"
    return {
        "candidate_id": child,
        "generation": 1,
        "parents": [parent],
        "operator": "tile",
        "label": f"tile {child}",
        "status": status,
        "correct": correct,
        "speedup": speedup,
        "confidence": confidence,
        "gain": None,
        "placed": correct,
        "best": False,
    }


async def store_evolution(engine: Engine) -> dict[str, int]:
    """A task that evolved (its candidates by name) and one that did not."""
    rec = _start(engine)
    ids: dict[str, int] = {"seed": await _candidate(rec, SEED, _passed(2.5))}
    seed = ids["seed"]
    ids["fast"] = await _candidate(rec, SEED + "\n// tiled 64", _passed(3.0), seed)
    ids["unsure"] = await _candidate(rec, SEED + "\n// tiled 32", _passed(2.6), seed)
    ids["racy"] = await _candidate(
        rec, "#pragma omp parallel for\nfor (...) s += i;", FAILED_VERDICT, seed
    )
    ids["slow"] = await _candidate(rec, SEED + "\n// tiled 8", _passed(1.5), ids["fast"])
    broken = copy.deepcopy(FAILED_VERDICT) | {"status": "build_failed"}
    ids["same"] = await _candidate(rec, "  " + SEED.replace("\n", "\n\n  ") + "\n", broken, seed)
    ids["orphan"] = await _candidate(rec, SEED + "\n// fixed", _passed(2.0), ids["racy"])
    history = [
        _row(ids["fast"], seed, "passed", 3.0, 0.99),
        _row(ids["unsure"], seed, "passed", 2.6, 0.6),
        _row(ids["racy"], seed, "race", 0.0, 0.0),
        _row(ids["slow"], ids["fast"], "passed", 1.5, 0.01),
        _row(ids["same"], seed, "build_failed", 0.0, 0.0),
        _row(ids["orphan"], ids["racy"], "passed", 2.0, 1.0),  # its parent is not correct
    ]
    await rec.add_step(
        StepCreate(
            kind=StepKind.TOOL_CALL,
            name="evolution",
            tool_name="evolve",
            arguments={"seed": 0},
            result={"best_candidate_id": ids["fast"], "history": history},
        )
    )
    await rec.aclose()
    plain = _start(engine, source="int main(void) { return 1; }")
    await _candidate(plain, "int main(void) { return 1; }", _passed(1.0))
    await _candidate(plain, "int main(void) { return 2; }", FAILED_VERDICT)
    await plain.aclose()
    return ids


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
        (x["meta"]["kind"], x["meta"]["chosen_candidate_id"], x["meta"]["rejected_candidate_id"])
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
    fast, racy, slow = (x["meta"] for x in lines)
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
    assert {x["meta"]["task_id"] for x in lines} == {lines[0]["meta"]["task_id"]}


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
    rec = _start(engine)
    seed = await _candidate(rec, SEED, _passed(2.5))
    await _candidate(rec, "#pragma omp parallel for", FAILED_VERDICT, seed)
    await rec.aclose()
    assert _lines(engine) == []
    assert len(list(export_lines(engine, ExportFormat.SFT))) == 0  # no LLM calls either


def test_pairing_is_pure():
    task = EvolvedTask(
        "t", "cpp", "cuda", "int main() {}", [_row(2, 1, "passed", 4.0, 0.97), {"parents": []}]
    )
    sides = {1: Side(1, "a", True, 2.0), 2: Side(2, "b", True, 4.0)}
    [pair] = evolution_pairs(task, sides, ExportFilter())
    assert pair["chosen"][0]["content"] == "```cuda\nb\n```"
    assert "```cpp\nint main() {}\n```" in pair["prompt"][1]["content"]
    assert list(evolution_pairs(task, {2: sides[2]}, ExportFilter())) == []  # parent not stored
