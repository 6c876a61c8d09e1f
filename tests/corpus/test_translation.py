"""Translation tasks: ParEval's 143 prompts plus ParForge's CUDA→OpenMP and serial→CUDA
directions."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from corpus.errors import UnsupportedTranslation
from corpus.suites import load_suite
from sandbox.spec import Spec

PROMPTS = Path(__file__).parents[2] / "corpus" / "suites" / "pareval" / "prompts"


def test_all_pareval_translation_prompts_are_listed_verbatim() -> None:
    suite = load_suite("pareval")
    entries = json.loads((PROMPTS / "translation-prompts.json").read_text())
    pareval = [t for t in suite.translations if t.origin == "pareval"]
    assert len(pareval) == len(entries) == 143
    directions = Counter((t.source_model, t.target_model) for t in pareval)
    assert directions == {("serial", "openmp"): 54, ("serial", "mpi"): 54, ("cuda", "kokkos"): 35}
    prompts = {(e["name"], e["translation_dst_model"]): e["translation_prompt"] for e in entries}
    short = {"openmp": "omp", "mpi": "mpi", "kokkos": "kokkos"}
    for t in pareval:
        assert t.prompt == prompts[(t.problem, short[t.target_model])]


def test_kokkos_is_listed_but_unsupported_with_a_reason() -> None:
    kokkos = [t for t in load_suite("pareval").translations if t.target_model == "kokkos"]
    assert kokkos and not any(t.supported for t in kokkos)
    assert all("Kokkos" in t.reason for t in kokkos)
    with pytest.raises(UnsupportedTranslation, match="Kokkos"):
        kokkos[0].spec_for()


def test_supported_translations_verify_like_generation_tasks() -> None:
    suite = load_suite("pareval")
    supported = [t for t in suite.translations if t.supported]
    assert supported
    for t in supported:
        assert t.task is not None
        assert t.spec_for() == t.task.spec_for(t.target_model)
        Spec.model_validate(t.spec_for())
        assert t.prompt.rstrip().endswith("{")
    for t in suite.translations:
        if t.origin == "pareval" and t.source_model == "serial" and not t.supported:
            assert t.reason, t.name


def test_cuda_to_openmp_is_built_from_the_known_good_cuda_solution() -> None:
    suite = load_suite("pareval")
    ours = [t for t in suite.translations if t.origin == "parforge" and t.target_model == "openmp"]
    assert {(t.source_model, t.target_model) for t in ours} == {("cuda", "openmp")}
    for t in ours:
        assert t.task is not None
        assert t.prompt.startswith(f"// CUDA implementation of {t.function}\n// ")
        assert t.prompt.endswith(t.task.prompt_for("openmp") + "\n")
        assert "__global__" in t.source
    assert {t.problem for t in ours} == {
        task.name
        for task in suite.tasks
        if task.applies_to("cuda") and task.target("cuda").solutions
    }


def test_serial_to_cuda_pairs_the_sequential_solution_with_the_cuda_driver() -> None:
    """Every problem with a CUDA driver gets a serial→CUDA task: the sequential solution,
    commented, then the CUDA generation prompt ending in the kernel's signature; verified
    by the CUDA driver against the sequential reference, as a CUDA generation task."""
    suite = load_suite("pareval")
    ours = [t for t in suite.translations if t.target_model == "cuda"]
    assert {(t.origin, t.source_model) for t in ours} == {("parforge", "serial")}
    assert {t.problem for t in ours} == {
        task.name for task in suite.tasks if task.applies_to("cuda")
    }
    assert len(ours) == 60
    for t in ours:
        assert t.supported and t.task is not None
        assert t.source == t.task.reference.rstrip("\n")
        assert t.prompt.startswith(f"// Serial implementation of {t.function}\n// ")
        assert t.prompt.endswith(t.task.prompt_for("cuda") + "\n")
        assert "__global__" in t.prompt.split(f"// CUDA implementation of {t.function}\n")[1]
        assert t.spec_for() == t.task.spec_for("cuda")
