"""The MAP-Elites archive and the evolution record (pure)."""

from __future__ import annotations

import random

from agents.evolve.archive import Archive, Elite, descriptor
from agents.evolve.record import Limits, lineage, new_record, stop_reason
from sandbox.spec import Target

LOOP = "for (int i = 0; i < n; i++) a[i] = f(i);\n"


def test_descriptor_names_schedule_regions_and_size() -> None:
    static = f"#pragma omp parallel for schedule(static)\n{LOOP}"
    dynamic = f"#pragma omp parallel for schedule(dynamic,4)\n{LOOP}"
    assert descriptor(static, Target.OPENMP) == "static|1|0"
    assert descriptor(dynamic, Target.OPENMP) == "dynamic|1|0"
    assert descriptor(dynamic + static, Target.OPENMP) == "dynamic+static|2|0"
    assert descriptor(f"#pragma omp parallel for simd\n{LOOP}", Target.OPENMP) == "simd|1|0"
    assert descriptor("k<<<g, b>>>(x);\n" * 60, Target.CUDA) == "cuda|60|1"


def test_parents_keep_the_best_and_draw_the_rest_reproducibly() -> None:
    archive = Archive()
    for i, cell in enumerate(["a", "b", "c", "d"]):
        archive.place(Elite(i + 1, cell, correct=True, speedup=1.0 + i))
    archive.place(Elite(9, "x", correct=False, speedup=0.0))
    first = archive.parents(random.Random("7:1"), 3, best=4)
    assert first[0] == 4 and len(first) == 3 and 9 not in first
    assert archive.parents(random.Random("7:1"), 3, best=4) == first
    assert Archive.from_json(archive.to_json()).to_json() == archive.to_json()
    assert [e.candidate_id for e in archive.elites()][:2] == [4, 3]


def test_stop_reasons_in_order() -> None:
    limits = Limits(generations=3, evaluations=10, plateau=2, time_s=60)
    record = new_record(0, started_at=100.0, tokens_at_start=0)
    assert stop_reason(record, limits, 100.0, None) == "no correct candidate to evolve"
    record["best"] = 1
    assert stop_reason(record, limits, 100.0, None) == ""
    assert "time budget" in stop_reason(record, limits, 161.0, None)
    assert "token budget" in stop_reason(record, limits, 100.0, "token budget of 5 spent")
    record["plateau"] = 2
    assert "no confident improvement" in stop_reason(record, limits, 100.0, None)
    record["evaluations"] = 10
    assert "evaluation budget" in stop_reason(record, limits, 100.0, None)
    record["generation"] = 3
    assert stop_reason(record, limits, 100.0, None) == "3 generations done"


def test_lineage_walks_from_the_best_back_to_its_seed() -> None:
    record = new_record(0, 0.0, 0)
    record.update(best=7, first=1, first_speedup=1.1)
    record["archive"] = Archive({"s": Elite(1, "s", True, 1.1)}).to_json()
    record["history"] = [
        {
            "candidate_id": 4,
            "parents": [1],
            "operator": "schedule",
            "label": "L1 dynamic",
            "speedup": 1.5,
            "confidence": 0.99,
        },
        {
            "candidate_id": 5,
            "parents": [1],
            "operator": "chunk",
            "label": "L1 16",
            "speedup": 0.9,
            "confidence": 0.1,
        },
        {
            "candidate_id": 7,
            "parents": [4, 5],
            "operator": "crossover",
            "label": "x",
            "speedup": 1.8,
            "confidence": 0.97,
        },
    ]
    chain = lineage(record)
    assert [c["candidate_id"] for c in chain] == [1, 4, 7]
    assert chain[0]["operator"] == "seed" and chain[0]["speedup"] == 1.1
    assert chain[-1]["confidence"] == 0.97
