"""What the differential fuzzer (`evals.fuzz`) found, one program each: broken annotations,
built and run (the annotated program must compute what the sequential one does), and parallel
loops the analysis missed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agents.analysis import analyse, annotatable, apply_choices, default_choices
from sandbox.spec import Language

ARGMIN_OF_DOUBLES = """#include <stdio.h>
static double a[4000];
int main(void) {
    for (int i = 0; i < 4000; i++) a[i] = ((i * 37) % 1001) * 0.125 - 60.0;
    a[2019] = -75.375;
    double best = a[0];
    int at = 0;
    for (int i = 1; i < 4000; i++)
        if (a[i] < best) { best = a[i]; at = i; }
    printf("%.6f %d\\n", best, at);
    return 0;
}
"""
"""In C (no <stdbool.h>): the rewrite once declared the per-thread best with `auto`, an
implicit `int` there, and its flags with `bool`/`false`, which C lacks without the header."""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc with OpenMP")
def test_a_c_argmin_over_doubles_keeps_its_fraction(tmp_path: Path) -> None:
    program = analyse(ARGMIN_OF_DOUBLES, Language.C)
    loops = annotatable(program)
    assert [loop.dependence.best_updates != () for loop in loops] == [False, True]
    annotated = apply_choices(ARGMIN_OF_DOUBLES, program, default_choices(loops))
    outputs = []
    for name, source, flags in (
        ("seq", ARGMIN_OF_DOUBLES, []),
        ("par", annotated, ["-fopenmp"]),
    ):
        (tmp_path / f"{name}.c").write_text(source)
        subprocess.run(
            ["gcc", "-O2", "-Wall", "-Werror", *flags, f"{name}.c", "-o", name],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )
        ran = subprocess.run(
            [f"./{name}"],
            cwd=tmp_path,
            env=os.environ | {"OMP_NUM_THREADS": "2"},
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.append(ran.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].startswith("-75.375000 2019")


GLOBAL_HISTOGRAM = """#include <stdio.h>
#define NB 16
static int x[1000];
static long hist[NB];
void count(int n) { for (int i = 0; i < n; i++) hist[x[i] % NB]++; }
void local(int n) { long hist[4] = {0}; for (int i = 0; i < n; i++) hist[x[i] & 3]++; }
void passed(int n, long *hist) { for (int i = 0; i < n; i++) hist[x[i] & 3]++; }
"""


def test_a_histogram_into_a_file_scope_array_is_reduced_over_its_declared_length() -> None:
    """The length comes from the global's declaration; a local or a parameter of the same
    name shadows it (a pointer parameter's length is still unknown)."""
    program = analyse(GLOBAL_HISTOGRAM, Language.C)
    found = {
        loop.function: [(a.var, a.length) for a in loop.dependence.array_reductions]
        for loop in program.loops
    }
    assert found == {"count": [("hist", "NB")], "local": [("hist", "4")], "passed": []}
    assert not program.function("passed").loops[0].dependence.parallelisable


C_SEARCHES = """#include <stdio.h>
static int a[100000];
int find(int n, int key) {
    for (int i = 0; i < n; i++)
        if (a[i] == key) return i;
    return -1;
}
int main(void) {
    for (int i = 0; i < 100000; i++) a[i] = (i * 7919) % 100003;
    int at = -1;
    for (int i = 0; i < 100000; i++) {
        if (a[i] % 977 == 5) { at = i; break; }
    }
    printf("%d %d %d %d\\n", find(100000, a[73456]), find(100000, -3), at, find(0, 1));
    return 0;
}
"""
"""Searches in C, by `return` and by `break`: "none found" is the loop's bound, not
`std::numeric_limits`, which C lacks (they were left sequential)."""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc with OpenMP")
def test_c_searches_run_as_first_match_searches(tmp_path: Path) -> None:
    program = analyse(C_SEARCHES, Language.C)
    assert [loop.dependence.first_match for loop in program.loops] == [True, False, True]
    annotated = apply_choices(C_SEARCHES, program, default_choices(annotatable(program)))
    assert "limits" not in annotated
    (tmp_path / "seq.c").write_text(C_SEARCHES)
    (tmp_path / "par.c").write_text(annotated)
    for name, flags in (("seq", []), ("par", ["-fopenmp"])):
        subprocess.run(
            ["gcc", "-O2", "-Wall", "-Werror", *flags, f"{name}.c", "-o", name],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )
    want = subprocess.run(["./seq"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert want.stdout == "73456 -1 515 -1\n"
    for threads, schedule in (("2", "static"), ("4", "dynamic,1")):
        env = os.environ | {"OMP_NUM_THREADS": threads, "OMP_SCHEDULE": schedule}
        got = subprocess.run(["./par"], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert got.stdout == want.stdout, (threads, schedule)
