"""CUDA kernels in a driver's signature (ParEval's serial→CUDA tasks), from loop facts.

Here nothing can run them (no GPU): each kernel must build with `nvcc` against its task's
real driver, and the writer must refuse what one kernel with atomics cannot do."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agents.analysis import AnnotationError, analyse
from agents.analysis.kernels import (
    _lowered,
    _map_lookups,
    _one_name_per_declaration,
    _refills,
    _sorted_queries,
    as_loops,
    kernel,
    signature_params,
)
from agents.analysis.launch import HELPERS
from agents.targets import kit
from corpus.suites import load_suite
from corpus.translation import TranslationTask
from sandbox.checkers.integrity import driver_findings, source_findings
from sandbox.spec import Language, Target
from tests.fakes.pch import header_folder

MADE = {
    "00_dense_la_lu_decomp", "01_dense_la_solve", "02_dense_la_gemm", "03_dense_la_axpy", "04_dense_la_gemv", "06_fft_dft", "12_geometry_smallest_triangle",
    "11_geometry_convex_hull_perimeter", "13_geometry_closest_pair_2d", "14_geometry_closest_pair_1d",
    "15_graph_edge_count", "16_graph_largest_component", "17_graph_highest_degree",
    "18_graph_count_components", "19_graph_shortest_path", "20_histogram_pixel_histogram",
    "21_histogram_bin_0-100", "22_histogram_count_quadrants", "23_histogram_first_letter_counts",
    "24_histogram_count_quartile", "25_reduce_xor", "26_reduce_product_of_inverses",
    "27_reduce_average", "28_reduce_smallest_odd_number", "29_reduce_sum_of_min_of_pairs",
    "30_scan_prefix_sum", "31_scan_scan_with_min_function", "32_scan_sum_of_prefix_sum_array", "33_scan_reverse_prefix_sum",
    "34_scan_largest_contiguous_subarray_sum", "35_search_search_for_last_struct_by_key",
    "36_search_check_if_array_contains_value",
    "37_search_find_the_closest_number_to_pi", "39_search_xor_contains", "40_sort_sort_an_array_of_complex_numbers_by_magnitude",
    "41_sort_k-th_smallest_element", "42_sort_sorted_ranks", "43_sort_sort_an_array_of_structs_by_key", "44_sort_sort_non-zero_elements", "45_sparse_la_sparse_solve", "47_sparse_la_spmv", "48_sparse_la_sparse_axpy", "38_search_find_the_first_even_number",
    "49_sparse_la_sparse_lu_decomp",
    "50_stencil_xor_kernel", "51_stencil_edge_kernel",
    "52_stencil_1d_jacobi_3-point_stencil", "53_stencil_2d_jacobi_5-point_stencil",
    "54_stencil_game_of_life", "55_transform_relu", "56_transform_negate_odds",
    "57_transform_inverse_offset", "58_transform_squaring", "59_transform_map_function",
}  # fmt: skip
"""The suite's serial→CUDA tasks whose function is one map, reduction (with an expression of its
total returned), histogram, first-index search, last index, argmin or scan loop, after guards,
or one standard algorithm such a loop runs, queries of a sorted copy counted, or maps and histograms run one after another (an
outer loop's iterations, or loops in turn, a sort or an element of a sorted copy; with std::complex as the
device's own complex type), or a graph walk whose result its reach decides (components, the
largest, a breadth-first distance: `agents.analysis.traversal`), or an outer loop's loops in turn
(an LU's row and column, a map's reads as searches of the vector that fills it), or with one
thread's pivot searches, swaps and back substitutions between them (the solves); 53 of 60."""


def _tasks() -> list[TranslationTask]:
    return [t for t in load_suite("pareval").translations if t.target_model == "cuda"]


def _kernel(t: TranslationTask) -> str:
    assert t.task is not None
    signature = t.task.signature_for("cuda")
    assert signature is not None
    return kernel(t.source, analyse(t.source, Language.CPP), t.function, signature)


def _made() -> dict[str, tuple[TranslationTask, str]]:
    made = {}
    for t in _tasks():
        try:
            made[t.problem] = (t, _kernel(t))
        except AnnotationError:
            continue
    return made


def test_signatures_are_read_with_their_pointers() -> None:
    name, params = signature_params(
        "__global__ void pixelCounts(const int *image, size_t N, size_t bins[256])"
    )
    assert name == "pixelCounts"
    assert [(p.name, p.type, p.pointer) for p in params] == [
        ("image", "const int *", True),
        ("N", "size_t", False),
        ("bins", "size_t", True),
    ]


def test_the_writer_takes_the_maps_reductions_and_histograms_of_the_suite() -> None:
    assert set(_made()) == MADE
    for t in _tasks():
        assert kit(Target.CUDA).mechanical(
            t.source, analyse(t.source, Language.CPP), t.spec_for()["signature"]
        ) == (t.problem in MADE)


def test_every_kernel_passes_the_verifiers_source_checks() -> None:
    """The writer's own code is a candidate like any other: inline assembly (an SM count read
    with `%nsmid`), a sanitizer probe or a forbidden call in its helpers would fail every
    kernel before it ran."""
    for name, (_, code) in sorted(_made().items()):
        assert source_findings(code) == [], name
        assert driver_findings(code) == [], name
    for source, kind in _SCANS.values():
        signature = f"__global__ void f(const {kind} *x, {kind} *y, size_t N)"
        assert source_findings(kernel(source, analyse(source, Language.CPP), "f", signature)) == []


def test_a_kernel_strides_over_any_launch_and_folds_its_result_once_per_thread() -> None:
    made = _made()
    axpy = made["03_dense_la_axpy"][1]
    assert "__global__ void axpy(double alpha, const double *x, const double *y, double *z," in axpy
    assert "gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y * blockDim.z" in axpy
    assert "(size_t)(N)" in axpy and ".size()" not in axpy.split("__global__")[1]
    odd = made["28_reduce_smallest_odd_number"][1]
    # the function's `smallest` is the kernel's result pointer: the partial is the thread's own,
    # the blocks' go to a device total, and the last block writes the function's start folded
    assert "int pf_r = (int)(INT_MAX);" in odd
    assert "pf_cuda_fold_min(&pf_kernel_total, pf_p);" in odd
    assert "*smallest = (int)(pf_total);" in odd
    product = made["26_reduce_product_of_inverses"][1]
    assert "double pf_r = (double)(1);" in product
    assert "pf_cuda_fold_times(&pf_kernel_total, pf_p);" in product
    pixels = made["20_histogram_pixel_histogram"][1]
    # a range-based loop over a vector: its element of the kernel's pointer
    assert "auto const& pixel = image[pf_first + (long long)pf_k];" in pixels
    assert "pf_cuda_fold_plus(&bins[pixel], 1);" in pixels
    triangle = made["12_geometry_smallest_triangle"][1]
    assert (
        "struct Point" in triangle and "__host__ __device__ double pf_fn_triangleArea" in triangle
    )


@pytest.mark.parametrize(
    ("source", "signature", "why"),
    [
        (  # the result's expression reads more than the total
            "double mean(std::vector<double> const& x, double k) {\n  double s = 0;\n"
            "  for (int i = 0; i < x.size(); ++i) s += x[i];\n  return s / k;\n}\n",
            "__global__ void mean(const double *x, size_t N, double *out)",
            "does not take k",
        ),
        (  # a table at file scope the kernel does not take
            "int w[3] = {1, 2, 3};\nvoid scale(std::vector<int> &x) {\n"
            "  for (int i = 0; i < x.size(); ++i) x[i] *= w[i % 3];\n}\n",
            "__global__ void scale(int *x, size_t N)",
            "uses w",
        ),
        (  # two sizes: which one is x.size()?
            "void copy(std::vector<int> const& x, std::vector<int> &y) {\n"
            "  for (int i = 0; i < x.size(); ++i) y[i] = x[i];\n}\n",
            "__global__ void copy(const int *x, int *y, size_t M, size_t N)",
            "size",
        ),
        (  # a carried dependence
            "void run(std::vector<int> &x) {\n"
            "  for (int i = 1; i < x.size(); ++i) x[i] = x[i - 1] * 3 + x[i];\n}\n",
            "__global__ void run(int *x, size_t N)",
            "does not prove",
        ),
        (  # a method the kernel's pointer does not have
            "void last(std::vector<int> &x) {\n"
            "  for (int i = 0; i < x.size(); ++i) x[i] = x.front() + i;\n}\n",
            "__global__ void last(int *x, size_t N)",
            "x.front",
        ),
        (  # a sum in a type no device atomic folds: folding in the result's would convert
            # every partial
            "double f(std::vector<double> const &x) {\n  long double s = 0;\n"
            "  for (int i = 0; i < x.size(); ++i) s += x[i];\n  return s;\n}\n",
            "__global__ void f(const double *x, size_t N, double *out)",
            "long double result is the kernel's double",
        ),
        (  # computed amounts into integer bins: the atomic converts each, `+=` the sum
            "void f(std::vector<double> const &x, std::array<int, 4> &bins) {\n"
            "  for (size_t i = 0; i < x.size(); ++i) bins[x[i] > 100 ? 1 : 0] += x[i];\n}\n",
            "__global__ void f(const double *x, size_t N, int bins[4])",
            "computed amount",
        ),
        (  # the kernel's own names
            "void f(std::vector<int> &x) {\n"
            "  for (int pf_first = 0; pf_first < x.size(); ++pf_first) x[pf_first] *= 2;\n}\n",
            "__global__ void f(int *x, size_t N)",
            "pf_first",
        ),
        (  # a variable at file scope, even in capitals
            "int SCALE = 3;\nvoid f(std::vector<int> &x) {\n"
            "  for (int i = 0; i < x.size(); ++i) x[i] *= SCALE;\n}\n",
            "__global__ void f(int *x, size_t N)",
            "uses SCALE",
        ),
        (  # a helper taking the vector the kernel has as a pointer
            "int get(std::vector<int> const &v, size_t i) { return v[i] + 1; }\n"
            "void f(std::vector<int> const &x, std::vector<int> &y) {\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = get(x, i);\n}\n",
            "__global__ void f(const int *x, int *y, size_t N)",
            "library objects",
        ),
        (  # a container built in the body
            "void f(std::vector<int> const &x, std::vector<int> &y) {\n"
            "  for (size_t i = 0; i < x.size(); ++i) { std::vector<int> t(2, x[i]); "
            "y[i] = t[0] + t[1]; }\n}\n",
            "__global__ void f(const int *x, int *y, size_t N)",
            "",
        ),
        (  # a search returning the element, not its index
            "int f(std::vector<int> const &x) {\n"
            "  for (size_t i = 0; i < x.size(); ++i) if (x[i] > 3) return x[i];\n"
            "  return -1;\n}\n",
            "__global__ void f(const int *x, size_t N, int *out)",
            "does not return the index",
        ),
        (  # a last assignment keeping a value, not the index
            "int f(std::vector<int> const &x) {\n  int last = 0;\n"
            "  for (size_t i = 0; i < x.size(); ++i) if (x[i] < 0) last = x[i];\n"
            "  return last;\n}\n",
            "__global__ void f(const int *x, size_t N, int *out)",
            "other than its counter",
        ),
        (  # an argmin returning the best value: a min reduction's, not this shape's
            "double f(std::vector<double> const &x) {\n  double best = 1e9; size_t at = 0;\n"
            "  for (size_t i = 0; i < x.size(); ++i) if (x[i] < best) { best = x[i]; at = i; }\n"
            "  return best;\n}\n",
            "__global__ void f(const double *x, size_t N, double *out)",
            "",
        ),
        (  # a type holding a vector: no device copy has one (a string's is `const char *`)
            "struct B { std::vector<int> t; int n; };\n"
            "size_t f(std::vector<B> const &b) {\n  size_t last = 0;\n"
            "  for (size_t i = 0; i < b.size(); ++i) if (b[i].n < 9) last = i;\n"
            "  return last;\n}\n",
            "__global__ void f(const B *b, size_t N, size_t *out)",
            "library objects",
        ),
        (  # every thread reads x[0] while others write it
            "void f(std::vector<double> &x) {\n  double first = x[0];\n"
            "  for (size_t i = 0; i < x.size(); ++i) x[i] = x[i] / first;\n}\n",
            "__global__ void f(double *x, size_t N)",
            "reads an array the loop writes",
        ),
        (  # overloaded helpers: which one the loop calls is the compiler's choice
            "double sq(double v) { return v * v; }\nint sq(int v) { return v * v; }\n"
            "void f(std::vector<double> const &x, std::vector<double> &y) {\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = sq(x[i]);\n}\n",
            "__global__ void f(const double *x, double *y, size_t N)",
            "overloaded",
        ),
        (  # the kernel's N would hide the source's constant N
            "const int N = 3;\nvoid f(std::vector<int> const &x, std::vector<int> &y) {\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * N;\n}\n",
            "__global__ void f(const int *x, int *y, size_t N)",
            "hides the source's constant",
        ),
        (  # a helper reading a variable at file scope
            "int SCALE = 3;\nint scaled(int v) { return v * SCALE; }\n"
            "void f(std::vector<int> const &x, std::vector<int> &y) {\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = scaled(x[i]);\n}\n",
            "__global__ void f(const int *x, int *y, size_t N)",
            "reads SCALE",
        ),
        (  # short bins: no device atomic adds to them
            "void f(std::vector<int> const &x, std::array<short, 4> &bins) {\n"
            "  for (size_t i = 0; i < x.size(); ++i) bins[x[i] % 4]++;\n}\n",
            "__global__ void f(const int *x, size_t N, short bins[4])",
            "short bins",
        ),
        (  # a type with a method: host code
            "struct V { double a; V operator+(V o) const { return {a + o.a}; } };\n"
            "void f(std::vector<V> const &x, std::vector<V> const &y, std::vector<V> &z) {\n"
            "  for (size_t i = 0; i < x.size(); ++i) z[i] = x[i] + y[i];\n}\n",
            "__global__ void f(const V *x, const V *y, V *z, size_t N)",
            "methods",
        ),
        (  # two inputs of different types each walked to its size: no one length
            "double f(std::vector<int> const &x, std::vector<double> const &w) {\n"
            "  double s = 0;\n  for (size_t i = 0; i < x.size(); ++i) s += x[i];\n"
            "  for (size_t i = 0; i < w.size(); ++i) s += w[i];\n  return s;\n}\n",
            "__global__ void f(const int *x, const double *w, size_t N, double *out)",
            "one size",
        ),
        (  # two vectors' sizes and one size parameter
            "void f(std::vector<int> const &x, std::vector<int> const &w, std::vector<int> &y) {\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * (int)w.size();\n}\n",
            "__global__ void f(const int *x, const int *w, int *y, size_t N)",
            "one size",
        ),
        (  # loops in turn where one keeps an index: only maps, histograms and reductions
            "size_t f(std::vector<double> &x) {\n  size_t last = 0;\n"
            "  for (size_t i = 0; i < x.size(); ++i) x[i] *= 2;\n"
            "  for (size_t i = 0; i < x.size(); ++i) if (x[i] < 0) last = i;\n"
            "  return last;\n}\n",
            "__global__ void f(double *x, size_t N, size_t *out)",
            "keep an index",
        ),
        (  # an outer loop that does more than run its one inner loop
            "void f(std::vector<double> &x, size_t n) {\n"
            "  for (size_t t = 0; t < n; ++t) {\n    x[0] += 1;\n"
            "    for (size_t i = 1; i < x.size(); ++i) x[i] += x[0];\n  }\n}\n",
            "__global__ void f(double *x, size_t n, size_t N)",
            "does not prove",
        ),
        (  # a string member the loop reads: on the device it would be a pointer
            "struct Book { std::string title; int pages; };\n"
            "size_t lastNamed(std::vector<Book> const& b) {\n  size_t at = 0;\n"
            '  for (size_t i = 0; i < b.size(); ++i) if (b[i].title == "x") at = i;\n'
            "  return at;\n}\n",
            "__global__ void lastNamed(const Book *b, size_t N, size_t *at)",
            "library objects",
        ),
        (  # a resize to another size than the kernel's: the driver's buffer is not that
            "void f(std::vector<double> const &x, std::vector<double> &y) {\n"
            "  const std::size_t n = x.size();\n  y.resize(n + 1);\n"
            "  for (size_t i = 0; i < n; ++i) y[i] = x[i];\n}\n",
            "__global__ void f(const double *x, double *y, size_t N)",
            "y.resize",
        ),
        (  # `auto` from anything but a size: its type is the kernel's guess
            "void f(std::vector<double> const &x, std::vector<double> &y) {\n"
            "  auto h = 2 * x.size();\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] + h;\n}\n",
            "__global__ void f(const double *x, double *y, size_t N)",
            "does more than its loop: auto h",
        ),
        (  # a call no device has (the analysis knows it is pure)
            "void say(std::vector<int> &x) {\n"
            '  for (int i = 0; i < x.size(); ++i) x[i] = (int)strlen("abc") + i;\n}\n',
            "__global__ void say(int *x, size_t N)",
            "calls strlen",
        ),
    ],
)
def test_what_gets_no_kernel(source: str, signature: str, why: str) -> None:
    with pytest.raises(AnnotationError, match=why or None):
        name = signature_params(signature)[0]
        kernel(source, analyse(source, Language.CPP), name, signature)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit")
@pytest.mark.timeout(1800)  # 49 nvcc builds, two at a time: past 900 s on a loaded 2-core host
def test_every_kernel_builds_with_its_tasks_driver(tmp_path: Path) -> None:
    """nvcc's front end reads the whole program, host code too, and its device compiler
    (through ptxas) the kernels: `-cubin` stops before the host compiler's pass over the
    front end's output (two thirds of the time; the sandbox's build, which links, runs it in
    the CUDA end-to-end tests)."""

    def build(item: tuple[str, tuple[TranslationTask, str]]) -> tuple[str, int, str]:
        name, (t, code) = item
        where = tmp_path / name
        where.mkdir()
        spec = t.spec_for()
        (where / "main.cu").write_text(spec["driver"])
        (where / "solution.inc").write_text(code)
        for file, text in spec["files"].items():
            (where / file).write_text(text)
        run = subprocess.run(
            [
                "nvcc",
                "-O2",
                "-arch=sm_80",
                *spec["cflags"],
                "-cubin",
                "-o",
                "main.cubin",
                "main.cu",
            ],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=300,
        )
        return name, run.returncode, run.stderr[-2000:]

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(build, sorted(_made().items())))
    failed = [(name, err) for name, rc, err in results if rc != 0]
    assert not failed, failed
    assert len(results) == len(MADE)


# Each task's check, after the sequential function and the kernel: inputs of a few sizes, the
# function's result, then the kernel's under every launch shape of `cuda_emulation.hpp`.
_GRAPH_CHECK = """
int main() {
    unsigned seed = 7;
    auto next = [&] { seed = seed * 1103515245u + 12345u; return seed >> 16; };
    for (size_t n : {1, 9, 30}) {
        for (int directed = 0; directed < 2; directed++) {  // the edges as the function follows them
            for (int dense = 1; dense < 5; dense += 3) {
                std::vector<int> a(n * n, 0);
                for (size_t i = 0; i < n; i++)
                    for (size_t j = 0; j < n; j++)
                        if (i != j && next() % (2 * n + 1) < (unsigned)dense) {
                            a[i * n + j] = 1;
                            if (!directed) a[j * n + i] = 1;
                        }
                int want = CALL;
                for (auto &shape : PF_SHAPES) {  // each launch after another's leftovers
                    int got = -7;  // the driver's start takes no part
                    pf_launch(shape[0], shape[1], [&] { pf_gpu::KERNEL; });
                    if (got != want) return 1;
                }
            }
        }
    }
    return 0;
}
"""
"""Graph walks on random graphs, sparse and denser, undirected and directed (the kernel follows
the function's own edge test), the launch shapes one after another (each launch meets the
level counts and the heap array as the one before left them)."""

EMULATED = {
    "00_dense_la_lu_decomp": """
int main() {
    for (size_t n : {1, 2, 5, 40}) {
        std::vector<double> a(n * n);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) a[i * n + j] = i == j ? 4.0 * n : (double)((i * 7 + j * 3) % 5) - 2.0;
        std::vector<double> want = a;
        luFactorize(want, n);
        for (auto &shape : PF_SHAPES) {
            for (int twice = 0; twice < 2; twice++) {  // the seats the first launch took are free again
                std::vector<double> got = a;
                pf_launch(shape[0], shape[1], [&] { pf_gpu::luFactorize(got.data(), n); });
                if (got != want) return 1;
            }
        }
    }
    return 0;
}
""",
    "42_sort_sorted_ranks": """
int main() {
    for (size_t n : {1, 7, 1000}) {
        std::vector<float> x(n);
        for (size_t i = 0; i < n; i++) x[i] = ((float)(i * 7919 % (2 * n + 1)) - (float)n) / 4.0f;
        std::vector<size_t> want(n);
        ranks(x, want);
        for (auto &shape : PF_SHAPES) {
            std::vector<size_t> got(n, 99);
            pf_launch(shape[0], shape[1], [&] { pf_gpu::ranks(x.data(), got.data(), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "32_scan_sum_of_prefix_sum_array": """
int main() {
    for (size_t n : {1, 7, 5000}) {
        std::vector<double> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (double)((int)(i * 7919 % 41) - 20);
        double want = sumOfPrefixSum(x);
        for (auto &shape : PF_SHAPES) {
            for (int twice = 0; twice < 2; twice++) {
                double got = 3.0;
                pf_launch(shape[0], shape[1], [&] { pf_gpu::sumOfPrefixSum(x.data(), n, &got); });
                if (got != want) return 1;
            }
        }
    }
    return 0;
}
""",
    "47_sparse_la_spmv": """
int main() {
    for (size_t m : {1, 7, 300}) {
        size_t n = m + 3;
        std::vector<COOElement> a;
        for (size_t k = 0; k < 4 * m; k++) a.push_back({k * 7 % m, k * 5 % n, (double)(k % 9) - 4.0});
        std::vector<double> x(n), y(m);
        for (size_t i = 0; i < n; i++) x[i] = (double)(i % 7) - 3.0;
        for (size_t i = 0; i < m; i++) y[i] = (double)(i % 5);
        std::vector<double> want = y;
        spmv(2.0, a, x, 0.5, want, m, n);
        std::vector<pf_gpu::COOElement> device(a.size());
        for (size_t k = 0; k < a.size(); k++) device[k] = {a[k].row, a[k].column, a[k].value};
        for (auto &shape : PF_SHAPES) {
            std::vector<double> got = y;
            pf_launch(shape[0], shape[1], [&] {
                pf_gpu::spmv(2.0, device.data(), device.size(), x.data(), 0.5, got.data(), m, n);
            });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "01_dense_la_solve": """
int main() {
    for (size_t n : {1, 2, 5, 33}) {
        std::vector<double> a(n * n), b(n);
        for (size_t i = 0; i < n; i++) {
            b[i] = (double)((i * 5) % 7) - 3.0;
            for (size_t j = 0; j < n; j++)  // small diagonals: rows swap at most pivots
                a[i * n + j] = i == j ? 0.25 : (double)((i * 7 + j * 3) % 11) - 5.0;
        }
        std::vector<double> want(n);
        solveLinearSystem(a, b, want, n);
        for (auto &shape : PF_SHAPES) {
            for (int twice = 0; twice < 2; twice++) {  // the store and the seats free again
                std::vector<double> got(n, 9.0);
                pf_launch(shape[0], shape[1], [&] {
                    pf_gpu::solveLinearSystem(a.data(), b.data(), got.data(), n);
                });
                if (got != want) return 1;
            }
        }
    }
    return 0;
}
""",
    "11_geometry_convex_hull_perimeter": """
int main() {
    for (size_t n : {0, 1, 2, 3, 9, 200, 1500}) {
        std::vector<Point> points(n);
        for (size_t k = 0; k < n; k++)  // repeats and collinear runs among them
            points[k] = {(double)((k * 7919) % 37) - 18.0, (double)((k * 104729) % 29) - 14.0};
        if (n > 4) points[3] = points[1];
        double want = convexHullPerimeter(points);
        std::vector<pf_gpu::Point> device(n);
        for (size_t k = 0; k < n; k++) device[k] = {points[k].x, points[k].y};
        for (auto &shape : PF_SHAPES) {
            for (int twice = 0; twice < 2; twice++) {
                double got = -1.0;
                pf_launch(shape[0], shape[1], [&] {
                    pf_gpu::convexHullPerimeter(device.data(), n, &got);
                });
                if (std::fabs(got - want) > 1e-9 * (1.0 + std::fabs(want))) return 1;
            }
        }
    }
    return 0;
}
""",
    "45_sparse_la_sparse_solve": """
int main() {
    for (size_t n : {1, 2, 6, 30}) {
        std::vector<COOElement> a;
        std::vector<double> b(n);
        for (size_t i = 0; i < n; i++) {
            b[i] = (double)((i * 3) % 5) - 2.0;
            for (size_t j = 0; j < n; j++)
                if (i == j || (i * 5 + j * 3) % 4 == 0)
                    a.push_back({i, j, i == j ? 0.5 : (double)((i * 7 + j) % 9) - 4.0});
        }
        std::reverse(a.begin(), a.end());  // in no order
        if (n > 1) a.push_back({1, 0, 2.5});  // a key again: the last one counts
        std::vector<double> want(n);
        solveLinearSystem(a, b, want, n);
        std::vector<pf_gpu::COOElement> device(a.size());
        for (size_t k = 0; k < a.size(); k++) device[k] = {a[k].row, a[k].column, a[k].value};
        for (auto &shape : PF_SHAPES) {
            std::vector<double> got(n, 9.0);
            pf_launch(shape[0], shape[1], [&] {
                pf_gpu::solveLinearSystem(device.data(), device.size(), b.data(), got.data(), n);
            });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "49_sparse_la_sparse_lu_decomp": """
int main() {
    for (size_t n : {1, 2, 7, 24}) {
        std::vector<COOElement> a;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                if (i == j || (i * 5 + j * 3) % 4 == 0)
                    a.push_back({i, j, i == j ? 3.0 * n : (double)((i * 7 + j) % 5) - 2.0});
        std::reverse(a.begin(), a.end());  // in no order
        if (n > 1) a.push_back({1, 0, 0.5});  // a key again: the last one counts
        std::vector<double> wantL(n * n), wantU(n * n);
        luFactorize(a, wantL, wantU, n);
        std::vector<pf_gpu::COOElement> device(a.size());
        for (size_t k = 0; k < a.size(); k++) device[k] = {a[k].row, a[k].column, a[k].value};
        for (auto &shape : PF_SHAPES) {
            std::vector<double> L(n * n, 7.0), U(n * n, -7.0);  // the kernel zeroes them itself
            pf_launch(shape[0], shape[1], [&] {
                pf_gpu::luFactorize(device.data(), device.size(), L.data(), U.data(), n);
            });
            if (L != wantL || U != wantU) return 1;
        }
    }
    return 0;
}
""",
    "48_sparse_la_sparse_axpy": """
int main() {
    for (size_t n : {1, 7, 300}) {
        std::vector<Element> x, y;
        for (size_t k = 0; k < n; k += 2) x.push_back({k, (double)(k % 9) - 4.0});
        for (size_t k = 0; k < n; k += 3) y.push_back({k, (double)(k % 5)});
        std::vector<double> want(n, 0.0);
        sparseAxpy(1.5, x, y, want);
        std::vector<pf_gpu::Element> dx, dy;
        for (auto &e : x) dx.push_back({e.index, e.value});
        for (auto &e : y) dy.push_back({e.index, e.value});
        for (auto &shape : PF_SHAPES) {
            std::vector<double> got(n, 0.0);
            pf_launch(shape[0], shape[1], [&] {
                pf_gpu::sparseAxpy(1.5, dx.data(), dy.data(), got.data(), dx.size(), dy.size(), n);
            });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "35_search_search_for_last_struct_by_key": """
int main() {
    for (size_t n : {1, 7, 1000}) {
        for (size_t every : {1, 3, 500}) {
            std::vector<Book> books(n);
            std::vector<pf_gpu::Book> device(n);
            for (size_t i = 0; i < n; i++) {
                books[i] = {"Book " + std::to_string(i), i % every == 0 ? (int)(i % 99) + 1 : 100 + (int)i};
                device[i] = {books[i].title.c_str(), books[i].pages};
            }
            size_t want = findLastShortBook(books);
            for (auto &shape : PF_SHAPES) {
                size_t got = 0;
                pf_launch(shape[0], shape[1], [&] { pf_gpu::findLastShortBook(device.data(), n, &got); });
                if (got != want) return 1;
            }
        }
    }
    return 0;
}
""",
    "39_search_xor_contains": """
int main() {
    for (size_t n : {1, 7, 1000}) {
        std::vector<int> x(n), y(n);
        for (size_t i = 0; i < n; i++) {
            x[i] = (int)(i * 7919 % 1000);
            y[i] = (int)(i * 104729 % 1000) + 500;
        }
        for (int val : {x[n - 1], y[0], x[n / 2], y[n / 2], -1, 700}) {
            bool want = xorContains(x, y, val);
            for (auto &shape : PF_SHAPES) {
                for (bool start : {false, true}) {
                    bool got = start;
                    pf_launch(shape[0], shape[1], [&] { pf_gpu::xorContains(x.data(), y.data(), n, val, &got); });
                    if (got != want) return 1;
                }
            }
        }
    }
    return 0;
}
""",
    "43_sort_sort_an_array_of_structs_by_key": """
int main() {
    for (size_t n : {0, 1, 2, 3, 7, 64, 1000, 1025}) {
        std::vector<Result> results(n);
        for (size_t i = 0; i < n; i++) results[i] = {(int)((i * 7919) % (2 * n + 1)) * 2 + (int)(i % 2), (int)(i % 10) + 1, (float)i / 8.0f};
        std::vector<Result> want = results;
        sortByStartTime(want);
        std::vector<pf_gpu::Result> device(n);
        for (size_t i = 0; i < n; i++) device[i] = {results[i].startTime, results[i].duration, results[i].value};
        for (auto &shape : PF_SHAPES) {
            for (int twice = 0; twice < 2; twice++) {  // the seats the first launch took are free again
                std::vector<pf_gpu::Result> got = device;
                pf_launch(shape[0], shape[1], [&] { pf_gpu::sortByStartTime(got.data(), n); });
                for (size_t i = 0; i < n; i++)
                    if (got[i].startTime != want[i].startTime || got[i].duration != want[i].duration || got[i].value != want[i].value) return 1;
            }
        }
    }
    return 0;
}
""",
    "44_sort_sort_non-zero_elements": """
int main() {
    for (size_t n : {0, 1, 2, 3, 9, 64, 1000, 5000}) {
        for (int zeros = 1; zeros < 5; zeros += 3) {  // a third of the places zero, or a little under
            std::vector<int> x(n);
            for (size_t i = 0; i < n; i++) x[i] = i % (size_t)(zeros + 2) == 0 ? 0 : (int)((i * 7919) % 201) - 100;
            std::vector<int> want = x;
            sortIgnoreZero(want);
            for (auto &shape : PF_SHAPES) {
                for (int twice = 0; twice < 2; twice++) {  // the heap and the seats are free again
                    std::vector<int> got = x;
                    pf_launch(shape[0], shape[1], [&] { pf_gpu::sortIgnoreZero(got.data(), n); });
                    if (got != want) return 1;
                }
            }
        }
    }
    return 0;
}
""",
    "06_fft_dft": """
int main() {
    for (size_t n : {1, 2, 7, 64, 300}) {
        std::vector<double> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (double)((i * 7919) % 200) / 100.0 - 1.0;
        std::vector<std::complex<double>> want(n);
        dft(x, want);
        for (auto &shape : PF_SHAPES) {
            std::vector<std::complex<double>> got(n, {7.0, 7.0});  // the kernel writes every element
            pf_launch(shape[0], shape[1], [&] { pf_gpu::dft(x.data(), reinterpret_cast<cuDoubleComplex *>(got.data()), n); });
            for (size_t i = 0; i < n; i++)
                if (std::abs(got[i] - want[i]) > 1e-9 * (1.0 + std::abs(want[i]))) return 1;
        }
    }
    return 0;
}
""",
    "40_sort_sort_an_array_of_complex_numbers_by_magnitude": """
int main() {
    for (size_t n : {0, 1, 2, 5, 64, 1000}) {
        std::vector<std::complex<double>> x(n);
        for (size_t i = 0; i < n; i++) x[i] = {(double)((i * 7919) % 2000) / 100.0 - 10.0, (double)i / 1000.0};
        std::vector<std::complex<double>> want = x;
        sortComplexByMagnitude(want);
        for (auto &shape : PF_SHAPES) {
            std::vector<std::complex<double>> got = x;
            pf_launch(shape[0], shape[1], [&] { pf_gpu::sortComplexByMagnitude(reinterpret_cast<cuDoubleComplex *>(got.data()), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "41_sort_k-th_smallest_element": """
int main() {
    for (size_t n : {1, 7, 1000}) {
        std::vector<int> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (int)((i * 7919) % 50) * (i % 3 ? 1 : -40000000) + (int)(i % 2);
        if (n > 3) { x[0] = INT_MIN; x[1] = INT_MAX; }
        for (int k : {1, (int)n / 2 + 1, (int)n}) {
            if (k < 1 || k > (int)n) continue;
            int want = findKthSmallest(x, k);
            for (auto &shape : PF_SHAPES) {
                for (int twice = 0; twice < 2; twice++) {  // the counts the first launch took are zero again
                    int got = 12345;
                    pf_launch(shape[0], shape[1], [&] { pf_gpu::findKthSmallest(x.data(), n, k, &got); });
                    if (got != want) return 1;
                }
            }
        }
    }
    return 0;
}
""",
    "36_search_check_if_array_contains_value": """
int main() {
    for (size_t n : {1, 7, 1000}) {
        std::vector<int> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (int)(i * 7919 % 1000);
        for (int target : {x[0], x[n - 1], x[n / 2], -1, 1000}) {
            bool want = contains(x, target);
            for (auto &shape : PF_SHAPES) {
                bool got = !want;  // whatever the driver starts from
                pf_launch(shape[0], shape[1], [&] { pf_gpu::contains(x.data(), n, target, &got); });
                if (got != want) return 1;
            }
        }
    }
    return 0;
}
""",
    "30_scan_prefix_sum": """
int main() {
    for (size_t n : {1, 7, 1000, 5000}) {
        std::vector<double> x(n), want, got(n);
        for (size_t i = 0; i < n; i++) x[i] = (double)(i * 37 % 101) / 8.0 - 6.0;
        prefixSum(x, want);
        for (auto &shape : PF_SHAPES) {
            std::fill(got.begin(), got.end(), -1.0);
            pf_launch(shape[0], shape[1], [&] { pf_gpu::prefixSum(x.data(), got.data(), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "31_scan_scan_with_min_function": """
int main() {
    for (size_t n : {1, 7, 1000, 5000}) {
        std::vector<float> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (float)(i * 7919 % 1009) - (float)i / 4.0f;
        std::vector<float> want = x;
        partialMinimums(want);
        for (auto &shape : PF_SHAPES) {
            std::vector<float> got = x;
            pf_launch(shape[0], shape[1], [&] { pf_gpu::partialMinimums(got.data(), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "33_scan_reverse_prefix_sum": """
int main() {
    for (size_t n : {1, 7, 1000, 5000}) {
        std::vector<int> x(n), want(n), got(n);
        for (size_t i = 0; i < n; i++) x[i] = (int)(i * 7919 % 1000) - 500;
        reversePrefixSum(x, want);
        for (auto &shape : PF_SHAPES) {
            std::fill(got.begin(), got.end(), 0);
            pf_launch(shape[0], shape[1], [&] { pf_gpu::reversePrefixSum(x.data(), got.data(), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "03_dense_la_axpy": """
int main() {
    for (size_t n : {1, 7, 1000}) {
        std::vector<double> x(n), y(n), z(n), w(n);
        for (size_t i = 0; i < n; i++) x[i] = (i * 37 % 101) / 7.0, y[i] = (i * 13 % 17) - 8.0;
        axpy(1.5, x, y, z);
        for (auto &shape : PF_SHAPES) {
            std::fill(w.begin(), w.end(), 0.0);
            pf_launch(shape[0], shape[1], [&] { pf_gpu::axpy(1.5, x.data(), y.data(), w.data(), n); });
            if (w != z) return 1;
        }
    }
    return 0;
}
""",
    "28_reduce_smallest_odd_number": """
int main() {
    for (size_t n : {1, 7, 1000}) {
        std::vector<int> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (int)(i * 7919 % 1000) - 300;
        int want = smallestOdd(x);
        for (auto &shape : PF_SHAPES) {
            int got = std::numeric_limits<int>::max();  // the driver's start
            pf_launch(shape[0], shape[1], [&] { pf_gpu::smallestOdd(x.data(), n, &got); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "20_histogram_pixel_histogram": """
int main() {
    for (size_t n : {1, 7, 5000}) {
        std::vector<int> image(n);
        for (size_t i = 0; i < n; i++) image[i] = (int)(i * 131 % 256);
        std::array<size_t, 256> want{};
        pixelCounts(image, want);
        for (auto &shape : PF_SHAPES) {
            size_t got[256] = {0};
            pf_launch(shape[0], shape[1], [&] { pf_gpu::pixelCounts(image.data(), n, got); });
            if (!std::equal(want.begin(), want.end(), got)) return 1;
        }
    }
    return 0;
}
""",
    "26_reduce_product_of_inverses": """
int main() {
    for (size_t n : {1, 7, 1000}) {
        std::vector<double> x(n);
        for (size_t i = 0; i < n; i++) x[i] = 1.0 + (i % 5) * 0.001;
        double want = productWithInverses(x);
        for (auto &shape : PF_SHAPES) {
            double got = 1.0;  // the driver's start
            pf_launch(shape[0], shape[1], [&] { pf_gpu::productWithInverses(x.data(), n, &got); });
            if (std::fabs(got - want) > 1e-12 * std::fabs(want)) return 1;
        }
    }
    return 0;
}
""",
    "15_graph_edge_count": """
int main() {
    for (size_t n : {1, 7, 90}) {
        std::vector<int> a(n * n);
        for (size_t i = 0; i < n * n; i++) a[i] = i * 7 % 3 == 0;
        int want = edgeCount(a, n);
        for (auto &shape : PF_SHAPES) {
            int got = 0;  // the driver's start
            pf_launch(shape[0], shape[1], [&] { pf_gpu::edgeCount(a.data(), n, &got); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "17_graph_highest_degree": """
int main() {
    for (size_t n : {1, 7, 90}) {
        std::vector<int> a(n * n);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) a[i * n + j] = (i * j + i) % (i % 5 + 2) == 0;
        int want = maxDegree(a, n);
        for (auto &shape : PF_SHAPES) {
            int got = 0;  // the driver's start
            pf_launch(shape[0], shape[1], [&] { pf_gpu::maxDegree(a.data(), n, &got); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "16_graph_largest_component": _GRAPH_CHECK.replace("CALL", "largestComponent(a, n)").replace(
        "KERNEL", "largestComponent(a.data(), n, &got)"
    ),
    "18_graph_count_components": _GRAPH_CHECK.replace("CALL", "componentCount(a, n)").replace(
        "KERNEL", "componentCount(a.data(), n, &got)"
    ),
    "19_graph_shortest_path": _GRAPH_CHECK.replace(
        "CALL", "shortestPathLength(a, n, (int)(n / 3), (int)(n - 1))"
    ).replace("KERNEL", "shortestPathLength(a.data(), n, (int)(n / 3), (int)(n - 1), &got)"),
    "13_geometry_closest_pair_2d": """
int main() {
    for (size_t n : {0, 1, 2, 7, 300}) {  // under 2 points: the guard's answer
        std::vector<Point> p(n);
        for (size_t i = 0; i < n; i++) p[i] = {(double)(i * 37 % 101), (double)(i * 53 % 97)};
        double want = closestPair(p);
        for (auto &shape : PF_SHAPES) {
            double got = DBL_MAX;  // the driver's start
            auto *d = reinterpret_cast<const pf_gpu::Point *>(p.data());
            pf_launch(shape[0], shape[1], [&] { pf_gpu::closestPair(d, n, &got); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "14_geometry_closest_pair_1d": """
int main() {
    for (size_t n : {2, 7, 300}) {
        std::vector<double> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (i * 7919 % 1009) * 0.25;
        double want = closestPair(x);
        for (auto &shape : PF_SHAPES) {
            double got = DBL_MAX;  // the driver's start
            pf_launch(shape[0], shape[1], [&] { pf_gpu::closestPair(x.data(), n, &got); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "25_reduce_xor": """
int main() {
    for (size_t n : {1, 7, 1000, 1001}) {
        for (int seed : {0, 1, 2}) {
            std::vector<bool> x(n);
            for (size_t i = 0; i < n; i++) x[i] = (i * 31 + seed) % 7 < 3;
            bool want = reduceLogicalXOR(x);
            std::vector<unsigned char> bytes(x.begin(), x.end());
            for (auto &shape : PF_SHAPES) {
                bool got = false;  // the driver's start
                auto *b = reinterpret_cast<const bool *>(bytes.data());
                pf_launch(shape[0], shape[1], [&] { pf_gpu::reduceLogicalXOR(b, n, &got); });
                if (got != want) return 1;
            }
        }
    }
    return 0;
}
""",
    "27_reduce_average": """
int main() {
    for (size_t n : {1, 7, 1000}) {
        std::vector<double> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (i * 37 % 101) / 7.0 - 3;
        double want = average(x);
        for (auto &shape : PF_SHAPES) {
            double got = 0;  // the driver's start
            pf_launch(shape[0], shape[1], [&] { pf_gpu::average(x.data(), n, &got); });
            if (std::fabs(got - want) > 1e-9 * std::fabs(want)) return 1;
        }
    }
    return 0;
}
""",
    "37_search_find_the_closest_number_to_pi": """
int main() {
    for (size_t n : {1, 7, 1000}) {
        for (int ties : {0, 1}) {  // ties: equal distances, the earliest index wins
            std::vector<double> x(n);
            for (size_t i = 0; i < n; i++) x[i] = ties ? 3.0 + (i % 2) * 0.2832 : (i * 37 % 101) / 9.0;
            size_t want = findClosestToPi(x);
            for (auto &shape : PF_SHAPES) {
                size_t got = 0;  // the driver's start
                pf_launch(shape[0], shape[1], [&] { pf_gpu::findClosestToPi(x.data(), n, &got); });
                if (got != want) return 1;
            }
        }
    }
    return 0;
}
""",
    "51_stencil_edge_kernel": """
int main() {
    for (size_t n : {1, 3, 23}) {
        std::vector<int> in(n * n), want(n * n), got(n * n);
        for (size_t i = 0; i < n * n; i++) in[i] = (int)(i * 29 % 256);
        convolveKernel(in, want, n);
        for (auto &shape : PF_SHAPES) {
            std::fill(got.begin(), got.end(), 0);
            pf_launch(shape[0], shape[1], [&] { pf_gpu::convolveKernel(in.data(), got.data(), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    "38_search_find_the_first_even_number": """
int main() {
    for (size_t n : {1, 7, 1000}) {
        for (size_t at : {(size_t)0, n / 2, n - 1, n}) {  // n: no even number at all
            std::vector<int> x(n);
            for (size_t i = 0; i < n; i++) x[i] = i < at || i == n ? 2 * (int)i + 1 : (int)i * 2;
            size_t want = findFirstEven(x);
            for (auto &shape : PF_SHAPES) {
                for (size_t start : {n, (size_t)0, (size_t)3}) {  // the driver's start takes no part
                    size_t got = start;
                    pf_launch(shape[0], shape[1], [&] { pf_gpu::findFirstEven(x.data(), n, &got); });
                    if (got != want) return 1;
                }
            }
        }
    }
    return 0;
}
""",
    "53_stencil_2d_jacobi_5-point_stencil": """
int main() {
    for (size_t n : {1, 3, 23}) {
        std::vector<double> in(n * n), want(n * n), got(n * n);
        for (size_t i = 0; i < n * n; i++) in[i] = (i * 29 % 31) * 0.5;
        jacobi2D(in, want, n);
        for (auto &shape : PF_SHAPES) {
            std::fill(got.begin(), got.end(), 0.0);
            pf_launch(shape[0], shape[1], [&] { pf_gpu::jacobi2D(in.data(), got.data(), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
}


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("problem", sorted(EMULATED))
def test_a_kernel_computes_the_functions_result_under_every_launch_shape(
    problem: str, tmp_path: Path
) -> None:
    """No GPU here: CUDA's launch model emulated on the host (blocks in turn, a block's
    threads as host threads with a barrier and shared arrays, atomics under a lock) checks the
    index arithmetic, the folds and the block trees against the sequential function, for one
    thread, fewer threads than work, the driver's shape, 2-D and 3-D grids and many more
    threads than work. The GPU's memory model is the GPU run's to check."""
    t = next(t for t in _tasks() if t.problem == problem)
    _emulate(t.source, _kernel(t), EMULATED[problem], tmp_path)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_complex_sort_by_the_librarys_norm_sorts_as_the_suites_by_magnitude(
    tmp_path: Path,
) -> None:
    """The suite's complex sort with `std::norm` (the squared magnitude) in its comparison,
    references taken: the device's complex type has its own `norm`."""
    problem = "40_sort_sort_an_array_of_complex_numbers_by_magnitude"
    t = next(t for t in _tasks() if t.problem == problem)
    source = t.source.replace(
        "[](std::complex<double> a, std::complex<double> b) {\n        return std::abs(a) < std::abs(b);",
        "[](const std::complex<double> &a, const std::complex<double> &b) {\n"
        "        return std::norm(a) < std::norm(b);",
    )
    assert source != t.source and t.task is not None
    signature = t.task.signature_for("cuda")
    assert signature is not None
    written = kernel(source, analyse(source, Language.CPP), t.function, signature)
    _emulate(source, written, EMULATED[problem], tmp_path)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("problem", sorted(EMULATED))
def test_a_kernel_computes_the_functions_result_with_its_blocks_running_at_once(
    problem: str, tmp_path: Path
) -> None:
    """The same checks with every block of the launch running at once (one thread each, as
    host threads): what blocks do to each other (a scan's chain of running values, seats and
    the grid barrier of loops run in phases, the block that ends last, an argmin's lock) runs
    for real, on grids of up to 64 blocks, twice per launch shape."""
    t = next(t for t in _tasks() if t.problem == problem)
    _emulate(t.source, _kernel(t), EMULATED[problem], tmp_path, concurrent=True)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize(
    "barrier",
    [
        "    pf_part[i] = v;\n    __syncthreads();\n",
        "        if (i < half && i + half < n) pf_part[i] = f(pf_part[i], pf_part[i + half]);\n"
        "        __syncthreads();\n",
    ],
    ids=["after the partials are stored", "between the tree's levels"],
)
def test_the_launch_model_fails_a_block_tree_without_its_barrier(
    barrier: str, tmp_path: Path
) -> None:
    """The checks are only as good as the launch model: a block's fold missing one barrier
    reads partials before their threads store them, and its check must fail (the fibers of a
    block run until they wait, first to last and then last to first)."""
    t = next(t for t in _tasks() if t.problem == "25_reduce_xor")
    written = _kernel(t)
    assert barrier in written
    broken = written.replace(barrier, barrier.replace("__syncthreads();", ""), 1)
    with pytest.raises(AssertionError, match="int main"):
        _emulate(t.source, broken, EMULATED["25_reduce_xor"], tmp_path)


def _builds_with_nvcc(written: str, tmp_path: Path) -> None:
    """The kernel compiles with nvcc for the device (an object file: no driver)."""
    (tmp_path / "kernel.cu").write_text(written)
    built = subprocess.run(
        ["nvcc", "-c", "-arch=sm_90", "-o", str(tmp_path / "kernel.o"), str(tmp_path / "kernel.cu")],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]


_EMULATION_FLAGS = ["g++", "-std=c++20", "-O1", "-pthread"]


@functools.cache
def _emulation_dir(concurrent: bool) -> Path:
    """A folder holding the launch model's header and, where g++ can build one, its
    precompiled form for these flags (about a second of parsing saved per check; without it
    the header is read as text, with the same result)."""
    header = Path(__file__).parent / "programs" / "cuda_emulation.hpp"
    flags = (*_EMULATION_FLAGS, *(["-DPF_CONCURRENT_BLOCKS"] if concurrent else []))
    return header_folder(header.name, header.read_text(), flags)


def _emulate(
    source: str, written: str, check: str, tmp_path: Path, concurrent: bool = False
) -> None:
    """Builds and runs the sequential source, the kernel and the check's `main` together
    (`concurrent`: the launch's blocks at once, one thread each)."""
    # The kernel in a namespace of its own: it defines the source's types again.
    program = (
        f'#include "cuda_emulation.hpp"\n{source}\nnamespace pf_gpu {{\n{written}\n}}\n{check}'
    )
    (tmp_path / "check.cpp").write_text(program)
    built = subprocess.run(
        [
            *_EMULATION_FLAGS, *(["-DPF_CONCURRENT_BLOCKS"] if concurrent else []),
            "-I", str(_emulation_dir(concurrent)), "-o", str(tmp_path / "check"),
            str(tmp_path / "check.cpp"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    ran = subprocess.run([str(tmp_path / "check")], capture_output=True, timeout=60)
    assert ran.returncode == 0, check


_LAST = """
size_t lastNegative(std::vector<int> const &x) {
    size_t last = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        if (x[i] < 0) last = i;
    }
    return last;
}
"""
_ARGMAX = """
int highestAt(std::vector<float> const &x, int from) {
    float best = std::numeric_limits<float>::lowest();
    int at = -1;
    for (int i = 0; i < (int)x.size(); ++i) {
        if (x[i] * x[i] >= best) { best = x[i] * x[i]; at = i; }
    }
    return at;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize(
    ("source", "signature", "check"),
    [
        (  # the last index an assignment keeps; none kept: the function's start, not the driver's
            _LAST,
            "__global__ void lastNegative(const int *x, size_t N, size_t *last)",
            """
int main() {
    for (size_t n : {1, 7, 1000}) {
        for (size_t at : {(size_t)0, n / 2, n - 1, n}) {  // n: no negative value at all
            std::vector<int> x(n);
            for (size_t i = 0; i < n; i++) x[i] = (i <= at && i % 3 == 0) || i == at ? -1 : 1;
            size_t want = lastNegative(x);
            for (auto &shape : PF_SHAPES) {
                size_t got = 12345;  // whatever the driver starts from
                pf_launch(shape[0], shape[1], [&] { pf_gpu::lastNegative(x.data(), n, &got); });
                if (got != want) return 1;
                got = 0;  // launched again: the device state was reset
                pf_launch(shape[0], shape[1], [&] { pf_gpu::lastNegative(x.data(), n, &got); });
                if (got != want) return 2;
            }
        }
    }
    return 0;
}
""",
        ),
        (  # an argmax with `>=`: ties go to the later index; none found: the function's -1
            _ARGMAX,
            "__global__ void highestAt(const float *x, size_t N, int *at)",
            """
int main() {
    for (size_t n : {0, 1, 7, 1000}) {
        std::vector<float> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (float)((int)(i * 37 % 11) - 5);
        int want = highestAt(x, 0);
        for (auto &shape : PF_SHAPES) {
            for (int again = 0; again < 2; again++) {
                int got = 77;  // whatever the driver starts from
                pf_launch(shape[0], shape[1], [&] { pf_gpu::highestAt(x.data(), n, &got); });
                if (got != want) return 1;
            }
        }
    }
    return 0;
}
""",
        ),
        (  # a max from the function's own start, whatever the driver starts from
            """
int largest(std::vector<int> const &x) {
    int m = x[0];
    for (size_t i = 1; i < x.size(); ++i) m = std::max(m, x[i]);
    return m;
}
""",
            "__global__ void largest(const int *x, size_t N, int *out)",
            """
int main() {
    for (size_t n : {1, 7, 1000}) {
        std::vector<int> x(n);
        for (size_t i = 0; i < n; i++) x[i] = -3 - (int)(i * 7 % 11);
        int want = largest(x);
        for (auto &shape : PF_SHAPES)
            for (int start : {0, INT_MIN, 5}) {  // the driver's start takes no part
                int got = start;
                pf_launch(shape[0], shape[1], [&] { pf_gpu::largest(x.data(), n, &got); });
                if (got != want) return 1;
            }
    }
    return 0;
}
""",
        ),
        (  # a sum from 5 (the driver's 0 takes no part), to a bound of n / 2.0 (n = 5: 0, 1, 2)
            """
double total(std::vector<double> const &x) {
    double s = 5;
    for (int i = 0; i < x.size() / 2.0; ++i) s += x[i];
    return s;
}
""",
            "__global__ void total(const double *x, size_t N, double *out)",
            """
int main() {
    for (size_t n : {1, 5, 7, 1001}) {
        std::vector<double> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (double)(i % 9);
        double want = total(x);
        for (auto &shape : PF_SHAPES) {
            double got = 0;
            pf_launch(shape[0], shape[1], [&] { pf_gpu::total(x.data(), n, &got); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
        ),
        (  # `int i = -1` against an unsigned size: -1 converts to the largest value, no iteration
            """
void mark(std::vector<int> &y) {
    for (int i = -1; i < y.size(); ++i) y[i + 1] = 1;
}
""",
            "__global__ void mark(int *y, size_t N)",
            """
int main() {
    std::vector<int> y(9, 0), want = y;
    mark(want);
    for (auto &shape : PF_SHAPES) {
        std::vector<int> got(9, 0);
        pf_launch(shape[0], shape[1], [&] { pf_gpu::mark(got.data(), 9); });
        if (got != want) return 1;
    }
    return 0;
}
""",
        ),
        (  # a range over a std::array runs over its 4 elements, not the vector's size
            """
int weigh(std::array<int, 4> const &w) {
    int s = 0;
    for (int v : w) s += v;
    return s;
}
""",
            "__global__ void weigh(const int *w, size_t N, int *out)",
            """
int main() {
    std::array<int, 4> w{1, 2, 3, 4};
    std::vector<int> padded(1000, 99999);
    std::copy(w.begin(), w.end(), padded.begin());
    for (auto &shape : PF_SHAPES) {
        int got = 0;
        pf_launch(shape[0], shape[1], [&] { pf_gpu::weigh(padded.data(), 1000, &got); });
        if (got != weigh(w)) return 1;
    }
    return 0;
}
""",
        ),
    ],
)
def test_a_kept_index_kernel_computes_the_functions_result(
    source: str, signature: str, check: str, tmp_path: Path
) -> None:
    """Results the block that ends last writes (a last index, an argmax, a max and a sum from
    the function's own start) and loops whose own test decides the iterations, under every
    launch shape; kept indices twice each: the device state the last block resets serves the
    next launch."""
    name = signature_params(signature)[0]
    written = kernel(source, analyse(source, Language.CPP), name, signature)
    _emulate(source, written, check, tmp_path)


@pytest.mark.parametrize(
    ("source", "signature", "present", "absent"),
    [
        (  # a decrement is an atomic addition of -1, `-=` of the negated amount
            "void f(std::vector<int> const &x, std::array<int, 4> &bins) {\n"
            "  for (size_t i = 0; i < x.size(); ++i) { bins[x[i] % 4]--; bins[0] -= 2; }\n}\n",
            "__global__ void f(const int *x, size_t N, int bins[4])",
            ["pf_cuda_fold_plus(&bins[x[i] % 4], -1)", "pf_cuda_fold_plus(&bins[0], -(2))"],
            ["--", "-= 2"],
        ),
        (  # a std::array's size is its length, not the vector's
            "void f(std::vector<int> const &img, std::array<int, 256> &bins) {\n"
            "  for (size_t i = 0; i < bins.size(); ++i) bins[i] = img[i];\n}\n",
            "__global__ void f(const int *img, size_t N, int bins[256])",
            ["i < (size_t)(256)"],
            ["(size_t)(N)"],
        ),
        (  # the function's copy of the size under the kernel's name for it: not copied
            "void f(std::vector<int> &x) {\n  size_t N = x.size();\n"
            "  for (size_t i = 0; i < N; ++i) x[i] *= 2;\n}\n",
            "__global__ void f(int *x, size_t N)",
            ["!(i < N)"],
            ["size_t N ="],
        ),
        (  # numeric_limits as the C headers' constants; a hidden helper renamed
            "double gap(double a, double b) { return std::abs(a - b); }\n"
            "double f(std::vector<double> const &x) {\n"
            "  double m = std::numeric_limits<double>::max();\n"
            "  for (size_t i = 1; i < x.size(); ++i) m = std::min(m, gap(x[i - 1], x[i]));\n"
            "  return m;\n}\n",
            "__global__ void f(const double *x, size_t N, double *gap)",
            ["double pf_fn_gap(double a, double b)", "pf_fn_gap(x[i - 1], x[i])"],
            ["numeric_limits", " gap("],
        ),
        (  # a constant table in constant memory, an integer constant as a constexpr
            "const int K[3] = {1, 2, 1};\nconst int R = 1;\n"
            "void f(std::vector<int> const &x, std::vector<int> &y) {\n"
            "  for (size_t i = R; i < x.size() - R; ++i) y[i] = K[0] * x[i - 1] + K[1] * x[i] "
            "+ K[2] * x[i + 1];\n}\n",
            "__global__ void f(const int *x, int *y, size_t N)",
            ["__constant__ int K[3] = {1, 2, 1};", "constexpr int R = 1;"],
            [],
        ),
        (  # a histogram's cell and amount get the rewrites too; constants they need come first
            "const int R = 2;\nconst int W = 2 * R;\nstruct P {\n  double c[W];\n};\n"
            "void f(std::vector<int> const &x, std::array<double, 4> &b) {\n"
            "  for (size_t i = 0; i < x.size(); ++i) b[i * 4 / x.size()] += x[i] * 0.5 * R;\n}\n",
            "__global__ void f(const int *x, size_t N, double b[4])",
            ["constexpr int R = 2;\nconstexpr int W = 2 * R;\nstruct P", "&b[i * 4 / (size_t)(N)]"],
            [".size()"],
        ),
        (  # a local named max: CUDA's own max, by its global name; a helper named like CUDA's
            "double rsqrt(double v) { return 1.0 / v; }\n"
            "void f(std::vector<double> const &x, std::vector<double> &y, double max) {\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = std::max(rsqrt(x[i]), max);\n}\n",
            "__global__ void f(const double *x, double *y, double max, size_t N)",
            ["::max(pf_fn_rsqrt(x[i]), max)", "double pf_fn_rsqrt(double v)"],
            ["std::"],
        ),
        (  # `x.empty()` in a guard is the kernel's size at 0
            "double f(std::vector<double> const &x) {\n  if (x.empty()) return -1;\n"
            "  double s = 0;\n  for (size_t i = 0; i < x.size(); ++i) s += x[i];\n"
            "  return s;\n}\n",
            "__global__ void f(const double *x, size_t N, double *out)",
            ["if (((size_t)(N) == 0)) { if (pf_t == 0) *out = (double)(-1); return; }"],
            ["empty"],
        ),
        (  # sizes in the first value are rewritten too
            "void f(std::vector<int> &x) {\n"
            "  for (size_t i = x.size() / 2; i < x.size(); ++i) x[i] *= 2;\n}\n",
            "__global__ void f(int *x, size_t N)",
            ["pf_first = (long long)((size_t)((size_t)(N) / 2))"],
            ["x.size()"],
        ),
    ],
)
def test_what_a_kernel_rewrites(
    source: str, signature: str, present: list[str], absent: list[str]
) -> None:
    name = signature_params(signature)[0]
    written = kernel(source, analyse(source, Language.CPP), name, signature)
    body = written.removeprefix(HELPERS)  # what this function's kernel adds
    for piece in present:
        assert piece in body, body
    for piece in absent:
        assert piece not in body, body


# Scans beyond the suite's: each (the sequential function `f(x, y)`, its element type) is
# checked against the kernel `f(const T *x, T *y, size_t N)` under every launch shape, twice
# per shape (the second launch finds the tickets the first left), on sizes of one tile, a few
# and many.
_SCANS = {
    "running max of ints, a guard first": (
        "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
        "  if (x.size() == 0) return;\n  long long best = x[0];\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n    if (x[i] > best) best = x[i];\n"
        "    y[i] = best;\n  }\n}\n",
        "long long",
    ),
    "running product of unsigned, a local in the input phase": (
        "void f(std::vector<unsigned> const &x, std::vector<unsigned> &y) {\n"
        "  unsigned p = 3;\n  for (int i = 0; i < (int)x.size(); i++) {\n"
        "    unsigned v = x[i] | 1u;\n    p *= v;\n    y[i] = p - v;\n  }\n}\n",
        "unsigned",
    ),
    "recurrence with a first iteration of its own": (
        "void f(std::vector<int> const &x, std::vector<int> &y) {\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n"
        "    if (i == 0) y[i] = 2 * x[i]; else y[i] = y[i - 1] + 2 * x[i];\n  }\n}\n",
        "int",
    ),
    "the library's partial sum into the output, resized first": (
        "#include <numeric>\n"
        "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
        "  y.resize(x.size());\n  std::partial_sum(x.begin(), x.end(), y.begin());\n}\n",
        "long long",
    ),
    "recurrence from the element the caller passes": (
        "void f(std::vector<int> const &x, std::vector<int> &y) {\n"
        "  for (size_t i = 1; i < x.size(); ++i) {\n    y[i] = y[i - 1] + x[i];\n  }\n}\n",
        "int",
    ),
    "recurrence, the loop's one statement without braces": (
        "void f(std::vector<long> const &x, std::vector<long> &y) {\n"
        "  for (size_t i = 1; i < x.size(); ++i) y[i] = (x[i] - 3) + y[i - 1];\n}\n",
        "long",
    ),
    "suffix sums counting down": (
        "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
        "  long long acc = 3;\n"
        "  for (long long i = (long long)x.size() - 1; i >= 0; --i) {\n"
        "    acc += x[i];\n    y[i] = acc;\n  }\n}\n",
        "long long",
    ),
    "exclusive running min counting down": (
        "void f(std::vector<int> const &x, std::vector<int> &y) {\n"
        "  int m = 1000;\n"
        "  for (int i = (int)x.size() - 1; i >= 0; i--) {\n"
        "    y[i] = m;\n    if (x[i] < m) m = x[i];\n  }\n}\n",
        "int",
    ),
    "recurrence up to an inclusive bound": (
        "void f(std::vector<int> const &x, std::vector<int> &y) {\n"
        "  for (size_t i = 1; i <= x.size() - 1; ++i) y[i] = y[i - 1] + 3 * x[i];\n}\n",
        "int",
    ),
    "exclusive sum, offsets of rows": (
        "void f(std::vector<int> const &x, std::vector<int> &y) {\n"
        "  int next = 0;\n  for (size_t i = 0; i < x.size(); ++i) {\n"
        "    y[i] = next;\n    next += x[i];\n  }\n}\n",
        "int",
    ),
    "exclusive sum kept in a local read before the step": (
        "void f(std::vector<int> const &x, std::vector<int> &y) {\n"
        "  int acc = 2;\n  for (size_t i = 0; i < x.size(); ++i) {\n"
        "    int prev = acc;\n    y[i] = prev * 3;\n    acc += x[i] % 7;\n  }\n}\n",
        "int",
    ),
    "exclusive running max, a local before and a read after its step": (
        "void f(std::vector<long> const &x, std::vector<long> &y) {\n"
        "  if (x.empty()) return;\n  long m = -5;\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n    long v = 2 * x[i];\n"
        "    y[i] = m * 3;\n    m = std::max(m, v);\n    y[i] += m;\n  }\n}\n",
        "long",
    ),
    "recurrence with a first iteration of its own, without braces": (
        "void f(std::vector<int> const &x, std::vector<int> &y) {\n"
        "  for (size_t i = 0; i < x.size(); ++i)\n"
        "    if (i == 0) y[i] = x[i]; else y[i] = y[i - 1] + x[i];\n}\n",
        "int",
    ),
}


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_SCANS))
def test_a_scan_kernel_gives_the_sequential_values_under_every_launch_shape(
    case: str, tmp_path: Path
) -> None:
    source, kind = _SCANS[case]
    signature = f"__global__ void f(const {kind} *x, {kind} *y, size_t N)"
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    assert "pf_cuda_block_scan" in written
    check = f"""
int main() {{
    for (size_t n : {{1, 9, 5000}}) {{
        std::vector<{kind}> x(n), want(n, ({kind})7);
        for (size_t i = 0; i < n; i++) x[i] = ({kind})((i * 7919 % 1000) / 3) - ({kind})(i % 5);
        f(x, want);
        for (auto &shape : PF_SHAPES) {{
            for (int twice = 0; twice < 2; twice++) {{
                std::vector<{kind}> got(n, ({kind})7);
                pf_launch(shape[0], shape[1], [&] {{ pf_gpu::f(x.data(), got.data(), n); }});
                if (got != want) return 1;
            }}
        }}
    }}
    return 0;
}}
"""
    _emulate(source, written, check, tmp_path)
    _emulate(source, written, check, tmp_path, concurrent=True)


_IN_PLACE_SCANS = {
    "a prefix sum in place": (
        "void f(std::vector<long long> &x) {\n"
        "  for (size_t i = 1; i < x.size(); ++i) x[i] += x[i - 1];\n}\n",
        "long long",
        0,
    ),
    "a running product in place, its first iteration its own": (
        "void f(std::vector<unsigned> &x) {\n  for (size_t i = 0; i < x.size(); ++i) {\n"
        "    if (i == 0) x[i] = 1; else x[i] *= x[i - 1];\n  }\n}\n",
        "unsigned",
        0,
    ),
    "a term reading the element's own value": (
        "void f(std::vector<long> &x) {\n  for (size_t i = 1; i < x.size(); ++i) {\n"
        "    x[i] = x[i - 1] + (2 * x[i] - 1);\n  }\n}\n",
        "long",
        0,
    ),
    "a CSR row pointer in place, one element on": (
        "void f(std::vector<int> &x) {\n"
        "  for (int k = 0; k < (int)x.size() - 1; ++k) x[k + 1] += x[k];\n}\n",
        "int",
        0,
    ),
    "a CSR row pointer from counts, its first element stored": (
        "void f(std::vector<int> const &count, std::vector<int> &x) {\n  x[0] = 0;\n"
        "  for (size_t i = 0; i < count.size(); ++i) {\n    x[i + 1] = x[i] + count[i];\n"
        "  }\n}\n",
        "int",
        1,
    ),
}
"""Recurrences in place (`x[i] += x[i - 1]`, the term the element's own value) and one element
on (`x[i + 1] = x[i] + count[i]`): the running value starts from the element before the first
iteration's (`x[first + offset - 1]`), and only the iteration's own element is read."""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_IN_PLACE_SCANS))
def test_an_in_place_or_shifted_recurrence_kernel_gives_the_sequential_values(
    case: str, tmp_path: Path
) -> None:
    source, kind, counts = _IN_PLACE_SCANS[case]
    signature = (
        f"__global__ void f(const {kind} *count, {kind} *x, size_t N)"
        if counts
        else f"__global__ void f({kind} *x, size_t N)"
    )
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    assert "pf_cuda_block_scan" in written
    call = "f(count, want)" if counts else "f(want)"
    launch = "pf_gpu::f(count.data(), got.data(), n)" if counts else "pf_gpu::f(got.data(), n)"
    check = f"""
int main() {{
    for (size_t n : {{1, 2, 9, 5000}}) {{
        std::vector<{kind}> count(n), want(n + 1);
        for (size_t i = 0; i < n; i++) count[i] = ({kind})((i * 7919 % 7) % 3);
        for (size_t i = 0; i <= n; i++) want[i] = ({kind})((i * 7919 % 5) % 3 + 3 - i % 2);
        if (!{counts}) want.pop_back();
        const std::vector<{kind}> start = want;
        {call};
        for (auto &shape : PF_SHAPES) {{
            for (int twice = 0; twice < 2; twice++) {{
                std::vector<{kind}> got = start;
                pf_launch(shape[0], shape[1], [&] {{ {launch}; }});
                if (got != want) return 1;
            }}
        }}
    }}
    return 0;
}}
"""
    _emulate(source, written, check, tmp_path)
    _emulate(source, written, check, tmp_path, concurrent=True)


_RETURNED_SCANS = {
    "a compaction returning its count": (
        "size_t f(std::vector<int> const &x, std::vector<int> &y) {\n  size_t k = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n    if (x[i] % 3 != 0) y[k++] = x[i] * 2;\n"
        "  }\n  return k;\n}\n",
        "size_t",
    ),
    "packed from a count of three, in an else after a continue": (
        "int f(std::vector<int> const &x, std::vector<int> &y) {\n  int k = 3;\n"
        "  for (int i = 0; i < (int)x.size(); i++) {\n    int v = x[i] - 1;\n"
        "    if (v > 400) continue;\n    if (v < -300) {\n    } else {\n"
        "      y[k] = v;\n      ++k;\n    }\n  }\n  return k;\n}\n",
        "int",
    ),
    "a compaction that returns nothing": (
        "void f(std::vector<int> const &x, std::vector<int> &y) {\n  long k = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n    if (x[i] & 1) {\n"
        "      y[k] = x[i];\n      k = k + 1;\n    }\n  }\n}\n",
        "void",
    ),
    "an exclusive sum returning its total (row offsets)": (
        "long long f(std::vector<int> const &x, std::vector<int> &y) {\n  long long next = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n    y[i] = (int)next;\n"
        "    next += x[i] & 7;\n  }\n  return next;\n}\n",
        "long long",
    ),
    "a running sum returned beside its values": (
        "int f(std::vector<int> const &x, std::vector<int> &y) {\n  int s = 5;\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n    s += x[i];\n    y[i] = s;\n  }\n"
        "  return s;\n}\n",
        "int",
    ),
}
"""Scans whose running value the function returns (a compaction's count, a running sum's
total: written by the block that ends last, the start where the loop ran no iteration), and
compactions (`if (c) y[k++] = e;`: the tiles' first pass counts with the stores removed)."""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_RETURNED_SCANS))
def test_a_compaction_or_a_returned_running_value_gives_the_sequential_result(
    case: str, tmp_path: Path
) -> None:
    source, kind = _RETURNED_SCANS[case]
    returns = kind != "void"
    signature = "__global__ void f(const int *x, int *y, size_t N" + (
        f", {kind} *out)" if returns else ")"
    )
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    assert "pf_cuda_block_scan" in written
    want_call = f"{kind} want = f(x, wy);" if returns else "f(x, wy);"
    launch = (
        "pf_gpu::f(x.data(), gy.data(), n, &got)"
        if returns
        else "pf_gpu::f(x.data(), gy.data(), n)"
    )
    compare = "if (got != want) return 2;" if returns else ""
    check = f"""
int main() {{
    for (size_t n : {{0, 1, 2, 9, 5000}}) {{
        std::vector<int> x(n), wy(n + 3, -7);
        for (size_t i = 0; i < n; i++) x[i] = (int)((i * 7919) % 1009) - 500;
        {want_call}
        for (auto &shape : PF_SHAPES) {{
            for (int twice = 0; twice < 2; twice++) {{
                std::vector<int> gy(n + 3, -7);
                {kind if returns else "int"} got = 99;
                pf_launch(shape[0], shape[1], [&] {{ {launch}; }});
                if (gy != wy) return 1;
                {compare}
            }}
        }}
    }}
    return 0;
}}
"""
    _emulate(source, written, check, tmp_path)
    _emulate(source, written, check, tmp_path, concurrent=True)
    if shutil.which("nvcc") is not None and case.startswith(("a compaction returning", "an exc")):
        _builds_with_nvcc(written, tmp_path)


@pytest.mark.parametrize(
    ("source", "signature", "why"),
    [
        (  # the library's partial sum in place: no recurrence reads only what it wrote
            "#include <numeric>\nvoid f(std::vector<int> &x) {\n"
            "  std::partial_sum(x.begin(), x.end(), x.begin());\n}\n",
            "__global__ void f(int *x, size_t N)",
            "0 top-level loops",
        ),
        (  # a partial sum into another element type: the library sums in the input's
            "#include <numeric>\n"
            "void f(std::vector<int> const &x, std::vector<long long> &y) {\n"
            "  std::partial_sum(x.begin(), x.end(), y.begin());\n}\n",
            "__global__ void f(const int *x, long long *y, size_t N)",
            "0 top-level loops",
        ),
        (  # an integer running value cuts each step's floating term: a tile's total differs
            "void f(std::vector<int> const &x, std::vector<int> &y) {\n  int s = 0;\n"
            "  for (size_t i = 0; i < x.size(); ++i) {\n    s += x[i] * 0.5;\n    y[i] = s;\n"
            "  }\n}\n",
            "__global__ void f(const int *x, int *y, size_t N)",
            "accumulating floating-point terms",
        ),
        (  # a floating-point product regrouped can overflow where the sequential one does not
            "void f(std::vector<float> const &x, std::vector<float> &y) {\n  float p = 1;\n"
            "  for (size_t i = 0; i < x.size(); ++i) {\n    p *= x[i];\n    y[i] = p;\n  }\n}\n",
            "__global__ void f(const float *x, float *y, size_t N)",
            "floating-point product",
        ),
        (  # the running value returned and also read after the loop
            "int f(std::vector<int> const &x, std::vector<int> &y) {\n  int s = 0;\n"
            "  for (size_t i = 0; i < x.size(); ++i) {\n    s += x[i];\n    y[i] = s;\n  }\n"
            "  return s * 2;\n}\n",
            "__global__ void f(const int *x, int *y, size_t N, int *total)",
            "",
        ),
        (  # a compaction into an array the kernel does not take as a pointer
            "size_t f(std::vector<int> const &x) {\n  std::vector<int> y(x.size());\n"
            "  size_t k = 0;\n  for (size_t i = 0; i < x.size(); ++i) {\n"
            "    if (x[i] > 0) y[k++] = x[i];\n  }\n  return k;\n}\n",
            "__global__ void f(const int *x, size_t N, size_t *count)",
            "",
        ),
        (  # the function's own array has no device copy: an in-place term cannot read it
            "long long f(std::vector<long long> const &x) {\n  long long sum = 0;\n"
            "  std::vector<long long> p(x.size());\n"
            "  for (size_t i = 1; i < x.size(); ++i) {\n    p[i] += p[i - 1];\n"
            "    sum += p[i];\n  }\n  return sum;\n}\n",
            "__global__ void f(const long long *x, size_t N, long long *total)",
            "read as an array",
        ),
        (  # a scan that also sums before its running value: both passes would count it
            "long long f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
            "  long long s = 0, t = 0;\n  for (size_t i = 0; i < x.size(); ++i) {\n"
            "    t += x[i];\n    s += x[i];\n    y[i] = s;\n  }\n  return t;\n}\n",
            "__global__ void f(const long long *x, long long *y, size_t N, long long *total)",
            "",
        ),
        (  # its own array read at the element before: the kernel keeps no array
            "long long f(std::vector<long long> const &x) {\n  long long t = 0;\n"
            "  std::vector<long long> p(x.size());\n  for (size_t i = 0; i < x.size(); ++i) {\n"
            "    if (i == 0) p[i] = x[i]; else p[i] = p[i - 1] + x[i];\n"
            "    if (i > 0) t += p[i - 1];\n  }\n  return t;\n}\n",
            "__global__ void f(const long long *x, size_t N, long long *total)",
            "",
        ),
        (  # the running value read after the loop: it lives in the tiles alone
            "long long f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
            "  long long s = 0, t = 5;\n  for (size_t i = 0; i < x.size(); ++i) {\n"
            "    s += x[i];\n    y[i] = s;\n    t += s;\n  }\n  return t + s;\n}\n",
            "__global__ void f(const long long *x, long long *y, size_t N, long long *total)",
            "reads the scan's s outside its loop",
        ),
        (  # the function's own array read after the loop: the device has no such array
            "double f(std::vector<double> const &x) {\n  double sum = 0;\n"
            "  std::vector<double> p(x.size());\n  for (size_t i = 0; i < x.size(); ++i) {\n"
            "    if (i == 0) p[i] = x[i]; else p[i] = p[i - 1] + x[i];\n    sum += p[i];\n  }\n"
            "  return sum + p[0];\n}\n",
            "__global__ void f(const double *x, size_t N, double *total)",
            "reads the scan's p outside its loop",
        ),
        (  # two folds of the running values: the kernel combines one
            "long long f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
            "  long long s = 0, t = 0, u = 0;\n  for (size_t i = 0; i < x.size(); ++i) {\n"
            "    s += x[i];\n    y[i] = s;\n    t += s;\n    u += 2 * s;\n  }\n"
            "  return t + u;\n}\n",
            "__global__ void f(const long long *x, long long *y, size_t N, long long *total)",
            "",
        ),
    ],
)
def test_what_gets_no_scan_kernel(source: str, signature: str, why: str) -> None:
    with pytest.raises(AnnotationError, match=why or None):
        kernel(source, analyse(source, Language.CPP), "f", signature)


_SCAN_FOLDS = {
    "the sum of a prefix sum in the function's own array": (
        "double f(std::vector<double> const &x) {\n  double sum = 0;\n"
        "  std::vector<double> prefix(x.size());\n  for (size_t i = 0; i < x.size(); ++i) {\n"
        "    if (i == 0) {\n      prefix[i] = x[i];\n    } else {\n"
        "      prefix[i] = prefix[i - 1] + x[i];\n    }\n    sum += prefix[i];\n  }\n"
        "  return sum;\n}\n",
        "__global__ void f(const double *x, size_t N, double *total)",
        "double want = f(x), got = 7;",
        "pf_gpu::f(x.data(), n, &got);",
        "",
    ),
    "a running sum's values summed beside the scan's output": (
        "long long f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
        "  long long s = 0, t = 5;\n  for (size_t i = 0; i < x.size(); ++i) {\n"
        "    s += x[i];\n    y[i] = s;\n    t += s;\n  }\n  return t;\n}\n",
        "__global__ void f(const long long *x, long long *y, size_t N, long long *total)",
        "std::vector<long long> wy(n), gy(n); long long want = f(x, wy), got = 7;",
        "pf_gpu::f(x.data(), gy.data(), n, &got);",
        "if (gy != wy) return 2;\n                std::fill(gy.begin(), gy.end(), -1);",
    ),
    "a prefix sum in the function's own array from its stored first element": (
        "double f(std::vector<double> const &x) {\n  double sum = 0;\n"
        "  std::vector<double> prefix(x.size());\n  prefix[0] = x[0];\n"
        "  for (size_t i = 1; i < x.size(); ++i) {\n    prefix[i] = prefix[i - 1] + x[i];\n"
        "    sum += prefix[i];\n  }\n  return sum;\n}\n",
        "__global__ void f(const double *x, size_t N, double *total)",
        "double want = f(x), got = 7;",
        "pf_gpu::f(x.data(), n, &got);",
        "",
    ),
    "the sum of running sums over the elements by value": (
        "double f(std::vector<double> const &x) {\n  double running = 0, sum = 0;\n"
        "  for (double v : x) {\n    running += v;\n    sum += running;\n  }\n"
        "  return sum;\n}\n",
        "__global__ void f(const double *x, size_t N, double *total)",
        "double want = f(x), got = 7;",
        "pf_gpu::f(x.data(), n, &got);",
        "",
    ),
    "the largest running minimum": (
        "long long f(std::vector<long long> const &x) {\n"
        "  long long m = x[0], best = -1000000;\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n"
        "    m = std::min(m, x[i]);\n    best = std::max(best, m + (long long)i);\n  }\n"
        "  return best;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long *total)",
        "long long want = f(x), got = 7;",
        "pf_gpu::f(x.data(), n, &got);",
        "",
    ),
}
"""Scans whose running values a reduction also folds (sums of prefix sums and the like), two of
them declaring their values in one declaration (`long long s = 0, t = 5;`), one over a
vector's elements by value (written over its indices for the scan's tiles)."""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_SCAN_FOLDS))
def test_a_scan_that_also_folds_gives_the_sequential_result(case: str, tmp_path: Path) -> None:
    """The fold runs in the tiles' second pass only (the first totals the running value), each
    thread from the operator's identity; the scan's tickets and the fold's total are reset by
    the one block that ends last, so a second launch starts clean. Integer-valued inputs: the
    regrouped floating sums are exact."""
    source, signature, call, launch, after = _SCAN_FOLDS[case]
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    assert "pf_cuda_block_scan" in written and written.count("pf_cuda_last_block(&") == 1
    check = f"""
int main() {{
    for (size_t n : {{1, 9, 5000}}) {{
        std::vector<{"double" if "double" in signature else "long long"}> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (i * 7919 % 1000) / 3 - (double)(i % 5) * 2;
        {call}
        for (auto &shape : PF_SHAPES) {{
            for (int twice = 0; twice < 2; twice++) {{
                pf_launch(shape[0], shape[1], [&] {{ {launch} }});
                if (got != want) return 1;
                {after}
                got = 7;
            }}
        }}
    }}
    return 0;
}}
"""
    _emulate("#include <algorithm>\n" + source, written, check, tmp_path)
    _emulate("#include <algorithm>\n" + source, written, check, tmp_path, concurrent=True)


def test_a_declaration_of_several_names_is_one_per_name() -> None:
    """`T a = 1, b = 2;` before a loop is two declarations to the kernel writer (each name
    its start, the result or a copy of its own); a declarator with a pointer or reference of
    its own keeps its declaration whole (its type is not the others')."""
    source = (
        "int f(std::vector<int> const &x) {\n  int s = 0, n = 3;\n  const int a = 1, *p = &a;\n"
        "  for (size_t i = 0; i < x.size(); ++i) s += x[i] * n;\n  return s;\n}\n"
    )
    split, _ = _one_name_per_declaration(source, analyse(source, Language.CPP), "f")
    assert "  int s = 0;\n  int n = 3;\n  const int a = 1, *p = &a;\n" in split
    plain = source.replace("  const int a = 1, *p = &a;\n", "")
    written = kernel(
        plain,
        analyse(plain, Language.CPP),
        "f",
        "__global__ void f(const int *x, size_t N, int *s)",
    )
    assert "int n = 3;" in written


_DIRECTIONS = {
    "a map counting down an int": (
        "void f(std::vector<int> const &x, std::vector<int> &y) {\n"
        "  for (int i = (int)x.size() - 1; i >= 0; --i) y[i] = 3 * x[i] - i;\n}\n",
        "__global__ void f(const int *x, int *y, size_t N)",
        "std::vector<int> want(n, 7), got(n, 7); f(x, want);",
        "pf_gpu::f(x.data(), got.data(), n);",
    ),
    "a sum counting a size_t down to 1": (
        "long long f(std::vector<int> const &x) {\n  long long s = 0;\n"
        "  for (size_t i = x.size(); i > 0; i--) s += (long long)x[i - 1] * (long long)i;\n"
        "  return s;\n}\n",
        "__global__ void f(const int *x, size_t N, long long *s)",
        "long long want = f(x), got = 7;",
        "pf_gpu::f(x.data(), n, &got);",
    ),
    "a histogram counting down by -= 1": (
        "void f(std::vector<int> const &x, std::vector<int> &bins) {\n"
        "  for (long i = (long)x.size() - 1; i >= 0; i -= 1) bins[(x[i] % 4 + 4) % 4]++;\n}\n",
        "__global__ void f(const int *x, size_t N, int *bins)",
        "std::vector<int> want(4, 0), got(4, 0); f(x, want);",
        "pf_gpu::f(x.data(), n, got.data());",
    ),
    "a map up to its bound inclusive": (
        "void f(std::vector<int> const &x, std::vector<int> &y) {\n"
        "  for (size_t i = 1; i <= x.size(); ++i) y[i - 1] = x[i - 1] * (int)i;\n}\n",
        "__global__ void f(const int *x, int *y, size_t N)",
        "std::vector<int> want(n, 7), got(n, 7); f(x, want);",
        "pf_gpu::f(x.data(), got.data(), n);",
    ),
}
"""Loops the writer runs in any order: counting down (signed, and unsigned to the edge of 0,
where more threads than iterations would see a wrapped counter) and up to an inclusive
bound. (source, signature, the check's sequential call, the kernel's call into `got`)"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_DIRECTIONS))
def test_a_loop_counting_down_or_to_its_bound_runs_its_iterations(
    case: str, tmp_path: Path
) -> None:
    source, signature, call, launch = _DIRECTIONS[case]
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    check = f"""
int main() {{
    for (size_t n : {{0, 1, 9, 1000}}) {{
        std::vector<int> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (int)(i * 7919 % 1000) - 500;
        {call}
        for (auto &shape : PF_SHAPES) {{
            pf_launch(shape[0], shape[1], [&] {{ {launch} }});
            if (got != want) return 1;
            {"got = 7;" if "long long want" in call else "std::fill(got.begin(), got.end(), want.size() == 4 ? 0 : 7);"}
        }}
    }}
    return 0;
}}
"""
    _emulate(source, written, check, tmp_path)


@pytest.mark.parametrize(
    "source",
    [
        # the first match counting down is the last index: a min over indices would not be
        "long long f(std::vector<int> const &x) {\n"
        "  for (long long i = (long long)x.size() - 1; i >= 0; --i) if (x[i] < 0) return i;\n"
        "  return -1;\n}\n",
        # the last assignment counting down is the smallest index
        "size_t f(std::vector<int> const &x) {\n  size_t at = 0;\n"
        "  for (size_t i = x.size(); i > 0; --i) if (x[i - 1] < 0) at = i;\n  return at;\n}\n",
    ],
)
def test_a_loop_counting_down_keeps_no_order_dependent_result(source: str) -> None:
    with pytest.raises(AnnotationError, match=r"order|does not prove"):
        kernel(
            source,
            analyse(source, Language.CPP),
            "f",
            "__global__ void f(const int *x, size_t N, long long *out)",
        )


_SPELLINGS = {
    "a counter whose first value its type wraps (`unsigned char c = 260` starts at 4)": (
        "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
        "  for (unsigned char c = 260; c < x.size() / 8; ++c) y[c] = x[c] * 3;\n}\n",
        "__global__ void f(const long long *x, long long *y, size_t N)",
        "std::vector<long long> want(n, 5), got; f(x, want);",
        "got.assign(n, 5);",
        "pf_gpu::f(x.data(), got.data(), n);",
    ),
    "an outer loop's step reading an element its store then zeroes": (
        "void f(std::vector<long long> &x, std::vector<long long> &y) {\n"
        "  for (size_t k = 0; k < 4; ++k) {\n"
        "    long long p = x[k % x.size()];\n    x[k % x.size()] = 0;\n"
        "    for (size_t j = 0; j < x.size(); ++j) y[j] = y[j] + p * (long long)j;\n  }\n}\n",
        "__global__ void f(long long *x, long long *y, size_t N)",
        "std::vector<long long> xs = x, want(n, 5), xg, got; f(xs, want);",
        "xg = x; got.assign(n, 5);",
        "pf_gpu::f(xg.data(), got.data(), n);",
    ),
    "sums by key in an unordered map, read back for each element": (
        "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
        "  std::unordered_map<long long, long long> total;\n"
        "  for (auto v : x) total[v % 7] += v;\n"
        "  for (size_t i = 0; i < x.size(); ++i) y[i] = total[x[i] % 7] - x[i];\n}\n",
        "__global__ void f(const long long *x, long long *y, size_t N)",
        "std::vector<long long> want(n, 5), got; f(x, want);",
        "got.assign(n, 5);",
        "pf_gpu::f(x.data(), got.data(), n);",
    ),
    "an output cleared and resized with a value, then partly written": (
        "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
        "  y.clear();\n  y.resize(x.size(), -1);\n"
        "  for (size_t i = 1; i < x.size(); ++i) y[i] = x[i] + x[i - 1];\n}\n",
        "__global__ void f(const long long *x, long long *y, size_t N)",
        "std::vector<long long> want(n, 5), got; f(x, want);",
        "got.assign(n, 5);",
        "pf_gpu::f(x.data(), got.data(), n);",
    ),
    "an outer loop's two loops in turn, an element stored between them": (
        "void f(std::vector<long long> &x, std::vector<long long> &y) {\n"
        "  for (int t = 0; t < 3; ++t) {\n"
        "    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] + x[(i + 1) % x.size()];\n"
        "    y[0] = y[0] * 2 + t;\n"
        "    long long shift = t * 3;\n"
        "    for (size_t i = 0; i < x.size(); ++i) x[i] = y[i] - y[0] + shift;\n  }\n}\n",
        "__global__ void f(long long *x, long long *y, size_t N)",
        "std::vector<long long> xs = x, want(n, 5), xg, got; f(xs, want);",
        "xg = x; got.assign(n, 5);",
        "pf_gpu::f(xg.data(), got.data(), n);",
    ),
    "a three-point stencil through a helper lambda that reads 0 past the ends": (
        "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
        "  auto at = [&](long i) -> long long {\n"
        "    if (i < 0) return 0;\n    if (i >= (long)x.size()) return 0;\n    return x[i];\n  };\n"
        "  for (long i = 0; i < (long)x.size(); ++i) y[i] = at(i - 1) + 2 * at(i) - at(i + 1);\n}\n",
        "__global__ void f(const long long *x, long long *y, size_t N)",
        "std::vector<long long> want(n, 5), got; f(x, want);",
        "got.assign(n, 5);",
        "pf_gpu::f(x.data(), got.data(), n);",
    ),
    "rows scaled through a helper returning a reference to the element": (
        "void f(std::vector<long long> &x) {\n  const size_t w = 3;\n"
        "  auto el = [&](size_t r, size_t c) -> long long & { return x[r * w + c]; };\n"
        "  for (size_t r = 0; r < x.size() / w; ++r)\n"
        "    for (size_t c = 0; c < w; ++c) el(r, c) = el(r, c) * (long long)(r + 1) - (long long)c;\n}\n",
        "__global__ void f(long long *x, size_t N)",
        "std::vector<long long> want = x, got; f(want);",
        "got = x;",
        "pf_gpu::f(got.data(), n);",
    ),
    "a sum of a helper that captures an unchanged local by value": (
        "long long f(std::vector<long long> const &x) {\n  const long long shift = 3;\n"
        "  auto g = [=](long long v) { return (v + shift) * (v - shift); };\n  long long t = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i) t += g(x[i]);\n  return t;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long *t)",
        "long long want = f(x), got = 7;",
        "got = 7;",
        "pf_gpu::f(x.data(), n, &got);",
    ),
    "an in-place map bounded by a local size": (
        "void f(std::vector<long long> &x) {\n  int n = x.size();\n"
        "  for (int i = 0; i < n; i++) x[i] = x[i] < 0 ? -x[i] : 2 * x[i];\n}\n",
        "__global__ void f(long long *x, size_t N)",
        "std::vector<long long> want = x, got; f(want);",
        "got = x;",
        "pf_gpu::f(got.data(), n);",
    ),
    "the library's size and integer types": (
        "long long f(std::vector<long long> const &x) {\n  long long t = 0;\n"
        "  for (std::size_t i = 0; i < x.size(); ++i) {\n"
        "    std::int64_t k = (std::int64_t)i % 3;\n    t += x[i] * k;\n  }\n  return t;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long *t)",
        "long long want = f(x), got = 7;",
        "got = 7;",
        "pf_gpu::f(x.data(), n, &got);",
    ),
    "a vector's size_type counter, an empty guard": (
        "void f(const std::vector<long long> &x, std::vector<long long> &y) {\n"
        "  if (x.empty()) return;\n"
        "  for (std::vector<long long>::size_type i = 0; i < x.size(); ++i) y[i] = x[i] + 1;\n}\n",
        "__global__ void f(const long long *x, long long *y, size_t N)",
        "std::vector<long long> want(n, 5), got; f(x, want);",
        "got.assign(n, 5);",
        "pf_gpu::f(x.data(), got.data(), n);",
    ),
    "a const std::size_t alias of the size and a guard on it": (
        "long long f(std::vector<long long> const &x) {\n  const std::size_t n = x.size();\n"
        "  if (n < 2) return 0;\n  long long best = LLONG_MAX;\n"
        "  for (std::size_t i = 1; i < n; i++) {\n    long long d = x[i] - x[i - 1];\n"
        "    best = d < best ? d : best;\n  }\n  return best;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long *best)",
        "long long want = f(x), got = 7;",
        "got = 7;",
        "pf_gpu::f(x.data(), n, &got);",
    ),
    "an auto alias of the size and an output resized by it": (
        "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
        "  auto n = x.size();\n  y.resize(n);\n"
        "  for (size_t i = 0; i < n; ++i) y[i] = 3 * x[i] - (long long)(n - i);\n}\n",
        "__global__ void f(const long long *x, long long *y, size_t N)",
        "std::vector<long long> want, got; f(x, want);",
        "got.assign(n, 5);",
        "pf_gpu::f(x.data(), got.data(), n);",
    ),
    "an auto result starting from the library's largest value": (
        "long long f(std::vector<long long> const &x) {\n"
        "  auto best = std::numeric_limits<long long>::max();\n"
        "  for (size_t i = 0; i < x.size(); ++i) if (x[i] * 3 < best) best = x[i] * 3;\n"
        "  return best;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long *best)",
        "long long want = f(x), got = 7;",
        "got = 7;",
        "pf_gpu::f(x.data(), n, &got);",
    ),
    "a map clamped by the library": (
        "void f(std::vector<long long> &x) {\n"
        "  for (size_t i = 0; i < x.size(); ++i) x[i] = std::clamp(x[i] * 3, -100LL, 200LL);\n}\n",
        "__global__ void f(long long *x, size_t N)",
        "std::vector<long long> want = x, got; f(want);",
        "got = x;",
        "pf_gpu::f(got.data(), n);",
    ),
    "a running minimum written through the elements by reference": (
        "void f(std::vector<long long> &x) {\n  long long cur = LLONG_MAX;\n"
        "  for (auto &v : x) {\n    cur = std::min(cur, v);\n    v = cur;\n  }\n}\n",
        "__global__ void f(long long *x, size_t N)",
        "std::vector<long long> want = x, got; f(want);",
        "got = x;",
        "pf_gpu::f(got.data(), n);",
    ),
    "a local named as the kernel's size and an output resized by it": (
        "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
        "  int N = x.size();\n  y.resize(N);\n"
        "  for (int i = 0; i < N; i++) y[i] = x[N - 1 - i];\n}\n",
        "__global__ void f(const long long *x, long long *y, size_t N)",
        "std::vector<long long> want, got; f(x, want);",
        "got.assign(n, 5);",
        "pf_gpu::f(x.data(), got.data(), n);",
    ),
}
"""Ordinary C++ spellings: a size taken before an in-place loop (writing elements changes no
size), the library's `std::size_t`/`std::int64_t` and a vector's `size_type` (the device's
`size_t` and `int64_t`), a size kept under another name (`const std::size_t n`, `auto n`, the
kernel's own `N`) and an output resized to it (the driver allocated it at that size), an `auto`
result whose start says its type, a running value written through a loop's elements by reference
(the loop written over the vector's indices, each use of the element's name its element)."""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_SPELLINGS))
def test_ordinary_spellings_get_a_kernel(case: str, tmp_path: Path) -> None:
    source, signature, call, reset, launch = _SPELLINGS[case]
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    assert "std::" not in written.split("__global__ void f(")[1]
    check = f"""
int main() {{
    for (size_t n : {{1, 9, 1000}}) {{
        std::vector<long long> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (long long)(i * 7919 % 1000) - 500;
        {call}
        for (auto &shape : PF_SHAPES) {{
            {reset}
            pf_launch(shape[0], shape[1], [&] {{ {launch} }});
            if (got != want) return 1;
        }}
    }}
    return 0;
}}
"""
    _emulate("#include <algorithm>\n#include <cstdint>\n" + source, written, check, tmp_path)
    if shutil.which("nvcc") is not None:
        _builds_with_nvcc(written, tmp_path)


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (  # a capture by value of a name changed after: the call reads the copy, inline would not
            "long long f(std::vector<long long> const &x) {\n  long long s = 1;\n"
            "  auto g = [=](long long v) { return v * s; };\n  s = 2;\n  long long t = 0;\n"
            "  for (size_t i = 0; i < x.size(); ++i) t += g(x[i]);\n  return t;\n}\n",
            "calls g",
        ),
        (  # the helper reads a name a loop declares again: inside it, inline would read that one
            "long long f(std::vector<long long> const &x) {\n  long long s = 1;\n"
            "  auto g = [&](long long v) { return v * s; };\n  long long t = 0;\n"
            "  for (size_t i = 0; i < x.size(); ++i) {\n    long long s = 3;\n"
            "    t += g(x[i]) + s;\n  }\n  return t;\n}\n",
            "calls g",
        ),
        (  # a helper that assigns: more than a value
            "long long f(std::vector<long long> const &x) {\n  long long c = 0;\n"
            "  auto g = [&](long long v) { c = v; return v; };\n  long long t = 0;\n"
            "  for (size_t i = 0; i < x.size(); ++i) t += g(x[i]);\n  return t + c;\n}\n",
            "calls g",
        ),
        (  # an argument with an effect, read twice inline: evaluated once by the call
            "long long f(std::vector<long long> const &x) {\n  size_t k = 0;\n"
            "  auto g = [](long long v) { return v * v; };\n  long long t = 0;\n"
            "  for (size_t i = 0; i < x.size(); ++i) t += g(x[k++]);\n  return t;\n}\n",
            "does not prove",
        ),
    ],
)
def test_a_helper_lambda_that_is_not_its_value_stays_a_call(source: str, why: str) -> None:
    lowered, _ = as_loops(source, analyse(source, Language.CPP), "f")
    assert "auto g = [" in lowered and "g(x[" in lowered
    with pytest.raises(AnnotationError, match=why):
        kernel(
            source,
            analyse(source, Language.CPP),
            "f",
            "__global__ void f(const long long *x, size_t N, long long *t)",
        )


@pytest.mark.parametrize(
    ("source", "kept"),
    [
        (  # a copy by value of a vector whose element is written after: the copy is older
            "double f(std::vector<double> v) {\n  auto g = [=](int i) { return v[i]; };\n"
            "  v[0] = 42;\n  return g(0);\n}\n",
            "g(0)",
        ),
        (  # a call inside another lambda that copies: there the helper's names are copies
            "int f(int n) {\n  auto g = [&](int i) { return i + n; };\n"
            "  auto h = [=](int j) { return g(j); };\n  n = 5;\n  return h(1);\n}\n",
            "g(j)",
        ),
        (  # a call before the helper is declared is another function's
            "int g(int i) { return 2 * i; }\n"
            "int f(int k) {\n  int a = g(k);\n  auto g = [](int i) { return i + 1; };\n"
            "  return a + g(k);\n}\n",
            "int a = g(k);",
        ),
        (  # a value returned by copy, bound to a reference: the element would change under it
            "double f(std::vector<double> x) {\n  auto g = [&](int i) { return x[i]; };\n"
            "  const double &r = g(0);\n  x[0] = 5;\n  return r;\n}\n",
            "g(0)",
        ),
    ],
)
def test_a_helper_lambda_is_written_out_only_where_that_is_its_value(
    source: str, kept: str
) -> None:
    lowered, _ = as_loops(source, analyse(source, Language.CPP), "f")
    assert kept in lowered, lowered


def test_each_value_a_helper_returns_is_converted_to_its_declared_type() -> None:
    """`if (i < 0) return -1; return n;` with `n` unsigned: a conditional of the two would be
    unsigned (-1 as 4294967295); each `return` converts its own value to `long long`."""
    source = (
        "long long f(unsigned n, int k) {\n"
        "  auto g = [&](int i) -> long long { if (i < 0) return -1; return n; };\n"
        "  return g(k);\n}\n"
    )
    lowered, _ = as_loops(source, analyse(source, Language.CPP), "f")
    assert "((long long)(-1))" in lowered and "((long long)(n))" in lowered, lowered


def test_what_order_spellings_leave_as_they_are() -> None:
    # a stable sort of ints by float order: distinct ints may be equal floats
    by_float = "void f(std::vector<int> &x) {\n  std::stable_sort(x.begin(), x.end(), std::less<float>());\n}\n"
    with pytest.raises(AnnotationError, match="sorts stably"):
        kernel(
            by_float, analyse(by_float, Language.CPP), "f", "__global__ void f(int *x, size_t N)"
        )
    # a vector reached through a pointer: no crash, nothing to read
    pointed = (
        "double f(std::vector<double> *p, int m) {\n"
        "  std::nth_element((*p).begin(), (*p).begin() + m, (*p).end());\n  return (*p)[m];\n}\n"
    )
    with pytest.raises(AnnotationError):
        kernel(
            pointed,
            analyse(pointed, Language.CPP),
            "f",
            "__global__ void f(const double *p, int m, size_t N, double *out)",
        )
    # an index returned as `auto`: the library's type is the result's, a size_t would change it
    deduced = (
        "auto f(std::vector<int> const &x) {\n"
        "  return std::distance(x.begin(), std::min_element(x.begin(), x.end()));\n}\n"
    )
    lowered, _ = as_loops(deduced, analyse(deduced, Language.CPP), "f")
    assert "std::min_element" in lowered


def test_a_loop_reading_what_it_writes_before_it_gets_no_kernel() -> None:
    """Taking a size is not reading elements, but `x[0]` before an in-place loop is: another
    thread may have written it."""
    source = (
        "void f(std::vector<double> &x) {\n  double a = x[0];\n"
        "  for (size_t i = 0; i < x.size(); i++) x[i] = x[i] * a;\n}\n"
    )
    with pytest.raises(AnnotationError, match="reads an array the loop writes"):
        kernel(source, analyse(source, Language.CPP), "f", "__global__ void f(double *x, size_t N)")


# Standard algorithms a function returns, run as the loop they stand for: (source, kernel
# signature, the check's call of the sequential function and of the kernel into `got`).
_ALGORITHMS = {
    "find compared equal: not found": (
        "bool f(std::vector<long long> const &x, long long v) {\n"
        "  return std::find(x.begin(), x.end(), v) == x.end();\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, bool *out)",
        "bool",
    ),
    "count of a value": (
        "int f(std::vector<long long> const &x, long long v) {\n"
        "  return (std::count(x.begin(), x.end(), v));\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, int *out)",
        "int",
    ),
    "two counts in one expression": (
        "int f(std::vector<long long> const &x, long long v) {\n"
        "  return std::count(x.begin(), x.end(), v) - 2 * std::count(x.begin(), x.end(), -20LL);\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, int *out)",
        "int",
    ),
    "a find and a sum, both taken": (
        "bool f(std::vector<long long> const &x, long long v) {\n"
        "  return (std::find(x.begin(), x.end(), v) == x.end()) || std::accumulate(x.begin(), x.end(), v) > 9000;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, bool *out)",
        "bool",
    ),
    "count_if with a lambda reading a parameter": (
        "int f(std::vector<long long> const &x, long long v) {\n"
        "  return std::count_if(x.begin(), x.end(), [&](const long long &e) { return e % 3 == 0 || e > v; });\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, int *out)",
        "int",
    ),
    "the largest element, and the smallest": (
        "long long f(std::vector<long long> const &x, long long v) {\n"
        "  return *std::max_element(x.begin(), x.end()) * 1000 + *std::min_element(x.begin(), x.end()) - v;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, long long *out)",
        "long long",
    ),
    "any_of, all_of and none_of, iterators spelled three ways": (
        "bool f(std::vector<long long> const &x, long long v) {\n"
        "  return std::any_of(x.cbegin(), x.cend(), [v](long long e) { return e == v; }) !=\n"
        "         std::all_of(std::begin(x), std::end(x), [](long long e) { return e > -20; }) ||\n"
        "         std::none_of(x.begin(), x.end(), [](long long e) { return e > 78; });\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, bool *out)",
        "bool",
    ),
    "a sum, cast, over the size": (
        "long long f(std::vector<long long> const &x, long long v) {\n"
        "  return static_cast<long long>(std::accumulate(x.begin(), x.end(), v)) / (long long)x.size();\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, long long *out)",
        "long long",
    ),
    "the first index a find_if meets, by distance": (
        "size_t f(std::vector<long long> const &x, long long v) {\n"
        "  auto it = std::find_if(x.begin(), x.end(), [&](long long e) { return e >= v; });\n"
        "  return std::distance(x.begin(), it);\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, size_t *out)",
        "size_t",
        "n",  # a first-index search's result starts at the size, as the drivers start it
    ),
    "a checked element read and a functional cast in a loop": (
        "long long f(std::vector<long long> const &x, long long v) {\n"
        "  long long s = v;\n"
        "  for (size_t i = 0; i < x.size(); ++i) s += x.at(i) * 2 + int(x[i] / 3);\n"
        "  return s;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, long long *out)",
        "long long",
    ),
    "inner products, plain and with a pair's lambda": (
        "long long f(std::vector<long long> const &x, long long v) {\n"
        "  return std::inner_product(x.begin(), x.end(), x.begin(), v) - std::inner_product(\n"
        "      x.begin(), x.end(), x.begin(), 0LL, std::plus<long long>(),\n"
        "      [](long long a, long long b) { return std::min(a, b + 1); });\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, long long *out)",
        "long long",
    ),
    "the parity of a count, counted in long long and written as a truth value": (
        "bool f(std::vector<long long> const &x, long long v) {\n"
        "  return std::count(x.begin(), x.end(), v) % 2 == 1;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, bool *out)",
        "bool",
    ),
    "a double sum written to an int result once": (
        "int f(std::vector<long long> const &x, long long v) {\n  double s = v;\n"
        "  for (size_t i = 0; i < x.size(); ++i) s += x[i] * 0.5;\n  return s;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, int *out)",
        "int",
    ),
    "a first-index search spelled as a while loop": (
        "size_t f(std::vector<long long> const &x, long long v) {\n  size_t i = 0;\n"
        "  while (i < x.size() && x[i] < v) {\n    ++i;\n  }\n  return i;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, size_t *out)",
        "size_t",
        "n",
    ),
    "a count over the first half, to begin plus an offset": (
        "int f(std::vector<long long> const &x, long long v) {\n"
        "  return static_cast<int>(std::count(x.begin(), x.begin() + x.size() / 2, v));\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, int *out)",
        "int",
    ),
    "counts over the rows of a flattened matrix, the largest kept": (
        "long long f(std::vector<long long> const &x, long long v) {\n"
        "  size_t rows = x.size() / 7;\n  long long best = -1;\n"
        "  for (size_t i = 0; i < rows; ++i) {\n"
        "    long long c = std::count(x.begin() + i * 7, x.begin() + (i + 1) * 7, v);\n"
        "    best = std::max(best, c);\n  }\n  return best;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, long long *out)",
        "long long",
    ),
    "an argmin kept by its index alone": (
        "size_t f(std::vector<long long> const &x, long long v) {\n  size_t best = 0;\n"
        "  for (size_t i = 1; i < x.size(); ++i) {\n"
        "    if (std::abs(x[i] - v) < std::abs(x[best] - v)) best = i;\n  }\n"
        "  return best;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, size_t *out)",
        "size_t",
    ),
    "the last argmax by index, in floating point, the kept side first": (
        "size_t f(std::vector<long long> const &x, long long v) {\n  size_t at = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i)\n"
        "    if (x[at] * 0.5 - v <= x[i] * 0.5 - v) at = i;\n"
        "  return at;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, size_t *out)",
        "size_t",
    ),
    "a search returning true from its range loop": (
        "bool f(std::vector<long long> const &x, long long v) {\n"
        "  for (long long e : x) {\n    if (e == v) return true;\n  }\n  return false;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, bool *out)",
        "bool",
    ),
    "a search returning false from an indexed loop, after a declaration": (
        "bool f(std::vector<long long> const &x, long long v) {\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n    const long long h = x[i] / 2;\n"
        "    if (h * 2 == v || h > 35)\n      return false;\n  }\n  return true;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, bool *out)",
        "bool",
    ),
    "two flags set and broken out of, one from false and one from true": (
        "bool f(std::vector<long long> const &x, long long v) {\n"
        "  bool inX = false, inY = true;\n"
        "  for (long long e : x) {\n    if (e == v) { inX = true; break; }\n  }\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n    const long long h = x[i] / 2;\n"
        "    if (h > 30) {\n      inY = false;\n      break;\n    }\n  }\n"
        "  return inX != inY;\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, bool *out)",
        "bool",
    ),
    "the index of the element closest to v, by a comparison that captures it": (
        "size_t f(std::vector<long long> const &x, long long v) {\n"
        "  return std::distance(x.begin(), std::min_element(x.begin(), x.end(),\n"
        "      [v](long long a, long long b) { return std::abs(a - v) < std::abs(b - v); }));\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, size_t *out)",
        "size_t",
    ),
    "the first largest's index, through a named iterator": (
        "size_t f(std::vector<long long> const &x, long long v) {\n"
        "  auto it = std::max_element(x.begin(), x.end());\n  return it - x.begin();\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, size_t *out)",
        "size_t",
    ),
    "the last largest last digit, by a comparison that is not strict": (
        "long f(std::vector<long long> const &x, long long v) {\n"
        "  auto at = std::max_element(x.begin(), x.end(), [](long long a, long long b) {\n"
        "    return (a + 100) % 10 <= (b + 100) % 10;\n  });\n"
        "  return std::distance(x.begin(), at);\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, long *out)",
        "long",
    ),
    "a largest's index by a comparison capturing the local declared before the return": (
        "size_t f(std::vector<long long> const &x, long long v) {\n  const long long w = v;\n"
        "  return std::distance(x.begin(), std::max_element(x.begin(), x.end(),\n"
        "      [w](long long a, long long b) { return a < b; }));\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, size_t *out)",
        "size_t",
    ),
    "accumulate from a long long start": (
        "long long f(std::vector<long long> const &x, long long v) {\n"
        "  return std::accumulate(x.begin(), x.end(), v);\n}\n",
        "__global__ void f(const long long *x, size_t N, long long v, long long *out)",
        "long long",
    ),
}


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_ALGORITHMS))
def test_a_returned_algorithm_runs_as_its_loop_under_every_launch_shape(
    case: str, tmp_path: Path
) -> None:
    source, signature, kind, *start = _ALGORITHMS[case]
    headers = "#include <algorithm>\n#include <numeric>\n"
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    check = f"""
int main() {{
    for (size_t n : {{1, 7, 1000}}) {{
        std::vector<long long> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (long long)(i * 7919 % 100) - 20;
        for (long long v : {{x[n - 1], 500LL}}) {{
            {kind} want = f(x, v);
            for (auto &shape : PF_SHAPES) {{
                {kind} got = ({kind})({start[0] if start else 12345});
                pf_launch(shape[0], shape[1], [&] {{ pf_gpu::f(x.data(), n, v, &got); }});
                if (got != want) return 1;
            }}
        }}
    }}
    return 0;
}}
"""
    _emulate(headers + source, written, check, tmp_path)


def test_a_search_whose_counter_outlives_it_keeps_its_break() -> None:
    """A flag search whose counter is declared outside the loop: after the `break` the counter
    holds the match's index, which a reduction over every iteration would not; the loop is
    left as it is (and the kernel writer refuses its early exit)."""
    from agents.analysis.kernels import as_loops

    source = (
        "bool f(std::vector<int> const &x, int v) {\n  bool found = false;\n  size_t i;\n"
        "  for (i = 0; i < x.size(); ++i) {\n    if (x[i] == v) { found = true; break; }\n  }\n"
        "  return found && i > 2;\n}\n"
    )
    lowered, _ = as_loops(source, analyse(source, Language.CPP), "f")
    assert "|=" not in lowered and "break;" in lowered


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (  # a step before the test with an effect: it would run after the first match too
            "bool f(std::vector<int> const &x, int v) {\n  int seen = 0;\n"
            "  for (int e : x) {\n    int w = seen++;\n    if (e == v + w) return true;\n  }\n"
            "  return false;\n}\n",
            "does not prove",
        ),
        (  # the flag read by the loop's test: the loop depends on what it set
            "bool f(std::vector<int> const &x, int v) {\n  bool found = false;\n"
            "  for (int e : x) {\n    if (e == v && !found) { found = true; break; }\n  }\n"
            "  return found;\n}\n",
            "does not prove",
        ),
        (  # the same value either way: no search (and so no rewrite)
            "bool f(std::vector<int> const &x, int v) {\n"
            "  for (int e : x) {\n    if (e == v) return true;\n  }\n  return true;\n}\n",
            "does not prove",
        ),
        (  # a value that is not a truth value
            "int f(std::vector<int> const &x, int v) {\n"
            "  for (int e : x) {\n    if (e == v) return 3;\n  }\n  return 0;\n}\n",
            "does not prove",
        ),
        (  # a second way out of the loop
            "bool f(std::vector<int> const &x, int v) {\n"
            "  for (int e : x) {\n    if (e < 0) break;\n    if (e == v) return true;\n  }\n"
            "  return false;\n}\n",
            "does not prove",
        ),
        (  # a while loop's body doing more than step: no search
            "bool f(std::vector<int> const &x, int v) {\n  size_t i = 0;\n  int s = 0;\n"
            "  while (i < x.size() && x[i] != v) {\n    s += x[i];\n    ++i;\n  }\n"
            "  return i;\n}\n",
            "0 top-level loops",
        ),
        (  # a while loop to a bound that may lie below its start
            "bool f(std::vector<int> const &x, int v) {\n  int i = 0;\n"
            "  while (i < v && x[i] != 3) ++i;\n  return i;\n}\n",
            "0 top-level loops",
        ),
        (  # an index argmin whose index the loop also reads: not the best update alone
            "bool f(std::vector<int> const &x, int v) {\n  size_t best = 0;\n  long s = 0;\n"
            "  for (size_t i = 1; i < x.size(); ++i) {\n    if (x[i] < x[best]) best = i;\n"
            "    s += best;\n  }\n  return s > v;\n}\n",
            "does not prove",
        ),
        (  # an index argmin over a struct's member: the member's type is not read here
            "struct P { double d; };\nbool f(std::vector<P> const &x, int v) {\n  size_t best = 0;\n"
            "  for (size_t i = 1; i < x.size(); ++i) if (x[i].d < x[best].d) best = i;\n"
            "  return best == (size_t)v;\n}\n",
            "does not prove",
        ),
        (  # a flag set to the value it starts from
            "bool f(std::vector<int> const &x, int v) {\n  bool found = true;\n"
            "  for (int e : x) {\n    if (e == v) { found = true; break; }\n  }\n"
            "  return found;\n}\n",
            "does not prove",
        ),
    ],
)
def test_what_search_gets_no_flag(source: str, why: str) -> None:
    """Searches `_exits_as_flags` leaves as they are: the loop then gets no kernel."""
    with pytest.raises(AnnotationError, match=why):
        kernel(
            source,
            analyse(source, Language.CPP),
            "f",
            "__global__ void f(const int *x, size_t N, int v, bool *out)",
        )


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (  # the library sums doubles in an int from `0`, cutting each step
            "int f(std::vector<double> const &x) {\n"
            "  return std::accumulate(x.begin(), x.end(), 0);\n}\n",
            "cutting every step",
        ),
        (  # an algorithm beside a call the device lacks: nothing is lowered
            "long f(std::vector<int> const &x) {\n"
            "  return std::count(x.begin(), x.end(), 3) + random();\n}\n",
            "0 top-level loops",
        ),
        (  # a predicate of two statements: no one expression to count
            "long f(std::vector<int> const &x) {\n"
            "  return std::count_if(x.begin(), x.end(), [](int e) { int h = e / 2; return h > 3; });\n}\n",
            "0 top-level loops",
        ),
        (  # a smallest element's position by a comparison of two statements: no one test
            "long f(std::vector<int> const &x) {\n"
            "  return std::min_element(x.begin(), x.end(), [](int a, int b) {\n"
            "    int d = a - b;\n    return d < 0;\n  }) - x.begin();\n}\n",
            "0 top-level loops",
        ),
        (  # a part of the vector whose bound has an effect: evaluated once by the library
            "int f(std::vector<double> const &x) {\n  int k = 0;\n"
            "  return std::count(x.begin() + k++, x.end(), 3.0);\n}\n",
            "0 top-level loops",
        ),
        (  # a part ending at an offset from the end: not a span the writer reads
            "int f(std::vector<double> const &x) {\n"
            "  return std::count(x.begin(), x.end() - 1, 3.0);\n}\n",
            "0 top-level loops",
        ),
        (  # a find returned as an iterator is no result a kernel writes
            "bool f(std::vector<int> const &x, std::vector<int> const &y) {\n"
            "  return std::find(x.begin(), y.end(), 3) != x.end();\n}\n",
            "0 top-level loops",
        ),
    ],
)
def test_what_algorithm_gets_no_kernel(source: str, why: str) -> None:
    with pytest.raises(AnnotationError, match=why):
        kernel(
            source,
            analyse(source, Language.CPP),
            "f",
            "__global__ void f(const double *x, size_t N, int *out)",
        )


# Loops in turn where a reduction's total feeds the loops after it and the return: (source,
# kernel signature, the check's `main` body per size `n` over `x`, comparing `got` and `want`).
_COMPLEX_MAP = """
void f(std::vector<std::complex<double>> const &x, std::vector<std::complex<double>> &y) {
    for (size_t i = 0; i < x.size(); ++i) {
        std::complex<double> z = std::conj(x[i]) * 2.0 + std::polar(1.5, 0.25 * i) / x[i];
        z -= std::complex<double>(std::norm(x[i]), std::arg(x[i])) * x[i].real();
        z /= 3.0;
        z += std::exp(x[i] / 8.0) - 1.0 + std::abs(z) * std::complex<double>(0, x[i].imag());
        y[i] = -z * z + std::real(z) - std::imag(x[i]) / (1.0 + z * z);
    }
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_complex_map_computes_what_the_library_does(tmp_path: Path) -> None:
    """`std::complex` on the device is the kernel's own type, under the driver's
    `cuDoubleComplex` pointers: its operators and functions give the library's values."""
    signature = "__global__ void f(const cuDoubleComplex *x, cuDoubleComplex *y, size_t N)"
    written = kernel(_COMPLEX_MAP, analyse(_COMPLEX_MAP, Language.CPP), "f", signature)
    check = """
int main() {
    size_t n = 200;
    std::vector<std::complex<double>> x(n), want(n), got(n);
    for (size_t i = 0; i < n; i++) x[i] = {(double)(i % 17) - 8.5, (double)(i % 5) - 2.25};
    f(x, want);
    for (auto &shape : PF_SHAPES) {
        pf_launch(shape[0], shape[1], [&] {
            pf_gpu::f(reinterpret_cast<const cuDoubleComplex *>(x.data()), reinterpret_cast<cuDoubleComplex *>(got.data()), n);
        });
        for (size_t i = 0; i < n; i++)
            if (std::abs(got[i] - want[i]) > 1e-12 * (1.0 + std::abs(want[i]))) return 1;
    }
    return 0;
}
"""
    _emulate(_COMPLEX_MAP, written, check, tmp_path)


_SORTS = {
    "ints in their own order": (
        "void f(std::vector<int> &x) {\n  std::sort(x.begin(), x.end());\n}\n",
        "__global__ void f(int *x, size_t N)",
        "int",
    ),
    "doubles by the library's greater": (
        "void f(std::vector<double> &x) {\n"
        "  std::sort(x.begin(), x.end(), std::greater<double>());\n}\n",
        "__global__ void f(double *x, size_t N)",
        "double",
    ),
    "by magnitude, then sign, through a helper": (
        "long mag(long v) { return std::abs(v); }\n"
        "void f(std::vector<long> &x) {\n"
        "  std::sort(x.begin(), x.end(), [](long a, long b) {\n"
        "    return mag(a) < mag(b) || (mag(a) == mag(b) && a < b);\n  });\n}\n",
        "__global__ void f(long *x, int n)",
        "long",
    ),
    "a stable sort of ints by the library's greater": (
        "void f(std::vector<int> &x) {\n"
        "  std::stable_sort(x.begin(), x.end(), std::greater<int>());\n}\n",
        "__global__ void f(int *x, size_t N)",
        "int",
    ),
    "by magnitude, then sign, the comparison named first": (
        "void f(std::vector<long> &x) {\n"
        "  auto byMagnitude = [](long a, long b) {\n"
        "    return std::abs(a) < std::abs(b) || (std::abs(a) == std::abs(b) && a < b);\n  };\n"
        "  std::sort(x.begin(), x.end(), byMagnitude);\n}\n",
        "__global__ void f(long *x, size_t N)",
        "long",
    ),
}
"""Whole-vector sorts (a key order that is total, so any sort gives one answer)."""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_SORTS))
@pytest.mark.parametrize("concurrent", [False, True], ids=["in turn", "at once"])
def test_a_sort_kernel_sorts_under_every_launch_shape(
    case: str, concurrent: bool, tmp_path: Path
) -> None:
    source, signature, kind = _SORTS[case]
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    check = f"""
int main() {{
    for (size_t n : {{0, 1, 2, 3, 5, 8, 9, 100, 1000, 1500}}) {{
        std::vector<{kind}> x(n);
        for (size_t i = 0; i < n; i++) x[i] = ({kind})((long)(i * 7919 % 201) - 100);
        std::vector<{kind}> want = x;
        f(want);
        for (auto &shape : PF_SHAPES) {{
            std::vector<{kind}> got = x;
            pf_launch(shape[0], shape[1], [&] {{ pf_gpu::f(got.data(), n); }});
            if (got != want) return 1;
        }}
    }}
    return 0;
}}
"""
    _emulate(source, written, check, tmp_path, concurrent=concurrent)


@pytest.mark.parametrize(
    ("source", "signature", "why"),
    [
        (  # part of the vector
            "void f(std::vector<int> &x) {\n  std::sort(x.begin() + 1, x.end());\n}\n",
            "__global__ void f(int *x, size_t N)",
            "part of a vector",
        ),
        (  # a comparison that captures (what it reads the kernel's function would not have)
            "void f(std::vector<int> &x) {\n"
            "  std::sort(x.begin(), x.end(), [&](int a, int b) { return a > b; });\n}\n",
            "__global__ void f(int *x, size_t N)",
            "captures",
        ),
        (  # a sort's kernel takes the vector and its size only
            "void f(std::vector<int> &x, int m) {\n  std::sort(x.begin(), x.end());\n}\n",
            "__global__ void f(int *x, int m, size_t N)",
            "more than the vector",
        ),
        (  # a comparison calling what no device has
            "void f(std::vector<int> &x) {\n"
            "  std::sort(x.begin(), x.end(), [](int a, int b) { return rand() < a + b; });\n}\n",
            "__global__ void f(int *x, size_t N)",
            "calls rand",
        ),
        (  # a sort of an input the kernel takes read-only
            "void f(std::vector<int> &x) {\n  std::sort(x.begin(), x.end());\n}\n",
            "__global__ void f(const int *x, size_t N)",
            "changes x, which the kernel takes as const",
        ),
        (  # a stable sort keeps equal keys in order: no network of ours does (equal ints
            # are the same, so a stable sort of ints by value is a sort; not so by a key)
            "void f(std::vector<int> &x) {\n"
            "  std::stable_sort(x.begin(), x.end(), [](int a, int b) { return a % 7 < b % 7; });\n}\n",
            "__global__ void f(int *x, size_t N)",
            "sorts stably",
        ),
        (  # a comparison named first that captures: where it is made may matter, kept as is
            "void f(std::vector<int> &x, int m) {\n"
            "  auto byRest = [m](int a, int b) { return a % m < b % m; };\n"
            "  std::sort(x.begin(), x.end(), byRest);\n}\n",
            "__global__ void f(int *x, int m, size_t N)",
            "0 top-level loops",
        ),
        (  # floating numbers sorted stably: 0.0 and -0.0 are equal and differ
            "void f(std::vector<double> &x) {\n  std::stable_sort(x.begin(), x.end());\n}\n",
            "__global__ void f(double *x, size_t N)",
            "sorts stably",
        ),
    ],
)
def test_what_gets_no_sort_kernel(source: str, signature: str, why: str) -> None:
    with pytest.raises(AnnotationError, match=why):
        kernel(source, analyse(source, Language.CPP), "f", signature)


_SELECTS = {
    "the median of doubles, copied by assignment": (
        "double f(std::vector<double> const &x) {\n  std::vector<double> y = x;\n"
        "  std::sort(y.begin(), y.end());\n  return y[y.size() / 2];\n}\n",
        "__global__ void f(const double *x, size_t N, double *out)",
        "double",
    ),
    "a float near the top": (
        "float f(std::vector<float> const &x) {\n  size_t n = x.size();\n"
        "  std::vector<float> s(x);\n  std::sort(s.begin(), s.end());\n  return s[n - 2 + n % 2];\n}\n",
        "__global__ void f(const float *x, size_t N, float *out)",
        "float",
    ),
    "the least long long": (
        "long long f(std::vector<long long> const &x) {\n  std::vector<long long> s(x);\n"
        "  std::sort(s.begin(), s.end());\n  return s[0];\n}\n",
        "__global__ void f(const long long *x, size_t N, long long *out)",
        "long long",
    ),
    "an unsigned at a third": (
        "unsigned f(std::vector<unsigned> const &x) {\n  std::vector<unsigned> s(x);\n"
        "  std::sort(s.begin(), s.end());\n  return s[x.size() / 3];\n}\n",
        "__global__ void f(const unsigned *x, size_t N, unsigned *out)",
        "unsigned",
    ),
    "the third by nth_element, of a copy made from the range": (
        "long long f(std::vector<long long> const &x) {\n"
        "  std::vector<long long> y(x.begin(), x.end());\n"
        "  std::nth_element(y.begin(), y.begin() + (x.size() / 3), y.end());\n"
        "  return y[x.size() / 3];\n}\n",
        "__global__ void f(const long long *x, size_t N, long long *out)",
        "long long",
    ),
    "the median of an auto copy, read by at": (
        "double f(std::vector<double> const &x) {\n  auto y = x;\n"
        "  std::sort(y.begin(), y.end());\n  return y.at(y.size() / 2);\n}\n",
        "__global__ void f(const double *x, size_t N, double *out)",
        "double",
    ),
}
"""Functions that return one element of a sorted copy of their input."""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_SELECTS))
@pytest.mark.parametrize("concurrent", [False, True], ids=["in turn", "at once"])
def test_an_element_of_a_sorted_copy_is_selected_under_every_launch_shape(
    case: str, concurrent: bool, tmp_path: Path
) -> None:
    """Negative and positive values, ties, the type's extremes (an integer's, a floating
    number's infinities): the bit-by-bit selection's key must order as the values do."""
    source, signature, kind = _SELECTS[case]
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    check = f"""
int main() {{
    for (size_t n : {{1, 3, 8, 1001}}) {{
        std::vector<{kind}> x(n);
        for (size_t i = 0; i < n; i++) x[i] = ({kind})((double)((long)(i * 7919 % 201) - 100) * (i % 2 ? 1.5 : -0.25));
        if (n > 2) {{ x[n / 2] = std::numeric_limits<{kind}>::lowest(); x[1] = std::numeric_limits<{kind}>::max(); }}
        if (std::numeric_limits<{kind}>::has_infinity && n > 5) {{ x[3] = std::numeric_limits<{kind}>::infinity(); x[4] = -x[3]; }}
        {kind} want = f(x);
        for (auto &shape : PF_SHAPES) {{
            {kind} got = ({kind})77;
            pf_launch(shape[0], shape[1], [&] {{ pf_gpu::f(x.data(), n, &got); }});
            if (got != want) return 1;
        }}
    }}
    return 0;
}}
"""
    _emulate("#include <limits>\n" + source, written, check, tmp_path, concurrent=concurrent)


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (  # a copy sorted by an order of its own: no key orders as it does
            "int f(std::vector<int> const &x) {\n  std::vector<int> y(x);\n"
            "  std::sort(y.begin(), y.end(), std::greater<int>());\n  return y[0];\n}\n",
            "0 top-level loops",
        ),
        (  # an index read from something the kernel lacks
            "int f(std::vector<int> const &x) {\n  std::vector<int> y(x);\n"
            "  std::sort(y.begin(), y.end());\n  return y[rand() % 3];\n}\n",
            "calls rand",
        ),
        (  # nth_element orders around one place, and another is read: no sort's element
            "int f(std::vector<int> const &x) {\n  std::vector<int> y(x);\n"
            "  std::nth_element(y.begin(), y.begin() + 2, y.end());\n  return y[3];\n}\n",
            "0 top-level loops",
        ),
        (  # short: no key of ours
            "short f(std::vector<short> const &x) {\n  std::vector<short> y(x);\n"
            "  std::sort(y.begin(), y.end());\n  return y[1];\n}\n",
            "no order-keeping key",
        ),
    ],
)
def test_what_gets_no_selection_kernel(source: str, why: str) -> None:
    element = re.search(r"vector<(\w+)>", source)
    assert element is not None
    kind = element.group(1)
    signature = f"__global__ void f(const {kind} *x, size_t N, {kind} *out)"
    with pytest.raises(AnnotationError, match=why):
        kernel(source, analyse(source, Language.CPP), "f", signature)


_QUERIED = {
    "ranks by lower bound, with ties": (
        "void f(std::vector<float> const &x, std::vector<size_t> &r) {\n"
        "  std::vector<float> s = x;\n  std::sort(s.begin(), s.end());\n  r.resize(x.size());\n"
        "  for (size_t i = 0; i < x.size(); ++i) {\n"
        "    r[i] = std::distance(s.begin(), std::lower_bound(s.begin(), s.end(), x[i]));\n"
        "  }\n}\n",
        "__global__ void f(const float *x, size_t *r, size_t N)",
        "std::vector<size_t> want(n), got(n); f(x, want);",
        "pf_gpu::f(x.data(), got.data(), n);",
    ),
    "upper bounds as iterator differences, into ints": (
        "void f(const std::vector<int> &x, std::vector<int> &r) {\n"
        "  std::vector<int> s(x);\n  std::sort(s.begin(), s.end());\n"
        "  for (size_t i = 0; i < x.size(); ++i)\n"
        "  {\n    int above = std::upper_bound(s.begin(), s.end(), x[i] - 3) - s.begin();\n"
        "    r[i] = above * 2 + 1;\n  }\n}\n",
        "__global__ void f(const int *x, int *r, size_t N)",
        "std::vector<int> want(n), got(n); f(x, want);",
        "pf_gpu::f(x.data(), got.data(), n);",
    ),
    "binary searches summed": (
        "int f(std::vector<int> const &x, std::vector<int> const &y) {\n"
        "  std::vector<int> s(x);\n  int hits = 0;\n  std::sort(s.begin(), s.end());\n"
        "  for (size_t i = 0; i < y.size(); ++i) hits += std::binary_search(s.begin(), s.end(), y[i] / 2);\n"
        "  return hits;\n}\n",
        "__global__ void f(const int *x, const int *y, size_t N, int *hits)",
        "std::vector<int> y(n); for (size_t i = 0; i < n; i++) y[i] = (int)(i * 31 % 97) - 40;\n"
        "        int want = f(x, y), got = 5;",
        "pf_gpu::f(x.data(), y.data(), n, &got);",
    ),
}
"""Functions that only query a sorted copy of their input (ranks, bounds, membership)."""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_QUERIED))
@pytest.mark.parametrize("concurrent", [False, True], ids=["in turn", "at once"])
def test_queries_of_a_sorted_copy_count_what_the_library_finds(
    case: str, concurrent: bool, tmp_path: Path
) -> None:
    """No copy is sorted: each query counts over the input. Repeated values (the bounds of a
    run of ties), negatives, values between and beyond the input's must give the library's
    indices and answers."""
    source, signature, call, launch = _QUERIED[case]
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    assert "sort" not in written.split("__global__ void f(")[1]
    check = f"""
int main() {{
    for (size_t n : {{1, 2, 9, 1000}}) {{
        std::vector<{"float" if "float" in signature else "int"}> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (i * 7919 % 61) - 30 + (i % 3 == 0 ? 0.5 : 0.0) * ({"1" if "float" in signature else "0"});
        {call}
        for (auto &shape : PF_SHAPES) {{
            pf_launch(shape[0], shape[1], [&] {{ {launch} }});
            if (got != want) return 1;
        }}
    }}
    return 0;
}}
"""
    _emulate("#include <algorithm>\n" + source, written, check, tmp_path, concurrent=concurrent)


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (  # the copy is read besides its queries: it would have to exist
            "int f(std::vector<int> const &x) {\n  std::vector<int> s(x);\n"
            "  std::sort(s.begin(), s.end());\n  int n = 0;\n"
            "  for (size_t i = 0; i < x.size(); ++i) n += std::binary_search(s.begin(), s.end(), s[i]);\n"
            "  return n;\n}\n",
            "does more than its loop|calls std::binary_search|calls std::lower_bound|does not take r",
        ),
        (  # a query whose value has a side effect: counting would run it once per element
            "int f(std::vector<int> const &x) {\n  std::vector<int> s(x);\n"
            "  std::sort(s.begin(), s.end());\n  int n = 0, j = 0;\n"
            "  for (size_t i = 0; i < x.size(); ++i) n += std::binary_search(s.begin(), s.end(), x[j++ % 3]);\n"
            "  return n;\n}\n",
            "does not prove the loop",
        ),
        (  # sorted by an order of its own: the counts would need that order
            "int f(std::vector<int> const &x) {\n  std::vector<int> s(x);\n"
            "  std::sort(s.begin(), s.end(), std::greater<int>());\n  int n = 0;\n"
            "  for (size_t i = 0; i < x.size(); ++i) n += std::binary_search(s.begin(), s.end(), x[i], std::greater<int>());\n"
            "  return n;\n}\n",
            "does not prove the loop",
        ),
        (  # a copy of a vector the function may change: the counts would read it changed
            "int f(std::vector<int> &x) {\n  std::vector<int> s(x);\n"
            "  std::sort(s.begin(), s.end());\n  int n = 0;\n"
            "  for (size_t i = 0; i < x.size(); ++i) n += std::binary_search(s.begin(), s.end(), x[i]);\n"
            "  return n;\n}\n",
            "does more than its loop|calls std::binary_search|calls std::lower_bound|does not take r",
        ),
        (  # a query only one branch runs: counted before it, it would read past the end
            "void f(std::vector<int> const &x, std::vector<int> &r) {\n  std::vector<int> s = x;\n"
            "  std::sort(s.begin(), s.end());\n  for (size_t i = 0; i < x.size(); ++i)\n"
            "    r[i] = i + 1 < x.size() ? std::lower_bound(s.begin(), s.end(), x[i + 1]) - s.begin() : 0;\n}\n",
            "does more than its loop|calls std::binary_search|calls std::lower_bound|does not take r",
        ),
        (  # a name of the loop's own hides the input the counts would walk
            "void f(std::vector<int> const &x, std::vector<int> &r) {\n  std::vector<int> s = x;\n"
            "  std::sort(s.begin(), s.end());\n  for (size_t i = 0; i < r.size(); ++i) {\n"
            "    int x = (int)i;\n    r[i] = std::lower_bound(s.begin(), s.end(), x) - s.begin();\n  }\n}\n",
            "does more than its loop|calls std::binary_search|calls std::lower_bound|does not take r",
        ),
        (  # a query after a write in its own statement would be counted before the write
            "void f(std::vector<int> const &x, std::vector<int> &r) {\n  std::vector<int> s = x;\n"
            "  std::sort(s.begin(), s.end());\n  for (size_t i = 0; i < x.size(); ++i) {\n"
            "    int t = 0;\n    r[i] = (t = x[i] + 1) + std::binary_search(s.begin(), s.end(), t);\n  }\n}\n",
            "does more than its loop|calls std::binary_search|calls std::lower_bound|does not take r",
        ),
    ],
)
def test_what_sorted_copy_gets_no_counts(source: str, why: str) -> None:
    signature = "__global__ void f(const int *x, size_t N, int *out)"
    program = analyse(source, Language.CPP)
    assert _sorted_queries(source, program, "f")[0] == source
    with pytest.raises(AnnotationError, match=why):
        kernel(source, program, "f", signature)


_PHASED = {
    "a sum of squares, then a map dividing by its root": (
        "void normalize(std::vector<double> const& x, std::vector<double> &y) {\n"
        "  double s = 0;\n  for (size_t i = 0; i < x.size(); ++i) s += x[i] * x[i];\n"
        "  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] / std::sqrt(s);\n}\n",
        """
        std::vector<double> want(n), got(n, -1.0);
        normalize(x, want);
        pf_launch(shape[0], shape[1], [&] { pf_gpu::normalize(x.data(), got.data(), n); });
        for (size_t i = 0; i < n; i++) if (std::fabs(got[i] - want[i]) > 1e-12) return 1;
""",
    ),
    "a mean, a step between, a map, the mean returned": (
        "double centre(std::vector<double> &x) {\n  double m = 0;\n"
        "  for (size_t i = 0; i < x.size(); ++i) m += x[i];\n  m = m / x.size();\n"
        "  for (size_t i = 0; i < x.size(); ++i) x[i] -= m;\n  return m;\n}\n",
        """
        std::vector<double> want = x, got = x;
        double want_m = centre(want), got_m = -1;
        pf_launch(shape[0], shape[1], [&] { pf_gpu::centre(got.data(), n, &got_m); });
        if (got != want || got_m != want_m) return 1;
""",
    ),
    "a min and a max in turn, a map, their difference returned": (
        "int spread(std::vector<double> const &x, std::vector<double> &y) {\n"
        "  double lo = DBL_MAX;\n"
        "  for (size_t i = 0; i < x.size(); ++i) lo = std::min(lo, x[i]);\n"
        "  double hi = -DBL_MAX;\n"
        "  for (size_t i = 0; i < x.size(); ++i) hi = std::max(hi, x[i]);\n"
        "  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] - lo;\n  return (int)(hi - lo);\n}\n",
        """
        std::vector<double> want(n), got(n, -1.0);
        int want_r = spread(x, want), got_r = -1;
        pf_launch(shape[0], shape[1], [&] { pf_gpu::spread(x.data(), got.data(), n, &got_r); });
        if (got != want || got_r != want_r) return 1;
""",
    ),
}
_PHASED_SIGNATURES = {
    "normalize": "__global__ void normalize(const double *x, double *y, size_t N)",
    "centre": "__global__ void centre(double *x, size_t N, double *mean)",
    "spread": "__global__ void spread(const double *x, double *y, size_t N, int *range)",
}


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_PHASED))
@pytest.mark.parametrize("concurrent", [False, True], ids=["in turn", "at once"])
def test_a_reductions_total_feeds_the_loops_after_it(
    case: str, concurrent: bool, tmp_path: Path
) -> None:
    source, each = _PHASED[case]
    name = source.split("(")[0].split()[-1]
    written = kernel(source, analyse(source, Language.CPP), name, _PHASED_SIGNATURES[name])
    assert "pf_cuda_grid_sync();" in written and "pf_phase_total_" in written
    check = f"""
int main() {{
    for (size_t n : {{1, 7, 1000, 5000}}) {{
        std::vector<double> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (double)((i * 7919) % 1000) - 400.0;
        for (auto &shape : PF_SHAPES) {{
            for (int twice = 0; twice < 2; twice++) {{
{each}
            }}
        }}
    }}
    return 0;
}}
"""
    _emulate(source, written, check, tmp_path, concurrent=concurrent)


_STATEMENT_ALGORITHMS = {
    "rows of a flattened matrix times a vector, by inner_product over each row": (
        "void f(std::vector<double> const &A, std::vector<double> const &x, std::vector<double> &y,"
        " size_t M, size_t N) {\n  for (size_t i = 0; i < M; ++i)\n"
        "    y[i] = std::inner_product(A.begin() + i * N, A.begin() + (i + 1) * N, x.begin(), 0.0);\n}\n",
        "__global__ void f(const double *A, const double *x, double *y, size_t M, size_t N)",
        "size_t N = 3, M = n / 3; std::vector<double> v{1.5, -2, 0.25}, want(M, 7), got(M, 7);"
        " f(x, v, want, M, N);",
        "pf_gpu::f(x.data(), v.data(), got.data(), M, N);",
    ),
    "rows times a vector read from past its begin": (
        "void f(std::vector<double> const &A, std::vector<double> const &x, std::vector<double> &y,"
        " size_t M, size_t N) {\n  for (size_t i = 0; i < M; ++i)\n"
        "    y[i] = std::inner_product(A.begin() + i * N, A.begin() + i * N + N, x.begin() + 1, 1.0);\n}\n",
        "__global__ void f(const double *A, const double *x, double *y, size_t M, size_t N)",
        "size_t N = 3, M = n / 3; std::vector<double> v{9, 1.5, -2, 0.25}, want(M, 7), got(M, 7);"
        " f(x, v, want, M, N);",
        "pf_gpu::f(x.data(), v.data(), got.data(), M, N);",
    ),
    "a transform in place": (
        "void f(std::vector<double> &x) {\n  std::transform(x.begin(), x.end(), x.begin(), "
        "[](double v) { return v > 0 ? v : 0.0; });\n}\n",
        "__global__ void f(double *x, size_t N)",
        "std::vector<double> want(x.begin(), x.end()), got = want; f(want);",
        "pf_gpu::f(got.data(), n);",
    ),
    "a for_each through a reference": (
        "void f(std::vector<double> &x) {\n  std::for_each(x.begin(), x.end(), [](double &e) {\n"
        "    if ((long long)e % 2) e = -e;\n    else e /= 2;\n  });\n}\n",
        "__global__ void f(double *x, size_t N)",
        "std::vector<double> want(x.begin(), x.end()), got = want; f(want);",
        "pf_gpu::f(got.data(), n);",
    ),
    "a binary transform capturing a scalar": (
        "void f(double a, std::vector<double> const &x, std::vector<double> const &y, "
        "std::vector<double> &z) {\n  std::transform(x.begin(), x.end(), y.begin(), z.begin(), "
        "[a](double u, double w) { return a * u + w; });\n}\n",
        "__global__ void f(double a, const double *x, const double *y, double *z, size_t N)",
        "std::vector<double> y(x.rbegin(), x.rend()), want(n, 7), got(n, 7); f(1.5, x, y, want);",
        "pf_gpu::f(1.5, x.data(), y.data(), got.data(), n);",
    ),
    "a transform whose parameter converts the element": (
        "void f(std::vector<double> &x) {\n  std::transform(x.begin(), x.end(), x.begin(), "
        "[](int v) { return v / 2; });\n}\n",
        "__global__ void f(double *x, size_t N)",
        "std::vector<double> want(x.begin(), x.end()), got = want; f(want);",
        "pf_gpu::f(got.data(), n);",
    ),
    "a transform by a function of the source named": (
        "double twice(double v) { return 2 * v; }\n"
        "void f(std::vector<double> &x) {\n"
        "  std::transform(x.begin(), x.end(), x.begin(), twice);\n}\n",
        "__global__ void f(double *x, size_t N)",
        "std::vector<double> want(x.begin(), x.end()), got = want; f(want);",
        "pf_gpu::f(got.data(), n);",
    ),
    "a fill": (
        "void f(std::vector<double> &x) {\n  std::fill(x.begin(), x.end(), 2.5);\n}\n",
        "__global__ void f(double *x, size_t N)",
        "std::vector<double> want(x.begin(), x.end()), got = want; f(want);",
        "pf_gpu::f(got.data(), n);",
    ),
}
"""Standard algorithms as statements (ReLU as `std::transform`, negate-odds as
`std::for_each`): each the loop the library runs. (source, signature, the check's sequential
call into `want`, the kernel's call into `got`)"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_STATEMENT_ALGORITHMS))
def test_a_standard_algorithm_as_a_statement_runs_as_its_loop(case: str, tmp_path: Path) -> None:
    source, signature, call, launch = _STATEMENT_ALGORITHMS[case]
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    check = f"""
int main() {{
    for (size_t n : {{0, 1, 9, 1000}}) {{
        std::vector<double> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (double)((int)(i * 7919 % 1000) - 500) / 4;
        {call}
        for (auto &shape : PF_SHAPES) {{
            std::vector<double> start = got;
            pf_launch(shape[0], shape[1], [&] {{ {launch} }});
            if (got != want) return 1;
            got = start;
        }}
    }}
    return 0;
}}
"""
    _emulate("#include <algorithm>\n#include <numeric>\n" + source, written, check, tmp_path)


@pytest.mark.parametrize(
    "statement",
    [
        # a return inside for_each's lambda ends one call, not the function
        "std::for_each(x.begin(), x.end(), [](double &e) { if (e < 0) return; e = 1; });",
        # a mutable lambda's copies
        "std::transform(x.begin(), x.end(), x.begin(), [k = 0](double v) mutable { return v + k++; });",
        # an initialised capture names a value of the lambda's own
        "std::transform(x.begin(), x.end(), x.begin(), [s = 2.0](double v) { return v * s; });",
        # a const reference of another type binds a converted copy (integer division here)
        "std::for_each(x.begin(), x.end(), [&n](const int &e) { n += e / 2; });",
        # a preprocessor line, a local hiding the vector, the element's size
        "std::for_each(x.begin(), x.end(), [](double &e) {\n#if 0\n e = -e;\n#endif\n e += 1; });",
        "std::for_each(x.begin(), x.end(), [](double &e) { double x[2] = {3, 4}; e *= x[0]; });",
        "std::for_each(x.begin(), x.end(), [](double &e) { e = sizeof(e); });",
        # an allocation the library makes once
        "std::fill(x.begin(), x.end(), *new double(1.0));",
        # part of the vector
        "std::fill(x.begin() + 1, x.end(), 2.0);",
        # a value evaluated once by the library
        "std::fill(x.begin(), x.end(), next());",
    ],
)
def test_a_standard_algorithm_the_writer_cannot_inline_stays_a_call(statement: str) -> None:
    source = f"double next();\nint n;\nvoid f(std::vector<double> &x) {{\n  {statement}\n}}\n"
    program = analyse(source, Language.CPP)
    lowered, _ = _lowered(source, program, "f")
    assert statement in lowered
    with pytest.raises(AnnotationError):
        kernel(source, program, "f", "__global__ void f(double *x, size_t N)")


def test_a_predicates_parameter_of_the_elements_type_is_the_element_itself() -> None:
    """A `const double &` on a `double` element is the element (its address compares with
    another element's); a parameter of another type converts it, a declared return type
    converts the result; `std::exp` beside a parameter named `exp` stays the library's."""
    source = (
        "int f(const std::vector<double> &x) {\n  return std::count_if(x.begin(), x.end(), "
        "[&](const double &exp) -> bool { return &exp != &x[0] && std::exp(exp) > (int)exp; });\n}\n"
    )
    lowered, _ = _lowered(source, analyse(source, Language.CPP), "f")
    assert "&(x[k_0]) != &x[0] && std::exp((x[k_0])) > (int)(x[k_0])" in lowered
    assert "((bool)(" in lowered
    source = source.replace("const double &exp", "int exp").replace("&exp != &x[0] && ", "")
    lowered, _ = _lowered(source, analyse(source, Language.CPP), "f")
    assert "((int)(x[k_0]))" in lowered


def test_an_empty_statement_is_refused_not_a_crash() -> None:
    for body in (
        "for (size_t i = 0; i < x.size(); ++i) x[i] *= 2;;",
        "; std::fill(x.begin(), x.end(), 1.0);",
    ):
        source = f"void f(std::vector<double> &x) {{ {body} }}\n"
        with pytest.raises(AnnotationError):
            kernel(
                source, analyse(source, Language.CPP), "f", "__global__ void f(double *x, size_t N)"
            )


_WALKS = {
    "components by a stack used from the back, marked when taken out": (
        """
int components(std::vector<int> const &A, size_t N) {
    std::vector<char> seen(N, 0);
    int found = 0;
    for (int i = 0; i < (int)N; ++i) {
        if (seen[i] == 0) {
            found += 1;
            std::vector<int> todo;
            todo.push_back(i);
            while (!todo.empty()) {
                int v = todo.back();
                todo.pop_back();
                if (seen[v]) continue;
                seen[v] = 1;
                for (int j = 0; j < (int)N; j++)
                    if (A[v * N + j] != 0 && !seen[j]) todo.push_back(j);
            }
        }
    }
    return found;
}
""",
        "__global__ void components(const int *A, size_t N, int *count)",
        "components(a, n)",
        "components(a.data(), n, &got)",
    ),
    "the largest component by a deque, its test in nested ifs, its size kept with an if": (
        """
int largest(std::vector<int> const &A, size_t N) {
    std::vector<bool> done(N);
    int best = 0;
    int size = 0;
    for (size_t s = 0; s < N; s++) {
        if (!done[s]) {
            size = 0;
            std::deque<size_t> work;
            work.push_back(s);
            done[s] = true;
            while (!work.empty()) {
                auto v = work.front();
                work.pop_front();
                ++size;
                for (size_t j = 0; j < N; ++j) {
                    if (A[v * N + j] > 0) {
                        if (!done[j]) {
                            done[j] = true;
                            work.push_back(j);
                        }
                    }
                }
            }
            if (size > best) best = size;
        }
    }
    return best;
}
""",
        "__global__ void largest(const int *A, size_t N, int *best)",
        "largest(a, n)",
        "largest(a.data(), n, &got)",
    ),
    "a distance returned as a choice, -1 for unreached": (
        """
int hops(std::vector<int> const &A, size_t N, int from, int to) {
    std::vector<int> dist(N, -1);
    std::queue<int> q;
    dist[from] = 0;
    q.push(from);
    while (!q.empty()) {
        int u = q.front();
        q.pop();
        for (size_t w = 0; w < N; w++) {
            if (dist[w] == -1 && A[u * N + w] == 1) {
                dist[w] = dist[u] + 1;
                q.push(w);
            }
        }
    }
    return dist[to] == -1 ? -1 : dist[to];
}
""",
        "__global__ void hops(const int *A, size_t N, int from, int to, int *length)",
        "hops(a, n, (int)(n / 2), 0)",
        "hops(a.data(), n, (int)(n / 2), 0, &got)",
    ),
    "components by a recursive walk marking its vertex first": (
        """
void visit(std::vector<int> const &adj, size_t n, size_t u, std::vector<bool> &seen) {
    seen[u] = true;
    for (size_t k = 0; k < n; ++k) {
        if (adj[u * n + k] == 1 && !seen[k]) visit(adj, n, k, seen);
    }
}
int components(std::vector<int> const &A, size_t N) {
    std::vector<bool> seen(N, false);
    int count = 0;
    for (size_t i = 0; i < N; i++) {
        if (!seen[i]) {
            visit(A, N, i, seen);
            ++count;
        }
    }
    return count;
}
""",
        "__global__ void components(const int *A, size_t N, int *count)",
        "components(a, n)",
        "components(a.data(), n, &got)",
    ),
    "the largest component by a recursive walk returning its size, past marked vertices": (
        """
int reach(std::vector<int> const &A, size_t N, std::vector<int> &mark, int v) {
    if (mark[v]) return 0;
    mark[v] = 1;
    int size = 1;
    for (int j = 0; j < (int)N; j++)
        if (A[v * N + j]) size += reach(A, N, mark, j);
    return size;
}
int largest(std::vector<int> const &A, size_t N) {
    std::vector<int> mark(N, 0);
    int best = 0;
    for (int i = 0; i < (int)N; i++) {
        if (!mark[i]) best = std::max(best, reach(A, N, mark, i));
    }
    return best;
}
""",
        "__global__ void largest(const int *A, size_t N, int *best)",
        "largest(a, n)",
        "largest(a.data(), n, &got)",
    ),
    "the largest by a stack holding its start, past marked starts": (
        """
int largest(std::vector<int> const &A, size_t N) {
    std::vector<char> seen(N, 0);
    int best = 0;
    for (size_t start = 0; start < N; ++start) {
        if (seen[start]) continue;
        std::vector<size_t> stack{start};
        seen[start] = 1;
        int count = 0;
        while (!stack.empty()) {
            size_t u = stack.back();
            stack.pop_back();
            ++count;
            for (size_t v = 0; v < N; ++v) {
                if (A[u * N + v] == 1 && !seen[v]) {
                    seen[v] = 1;
                    stack.push_back(v);
                }
            }
        }
        best = std::max(best, count);
    }
    return best;
}
""",
        "__global__ void largest(const int *A, size_t N, int *best)",
        "largest(a, n)",
        "largest(a.data(), n, &got)",
    ),
    "a distance returned as its vertex is taken out": (
        """
int hops(std::vector<int> const &A, size_t N, int from, int to) {
    std::vector<int> dist(N, -1);
    std::queue<int> q;
    dist[from] = 0;
    q.push(from);
    while (!q.empty()) {
        int u = q.front();
        q.pop();
        if (u == to) return dist[u];
        for (size_t v = 0; v < N; ++v) {
            if (A[u * N + v] == 1 && dist[v] == -1) {
                dist[v] = dist[u] + 1;
                q.push(v);
            }
        }
    }
    return -1;
}
""",
        "__global__ void hops(const int *A, size_t N, int from, int to, int *length)",
        "hops(a, n, 0, (int)(n - 1))",
        "hops(a.data(), n, 0, (int)(n - 1), &got)",
    ),
}
"""Walks spelled otherwise than ParEval's: what the walk reaches, whatever container hands out
its vertices (the call stack included) and wherever it marks them."""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_WALKS))
def test_a_graph_walk_becomes_levels_of_a_breadth_first_search(case: str, tmp_path: Path) -> None:
    """Each spelling's kernel with the launch's blocks at once (the kernel's levels are those
    of ParEval's three graph problems, which run in both emulations; what differs here is what
    the writer read)."""
    source, signature, call, launch = _WALKS[case]
    name = signature_params(signature)[0]
    written = kernel(source, analyse(source, Language.CPP), name, signature)
    check = _GRAPH_CHECK.replace("CALL", call).replace("KERNEL", launch)
    _emulate("#include <deque>\n" + source, written, check, tmp_path, concurrent=True)


_UNWALKED = {
    "a stack's walk gives no shortest distances": (
        _WALKS["a distance returned as a choice, -1 for unreached"][0]
        .replace("std::queue<int> q;", "std::stack<int> q;")
        .replace("q.front()", "q.top()"),
        "__global__ void hops(const int *A, size_t N, int from, int to, int *length)",
        "stack",
    ),
    "an edge test that reads another array": (
        _WALKS["a distance returned as a choice, -1 for unreached"][0]
        .replace("A[u * N + w] == 1", "A[u * N + w] == 1 && W[w] > 0")
        .replace("size_t N, int from", "size_t N, std::vector<int> const &W, int from"),
        "__global__ void hops(const int *A, size_t N, const int *W, int from, int to, int *length)",
        "matrix",
    ),
    "a per-walk count never reset": (
        _WALKS[
            "the largest component by a deque, its test in nested ifs, its size kept with an if"
        ][0].replace("            size = 0;\n", ""),
        "__global__ void largest(const int *A, size_t N, int *best)",
        "neither",
    ),
    "a walk that also writes what the function reads after it": (
        _WALKS["components by a stack used from the back, marked when taken out"][0].replace(
            "    return found;", "    found += seen[0];\n    return found;"
        ),
        "__global__ void components(const int *A, size_t N, int *count)",
        "more",
    ),
    "a walk that reads another vertex's mark in its edge test": (
        _WALKS[
            "the largest component by a deque, its test in nested ifs, its size kept with an if"
        ][0].replace("A[v * N + j] > 0", "A[v * N + j] > 0 && done[v]"),
        "__global__ void largest(const int *A, size_t N, int *best)",
        "matrix",
    ),
    "a recursive walk that counts its edges, not its vertices": (
        _WALKS[
            "the largest component by a recursive walk returning its size, past marked vertices"
        ][0].replace("size += reach(A, N, mark, j);", "size += 1 + reach(A, N, mark, j);"),
        "__global__ void largest(const int *A, size_t N, int *best)",
        "more per neighbour",
    ),
    "a recursive walk that marks its vertex after its neighbours": (
        _WALKS["components by a recursive walk marking its vertex first"][0]
        .replace("    seen[u] = true;\n", "")
        .replace(
            "visit(adj, n, k, seen);\n    }", "visit(adj, n, k, seen);\n    }\n    seen[u] = true;"
        ),
        "__global__ void components(const int *A, size_t N, int *count)",
        "mark its vertex first",
    ),
}
_COUNTED = _WALKS["components by a stack used from the back, marked when taken out"][0]
_LARGEST = _WALKS[
    "the largest component by a deque, its test in nested ifs, its size kept with an if"
][0]
_HOPS = _WALKS["a distance returned as a choice, -1 for unreached"][0]
_RECURSIVE = _WALKS["components by a recursive walk marking its vertex first"][0]
_COUNTED_SIG = "__global__ void components(const int *A, size_t N, int *count)"
_LARGEST_SIG = "__global__ void largest(const int *A, size_t N, int *best)"
_HOPS_SIG = "__global__ void hops(const int *A, size_t N, int from, int to, int *length)"
_UNWALKED |= {  # a review's wrong kernels, each now a refusal
    "starts tested for a mark, not for unmarked": (
        _LARGEST.replace("if (!done[s]) {", "if (done[s] == true) {"),
        _LARGEST_SIG,
        "leaves unmarked",
    ),
    "vertices skipped by another array than the one tested": (
        _COUNTED.replace(
            "std::vector<char> seen(N, 0);",
            "std::vector<char> seen(N, 0);\n    std::vector<char> other(N, 0);",
        )
        .replace("!seen[j]", "!other[j]")
        .replace("seen[i] == 0", "other[i] == 0"),
        _COUNTED_SIG,
        "another mark",
    ),
    "the start pushed after its walk": (
        _LARGEST.replace("            work.push_back(s);\n", "").replace(
            "            if (size > best)",
            "            work.push_back(s);\n            if (size > best)",
        ),
        _LARGEST_SIG,
        "pushed twice, or after the walk",
    ),
    "a neighbour pushed twice": (
        _LARGEST.replace(
            "work.push_back(j);",
            "work.push_back(j);\n                            work.push_back(j);",
        ),
        _LARGEST_SIG,
        "repeats a step",
    ),
    "distances starting from 0, a distance the source has": (
        _HOPS.replace("dist(N, -1)", "dist(N, 0)")
        .replace("dist[w] == -1", "dist[w] == 0")
        .replace("dist[to] == -1 ?", "dist[to] == 0 ?"),
        _HOPS_SIG,
        "a value a distance can take",
    ),
    "a declaration that counts": (
        _COUNTED.replace("    int found = 0;", "    int found = 0;\n    int extra = ++found;"),
        _COUNTED_SIG,
        "more than its walks",
    ),
    "a count kept across calls": (
        _COUNTED.replace("    int found = 0;", "    static int found = 0;"),
        _COUNTED_SIG,
        "more than its walks",
    ),
    "a breadth-first walk that also counts a parameter up": (
        _HOPS.replace("        q.pop();\n", "        q.pop();\n        to++;\n"),
        _HOPS_SIG,
        "counts what no distance needs",
    ),
    "a recursive walk testing its neighbours for marked": (
        _RECURSIVE.replace("!seen[k]", "seen[k] == true").replace(
            "    seen[u] = true;\n", "    if (seen[u]) return;\n    seen[u] = true;\n"
        ),
        _COUNTED_SIG,
        "another value than unmarked",
    ),
    "a recursive walk from one vertex, not each": (
        _RECURSIVE.replace(
            "    for (size_t i = 0; i < N; i++) {\n        if (!seen[i]) {\n            visit(A, N, i, seen);\n            ++count;\n        }\n    }\n",
            "    visit(A, N, 0, seen);\n",
        ),
        _COUNTED_SIG,
        "from each vertex in turn",
    ),
}


@pytest.mark.parametrize("case", sorted(_UNWALKED))
def test_walks_whose_result_the_levels_do_not_give_get_no_kernel(case: str) -> None:
    source, signature, reason = _UNWALKED[case]
    name = signature_params(signature)[0]
    with pytest.raises(AnnotationError, match=reason):
        kernel(source, analyse(source, Language.CPP), name, signature)


def test_a_for_each_by_value_runs_its_body_on_a_copy() -> None:
    """A by-value parameter is the element copied (converted to its type), so the body may
    change it without writing the vector, as the library's call does."""
    source = (
        "void f(std::vector<double> const &x, std::array<int, 4> &bins) {\n"
        "  std::for_each(x.begin(), x.end(), [&bins](int e) { e = e < 0 ? -e : e; bins[e % 4]++; });\n}\n"
    )
    lowered, _ = _lowered(source, analyse(source, Language.CPP), "f")
    assert "{ int e = x[k_0]; { e = e < 0 ? -e : e; bins[e % 4]++; } }" in lowered
    written = kernel(
        source,
        analyse(source, Language.CPP),
        "f",
        "__global__ void f(const double *x, size_t N, int bins[4])",
    )
    assert "pf_cuda_fold_plus(&bins[e % 4], 1)" in written


_MAP_HEAD = "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
_MAP_FILL = "  std::map<long long, long long> m;\n  for (const auto &v : x) m[v % 5] = v;\n"


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (
            _MAP_HEAD + _MAP_FILL + "  m[3] = 1;\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = m[x[i] % 5];\n}\n",
            "the map is written after its fill",
        ),
        (
            _MAP_HEAD
            + _MAP_FILL
            + "  for (size_t i = 0; i < x.size(); ++i) y[i] = m[x[i] % 5] + (long long)m.size();\n}\n",
            "what else the map holds is read (a missing key's read adds one)",
        ),
        (
            _MAP_HEAD + "  std::map<double, long long> m;\n  for (auto v : x) m[v * 0.5] = v;\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = m[x[i] * 0.5];\n}\n",
            "a key of doubles: the map's equivalence is not ==",
        ),
        (
            _MAP_HEAD + "  long long s = 2;\n  std::map<long long, long long> m;\n"
            "  for (auto v : x) m[v % 5] = v * s;\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = m[x[i] % 5];\n}\n",
            "the fill reads a local besides the element",
        ),
        (
            "void f(std::vector<long long> &x, std::vector<long long> &y) {\n"
            + _MAP_FILL
            + "  for (size_t i = 0; i < x.size(); ++i) { x[i] = 0; y[i] = m[i % 5]; }\n}\n",
            "the vector the searches would walk is written after the fill",
        ),
        (
            _MAP_HEAD
            + _MAP_FILL
            + "  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] > 0 && m[x[i] % 5] > 0;\n}\n",
            "a read the statement may not reach",
        ),
        (
            _MAP_HEAD + "  std::map<long long, long long> m;\n  for (int v : x) m[v % 5] += v;\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = m[x[i] % 5];\n}\n",
            "the element converted to another type: the search would read it unconverted",
        ),
        (
            _MAP_HEAD
            + _MAP_FILL.replace("std::map", "static std::map")
            + "  for (size_t i = 0; i < x.size(); ++i) y[i] = m[x[i] % 5];\n}\n",
            "a static map outlives the call",
        ),
        (
            _MAP_HEAD + _MAP_FILL + "  long long &r = m[1];\n  r = 5;\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = m[x[i] % 5];\n}\n",
            "a reference to an entry, written through",
        ),
        (
            _MAP_HEAD + _MAP_FILL + "  (m[1]) = 5;\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = m[x[i] % 5];\n}\n",
            "an entry written in parentheses",
        ),
        (
            _MAP_HEAD + _MAP_FILL + "  std::swap(m[0], m[1]);\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = m[x[i] % 5];\n}\n",
            "entries swapped",
        ),
        (
            _MAP_HEAD + _MAP_FILL + "  for (size_t i = 0; i < x.size(); ++i) {\n"
            "    std::map<long long, long long> m;\n    y[i] = m[i];\n  }\n}\n",
            "an inner block's map of the same name",
        ),
    ],
)
def test_what_map_gets_no_searches(source: str, why: str) -> None:
    """A map is read as searches of the vector that filled it only where nothing but reads of
    its keys follow the fill (`_map_lookups`)."""
    program = analyse(source, Language.CPP)
    assert _map_lookups(source, program, "f")[0] == source, why


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (
            "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
            "  y.resize(x.size(), 0);\n  for (size_t i = 0; i < x.size(); ++i) y[i] += x[i];\n}\n",
            "no clear: the caller's elements stay",
        ),
        (
            "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
            "  y.clear();\n  y.resize(x.size(), 0);\n  y.push_back(1);\n}\n",
            "its size changes after",
        ),
        (
            "long long f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
            "  y.clear();\n  y.resize(x.size() / 2);\n"
            "  for (size_t i = 0; i < y.size(); ++i) y[i] = x[i];\n  return y.size();\n}\n",
            "its size is read after",
        ),
        (
            "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
            "  y.clear();\n  long long c = y.size();\n  y.resize(x.size(), c);\n}\n",
            "read between the clear and the resize",
        ),
        (
            "void f(std::vector<long long> const &x, std::vector<long long> &y) {\n"
            "  y.clear();\n  if (x.empty() || x[0] < 0) return;\n  y.resize(x.size(), 1);\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] += x[i];\n}\n",
            "a way out between the clear and the resize leaves the vector empty",
        ),
        (
            "void f(std::vector<long long> const &x, std::vector<long long> y) {\n"
            "  y.clear();\n  y.resize(x.size(), 0);\n}\n",
            "a copy the function takes, not the caller's vector",
        ),
    ],
)
def test_what_refill_stays_as_it_is(source: str, why: str) -> None:
    """A vector cleared and resized is its fill only where it is the caller's and nothing after
    reads its size (`_refills`)."""
    program = analyse(source, Language.CPP)
    assert _refills(source, program, "f")[0] == source, why


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (
            "void f(std::vector<long long> &x, std::vector<long long> &y) {\n"
            "  for (long long k = 0; k < x[0]; ++k) {\n"
            "    for (size_t j = 0; j < x.size(); ++j) x[j] = x[j] - 1;\n  }\n}\n",
            "test reads an array",
        ),
        (
            "void f(std::vector<long long> &x, std::vector<long long> &y) {\n"
            "  for (size_t k = 0; k < 3; ++k) {\n    long long p = x[k]++;\n"
            "    for (size_t j = 0; j < y.size(); ++j) y[j] = y[j] + p;\n  }\n}\n",
            "does more between its loops",
        ),
        (
            "void f(std::vector<long long> &x, std::vector<long long> &y) {\n"
            "  for (int t = 0; t < 3; ++t) {\n"
            "    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] + 1;\n    x = y;\n"
            "    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * 2;\n  }\n}\n",
            "assigns an array",
        ),
    ],
)
def test_what_outer_loop_gets_no_phases(source: str, why: str) -> None:
    """An outer loop's loops run in phases only where every thread runs its iterations alike
    and the statements between them set scalars or store an element, nothing else."""
    with pytest.raises(AnnotationError, match=why):
        kernel(
            source,
            analyse(source, Language.CPP),
            "f",
            "__global__ void f(long long *x, long long *y, size_t N)",
        )


_PLACED_CHECK = """
int main() {
    for (size_t n : {0, 1, 2, 5, 64, 777, 3000}) {
        std::vector<T> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (T)((long long)((i * 7919) % 41) - 20) / (T)DIV;
        std::vector<T> want = x;
        F(want);
        for (auto &shape : PF_SHAPES) {
            std::vector<T> got = x;
            pf_launch(shape[0], shape[1], [&] { pf_gpu::F(got.data(), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
"""
"""Inputs with every residue of 41 about 20 below and above zero, each test's selection of
them sorted among their places by the function, then by the kernel under every launch shape."""


@pytest.mark.parametrize(
    ("source", "kind", "div"),
    [
        (  # counted loops, the counter stepped on its own line, kept space reserved
            """
void sortOdd(std::vector<long long> &x) {
    std::vector<long long> odd;
    odd.reserve(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        if (x[i] % 2 != 0) {
            odd.push_back(x[i]);
        }
    }
    std::sort(odd.begin(), odd.end());
    int k = 0;
    for (size_t i = 0; i < x.size(); i++)
        if (x[i] % 2 != 0) {
            x[i] = odd[k];
            k++;
        }
}
""",
            "long long",
            1,
        ),
        (  # floating numbers by a math test, descending by the library's order
            """
void sortLarge(std::vector<double> &x) {
    std::vector<double> big;
    for (const auto &v : x)
        if (std::fabs(v) > 1.5) big.emplace_back(v);
    std::sort(big.begin(), big.end(), std::greater<double>());
    size_t at = 0;
    for (double &v : x) {
        if (std::fabs(v) > 1.5) v = big[at++];
    }
}
""",
            "double",
            8,
        ),
        (  # the test reads a scalar the function takes, which the kernel takes too
            """
void sortAbove(std::vector<int> &x, int limit) {
    std::vector<int> kept;
    for (int v : x) if (v >= limit) kept.push_back(v);
    std::sort(kept.begin(), kept.end(), std::greater<int>());
    unsigned k = 0;
    for (auto &v : x) if (v >= limit) v = kept[k++];
}
""",
            "int",
            1,
        ),
        (  # a test with casts to two-word types, a counter started as `{0}`
            """
void sortSmallSquares(std::vector<int> &x) {
    std::vector<int> kept;
    for (int v : x) if ((long long)v * v < 200 && static_cast<unsigned int>(v) % 3u != 1u) kept.push_back(v);
    std::sort(kept.begin(), kept.end());
    std::size_t k{0};
    for (int &v : x) if ((long long)v * v < 200 && static_cast<unsigned int>(v) % 3u != 1u) v = kept[k++];
}
""",
            "int",
            1,
        ),
        (  # a comparison lambda: by magnitude, the sign breaking ties
            """
void sortPositiveFirst(std::vector<int> &x) {
    size_t next = 0;
    std::vector<int> kept;
    for (int v : x) if (v > -3) kept.push_back(v);
    std::sort(kept.begin(), kept.end(), [](int a, int b) { return std::abs(a) < std::abs(b) || (std::abs(a) == std::abs(b) && a < b); });
    for (auto &v : x) if (v > -3) v = kept[next++];
}
""",
            "int",
            1,
        ),
    ],
)
def test_a_sort_of_the_selected_elements_keeps_the_others_in_place(
    source: str, kind: str, div: int, tmp_path: Path
) -> None:
    """The elements a test selects, sorted among their own places (`_placed_sort_kernel`): in
    other spellings than the suite's, each under every launch shape, blocks in turn and at
    once."""
    name = source.split("void ")[1].split("(")[0]
    scalar = ", int limit" if "limit" in source else ""
    signature = f"__global__ void {name}({kind} *x, size_t N{scalar})"
    written = kernel(source, analyse(source, Language.CPP), name, signature)
    assert "malloc(" in written and "free(pf_kept)" in written
    check = _PLACED_CHECK.replace("std::vector<T>", f"std::vector<{kind}>").replace(
        "(T)", f"({kind})"
    )
    check = check.replace("DIV", str(div)).replace("F(", f"{name}(")
    if scalar:  # the selection at -4 and up, the same in both calls
        check = check.replace("(want)", "(want, -4)").replace(
            "got.data(), n)", "got.data(), n, -4)"
        )
    _emulate("#include <algorithm>\n" + source, written, check, tmp_path)
    _emulate("#include <algorithm>\n" + source, written, check, tmp_path, concurrent=True)


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        (  # written back where another test holds: places taken and filled differ
            """
void f(std::vector<int> &x) {
    std::vector<int> kept;
    for (int v : x) if (v != 0) kept.push_back(v);
    std::sort(kept.begin(), kept.end());
    size_t k = 0;
    for (auto &v : x) if (v > 0) v = kept[k++];
}
""",
            "other places",
        ),
        (  # the test reads a name the kernel does not take
            """
void f(std::vector<int> &x, int limit) {
    std::vector<int> kept;
    for (int v : x) if (v != limit) kept.push_back(v);
    std::sort(kept.begin(), kept.end());
    size_t k = 0;
    for (auto &v : x) if (v != limit) v = kept[k++];
}
""",
            "reads limit",
        ),
        (  # the counter starts one on
            """
void f(std::vector<int> &x) {
    std::vector<int> kept;
    for (int v : x) if (v != 0) kept.push_back(v);
    std::sort(kept.begin(), kept.end());
    size_t k = 1;
    for (auto &v : x) if (v != 0) v = kept[k++];
}
""",
            "first kept element",
        ),
        (  # more between: the kept elements changed after the sort
            """
void f(std::vector<int> &x) {
    std::vector<int> kept;
    for (int v : x) if (v != 0) kept.push_back(v);
    std::sort(kept.begin(), kept.end());
    kept[0] = 5;
    size_t k = 0;
    for (auto &v : x) if (v != 0) v = kept[k++];
}
""",
            "does more",
        ),
        (  # the elements converted as they are taken: the kept ones are not the vector's
            """
void f(std::vector<int> &x) {
    std::vector<int> kept;
    for (char v : x) if (v != 0) kept.push_back(v);
    std::sort(kept.begin(), kept.end());
    size_t k = 0;
    for (auto &v : x) if (v != 0) v = kept[k++];
}
""",
            "converts",
        ),
        (  # kept across calls: each call sorts what the calls before it took as well
            """
void f(std::vector<int> &x) {
    static std::vector<int> kept;
    for (int v : x) if (v != 0) kept.push_back(v);
    std::sort(kept.begin(), kept.end());
    size_t k = 0;
    for (auto &v : x) if (v != 0) v = kept[k++];
}
""",
            "outlives a call",
        ),
        (  # a counter of one byte wraps after 256 kept elements and writes them again
            """
void f(std::vector<int> &x) {
    std::vector<int> kept;
    for (int v : x) if (v != 0) kept.push_back(v);
    std::sort(kept.begin(), kept.end());
    unsigned char k = 0;
    for (auto &v : x) if (v != 0) v = kept[k++];
}
""",
            "32 bits",
        ),
        (  # a counter kept across calls
            """
void f(std::vector<int> &x) {
    std::vector<int> kept;
    for (int v : x) if (v != 0) kept.push_back(v);
    std::sort(kept.begin(), kept.end());
    static size_t k = 0;
    for (auto &v : x) if (v != 0) v = kept[k++];
}
""",
            "32 bits",
        ),
        (  # a second name in the counter's declaration, with an effect of its own
            """
void f(std::vector<int> &x) {
    std::vector<int> kept;
    for (int v : x) if (v != 0) kept.push_back(v);
    std::sort(kept.begin(), kept.end());
    size_t k = 0, junk = x.empty() ? 0 : (x[0] = 0);
    for (auto &v : x) if (v != 0) v = kept[k++];
}
""",
            "32 bits",
        ),
        (  # the counter the element itself: the element's value picks the place
            """
void f(std::vector<int> &x) {
    std::vector<int> kept;
    for (int v : x) if (v >= 1 && v <= 3) kept.push_back(v);
    std::sort(kept.begin(), kept.end());
    int v = 0;
    for (auto &v : x) if (v >= 1 && v <= 3) v = kept[v++];
}
""",
            "does not prove|does more between its loops",
        ),
        (  # a local the test reads, which hides the file's constant of that name
            """
const int K = 3;
void f(std::vector<int> &x) {
    size_t K = 0;
    std::vector<int> kept;
    for (int v : x) if (v > K + 5) kept.push_back(v);
    std::sort(kept.begin(), kept.end());
    for (auto &v : x) if (v > K + 5) v = kept[K++];
}
""",
            "names of its own",
        ),
        (  # the vector taken by value: the caller's stays as it was
            """
void f(std::vector<int> x) {
    std::vector<int> kept;
    for (int v : x) if (v != 0) kept.push_back(v);
    std::sort(kept.begin(), kept.end());
    size_t k = 0;
    for (auto &v : x) if (v != 0) v = kept[k++];
}
""",
            "its own copy of the caller.s array",
        ),
        (  # the library's order over another type: -1 compares as a large unsigned
            """
void f(std::vector<int> &x) {
    std::vector<int> kept;
    for (int v : x) if (v != 0) kept.push_back(v);
    std::sort(kept.begin(), kept.end(), std::less<unsigned>());
    size_t k = 0;
    for (auto &v : x) if (v != 0) v = kept[k++];
}
""",
            "converted",
        ),
    ],
)
def test_a_sort_among_places_it_cannot_prove_gets_no_kernel(source: str, reason: str) -> None:
    with pytest.raises(AnnotationError, match=reason):
        kernel(source, analyse(source, Language.CPP), "f", "__global__ void f(int *x, size_t N)")


def test_a_sort_among_places_past_its_static_store_takes_the_heap(tmp_path: Path) -> None:
    """Kept elements past the static store come from the device heap (freed by the block that
    ends last): the suite's task with a store of 64 bytes, under every launch shape."""
    t = next(t for t in _tasks() if t.problem == "44_sort_sort_non-zero_elements")
    written = _kernel(t)
    assert "unsigned char pf_kept_store[67108864]" in written
    small = written.replace("pf_kept_store[67108864]", "pf_kept_store[64]")
    _emulate(t.source, small, EMULATED[t.problem], tmp_path)
    _emulate(t.source, small, EMULATED[t.problem], tmp_path, concurrent=True)


_SEARCH_CHECK = """
int main() {
    for (size_t n : {0, 1, 7, 1000, 3000}) {
        for (size_t at : {(size_t)0, n / 2, n ? n - 1 : 0, n}) {  // n: no match at all
            std::vector<int> x(n);
            for (size_t i = 0; i < n; i++) x[i] = i == at || (at < n && i > at && i % 7 == 0) ? 50 : (int)(i % 40);
            long long want = (long long)F(x, 45);
            for (auto &shape : PF_SHAPES) {
                for (T start : {(T)0, (T)5, (T)n, (T)77}) {  // the driver's start takes no part
                    T got = start;
                    pf_launch(shape[0], shape[1], [&] { pf_gpu::F(x.data(), n, 45, &got); });
                    if ((long long)got != want) return 1;
                }
            }
        }
    }
    return 0;
}
"""
"""Searches for the first element above 45: at the start, the middle, the end (later ones too)
or nowhere, each kernel launched over results the driver started anywhere."""


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        (  # not found: -1, an index of another type
            """
int firstAbove(std::vector<int> const &x, int t) {
    for (int i = 0; i < (int)x.size(); ++i) {
        if (x[i] > t) return i;
    }
    return -1;
}
""",
            "int",
        ),
        (  # the index kept in a local and the loop left with `break`
            """
long firstAbove(std::vector<int> const &x, int t) {
    long at = -1;
    for (size_t i = 0; i < x.size(); i++) {
        if (x[i] > t) {
            at = i;
            break;
        }
    }
    return at;
}
""",
            "long",
        ),
        (  # a `while` search returning where it stopped
            """
size_t firstAbove(std::vector<int> const &x, int t) {
    size_t i = 0;
    while (i < x.size() && x[i] <= t) ++i;
    return i;
}
""",
            "size_t",
        ),
        (  # the library's search, as an index
            """
size_t firstAbove(std::vector<int> const &x, int t) {
    return std::distance(x.begin(), std::find_if(x.begin(), x.end(), [t](int v) { return v > t; }));
}
""",
            "size_t",
        ),
    ],
)
def test_a_search_writes_its_first_match_or_not_found_value_from_any_start(
    source: str, kind: str, tmp_path: Path
) -> None:
    """A first-index search's kernel writes the first match, or the function's own not-found
    value, whatever the driver started the result from (the block that ends last writes it)."""
    signature = f"__global__ void firstAbove(const int *x, size_t N, int t, {kind} *found)"
    written = kernel(source, analyse(source, Language.CPP), "firstAbove", signature)
    check = _SEARCH_CHECK.replace("F(", "firstAbove(").replace("(T)", f"({kind})")
    check = check.replace("T start", f"{kind} start").replace("T got", f"{kind} got")
    _emulate("#include <algorithm>\n" + source, written, check, tmp_path)
    _emulate("#include <algorithm>\n" + source, written, check, tmp_path, concurrent=True)


@pytest.mark.parametrize(
    "source",
    [
        # the index kept as `int` and returned as `long`: two conversions, not one
        """
long firstAbove(std::vector<int> const &x, int t) {
    int at = -1;
    for (size_t i = 0; i < x.size(); i++) {
        if (x[i] > t) { at = i; break; }
    }
    return at;
}
""",
        # the loop reads the index it keeps
        """
long firstAbove(std::vector<int> const &x, int t) {
    long at = -1;
    for (size_t i = 0; i < x.size(); i++) {
        if (x[i] > t + at) { at = i; break; }
    }
    return at;
}
""",
    ],
)
def test_an_index_kept_in_a_local_that_is_not_a_plain_search_gets_no_kernel(source: str) -> None:
    signature = "__global__ void firstAbove(const int *x, size_t N, int t, long *found)"
    with pytest.raises(AnnotationError):
        kernel(source, analyse(source, Language.CPP), "firstAbove", signature)


def test_a_float_max_of_magnitudes_keeps_its_type(tmp_path: Path) -> None:
    """`std::max(m, std::fabs(v))` over floats: the device's `fabs(float)`, so the fold stays
    in float, under every launch shape."""
    source = """
float maxAbs(std::vector<float> const &x) {
    float m = 0;
    for (float v : x) m = std::max(m, std::fabs(v));
    return m;
}
"""
    check = """
int main() {
    for (size_t n : {0, 1, 9, 1000}) {
        std::vector<float> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (float)((int)(i * 37 % 101) - 50) / 4.0f;
        float want = maxAbs(x);
        for (auto &shape : PF_SHAPES) {
            float got = -3.0f;
            pf_launch(shape[0], shape[1], [&] { pf_gpu::maxAbs(x.data(), n, &got); });
            if (got != want) return 1;
        }
    }
    return 0;
}
"""
    signature = "__global__ void maxAbs(const float *x, size_t N, float *m)"
    written = kernel(source, analyse(source, Language.CPP), "maxAbs", signature)
    _emulate("#include <algorithm>\n" + source, written, check, tmp_path)


@pytest.mark.parametrize(
    ("source", "signature", "check"),
    [
        (  # a variance: a sum and a sum of squares, the return's expression reads both
            """
double variance(std::vector<double> const &x) {
    double s = 0.0, sq = 0.0;
    for (double v : x) {
        s += v;
        sq += v * v;
    }
    double n = x.size();
    return sq / n - (s / n) * (s / n);
}
""",
            "__global__ void variance(const double *x, size_t N, double *out)",
            """
int main() {
    for (size_t n : {1, 9, 1000, 5000}) {
        std::vector<double> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (double)((i * 37) % 101) / 8.0 - 3.0;
        double want = variance(x);
        for (auto &shape : PF_SHAPES) {
            double got = 123.0;
            pf_launch(shape[0], shape[1], [&] { pf_gpu::variance(x.data(), n, &got); });
            if (std::fabs(got - want) > 1e-9 * (1.0 + std::fabs(want))) return 1;
        }
    }
    return 0;
}
""",
        ),
        (  # the mean of the positives: a sum and a count of different types
            """
float meanPositive(std::vector<float> const &x) {
    float s = 0;
    int c = 0;
    for (size_t i = 0; i < x.size(); i++) {
        if (x[i] > 0) {
            s += x[i];
            c++;
        }
    }
    return c == 0 ? 0.0f : s / c;
}
""",
            "__global__ void meanPositive(const float *x, size_t N, float *mean)",
            """
int main() {
    for (size_t n : {0, 1, 9, 1000}) {
        std::vector<float> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (float)((int)((i * 37) % 101) - 60) / 4.0f;
        float want = meanPositive(x);
        for (auto &shape : PF_SHAPES) {
            float got = -7.0f;
            pf_launch(shape[0], shape[1], [&] { pf_gpu::meanPositive(x.data(), n, &got); });
            if (std::fabs(got - want) > 1e-4f * (1.0f + std::fabs(want))) return 1;
        }
    }
    return 0;
}
""",
        ),
        (  # the range: a min and a max of one loop, from the function's own starts
            """
int spread(std::vector<int> const &x) {
    int lo = INT_MAX, hi = INT_MIN;
    for (int v : x) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    return x.empty() ? 0 : hi - lo;
}
""",
            "__global__ void spread(const int *x, size_t N, int *out)",
            """
int main() {
    for (size_t n : {0, 1, 9, 1000, 4099}) {
        std::vector<int> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (int)((i * 7919) % 1001) - 500;
        int want = spread(x);
        for (auto &shape : PF_SHAPES) {
            int got = 42;
            pf_launch(shape[0], shape[1], [&] { pf_gpu::spread(x.data(), n, &got); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
        ),
    ],
)
def test_several_reductions_of_one_loop_meet_in_the_return(
    source: str, signature: str, check: str, tmp_path: Path
) -> None:
    """Reductions that one loop folds together each get a total of their own; the block that
    ends last writes the return's expression of them all, whatever the driver's start."""
    name = signature_params(signature)[0]
    written = kernel(source, analyse(source, Language.CPP), name, signature)
    assert "pf_kernel_total_1" in written
    _emulate("#include <algorithm>\n#include <climits>\n" + source, written, check, tmp_path)
    _emulate(
        "#include <algorithm>\n#include <climits>\n" + source, written, check, tmp_path,
        concurrent=True,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("source", "signature", "check"),
    [
        (  # adjacent differences, the bound kept from wrapping below 1 element
            """
void diffs(std::vector<double> const &x, std::vector<double> &d) {
    for (size_t i = 0; i + 1 < x.size(); ++i) d[i] = x[i + 1] - x[i];
}
""",
            "__global__ void diffs(const double *x, double *d, size_t N)",
            """
int main() {
    for (size_t n : {0, 1, 2, 9, 1000}) {
        std::vector<double> x(n), want(n, -1.0);
        for (size_t i = 0; i < n; i++) x[i] = (double)((i * 37) % 101) / 8.0;
        diffs(x, want);
        for (auto &shape : PF_SHAPES) {
            std::vector<double> got(n, -1.0);
            pf_launch(shape[0], shape[1], [&] { pf_gpu::diffs(x.data(), got.data(), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
        ),
        (  # a 2-D stencil over the inner points, an int size and `1 + j`
            """
void smooth(std::vector<int> const &in, std::vector<int> &out, int n) {
    for (int i = 1; i + 1 < n; i++)
        for (int j = 1; 1 + j < n; j++)
            out[i * n + j] = in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] + in[i * n + j + 1];
}
""",
            "__global__ void smooth(const int *in, int *out, int n)",
            """
int main() {
    for (int n : {0, 1, 2, 3, 17}) {
        std::vector<int> in(n * n), want(n * n, 7);
        for (int i = 0; i < n * n; i++) in[i] = (i * 29) % 31;
        smooth(in, want, n);
        for (auto &shape : PF_SHAPES) {
            std::vector<int> got(n * n, 7);
            pf_launch(shape[0], shape[1], [&] { pf_gpu::smooth(in.data(), got.data(), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
        ),
    ],
)
def test_a_test_on_the_counter_plus_an_offset_runs_the_same_iterations(
    source: str, signature: str, check: str, tmp_path: Path
) -> None:
    """`i + 1 < x.size()`, the usual guard against an unsigned size wrapping, becomes a test
    of the counter alone with the same iterations (none where the size is below the offset)."""
    name = signature_params(signature)[0]
    written = kernel(source, analyse(source, Language.CPP), name, signature)
    _emulate(source, written, check, tmp_path)
    _emulate(source, written, check, tmp_path, concurrent=True)


_IN_PLACE_CHECK = """
int main() {
    for (size_t n : {0, 1, 2, 9, 1000, 5000}) {
        std::vector<T> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (T)((int)((i * 7919) % 2001) - 1000);
        std::vector<T> want = x;
        F(want);
        for (auto &shape : PF_SHAPES) {
            std::vector<T> got = x;
            pf_launch(shape[0], shape[1], [&] { pf_gpu::F(got.data(), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
"""


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        (  # a running maximum in place, by the library's max
            """
void F(std::vector<double> &x) {
    for (size_t i = 1; i < x.size(); ++i) x[i] = std::max(x[i], x[i - 1]);
}
""",
            "double",
        ),
        (  # a running minimum in place by a conditional expression
            """
void F(std::vector<int> &x) {
    for (size_t i = 1; i < x.size(); ++i) x[i] = x[i - 1] < x[i] ? x[i - 1] : x[i];
}
""",
            "int",
        ),
        (  # a running minimum in place, the element before first, an int counter, in braces
            """
void F(std::vector<int> &x) {
    for (int i = 1; i < (int)x.size(); i++) {
        x[i] = std::min(x[i - 1], x[i]);
    }
}
""",
            "int",
        ),
    ],
)
def test_an_in_place_running_extreme_is_a_scan(source: str, kind: str, tmp_path: Path) -> None:
    """`x[i] = max(x[i], x[i - 1])` reads the element the iteration before stored: written
    with a running value of its own, it is the scan it is, the same values under every
    launch shape (empty and one-element vectors read nothing)."""
    written = kernel(
        source, analyse(source, Language.CPP), "F", f"__global__ void F({kind} *x, size_t N)"
    )
    assert "pf_scan_ticket" in written
    check = _IN_PLACE_CHECK.replace("std::vector<T>", f"std::vector<{kind}>").replace(
        "(T)", f"({kind})"
    )
    _emulate("#include <algorithm>\n" + source, written, check, tmp_path)
    _emulate("#include <algorithm>\n" + source, written, check, tmp_path, concurrent=True)


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("return std::accumulate(x.begin(), x.end(), 1.0, std::multiplies<double>());", "double"),
        ("return std::accumulate(x.begin(), x.end(), 0.0, std::plus<>());", "double"),
        (
            "return std::accumulate(x.begin(), x.end(), 0.0, "
            "[](double a, double b) { return a + b * b; });",
            "double",
        ),
        (
            "return std::accumulate(x.begin(), x.end(), -5, "
            "[](int a, int b) { return std::max(a, b); });",
            "int",
        ),
    ],
)
def test_an_accumulate_with_an_operation_is_its_reduction(
    body: str, kind: str, tmp_path: Path
) -> None:
    """`std::accumulate` with the library's `plus` or `multiplies`, or a lambda of the running
    value and an element, is the loop it runs, folded as its reduction."""
    source = f"#include <numeric>\n{kind} f(std::vector<{kind}> const &x) {{\n    {body}\n}}\n"
    signature = f"__global__ void f(const {kind} *x, size_t N, {kind} *out)"
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    check = f"""
int main() {{
    for (size_t n : {{0, 1, 9, 1000}}) {{
        std::vector<{kind}> x(n);
        for (size_t i = 0; i < n; i++) x[i] = ({kind})(1.0 + (double)((int)(i % 7) - 3) / 1024.0) * ({kind})(i % 5 == 0 ? 1 : 1);
        {kind} want = f(x);
        for (auto &shape : PF_SHAPES) {{
            {kind} got = ({kind})(-9);
            pf_launch(shape[0], shape[1], [&] {{ pf_gpu::f(x.data(), n, &got); }});
            if (std::fabs((double)got - (double)want) > 1e-9 * (1.0 + std::fabs((double)want))) return 1;
        }}
    }}
    return 0;
}}
"""
    _emulate("#include <algorithm>\n#include <climits>\n" + source, written, check, tmp_path)


@pytest.mark.parametrize(
    ("source", "signature"),
    [
        (  # every element written; the kernel's output of the vector's name
            """
std::vector<double> scaled(std::vector<double> const &x, double a) {
    std::vector<double> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = a * x[i] + 1.0;
    return y;
}
""",
            "__global__ void scaled(const double *x, double a, double *y, size_t N)",
        ),
        (  # only some elements written, the rest the vector's fill; the kernel's output `out`
            """
std::vector<double> scaled(std::vector<double> const &x, double a) {
    std::vector<double> kept(x.size(), -1.0);
    for (size_t i = 0; i < x.size(); ++i) {
        if (x[i] > 0) kept[i] = a * x[i];
    }
    return kept;
}
""",
            "__global__ void scaled(const double *x, double a, double *out, size_t N)",
        ),
    ],
)
def test_a_returned_vector_is_the_kernels_output(
    source: str, signature: str, tmp_path: Path
) -> None:
    """A function that returns a vector it declares fills the kernel's output instead: the
    vector's first values (its fill, or zero: the driver's buffer may hold anything), then
    the loop's, under every launch shape."""
    written = kernel(source, analyse(source, Language.CPP), "scaled", signature)
    check = """
int main() {
    for (size_t n : {0, 1, 9, 1000}) {
        std::vector<double> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (double)((int)((i * 37) % 101) - 50) / 8.0;
        std::vector<double> want = scaled(x, 1.5);
        for (auto &shape : PF_SHAPES) {
            std::vector<double> got(n, 77.0);
            pf_launch(shape[0], shape[1], [&] { pf_gpu::scaled(x.data(), 1.5, got.data(), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
"""
    _emulate(source, written, check, tmp_path)
    _emulate(source, written, check, tmp_path, concurrent=True)


@pytest.mark.parametrize(
    "body",
    [
        "auto it = std::find(x.begin(), x.end(), t);\n    return it - x.begin();",
        "auto it = std::find(x.begin(), x.end(), t);\n"
        "    return it == x.end() ? -1 : (long)(it - x.begin());",
        "auto it = std::find_if(x.begin(), x.end(), [t](int v) { return v > t; });\n"
        "    return x.end() != it ? std::distance(x.begin(), it) : -1;",
    ],
)
def test_a_found_iterators_index_is_a_search(body: str, tmp_path: Path) -> None:
    """The index of the iterator `std::find` or `find_if` returns, or the value the function
    returns where it is the end, is the first-index search the library runs."""
    source = f"long firstAbove(std::vector<int> const &x, int t) {{\n    {body}\n}}\n"
    signature = "__global__ void firstAbove(const int *x, size_t N, int t, long *found)"
    written = kernel(source, analyse(source, Language.CPP), "firstAbove", signature)
    check = _SEARCH_CHECK.replace("F(", "firstAbove(").replace("(T)", "(long)")
    check = check.replace("T start", "long start").replace("T got", "long got")
    if "std::find(" in body:  # the element equal to 50, where the check plants it
        check = check.replace("45", "50")
    _emulate("#include <algorithm>\n" + source, written, check, tmp_path)
    _emulate("#include <algorithm>\n" + source, written, check, tmp_path, concurrent=True)


@pytest.mark.parametrize(
    ("call", "expect"),
    [
        (
            "std::transform(a.begin(), a.end(), b.begin(), c.begin(), std::plus<double>());",
            "a[i] + b[i]",
        ),
        (
            "std::transform(a.begin(), a.end(), b.begin(), c.begin(), std::minus<>{});",
            "a[i] - b[i]",
        ),
        ("std::transform(a.begin(), a.end(), c.begin(), std::negate<double>());", "-a[i]"),
    ],
)
def test_a_transform_by_the_librarys_operation_is_its_map(
    call: str, expect: str, tmp_path: Path
) -> None:
    """`std::transform` with `std::plus`, `minus` or `negate` is the map it runs."""
    source = (
        "void f(std::vector<double> const &a, std::vector<double> const &b, "
        f"std::vector<double> &c) {{\n    {call}\n}}\n"
    )
    signature = "__global__ void f(const double *a, const double *b, double *c, size_t N)"
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    check = f"""
int main() {{
    for (size_t n : {{0, 1, 9, 1000}}) {{
        std::vector<double> a(n), b(n);
        for (size_t i = 0; i < n; i++) {{ a[i] = (double)(i % 13) / 4.0; b[i] = (double)(i % 7) - 3.0; }}
        std::vector<double> want(n);
        for (size_t i = 0; i < n; i++) want[i] = {expect};
        for (auto &shape : PF_SHAPES) {{
            std::vector<double> got(n, 5.0);
            pf_launch(shape[0], shape[1], [&] {{ pf_gpu::f(a.data(), b.data(), got.data(), n); }});
            if (got != want) return 1;
        }}
    }}
    return 0;
}}
"""
    _emulate("#include <algorithm>\n#include <functional>\n" + source, written, check, tmp_path)


def test_an_iota_from_an_integer_is_its_map(tmp_path: Path) -> None:
    """`std::iota` from an integer start is the map `x[k] = start + k`; from a floating start
    (whose increments round at each step) it stays a call."""
    source = "void f(std::vector<long> &x, int s) {\n    std::iota(x.begin(), x.end(), s);\n}\n"
    written = kernel(
        source, analyse(source, Language.CPP), "f", "__global__ void f(long *x, size_t N, int s)"
    )
    check = """
int main() {
    for (size_t n : {0, 1, 9, 1000}) {
        for (int s : {-5, 0, 7}) {
            std::vector<long> want(n, 3);
            f(want, s);
            for (auto &shape : PF_SHAPES) {
                std::vector<long> got(n, 3);
                pf_launch(shape[0], shape[1], [&] { pf_gpu::f(got.data(), n, s); });
                if (got != want) return 1;
            }
        }
    }
    return 0;
}
"""
    _emulate("#include <numeric>\n" + source, written, check, tmp_path)
    floating = "void f(std::vector<double> &x) {\n    std::iota(x.begin(), x.end(), 0.1);\n}\n"
    with pytest.raises(AnnotationError):
        kernel(
            floating, analyse(floating, Language.CPP), "f", "__global__ void f(double *x, size_t N)"
        )


def test_a_bound_declared_beside_the_counter_is_declared_before_the_loop(tmp_path: Path) -> None:
    """`for (size_t i = 0, n = x.size(); i < n; ++i)`: the bound declared before the loop, the
    loop a counted one, the same count under every launch shape."""
    source = """
int countInRange(std::vector<int> const &x, int lo, int hi) {
    int c = 0;
    for (size_t i = 0, n = x.size(); i < n; ++i)
        if (x[i] >= lo && x[i] < hi) c++;
    return c;
}
"""
    signature = "__global__ void countInRange(const int *x, size_t N, int lo, int hi, int *count)"
    written = kernel(source, analyse(source, Language.CPP), "countInRange", signature)
    check = """
int main() {
    for (size_t n : {0, 1, 9, 1000}) {
        std::vector<int> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (int)((i * 37) % 101);
        int want = countInRange(x, 10, 60);
        for (auto &shape : PF_SHAPES) {
            int got = 5;
            pf_launch(shape[0], shape[1], [&] { pf_gpu::countInRange(x.data(), n, 10, 60, &got); });
            if (got != want) return 1;
        }
    }
    return 0;
}
"""
    _emulate(source, written, check, tmp_path)


@pytest.mark.parametrize(
    ("source", "signature"),
    [
        (  # the library's operation over another type: each step converts the total
            "double f(std::vector<double> const &x) {\n"
            "    return std::accumulate(x.begin(), x.end(), 0.0, std::plus<int>());\n}\n",
            "__global__ void f(const double *x, size_t N, double *out)",
        ),
        (  # a returned vector with another way out
            "std::vector<double> f(std::vector<double> const &x) {\n"
            "    if (x.empty()) return {};\n"
            "    std::vector<double> y(x.size());\n"
            "    for (size_t i = 0; i < x.size(); ++i) y[i] = 2 * x[i];\n"
            "    return y;\n}\n",
            "__global__ void f(const double *x, double *y, size_t N)",
        ),
    ],
)
def test_spellings_that_would_change_the_result_get_no_kernel(source: str, signature: str) -> None:
    with pytest.raises(AnnotationError):
        kernel(source, analyse(source, Language.CPP), "f", signature)


@pytest.mark.parametrize(
    ("source", "signature", "check"),
    [
        (  # a sum through an iterator
            """
double total(std::vector<double> const &x) {
    double s = 0;
    for (auto it = x.begin(); it != x.end(); ++it) s += *it;
    return s;
}
""",
            "__global__ void total(const double *x, size_t N, double *s)",
            """
int main() {
    for (size_t n : {0, 1, 9, 1000}) {
        std::vector<double> x(n);
        for (size_t i = 0; i < n; i++) x[i] = (double)(i % 17) / 4.0;
        double want = total(x);
        for (auto &shape : PF_SHAPES) {
            double got = 3.0;
            pf_launch(shape[0], shape[1], [&] { pf_gpu::total(x.data(), n, &got); });
            if (std::fabs(got - want) > 1e-9 * (1.0 + std::fabs(want))) return 1;
        }
    }
    return 0;
}
""",
        ),
        (  # members through `->`, written through the iterator's type spelled out
            """
struct Item { double w; double v; };
void scale(std::vector<Item> &x) {
    for (std::vector<Item>::iterator it = x.begin(); it < x.end(); it++) it->v = it->v * it->w;
}
""",
            "__global__ void scale(Item *x, size_t N)",
            """
int main() {
    for (size_t n : {0, 1, 9, 1000}) {
        std::vector<Item> x(n);
        for (size_t i = 0; i < n; i++) x[i] = {(double)(i % 5), (double)(i % 7)};
        std::vector<Item> want = x;
        scale(want);
        for (auto &shape : PF_SHAPES) {
            std::vector<pf_gpu::Item> got(n);
            for (size_t i = 0; i < n; i++) got[i] = {x[i].w, x[i].v};
            pf_launch(shape[0], shape[1], [&] { pf_gpu::scale(got.data(), n); });
            for (size_t i = 0; i < n; i++) if (got[i].v != want[i].v || got[i].w != want[i].w) return 1;
        }
    }
    return 0;
}
""",
        ),
    ],
)
def test_a_loop_by_iterator_is_its_counted_loop(
    source: str, signature: str, check: str, tmp_path: Path
) -> None:
    """A loop over a vector by iterator, reading `*it` and `it->m` alone, is the counted loop
    over its indices, under every launch shape."""
    name = signature_params(signature)[0]
    written = kernel(source, analyse(source, Language.CPP), name, signature)
    _emulate(source, written, check, tmp_path)
    _emulate(source, written, check, tmp_path, concurrent=True)


def test_an_iterator_used_otherwise_keeps_its_loop_as_written() -> None:
    """`it + 1` reads past the iterator's own element: no counted loop is written for it."""
    source = """
double diffs(std::vector<double> const &x) {
    double s = 0;
    for (auto it = x.begin(); it != x.end(); ++it) s += *(it + 1) - *it;
    return s;
}
"""
    with pytest.raises(AnnotationError):
        kernel(
            source, analyse(source, Language.CPP), "diffs",
            "__global__ void diffs(const double *x, size_t N, double *s)",
        )  # fmt: skip


_ONE_THREAD = {
    "a column's largest element, read by every row": (
        """
void scaleByPivots(std::vector<double> const &A, std::vector<double> &B, size_t N) {
    for (size_t c = 0; c < N; ++c) {
        size_t big = 0;
        for (size_t r = 1; r < N; ++r) {
            if (std::abs(A[r * N + c]) > std::abs(A[big * N + c])) big = r;
        }
        double m = A[big * N + c] + (double)big;
        for (size_t r = 0; r < N; ++r) {
            for (size_t k = 0; k < N; ++k) B[r * N + k] += A[big * N + k] * m;
        }
    }
}
""",
        "__global__ void scaleByPivots(const double *A, double *B, size_t N)",
        """
int main() {
    for (size_t n : {1, 3, 17}) {
        std::vector<double> a(n * n);
        for (size_t k = 0; k < n * n; k++) a[k] = (double)((k * 7919) % 23) - 11.0;
        std::vector<double> want(n * n, 1.0);
        scaleByPivots(a, want, n);
        for (auto &shape : PF_SHAPES) {
            std::vector<double> got(n * n, 1.0);
            pf_launch(shape[0], shape[1], [&] { pf_gpu::scaleByPivots(a.data(), got.data(), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
""",
    ),
    "a scratch copy, changed by one thread, read by the rows": (
        """
void shiftedRows(std::vector<int> const &x, std::vector<int> &y) {
    size_t N = x.size();
    std::vector<int> w(x.begin(), x.end());
    std::vector<long long> seen(N, 2);
    int carry = 0;
    for (size_t i = 0; i < N; ++i) {
        carry = (carry + w[i]) % 5;
        w[i] = carry;
    }
    for (size_t i = 0; i < N; ++i) {
        for (size_t j = 0; j < N; ++j) y[i * N + j] = w[j] * (int)seen[i] + carry;
    }
}
""",
        "__global__ void shiftedRows(const int *x, int *y, size_t N)",
        """
int main() {
    for (size_t n : {1, 4, 21}) {
        std::vector<int> x(n);
        for (size_t k = 0; k < n; k++) x[k] = (int)((k * 31) % 9);
        std::vector<int> want(n * n, 0);
        shiftedRows(x, want);
        for (auto &shape : PF_SHAPES) {
            for (int twice = 0; twice < 2; twice++) {
                std::vector<int> got(n * n, -1);
                pf_launch(shape[0], shape[1], [&] { pf_gpu::shiftedRows(x.data(), got.data(), n); });
                if (got != want) return 1;
            }
        }
    }
    return 0;
}
""",
    ),
}


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_ONE_THREAD))
def test_one_threads_statements_pass_their_scalars_to_every_thread(
    case: str, tmp_path: Path
) -> None:
    """Loops the analysis does not prove, between loops that run across the threads, run on
    one thread between barriers; the scalars they assign reach every thread, and the
    function's vectors are the kernel's own arrays. The check fails without the scalars
    passed on (every other thread keeps its own first value)."""
    source, signature, check = _ONE_THREAD[case]
    name = signature.split("(")[0].split()[-1]
    written = kernel(source, analyse(source, Language.CPP), name, signature)
    assert "pf_passed[0]" in written
    for concurrent in (False, True):
        _emulate(source, written, check, tmp_path, concurrent=concurrent)
    alone = re.sub(r"\n    \{ const unsigned long long pf_w = [^\n]*", "", written)
    assert alone != written
    with pytest.raises(AssertionError, match="int main"):
        _emulate(source, alone, check, tmp_path)  # a seated block's other threads


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (
            "void f(std::vector<int> &x, std::vector<int> &y, size_t N) {\n"
            "  for (size_t i = 0; i < N; ++i) y[i] = x[i] * 2;\n"
            "  for (size_t i = 1; i < N; ++i) y[i] += y[i - 1];\n}\n",
            "keep an index or a running value",
        ),
        (
            "void f(std::vector<int> &x, std::vector<int> &y, size_t N) {\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] = x[j];\n"
            "  for (size_t i = 1; i < N; ++i) for (size_t j = 1; j < N; ++j) y[i * N + j] += y[i * N + j - 1];\n}\n",
            "the analysis does not prove the loop",
        ),
        (
            "void f(std::vector<int> &x, std::vector<int> &y, size_t N) {\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] = x[j];\n"
            "  while (x[0] > 0) { x[0] -= 1; }\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] += x[0];\n}\n",
            None,
        ),
        (
            "void f(std::vector<int> &x, std::vector<int> &y, size_t N) {\n"
            "  for (size_t t = 0; t < N; ++t) {\n"
            "    if (x[t] < 0) return;\n"
            "    for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] += x[j];\n"
            "  }\n}\n",
            "does more between its loops",
        ),
        (
            "void f(std::vector<int> &x, std::vector<int> &y, size_t N) {\n"
            "  for (size_t t = 0; t < N; ++t) {\n"
            "    for (size_t i = 1; i < N; ++i) { if (x[i] < 0) break; x[i] += x[i - 1]; }\n"
            "    for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] += x[j];\n"
            "  }\n  std::vector<int> w;\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] += x[j];\n}\n",
            "does more between its loops",
        ),
    ],
)
def test_what_one_thread_does_not_run(source: str, why: str | None) -> None:
    """One thread runs a loop the analysis does not prove only where a deeper nest runs across
    the threads (else the launch would be one thread's speed), and only a statement that
    leaves by its end; an empty vector has no length the kernel could give it."""
    program = analyse(source, Language.CPP)
    signature = "__global__ void f(int *x, int *y, size_t N)"
    if why is None:
        written = kernel(source, program, "f", signature)  # the while loop is lighter
        assert "if (pf_seated == 1 && pf_lane == 0) { while (x[0] > 0)" in written
        return
    with pytest.raises(AnnotationError, match=why):
        kernel(source, program, "f", signature)


_STORES_BETWEEN = [
    "void f(std::vector<double> &x) {\n  double s = 0;\n"
    "  for (size_t i = 0; i < x.size(); ++i) s += x[i];\n  x[0] = s;\n"
    "  for (size_t i = 1; i < x.size(); ++i) x[i] += 1;\n}\n",
    "void f(std::vector<double> &x) {\n"
    "  for (size_t i = 0; i < x.size(); ++i) x[i] *= 2;\n  x[0] = 1;\n"
    "  for (size_t i = 0; i < x.size(); ++i) x[i] += 1;\n}\n",
]


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("source", _STORES_BETWEEN, ids=["a total's store", "a constant's"])
def test_a_store_between_loops_is_one_threads(source: str, tmp_path: Path) -> None:
    """An element's store between loops run in phases (once refused: every thread would have
    made it) is one thread's, between barriers, after every thread has the loop's total."""
    written = kernel(
        source, analyse(source, Language.CPP), "f", "__global__ void f(double *x, size_t N)"
    )
    assert "if (pf_seated == 1 && pf_lane == 0) { x[0] =" in written
    check = """
int main() {
    for (size_t n : {1, 5, 300}) {
        std::vector<double> x(n);
        for (size_t k = 0; k < n; k++) x[k] = (double)((k * 13) % 7) - 3.0;
        std::vector<double> want = x;
        f(want);
        for (auto &shape : PF_SHAPES) {
            std::vector<double> got = x;
            pf_launch(shape[0], shape[1], [&] { pf_gpu::f(got.data(), n); });
            if (got != want) return 1;
        }
    }
    return 0;
}
"""
    _emulate(source, written, check, tmp_path)


_MAP_CHECK = """
int main() {
    for (size_t n : {0, 1, 4, 13}) {
        std::vector<double> x(n);
        for (size_t k = 0; k < n; k++) x[k] = (double)((k * 7919) % 23) - 11.0;
        std::vector<double> want(n * n, 0.5);
        CALL_SEQUENTIAL;
        for (auto &shape : PF_SHAPES) {
            std::vector<double> got(n * n, 0.5);
            pf_launch(shape[0], shape[1], [&] { CALL_KERNEL; });
            if (got != want) return 1;
        }
    }
    return 0;
}
"""

_ONE_THREAD_SPELLINGS = {
    "scalars swapped": (
        "void f(std::vector<double> const &x, std::vector<double> &y, size_t N) {\n"
        "    for (size_t k = 0; k < N; ++k) {\n"
        "        double lo = x[k];\n        double hi = x[N - 1 - k];\n"
        "        if (lo > hi) std::swap(lo, hi);\n"
        "        for (size_t i = 0; i < N; ++i)\n"
        "            for (size_t j = 0; j < N; ++j) y[i * N + j] += (hi - lo) * (double)k;\n"
        "    }\n}\n",
        "f(x, want, n)",
    ),
    "a range loop in an if with an else": (
        "void f(std::vector<double> const &x, std::vector<double> &y) {\n"
        "    size_t N = x.size();\n"
        "    for (size_t i = 0; i < N; ++i)\n"
        "        for (size_t j = 0; j < N; ++j) y[i * N + j] = x[i] * x[j];\n"
        "    double s = 0;\n"
        "    if (N > 3) for (double v : x) s += v * v; else s = -1.0;\n"
        "    for (size_t i = 0; i < N; ++i)\n"
        "        for (size_t j = 0; j < N; ++j) y[i * N + j] += s;\n}\n",
        "f(x, want)",
    ),
    "a size guard's size, then the size changed": (
        "void f(std::vector<double> const &x, std::vector<double> &y, size_t N) {\n"
        '    if (x.size() != N) throw std::invalid_argument("x");\n'
        "    for (size_t i = 0; i < N; ++i)\n"
        "        for (size_t j = 0; j < N; ++j) y[i * N + j] = x[j];\n"
        "    if (N > 2) N = N - 1;\n"
        "    for (size_t i = 0; i < N; ++i)\n"
        "        for (size_t j = 0; j < N; ++j) y[i * N + j] += (double)x.size();\n}\n",
        "f(x, want, n)",
    ),
    "a name an if's condition declares": (
        "void f(std::vector<double> const &x, std::vector<double> &y, size_t N) {\n"
        "    for (size_t i = 0; i < N; ++i)\n"
        "        for (size_t j = 0; j < N; ++j) y[i * N + j] = x[i] + x[j];\n"
        "    double base = 1;\n"
        "    if (double s = (N > 0 ? y[0] : 0); s < 100) { s += 3; base = s; }\n"
        "    for (size_t i = 0; i < N; ++i)\n"
        "        for (size_t j = 0; j < N; ++j) y[i * N + j] *= base;\n}\n",
        "f(x, want, n)",
    ),
    "a scalar declared before, summed by one thread": (
        "void f(std::vector<double> const &x, std::vector<double> &y, size_t N) {\n"
        "    double s = 0;\n"
        "    for (size_t i = 0; i < N; ++i) { if (x[i] > 9) break; s += x[i]; }\n"
        "    for (size_t i = 0; i < N; ++i)\n"
        "        for (size_t j = 0; j < N; ++j) y[i * N + j] = x[i] * s;\n}\n",
        "f(x, want, n)",
    ),
    "a while loop before the loops, a store after them": (
        "void f(std::vector<double> const &x, std::vector<double> &y, size_t N) {\n"
        "    size_t p = 1;\n"
        "    while (p < N) p *= 2;\n"
        "    for (size_t i = 0; i < N; ++i)\n"
        "        for (size_t j = 0; j < N; ++j) y[i * N + j] = x[i] * (double)p + x[j];\n"
        "    if (N > 1) y[1] = -1.0;\n}\n",
        "f(x, want, n)",
    ),
    "a histogram into the function's vector, of size_t, and copies of copies": (
        "void f(std::vector<double> const &x, std::vector<double> &y) {\n"
        "    size_t N = x.size();\n"
        "    std::vector<std::size_t> counts(4, 0);\n"
        "    for (size_t i = 0; i < N; ++i) counts[(size_t)std::fabs(x[i]) % 4]++;\n"
        "    std::vector<double> w(x.begin(), x.end());\n"
        "    std::vector<double> c(w.begin(), w.end());\n"
        "    for (size_t i = 0; i < N; ++i)\n"
        "        for (size_t j = 0; j < N; ++j) y[i * N + j] = (double)counts[j % 4] + c[i];\n}\n",
        "f(x, want)",
    ),
    "a copy of the function's own vector": (
        "void f(std::vector<double> const &x, std::vector<double> &y, size_t N) {\n"
        "    std::vector<double> w(N, 1.5);\n"
        "    std::vector<double> c(w);\n"
        "    for (size_t i = 0; i < N; ++i)\n"
        "        for (size_t j = 0; j < N; ++j) y[i * N + j] = c[j] * x[i];\n}\n",
        "f(x, want, n)",
    ),
}


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("case", sorted(_ONE_THREAD_SPELLINGS))
def test_one_threads_spellings_keep_the_functions_meaning(case: str, tmp_path: Path) -> None:
    """A helper's probe of the one-thread path: each of these was a wrong kernel or one that
    did not build (a swap's scalars not passed on, an `else` taken by the range loop's
    rewrite, a guard's size read after the size changed, a name an `if` declares passed on
    outside it, a scalar declared before the loops taken for an array)."""
    source, sequential = _ONE_THREAD_SPELLINGS[case]
    signature = "__global__ void f(const double *x, double *y, size_t N)"
    written = kernel(source, analyse(source, Language.CPP), "f", signature)
    check = _MAP_CHECK.replace("CALL_SEQUENTIAL", sequential).replace(
        "CALL_KERNEL", "pf_gpu::f(x.data(), got.data(), n)"
    )
    _emulate(source, written, check, tmp_path)
    _emulate(source, written, check, tmp_path, concurrent=True)


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (
            "void f(std::vector<double> const &x, std::vector<double> &y, size_t N) {\n"
            "  double best = -1.0;\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] = x[j];\n"
            "  for (size_t i = 0; i < N; ++i) { double &b = best; if (x[i] > b) b = x[i];"
            " if (b > 6) break; }\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] -= best;\n}\n",
            "a reference",
        ),
        (
            "static void bump(double &acc, double v) { if (v > acc) acc = v; }\n"
            "void f(std::vector<double> const &x, std::vector<double> &y, size_t N) {\n"
            "  double best = -1.0;\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] = x[j];\n"
            "  for (size_t i = 0; i < N; ++i) { bump(best, x[i]); if (best > 6) break; }\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] -= best;\n}\n",
            "may change what it is given",
        ),
        (
            "static void keep(double *acc, double v) { if (v > *acc) *acc = v; }\n"
            "void f(std::vector<double> const &x, std::vector<double> &y, size_t N) {\n"
            "  double best = -1.0;\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] = x[j];\n"
            "  for (size_t i = 0; i < N; ++i) { keep(&best, x[i]); if (best > 6) break; }\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] -= best;\n}\n",
            "a reference or address",
        ),
        (
            "void f(std::vector<double> const &x, std::vector<double> &y, size_t N) {\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] = x[j];\n"
            "  double a = 0, b = 0;\n  if (N > 1) (N % 2 ? a : b) = 42.0;\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] += a - b;\n}\n",
            "assigns through",
        ),
        (
            "void f(std::vector<double> const &x, std::vector<double> &y, size_t N) {\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] = x[j];\n"
            "  long double acc = 0;\n"
            "  for (size_t i = 0; i < N; ++i) { acc += x[i]; if (acc > 30) break; }\n"
            "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] += (double)acc;\n}\n",
            "no device word holds it",
        ),
        (
            "void f(std::vector<double> const &x, std::vector<double> &y) {\n"
            "  std::vector<double> cur(x);\n  std::vector<double> nxt(x.size(), 0.0);\n"
            "  for (int t = 0; t < 4; ++t) {\n"
            "    for (size_t i = 1; i + 1 < x.size(); ++i) nxt[i] = (cur[i - 1] + cur[i] + cur[i + 1]) / 3.0;\n"
            "    std::swap(cur, nxt);\n  }\n"
            "  for (size_t i = 0; i < x.size(); ++i) y[i] = cur[i];\n}\n",
            "whole",
        ),
    ],
    ids=["a reference", "a helper by reference", "an address", "a choice of names", "long double",
         "vectors swapped whole"],
)  # fmt: skip
def test_what_one_thread_may_not_assign(source: str, why: str) -> None:
    """What one thread assigns reaches the others only by name: a scalar's other name (a
    reference, an address, a helper's reference parameter, a conditional's choice), a type
    wider than a device word, or a whole vector gets no kernel."""
    with pytest.raises(AnnotationError, match=why):
        kernel(
            source,
            analyse(source, Language.CPP),
            "f",
            "__global__ void f(const double *x, double *y, size_t N)",
        )


_HULLISH = """
struct P { double x, y; };
double span(std::vector<P> const &points) {
    std::vector<P> p(points);
    std::sort(p.begin(), p.end(), ORDER);
    if (p.size() < 2) return 0.0;
    std::vector<P> h(2 * p.size());
    size_t k = 0;
    for (size_t i = 0; i < p.size(); ++i) {
        while (k >= 1 && h[k - 1].y > p[i].y) k--;
        h[k++] = p[i];
    }
    double total = 0.0;
    for (size_t i = 0; i + 1 < k; ++i) total += h[i + 1].x - h[i].x;
    return total;
}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_a_sorts_order_brings_the_constants_it_reads(tmp_path: Path) -> None:
    """The order of a sort between phases may read a constant of the source that nothing
    else reads: the kernel brings it (a helper's probe found it missing, which only a real
    build shows: the emulation sees the source's own)."""
    source = "constexpr int MOD = 7;\n" + _HULLISH.replace(
        "ORDER", "[](P const &a, P const &b) { return (long)a.x % MOD < (long)b.x % MOD; }"
    )
    signature = "__global__ void span(const P *points, size_t N, double *out)"
    written = kernel(source, analyse(source, Language.CPP), "span", signature)
    assert "MOD" in written.split("pf_sort_before")[0]
    _builds_with_nvcc(written, tmp_path)


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (
            _HULLISH.replace("std::sort(p.begin(), p.end(), ORDER);", "std::sort(p.begin(), p.end());"),
            "by an operator the device lacks",
        ),
        (
            _HULLISH.replace("for (size_t i = 0; i < p.size(); ++i) {", "for (size_t i = 0; i < p.size(); ++i, k = i) {")
            .replace("ORDER", "[](P const &a, P const &b) { return a.x < b.x; }"),
            "not a counted for loop",
        ),
        (
            _HULLISH.replace("        h[k++] = p[i];", "        h[k++] = p[i];\n        if (k > 3) h[k++] = p[i];")
            .replace("ORDER", "[](P const &a, P const &b) { return a.x < b.x; }"),
            "not prove",
        ),
    ],
    ids=["structs by their operator", "a stack set again in the header", "two pushes"],
)  # fmt: skip
def test_what_sorted_walks_get_no_kernel(source: str, why: str) -> None:
    """A sort between phases orders by what the device can call; a walk counts as a stack's
    pops only where its pops can be no more than its pushes (else its while loop nests, and
    one thread would run the deepest nest)."""
    with pytest.raises(AnnotationError, match=why):
        kernel(
            source,
            analyse(source, Language.CPP),
            "span",
            "__global__ void span(const P *points, size_t N, double *out)",
        )


def test_a_struct_one_thread_changes_gets_no_kernel() -> None:
    """A struct's field one thread changes would reach the others only as the whole struct,
    which no device word holds (a helper's probe: the others kept the old field)."""
    source = (
        "struct Box { double lo, hi; };\n"
        "void f(const std::vector<double> &x, std::vector<double> &y, Box b, size_t N) {\n"
        "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] = x[j];\n"
        "  while (b.hi - b.lo > 1.0) b.hi = (b.lo + b.hi) / 2.0;\n"
        "  for (size_t i = 0; i < N; ++i) for (size_t j = 0; j < N; ++j) y[i * N + j] += b.hi;\n}\n"
    )
    with pytest.raises(AnnotationError, match="no device word holds it"):
        kernel(
            source,
            analyse(source, Language.CPP),
            "f",
            "__global__ void f(const double *x, double *y, Box b, size_t N)",
        )


# ---- what the device's library takes (a helper's probe of 227 functions) -------------------

_PROMOTING = """
#include <cmath>
#include <vector>
double dist(int a, int b) { return std::sqrt(a * a + b * b); }
double gap(int a, int b) { return std::fabs(a - b) / 2; }
void dists(std::vector<int> const &a, std::vector<int> const &b, std::vector<float> const &f,
           std::vector<double> &d) {
    for (size_t i = 0; i < a.size(); ++i)
        d[i] = dist(a[i], b[i]) + gap(a[i], b[i]) + std::floor(i / 3) + std::fmax(f[i], 0.5)
             + std::fmod(d[i], 3) + std::pow(a[i], 2) + std::log(a[i] + 1) + sqrt(b[i]);
}
"""
_PROMOTING_CHECK = """
int main() {
    for (size_t n : {1, 2, 31, 1000}) {
        std::vector<int> a(n), b(n);
        std::vector<float> f(n);
        std::vector<double> d(n), want;
        for (size_t i = 0; i < n; i++) {
            a[i] = (int)(i * 7 % 23); b[i] = (int)(i * 5 % 17); f[i] = 0.25f * (float)(i % 5);
            d[i] = 0.5 * (double)i;
        }
        want = d;
        dists(a, b, f, want);
        for (auto &shape : PF_SHAPES) {
            std::vector<double> got = d;
            pf_launch(shape[0], shape[1], [&] { pf_gpu::dists(a.data(), b.data(), f.data(), got.data(), n); });
            for (size_t i = 0; i < n; i++)
                if (got[i] != want[i]) return 1;
        }
    }
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_math_on_integers_and_mixed_types_is_the_librarys_on_the_device(tmp_path: Path) -> None:
    """`std::sqrt(int)`, `std::fmax(float, double)` and the like take an integer as a double
    and two types in their common one; CUDA's own overloads take float and double only, and
    an integer reached libstdc++'s host-only template: an error in the kernel, and in a
    helper a warning and the call dropped (the kernel built with no store). Each is now the
    helpers' `pf_` function, which converts as the library does."""
    signature = (
        "__global__ void dists(const int *a, const int *b, const float *f, double *d, size_t N)"
    )
    written = kernel(_PROMOTING, analyse(_PROMOTING, Language.CPP), "dists", signature)
    for call in ("pf_sqrt(a * a", "pf_fabs(a - b)", "pf_floor(", "pf_fmax(", "pf_pow(", "pf_log("):
        assert call in written, call
    _emulate(_PROMOTING, written, _PROMOTING_CHECK, tmp_path)
    _emulate(_PROMOTING, written, _PROMOTING_CHECK, tmp_path, concurrent=True)
    if shutil.which("nvcc") is not None:
        _builds_with_nvcc(written, tmp_path)
        ptx = subprocess.run(
            ["nvcc", "-ptx", "-arch=sm_90", "-o", "-", str(tmp_path / "kernel.cu")],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert ptx.returncode == 0 and "st.global" in ptx.stdout, ptx.stderr[-2000:]
        assert "20013" not in ptx.stderr, ptx.stderr[-2000:]  # no host function dropped


_SEVEN_FOLDS = """
#include <algorithm>
#include <climits>
#include <vector>
double stats(std::vector<double> const &x, std::vector<long long> const &k) {
    double s = 0, lo = 1e300, hi = -1e300;
    long long ks = 0, klo = LLONG_MAX, khi = LLONG_MIN;
    unsigned long long bits = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        s += x[i];
        lo = std::min(lo, x[i]);
        hi = std::max(hi, x[i]);
        ks += k[i];
        klo = std::min(klo, k[i]);
        khi = std::max(khi, k[i]);
        bits |= (unsigned long long)k[i];
    }
    return s + lo + hi + ks + klo + khi + (double)(bits & 0xff);
}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_seven_reductions_in_one_loop_fit_a_blocks_shared_memory(tmp_path: Path) -> None:
    """Each fold had 1024 partials of its own in shared memory: seven folds of 8-byte values
    took 56 KiB, past the 48 KiB a block may hold (ptxas refused the kernel). Folds of one
    type now share their partials, one after another."""
    signature = "__global__ void stats(const double *x, const long long *k, size_t N, double *out)"
    written = kernel(_SEVEN_FOLDS, analyse(_SEVEN_FOLDS, Language.CPP), "stats", signature)
    assert written.count("pf_cuda_block_fold(") >= 7
    _builds_with_nvcc(written, tmp_path)


@pytest.mark.parametrize(
    ("source", "signature", "why"),
    [
        (  # a copy the function changes: the kernel's array is the caller's, changed for good
            "#include <vector>\nvoid plusOne(std::vector<int> x, std::vector<int> &y) {\n"
            "    for (size_t i = 0; i < x.size(); ++i) { x[i] += 1; y[i] = x[i] * 2; }\n}\n",
            "__global__ void plusOne(int *x, int *y, size_t N)",
            "changes x, its own copy of the caller's array",
        ),
        (  # the same, sorted by the library
            "#include <algorithm>\n#include <vector>\n"
            "int lowest(std::vector<int> x) {\n    std::sort(x.begin(), x.end());\n"
            "    int s = 0;\n    for (size_t i = 0; i < x.size(); ++i) s += x[i] * (int)i;\n"
            "    return s;\n}\n",
            "__global__ void lowest(int *x, size_t N, int *out)",
            "changes x, its own copy",
        ),
        (  # the copy written through a range-based loop's reference
            "#include <vector>\nvoid twiceSum(std::vector<double> x, std::vector<double> &y) {\n"
            "    for (auto &e : x) e *= 2;\n"
            "    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i];\n}\n",
            "__global__ void twiceSum(double *x, double *y, size_t N)",
            "changes x, its own copy",
        ),
        (  # a std::array by value, written
            "#include <array>\nvoid bump(std::array<double, 8> x, double *y) {\n"
            "    for (size_t i = 0; i < 8; ++i) { x[i] *= 2; y[i] = x[i]; }\n}\n",
            "__global__ void bump(double *x, double *y)",
            "changes x, its own copy",
        ),
        (  # through a reference bound to it
            "#include <vector>\nvoid viaAlias(std::vector<int> x, std::vector<int> &y) {\n"
            "    auto &z = x;\n    for (size_t i = 0; i < x.size(); ++i) { z[i] += 1; y[i] = x[i]; }\n}\n",
            "__global__ void viaAlias(int *x, int *y, size_t N)",
            "changes x, its own copy",
        ),
        (  # by a helper taking it by reference
            "#include <vector>\nvoid half(std::vector<int> &v) { v[0] /= 2; }\n"
            "void viaHelper(std::vector<int> x, std::vector<int> &y) {\n    half(x);\n"
            "    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i];\n}\n",
            "__global__ void viaHelper(int *x, int *y, size_t N)",
            "changes x, its own copy",
        ),
        (  # sorted through std::begin
            "#include <algorithm>\n#include <iterator>\n#include <vector>\n"
            "int ranked(std::vector<int> x) {\n    std::sort(std::begin(x), std::end(x));\n"
            "    int s = 0;\n    for (size_t i = 0; i < x.size(); ++i) s += x[i] * (int)i;\n"
            "    return s;\n}\n",
            "__global__ void ranked(int *x, size_t N, int *out)",
            "changes x, its own copy",
        ),
        (  # an array the signature takes as const, written
            "#include <vector>\nvoid twice(std::vector<int> &x) {\n"
            "    for (size_t i = 0; i < x.size(); ++i) x[i] *= 2;\n}\n",
            "__global__ void twice(const int *x, size_t N)",
            "changes x, which the kernel takes as const",
        ),
        (  # CUDA's max takes no list
            "#include <algorithm>\n#include <vector>\n"
            "void top(std::vector<int> const &a, std::vector<int> const &b, std::vector<int> &y) {\n"
            "    for (size_t i = 0; i < y.size(); ++i) y[i] = std::max({a[i], b[i], 0});\n}\n",
            "__global__ void top(const int *a, const int *b, int *y, size_t N)",
            "calls max on a list",
        ),
        (  # a template helper: its copy would need the types only a call gives
            "#include <vector>\ntemplate <class T> T sq(T v) { return v * v; }\n"
            "void squares(std::vector<double> &x) {\n"
            "    for (size_t i = 0; i < x.size(); ++i) x[i] = sq(x[i]);\n}\n",
            "__global__ void squares(double *x, size_t N)",
            "sq is a template",
        ),
    ],
)
def test_what_the_device_cannot_take_gets_no_kernel(source: str, signature: str, why: str) -> None:
    with pytest.raises(AnnotationError, match=re.escape(why)):
        name = signature_params(signature)[0]
        kernel(source, analyse(source, Language.CPP), name, signature)


def test_a_const_pointer_moved_along_its_array_is_no_change_of_it() -> None:
    """`x++` moves the function's own pointer; the elements stay as they were, so a
    signature taking `x` as const still fits (the review of the check found it refused)."""
    source = (
        "void lead(const double *x, double *y, int n) {\n"
        "    for (int i = 0; i < n; ++i) { y[i] = *x * 2; x++; }\n}\n"
    )
    signature = "__global__ void lead(const double *x, double *y, int n)"
    try:
        kernel(source, analyse(source, Language.CPP), "lead", signature)
    except AnnotationError as refused:
        assert "const" not in str(refused), refused
