"""The built-in ParEval-compatible suite: every task well formed and faithful to ParEval's data."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from corpus.suites import Suite, load_suite
from sandbox.spec import Spec, Target

PAREVAL_DIR = Path(__file__).parents[2] / "corpus" / "suites" / "pareval"
PAREVAL_MODELS = {"serial": "serial", "omp": "openmp", "mpi": "mpi", "cuda": "cuda"}


@cache
def suite() -> Suite:
    return load_suite("pareval")


@cache
def generation_prompts() -> dict[tuple[str, str], str]:
    entries = json.loads((PAREVAL_DIR / "prompts" / "generation-prompts.json").read_text())
    return {
        (e["name"], PAREVAL_MODELS[e["parallelism_model"]]): e["prompt"]
        for e in entries
        if e["parallelism_model"] in PAREVAL_MODELS
    }


def task_targets() -> list[tuple[str, Target]]:
    return [(t.name, target) for t in suite().tasks for target in t.targets]


def test_vendored_data_and_licence() -> None:
    assert "MIT" in suite().license
    assert "Permission is hereby granted" in (PAREVAL_DIR / "LICENSE").read_text()
    names = {name for name, _ in generation_prompts()}
    assert len(names) == 60
    assert len(generation_prompts()) == 240


def test_tasks_are_pareval_problems_with_their_types() -> None:
    entries = json.loads((PAREVAL_DIR / "prompts" / "generation-prompts.json").read_text())
    types = {e["name"]: e["problem_type"] for e in entries}
    for task in suite().tasks:
        assert types[task.name] == task.problem_type


@pytest.mark.parametrize(("name", "target"), task_targets())
def test_every_spec_dict_is_a_valid_spec(name: str, target: Target) -> None:
    task = suite().task(name)
    raw = task.spec_for(target)
    assert set(raw) == set(Spec.model_fields)
    spec = Spec.model_validate(raw)
    assert spec.driver is not None
    assert '"solution.inc"' not in spec.reference
    assert task.reference.strip() in spec.reference
    assert set(spec.files) >= {"pf.hpp", "problem.hpp"}
    assert len(spec.tests) >= 4
    assert spec.timing is not None
    assert int(spec.timing.args[1]) > max(int(t.args[1]) for t in spec.tests)


@pytest.mark.parametrize(("name", "target"), task_targets())
def test_prompts_are_parevals_verbatim(name: str, target: Target) -> None:
    assert suite().task(name).prompt_for(target) == generation_prompts()[(name, target.value)]


@pytest.mark.parametrize(("name", "target"), task_targets())
def test_known_good_solutions_complete_the_prompt(name: str, target: Target) -> None:
    entry = suite().task(name).target(target)
    for good in entry.solutions:
        assert good.source.startswith(entry.prompt), f"{good.name} does not start with the prompt"
        for mutant in good.mutants:
            assert mutant.source != good.source
            assert mutant.source.startswith(entry.prompt), f"{mutant.name} edits the prompt"


def test_reference_is_the_serial_prompt_completed() -> None:
    for task in suite().tasks:
        assert task.reference.startswith(generation_prompts()[(task.name, "serial")])


def test_every_parallel_target_has_known_good_solutions_and_mutants() -> None:
    for task in suite().tasks:
        for target in (Target.OPENMP, Target.MPI, Target.CUDA):
            entry = task.target(target)
            assert entry.solutions, f"{task.name} has no known-good {target} solution"
            for good in entry.solutions:
                assert good.mutants, f"{task.name}/{good.name} has no mutant"
