"""`distribute`: MPI programs written from the analysis's loop facts.

Each program here is compiled as it is and as the tool rewrites it (`mpicc`/`mpicxx`), and the
rewrite must print exactly what the sequential program prints at 1, 2, 3 and 4 ranks, on sizes
below, at and above the rank counts (one run covers all of them). The pure tests check what the
tool offers and refuses."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from agents.analysis import AnnotationError, analyse
from agents.analysis.distribute import (
    CYCLIC_ROUNDS,
    ROUND_CHOICES,
    cycles,
    distributable,
    distribute,
    distributed_walks,
    rounds_for,
    why_not,
)
from agents.analysis.kernels import as_loops
from agents.analysis.parse import syntax_tree
from agents.targets import kit
from agents.targets.lowered import with_most_loops
from sandbox.spec import Language, Target

PROGRAMS = Path(__file__).parent / "programs"
RANKS = (1, 2, 3, 4)
_SESSIONS = tempfile.mkdtemp(prefix="pf-ompi-")
"""This process's own base for Open MPI's session directories: two test workers starting
`mpirun` at once under one base can race to create the same one ("A call to mkdir was
unable to create the desired directory")."""
atexit.register(shutil.rmtree, _SESSIONS, True)
MPI_ENV = {
    **os.environ,
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_btl": "self,vader",
    "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
    "OMPI_MCA_orte_tmpdir_base": _SESSIONS,
}


def _stdin_for_shapes() -> str:
    sizes = [1, 2, 3, 5, 7, 100, 1001]
    rows = [str(len(sizes))]
    for n in sizes:
        values = [(i * 37 + 11) % 23 * 2 + (1 if i % 9 else 0) for i in range(n)]
        rows += [str(n), " ".join(map(str, values))]
    return "\n".join(rows) + "\n"


CASES = {
    # file, language, the loops the tool must divide, standard input
    # folds (and a histogram), three bests, a map, rows, a last value, main's set-up loop;
    # not the 3- and 8-iteration loops, nor the histogram into a pointer parameter.
    "mpi_folds.c": (
        Language.C,
        {"L1", "L2", "L3", "L4", "L5", "L6", "L7", "L11", "L13"},
        "",
    ),
    "mpi_shapes.cpp": (
        Language.CPP,
        # the search, both scans, the range-based loops; main's four set-up loops (the one
        # writing a std::vector<bool> too: its bits move as bytes; not the input loops); a
        # histogram whose length is known at run time
        {"L1", "L2", "L3", "L4", "L5", "L6", "L9", "L10", "L11", "L12", "L13"},
        _stdin_for_shapes(),
    ),
    # loops counting down: a map, sums (one with an unsigned counter to 1), a histogram, rows,
    # a triangular loop (rounds), bounds that are not integers, a narrow counter, main's
    # checks; not those whose order matters
    # arrays of arrays divided by rows (a file's, a local one; not a parameter that may alias
    # another, nor rows allocated one by one), C89 counters counted again in each sweep
    "mpi_grids.c": (Language.C, {"L4", "L7", "L9", "L13", "L15"}, ""),
    # arrays of structs of numbers (one nested in another, one a typedef) gathered as bytes;
    # loops writing and summing their array members (`ps[i].v[0]`: the element `ps[i]`)
    "mpi_structs.c": (Language.C, {"L1", "L2", "L3", "L4", "L5", "L6"}, ""),
    # an image's rows by a constant width (`const int W`, the vectors sized `W * H`); not a
    # loop whose columns run past that width
    "images.cpp": (Language.CPP, {"L1", "L3", "L9"}, ""),
    # a plate's rows by a width kept in a local (`int nx = 240;`), its sweeps between pointer
    # swaps, its checksum
    "mpi_plates.c": (Language.C, {"L1", "L4", "L6"}, ""),
    # prefix sums and a running product as recurrences of one statement without braces
    "recurrences.c": (Language.C, {"L1", "L2", "L3", "L4"}, ""),
    # the same in place (`a[i] += a[i - 1]`) and one element on (a CSR row pointer, `rp[i + 1]
    # = rp[i] + count[i]`, gathered from its first + 1); not a loop reading the next element
    "shifted_recurrences.c": (Language.C, {f"L{k}" for k in range(1, 9)}, ""),
    # compactions (`if (c) y[k++] = e;`): each rank stores its run from the count of the
    # ranks before it, and every rank gets every run; not in-place packing
    "packs.c": (Language.C, {"L1", "L2", "L3", "L4", "L5"}, ""),
    # exclusive scans (`start[i] = next; next += count[i];`, the value before the step kept
    # in a local, read before or after it): each rank's first pass totals its block without
    # the reads; main's set-up
    # loop and its check (not the near misses)
    "exclusive_scans.c": (Language.C, {"L1", "L2", "L3", "L4", "L5", "L9", "L11", "L12"}, ""),
    # counters whose first value their type wraps (`unsigned char c = 260` starts at 4)
    "narrow_counters.c": (Language.C, {"L2", "L3", "L4", "L5", "L6"}, ""),
    # scans over 1-based ranges (`i <= n`): a prefix sum, an exclusive running value, a
    # compaction; main's set-up loop and its check
    "inclusive_bounds.c": (Language.C, {"L1", "L2", "L3", "L5", "L6"}, ""),
    # scans counting down: not divided (a rank's block of values runs from the bottom);
    # main's set-up loop and its check
    "suffix_scans.cpp": (Language.CPP, {"L6", "L7"}, ""),
    # running maxima and minima (one exclusive), a maximum, main's loops
    "running_extrema.cpp": (Language.CPP, {"L1", "L2", "L3", "L4", "L6", "L7"}, ""),
    # searches that set scalars where they leave (`{ found = i; break; }`), in a helper and
    # in main; a histogram whose bin is a local the body computes
    "mpi_found.cpp": (Language.CPP, {"L1", "L2", "L5", "L6"}, ""),
    # writes column by column: no rank's block is a run of rows (the columns are not
    # gathered); main's set-up loop
    "column_writes.c": (Language.C, {"L11"}, ""),
    # && and || folds only from a bool or a local declared 0 or 1 (a fold from 5 leaves 1
    # where the loop runs no iteration); main's set-up loop
    "logical_starts.c": (Language.C, {"L3", "L4", "L8", "L9", "L10"}, ""),
    # output past a small buffer, its stream checked at the end (ranks other than 0 wrote
    # into 256 bytes: their streams failed, the job ended 2); every C++ stream, wide too
    "mpi_streams.c": (Language.C, {"L1", "L2"}, ""),
    "mpi_streams.cpp": (Language.CPP, {"L1", "L2"}, ""),
    # std::vector<bool> maps: each rank sets its block's bits in its own copy, and the bits
    # move as one byte each; the loops reading them
    "mpi_bits.cpp": (Language.CPP, {"L1", "L2", "L3", "L4", "L5"}, ""),
    # loops in functions run before main or after it (a file's initializer, a static
    # object's destructor, a constructor function: MPI had not started or had ended, the job
    # aborted): only main's
    "mpi_outside_main.cpp": (Language.CPP, {"L4", "L5"}, ""),
    # a program's own OpenMP directives and loop hints: their loops are left as written
    # (the MPI build runs them as the program's sequential loops); the two without
    "own_directives.c": (Language.C, {"L7", "L8"}, ""),
    "mpi_down.c": (
        Language.C,
        {"L2", "L3", "L4", "L5", "L6", "L8", "L11", "L12", "L13", "L17", "L18"},
        "",
    ),
}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpicc") is None, reason="needs Open MPI's compilers")
@pytest.mark.parametrize("name", sorted(CASES))
def test_rank_blocks_print_what_the_sequential_program_prints(name: str, tmp_path: Path) -> None:
    language, expected, stdin = CASES[name]
    source = (PROGRAMS / name).read_text()
    program = analyse(source, language)
    offered = {loop.id for loop in distributable(source, program)}
    assert offered == expected, {loop.id: why_not(program, loop) for loop in program.loops}
    rewritten = distribute(source, program, sorted(offered))
    want = _prints_as_sequential(tmp_path, source, rewritten, language, stdin, RANKS)
    assert want.count("\n") >= 7


def _prints_as_sequential(
    tmp_path: Path,
    source: str,
    rewritten: str,
    language: Language,
    stdin: str,
    ranks: tuple[int, ...],
) -> str:
    """The rewritten program prints what the sequential one prints at each rank count; what
    it prints."""
    suffix = ".c" if language is Language.C else ".cpp"
    (tmp_path / f"seq{suffix}").write_text(source)
    (tmp_path / f"par{suffix}").write_text(rewritten)
    cc, mpicc = ("gcc", "mpicc") if language is Language.C else ("g++", "mpicxx")
    for compiler, name in ((cc, "seq"), (mpicc, "par")):
        subprocess.run(
            [compiler, "-O2", "-o", str(tmp_path / name), str(tmp_path / f"{name}{suffix}")],
            check=True,
            capture_output=True,
            timeout=120,
        )
    want = subprocess.run(
        [str(tmp_path / "seq")], input=stdin, capture_output=True, text=True, timeout=60, check=True
    ).stdout
    for count in ranks:
        got = subprocess.run(
            ["mpirun", "-np", str(count), "--oversubscribe", str(tmp_path / "par")],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            env=MPI_ENV,
        )
        assert got.returncode == 0, got.stderr[-2000:]
        assert got.stdout == want, (count, got.stdout, want)
    return want


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpicc") is None, reason="needs Open MPI's compilers")
def test_argmins_kept_by_index_in_main_divide_as_best_updates(tmp_path: Path) -> None:
    """`if (a[i] < a[lo]) lo = i;` in main, over a file's array and a local one (their
    element types read from those declarations), four of them with one counter name: each
    becomes the best update it is, divided, and the ties go where the sequential loop's go."""
    source = (PROGRAMS / "mpi_argmins.c").read_text()
    program = analyse(source, Language.C)
    lowered, analysed, loops = with_most_loops(source, program, distributable)
    assert [loop.id for loop in loops] == ["L1", "L2", "L3", "L4", "L5", "L6"]
    assert sum(bool(loop.dependence.best_updates) for loop in loops) == 4
    rewritten = distribute(lowered, analysed, [loop.id for loop in loops])
    _prints_as_sequential(tmp_path, source, rewritten, Language.C, "", RANKS)


def test_an_argmin_takes_no_type_from_a_declaration_that_hides_or_follows_it() -> None:
    """A file's `double g[8]` read by an argmin in a function that declares its own `g`
    after the loop: which `g` the comparison reads is not the file's alone, so no value type
    is read and the loop stays as it is (a `long long` value would truncate the doubles)."""
    source = (
        "double g[8];\nint main(void) {\n    int best = 0;\n"
        "    for (int i = 1; i < 8; i++) if (g[i] < g[best]) best = i;\n"
        "    int g2 = 0;\n    return best + g2;\n}\n"
    )
    lowered, _ = as_loops(source, analyse(source, Language.C), "main")
    assert "double best_value" in lowered
    hidden = source.replace(
        "int g2 = 0;\n    return best + g2;", "int g[4] = {0};\n    return best + g[0];"
    )
    lowered, _ = as_loops(hidden, analyse(hidden, Language.C), "main")
    assert "best_value" not in lowered


def _offered(source: str, language: Language = Language.C) -> set[str]:
    program = analyse(source, language)
    return {loop.id for loop in distributable(source, program)}


def test_a_write_beyond_the_iterations_own_element_gets_no_candidate() -> None:
    source = """
void spread(int n, double *a, const double *b) {
    for (int i = 0; i < n; i++) a[2 * i] = b[i];
}
"""
    program = analyse(source, Language.C)
    assert _offered(source) == set()
    assert "beyond its own element" in (why_not(program, program.loops[0]) or "")


def test_a_loop_the_analysis_cannot_prove_gets_no_candidate() -> None:
    source = """
void recur(int n, double *a) {
    for (int i = 1; i < n; i++) a[i] = a[i - 1] * 0.5 + a[i] * a[i];
}
"""
    assert _offered(source) == set()
    with pytest.raises(AnnotationError):
        distribute(source, analyse(source, Language.C), ["L1"])


def test_a_loop_doing_output_gets_no_candidate() -> None:
    source = """
#include <stdio.h>
void show(int n, const double *a) {
    for (int i = 0; i < n; i++) printf("%f\\n", a[i]);
}
"""
    assert _offered(source) == set()


def test_a_loop_in_a_function_a_divided_loop_calls_stays_on_every_rank() -> None:
    """Dividing both would have only some ranks enter the inner loop's collective call."""
    source = """
static double weight(int m) {
    double s = 0;
    for (int j = 0; j < m; j++) s += j * 0.5;
    return s;
}
static double twice(int m) { return 2 * weight(m); }
void sums(int n, int m, double *out) {
    for (int i = 0; i < n; i++) out[i] = twice(m) * i;
}
"""
    program = analyse(source, Language.C)
    assert program.loop("L2").dependence.parallelisable
    assert _offered(source) == {"L2"}


def test_short_loops_stay_on_every_rank() -> None:
    source = """
void fill(double *a) {
    for (int i = 0; i < 8; i++) a[i] = i;
}
"""
    assert _offered(source) == set()


def test_a_program_using_the_tools_names_is_refused() -> None:
    source = """
void scale(int n, double *a) {
    int pf_mpi_rank = 0;
    for (int i = 0; i < n; i++) a[i] *= 2 + pf_mpi_rank;
}
"""
    program = analyse(source, Language.C)
    with pytest.raises(AnnotationError, match="pf_mpi_rank"):
        distribute(source, program, [loop.id for loop in distributable(source, program)])


def test_a_whole_program_starts_mpi_and_a_function_does_not() -> None:
    body = "double total(int n, const double *a) { double s = 0;\n"
    body += "    for (int i = 0; i < n; i++) s += a[i];\n    return s; }\n"
    function = distribute(body, analyse(body, Language.C), ["L1"])
    assert "MPI_Init" not in function and "pf_mpi_start(" not in function
    assert "MPI_SUM" in function
    whole = "#include <stdio.h>\n" + body + "int main(void) { double a[3] = {1, 2, 3};\n"
    whole += '    printf("%f\\n", total(3, a)); return 0; }\n'
    rewritten = distribute(whole, analyse(whole, Language.C), ["L1"])
    assert "int main(void) { pf_mpi_start(0);" in rewritten


@pytest.mark.skipif(shutil.which("mpicc") is None, reason="needs Open MPI's compilers")
def test_pointers_never_move_between_ranks(tmp_path: Path) -> None:
    """An address means nothing in another process: a loop that stores pointers must not build
    rather than hand rank 0 another rank's addresses."""
    source = """
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int n = 1000;
    double *buf = malloc(n * sizeof *buf);
    double **at = malloc(n * sizeof *at);
    for (int i = 0; i < n; i++) at[i] = &buf[i];
    for (int i = 0; i < n; i++) buf[i] = i;
    printf("%f\\n", *at[n - 1]);
    return 0;
}
"""
    program = analyse(source, Language.C)
    offered = [loop.id for loop in distributable(source, program)]
    assert "L1" in offered  # the analysis proves it; the compiler is what refuses it
    _moves_no_pointer(tmp_path, distribute(source, program, offered), Language.C)


def _moves_no_pointer(tmp_path: Path, written: str, language: Language) -> None:
    """The MPI program `written` does not build: the compiler refuses to move a pointer."""
    suffix, compiler = (".c", "mpicc") if language is Language.C else (".cpp", "mpicxx")
    (tmp_path / f"p{suffix}").write_text(written)
    run = subprocess.run(
        [compiler, "-o", str(tmp_path / "p"), str(tmp_path / f"p{suffix}")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0 and "only numbers move between ranks" in run.stderr


PARTICLES = """#include <cstdio>
#include <vector>
struct Particle { double x, v; };
struct Tagged { double x; const char *name; };
int main() {
    const int n = 10007;
    std::vector<Particle> ps(n);
    std::vector<Tagged> ts(n);
    for (int i = 0; i < n; ++i) ps[i] = {i * 0.001, (i % 7) - 3.0};
    for (int i = 0; i < n; ++i) ps[i].v -= 0.5 * ps[i].x;
    for (int i = 0; i < n; ++i) ts[i] = {ps[i].x, "p"};
    std::printf("%.6f %.6f %.6f\\n", ps[0].v, ps[n / 2].v, ps[n - 1].v);
    std::printf("%.6f %s\\n", ts[n - 1].x, ts[n - 1].name);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("mpicxx") is None, reason="needs Open MPI's compilers")
def test_structs_of_numbers_move_between_ranks_and_structs_holding_pointers_do_not(
    tmp_path: Path,
) -> None:
    """A vector of a struct of numbers the file defines moves between ranks as bytes (the
    compiler asks that it is trivially copyable); a loop writing one of a struct holding a
    pointer is not offered (it had been, and its rewrite did not build: a hostile probe's)."""
    program = analyse(PARTICLES, Language.CPP)
    offered = sorted(loop.id for loop in distributable(PARTICLES, program))
    assert offered == ["L1", "L2"]
    root = syntax_tree(PARTICLES, Language.CPP).root_node
    assert "hold a pointer or an object owning memory" in (
        why_not(program, program.loops[2], root) or ""
    )
    plain = distribute(PARTICLES, program, ["L1", "L2"])
    _prints_as_sequential(tmp_path, PARTICLES, plain, Language.CPP, "", RANKS)


def _build_and_compare(
    tmp_path: Path, source: str, variants: dict[str, str], ranks: tuple[int, ...] = RANKS
) -> None:
    """Each MPI variant of the C program `source` prints what it prints, at each rank count."""
    (tmp_path / "seq.c").write_text(source)
    subprocess.run(
        ["gcc", "-O2", "-o", str(tmp_path / "seq"), str(tmp_path / "seq.c")],
        check=True,
        capture_output=True,
        timeout=120,
    )
    want = subprocess.run(
        [str(tmp_path / "seq")], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert want.count("\n") >= 7
    for name, variant in variants.items():
        (tmp_path / f"{name}.c").write_text(variant)
        built = subprocess.run(
            ["mpicc", "-O2", "-Wall", "-o", str(tmp_path / name), str(tmp_path / f"{name}.c")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert built.returncode == 0, (name, built.stderr[-2000:])
        for count in ranks:
            got = subprocess.run(
                ["mpirun", "-np", str(count), "--oversubscribe", str(tmp_path / name)],
                capture_output=True,
                text=True,
                timeout=120,
                env=MPI_ENV,
            )
            assert got.returncode == 0, (name, count, got.stderr[-2000:])
            assert got.stdout == want, (name, count, got.stdout, want)


def test_uneven_loops_run_block_cyclic_and_the_rest_in_one_block_per_rank() -> None:
    source = (PROGRAMS / "mpi_uneven.c").read_text()
    program = analyse(source, Language.C)
    offered = distributable(source, program)
    assert [loop.id for loop in offered] == ["L1", "L3", "L5", "L7", "L8", "L10"]
    assert {loop.id: rounds_for(program, loop) for loop in offered if cycles(loop)} == {
        "L1": CYCLIC_ROUNDS,  # `j < i`
        "L3": CYCLIC_ROUNDS,  # `j = i`
        "L5": CYCLIC_ROUNDS,  # a `while` inside
        "L7": 1,
        "L10": 1,
    }
    # an argmin merges the ranks' bests in rank order: its ranks hold one block each
    assert [loop.id for loop in offered if not cycles(loop)] == ["L8"]
    rewritten = distribute(source, program, [loop.id for loop in offered])
    assert rewritten.count(f"_rounds = {CYCLIC_ROUNDS};") == 3
    assert rewritten.count("_rounds = 1;") == 2
    with pytest.raises(AnnotationError, match="rounds"):
        distribute(source, program, ["L8"], rounds={"L8": 4})
    with pytest.raises(AnnotationError, match="rounds"):
        distribute(source, program, ["L1"], rounds={"L1": 0})


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpicc") is None, reason="needs Open MPI's compilers")
@pytest.mark.parametrize("name", ["mpi_uneven.c", "mpi_down.c"])
def test_every_round_count_prints_what_the_sequential_program_prints(
    name: str, tmp_path: Path
) -> None:
    """More rounds than a loop has iterations per rank (70 iterations, 64 rounds, 4 ranks)
    leave parts empty; every count, at every rank count, still gives the same output (loops
    counting down too: each part's values from its top)."""
    source = (PROGRAMS / name).read_text()
    program = analyse(source, Language.C)
    offered = distributable(source, program)
    cycling = [loop.id for loop in offered if cycles(loop)]
    variants = {
        f"rounds{count}": distribute(
            source,
            program,
            [loop.id for loop in offered],
            rounds=dict.fromkeys(cycling, count),
        )
        for count in ROUND_CHOICES
    }
    _build_and_compare(tmp_path, source, variants)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpicc") is None, reason="needs Open MPI's compilers")
def test_the_mpi_kits_neighbours_print_what_the_sequential_program_prints(
    tmp_path: Path,
) -> None:
    """Evolution's MPI neighbours of a `distribute` candidate: each loop's rounds, and each
    `MPI_Allreduce` as `MPI_Reduce` + `MPI_Bcast` (in place, and not: a model's program may
    reduce into another buffer)."""
    source = (PROGRAMS / "mpi_uneven.c").read_text()
    program = analyse(source, Language.C)
    rewritten = distribute(source, program, [loop.id for loop in distributable(source, program)])
    rewritten = rewritten.replace(
        "MPI_Allreduce(MPI_IN_PLACE, &(total), 1,",
        "double pf_total_in = total; MPI_Allreduce(&pf_total_in, &(total), 1,",
    )
    mutations = kit(Target.MPI).mutations(rewritten, Language.C)
    operators = [m.operator for m in mutations]
    # five loops that cycle, three other round counts each; an Allreduce for the sum, the
    # histogram, the xor, the collatz sum and the first-match of the argmin's found flags
    assert operators.count("decomposition") == 5 * (len(ROUND_CHOICES) - 1)
    assert operators.count("combine") == rewritten.count("MPI_Allreduce(")
    assert "pf_mpi_0: block-cyclic, 16 rounds -> block" in [m.label for m in mutations]
    chosen = [m for m in mutations if m.operator == "combine"] + [
        m for m in mutations if m.operator == "decomposition"
    ][::3]
    assert any(
        "double pf_total_in" in m.source and "MPI_Reduce(&pf_total_in" in m.source for m in chosen
    )
    _build_and_compare(
        tmp_path, source, {f"m{k}": m.source for k, m in enumerate(chosen)}, ranks=(1, 3)
    )


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpicc") is None, reason="needs Open MPI's compilers")
def test_a_search_in_rounds_finds_the_first_match(tmp_path: Path) -> None:
    """A search may run block-cyclic (the rounds mutation): each rank's first match is its
    smallest, found at the start, the middle, the end, or not at all."""
    source = (PROGRAMS / "mpi_search.c").read_text()
    program = analyse(source, Language.C)
    search = next(loop for loop in distributable(source, program) if loop.dependence.first_match)
    assert cycles(search)
    rewritten = distribute(
        source,
        program,
        [loop.id for loop in distributable(source, program)],
        rounds={search.id: 16},
    )
    (tmp_path / "seq.c").write_text(source)
    (tmp_path / "par.c").write_text(rewritten)
    subprocess.run(["gcc", "-O2", "-o", str(tmp_path / "seq"), str(tmp_path / "seq.c")], check=True)
    subprocess.run(
        ["mpicc", "-O2", "-o", str(tmp_path / "par"), str(tmp_path / "par.c")], check=True
    )
    for target in ("0", "4", "1433", "9993", "9990"):  # 9990 is nowhere
        want = subprocess.run(
            [str(tmp_path / "seq"), target], capture_output=True, text=True, check=True
        ).stdout
        for ranks in (1, 3, 4):
            got = subprocess.run(
                ["mpirun", "-np", str(ranks), "--oversubscribe", str(tmp_path / "par"), target],
                capture_output=True,
                text=True,
                timeout=120,
                env=MPI_ENV,
            )
            assert got.stdout == want, (target, ranks, got.stdout, got.stderr[-500:])


def test_stencil_sweeps_exchange_halos_as_wide_as_their_reach() -> None:
    """A stencil loop whose only neighbours in the loop around it swap its two buffers sends
    and receives its halo (its index offsets' reach) instead of gathering every sweep; a copy
    back, or a loop test reading a buffer, keeps the gathers."""
    source = (PROGRAMS / "mpi_sweeps.c").read_text()
    program = analyse(source, Language.C)
    offered = distributable(source, program)
    rewritten = distribute(source, program, [loop.id for loop in offered])
    halos = re.findall(r"pf_mpi_halo\(&\((\w+)\)\[[^;]*, (\d+)\)\)", rewritten)
    # three-point, five-point, plate; upwind (writes i + 1, reads i - 1: two rows); the sweep
    # to convergence with its residual
    assert halos == [("v", "1"), ("v", "2"), ("v", "1"), ("v", "2"), ("v", "1")]
    # after each swept loop, both buffers whole again on every rank
    for function in ("sweeps1", "sweeps2", "plate"):
        body = rewritten.split(f"static void {function}(")[1].split("static void")[0]
        tail = body.split("_whole_first", 1)[1]
        assert "pf_mpi_gather(&(v)" in tail and "pf_mpi_gather(&(u)" in tail
    for function in ("copied", "watched", "moving"):
        body = rewritten.split(f"static void {function}(")[1].split("static void")[0]
        assert "pf_mpi_halo" not in body and "pf_mpi_gather" in body
    # a sweep runs one block per rank: no round count for evolution to change
    plate = rewritten.split("static void plate(")[1].split("static void")[0]
    assert "_rounds = " not in plate.split("while")[1].split("printf")[0]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpicc") is None, reason="needs Open MPI's compilers")
def test_stencil_sweeps_with_halos_print_what_the_sequential_program_prints(
    tmp_path: Path,
) -> None:
    """Sizes 3 to 301 at 1-4 ranks: blocks shorter than the halo (the five-point stencil on 9
    points at 4 ranks) gather instead, for that sweep, on every rank alike."""
    source = (PROGRAMS / "mpi_sweeps.c").read_text()
    program = analyse(source, Language.C)
    offered = distributable(source, program)
    rewritten = distribute(source, program, [loop.id for loop in offered])
    # evolution's neighbours: each sweep's halo exchange back to the gather it replaced, or
    # non-blocking; and a non-blocking one back to blocking
    exchanges = [m for m in kit(Target.MPI).mutations(rewritten, Language.C)]
    exchanges = [m for m in exchanges if m.operator == "exchange"]
    gathers = [m for m in exchanges if "gather every sweep" in m.label]
    unblocked = [m for m in exchanges if "blocking -> non-blocking" in m.label]
    assert len(gathers) == len(unblocked) == 5 == len(exchanges) // 2
    assert all(m.source.count("pf_mpi_halo(&") == 4 for m in gathers)
    assert all(m.source.count("pf_mpi_halo_nb(&") == 1 for m in unblocked)
    back = kit(Target.MPI).mutations(unblocked[0].source, Language.C)
    assert any("non-blocking -> blocking" in m.label for m in back)
    variants = {"halo": rewritten} | {f"gather{k}": m.source for k, m in enumerate(gathers)}
    variants |= {f"nb{k}": m.source for k, m in enumerate(unblocked)}
    _build_and_compare(tmp_path, source, variants)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpicc") is None, reason="needs Open MPI's compilers")
def test_conditional_last_values_come_from_the_rank_that_assigned_last(tmp_path: Path) -> None:
    """`if (...) last = i;` and `if (...) value = f(i);`: each rank notes its last assigning
    iteration, the largest wins (`MPI_MAXLOC`) and its rank broadcasts the value; nothing
    assigned anywhere keeps the value before the loop. In one block per rank and in rounds."""
    source = (PROGRAMS / "mpi_last.c").read_text()
    program = analyse(source, Language.C)
    offered = distributable(source, program)
    kept = [loop for loop in offered if loop.dependence.last_assigned]
    assert len(kept) == 5
    loops = [loop.id for loop in offered]
    rewritten = distribute(source, program, loops)
    assert rewritten.count("MPI_MAXLOC") == 5
    rounds = distribute(source, program, loops, rounds=dict.fromkeys(loops, 4))
    _build_and_compare(tmp_path, source, {"blocks": rewritten, "rounds": rounds})


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("if (x[i] > 2) lo = hi = i;", "within another assignment"),
        ("if (x[i] > 2) name = names[i % 2];", "pointer"),
    ],
)
def test_last_values_that_cannot_move_between_ranks_get_no_candidate(body: str, why: str) -> None:
    source = (
        "#include <stdio.h>\nint main(void) {\n  int x[1000]; int lo = 0, hi = 0;\n"
        '  const char *names[2] = {"a", "b"}; const char *name = "";\n'
        "  for (int i = 0; i < 1000; i++) x[i] = i % 7;\n"
        f"  for (int i = 0; i < 1000; i++) {{ {body} }}\n"
        '  printf("%d %d %s\\n", lo, hi, name);\n  return 0;\n}\n'
    )
    _refused_at(source, 6, why)


def _refused_at(source: str, line: int, why: str) -> None:
    """The C loop on `line` of `source` gets no candidate, for a reason saying `why`."""
    program = analyse(source, Language.C)
    loop = next(x for x in program.loops if x.line == line)
    reason = why_not(program, loop, syntax_tree(source, Language.C).root_node)
    assert reason is not None and why in reason, reason


@pytest.mark.parametrize(
    ("loop", "why"),
    [
        ("for (int i = n - 1; i >= 0; i--) if (x[i] < 2) last = i;", "order matters (a scan"),
        (
            "for (int i = n - 1; i >= 0; i--) if (x[i] < best) { best = x[i]; last = i; }",
            "a best's ties",
        ),
        ("for (int i = n - 1; i >= 0; i -= 2) y[i] = x[i];", "its step is not 1"),
        ("for (i = n - 1; i >= 0; i--) y[i] = x[i];", "not an integer declared"),
        ("for (fp p = y + n - 1; p >= y; --p) best += *p;", "not an integer declared"),
        ("for (unsigned u = 999; u >= 0; --u) y[u % 9] += 1;", "never ends"),
        ("for (double d = 999.5; d >= 0; d--) y[(int)d] = 1;", "floating-point"),
        ("for (double d = 0.5; d < n; d++) y[(int)d] = 1;", "floating-point"),
        # (not canonical: the analysis says its bound or first value changes a variable)
        ("for (int k = --n; k >= 0; --k) y[k] = 1;", "not a counted for loop"),
        ("for (int k = 0; k < (n += 0); k++) y[k] = 1;", "not a counted for loop"),
    ],
)
def test_loops_the_ranks_would_run_differently_get_no_candidate(loop: str, why: str) -> None:
    """A loop counting down is divided only where its order changes nothing: a last value, a
    best (its ties go to the first it meets), a search or a scan stays on every rank, as does
    a step of 2 or a counter that is not an integer its header declares (its value after the
    loop; a typedef that may name a pointer). In either direction: no floating counter (the
    ranks count whole values) and no first value or bound with a side effect (the divided loop
    evaluates them a different number of times)."""
    source = (
        "#include <stdio.h>\ntypedef int *fp;\nint x[1000], y[1000];\nint main(void) {\n"
        "  int n = 1000, i, last = -1, best = 99;\n"
        "  for (int k = 0; k < n; k++) x[k] = k % 7;\n"
        f"  {loop}\n"
        '  printf("%d %d %d %d\\n", last, best, y[3], i);\n  return 0;\n}\n'
    )
    _refused_at(source, 7, why)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpicxx") is None, reason="needs Open MPI's compilers")
def test_a_counter_initialised_directly_is_divided_in_its_own_spelling(tmp_path: Path) -> None:
    """`int i{n - 1}` and `int i(n - 1)` (C++): the rank's first value in the same spelling."""
    source = (
        "#include <cstdio>\n#include <vector>\nint main() {\n"
        "  for (int n : {1, 3, 70, 1001}) {\n"
        "    std::vector<long> y(n), z(n);\n"
        "    for (int i{n - 1}; i >= 0; --i) y[i] = 3L * i - 7;\n"
        "    for (int i(n - 1); i >= 0; i--) z[i] = y[i] * (i % 5);\n"
        "    long s = 0;\n    for (int i = 0; i < n; i++) s += z[i] * (i % 3);\n"
        '    std::printf("%d %ld\\n", n, s);\n  }\n  return 0;\n}\n'
    )
    program = analyse(source, Language.CPP)
    loops = [loop.id for loop in distributable(source, program) if loop.line in (6, 7)]
    assert len(loops) == 2
    rewritten = distribute(source, program, loops)
    assert "int i{(int)(pf_mpi_0_v)}" in rewritten and "int i((int)(pf_mpi_1_v))" in rewritten
    _prints_as_sequential(tmp_path, source, rewritten, Language.CPP, "", (1, 3))


_RECURSIVE_COUNT = """
void visit(std::vector<int> const &adj, size_t n, int u, std::vector<char> &seen) {
    if (seen[u]) return;
    seen[u] = 1;
    for (int k = 0; k < (int)n; ++k)
        if (adj[u * n + k] != 0) visit(adj, n, k, seen);
}
int componentCount(std::vector<int> const &A, size_t N) {
    std::vector<char> seen(N, 0);
    int count = 0;
    for (size_t i = 0; i < N; i++) {
        if (!seen[i]) {
            visit(A, N, (int)i, seen);
            count++;
        }
    }
    return count;
}
"""

_WALK_MAIN = """
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    unsigned seed = 11;
    auto next = [&] { seed = seed * 1103515245u + 12345u; return seed >> 16; };
    int bad = 0, checked = 0;
    for (size_t n : {1, 2, 9, 40, 120}) {
        for (int directed = 0; directed < 2; directed++) {
            for (int dense = 1; dense < 5; dense += 3) {
                std::vector<int> A(n * n, 0);  // the same graph on every rank: the same draws
                for (size_t i = 0; i < n; i++)
                    for (size_t j = 0; j < n; j++)
                        if (i != j && next() % (2 * n + 1) < (unsigned)dense) {
                            A[i * n + j] = 1;
                            if (!directed) A[j * n + i] = 1;
                        }
                int want = seq::CALL;
                int got = CALL;
                checked++;
                if (rank == 0 && got != want) bad++;
            }
        }
    }
    if (rank == 0) printf("%d of %d differ\\n", bad, checked);
    MPI_Finalize();
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("mpicxx") is None, reason="needs MPI")
@pytest.mark.parametrize(
    ("problem", "call"),
    [
        ("16_graph_largest_component", "largestComponent(A, n)"),
        ("18_graph_count_components", "componentCount(A, n)"),
        ("19_graph_shortest_path", "shortestPathLength(A, n, (int)(n / 3), (int)(n - 1))"),
        ("recursive", "componentCount(A, n)"),
    ],
)
def test_graph_walks_run_as_levels_over_ranks_give_rank_0_the_sequential_result(
    problem: str, call: str, tmp_path: Path
) -> None:
    """ParEval's three graph problems (and a recursive walk) at 1 to 4 ranks against their
    sequential functions, on random graphs, sparse and denser, directed or not."""
    from corpus.suites import load_suite

    if problem == "recursive":
        source = _RECURSIVE_COUNT
    else:
        source = next(
            t.source
            for t in load_suite("pareval").translations
            if t.target_model == "mpi" and t.problem == problem
        )
    written = distributed_walks(source, analyse(source, Language.CPP))
    assert written is not None
    assert "MPI_Allreduce(MPI_IN_PLACE, pf_found.data()" in written[1]
    includes = "#include <climits>\n#include <cstdio>\n#include <queue>\n#include <stack>\n#include <vector>\n"
    program = f"{includes}namespace seq {{\n{source}\n}}\n{written[1]}\n" + _WALK_MAIN.replace(
        "CALL", call
    )
    _prints_at_every_rank_count(program, "0 of 20 differ\n", tmp_path)


def _prints_at_every_rank_count(program: str, expected: str, tmp_path: Path) -> None:
    """Build `program` with mpicxx and run it at each of `RANKS`: it prints `expected`."""
    (tmp_path / "check.cpp").write_text(program)
    built = subprocess.run(
        ["mpicxx", "-O2", "-o", str(tmp_path / "check"), str(tmp_path / "check.cpp")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    for count in RANKS:
        ran = subprocess.run(
            ["mpirun", "-np", str(count), "--oversubscribe", str(tmp_path / "check")],
            capture_output=True,
            text=True,
            timeout=120,
            env=MPI_ENV,
        )
        assert ran.returncode == 0, ran.stderr[-2000:]
        assert ran.stdout == expected, (count, ran.stdout)


def test_a_program_with_main_or_no_walk_gets_no_walk_levels() -> None:
    source = "int main() { int s = 0; for (int i = 0; i < 4; i++) s += i; return s; }\n"
    assert distributed_walks(source, analyse(source, Language.CPP)) is None
    plain = "int f(std::vector<int> const &x) { int s = 0; for (int v : x) s += v; return s; }\n"
    assert distributed_walks(plain, analyse(plain, Language.CPP)) is None


def test_the_mpi_kit_offers_a_walking_functions_levels() -> None:
    """Without a loop to divide, the kit's mechanical candidate is the walks' levels (the
    translate graph then runs `distribute` on it without a model)."""
    program = analyse(_RECURSIVE_COUNT, Language.CPP)
    assert distributable(_RECURSIVE_COUNT, program) == []
    assert kit(Target.MPI).mechanical(_RECURSIVE_COUNT, program)
    seeded = kit(Target.MPI).seed(_RECURSIVE_COUNT, program)
    assert seeded is not None and "MPI_Allreduce(MPI_IN_PLACE, pf_found.data()" in seeded
    unwalked = _RECURSIVE_COUNT.replace("visit(adj, n, k, seen);", "visit(adj, n, k, seen), n++;")
    assert not kit(Target.MPI).mechanical(unwalked, analyse(unwalked, Language.CPP))


# Functions spelled with the standard library or early exits instead of counted loops, each
# with the statements of a check: `DRAW` fills `x` and `y` (size n, small integers, so
# regrouped floating sums are exact), then `want` (the sequential function's, `seq::`) and
# `got` (the MPI kit's, at every rank) are compared on rank 0.
_SPELLED = {
    "a two-input transform": (
        "void f(double a, std::vector<double> const &x, std::vector<double> const &y,\n"
        "       std::vector<double> &z) {\n"
        "  std::transform(x.begin(), x.end(), y.begin(), z.begin(),\n"
        "                 [a](double p, double q) { return a * p + q; });\n}\n",
        "std::vector<double> want(n), got(n); seq::f(2.0, x, y, want); f(2.0, x, y, got);",
    ),
    "an average by accumulate": (
        "double f(std::vector<double> const &x) {\n"
        "  return std::accumulate(x.begin(), x.end(), 0.0) / x.size();\n}\n",
        "double want = seq::f(x), got = f(x);",
    ),
    "the parity of a count": (
        "bool f(std::vector<double> const &x) {\n"
        "  return std::count(x.begin(), x.end(), 3.0) % 2 == 1;\n}\n",
        "bool want = seq::f(x), got = f(x);",
    ),
    "a find compared with its end": (
        "bool f(std::vector<double> const &x, double v) {\n"
        "  return std::find(x.begin(), x.end(), v) != x.end();\n}\n",
        "bool want = seq::f(x, y[0]), got = f(x, y[0]);",
    ),
    "a search returning from a loop over the elements": (
        "bool f(std::vector<double> const &x, double v) {\n"
        "  for (double e : x) {\n    if (e == v) return true;\n  }\n  return false;\n}\n",
        "bool want = seq::f(x, y[0]), got = f(x, y[0]);",
    ),
    "two flags set and broken out of": (
        "bool f(std::vector<double> const &x, std::vector<double> const &y, double v) {\n"
        "  bool inX = false, inY = false;\n"
        "  for (double e : x) {\n    if (e == v) { inX = true; break; }\n  }\n"
        "  for (size_t i = 0; i < y.size(); ++i) {\n    if (y[i] == v) { inY = true; break; }\n  }\n"
        "  return inX != inY;\n}\n",
        "bool want = seq::f(x, y, 4.0), got = f(x, y, 4.0);",
    ),
    "a first-index search spelled as a while loop": (
        "size_t f(std::vector<double> const &x, double v) {\n  size_t i = 0;\n"
        "  while (i < x.size() && x[i] != v) ++i;\n  return i;\n}\n",
        "size_t want = seq::f(x, y[0]), got = f(x, y[0]);",
    ),
    "finds kept in declarations, then compared": (
        "bool f(std::vector<double> const &x, std::vector<double> const &y, double v) {\n"
        "  const bool inX = std::find(x.begin(), x.end(), v) != x.end();\n"
        "  const bool inY = std::find(y.begin(), y.end(), v) != y.end();\n"
        "  return inX != inY;\n}\n",
        "bool want = seq::f(x, y, 4.0), got = f(x, y, 4.0);",
    ),
    "counts assigned to bins, the last bin the rest": (
        "void f(std::vector<double> const &x, std::array<size_t, 3> &bins) {\n"
        "  bins[0] = std::count_if(x.begin(), x.end(), [](double e) { return e < 0; });\n"
        "  bins[1] = std::count_if(x.begin(), x.end(), [](double e) { return e > 4; });\n"
        "  bins[2] = x.size() - bins[0] - bins[1];\n}\n",
        "std::array<size_t, 3> want{}, got{}; seq::f(x, want); f(x, got);",
    ),
    "an argmin kept by its index alone": (
        "size_t f(std::vector<double> const &x) {\n  size_t best = 0;\n"
        "  for (size_t i = 1; i < x.size(); ++i) {\n"
        "    if (std::fabs(x[i] - M_PI) < std::fabs(x[best] - M_PI)) best = i;\n  }\n"
        "  return best;\n}\n",
        "size_t want = seq::f(x), got = f(x);",
    ),
    "a for_each through a reference": (
        "void f(std::vector<double> &x) {\n"
        "  std::for_each(x.begin(), x.end(), [](double &e) { if (e < 2) e = 2 * e - 1; });\n}\n",
        "std::vector<double> want = x, got = x; seq::f(want); f(got);",
    ),
    "a partial sum into another vector": (
        "void f(std::vector<double> const &x, std::vector<double> &out) {\n"
        "  std::partial_sum(x.begin(), x.end(), out.begin());\n}\n",
        "std::vector<double> want(n), got(n); seq::f(x, want); f(x, got);",
    ),
    "algorithms over a vector the function declares": (
        "double f(std::vector<double> const &x) {\n  std::vector<double> sq(x.size());\n"
        "  std::transform(x.begin(), x.end(), sq.begin(), [](double e) { return e * e; });\n"
        "  auto big = std::count_if(sq.begin(), sq.end(), [](double e) { return e > 4; });\n"
        "  return big + *std::min_element(sq.begin(), sq.end());\n}\n",
        "double want = seq::f(x), got = f(x);",
    ),
    "adjacent differences up to the size less one, tested on the counter plus one": (
        "void f(std::vector<double> const &x, std::vector<double> &d) {\n"
        "  for (size_t i = 0; i + 1 < x.size(); ++i) d[i] = x[i + 1] - x[i];\n}\n",
        "std::vector<double> want(n, 9.0), got(n, 9.0); seq::f(x, want); f(x, got);",
    ),
    "a running maximum in place": (
        "void f(std::vector<double> &x) {\n"
        "  for (size_t i = 1; i < x.size(); ++i) x[i] = std::max(x[i], x[i - 1]);\n}\n",
        "std::vector<double> want = x, got = x; seq::f(want); f(got);",
    ),
    "a found iterator's index, -1 where it is the end": (
        "long f(std::vector<double> const &x, double v) {\n"
        "  auto it = std::find(x.begin(), x.end(), v);\n"
        "  return it == x.end() ? -1 : (long)(it - x.begin());\n}\n",
        "long want = seq::f(x, 5.0), got = f(x, 5.0);",
    ),
    "a sum through an iterator": (
        "double f(std::vector<double> const &x) {\n  double s = 0;\n"
        "  for (auto it = x.begin(); it != x.end(); ++it) s += *it * *it;\n  return s;\n}\n",
        "double want = seq::f(x), got = f(x);",
    ),
    "an accumulate of squares by a lambda": (
        "double f(std::vector<double> const &x) {\n"
        "  return std::accumulate(x.begin(), x.end(), 0.0, [](double a, double b) { return a + b * b; });\n}\n",
        "double want = seq::f(x), got = f(x);",
    ),
    "a running minimum through the elements by reference": (
        "void f(std::vector<double> &x) {\n  double cur = 1e300;\n"
        "  for (auto &v : x) {\n    cur = std::min(cur, v);\n    v = cur;\n  }\n}\n",
        "std::vector<double> want = x, got = x; seq::f(want); f(got);",
    ),
}

_SPELLED_MAIN = """
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int bad = 0, checked = 0;
    for (size_t n : {1, 2, 3, 7, 100, 1001}) {
        std::vector<double> x(n), y(n);
        for (size_t i = 0; i < n; i++) {
            x[i] = (double)((i * 7919 + 3) % 13) - 4;
            y[i] = (double)((i * 104729 + 5) % 11) - 3;
        }
        CHECK
        checked++;
        if (rank == 0 && !(got == want)) bad++;
    }
    if (rank == 0) printf("%d of %d differ\\n", bad, checked);
    MPI_Finalize();
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("mpicxx") is None, reason="needs MPI")
@pytest.mark.parametrize("case", sorted(_SPELLED))
def test_algorithms_and_searches_divide_as_the_loops_they_run(case: str, tmp_path: Path) -> None:
    """Fewer loops to divide as spelled (mostly none); the kit writes the standard
    algorithms, searches and loops over elements as the counted loops they run and divides
    those: rank 0 gets the sequential result at 1 to 4 ranks, on sizes below, at and above
    the rank counts."""
    source, check = _SPELLED[case]
    program = analyse(source, Language.CPP)
    _, _, lowered = with_most_loops(source, program, distributable)
    assert len(distributable(source, program)) < len(lowered)
    assert kit(Target.MPI).mechanical(source, program)
    written = kit(Target.MPI).seed(source, program)
    assert written is not None and "MPI_" in written
    includes = (
        "#include <algorithm>\n#include <array>\n#include <cmath>\n#include <cstdio>\n"
        "#include <numeric>\n"
        "#include <vector>\n"
        "#include <mpi.h>\n"
    )
    whole = f"{includes}namespace seq {{\n{source}\n}}\n{written}\n" + _SPELLED_MAIN.replace(
        "CHECK", check
    )
    _prints_at_every_rank_count(whole, "0 of 6 differ\n", tmp_path)


def test_a_search_with_another_way_out_stays_undivided() -> None:
    """A loop leaving by a second `break` keeps its order: no rewrite, no candidate."""
    source = (
        "bool f(std::vector<double> const &x, double v) {\n"
        "  for (double e : x) {\n    if (e < -100) break;\n    if (e == v) return true;\n  }\n"
        "  return false;\n}\n"
    )
    program = analyse(source, Language.CPP)
    assert not kit(Target.MPI).mechanical(source, program)
    assert kit(Target.MPI).seed(source, program) is None


HELPER_STENCIL = """#include <cstdio>
#include <vector>
int main() {
    const size_t N = 41;
    std::vector<double> in(N * N), out(N * N);
    for (size_t k = 0; k < N * N; k++) in[k] = (double)((k * 37) % 101) - 50;
    auto at = [&](long r, long c) -> double {
        if (r < 0 || c < 0 || r >= (long)N || c >= (long)N) return 0.0;
        return in[r * N + c];
    };
    for (long i = 0; i < (long)N; ++i)
        for (long j = 0; j < (long)N; ++j)
            out[i * N + j] = (at(i, j - 1) + at(i, j + 1) + at(i - 1, j) + at(i + 1, j) + at(i, j)) / 5.0;
    double h = 0;
    for (size_t k = 0; k < N * N; k++) h = h * 0.999 + out[k];
    std::printf("%.6f\\n", h);
    return 0;
}
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpicxx") is None, reason="needs Open MPI's compilers")
def test_a_stencil_through_a_helper_lambda_is_divided_by_rows(tmp_path: Path) -> None:
    """A helper lambda that reads 0 past the edges, called in rows counted by `long` up to
    `(long)N`: written where it is called (`kernels._inlined_lambdas`), the rows are the outer
    loop's own, and divided they print the sequential output at 1 to 4 ranks."""
    program = analyse(HELPER_STENCIL, Language.CPP)
    rewritten = kit(Target.MPI).seed(HELPER_STENCIL, program)
    assert rewritten is not None and "auto at" not in rewritten and "MPI_" in rewritten
    _prints_as_sequential(tmp_path, HELPER_STENCIL, rewritten, Language.CPP, "", RANKS)


def test_loops_written_out_where_that_divides_more_and_as_written_where_it_fails() -> None:
    """The MPI seed takes the source with its algorithms written out only where that offers
    more loops; where writing them out is refused (a sum of doubles in an int), the loops of
    the source as written are still divided."""
    source = (
        "#include <numeric>\n#include <vector>\n#include <cstdio>\n"
        "int total(std::vector<double> const &x) { return std::accumulate(x.begin(), x.end(), 0); }\n"
        "int main() {\n  std::vector<double> x(1000);\n"
        "  for (size_t i = 0; i < x.size(); i++) x[i] = i * 0.5;\n"
        '  std::printf("%d\\n", total(x));\n  return 0;\n}\n'
    )
    program = analyse(source, Language.CPP)
    assert distributable(source, program)
    seed = kit(Target.MPI).seed(source, program)
    assert seed is not None and "MPI_" in seed


def test_algorithms_over_a_programs_own_vectors_are_divided_as_their_loops() -> None:
    """A whole program's `main` counts and takes the minimum of a vector it declares: each
    algorithm is the loop it runs (a `+` and a `min` reduction) and both are divided; a
    vector declared twice (one name, two vectors) is left to the library."""
    source = (
        "#include <algorithm>\n#include <cstdio>\n#include <vector>\n"
        "int main(int argc, char **argv) {\n  std::vector<int> v(argc > 1 ? 5000 : 4000);\n"
        "  for (size_t i = 0; i < v.size(); ++i) v[i] = (int)((i * 2654435761u) % 1000);\n"
        "  long big = std::count_if(v.begin(), v.end(), [](int x) { return x > 900; });\n"
        "  int lo = *std::min_element(v.begin(), v.end());\n"
        "  { std::vector<int> w(3, 7); lo += std::count(w.begin(), w.end(), 7); }\n"
        "  { std::vector<int> w(5, 7); lo += std::count(w.begin(), w.end(), 7); }\n"
        '  std::printf("%ld %d\\n", big, lo);\n  return 0;\n}\n'
    )
    program = analyse(source, Language.CPP)
    lowered, _, offered = with_most_loops(source, program, distributable)
    assert "std::count_if" not in lowered and "std::min_element" not in lowered
    assert lowered.count("std::count(w.begin()") == 2
    assert sorted(p for loop in offered for p in loop.dependence.patterns) == [
        "independent",
        "reduction:+",
        "reduction:min",
    ]


LOCAL_ROWS = """#include <stdio.h>
int main(void) {
    enum { R = 37, C = 23 };
    static double a[R * C], out[R * C], twice[R * C];
    for (int k = 0; k < R * C; k++) a[k] = (k * 37 % 101) - 50;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            const int idx = i * C + j;
            out[idx] = a[idx] * 0.5 + j;
        }
    for (int i = 0; i < R; i++) {
        const int row = i * C;
        for (int j = 0; j < C; j++) twice[row + j] = out[row + j] * 2 - i;
    }
    double h = 0;
    for (int k = 0; k < R * C; k++) h = h * 0.999 + out[k] + twice[k];
    printf("%.6f\\n", h);
    return 0;
}
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpicc") is None, reason="needs Open MPI's compilers")
def test_rows_through_locals_are_divided_and_gathered_by_row(tmp_path: Path) -> None:
    """`out[idx]` with `const int idx = i * C + j` and `twice[row + j]` with `const int row =
    i * C` are rows of the outer loop (`agents/analysis/values.py`): divided, and gathered by
    whole rows, they print the sequential output at 1 to 4 ranks."""
    program = analyse(LOCAL_ROWS, Language.C)
    outer = [loop.id for loop in program.loops if loop.var == "i"]
    assert set(outer) <= _offered(LOCAL_ROWS), {i: why_not(program, program.loop(i)) for i in outer}
    rewritten = distribute(LOCAL_ROWS, program, outer)
    _prints_as_sequential(tmp_path, LOCAL_ROWS, rewritten, Language.C, "", RANKS)


def test_a_scan_beside_a_conditional_last_value_is_not_divided() -> None:
    """A running value (or a compaction, or a recurrence) and `if (c) found = i;` in one loop:
    the rank-block rewrite of the one would edit inside the other's, so the tool refuses it
    (its code did not build) and says why."""
    source = (
        "int f(int n, const int *x, int *y) { int k = 0, found = -1;\n"
        "  for (int i = 0; i < n; i++) { if (x[i] > 0) y[k++] = x[i]; if (x[i] == 3) found = i; }\n"
        "  return k + found; }\n"
        "long g(int n, const int *x, long *s) { int found = -1; long acc = 0;\n"
        "  for (int i = 0; i < n; i++) { acc += x[i]; s[i] = acc; if (x[i] == 3) found = i; }\n"
        "  return acc + found; }\n"
    )
    program = analyse(source, Language.C)
    scans = [loop for loop in program.loops if loop.dependence.scan is not None]
    assert len(scans) == 2 and all(loop.dependence.last_assigned for loop in scans)
    assert all("conditional last value" in (why_not(program, loop) or "") for loop in scans)


@pytest.mark.parametrize(
    ("reading", "why"),
    [
        ("char b[8]; if (read(0, b, 8) > 0) n = b[0];", "below the C library (read)"),
        ("char b[8]; if (read(STDIN_FILENO, b, 8) > 0) n = b[0];", "below the C library"),
        ('FILE *in = fdopen(0, "r"); if (in) n = fgetc(in);', "below the C library (fdopen)"),
        ('FILE *in = fopen("/dev/stdin", "r"); if (in) n = fgetc(in);', "by its path"),
        ("wint_t c = getwchar(); n = (int)c;", "as wide characters (getwchar)"),
        ("wint_t c = fgetwc(stdin); n = (int)c;", "as wide characters (fgetwc)"),
    ],
)
def test_standard_input_no_rank_can_be_given_a_copy_of_refuses_the_program(
    reading: str, why: str
) -> None:
    """Rank 0 reads standard input through the C library and hands every rank a copy in a
    memory stream: input read below it (a descriptor, its path) or as wide characters (the
    memory stream has no wide side: a crash) reaches no other rank, so no rewrite is made (a
    hostile probe's: the other ranks waited in a collective call for ever)."""
    source = (
        "#include <stdio.h>\n#include <unistd.h>\n#include <wchar.h>\n"
        "int main(void) {\n    int n = 0;\n    " + reading + "\n"
        "    long s = 0;\n    for (int i = 0; i < 100000; i++) s += i % 7 + n;\n"
        '    printf("%ld\\n", s);\n    return 0;\n}\n'
    )
    program = analyse(source, Language.C)
    with pytest.raises(AnnotationError, match=re.escape(why)):
        distribute(source, program, [loop.id for loop in distributable(source, program)])


@pytest.mark.parametrize(
    ("head", "output", "why"),
    [
        ("", 'write(1, "done\\n", 5);', "writes below the C library (write)"),
        (
            "",
            'FILE *o = fopen("/dev/stdout", "w"); fprintf(o, "%ld\\n", s);',
            "opens files (fopen)",
        ),
        ("static FILE *out = stdout;", 'fprintf(out, "%ld\\n", s);', "keeps stdout before main"),
        (
            'struct Banner { Banner() { printf("starting\\n"); } };\nstatic Banner banner;',
            'printf("%ld\\n", s);',
            "prints before main runs (static Banner banner;)",
        ),
        ("", 'FILE *f = std::fopen("o.txt", "w"); std::fputs("x", f);', "opens files (fopen)"),
        ("", '::write(1, "done\\n", 5);', "writes below the C library (write)"),
        ("", 'FILE *o = fdopen(1, "w"); fprintf(o, "%ld\\n", s);', "opens files (fdopen)"),
        (
            'namespace app { struct B { B() { puts("hi"); } }; B b; }',
            'printf("%ld\\n", s);',
            "prints before main runs (B b;)",
        ),
        (
            'static int say(void) { return puts("hi"); }\nstatic int said = say();',
            'printf("%ld\\n", s);',
            "prints before main runs",
        ),
        ("", 'FILE *f = fopen("sum.txt", "w"); fprintf(f, "%ld\\n", s); fclose(f);', "opens files"),
    ],
)
def test_output_other_ranks_would_still_give_refuses_the_program(
    head: str, output: str, why: str
) -> None:
    """Ranks other than 0 are quieted through the names `stdout`, `stderr` and the C++
    streams: output below them (a descriptor, `/dev/stdout`), through a copy of `stdout` taken
    before `main`, or into a file every rank would write at once gets no rewrite (a helper's
    probe: each line came once per rank, or a rank read back a file another was rewriting)."""
    source = (
        "#include <stdio.h>\n#include <unistd.h>\n" + head + "\n"
        "int main(void) {\n    long s = 0;\n"
        "    for (int i = 0; i < 100000; i++) s += i % 7;\n    " + output + "\n"
        "    return 0;\n}\n"
    )
    cpp = "static" in head or "std::" in output or "::" in output or "namespace" in head
    source = source.replace("#include <stdio.h>", "#include <cstdio>") if cpp else source
    program = analyse(source, Language.CPP if cpp else Language.C)
    with pytest.raises(AnnotationError, match=re.escape(why)):
        distribute(source, program, [loop.id for loop in distributable(source, program)])


@pytest.mark.parametrize(
    ("head", "body"),
    [
        ("", 'FILE *in = fopen("in.txt", "r"); if (in) fclose(in);'),
        ("", 'if (!freopen("in.txt", "r", stdin)) s += 1;'),
        (
            "#include <algorithm>\n#include <vector>\nusing namespace std;",
            "vector<int> v(3, 1); v.erase(remove(v.begin(), v.end(), 1), v.end());",
        ),
        ("static int write(int k) { return k + 1; }", "s += write(2);"),
        ("#include <iostream>\nstd::ostream &os = std::cout;", "os << s << std::endl;"),
        ("", "if (isatty(STDOUT_FILENO)) s += 1;"),
    ],
)
def test_output_every_rank_gives_alike_still_gets_a_rewrite(head: str, body: str) -> None:
    """What reads files, the library's `remove` algorithm, a function of the program's own
    named like a system call, a reference to `std::cout` (whose buffer `pf_mpi_start`
    swaps) and a test of the descriptor are no output other ranks would give."""
    source = (
        "#include <cstdio>\n#include <unistd.h>\n" + head + "\n"
        "int main() {\n    long s = 0;\n"
        "    for (int i = 0; i < 100000; i++) s += i % 7;\n    " + body + "\n"
        '    printf("%ld\\n", s);\n    return 0;\n}\n'
    )
    program = analyse(source, Language.CPP)
    written = distribute(source, program, [loop.id for loop in distributable(source, program)])
    assert "pf_mpi_start" in written


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpicxx") is None, reason="needs Open MPI's compilers")
def test_sorts_of_whole_vectors_run_as_rank_blocks_merged_on_every_rank(tmp_path: Path) -> None:
    """`std::sort` and `std::stable_sort` of a whole vector of numbers, complex numbers or
    structs of numbers: each rank sorts its block, every rank gets every block and merges
    them in pairs, so the vector is sorted on every rank as it was on each (a stable sort's
    ties, ten per key here, keep their order: blocks keep theirs, merges put the left
    block's first). A comparison that changes something and a struct holding a pointer keep
    their sorts as they are; the program's loop is divided as before."""
    source = (PROGRAMS / "mpi_sorts.cpp").read_text()
    program = analyse(source, Language.CPP)
    seed = kit(Target.MPI).seed(source, program)
    assert seed is not None
    for vector in ("v", "jobs", "z", "few"):
        assert f"auto &pf_sort_v = {vector};" in seed
    assert "std::sort(counted.begin(), counted.end()" in seed
    assert "std::sort(named.begin(), named.end()" in seed
    assert "std::stable_sort(pf_sort_v.begin() + pf_sort_n * pf_sort_r / pf_sort_p," in seed
    assert "pf_mpi_start(" in seed  # the loop's rank blocks start MPI in main
    _prints_as_sequential(tmp_path, source, seed, Language.CPP, "", RANKS)


def test_a_functions_sorts_alone_make_its_mpi_candidate() -> None:
    """A function whose work is a sort (ParEval's sorts: MPI already started by the driver)
    gets the sorts' rank blocks as its candidate; a whole program whose only parallel work
    is a sort gets none (nothing would start MPI)."""
    function = (
        "#include <algorithm>\n#include <vector>\n"
        "int kth(std::vector<int> const &x, int k) {\n"
        "    std::vector<int> y(x);\n    std::sort(y.begin(), y.end());\n    return y[k - 1];\n}\n"
    )
    program = analyse(function, Language.CPP)
    assert kit(Target.MPI).mechanical(function, program)
    seed = kit(Target.MPI).seed(function, program)
    assert seed is not None and "MPI_Allgatherv" in seed and "pf_mpi_start" not in seed
    whole = function + "int main() { std::vector<int> v = {3, 1, 2}; return kth(v, 1); }\n"
    assert kit(Target.MPI).seed(whole, analyse(whole, Language.CPP)) is None
