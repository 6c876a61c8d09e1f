"""The evolution summary: the engine's stored result reduced to the promised keys."""

from __future__ import annotations

from agents.evolve.summary import evolution_summary


def test_no_evolution_is_none():
    assert evolution_summary(None) is None


def test_the_contract_keys_pass_through_and_nothing_else():
    entry = {"candidate_id": 5, "operator": "crossover", "label": "simd", "speedup": 2.0}
    result = {
        "generations": 3,
        "evaluations": 9,
        "first_speedup": 1.2,
        "best_speedup": 2.0,
        "best_candidate_id": 5,
        "best_confidence": 0.97,
        "first_candidate_id": 1,
        "lineage": [entry | {"confidence": 0.9, "parents": [1, 2]}, "not an entry"],
        "stopped": "generations spent",
        "seed": 11,
        "archive": {"cells": 4},
    }
    assert evolution_summary(result) == {
        "generations": 3,
        "evaluations": 9,
        "first_speedup": 1.2,
        "best_speedup": 2.0,
        "best_candidate_id": 5,
        "best_confidence": 0.97,
        "first_candidate_id": 1,
        "lineage": [entry | {"confidence": 0.9, "over_best": None}],
        "stopped": "generations spent",
        "seed": 11,
    }


def test_missing_keys_get_defaults():
    assert evolution_summary({}) == {
        "generations": 0,
        "evaluations": 0,
        "first_speedup": 0.0,
        "best_speedup": 0.0,
        "best_candidate_id": None,
        "best_confidence": None,
        "first_candidate_id": None,
        "lineage": [],
        "stopped": "",
        "seed": 0,
    }
    assert evolution_summary({"lineage": [{"candidate_id": 1}]})["lineage"] == [  # type: ignore[index]
        {
            "candidate_id": 1,
            "operator": None,
            "label": None,
            "speedup": None,
            "confidence": None,
            "over_best": None,
        }
    ]
