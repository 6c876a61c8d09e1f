"""`offload`: CUDA programs written from the analysis's loop facts.

Here nothing can run them (no GPU): every generated program must build with `nvcc`, and the
pure tests check what the tool offers, refuses and writes. `benchmarks/offload_gpu` runs the
same programs on a GPU host (outputs, compute-sanitizer, timing)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from agents.analysis import AnnotationError, analyse
from agents.analysis.offload import c_as_cpp, offload, offloadable, why_not
from agents.analysis.parse import syntax_tree
from agents.targets import kit
from agents.targets.lowered import with_most_loops
from sandbox.checkers.integrity import symbol_findings
from sandbox.spec import Language, Target
from tests.agents.analysis.test_distribute import _stdin_for_shapes
from tests.fakes.paths import GRAPH_PROGRAMS

ROOT = Path(__file__).parents[3]
PROGRAMS = {
    "reduce": (GRAPH_PROGRAMS / "reduce.c", {"L1"}),
    "map": (GRAPH_PROGRAMS / "map.c", {"L1", "L2", "L3"}),
    "histogram": (GRAPH_PROGRAMS / "histogram.c", {"L1", "L2"}),
    "stencil": (GRAPH_PROGRAMS / "stencil.c", {"L2"}),
    # the input loop, and the scan as terms, CUB's scan and the rest of the body
    "scan": (GRAPH_PROGRAMS / "scan.c", {"L1", "L2"}),
    "recurrence": (GRAPH_PROGRAMS / "recurrence.c", set()),
    # the folds, the argmins and argmaxes, rows and main's set-up loop; not the logical folds
    # or last values
    "mpi_folds": (
        Path(__file__).parent / "programs" / "mpi_folds.c",
        {"L2", "L3", "L4", "L5", "L6", "L7", "L13"},
    ),
    "heat2d": (ROOT / "examples" / "heat2d" / "heat2d.c", {"L1", "L3", "L5"}),
    "stack_arrays": (ROOT / "benchmarks/offload_gpu/programs/stack_arrays.c", {"L1", "L2", "L3"}),
    # a map, a sum and a histogram counting down, a map up to an inclusive bound; not the
    # reverse scan
    "count_down": (Path(__file__).parent / "programs" / "count_down.c", {"L1", "L2", "L3", "L4"}),
    # an argmin, an argmax keeping the last of ties, a maximum
    "argmin": (Path(__file__).parent / "programs" / "argmin.c", {"L1", "L2", "L3", "L4"}),
    # a C++ program's vectors declared with a size, a map and a sum over them
    "vectors": (Path(__file__).parent / "programs" / "vectors.cpp", {"L1", "L2"}),
    # a function's vectors taken by reference (the kernel takes their data), main's loops
    # (one over a vector sized `n * n`)
    "ref_params": (
        Path(__file__).parent / "programs" / "ref_params.cpp",
        {"L1", "L3", "L4", "L5"},
    ),
    # first-match searches: one setting two scalars where it leaves, one returning
    "search": (Path(__file__).parent / "programs" / "search.c", {"L1", "L2", "L3"}),
    # vectors sized by a product (`in(W * H)`, read by the parser as a prototype)
    "images": (Path(__file__).parent / "programs" / "images.cpp", {"L1", "L3", "L8", "L9"}),
    # exclusive scans (row offsets, reads of the value before the step in two statements, or
    # through a local stored after it or read before it), main's loops; not a floating product, nor a scan read
    # on both sides of its step
    "exclusive_scans": (
        Path(__file__).parent / "programs" / "exclusive_scans.c",
        {"L1", "L2", "L5", "L9", "L11", "L12"},
    ),
    # C that is not C++ (a comparator's silent `void *` conversions, `bsearch`'s result,
    # names that are C++ keywords): written as C++ with the same meaning first
    "c_not_cpp": (Path(__file__).parent / "programs" / "c_not_cpp.c", {"L2", "L3", "L4"}),
    # scans counting down (suffix sums, an exclusive one, a compaction from the end, a
    # running minimum): CUB's scans over the terms in the loop's order; main's loops
    "suffix_scans": (
        Path(__file__).parent / "programs" / "suffix_scans.cpp",
        {"L1", "L2", "L3", "L4", "L6", "L7"},
    ),
    # writes column by column (`a[i + j * n]`, the outer counter the column): the outer
    # loops; not where the column may reach the row length or the rows are of another length
    "column_writes": (
        Path(__file__).parent / "programs" / "column_writes.c",
        {"L1", "L3", "L6", "L11"},
    ),
    # && and || folds stay on the host; main's set-up loop
    "logical_starts": (Path(__file__).parent / "programs" / "logical_starts.c", {"L10"}),
    # a hostile probe's: a method's loop, names through `::`, std::complex, a first value
    # calling counting code, prefix sums in nests (each row or column its thread's, not one
    # flat range); the rest
    "offload_refusals": (
        Path(__file__).parent / "programs" / "offload_refusals.cpp",
        {"L8", "L10", "L12", "L14", "L16", "L18"},
    ),
    # loops run before main or after it: only main's
    "mpi_outside_main": (
        Path(__file__).parent / "programs" / "mpi_outside_main.cpp",
        {"L4", "L5"},
    ),
    # a program's own OpenMP directives and loop hints: only the two loops without one
    "own_directives": (Path(__file__).parent / "programs" / "own_directives.c", {"L7", "L8"}),
    # running maxima and minima (`std::max`, an `if`, a ternary; one exclusive) as CUB's
    # scans with their operators, a maximum, main's loops
    "running_extrema": (
        Path(__file__).parent / "programs" / "running_extrema.cpp",
        {"L1", "L2", "L3", "L4", "L6", "L7"},
    ),
}


def _language(path: Path) -> Language:
    return Language.CPP if path.suffix == ".cpp" else Language.C


def _offered(source: str, language: Language = Language.C) -> set[str]:
    return {loop.id for loop in offloadable(source, analyse(source, language))}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_tool_offers_the_loops_it_can_run_as_kernels(name: str) -> None:
    path, expected = PROGRAMS[name]
    source = path.read_text()
    program = analyse(source, _language(path))
    root = syntax_tree(source, _language(path)).root_node
    assert _offered(source, _language(path)) == expected, {
        loop.id: why_not(root, program, loop) for loop in program.loops
    }


def test_the_kit_runs_a_programs_algorithms_as_the_loops_they_run() -> None:
    """Loops over the elements of the program's own vectors, and `std::count_if` and
    `*std::min_element` over them: written as the counted loops they run (a map, a `+`
    reduction, another and a `min` reduction), they become kernels too."""
    path = Path(__file__).parent / "programs" / "vectors.cpp"
    source = path.read_text()
    program = analyse(source, Language.CPP)
    assert kit(Target.CUDA).mechanical(source, program)
    seed = kit(Target.CUDA).seed(source, program)
    assert seed is not None and seed.count("<<<") == 6
    assert "std::count_if" not in seed and "std::min_element" not in seed
    assert "for (double &x : a)" not in seed and "for (double x : b)" not in seed


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
def test_every_generated_program_builds_with_nvcc(tmp_path: Path) -> None:
    built = []
    for name, (path, expected) in sorted(PROGRAMS.items()):
        if not expected:
            continue
        source = path.read_text()
        cuda = offload(source, analyse(source, _language(path)), sorted(expected))
        (tmp_path / f"{name}.cu").write_text(cuda)
        run = subprocess.run(
            [
                "nvcc",
                "-O2",
                "-arch=sm_90",
                "-o",
                str(tmp_path / name),
                str(tmp_path / f"{name}.cu"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, (name, run.stderr[-3000:])
        built.append(name)
    assert len(built) == len([p for p in PROGRAMS.values() if p[1]])


def test_a_kernel_takes_the_bodys_names_and_folds_its_reduction_per_block() -> None:
    source = """
double dot(int n, const double *x, const double *y, double scale) {
    double s = 0;
    for (int i = 0; i < n; i++) s += scale * x[i] * y[i];
    return s;
}
"""
    cuda = offload(source, analyse(source, Language.C), ["L1"])
    assert (
        "__global__ void pf_cuda_kernel_0(long long pf_first, long long pf_count, pf_cuda_C0 pf_cell0"
        in cuda
    )
    assert "pf_cuda_T0 s, pf_cuda_T1 scale, pf_cuda_T2 x, pf_cuda_T3 y)" in cuda
    assert "pf_cuda_fold(pf_cell0, s, pf_cuda_plus());" in cuda
    # the device cannot reach a pointer it was handed from the stack: then the host runs it
    assert "if (pf_cuda_reachable(x) && pf_cuda_reachable(y)) {" in cuda


def test_a_histogram_with_few_bins_counts_in_shared_memory_first() -> None:
    source = (GRAPH_PROGRAMS / "histogram.c").read_text()
    cuda = offload(source, analyse(source, Language.C), ["L2"])
    assert "__shared__ pf_bins0_t pf_bins0[16];" in cuda
    assert "pf_cuda_update(&(PF_CUDA_BINS(pf_bins0, bins)[x[i] % 16]), 1, pf_cuda_plus());" in cuda
    assert "pf_cuda_update(&bins[pf_b], pf_bins0[pf_b], pf_cuda_plus());" in cuda
    # a C array reaches the device through a managed copy, and comes back
    assert "pf_cuda_copy_in(&(bins)[0], sizeof(bins))" in cuda
    assert "pf_cuda_copy_out(&(bins)[0]" in cuda


def test_a_loop_counting_down_runs_iteration_k_at_its_first_value_less_k() -> None:
    """Iterations from the first value down to the bound (inclusive for `>=`), counted on the
    host from the first value to the last the loop's own test takes (the bound, or one past it
    for `>`); thread k runs the counter's first value less k, in its own type (an unsigned
    counter stopping above 0 never reaches a wrapped value: k < the count)."""
    source = (Path(__file__).parent / "programs" / "count_down.c").read_text()
    cuda = offload(source, analyse(source, Language.C), ["L1", "L2", "L3"])
    assert "int i = (int)(pf_first - pf_k);" in cuda
    assert "size_t i = (size_t)(pf_first - pf_k);" in cuda
    assert "long long pf_cuda_0_first = (long long)((int)(n - 1));" in cuda
    # i >= 0: the last value 0; i > 0: 0 fails the test, so the last is 1
    assert "if (!((int)pf_cuda_0_count_last >= (0))) pf_cuda_0_count_last += 1;" in cuda
    assert "long long pf_cuda_0_count = pf_cuda_0_first + 1 - pf_cuda_0_count_last;" in cuda
    assert "if (!((size_t)pf_cuda_1_count_last > (0))) pf_cuda_1_count_last += 1;" in cuda


def test_c_that_is_not_cpp_is_written_as_cpp_with_the_same_meaning() -> None:
    """CUDA compiles a C program as C++: a C++ keyword used as a name is renamed (members
    too), a `void *` a pointer of another type takes silently gets its cast (a comparator's
    arguments, `bsearch`'s result; not a `void *` kept as one); C that is C++ already is left
    as it is."""
    source = (Path(__file__).parent / "programs" / "c_not_cpp.c").read_text()
    written = c_as_cpp(source)
    assert "const int *a = (const int *)(pa), *b = (const int *)(pb);" in written
    assert "found = (int *)(bsearch(" in written
    assert "int pfc_class;" in written and "pfc_this[i].pfc_class = pfc_new[i] % 3;" in written
    kept = "void f(const void *p) {\n    const void *q = p;\n    void *r;\n    r = (void *)q;\n}\n"
    assert c_as_cpp(kept) == kept
    plain = (GRAPH_PROGRAMS / "map.c").read_text()
    assert c_as_cpp(plain) == plain
    # (a hostile probe's) tags, typedefs, macro parameters and bodies but not their strings;
    # a `void *` returned, passed, stored into a member, chosen by `?:`; an int into an enum;
    # the program's own `bool`; a loop body's own variable named as its counter
    source = (Path(__file__).parent / "programs" / "c_not_cpp_more.c").read_text()
    written = c_as_cpp(source)
    for piece in (
        "#define TWICE(pfc_new) ((pfc_new) * 2)",
        '#define LABEL "new class"',
        "struct pfc_class { int *data; int pfc_this; };",
        "typedef struct pfc_template { long pfc_delete; } pfc_template;",
        "return (int *)(p);",
        "c.data = (int *)(raw);",
        "int *b = (int *)(n > 0 ? raw : NULL);",
        "enum mode m = (enum mode)(q % 2);",
        "long s = sum((const int *)(raw), n);",
        "typedef int pfc_bool;",
        "pfc_bool flag = 1;",
        "long pfc_k = s + 1; /* C: the body's own k, which hides the counter's */",
        'printf("%ld\\n", pfc_k);',
    ):
        assert piece in written, piece
    assert c_as_cpp(written) == written  # once is enough


def test_the_heap_becomes_managed_memory() -> None:
    source = (GRAPH_PROGRAMS / "map.c").read_text()
    cuda = offload(source, analyse(source, Language.C), ["L2"])
    assert "double *x = pf_cuda_malloc(n * sizeof *x)" in cuda
    assert "pf_cuda_free(x);" in cuda and "cudaMallocManaged" in cuda


@pytest.mark.parametrize(
    ("loop", "why"),
    [
        (  # the pick keeps one other name
            "for (int i = 0; i < n; i++) if (a[i] < best) { best = a[i]; at = i; ok = i; }",
            "argmin",
        ),
        (  # a way out of an inner loop: no search the analysis proves (nor `offload` takes)
            "for (int i = 0; i < n; i++) for (int j = 0; j < 4; j++) if (a[i] == j) return i;",
            "not independent",
        ),
        (  # where the search stopped is read after it: no search either
            "int i; for (i = 0; i < n; i++) if (a[i] == 3) break; at = i;",
            "not independent",
        ),
        ("for (int i = 1; i < n; i++) a[i] = a[i - 1] + a[i];", "not independent"),
        ("for (int i = 0; i < n; i++) ok = ok && a[i] > 0;", "logical reduction"),
        ("for (int i = 0; i < 8; i++) a[i] = i;", "fewer than a kernel launch"),
    ],
)
def test_what_gets_no_kernel_yet(loop: str, why: str) -> None:
    source = f"""
int f(int n, double *a) {{
    double best = 1e300; int at = -1, ok = 1;
    {loop}
    return at + ok + (int)best;
}}
"""
    program = analyse(source, Language.C)
    root = syntax_tree(source, Language.C).root_node
    target = next(x for x in program.loops if x.function == "f")
    assert why in (why_not(root, program, target) or ""), why_not(root, program, target)
    with pytest.raises(AnnotationError):
        offload(source, program, [target.id])


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
def test_the_programs_functions_a_kernel_calls_run_on_the_device_too(tmp_path: Path) -> None:
    source = """
static double square(double v) { return v * v; }
static double smooth(double v) { return square(v) / (1.0 + square(v)); }
int main(void) {
    double a[1000];
    for (int i = 0; i < 1000; i++) a[i] = smooth(i * 0.01);
    return a[999] > 0.5;
}
"""
    cuda = offload(source, analyse(source, Language.C), ["L1"])
    assert "__host__ __device__ static double square(" in cuda
    assert "__host__ __device__ static double smooth(" in cuda
    (tmp_path / "p.cu").write_text(cuda)
    run = subprocess.run(
        ["nvcc", "-arch=sm_90", "-o", str(tmp_path / "p"), str(tmp_path / "p.cu")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
def test_range_elements_and_local_aliases_reach_the_kernel_as_what_they_are(
    tmp_path: Path,
) -> None:
    """A loop inside `for (int x : xs)` takes `x` as a number; inside `for (auto &row : rows)`
    (a vector the device cannot take) it gets no kernel; `auto &u = v;` is the vector `v`, and
    `auto q = a;` a pointer (a helper's probe: each had written a kernel naming `x` or `row`
    undeclared, or taking `u` as a number)."""
    source = """#include <cstdio>
#include <vector>
int main() {
    std::vector<int> xs(4, 3), v(100000, 1), out(100000, 0);
    std::vector<std::vector<int>> rows(3, std::vector<int>(100000, 2));
    auto &u = v;
    static double a[100000];
    auto q = a;
    for (int k = 0; k < 100000; k++) q[k] = k * 0.5;
    for (int x : xs)
        for (int k = 0; k < 100000; k++) out[k] += x * k;
    for (auto &row : rows)
        for (int k = 0; k < 100000; k++) out[k] += row[k];
    for (int k = 0; k < 100000; k++) u[k] = out[k] % 7;
    std::printf("%d %d\\n", out[99999], v[5]);
    return 0;
}
"""
    program = analyse(source, Language.CPP)
    root = syntax_tree(source, Language.CPP).root_node
    why = {loop.id: why_not(root, program, loop) for loop in program.loops}
    inner = [loop.id for loop in program.loops if loop.depth == 1]
    assert why[inner[0]] is None and "uses row" in (why[inner[1]] or ""), why
    chosen = [loop.id for loop in offloadable(source, program)]
    assert inner[0] in chosen and inner[1] not in chosen
    cuda = offload(source, program, chosen)
    assert "pf_cuda_reachable(q)" in cuda  # `auto q = a;` is a pointer, not the array
    _builds(tmp_path, "ranges", cuda)


def test_a_program_using_the_tools_names_is_refused() -> None:
    source = "void f(int n, double *pf_cuda_x) { for (int i = 0; i < n; i++) pf_cuda_x[i] = i; }"
    with pytest.raises(AnnotationError, match="pf_cuda_x"):
        offload(source, analyse(source, Language.C), ["L1"])


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
def test_evolution_finds_the_block_size_and_grid_of_every_launch(tmp_path: Path) -> None:
    """One `PF_CUDA_BLOCK` sizes every launch and every block fold, one `PF_CUDA_GRID` caps
    every grid, one `PF_CUDA_SHARED` puts histograms in shared memory or not: the CUDA kit's
    mutations change each once, consistently, and every neighbour builds."""
    from agents.targets import kit
    from sandbox.spec import Target

    source = (GRAPH_PROGRAMS / "histogram.c").read_text()
    cuda = offload(source, analyse(source, Language.C), ["L1", "L2"])
    mutations = kit(Target.CUDA).mutations(cuda, Language.CUDA)
    assert [m.label for m in mutations] == [
        *(f"PF_CUDA_BLOCK: block size 256 -> {n}" for n in (64, 128, 512, 1024)),
        *(f"PF_CUDA_GRID: at most 65535 -> {n} blocks" for n in (132, 528, 2112)),
        "PF_CUDA_SHARED: histograms in shared memory per block -> global memory",
    ]
    grid = mutations[4].source
    assert grid.count("PF_CUDA_GRID 132") == 1 and grid.count("PF_CUDA_GRID") == cuda.count(
        "PF_CUDA_GRID"
    )
    _builds(tmp_path, "grid", grid)
    # the histogram straight into global memory: its updates name the bins themselves
    assert "pf_cuda_update(&(PF_CUDA_BINS(pf_bins0, bins)[x[i] % 16]), 1" in cuda
    unshared = mutations[-1].source
    assert "#define PF_CUDA_SHARED 0" in unshared
    _builds(tmp_path, "unshared", unshared)


NESTS = """#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 300, m = 200;
    double *a = malloc(sizeof(double) * n * m), *b = malloc(sizeof(double) * n * m);
    double total = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) a[i * m + j] = i * 0.5 + j;
    for (int i = 1; i < n - 1; i++) {
        for (int j = 1; j < m - 1; j++) {
            b[i * m + j] = (a[(i - 1) * m + j] + a[(i + 1) * m + j] + a[i * m + j - 1]) / 3;
            total += b[i * m + j];
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i % m; j++) a[i * m + j] = 1.0;
    for (int i = 0; i < n; i++) {
        a[i * m] = 2.0;
        for (int j = 1; j < m; j++) a[i * m + j] = 3.0;
    }
    printf("%.3f %.3f %.3f\\n", total, a[5 * m + 3], b[7 * m + 9]);
    free(a);
    free(b);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
def test_a_perfect_two_deep_nest_runs_one_thread_per_pair(tmp_path: Path) -> None:
    """Rows of 200 in 300 rows: 60,000 threads instead of 300. Only a perfect nest whose inner
    bounds the nest leaves alone is flattened (not a triangle, not a row with a statement of
    its own before its inner loop)."""
    program = analyse(NESTS, Language.C)
    loops = [loop.id for loop in offloadable(NESTS, program)]
    assert loops == ["L1", "L3", "L6", "L8"]
    cuda = offload(NESTS, program, loops)
    kernels = cuda.split("__global__ void ")[1:]
    flat = ["pf_count * pf_icount" in k for k in kernels]
    assert flat == [True, True, False, False]
    assert "int j = (int)(pf_ifirst + pf_k % pf_icount);" in kernels[1]
    assert "pf_cuda_fold(pf_cell0, total" in kernels[1]  # the sum still folds per block
    _builds(tmp_path, "nests", cuda)


def _builds(tmp_path: Path, name: str, cuda: str) -> None:
    """`cuda` builds with nvcc -O2 for sm_90."""
    (tmp_path / f"{name}.cu").write_text(cuda)
    run = subprocess.run(
        ["nvcc", "-O2", "-arch=sm_90", "-o", str(tmp_path / name), str(tmp_path / f"{name}.cu")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]


SCANS = """#include <stdio.h>
#include <stdlib.h>
int main() {
    int n = 5000;
    double *x = (double *)malloc(sizeof(double) * n);
    double *y = (double *)malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) x[i] = 1.0 + (i % 7) * 1e-4;
    unsigned long long product = 2;
    unsigned *w = (unsigned *)malloc(sizeof(unsigned) * n);
    for (int i = 0; i < n; i++) w[i] = (unsigned)(i % 4);
    for (int i = 0; i < n; i++) {
        product *= w[i] + 1;
        y[i] = (double)(product % 1000);
    }
    long long sum = 0;
    long long *z = (long long *)malloc(sizeof(long long) * n);
    for (int i = 0; i < n; i++) {
        sum += i % 5;
        z[i] = 2 * sum;
        x[i] += (double)sum;
    }
    double low = 1e300;
    for (int i = 0; i < n; i++) {
        low = low < x[i] ? low : x[i];
        y[i] = low;
    }
    long long odd = 0;
    for (int i = 0; i < n; i++) {
        odd += z[i] + odd % 3;
        z[i] = odd;
    }
    double real = 1.0;
    for (int i = 0; i < n; i++) {
        real *= x[i];
        y[i] = real;
    }
    int whole = 1;
    for (int i = 0; i < n; i++) {
        whole += x[i];
        z[i] = whole;
    }
    long *A = (long *)malloc(sizeof(long) * n), *B = (long *)malloc(sizeof(long) * n);
    for (int i = 0; i < n; i++) A[i] = i % 9;
    long seen = 0;
    for (int i = 0; i < n; i++) {
        seen += A[i];
        B[i] = seen;
    }
    printf("%f %llu %lld %lld %f %f %d %ld\\n", y[n - 1], product, sum, z[n - 1], low, real,
           whole, B[n - 1]);
    free(w);
    free(A);
    free(B);
    free(x);
    free(y);
    free(z);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
def test_a_scan_runs_as_terms_cubs_scan_and_the_rest_of_its_body(tmp_path: Path) -> None:
    """`acc op= term; ...reads of acc...` with +, * or a min (C++): the terms on the device,
    CUB's inclusive scan with the operator, then the body from each prefix, and the running
    value the last prefix after; a term that reads the running value stays on the host. (It
    builds here; it runs only on a GPU host: `benchmarks/offload_gpu`.)"""
    program = analyse(SCANS, Language.CPP)
    root = syntax_tree(SCANS, Language.CPP).root_node
    offered = {loop.id for loop in offloadable(SCANS, program)}
    reasons = {loop.id: why_not(root, program, loop) for loop in program.loops}
    # set-up loops, the integer product, the sum, the min (a ternary), a sum over arrays
    # named A and B (the kernels' own template names are pf_cuda_...). Not: a term reading
    # the running value, a floating-point product (regrouped, it can overflow), an int
    # running value taking a double term (the sequential loop cuts every step: the
    # analysis's verdict now)
    assert offered == {"L1", "L2", "L3", "L4", "L5", "L9", "L10"}, reasons
    for loop, why in (("L6", "not independent"), ("L7", "floating-point product"),
                      ("L8", "not independent (unknown)")):  # fmt: skip
        assert why in (reasons[loop] or ""), (loop, reasons[loop])
    cuda = offload(SCANS, program, ["L3", "L4", "L5", "L10"])
    assert cuda.count("cub::DeviceScan::InclusiveScan(") == 8
    assert "pf_cuda_scan_times()" in cuda and "pf_cuda_scan_plus()" in cuda
    assert "pf_cuda_scan_min()" in cuda and "pf_terms[pf_k] = (pf_cuda_A)(x[i]);" in cuda
    assert "pf_cuda_A pf_acc = pf_cuda_scan_times()(pf_before, pf_terms[pf_k]);" in cuda
    assert "product = pf_cuda_scan_times()(product, pf_cuda_0_last);" in cuda
    assert cuda.index("#include <cub/cub.cuh>") < cuda.index("int main()")
    (tmp_path / "scans.cu").write_text(cuda)
    built = subprocess.run(
        [
            "nvcc",
            "-O2",
            "-arch=sm_90",
            "-c",
            "-o",
            str(tmp_path / "scans.o"),
            str(tmp_path / "scans.cu"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    # what the verifier reads of the object: CUB's NVTX ranges would import `dlopen` (they
    # load a library the environment names), which it refuses
    symbols = subprocess.run(["nm", str(tmp_path / "scans.o")], capture_output=True, text=True)
    assert symbol_findings(symbols.stdout, host_threads=True) == []


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
@pytest.mark.parametrize(("name", "scans"), [("recurrences.c", 3), ("shifted_recurrences.c", 6)])
def test_prefix_sums_written_as_recurrences_run_as_cubs_scans(
    name: str, scans: int, tmp_path: Path
) -> None:
    """`p[i] = p[i - 1] + x[i]` (without braces, a running product whose first iteration is
    its own, a floating sum; in place, `a[i] += a[i - 1]`, and one element on, a CSR row
    pointer `rp[i + 1] = rp[i] + count[i]`): written with running values of their own, which
    the host runs to the same output, they become CUB's scans like any running value (each
    term taken before the scan writes the array), and build."""
    source = (Path(__file__).parent / "programs" / name).read_text()
    program = analyse(source, Language.C)
    assert not any(loop.dependence.scan for loop in offloadable(source, program))
    lowered, _, offered = with_most_loops(source, program, offloadable, counted=True)
    assert sum(1 for loop in offered if loop.dependence.scan) == scans
    outputs = []
    for name, text in (("seq", source), ("running", lowered)):
        (tmp_path / f"{name}.c").write_text(text)
        subprocess.run(
            ["gcc", "-O2", "-o", str(tmp_path / name), str(tmp_path / f"{name}.c")], check=True
        )
        outputs.append(subprocess.run([str(tmp_path / name)], capture_output=True, text=True))
    assert outputs[0].stdout == outputs[1].stdout and outputs[0].stdout.count("\n") == 8
    seed = kit(Target.CUDA).seed(source, program)
    assert seed is not None and seed.count("cub::DeviceScan::InclusiveScan(NULL") == scans
    (tmp_path / "main.cu").write_text(seed)
    built = subprocess.run(
        ["nvcc", "-O2", "-arch=sm_90", "-o", str(tmp_path / "main"), str(tmp_path / "main.cu")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-3000:]


_PICKS = """
int main() {
    for (int n : {1, 7, 1000}) {
        std::vector<double> a(n);
        // many ties; the first minimum at 2, the third thread's of a block of 3 or 6
        for (int i = 0; i < n; i++) a[i] = (double)(((i + 9) * 7919) % 11) - 5.0;
        double want_best = a[0]; int want_at = 0;
        for (int i = 0; i < n; i++) if (a[i] < want_best) { want_best = a[i]; want_at = i; }
        double want_top = -1e300; long want_where = -1;
        for (long i = 0; i < n; i++) if (a[i] * 2.0 >= want_top) { want_top = a[i] * 2.0; want_where = i; }
        for (unsigned grid : {1u, 3u, 7u}) {
            for (unsigned block : {1u, 2u, 3u, 6u, 8u}) {  // any block size folds
                double best = a[0], top = -1e300; int at = 0; long where = -1;
                double *data = a.data();
                auto *picks = pf_cuda_picks_for(grid, best, at);
                pf_launch({grid, 1, 1}, {block, 1, 1}, [&] { PF_ARGMIN(0LL, (long long)n, picks, data, best, at); });
                pf_cuda_picks_merge(picks, grid, &best, &at, true, true);
                auto *tops = pf_cuda_picks_for(grid, top, where);
                pf_launch({grid, 1, 1}, {block, 1, 1}, [&] { PF_ARGMAX(0LL, (long long)n, tops, data, top, where); });
                pf_cuda_picks_merge(tops, grid, &top, &where, false, false);
                if (best != want_best || at != want_at || top != want_top || where != want_where) return 1;
            }
        }
    }
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_an_argmin_kernel_picks_the_loops_own_tie(tmp_path: Path) -> None:
    """No GPU here: the two kernels of `argmin.c` and their picks' helpers, under CUDA's launch
    model emulated on the host (`cuda_emulation.hpp`), against the sequential loops, for grids
    and blocks of several sizes (not only powers of two) over values with many ties: the first
    index of the minimum for `<`, the last of the maximum for `>=`."""
    from agents.analysis import offload as tool

    source = (Path(__file__).parent / "programs" / "argmin.c").read_text()
    cuda = offload(source, analyse(source, Language.C), ["L2", "L3"])
    kernels = re.findall(
        r"template <[^>]*>\n__global__ void pf_cuda_kernel_\d\(.*?\n}\n", cuda, re.S
    )
    assert len(kernels) == 2
    first, second = (re.search(r"void (pf_cuda_kernel_\d+)\(", k).group(1) for k in kernels)  # type: ignore[union-attr]
    helpers = tool._HELPERS
    picks = helpers[
        helpers.index("/* An argmin's or argmax's pick") : helpers.index("/* ---- the program")
    ]
    emulation = (Path(__file__).parent / "programs" / "cuda_emulation.hpp").read_text()
    program = (
        f"{emulation}\n#include <cstdlib>\n#define PF_CUDA_BLOCK 256\n"
        "#define PF_CUDA_CHECK(call) (void)(call)\n"
        "#define cudaMallocManaged(p, size) (*(p) = malloc(size), 0)\n"
        "#define cudaFree(p) (free(p), 0)\n"
        f"#define PF_ARGMIN {first}\n#define PF_ARGMAX {second}\n"
        f"{picks}\n{''.join(kernels)}\n{_PICKS}"
    )
    _runs_emulated(tmp_path, "picks", program)


def _runs_emulated(tmp_path: Path, name: str, program: str) -> None:
    """`program` (kernels under `cuda_emulation.hpp` and a checking `main`) builds with g++
    and exits 0."""
    (tmp_path / f"{name}.cpp").write_text(program)
    built = subprocess.run(
        ["g++", "-std=c++20", "-O1", "-pthread", "-o", str(tmp_path / name), str(tmp_path / f"{name}.cpp")],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    assert subprocess.run([str(tmp_path / name)], timeout=120).returncode == 0


_SEARCHES = """
int main() {
    for (int n : {1, 7, 1000}) {
        std::vector<int> a(n);
        for (int i = 0; i < n; i++) a[i] = (int)((i * 7919L) % 13);
        for (int target : {0, 5, 12, 99}) {  // 99 is nowhere
            long long want = LLONG_MAX;
            for (int i = 0; i < n; i++) if (a[i] == target) { want = i; break; }
            for (unsigned grid : {1u, 3u, 7u}) {
                for (unsigned block : {1u, 2u, 3u, 8u}) {
                    long long hit = LLONG_MAX;
                    int *data = a.data();
                    pf_launch({grid, 1, 1}, {block, 1, 1}, [&] { PF_FIND(0LL, (long long)n, &hit, data, target); });
                    if (hit != want) return 1;
                }
            }
        }
    }
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_search_kernel_notes_the_first_iteration_that_leaves(tmp_path: Path) -> None:
    """No GPU here: `search.c`'s returning search as a kernel under CUDA's launch model
    emulated on the host, for grids and blocks of several sizes: the smallest iteration any
    thread noted is the sequential loop's first match, or none where nothing matches (the
    host then runs that iteration again, as the loop's last)."""
    source = (Path(__file__).parent / "programs" / "search.c").read_text()
    cuda = offload(source, analyse(source, Language.C), ["L1"])
    [found] = re.findall(
        r"template <[^>]*>\n__global__ void pf_cuda_kernel_0\(.*?\n}\n", cuda, re.S
    )
    assert "atomicMin(pf_hit, pf_k); continue;" in found
    assert "do {" in cuda.split("int main", 1)[0]  # `find` runs the first match again
    emulation = (Path(__file__).parent / "programs" / "cuda_emulation.hpp").read_text()
    program = f"{emulation}\n#define PF_FIND pf_cuda_kernel_0\n{found}\n{_SEARCHES}"
    _runs_emulated(tmp_path, "search", program)


def test_a_compaction_runs_as_counts_cubs_scan_and_the_stores() -> None:
    """`if (c) y[k++] = e;`: a kernel writes how many times each iteration counts (its
    statement with the stores removed, from 0), CUB's scan makes the counts prefixes, and a
    kernel runs the whole body from the count before each iteration; the counter ends as the
    last prefix leaves it. (The emulated run below checks what it prints; nvcc builds it.)"""
    source = (Path(__file__).parent / "programs" / "packs.c").read_text()
    program = analyse(source, Language.C)
    packs = [loop for loop in program.loops if loop.dependence.scan and loop.dependence.scan.packs]
    assert len(packs) == 3
    assert {loop.id for loop in packs} <= {loop.id for loop in offloadable(source, program)}
    cuda = offload(source, program, [loop.id for loop in packs])
    assert cuda.count("cub::DeviceScan::InclusiveScan(NULL") == 3
    assert "{ pf_cuda_A k = (pf_cuda_A)0; if (x[i] % 3 == 0) k++; pf_terms[pf_k] = k; }" in cuda
    assert "pf_cuda_A k = pf_before + (pf_k > 0 ? pf_terms[pf_k - 1] : (pf_cuda_A)0);" in cuda


EMULATED_PROGRAMS = {
    # (program, its standard input): every program of these tests' folder and the graph
    # tests' that the CUDA kit writes a seed for, but vectors.cpp (its floating-point sums
    # regroup: last digits differ), argmin.c (its index arithmetic overflows an int: undefined)
    # and recurrence.c (no seed)
    **{
        name: ""
        for name in (
            "count_down.c", "mpi_argmins.c", "mpi_down.c", "mpi_folds.c", "mpi_grids.c",
            "mpi_last.c", "mpi_plates.c", "mpi_search.c", "mpi_structs.c", "mpi_sweeps.c",
            "mpi_uneven.c", "packs.c", "recurrence_aliases.c", "recurrences.c", "search.c",
            "getline_heap.c", "library_heap.c",
            "shifted_recurrences.c", "exclusive_scans.c", "running_extrema.cpp", "narrow_counters.c",
            "own_directives.c", "column_writes.c", "logical_starts.c", "mpi_outside_main.cpp",
            "offload_refusals.cpp",
            "inclusive_bounds.c", "heap_rows.c", "suffix_scans.cpp", "c_not_cpp.c",
            "c_not_cpp_more.c",
            "images.cpp", "mpi_found.cpp", "ref_params.cpp", "graphs/histogram.c",
            "graphs/map.c", "graphs/reduce.c", "graphs/scan.c", "graphs/stencil.c",
        )
    },
    "mpi_shapes.cpp": _stdin_for_shapes(),
}  # fmt: skip


def emulated(cuda: str) -> str:
    """A CUDA program the `offload` tool wrote, as C++ for `cuda_runtime_emulation.hpp`: its
    CUDA headers dropped, each launch `k<<<grid, block>>>(args);` a `PF_LAUNCH`."""
    lines = ['#include "cuda_runtime_emulation.hpp"']
    for line in cuda.splitlines():
        if line.strip() in (
            "#include <cuda_runtime.h>",
            "#include <cub/cub.cuh>",
            "#define CCCL_DISABLE_NVTX",
        ):
            continue
        launch = re.match(r"^(\s*)(\w+)<<<(.*?), ([^<>]*?)>>>\((.*)\);\s*$", line)
        if launch:
            indent, name, grid, block, args = launch.groups()
            line = f"{indent}PF_LAUNCH({name}, {grid}, {block}{', ' + args if args else ''});"
        assert "<<<" not in line, line
        lines.append(line)
    return "\n".join(lines) + "\n"


def _emulation_builds(tmp_path: Path, name: str, *flags: str) -> None:
    """`device.cpp` (a program `emulated` wrote) builds as `name` with the emulation's header."""
    built = subprocess.run(
        [
            "g++", "-std=c++20", "-O1", "-pthread", "-w", *flags,
            "-I", str(Path(__file__).parent / "programs"),
            "-o", str(tmp_path / name), str(tmp_path / "device.cpp"), "-lm",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]


@pytest.mark.parametrize("name", sorted(EMULATED_PROGRAMS))
def test_a_whole_program_on_the_emulated_device_prints_what_it_prints_sequentially(
    name: str, tmp_path: Path
) -> None:
    """No GPU here: the CUDA kit's program for each of these sources, its runtime and CUB
    calls and its launches emulated on the host (`cuda_runtime_emulation.hpp`: blocks in
    turn, a block's threads as fibers), prints what the sequential program prints. This
    found a loop with a bound that is not an integer (`i < n / 3.0`) counted short, and a
    one-byte xor fold that did not build, and a prefix sum written with a running value while
    its loop also writes an array that may be the same (recurrence_aliases.c, a hostile
    probe's), and a second probe's: memory the C library reallocates (`getline`) or allocated
    (`strdup`, then `realloc`) handed to the managed heap's functions (a crash, a read before
    the block). Compactions (packs.c) and in-place and shifted prefix sums
    (shifted_recurrences.c) run as CUB's scans here, as do exclusive scans
    (exclusive_scans.c) and running minima and maxima (running_extrema.cpp); a counter whose
    first value its type wraps (narrow_counters.c: `unsigned char c = 260` starts at 4) had
    run from 260, past its array."""
    folder = GRAPH_PROGRAMS if name.startswith("graphs/") else Path(__file__).parent / "programs"
    path = folder / name.removeprefix("graphs/")
    language = Language.C if path.suffix == ".c" else Language.CPP
    source = path.read_text()
    seed = kit(Target.CUDA).seed(source, analyse(source, language))
    assert seed is not None and "<<<" in seed
    compiler = "gcc" if language is Language.C else "g++"
    subprocess.run(
        [compiler, "-O2", "-o", str(tmp_path / "seq"), str(path), "-lm"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    (tmp_path / "device.cpp").write_text(emulated(seed))
    _emulation_builds(tmp_path, "device")
    given = EMULATED_PROGRAMS[name]
    want = subprocess.run(
        [str(tmp_path / "seq")], input=given, capture_output=True, text=True, timeout=120
    )
    got = subprocess.run(
        [str(tmp_path / "device")], input=given, capture_output=True, text=True, timeout=300
    )
    assert got.returncode == 0, got.stderr[-2000:]
    assert got.stdout == want.stdout and want.stdout
    if name == "library_heap.c":
        # nothing before a block the C library allocated is read (a managed block's header)
        _emulation_builds(tmp_path, "checked", "-fsanitize=address")
        checked = subprocess.run(
            [str(tmp_path / "checked")],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "ASAN_OPTIONS": "detect_leaks=0"},
        )
        assert checked.returncode == 0 and checked.stdout == want.stdout, checked.stderr[-3000:]
    if name == "mpi_down.c" and shutil.which("nvcc") is not None:
        # its one-byte xor fold stays on the host: the program builds for the device
        _builds(tmp_path, "main", seed)


FOUR_HISTOGRAMS = """#include <stdio.h>
static long A[2048], B[2048], C[2048], D[2048];
static unsigned x[100000];
int main(void) {
    for (int i = 0; i < 100000; i++) x[i] = (unsigned)i * 2654435761u;
    for (int i = 0; i < 100000; i++) {
        A[x[i] % 2048] += 1;
        B[(x[i] >> 3) % 2048] += 2;
        C[(x[i] >> 5) % 2048] += 3;
        D[(x[i] >> 7) % 2048] += 4;
    }
    printf("%ld %ld %ld %ld\\n", A[5], B[7], C[11], D[13]);
    return 0;
}
"""
LONG_DOUBLES = """#include <stdio.h>
int main(void) {
    static long double a[100000];
    static double b[100000];
    for (int i = 0; i < 100000; i++) a[i] = (i % 8) * 0.25L;
    for (int i = 0; i < 100000; i++) b[i] = (i % 8) * 0.25;
    printf("%Lf %f\\n", a[5], b[5]);
    return 0;
}
"""


def test_histograms_share_a_kernels_shared_memory_and_long_doubles_stay_on_the_host(
    tmp_path: Path,
) -> None:
    """Four histograms of 2,048 8-byte bins in one loop: two count in shared memory, two
    straight into their bins (four took 64 KiB, past a block's 48: the program did not
    build). A loop computing with `long double` stays on the host (nvcc computes it as a
    `double` in device code, over 8-byte elements where the host's are 16)."""
    program = analyse(FOUR_HISTOGRAMS, Language.C)
    cuda = offload(
        FOUR_HISTOGRAMS, program, [loop.id for loop in offloadable(FOUR_HISTOGRAMS, program)]
    )
    assert cuda.count("__shared__ pf_bins") == 2
    longs = analyse(LONG_DOUBLES, Language.C)
    root = syntax_tree(LONG_DOUBLES, Language.C).root_node
    assert "long double" in (why_not(root, longs, longs.loops[0]) or "")
    assert why_not(root, longs, longs.loops[1]) is None
    if shutil.which("nvcc") is not None:
        _builds(tmp_path, "bins", cuda)


OLD_STYLE_AND_VLA = """#include <stdio.h>
static int twice(x) int x; { return x * 2; }
static int a[5000];
int main(void) {
    for (int i = 0; i < 5000; i++) a[i] = twice(i);
    long long s = 0;
    for (int i = 0; i < 5000; i++) s += a[i];
    printf("%lld\\n", s);
    return 0;
}
"""

VLA_ROWS = """#include <stdio.h>
int main(void) {
    int m = 40, n = 300;
    int w[m][n];
    int v[m * n];
    for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) w[i][j] = i * j % 17;
    for (int k = 0; k < m * n; k++) v[k] = k % 5;
    long t = 0;
    for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) t += w[i][j] + v[i * n + j];
    printf("%ld\\n", t);
    return 0;
}
"""


def test_c_the_device_cannot_take_gets_no_kernel() -> None:
    """A function defined in C's old style (`int twice(x) int x; {...}`) makes the program no
    C++ any compiler reads: no loop of it gets a kernel. A variable-length array of rows
    (`int w[m][n]`) has no type a kernel's parameter can name: its loops stay on the host,
    a one-dimensional one's do not (a hostile probe's; neither built)."""
    program = analyse(OLD_STYLE_AND_VLA, Language.C)
    root = syntax_tree(OLD_STYLE_AND_VLA, Language.C).root_node
    assert offloadable(OLD_STYLE_AND_VLA, program) == []
    assert "old style" in (why_not(root, program, program.loops[1]) or "")
    program = analyse(VLA_ROWS, Language.C)
    root = syntax_tree(VLA_ROWS, Language.C).root_node
    assert [loop.id for loop in offloadable(VLA_ROWS, program)] == ["L3"]
    assert "variable-length array of rows" in (why_not(root, program, program.loops[0]) or "")


WITH_METHODS = """#include <cstdio>
#include <vector>
struct V2 {
    double x, y;
    V2 operator+(const V2 &o) const { return {x + o.x, y + o.y}; }
};
struct P {
    double x, y;
};
int main() {
    int n = 5000;
    std::vector<V2> p(n), q(n);
    std::vector<P> r(n);
    for (int i = 0; i < n; i++) { p[i] = {i * 1.0, -i * 1.0}; q[i] = p[i] + V2{1, 1}; }
    for (int i = 0; i < n; i++) r[i] = {i * 0.5, i * 2.0};
    double s = 0;
    for (int i = 0; i < n; i++) s += q[i].x + r[i].y;
    std::printf("%.1f\\\\n", s);
}
"""


def test_values_of_a_class_with_member_functions_stay_on_the_host() -> None:
    """A struct whose operator or method a loop may call (`p[i] + V2{1, 1}`): its member
    functions are host functions to nvcc (a hostile probe's program did not build), so loops
    using its values get no kernel; a struct of numbers alone still does."""
    program = analyse(WITH_METHODS, Language.CPP)
    root = syntax_tree(WITH_METHODS, Language.CPP).root_node
    assert [loop.id for loop in offloadable(WITH_METHODS, program)] == ["L2"]
    assert "member functions" in (why_not(root, program, program.loops[0]) or "")
