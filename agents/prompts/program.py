"""The prompt-mode messages: a system message and one user message per task (pure).

The user message carries everything the verifier will hold the answer to, so that a capable
model can pass on its first try: the sequential program, how it is run (arguments and stdin of
the tests), how the answer is built and checked for the target model, and the output contract
(same arguments, same stdin, same stdout, byte for byte or within the stated tolerance).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from agents.llm import Message
from sandbox.spec import Language, Target, TestCase, Tolerance

SYSTEM = (
    "You are an expert in high-performance computing. You translate sequential C and C++ "
    "programs into parallel OpenMP, MPI and CUDA programs that compile cleanly, produce exactly "
    "the same output as the original, are free of data races and deadlocks, and run faster on "
    "more cores. You think about which loops carry the work and which variables each thread "
    "or process shares before you write code. You answer with one complete program in one "
    "fenced code block, followed by at most three sentences."
)

_LANGUAGE_NAME = {Language.C: "C", Language.CPP: "C++", Language.CUDA: "CUDA C++"}
_FENCE = {Language.C: "c", Language.CPP: "cpp", Language.CUDA: "cuda"}
_SHOWN_STDIN = 200

_TARGET_RULES: dict[Target, list[str]] = {
    Target.OPENMP: [
        "Parallelize the loops that carry the work with OpenMP directives (`#pragma omp "
        "parallel for` and related constructs); include <omp.h> if you call OpenMP functions.",
        "Give every variable the right data-sharing: variables declared inside the loop are "
        "private, sums and maxima go through `reduction` clauses, a value kept from the last "
        "iteration that sets it goes through `lastprivate` (`lastprivate(conditional: x)` when "
        "only some iterations set it), and no thread writes shared data that another thread "
        "reads or writes without synchronization.",
        "Do not fix the thread count in the code (no `num_threads` clause, no "
        "`omp_set_num_threads`): it is set through OMP_NUM_THREADS, and the output must be the "
        "same at every thread count.",
        "Keep loops whose iterations depend on each other (time steps, recurrences) sequential "
        "and parallelize the independent work inside them.",
    ],
    Target.MPI: [
        "Use MPI: call MPI_Init and MPI_Finalize, divide the work among the ranks, and combine "
        "the partial results with MPI communication (MPI_Reduce, MPI_Allreduce, MPI_Gather, "
        "MPI_Bcast, MPI_Sendrecv, ...).",
        "Only rank 0 writes to standard output, and what it writes must be exactly the "
        "sequential program's output at any number of ranks, including rank counts that do not "
        "divide the problem size; the other ranks print nothing.",
        "Every rank gets the same command-line arguments; standard input reaches rank 0 only, "
        "so rank 0 reads it and broadcasts what the other ranks need.",
        "Avoid deadlocks: every send has a matching receive, and every rank takes part in "
        "every collective call.",
    ],
    Target.CUDA: [
        "Move the loops that carry the work into `__global__` kernels launched with "
        "`<<<blocks, threads>>>`; allocate device memory with cudaMalloc, copy with cudaMemcpy, "
        "check the error codes, and free what you allocate.",
        "Handle problem sizes that are not a multiple of the block size (guard the indices).",
        "Where threads combine results, use atomics or a reduction in shared memory with "
        "`__syncthreads()` between its steps; no two threads may race on the same address.",
        "The host code keeps reading the same arguments and standard input and printing the "
        "same output.",
    ],
}


def _build_line(target: Target, language: Language) -> str:
    if target is Target.CUDA:
        return "nvcc -O2 (the file is main.cu)"
    c = language is Language.C
    if target is Target.MPI:
        return f"{'mpicc' if c else 'mpicxx'} -O2, and run with `mpirun -np N`"
    return f"{'gcc' if c else 'g++'} -O2 -fopenmp, and run with OMP_NUM_THREADS=N"


def _counts(target: Target, threads: Sequence[int], ranks: Sequence[int]) -> str:
    if target is Target.OPENMP:
        return f" at {_join(threads)} threads"
    if target is Target.MPI:
        return f" at {_join(ranks)} ranks"
    return ""


def _join(counts: Sequence[int]) -> str:
    items = [str(n) for n in counts]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _checks(target: Target) -> str:
    return {
        Target.OPENMP: "a data-race check with ThreadSanitizer and Archer",
        Target.MPI: "a deadlock check (a run that hangs fails)",
        Target.CUDA: "compute-sanitizer (memcheck, racecheck, synccheck)",
    }.get(target, "")


def _comparison(tolerance: Tolerance | None) -> str:
    if tolerance is None:
        return "Outputs are compared exactly, so keep every printf format as it is."
    return (
        "Numbers in the output are compared with a relative tolerance of "
        f"{tolerance.rtol:g}"
        + (f" (absolute {tolerance.atol:g})" if tolerance.atol else "")
        + "; everything else must match exactly."
    )


def _test_lines(tests: Sequence[TestCase]) -> list[str]:
    lines = []
    for case in tests:
        if case.args:
            line = f"- `./program {shlex.join(case.args)}`"
        else:
            line = "- `./program` (no arguments)"
        if case.stdin:
            shown = case.stdin[:_SHOWN_STDIN]
            more = " ..." if len(case.stdin) > _SHOWN_STDIN else ""
            line += f" with standard input {shown!r}{more}"
        lines.append(line)
    return lines


def build_messages(
    source: str,
    language: Language,
    target: Target,
    tests: Sequence[TestCase],
    *,
    threads: Sequence[int] = (1, 2, 4),
    ranks: Sequence[int] = (1, 2, 4),
    tolerance: Tolerance | None = None,
    shown_tests: int = 4,
) -> list[Message]:
    """The system and user messages that ask for one parallel version of `source`."""
    lang = _LANGUAGE_NAME[language]
    out_lang = _LANGUAGE_NAME[Language.CUDA] if target is Target.CUDA else lang
    fence = _FENCE[Language.CUDA if target is Target.CUDA else language]
    name = {Target.OPENMP: "OpenMP", Target.MPI: "MPI", Target.CUDA: "CUDA"}[target]
    rules = [
        "Keep the program's behaviour identical: it reads the same command-line arguments and "
        "standard input and writes exactly the same output to standard output, in the same "
        "order and the same format. Write nothing else to standard output.",
        f"Write one complete {out_lang} file with its `main` function, using only the standard "
        f"library and {name}.",
        *_TARGET_RULES[target],
        _comparison(tolerance),
    ]
    parts = [
        f"Translate this sequential {lang} program into a parallel {name} program.",
        f"```{_FENCE[language]}\n{source.rstrip()}\n```",
        "Requirements:\n" + "\n".join(f"- {r}" for r in rules),
        f"Your program will be compiled with {_build_line(target, language)}. It is then "
        f"checked automatically: it must build, give the original's output on every test"
        f"{_counts(target, threads, ranks)}, pass {_checks(target)}, and is then timed "
        "against the original.",
    ]
    shown = list(tests)[:shown_tests]
    if shown:
        parts.append("The tests run it as:\n" + "\n".join(_test_lines(shown)))
    parts.append(f"Answer with the complete program in a single ```{fence} code block.")
    return [
        Message(role="system", content=SYSTEM),
        Message(role="user", content="\n\n".join(parts)),
    ]
