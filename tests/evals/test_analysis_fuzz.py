"""The analysis fuzzer: a deterministic generator that covers every shape and hazard, an
oracle that notices a wrong annotation, and a fixed-seed sample on which the analysis must
annotate nothing unsound."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from evals.fuzz import HAZARDS, RTOL, SHAPES, compare_outputs, generate, run_many
from evals.fuzz.generator import Snippet
from evals.fuzz.harness import run_annotated, run_sequential
from sandbox.spec import Language

KNOWN_OPEN: frozenset[str] = frozenset()
"""Hazard classes the analysis is known to annotate unsoundly, left out of the sample test
while a fix is under way (none now: pointer aliases, call-path state, helper reads, flattened
rows, the C argmin rewrite, and reads through addresses (`*s`, scalar references, file-scope
pointers) were fixed with this sample and the benchmark as their check)."""


def test_the_generator_is_deterministic_per_seed() -> None:
    assert generate(5, 3).source == generate(5, 3).source
    assert generate(5, 3).source != generate(6, 3).source
    assert generate(5, 3).source != generate(5, 4).source


def test_the_generator_covers_every_shape_and_hazard_in_both_languages() -> None:
    programs = [generate(1, i) for i in range(900)]
    classes = Counter(s.klass for p in programs for s in p.snippets)
    assert set(classes) == set(SHAPES) | set(HAZARDS)
    assert {p.language for p in programs} == {Language.C, Language.CPP}
    ops = {s.detail.split()[0] for p in programs for s in p.snippets if s.klass == "reduction"}
    assert ops == {"+", "*", "min", "max", "&", "|", "^", "&&", "||"}
    forms = {s.detail.split()[1] for p in programs for s in p.snippets if s.klass == "scan"}
    assert forms == {
        "running", "in_place", "shifted", "shifted_in_place", "exclusive", "exclusive_local",
        "one_based", "suffix", "exclusive_kept",
    }  # fmt: skip
    near = {s.detail for p in programs for s in p.snippets if s.klass == "wrap_or_swap"}
    assert {"far", "next", "minus", "twice", "writes", "ex_stored", "ex_local", "ex_skip"} <= near
    packs = {s.detail for p in programs for s in p.snippets if s.klass == "pack"}
    assert packs == {"postfix", "block", "pointers"}
    misses = {s.detail for p in programs for s in p.snippets if s.klass == "pack_near"}
    assert misses == {"in_place", "every", "aliased", "counted", "narrow"}


def test_snippets_know_whether_they_are_parallel() -> None:
    snippets: list[Snippet] = [s for i in range(40) for s in generate(2, i).snippets]
    assert all(s.parallel == (s.klass in SHAPES) for s in snippets)
    assert any(s.parallel for s in snippets) and any(not s.parallel for s in snippets)


def test_integers_compare_exactly_and_floats_within_the_tolerance() -> None:
    expected = "s0_r i 42\ns1_v f 1.0 2.0\n"
    assert compare_outputs(expected, expected) == set()
    assert compare_outputs(expected, "s0_r i 43\ns1_v f 1.0 2.0\n") == {"s0_r"}
    close = f"s0_r i 42\ns1_v f {1.0 + RTOL / 10} 2.0\n"
    assert compare_outputs(expected, close) == set()
    far = f"s0_r i 42\ns1_v f {1.0 + RTOL * 10} 2.0\n"
    assert compare_outputs(expected, far) == {"s1_v"}
    assert compare_outputs(expected, "s0_r i 42\n") == {"s1_v"}


def _program_with(klass: str) -> tuple[str, Language, Snippet]:
    for i in range(200):
        program = generate(3, i)
        for s in program.snippets:
            if s.klass == klass:
                return program.source, program.language, s
    raise AssertionError(f"no {klass} snippet in the first 200 programs")


@pytest.mark.slow
def test_the_oracle_catches_a_wrong_annotation(tmp_path: Path) -> None:
    """A loop calling a helper with static state, annotated by hand: iterations interleaved
    round-robin take the counter's values out of order, so the output must differ at 2 and
    4 threads, and not at 1."""
    assert shutil.which("gcc"), "the fuzzer needs gcc (with OpenMP and the sanitizers)"
    source, language, snippet = _program_with("static_state")
    loop = "    for (int i = 0;"
    assert snippet.function.count(loop) == 1
    annotated = snippet.function.replace(
        loop, "#pragma omp parallel for schedule(static,1)\n" + loop
    )
    wrong = source.replace(snippet.function, annotated)
    expected, failed = run_sequential(source, language, tmp_path)
    assert failed is None
    error, runs = run_annotated(wrong, language, expected, tmp_path)
    assert error is None
    differing = {run.threads: snippet.prefix in run.differing for run in runs}
    assert differing == {1: False, 2: True, 4: True}


@pytest.mark.slow
def test_a_fixed_sample_has_no_unsound_annotation() -> None:
    stats = run_many(seed=2026, programs=30, jobs=2)
    assert stats.discarded == 0, stats.discard_reasons
    unsound = [c for c in stats.unsound if c.klass not in KNOWN_OPEN]
    assert not unsound, [
        f"{c.program} {c.loop} {c.klass} ({c.detail}) {c.schedule} x{c.threads}: {c.reason}"
        for c in unsound
    ]
