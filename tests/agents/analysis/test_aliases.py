"""Pointers and references that may alias: what the verdict checks at run time, what it
cannot bound, and a multiversioned loop that computes what the sequential one does."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agents.analysis import LoopChoice, analyse, annotatable, apply_choices, default_choices
from sandbox.spec import Language

C, CPP = Language.C, Language.CPP


def _verdict(source: str, language: Language = C, loop: str = "L1"):
    found = analyse(source, language).loop(loop)
    assert found is not None
    return found.dependence


def test_a_local_pointer_into_an_array_is_checked_against_it() -> None:
    dep = _verdict(
        "void f(int n, double *a) { double *p = a + 1; "
        "for (int i = 0; i < n - 1; i++) p[i] = a[i] + 1; }"
    )
    assert dep.kind == "independent"
    assert len(dep.overlap_checks) == 1
    assert "p +" in dep.overlap_checks[0] and "a +" in dep.overlap_checks[0]


def test_pointer_parameters_are_checked_at_run_time_not_assumed() -> None:
    dep = _verdict(
        "void shift(double *dst, const double *src, int n) { "
        "for (int i = 0; i < n; i++) dst[i] = src[i]; }"
    )
    assert dep.overlap_checks
    assert all("checked at run time" in a for a in dep.assumptions)


def test_container_references_are_compared_as_objects() -> None:
    dep = _verdict(
        "#include <vector>\nvoid f(std::vector<double> const& A, std::vector<double> &C) { "
        "for (size_t i = 0; i < C.size(); i++) C[i] = 2 * A[i]; }",
        CPP,
    )
    assert dep.overlap_checks == ("(const void *)&A != (const void *)&C",)


def test_a_parameter_cannot_point_into_the_functions_own_arrays() -> None:
    dep = _verdict(
        "void f(int n, const double *x, double *out) { double h[64]; "
        "for (int i = 0; i < 64; i++) h[i] = x[i]; out[0] = h[0]; }"
    )
    assert dep.kind == "independent" and dep.overlap_checks == ()


def test_a_parameter_pointed_elsewhere_is_checked_even_against_local_arrays() -> None:
    dep = _verdict(
        "void f(int n, double *x) { double h[64] = {0}; x = h + 1; "
        "for (int i = 0; i < 63; i++) x[i] = h[i]; }"
    )
    assert dep.overlap_checks


def test_a_reference_to_another_class_may_hold_anyones_storage() -> None:
    dep = _verdict(
        "#include <span>\nvoid f(std::span<double> &y, double *x, int n) { "
        "for (int i = 0; i < n; i++) y[i] = x[i]; }",
        CPP,
    )
    assert dep.kind == "unknown" and "one a reference or a view" in dep.reason


def test_a_counter_running_backwards_through_a_subscript_is_bounded() -> None:
    dep = _verdict(
        "void f(int n, double *y, const double *x) { "
        "for (int i = 0; i < n; i++) y[n - 1 - i] = x[i]; }"
    )
    assert dep.kind == "independent" and dep.overlap_checks


@pytest.mark.parametrize(
    ("source", "phrase"),
    [
        (
            "void f(int n, int *y, const int *h, const int *x) { "
            "for (int i = 0; i < n; i++) y[i] = h[x[i]]; }",
            "unbounded",
        ),
        (
            "void f(int n, int m, double *a, double **b) { for (int i = 0; i < n; i++) "
            "for (int j = 0; j < m; j++) a[i * m + j] = b[i][j]; }",
            "unbounded",
        ),
        (
            "struct S { double *d; }; void f(struct S s, double *a, int n) { "
            "for (int i = 0; i < n; i++) s.d[i] = a[i]; }",
            "field",
        ),
        (
            "void f(double *a, const double *b, int n) { for (int i = 0; i < n; i += 2) "
            "a[i] = b[i]; }",
            "unbounded",
        ),
    ],
    ids=["a gather", "rows of a double **", "struct field", "stride two"],
)
def test_what_a_pointer_may_reach_unbounded_leaves_the_loop_unknown(
    source: str, phrase: str
) -> None:
    dep = _verdict(source)
    assert dep.kind == "unknown" and phrase in dep.reason


PROGRAM = (Path(__file__).parent / "aliases.cpp").read_text()
"""One function per rewrite the annotator does (plain, reduction, blocked scan, best update,
atomic histogram, grid, triangle), each called once with overlapping and once with separate arguments."""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ with OpenMP")
def test_multiversioned_loops_compute_what_the_sequential_program_does(tmp_path: Path) -> None:
    program = analyse(PROGRAM, CPP)
    loops = annotatable(program)
    assert sum(bool(loop.dependence.overlap_checks) for loop in loops) >= 9
    # simd wherever allowed: a vectorised loop over overlapping pointers goes wrong even
    # on one thread, so only the run-time check keeps the overlapping calls right.
    choices = [
        c.model_copy(update={"simd": c.loop in ("L1", "L2", "L8")}) for c in default_choices(loops)
    ]
    annotated = apply_choices(PROGRAM, program, choices)
    outputs = []
    for name, text, flags in (
        ("seq", PROGRAM, []),
        ("par", annotated, ["-fopenmp"]),
    ):
        source = tmp_path / f"{name}.cpp"
        source.write_text(text)
        built = subprocess.run(
            ["g++", "-O2", *flags, "-o", str(tmp_path / name), str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert built.returncode == 0, built.stderr + text
        ran = subprocess.run(
            [str(tmp_path / name)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "OMP_NUM_THREADS": "2"},
            timeout=60,
        )
        outputs.append(ran.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[1].count("\n") == 10


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc with OpenMP")
def test_a_loop_sharing_its_line_is_wrapped_after_the_code_before_it() -> None:
    source = (
        "void f(int n, int *x, const int *y, int c) {\n"
        "    if (c) for (int i = 0; i < n; i++) x[i] = y[i];\n}\n"
    )
    program = analyse(source, C)
    out = apply_choices(source, program, [LoopChoice(loop="L1")])
    rows = out.split("\n")
    assert rows[1] == "    if (c)" and rows[2].startswith("    if (")
    done = subprocess.run(
        ["gcc", "-fopenmp", "-fsyntax-only", "-Werror", "-x", "c", "-"],
        input=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr + out
