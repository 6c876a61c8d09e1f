"""MPI: processes with their own memory, exchanging messages.

A candidate divides the work among ranks and combines results with MPI calls; verification
runs it at several rank counts and checks for deadlocks. The target's own tool, `distribute`,
writes one from the analysis's facts where it proves a loop (the program stays replicated and
each proven loop runs as rank blocks), so its default plan leads with that candidate. It has no
evolution neighbours of its own yet: the number of ranks is a parameter of verification, not
of the code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from agents.analysis.distribute import distributable
from agents.analysis.model import Program
from agents.targets.base import Draft, Kit
from sandbox.spec import Language, Target


class Mpi(Kit):
    target: ClassVar[Target] = Target.MPI
    name: ClassVar[str] = "MPI"
    unit: ClassVar[str | None] = "rank"
    strategies: ClassVar[tuple[str, ...]] = (
        "block decomposition of the outer loop, partial results combined with MPI_Reduce",
        "cyclic decomposition with MPI_Allreduce",
        "rank 0 scatters the input with MPI_Scatterv and gathers results with MPI_Gatherv",
        "every rank computes its block and MPI_Allgatherv assembles the whole result",
    )
    rules: ClassVar[tuple[str, ...]] = (
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
    )
    tools: ClassVar[tuple[str, ...]] = ("distribute",)
    checks: ClassVar[str] = "a deadlock check (a run that hangs fails)"

    def build_line(self, language: Language) -> str:
        compiler = "mpicc" if language is Language.C else "mpicxx"
        return f"{compiler} -O2, and run with `mpirun -np N`"

    def mechanical(self, source: str, program: Program) -> bool:
        return bool(distributable(source, program))

    def candidates(self, plan: Draft, *, annotatable: bool, use_model: bool) -> list[str]:
        """Where `distribute` can divide a loop: the model's pick of loops, every loop the
        analysis offers, and a rewrite (without a model, the analysis's candidate alone)."""
        return self._loop_tool_candidates(
            plan,
            "distribute",
            "every loop the analysis proves, as rank blocks",
            annotatable=annotatable,
            use_model=use_model,
        )

    def counts(self, threads: Sequence[int], ranks: Sequence[int]) -> Sequence[int] | None:
        return ranks

    def descriptor(self, lines: Sequence[str]) -> tuple[str, int]:
        """`mpi` and its MPI calls other than MPI_Init."""
        return "mpi", sum(1 for line in lines if "MPI_" in line and "MPI_Init" not in line)
