"""Evolution histories in a real store, written the way evolution writes them: candidates with
parents and verdicts, then the task's `evolution` step with its history."""

from __future__ import annotations

import copy
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from corpus.store import tasks
from corpus.store.models import CandidateCreate, StepCreate, StepKind, TaskCreate
from corpus.store.recorder import Recorder
from tests.fakes.runners import FAILED_VERDICT, PASSED_VERDICT

SOURCE = "int main(void) { long s = 0; for (long i = 0; i < 100; i++) s += i; return 0; }"
SEED = "#pragma omp parallel for reduction(+:s)\nfor (...) s += i;"


def passed_verdict(speedup: float) -> dict[str, Any]:
    verdict = copy.deepcopy(PASSED_VERDICT)
    verdict["timing"]["speedup"] = {"1": 1.0, "4": speedup}
    return verdict


def start_recorder(engine: Engine, source: str = SOURCE) -> Recorder:
    with Session(engine) as s:
        task = tasks.submit(s, TaskCreate(target="openmp", language="c", source=source))
        task = tasks.claim(s, "w", task.id)
        assert task is not None
        run = tasks.start_run(s, task, "graph", "w")
        assert run.id is not None
        return Recorder(engine, task.id, run.id)


async def add_candidate(
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


def history_row(child: int, parent: int, status: str, speedup: float, confidence: float) -> dict:
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
    rec = start_recorder(engine)
    ids: dict[str, int] = {"seed": await add_candidate(rec, SEED, passed_verdict(2.5))}
    seed = ids["seed"]
    ids["fast"] = await add_candidate(rec, SEED + "\n// tiled 64", passed_verdict(3.0), seed)
    ids["unsure"] = await add_candidate(rec, SEED + "\n// tiled 32", passed_verdict(2.6), seed)
    ids["racy"] = await add_candidate(
        rec, "#pragma omp parallel for\nfor (...) s += i;", FAILED_VERDICT, seed
    )
    ids["slow"] = await add_candidate(rec, SEED + "\n// tiled 8", passed_verdict(1.5), ids["fast"])
    broken = copy.deepcopy(FAILED_VERDICT) | {"status": "build_failed"}
    ids["same"] = await add_candidate(rec, "  " + SEED.replace("\n", "\n\n  ") + "\n", broken, seed)
    ids["orphan"] = await add_candidate(rec, SEED + "\n// fixed", passed_verdict(2.0), ids["racy"])
    history = [
        history_row(ids["fast"], seed, "passed", 3.0, 0.99),
        history_row(ids["unsure"], seed, "passed", 2.6, 0.6),
        history_row(ids["racy"], seed, "race", 0.0, 0.0),
        history_row(ids["slow"], ids["fast"], "passed", 1.5, 0.01),
        history_row(ids["same"], seed, "build_failed", 0.0, 0.0),
        history_row(ids["orphan"], ids["racy"], "passed", 2.0, 1.0),  # its parent is not correct
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
    plain = start_recorder(engine, source="int main(void) { return 1; }")
    await add_candidate(plain, "int main(void) { return 1; }", passed_verdict(1.0))
    await add_candidate(plain, "int main(void) { return 2; }", FAILED_VERDICT)
    await plain.aclose()
    return ids
