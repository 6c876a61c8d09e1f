"""OpenMP annotation: the choice schema, directives, and inserting them into the source."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import jsonschema
import pytest

from agents.analysis import (
    AnnotationError,
    LoopChoice,
    analyse,
    annotatable,
    apply_choices,
    choice_schema,
    default_choices,
    directive,
)
from agents.analysis.annotate import PACKED_CHUNK
from sandbox.spec import Language

PROGRAM = """#include <stdio.h>
#include <stdlib.h>

double work(int n, double *a, double *b, double *y) {
    double sum = 0.0, t;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = b[i * n + j] * 2.0;
    for (int i = 1; i < n; i++) {
        y[i] = y[i - 1] * 0.5 + b[i];
    }
    for (int i = 0; i < n; i++) {
        t = b[i] * b[i];
        sum += t;
    }
    return sum;
}

int main(void) {
    int n = 100;
    double *a = calloc(n * n, sizeof *a), *b = calloc(n * n, sizeof *b), *y = calloc(n, sizeof *y);
    printf("%f\\n", work(n, a, b, y));
    return 0;
}
"""


@pytest.fixture(scope="module")
def program():
    return analyse(PROGRAM, Language.C)


def test_the_loops_that_can_be_annotated_are_outermost_first(program) -> None:
    ids = [loop.id for loop in annotatable(program)]
    assert ids == ["L1", "L4", "L2"]  # L3 carries (y[i] is half of y[i - 1] plus b[i])
    assert program.loop("L1").perfect_nest == 2
    assert annotatable(program, "main") == []


def test_the_schema_accepts_the_default_choices_and_rejects_a_carried_loop(program) -> None:
    loops = annotatable(program)
    schema = choice_schema(loops)
    defaults = [c.model_dump() for c in default_choices(loops)]
    assert [c["loop"] for c in defaults] == ["L1", "L4"]
    jsonschema.validate({"choices": defaults}, schema)
    carried = {**defaults[0], "loop": "L3"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"choices": [carried]}, schema)


def test_the_schema_bounds_collapse_per_loop(program) -> None:
    schema = choice_schema(annotatable(program))
    base = LoopChoice(loop="L1", collapse=2).model_dump()
    jsonschema.validate({"choices": [base]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"choices": [{**base, "loop": "L4"}]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"choices": [{**base, "chunk": 3}]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"choices": []}, schema)


def test_no_annotatable_loop_means_no_schema() -> None:
    with pytest.raises(AnnotationError):
        choice_schema([])


def test_clauses_come_from_the_analysis(program) -> None:
    loop = program.loop("L4")
    assert directive(loop, LoopChoice(loop="L4")) == (
        "#pragma omp parallel for reduction(+:sum) private(t) schedule(static)"
    )
    choice = LoopChoice(loop="L1", schedule="dynamic", chunk=16, collapse=2, simd=True)
    assert directive(program.loop("L1"), choice) == (
        "#pragma omp parallel for simd schedule(dynamic,16) collapse(2)"
    )


def test_directives_go_above_their_loops_with_their_indentation(program) -> None:
    choices = [LoopChoice(loop="L1", collapse=2), LoopChoice(loop="L4", schedule="guided")]
    out = apply_choices(PROGRAM, program, choices).split("\n")
    # a and b are pointer parameters: L1 runs in parallel only if they do not overlap.
    assert out[5].startswith("    if (") and out[5].endswith(") {")
    assert out[6] == "    #pragma omp parallel for schedule(static) collapse(2)"
    assert out[7].startswith("    for (int i = 0; i < n; i++)")
    assert out[10:12] == ["    } else {", "    for (int i = 0; i < n; i++)"]
    pragma = out.index("    #pragma omp parallel for reduction(+:sum) private(t) schedule(guided)")
    assert out[pragma + 1] == "    for (int i = 0; i < n; i++) {"
    assert len(out) == len(PROGRAM.split("\n")) + 2 + 6
    assert "omp.h" not in "\n".join(out)


def test_an_inner_loop_gets_its_own_indentation(program) -> None:
    out = apply_choices(PROGRAM, program, [LoopChoice(loop="L2")]).split("\n")
    assert out[6].startswith("        if (")
    assert out[7] == "        #pragma omp parallel for schedule(static)"
    assert out[8].startswith("        for (int j = 0;")


def test_a_loop_sharing_its_line_with_code_is_split() -> None:
    source = "void f(int n, int *x, int c) {\n    if (c) for (int i = 0; i < n; i++) x[i] = 0;\n}\n"
    program = analyse(source, Language.C)
    out = apply_choices(source, program, [LoopChoice(loop="L1")])
    assert out.split("\n")[1:4] == [
        "    if (c)",
        "    #pragma omp parallel for schedule(static)",
        "    for (int i = 0; i < n; i++) x[i] = 0;",
    ]
    _compiles(out, "c")


def test_loops_not_chosen_for_parallelism_get_nothing(program) -> None:
    assert apply_choices(PROGRAM, program, [LoopChoice(loop="L1", parallel=False)]) == PROGRAM


@pytest.mark.parametrize(
    ("choices", "message"),
    [
        ([LoopChoice(loop="L3")], "cannot run its iterations in parallel"),
        ([LoopChoice(loop="L9")], "no loop L9"),
        ([LoopChoice(loop="L1", collapse=3)], "too deep"),
        ([LoopChoice(loop="L1"), LoopChoice(loop="L2")], "nested inside loop L1"),
        ([LoopChoice(loop="L4"), LoopChoice(loop="L4", schedule="dynamic")], "twice"),
    ],
)
def test_impossible_choices_are_rejected(program, choices, message) -> None:
    with pytest.raises(AnnotationError, match=message):
        apply_choices(PROGRAM, program, choices)


def test_annotation_errors_are_value_errors() -> None:
    assert issubclass(AnnotationError, ValueError)


def test_the_annotated_programs_compile(program) -> None:
    loops = annotatable(program)
    _compiles(apply_choices(PROGRAM, program, default_choices(loops)), "c")
    every = [
        # L1 assumes its pointer parameters apart, so it takes no simd.
        LoopChoice(loop="L1", schedule="dynamic", chunk=4, collapse=2),
        LoopChoice(loop="L4", schedule="guided", chunk=256),
    ]
    _compiles(apply_choices(PROGRAM, program, every), "c")


def test_the_annotated_heat2d_compiles() -> None:
    source = (Path(__file__).parents[3] / "examples" / "heat2d" / "heat2d.c").read_text()
    program = analyse(source, Language.C)
    loops = annotatable(program)
    choices = [
        LoopChoice(loop=c.loop, collapse=program.loop(c.loop).perfect_nest)
        for c in default_choices(loops)
    ]
    out = apply_choices(source, program, choices)
    assert "reduction(+:total) reduction(max:hottest)" in out
    _compiles(out, "c")


def _compiles(source: str, language: str) -> None:
    compiler = shutil.which("gcc") if language == "c" else shutil.which("g++")
    assert compiler is not None, "gcc is needed to check the annotated programs"
    done = subprocess.run(
        [compiler, "-fopenmp", "-fsyntax-only", "-Werror", "-x", language, "-"],
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr + source


RANGE_FOR = """#include <vector>

int total(std::vector<int> const& v) {
    int s = 0;
    for (int x : v) s += x;
    return s;
}

bool parity(std::vector<bool> const& x) {
    bool result = false;
    for (auto const& i : x) {
        result ^= i;
    }
    return result;
}

void scale(std::vector<double> &x, double k) {
    for (auto &e : x) {
        e *= k;
    }
}
"""


def test_range_for_loops_are_annotated_without_collapse() -> None:
    program = analyse(RANGE_FOR, Language.CPP)
    loops = annotatable(program)
    assert [loop.id for loop in loops] == ["L1", "L2", "L3"]
    schema = choice_schema(loops)
    jsonschema.validate({"choices": [c.model_dump() for c in default_choices(loops)]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"choices": [LoopChoice(loop="L1", collapse=2).model_dump()]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"choices": [LoopChoice(loop="L1", simd=True).model_dump()]}, schema)
    with pytest.raises(AnnotationError, match="too deep"):
        apply_choices(RANGE_FOR, program, [LoopChoice(loop="L3", collapse=2)])
    with pytest.raises(AnnotationError, match="simd"):
        apply_choices(RANGE_FOR, program, [LoopChoice(loop="L3", simd=True)])


def test_annotated_range_for_loops_compile() -> None:
    program = analyse(RANGE_FOR, Language.CPP)
    choices = [
        LoopChoice(loop="L1"),
        LoopChoice(loop="L2", schedule="dynamic", chunk=64),
        LoopChoice(loop="L3", schedule="guided"),
    ]
    out = apply_choices(RANGE_FOR, program, choices)
    lines = out.split("\n")
    pragma = lines.index("    #pragma omp parallel for reduction(+:s) schedule(static)")
    assert lines[pragma + 1] == "    for (int x : v) s += x;"
    assert "    #pragma omp parallel for reduction(^:result) schedule(dynamic,64)" in lines
    assert "    #pragma omp parallel for schedule(guided)" in lines
    _compiles(out, "c++")


HISTOGRAMS = """#include <array>
#include <cstdio>
#include <vector>

#define NB 8

void pixels(std::vector<int> const& image, std::array<size_t, 256> &bins) {
    int bins_data = 0;  // takes the name the tool would pick first
    if (!image.empty()) for (auto const& pixel : image) { bins[pixel]++; }
    (void)bins_data;
}

void eighths(int n, const int *x, double *out) {
    double h[NB] = {0};
    for (int i = 0; i < n; i++) h[x[i] % NB] += 0.5;
    for (int b = 0; b < NB; b++) out[b] = h[b];
}

int main() {
    std::vector<int> image(200000);
    for (size_t i = 0; i < image.size(); i++) image[i] = (int)(((i * 2654435761u) >> 7) % 256);
    std::array<size_t, 256> bins{};
    bins[3] = 7;  // the histogram adds to what is there
    pixels(image, bins);
    double out[NB];
    eighths((int)image.size(), image.data(), out);
    for (size_t b = 0; b < 256; b++) std::printf("%zu ", bins[b]);
    for (int b = 0; b < NB; b++) std::printf("%.1f ", out[b]);
    std::printf("\\n");
}
"""


def test_histograms_are_reduced_into_per_thread_copies_and_count_the_same() -> None:
    program = analyse(HISTOGRAMS, Language.CPP)
    loops = annotatable(program, "pixels") + annotatable(program, "eighths")
    assert [
        (a.var, a.length, a.container) for loop in loops for a in loop.dependence.array_reductions
    ] == [
        ("bins", "256", True),
        ("h", "NB", False),
    ]
    out = apply_choices(HISTOGRAMS, program, [LoopChoice(loop=loop.id) for loop in loops])
    # A std::array is reduced through a pointer to its data (OpenMP reduces no class types),
    # declared in a block of its own, under a name the program does not use yet.
    assert "size_t *bins_data_ = bins.data();" in out
    assert "#pragma omp parallel for reduction(+:bins_data_[:256]) schedule(static)" in out
    assert "bins_data_[pixel]++;" in out and "bins[pixel]" not in out
    assert "#pragma omp parallel for reduction(+:h) schedule(static)" in out
    assert _run(out, threads=4) == _run(HISTOGRAMS, threads=1)


def _run(source: str, threads: int, language: str = "c++") -> str:
    compiler = shutil.which("g++" if language == "c++" else "gcc")
    assert compiler is not None, "gcc and g++ are needed to run the annotated programs"
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "prog"
        built = subprocess.run(
            [compiler, "-O1", "-fopenmp", "-Werror", "-x", language, "-", "-o", str(exe), "-lm"],
            input=source,
            capture_output=True,
            text=True,
            check=False,
        )
        assert built.returncode == 0, built.stderr + source
        env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
        done = subprocess.run(
            [exe], capture_output=True, text=True, env=env, timeout=60, check=True
        )
        return done.stdout


def _prints_as_sequential(
    source: str, out: str, language: str = "c++", threads: tuple[int, ...] = (1, 2, 3, 4)
) -> None:
    """The annotated program `out` prints what `source` prints on one thread, at each count."""
    sequential = _run(source, threads=1, language=language)
    for count in threads:
        assert _run(out, threads=count, language=language) == sequential


LAST_VALUES = """#include <cstdio>
#include <vector>

struct Book { int pages; };

size_t last_short_book(std::vector<Book> const& books) {
    size_t last = 0;
    for (size_t i = 0; i < books.size(); ++i) {
        if (books[i].pages < 100) {
            last = i;
        }
    }
    return last;
}

double last_scaled(int n, const double *x, double *y, int *seen_out) {
    double t = -1;
    int seen = -1;
    for (int i = 0; i < n; i++) { t = x[i] * 2; y[i] = t; seen = i; }
    *seen_out = seen;
    return t;
}

int main() {
    std::vector<Book> books(100000);
    for (size_t i = 0; i < books.size(); i++) books[i].pages = (int)((i * 2654435761u) % 1000);
    books[books.size() - 1].pages = 500;  // the last match is not the last element
    std::vector<double> x(100000), y(100000);
    for (size_t i = 0; i < x.size(); i++) x[i] = (double)(i % 97);
    int seen = -1;
    double t = last_scaled((int)x.size(), x.data(), y.data(), &seen);
    std::printf("%zu %.1f %d %.1f\\n", last_short_book(books), t, seen, y[500]);
    // no iteration: the values before the loop
    t = last_scaled(0, x.data(), y.data(), &seen);
    std::printf("%.1f %d\\n", t, seen);
}
"""


def test_last_values_are_kept_by_lastprivate_and_match_the_sequential_run() -> None:
    program = analyse(LAST_VALUES, Language.CPP)
    search, scale = annotatable(program, "last_short_book") + annotatable(program, "last_scaled")
    assert search.dependence.last_assigned == ("last",)
    assert scale.dependence.lastprivate == ("t", "seen")
    out = apply_choices(
        LAST_VALUES, program, [LoopChoice(loop=search.id), LoopChoice(loop=scale.id)]
    )
    assert "#pragma omp parallel for lastprivate(conditional:last) schedule(static)" in out
    # (firstprivate too: without it GCC leaves garbage where the loop runs no iteration)
    assert (
        "#pragma omp parallel for firstprivate(t,seen) lastprivate(t,seen) schedule(static)" in out
    )
    sequential = _run(LAST_VALUES, threads=1)
    assert sequential.split()[0] != "99999" and sequential.endswith("\n-1.0 -1\n")
    for threads in (1, 2, 4):
        assert _run(out, threads=threads) == sequential


SEARCHES = """#include <cstdio>
#include <vector>

size_t first_even(std::vector<int> const& x) {
    for (size_t i = 0; i < x.size(); ++i) {
        if (x[i] % 2 == 0) {
            return i;
        }
    }
    return x.size();
}

int first_double(int n, const int *x, int v) {
    int found = -1;
    if (n > 0)
        for (int k = 0; k < n; k++) {
            int y = x[k] * 2;
            if (y == v) { found = k; break; }
            if (y > 1000000) return -2;
        }
    return found;
}

int main() {
    std::vector<int> x(100000, 1);
    // Matches in every thread's share, so a wrong merge would pick a later one.
    for (size_t i = 61111; i < x.size(); i += 7919) x[i] = 4;
    x[99000] = 700000;
    std::vector<int> odd(1000, 3);
    std::printf("%zu %zu %d %d %d\\n", first_even(x), first_even(odd),
                first_double((int)x.size(), x.data(), 8),
                first_double((int)x.size(), x.data(), 3), first_double(0, x.data(), 8));
}
"""


def test_searches_find_the_first_match_in_parallel_and_take_its_exit() -> None:
    program = analyse(SEARCHES, Language.CPP)
    loops = annotatable(program, "first_even") + annotatable(program, "first_double")
    assert [loop.dependence.first_match for loop in loops] == [True, True]
    schema = choice_schema(loops)
    assert all(s["properties"]["simd"]["enum"] == [False] for s in _loop_schemas(schema))
    out = apply_choices(SEARCHES, program, [LoopChoice(loop=loop.id) for loop in loops])
    assert out.startswith("#include <limits>\n")
    assert "#pragma omp parallel for reduction(min:first_i) schedule(static)" in out
    assert "#pragma omp parallel for reduction(min:first_k) schedule(static)" in out
    # The match's own writes (found = k) run only when that iteration runs again alone.
    assert "if (y == v) { if (k < first_k) first_k = k; continue; }" in out
    assert "if (y == v) { found = k; break; }" in out
    sequential = _run(SEARCHES, threads=1)
    assert sequential.split() == ["61111", "1000", "61111", "-2", "-1"]
    assert _run(out, threads=4) == sequential
    with pytest.raises(AnnotationError, match="simd"):
        apply_choices(SEARCHES, program, [LoopChoice(loop=loops[0].id, simd=True)])


def _loop_schemas(schema: dict) -> list[dict]:
    return schema["properties"]["choices"]["items"]["anyOf"]


SCATTERS = """#include <cstdio>
#include <vector>

std::vector<long> counts(std::vector<int> const& x, int nb) {
    std::vector<long> h(nb);
    for (size_t i = 0; i < x.size(); i++)
        if (x[i] >= 0) h[x[i] % nb] += 2;
    return h;
}

void scale_then_scatter(std::vector<double> &y, std::vector<int> const& at, std::vector<double> const& v) {
    for (size_t i = 0; i < y.size(); ++i) {
        y[i] *= 0.5;
    }
    for (size_t j = 0; j < at.size(); ++j) {
        y[at[j]] += v[j];
    }
}

int main() {
    std::vector<int> x(200000);
    for (size_t i = 0; i < x.size(); i++) x[i] = (int)((i * 2654435761u) % 1000) - 10;
    std::vector<long> h = counts(x, 37);
    std::vector<double> y(1000, 4.0), v(200000, 0.25);
    std::vector<int> at(200000);
    for (size_t j = 0; j < at.size(); j++) at[j] = (int)((j * 7919) % 1000);
    scale_then_scatter(y, at, v);
    std::printf("%ld %ld %ld %.2f %.2f\\n", h[0], h[17], h[36], y[0], y[999]);
}
"""


def test_histograms_of_run_time_length_update_atomically_and_count_the_same() -> None:
    program = analyse(SCATTERS, Language.CPP)
    (count,) = annotatable(program, "counts")
    scale, scatter = annotatable(program, "scale_then_scatter")
    assert [(a.var, a.length, a.atomic) for a in count.dependence.array_reductions] == [
        ("h", "h.size()", True)
    ]
    # The plain choice leaves out a loop that needs atomics when another loop can go parallel.
    assert default_choices([scale, scatter]) == [LoopChoice(loop=scale.id)]
    assert default_choices([count]) == [LoopChoice(loop=count.id)]
    out = apply_choices(
        SCATTERS, program, [LoopChoice(loop=loop.id) for loop in (count, scale, scatter)]
    )
    # No reduction clause (the copies would live on each thread's stack): atomic updates, the
    # statement under an `if` without braces kept its meaning by a block of its own.
    assert "reduction" not in out
    assert (
        "if (x[i] >= 0) {\n            #pragma omp atomic\n            h[x[i] % nb] += 2;\n        }"
        in out
    )
    assert "#pragma omp atomic\n        y[at[j]] += v[j];" in out
    sequential = _run(SCATTERS, threads=1)
    assert _run(out, threads=4) == sequential


BEST = """#include <cstdio>
#include <vector>

// The first index of the smallest value (ties keep the earlier one).
size_t first_min(std::vector<int> const& x, int &smallest) {
    int best = 1000000;
    size_t at = 12345;
    for (size_t i = 0; i < x.size(); ++i) {
        int d = x[i] < 0 ? -x[i] : x[i];
        if (d < best) {
            best = d;
            at = i;
        }
    }
    smallest = best;
    return at;
}

// The last index of the largest value (>= keeps the later one), the test written backwards.
long last_max(int n, const int *x, long &sum) {
    int top = -1;
    long at = -7;
    long s = 0;
    for (int i = 0; i < n; i++) {
        s += x[i];
        if (top <= x[i]) { top = x[i]; at = i; }
    }
    sum = s;
    return at;
}

// A nest: the pair closest to 500, first in row-major order.
int closest_pair(int n, const int *x) {
    int best = 1 << 30, bi = -1, bj = -1;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            int d = x[i] + x[j] - 500;
            if (d < 0) d = -d;
            if (d < best) { best = d; bi = i; bj = j; }
        }
    }
    return bi * n + bj;
}

int main() {
    std::vector<int> x(100000);
    for (size_t i = 0; i < x.size(); i++) x[i] = (int)((i * 2654435761u) % 1000) + 3;
    // The smallest value three times, in different threads' blocks; the largest twice.
    x[70001] = -2; x[20002] = 2; x[90003] = 2; x[5] = 1003; x[80000] = 1003;
    int smallest = 0;
    long sum = 0;
    size_t a = first_min(x, smallest);
    long b = last_max((int)x.size(), x.data(), sum);
    std::vector<int> none(10, 2000000);  // nothing beats the initial value: it is kept
    int unchanged = 0;
    size_t c = first_min(none, unchanged);
    int d = closest_pair(300, x.data());
    // Only the first block has a value >= the initial -1: the others found nothing to merge.
    std::vector<int> low(1000, -5);
    low[0] = -1;
    long e = last_max((int)low.size(), low.data(), sum);
    std::printf("%zu %d %ld %ld %zu %d %d %ld\\n", a, smallest, b, sum, c, unchanged, d, e);
}
"""


def test_best_updates_keep_what_the_sequential_loop_keeps_ties_included() -> None:
    program = analyse(BEST, Language.CPP)
    loops = [annotatable(program, f)[0] for f in ("first_min", "last_max", "closest_pair")]
    assert [
        (u.best, u.others, u.keeps, u.strict) for lp in loops for u in lp.dependence.best_updates
    ] == [
        ("best", ("at",), "min", True),
        ("top", ("at",), "max", False),
        ("best", ("bi", "bj"), "min", True),
    ]
    schema = _loop_schemas(choice_schema(loops))
    assert all(s["properties"]["schedule"]["enum"] == ["static"] for s in schema)
    out = apply_choices(BEST, program, [LoopChoice(loop=lp.id) for lp in loops])
    assert out.startswith("#include <omp.h>\n")
    assert "#pragma omp for reduction(+:s) schedule(static) nowait" in out
    # The starting values are copied at the region's start (reading the shared scalars in the
    # region raced with a thread merging into them: the race checker caught it in ParEval 37).
    assert "#pragma omp parallel firstprivate(my_top, my_at, my_top_found)" in out
    assert "auto my_top = top;" in out.split("#pragma omp parallel firstprivate(my_top")[0]
    assert "if (my_top_found && my_top >= top) { top = my_top; at = my_at; }" in out
    sequential = _run(BEST, threads=1)
    assert sequential.split()[:3] == ["20002", "2", "80000"] and sequential.split()[-1] == "0"
    for threads in (2, 3, 4):
        assert _run(out, threads=threads) == sequential
    with pytest.raises(AnnotationError, match="static"):
        apply_choices(BEST, program, [LoopChoice(loop=loops[0].id, schedule="dynamic")])


SCANS = """#include <cstdio>
#include <vector>

void running_min(std::vector<float> &x) {
    float m = x[0];
    for (int i = 0; i < (int)x.size(); i++) {
        if (x[i] < m) {
            m = x[i];
        }
        x[i] = m;
    }
}

long running_sum(std::vector<long> const& x, std::vector<long> &y) {
    long acc = 7, total = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        long twice = 2 * x[i];
        acc += twice;
        y[i] = acc - twice / 2;
        total += y[i];
    }
    return acc * 1000003 + total;
}

void prefix_product(std::vector<long> const& x, std::vector<long> &y, std::vector<long> &q) {
    y[0] = 3;
    for (size_t i = 1; i < x.size(); ++i) {
        long f = x[i] % 3 == 0 ? 1 : -1;
        y[i] = f * y[i - 1];
        q[i] = y[i] + f;
    }
}

long sum_of_prefix_products(std::vector<long> const& x) {
    long sum = 0;
    std::vector<long> p(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        if (i == 0)
            p[i] = x[i] + 100;
        else
            p[i] = p[i - 1] * (x[i] % 2 ? -1 : 1);
        sum += p[i];
    }
    return sum;
}

int main() {
    for (int n : {1, 2, 3, 7, 1000, 100003}) {
        std::vector<float> x(n);
        std::vector<long> v(n), y(n);
        for (int i = 0; i < n; i++) {
            x[i] = (float)((i * 7919) % 1013) - 500.0f;
            v[i] = (i * 31) % 97 - 40;
        }
        running_min(x);
        long r = running_sum(v, y);
        std::vector<long> p(n), q(n);
        prefix_product(v, p, q);
        double check = 0;
        for (int i = 0; i < n; i++) check += x[i] * (i % 5) + y[i] * (i % 3) + p[i] * (i % 7) + q[i];
        std::printf("%d %ld %.1f %ld\\n", n, r, check, sum_of_prefix_products(v));
    }
}
"""


def test_scans_run_as_two_pass_blocked_scans_with_the_sequential_results() -> None:
    program = analyse(SCANS, Language.CPP)
    loops = [
        loop
        for function in ("running_min", "running_sum", "prefix_product", "sum_of_prefix_products")
        for loop in annotatable(program, function)
    ]
    assert [
        (lp.dependence.scan.var, lp.dependence.scan.op) for lp in loops if lp.dependence.scan
    ] == [
        ("m", "min"),
        ("acc", "+"),
        ("y", "*"),
        ("p", "*"),
    ]
    assert not any(lp.dependence.parallelisable for lp in loops)
    schema = _loop_schemas(choice_schema(loops))
    assert all(s["properties"]["schedule"]["enum"] == ["static"] for s in schema)
    assert all(s["properties"]["simd"]["enum"] == [False] for s in schema)
    out = apply_choices(SCANS, program, default_choices(loops))
    # The identity of min comes from <limits>, std::decay_t from <type_traits>; <vector> is
    # there already.
    assert out.startswith(
        "#include <type_traits>\n#include <omp.h>\n#include <limits>\n#include <cstdio>\n"
    )
    # Pass 1 totals each block with the updating statements alone; pass 2 runs the whole body,
    # with the loop's other reductions, over the same static blocks.
    assert out.count("#pragma omp for schedule(static) nowait") == 4
    # The recurrence carries the previous element in a scalar, which starts from y[0] when
    # the loop runs at all.
    assert "y_run = y_run * (f); y[i] = y_run;" in out
    assert "if ((1) < (x.size())) y_run = y[(1) - 1];" in out
    # One whose first iteration is written apart takes that value there, from the identity.
    assert "p_run = p_run * ((i == 0) ? (x[i] + 100) : ((x[i] % 2 ? -1 : 1))); p[i] = p_run;" in out
    assert "#pragma omp for reduction(+:total) schedule(static)" in out
    assert "#pragma omp parallel private(acc)" in out and "acc = acc_last;" in out
    sequential = _run(SCANS, threads=1)
    assert sequential.splitlines()[0].startswith("1 ")
    for threads in (2, 3, 4, 8):
        assert _run(out, threads=threads) == sequential
    with pytest.raises(AnnotationError, match="static"):
        apply_choices(SCANS, program, [LoopChoice(loop=loops[0].id, schedule="dynamic")])
    with pytest.raises(AnnotationError, match="simd"):
        apply_choices(SCANS, program, [LoopChoice(loop=loops[0].id, simd=True)])


def test_recurrences_without_braces_run_as_blocked_scans() -> None:
    """`for (...) p[i] = p[i - 1] + x[i];`, the loop's one statement without braces (and the
    `if (i == 0) ...; else ...;` form): the scan gets the braces its two passes need."""
    source = (Path(__file__).parent / "programs" / "recurrences.c").read_text()
    program = analyse(source, Language.C)
    loops = [lp for lp in annotatable(program) if lp.dependence.scan is not None]
    assert [(lp.dependence.scan.var, lp.dependence.scan.op) for lp in loops] == [
        ("p", "+"),
        ("q", "*"),
        ("r", "+"),
    ]
    out = apply_choices(source, program, default_choices(loops))
    assert "{ p_run = p_run + (x[i]); p[i] = p_run; }" in out
    _prints_as_sequential(source, out, "c", threads=(2, 3, 4))


def test_recurrences_in_place_and_one_element_on_run_as_blocked_scans() -> None:
    """`a[i] += a[i - 1]`, `rp[i + 1] = rp[i] + count[i]` (a CSR row pointer), `c[k + 1] +=
    c[k]`, a running product in place and terms reading the element's own value: scans whose
    running value starts from the element before the first iteration's; a loop reading the
    next element (`e[i] = e[i - 1] + e[i + 1]`) is none."""
    source = (Path(__file__).parent / "programs" / "shifted_recurrences.c").read_text()
    program = analyse(source, Language.C)
    loops = [lp for lp in annotatable(program) if lp.dependence.scan is not None]
    assert [(lp.dependence.scan.var, lp.dependence.scan.offset) for lp in loops] == [
        ("a", 0),
        ("rp", 1),
        ("c", 1),
        ("b", 0),
        ("d", 0),
        ("f", 0),
    ]
    assert not any(lp.dependence.scan for lp in program.loops if lp.line == 31)
    out = apply_choices(source, program, default_choices(loops))
    assert "rp_run = rp[(0)];" in out and "{ a_run = a_run + (a[i]); a[i] = a_run; }" in out
    _prints_as_sequential(source, out, "c", threads=(2, 3, 4))


def test_compactions_run_as_blocked_scans_of_their_counters() -> None:
    """`if (c) y[k++] = e;`, two arrays stored before one `k++`, a store in an `else` after a
    `continue`, through pointer parameters (a run-time check that the packed run and the
    input do not overlap): the first pass counts with the stores removed, the second stores
    from the count of the blocks before; in-place packing and a store every iteration whose
    counter moves only on some are no compactions."""
    source = (Path(__file__).parent / "programs" / "packs.c").read_text()
    program = analyse(source, Language.C)
    loops = [lp for lp in annotatable(program) if lp.dependence.scan is not None]
    assert [(lp.dependence.scan.var, lp.dependence.scan.packs) for lp in loops] == [
        ("k", ("y",)),
        ("k", ("z", "w")),
        ("c", ("d",)),
    ]
    assert all(lp.dependence.overlap_checks for lp in loops[:2])
    assert not any(lp.dependence.scan for lp in program.loops if lp.line in (50, 53))
    out = apply_choices(source, program, default_choices(loops))
    assert "{ if (x[i] % 3 == 0) k++; }" in out
    _prints_as_sequential(source, out, "c")


def test_exclusive_scans_run_as_blocked_scans_without_their_reads_in_the_first_pass() -> None:
    """`start[i] = next; next += count[i];` (row offsets), reads of the value before the step
    in several statements, a product, both sides of one step, the value before it kept in a
    local and stored after it or read before it (that read left out too): the first pass
    totals each
    block without the statements that read the running value; a step reading what such a
    statement wrote or stored, or a read deciding whether the step runs, is no scan."""
    source = (Path(__file__).parent / "programs" / "exclusive_scans.c").read_text()
    program = analyse(source, Language.C)
    loops = [lp for lp in annotatable(program) if lp.dependence.scan is not None]
    assert [
        (lp.dependence.scan.var, lp.dependence.scan.op, lp.dependence.scan.exclusive)
        for lp in loops
    ] == [
        ("next", "+", (0,)),
        ("run", "+", (1, 2)),
        ("p", "*", (0,)),
        ("s", "+", (0,)),
        ("acc", "+", (0,)),
        ("acc", "+", (0, 1)),
    ]
    assert all(lp.dependence.overlap_checks for lp in loops)
    assert not any(lp.dependence.scan for lp in program.loops if lp.function == "near_misses")
    out = apply_choices(source, program, default_choices(loops))
    # the first pass: the body without the reads (and without the scan phase after the step)
    assert "{\n        next += count[i];\n    }" in out
    assert "long term = 2 * (long)x[i] - 1;\n        run += term;\n    }" in out
    assert "s += x[i] % 7;\n    }" in out and "acc += x[i] & 15;\n    }" in out
    _prints_as_sequential(source, out, "c")
    # C++: running minima and maxima, one of them exclusive (a ternary after the read)
    source = (Path(__file__).parent / "programs" / "running_extrema.cpp").read_text()
    program = analyse(source, Language.CPP)
    loops = [lp for lp in annotatable(program) if lp.dependence.scan is not None]
    assert [(lp.dependence.scan.op, lp.dependence.scan.exclusive) for lp in loops] == [
        ("max", ()),
        ("min", ()),
        ("max", (0,)),
    ]
    out = apply_choices(source, program, default_choices(loops))
    _prints_as_sequential(source, out, threads=(2, 3, 4))


def test_scans_over_inclusive_bounds_run_as_blocked_scans() -> None:
    """A 1-based prefix sum (`for (i = 1; i <= n; i++) p[i] = p[i - 1] + x[i];`), a running
    value read before its step and a compaction, all counted up to `n` inclusive: blocked
    scans (the recurrence starting from `p[0]` where `1 <= n`)."""
    source = (Path(__file__).parent / "programs" / "inclusive_bounds.c").read_text()
    program = analyse(source, Language.C)
    loops = [lp for lp in annotatable(program) if lp.dependence.scan is not None]
    assert [(lp.dependence.scan.var, lp.test) for lp in loops] == [
        ("p", "<="),
        ("s", "<="),
        ("k", "<="),
    ]
    out = apply_choices(source, program, default_choices(loops))
    assert "if ((1) <= (n)) p_run = p[(1) - 1];" in out
    _prints_as_sequential(source, out, "c")


def test_scans_counting_down_run_as_blocked_scans_in_the_loops_order() -> None:
    """Suffix sums (`for (i = n - 1; i >= 0; i--) { acc += x[i]; s[i] = acc; }`), an exclusive
    one, a compaction from the end and a running minimum from the end: OpenMP's static
    schedule gives the first thread the loop's first iterations, the highest indices, so the
    blocks' totals combine in the loop's order."""
    source = (Path(__file__).parent / "programs" / "suffix_scans.cpp").read_text()
    program = analyse(source, Language.CPP)
    loops = [lp for lp in annotatable(program) if lp.dependence.scan is not None]
    assert [(lp.dependence.scan.var, lp.stride) for lp in loops] == [
        ("acc", -1),
        ("t", -1),
        ("k", -1),
        ("lo", -1),
    ]
    out = apply_choices(source, program, default_choices(loops))
    _prints_as_sequential(source, out)


def test_loops_counted_in_types_narrower_than_int_get_no_directive() -> None:
    """GCC's OpenMP runs no iteration of `for (signed char d = 200; d < n - 150; d++)` (-56
    up to 104: more iterations than the counter's type counts), even on one thread: loops
    counted in a `char` or a `short` are not offered; the program's other loops still are."""
    source = (Path(__file__).parent / "programs" / "narrow_counters.c").read_text()
    program = analyse(source, Language.C)
    loops = annotatable(program)
    assert {lp.id for lp in loops} == {"L2", "L6"}
    out = apply_choices(source, program, default_choices(loops))
    quiet = '#pragma GCC diagnostic ignored "-Woverflow"\n'  # the wrapped first values
    _prints_as_sequential(quiet + source, quiet + out, "c", threads=(1, 2, 3))


SIZED_VECTORS = """#include <cstdio>
#include <vector>
int main() {
    const int n = 100003;
    std::vector<unsigned> x(n), y(n);
    for (int i = 0; i < n; i++) x[i] = (unsigned)(((long)i * 7919) % 1009);
    unsigned *q = y.data();
    int k = 0;
    for (int i = 0; i < n; i++)
        if (x[i] % 3u != 0u) q[k++] = x[i];
    unsigned *p = x.data();
    for (int i = 0; i < n - 1; i++) p[i] = x[i + 1] + 1u;
    unsigned long long h = 0;
    for (int i = 0; i < n; i++) h = h * 31u + x[i] + 7u * y[i];
    std::printf("%d %llu\\n", k, h);
    return 0;
}
"""


def test_a_vector_declared_with_its_size_is_checked_through_its_data() -> None:
    """`std::vector<unsigned> x(n)` (which the parser reads as a function declaration) is a
    container: a pointer into it is kept apart from it by a check on `x.data()`, which
    compiles (it was `x + 1`, which does not), holds for the compaction into `y` and fails
    for `p = x.data()`, whose loop then runs as written."""
    program = analyse(SIZED_VECTORS, Language.CPP)
    loops = annotatable(program)
    checks = [c for lp in loops for c in lp.dependence.overlap_checks]
    assert checks and all("x.data()" in c for c in checks if "x" in c)
    out = apply_choices(SIZED_VECTORS, program, default_choices(loops))
    _prints_as_sequential(SIZED_VECTORS, out, threads=(1, 2, 4))


COUNTERS = """#include <stdio.h>
int main(int argc, char **argv) {
    int n = 100000 + argc, i, j, k, m;
    static double a[200000];
    for (i = 0; i < n; i++) a[i] = i * 0.5;
    for (j = 3; j <= n - 1; j += 2) a[j] += 1;
    for (k = n - 1; k >= 0; k--) a[k] += 2;
    double best = -1;
    int at = -1;
    for (m = 0; m < n; m++) if (a[m] > best) { best = a[m]; at = m; }
    printf("%d %d %d %d %d %.1f\\n", i, j, k, m, at, best);
    return 0;
}
"""


def test_a_counter_read_after_its_loop_ends_where_the_sequential_loop_leaves_it() -> None:
    """Counters declared before their loops and printed after them: `lastprivate` of the
    loop's own variable (OpenMP leaves the sequential end: up, by two, down); a loop that
    needs more than a directive (a best, a search, a scan) is not offered with such a counter."""
    program = analyse(COUNTERS, Language.C)
    loops = annotatable(program)
    assert [lp.var for lp in loops] == ["i", "j", "k"]
    out = apply_choices(COUNTERS, program, default_choices(loops))
    for var in ("i", "j", "k"):
        assert f"lastprivate({var})" in out
    _prints_as_sequential(COUNTERS, out, "c", threads=(2, 3, 4))


BITS = """#include <cstdio>
#include <vector>

void signs(std::vector<int> const& x, std::vector<bool> &mask) {
    for (int i = 0; i < (int)x.size(); i++) {
        mask[i] = x[i] > 0;
    }
}

int main() {
    std::vector<int> x(100003);
    for (int i = 0; i < (int)x.size(); i++) x[i] = (i * 7919) % 13 - 6;
    std::vector<bool> mask(x.size());
    signs(x, mask);
    long h = 0;
    for (size_t i = 0; i < mask.size(); i++) h = h * 31 + mask[i];
    std::printf("%ld\\n", h);
}
"""


def test_a_std_vector_bool_is_written_in_chunks_of_whole_words() -> None:
    program = analyse(BITS, Language.CPP)
    [loop] = annotatable(program, "signs")
    assert loop.dependence.packed == ("mask",)
    [schema] = _loop_schemas(choice_schema([loop]))
    assert schema["properties"]["chunk"]["enum"] == [512]
    assert schema["properties"]["schedule"]["enum"] == ["static", "dynamic"]
    assert schema["properties"]["simd"]["enum"] == [False]
    out = apply_choices(BITS, program, default_choices([loop]))
    assert "#pragma omp parallel for schedule(static,512)" in out
    _prints_as_sequential(BITS, out, threads=(2, 3, 4))
    for wrong in (
        {"chunk": None},
        {"chunk": 64, "schedule": "dynamic"},
        {"schedule": "guided", "chunk": 512},
    ):
        with pytest.raises(AnnotationError, match="whole words"):
            apply_choices(BITS, program, [LoopChoice(loop=loop.id, **wrong)])


C_SCANS = """#include <stdio.h>
#include <stdlib.h>

long prefix(int n, const long *x, long *y) {
    long sum = 5;
    for (int i = 0; i < n; i++) {
        sum += x[i];
        y[i] = sum;
    }
    return sum;
}

void products(int n, const double *x, double *p) {
    for (int i = 1; i < n; i++) {
        p[i] = p[i - 1] * x[i];
    }
}

int main(void) {
    int sizes[] = {1, 2, 3, 7, 1000, 100003};
    for (int s = 0; s < 6; s++) {
        int n = sizes[s];
        long *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        double *f = malloc(n * sizeof *f), *p = malloc(n * sizeof *p);
        for (int i = 0; i < n; i++) {
            x[i] = (i * 31) % 97 - 40;
            f[i] = (i % 4) ? 1.0 : -1.0;
        }
        p[0] = 2.0;
        long total = prefix(n, x, y);
        products(n, f, p);
        long check = 0;
        for (int i = 0; i < n; i++) check = check * 7 + y[i] + (long)p[i];
        printf("%d %ld %ld\\n", n, total, check);
        free(x); free(y); free(f); free(p);
    }
    return 0;
}
"""


def test_scans_in_c_take_their_types_from_typeof() -> None:
    program = analyse(C_SCANS, Language.C)
    loops = annotatable(program, "prefix") + annotatable(program, "products")
    assert [
        (lp.dependence.scan.var, lp.dependence.scan.op) for lp in loops if lp.dependence.scan
    ] == [
        ("sum", "+"),
        ("p", "*"),
    ]
    out = apply_choices(C_SCANS, program, default_choices(loops))
    assert out.startswith("#include <omp.h>\n#include <stdio.h>")  # no C++ header
    assert "__typeof__(sum) sum_blocks[omp_get_max_threads()];" in out
    assert "__typeof__(p[0]) p_run = 0;" in out
    _prints_as_sequential(C_SCANS, out, "c", threads=(2, 3, 5))


def test_loops_the_program_already_directs_are_left_as_written() -> None:
    """A program with its own directives: a `parallel for` (one with a comment before its
    loop), a `for` and a loop without one in a `parallel` region, `GCC ivdep` and `GCC unroll`
    hints. Another directive above any of them would not build (GCC: "for statement expected
    before '#pragma'") or would make a region's threads each run a team, so only the loops
    without one are offered (a `GCC diagnostic` pragma governs no loop); the program builds
    with -Werror and prints what it printed."""
    source = (Path(__file__).parent / "programs" / "own_directives.c").read_text()
    program = analyse(source, Language.C)
    assert {loop.id: loop.directive for loop in program.loops} == {
        "L1": 14, "L2": 17, "L3": 23, "L4": 20, "L5": 31, "L6": 33, "L7": None, "L8": None, "L9": None,
    }  # fmt: skip
    loops = annotatable(program)
    assert [loop.id for loop in loops] == ["L7", "L8"]
    with pytest.raises(AnnotationError, match="own directive on line 14: left as written"):
        apply_choices(source, program, [LoopChoice(loop="L1")])
    out = apply_choices(source, program, default_choices(loops))
    assert out.count("#pragma omp parallel for") == 4
    _prints_as_sequential(source, out, "c")


def test_writes_column_by_column_belong_to_their_column() -> None:
    """`a[i + j * n]` with the outer counter the column, provably in [0, n): each iteration
    of the outer loop writes its own column (values of different iterations differ modulo
    n), so the outer loop is divided, not only the inner one. A column that may reach the
    row length (`i <= n`), rows shorter than the columns' count (`j * (n - 1)`) or an
    unrelated row length (`j * m`) keep the outer loop carried."""
    source = (Path(__file__).parent / "programs" / "column_writes.c").read_text()
    program = analyse(source, Language.C)
    parallel = {loop.id for loop in program.loops if loop.dependence.annotatable}
    assert parallel == {"L1", "L2", "L3", "L4", "L6", "L11"}
    loops = annotatable(program)
    out = apply_choices(source, program, default_choices(loops))
    assert out.count("#pragma omp parallel for") == 4  # transpose, columns, past_the_row's j, main
    _prints_as_sequential(source, out, "c")


def test_logical_folds_start_from_a_truth_value() -> None:
    """`any = any || c` from a parameter or from 7 keeps that value where the loop runs no
    iteration; OpenMP's `reduction(||:any)` combines it with the threads' 0 and leaves 1 (a
    hostile probe's, on MPI; OpenMP did the same). Such folds are offered only for a `bool`
    or a local declared with 0 or 1 that nothing names before the loop (nor after it inside
    a loop around both); every function runs with no iteration, one and many."""
    source = (Path(__file__).parent / "programs" / "logical_starts.c").read_text()
    program = analyse(source, Language.C)
    loops = annotatable(program)
    assert [loop.id for loop in loops] == ["L3", "L4", "L8", "L9", "L10"]
    out = apply_choices(source, program, default_choices(loops))
    _prints_as_sequential(source, out, "c")


def test_a_std_vector_bool_written_through_a_range_for_is_carried() -> None:
    """`for (auto &&b : vb) b = !b;` over a `std::vector<bool>`: each element is a bit of a
    word other iterations write too (OpenMP's static blocks raced at their edges; the MPI
    rewrite did not build), so no target takes it; reading it is still a reduction."""
    source = """#include <cstdio>
#include <vector>
void flip(std::vector<bool> &vb) {
    for (auto &&b : vb) b = !b;
}
int main() {
    std::vector<bool> vb(1001);
    for (auto &b : vb) b = true;
    flip(vb);
    long w = 0;
    for (size_t i = 0; i < vb.size(); i++) w += vb[i];
    std::printf("%ld\\n", w);
    return 0;
}
"""
    program = analyse(source, Language.CPP)
    assert [(loop.id, loop.dependence.annotatable) for loop in program.loops] == [
        ("L1", False), ("L2", False), ("L3", True),
    ]  # fmt: skip
    assert "bits packed into shared words" in program.loops[0].dependence.reason


def test_the_openmp_probes_hazards_get_no_directive() -> None:
    """A hostile probe's loops whose directives printed other values (a counter a called
    function reads, `bool` sums and exclusive ors of terms other than 0 or 1, a `&&` fold
    whose skipped operand stores)
    or did not build (reductions into a pointer or an atomic, floating and enumeration
    counters) are not offered; a `bool` `&`, a plain `&&` fold, a helper given its counter
    are. The rest prints what it printed at every thread count."""
    source = (Path(__file__).parent / "programs" / "openmp_hazards.c").read_text()
    program = analyse(source, Language.C)
    loops = annotatable(program)
    assert [loop.id for loop in loops] == ["L2", "L3", "L6", "L8", "L13"]
    out = apply_choices(source, program, default_choices(loops))
    _prints_as_sequential(source, out, "c")


ERRNO = """#include <errno.h>
#include <math.h>
#include <stdio.h>
static double x[100003], y[100003];
int main(void) {
    for (int i = 0; i < 100003; i++) x[i] = i == 99990 ? 0.0 : 1.0 + i;
    errno = 0;
    for (int i = 0; i < 100003; i++) y[i] = log(x[i]);
    printf("%d %.3f\\n", errno != 0, y[5]);
    return 0;
}
"""

PER_THREAD = """#include <stdio.h>
static _Thread_local int base = 0;
static int a[100003], b[100003];
static int plus(int v) { return v + 1; }
int main(void) {
    for (int i = 0; i < 100003; i++) a[i] = i % 11;
    base = 5;
    for (int i = 0; i < 100003; i++) b[i] = a[i] + base;
    for (int i = 0; i < 100003; i++) a[i] = plus(a[i]);
    printf("%d %d %d\\n", b[1], b[100002], a[3]);
    return 0;
}
"""


def test_errno_and_per_thread_variables_keep_their_loops_sequential() -> None:
    """`log(0.0)` sets `errno` on the thread that runs it: in a program that reads `errno`
    a loop calling the library stays sequential (the probe's printed 0 for 1). A variable
    each thread has its own of (`_Thread_local`, `__thread`, `thread_local`, `omp
    threadprivate`) read in a loop, or possibly by the program's function it calls, keeps
    that loop sequential (workers read their copy: 0 for 5)."""
    program = analyse(ERRNO, Language.C)
    assert [loop.id for loop in annotatable(program)] == ["L1"]
    assert "reads errno" in program.loops[1].dependence.reason
    out = apply_choices(ERRNO, program, default_choices(annotatable(program)))
    _prints_as_sequential(ERRNO, out, "c")
    program = analyse(PER_THREAD, Language.C)
    assert [loop.id for loop in annotatable(program)] == ["L1"]
    assert "each thread has its own of (base)" in program.loops[1].dependence.reason
    out = apply_choices(PER_THREAD, program, default_choices(annotatable(program)))
    _prints_as_sequential(PER_THREAD, out, "c")


def test_headers_types_and_effects_a_second_probe_found() -> None:
    """A second hostile probe's loops (each printed other values or did not build) get no
    directive: `!=` on an unsigned counter that wraps (`i != (size_t)-1`), a signed counter
    against an unsigned bound from a negative start (C compares unsigned: no iteration), a
    floating bound, a test in parentheses, counters of a narrow, floating or enumeration
    typedef, a typedef'd bool that sums (GCC adds the threads' bools as numbers: 2), a loop
    under `_Pragma`, inline assembly, a cleanup function, a sizeof that calls; a histogram
    too large for a copy per thread on the stack is annotated with atomic updates. In C++:
    `auto`, `using` and template counters that are narrow, a vector's size against -1,
    default arguments, temporaries, by-value parameters and members whose special members
    count, a member initialiser that calls, a constexpr function's loop; a template's
    vector that may be bits is written in whole words."""
    folder = Path(__file__).parent / "programs"
    source = (folder / "openmp_forms.c").read_text()
    program = analyse(source, Language.C)
    loops = annotatable(program)
    assert [loop.id for loop in loops] == ["L1", "L14", "L15", "L16", "L17", "L18"]
    # (every one: the default choices leave a histogram of atomic updates out)
    out = apply_choices(source, program, [LoopChoice(loop=loop.id) for loop in loops])
    assert "#pragma omp atomic" in out  # the 4,000,000-element histogram
    _prints_as_sequential(source, out, "c")
    source = (folder / "openmp_forms.cpp").read_text()
    program = analyse(source, Language.CPP)
    loops = annotatable(program)
    assert [loop.id for loop in loops] == ["L2", "L4", "L13", "L9"]  # outermost first
    out = apply_choices(source, program, default_choices(loops))
    assert f"schedule(static,{PACKED_CHUNK})" in out  # set_multiples' vector<T>
    _prints_as_sequential(source, out)


def test_an_unsigned_counter_counting_down_takes_only_static_schedules() -> None:
    """GCC's OpenMP ran none of `for (unsigned i = n; i > 0; i--)`'s iterations under a
    `dynamic` or `guided` schedule (a probe's): such a loop is offered static schedules only."""
    source = """#include <stdio.h>
static long a[100001];
int main(void) {
    unsigned n = 100000;
    for (unsigned i = n; i > 0; i--) a[i] = i % 7;
    long s = 0;
    for (int i = 0; i <= 100000; i++) s += a[i];
    printf("%ld\\n", s);
    return 0;
}
"""
    program = analyse(source, Language.C)
    (loop, _) = annotatable(program)
    assert loop.static_only
    with pytest.raises(AnnotationError, match="any schedule but static"):
        apply_choices(source, program, [LoopChoice(loop=loop.id, schedule="dynamic")])
    assert choice_schema([loop])["properties"]["choices"]["items"]["anyOf"][0]["properties"][
        "schedule"
    ]["enum"] == ["static"]


RANGE_ELEMENTS = """#include <vector>
static int calls = 0;
static double positivePart(double a) { return a > 0 ? a : 0; }
static double counted(double a) { calls++; return a; }
double sumPositive(std::vector<double> const &x) {
    double t = 0;
    for (double v : x) t += positivePart(v);
    return t;
}
double sumCounted(std::vector<double> const &x) {
    double t = 0;
    for (double v : x) t += counted(v);
    return t;
}
"""


def test_a_range_element_copied_into_a_helper_is_the_loops_own() -> None:
    """`for (double v : x)` copies each element into a fresh `v`: a helper the body calls
    cannot reach it, so a pure helper leaves the reduction proven; a helper with an effect
    of its own still keeps its loop sequential."""
    program = analyse(RANGE_ELEMENTS, Language.CPP)
    kinds = [(loop.id, loop.dependence.kind) for loop in program.loops]
    assert kinds[0] == ("L1", "reduction")
    assert kinds[1][1] not in ("reduction", "independent")
