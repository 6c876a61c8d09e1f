"""A differential fuzzer for the dependence analysis (`agents.analysis`).

The analysis promises that a loop it annotates gives the sequential output at any thread count
and schedule. `generator` writes small random C and C++ programs from a grammar of loop shapes
and hazards, each loop labelled at construction (parallel or hazardous, and which shape or
hazard); `harness` runs the sequential program, annotates the loops the analysis accepts, runs
the parallel program at several thread counts and schedules and compares outputs. A mismatch
is an unsound annotation.

    program = generate(seed=7, index=0)
    result = check_program(program, workdir)
    for case in result.unsound: ...

The programs are our own (not hostile), so the harness runs them on the host, each in a
temporary directory under a time-out.
"""

from evals.fuzz.generator import HAZARDS, SHAPES, GeneratedProgram, Snippet, generate
from evals.fuzz.harness import (
    FuzzStats,
    ProgramResult,
    UnsoundCase,
    check_program,
    recall,
    run_many,
)
from evals.fuzz.oracle import RTOL, compare_outputs

__all__ = [
    "HAZARDS",
    "RTOL",
    "SHAPES",
    "FuzzStats",
    "GeneratedProgram",
    "ProgramResult",
    "Snippet",
    "UnsoundCase",
    "check_program",
    "compare_outputs",
    "generate",
    "recall",
    "run_many",
]
