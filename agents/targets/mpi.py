"""MPI: processes with their own memory, exchanging messages.

A candidate divides the work among ranks and combines results with MPI calls; verification
runs it at several rank counts and checks for deadlocks. The target's own tool, `distribute`,
writes one from the analysis's facts where it proves a loop (the program stays replicated and
each proven loop runs as rank blocks), so its default plan leads with that candidate. It has no
evolution neighbours of its own yet: the number of ranks is a parameter of verification, not
of the code. Its evolution neighbours change how the work is divided and combined: the
rounds a `distribute` loop runs in (one block per rank, or block-cyclic pieces for uneven
iterations), and each `MPI_Allreduce` as an `MPI_Reduce` to rank 0 followed by an `MPI_Bcast`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

from agents.analysis.distribute import (
    ROUND_CHOICES,
    distributable,
    distribute,
    distributed_sorts,
    distributed_walks,
    sorts_first,
)
from agents.analysis.errors import AnnotationError
from agents.analysis.model import Program
from agents.analysis.parse import syntax_tree, text, walk
from agents.targets.base import Draft, Kept, Kit, Mutation
from agents.targets.lowered import algorithms_as_loops, with_most_loops
from sandbox.spec import Language, Target

SEEDED = (
    "start from the rank blocks the `distribute` tool writes for the loops the analysis "
    "proves, and improve what it leaves out or communicates too often"
)


class Mpi(Kit):
    target: ClassVar[Target] = Target.MPI
    name: ClassVar[str] = "MPI"
    unit: ClassVar[str | None] = "rank"
    strategies: ClassVar[tuple[str, ...]] = (
        "block decomposition of the outer loop, partial results combined with MPI_Reduce",
        "cyclic decomposition with MPI_Allreduce",
        "rank 0 scatters the input with MPI_Scatterv and gathers results with MPI_Gatherv",
        "every rank computes its block and MPI_Allgatherv assembles the whole result",
        SEEDED,
    )
    seeded: ClassVar[str | None] = SEEDED
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

    def driver_rules(self) -> tuple[str, ...]:
        return (
            "The driver has already called MPI_Init and calls MPI_Finalize: do neither. Every "
            "rank calls the function with a complete copy of the input; divide the work among "
            "the ranks and combine the partial results with MPI communication so that the "
            "result is complete on rank 0 (the driver checks rank 0's).",
            self.rules[-1],
        )

    checks: ClassVar[str] = "a deadlock check (a run that hangs fails)"

    def build_line(self, language: Language) -> str:
        compiler = "mpicc" if language is Language.C else "mpicxx"
        return f"{compiler} -O2, and run with `mpirun -np N`"

    def seed(self, source: str, program: Program, signature: str | None = None) -> str | None:
        """`distribute`'s program for the loops it divides, after the sorts of whole vectors
        run as rank blocks (`distributed_sorts`); a function's sorts alone (no `main`: the
        driver starts MPI), or its graph walks as levels."""
        try:
            source, program, sorted_ = sorts_first(source, program)
            written = self._loops(source, program)
            if written is None and sorted_ and not program.has_main:
                return source
            return written
        except AnnotationError:
            return None

    def _loops(self, source: str, program: Program) -> str | None:
        if not distributable(source, program):
            walked = distributed_walks(source, program)
            if walked is not None:
                return walked[1]
        source, program, loops = with_most_loops(source, program, distributable)
        return distribute(source, program, [loop.id for loop in loops]) if loops else None

    def mechanical(self, source: str, program: Program, signature: str | None = None) -> bool:
        """Loops `distribute` divides (as the source spells them, or once its standard
        algorithms and searches are the loops they run), a function's graph walks it runs
        as levels, or a function's sorts of whole vectors."""
        if distributable(source, program):
            return True
        try:
            return (
                distributed_walks(source, program) is not None
                or algorithms_as_loops(source, program, distributable) is not None
                or (not program.has_main and distributed_sorts(source, program) is not None)
            )
        except AnnotationError:
            return False

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

    def mutations(self, source: str, language: Language) -> list[Mutation]:
        """The rounds of each loop `distribute` wrote (`ROUND_CHOICES`), each stencil sweep's
        halo exchange as a gather of its whole output, and each `MPI_Allreduce` statement as
        `MPI_Reduce` to rank 0 plus `MPI_Bcast`."""
        kept = Kept(source)
        for mutation in _round_mutations(source):
            kept.keep(mutation)
        for mutation in _halo_mutations(source):
            kept.keep(mutation)
        for mutation in _reduce_bcast_mutations(source, language):
            kept.keep(mutation)
        return kept.mutations


_ROUNDS = re.compile(r"\b(pf_mpi_\d+)_rounds = (\d+);")
"""Where `distribute` sets a loop's rounds (its `pf_mpi_` names are its own: the tool refuses
programs that use them)."""


def _shape(rounds: int) -> str:
    return "block" if rounds == 1 else f"block-cyclic, {rounds} rounds"


def _round_mutations(source: str) -> list[Mutation]:
    found: list[Mutation] = []
    for match in _ROUNDS.finditer(source):
        tag, value = match.group(1), int(match.group(2))
        for rounds in ROUND_CHOICES:
            if rounds != value:
                mutated = source[: match.start(2)] + str(rounds) + source[match.end(2) :]
                label = f"{tag}: {_shape(value)} -> {_shape(rounds)}"
                found.append(Mutation("decomposition", label, mutated))
    return found


_HALO = re.compile(
    r"if \(!pf_mpi_halo(?:_nb)?\([^;]*\)\) \{ (if \([^;{}]*\) pf_mpi_gather\([^;]*\);) \}"
)
"""Where `distribute` exchanges a sweep's halo, falling back to the gather it replaces."""


def _halo_mutations(source: str) -> list[Mutation]:
    """Each sweep's halo exchange as the gather it replaced, and blocking (`MPI_Sendrecv`) as
    non-blocking (`MPI_Isend`/`MPI_Irecv`, then `MPI_Waitall`) or back."""
    found: list[Mutation] = []
    for match in _HALO.finditer(source):
        mutated = source[: match.start()] + match.group(1) + source[match.end() :]
        line = source.count("\n", 0, match.start()) + 1
        found.append(
            Mutation("exchange", f"line {line}: halo exchange -> gather every sweep", mutated)
        )
    for match in _HALO_CALL.finditer(source):
        line = source.count("\n", 0, match.start()) + 1
        blocking = match.group(1) is None
        call = "pf_mpi_halo_nb(" if blocking else "pf_mpi_halo("
        mutated = source[: match.start()] + call + source[match.end() :]
        label = "blocking -> non-blocking" if blocking else "non-blocking -> blocking"
        found.append(Mutation("exchange", f"line {line}: halo {label}", mutated))
    return found


_HALO_CALL = re.compile(r"(?<=if \(!)pf_mpi_halo(_nb)?\(")
"""A sweep's call of the blocking or the non-blocking halo exchange."""


def _reduce_bcast_mutations(source: str, language: Language) -> list[Mutation]:
    """`MPI_Allreduce(send, recv, n, type, op, comm);` as a statement becomes a reduction to
    rank 0 and a broadcast from it: `MPI_IN_PLACE` stays in place on rank 0 and sends the
    receive buffer from the others (which receive nothing from `MPI_Reduce`)."""
    raw = source.encode()
    found: list[Mutation] = []
    for node in walk(syntax_tree(source, language).root_node):
        if node.type != "expression_statement" or node.named_child_count != 1:
            continue
        call = node.named_children[0]
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if call.type != "call_expression" or function is None or arguments is None:
            continue
        args = [text(a) for a in arguments.named_children if a.type != "comment"]
        if text(function) != "MPI_Allreduce" or len(args) != 6:
            continue
        send, recv, count, kind, op, comm = args
        rank = "pf_mpi_me"
        if "MPI_IN_PLACE" in send:  # `MPI_IN_PLACE`, or a cast of it
            send = f"({rank} == 0 ? MPI_IN_PLACE : (void *)({recv}))"
            recv = f"({rank} == 0 ? (void *)({recv}) : NULL)"
        replacement = (
            f"{{ int {rank} = 0; MPI_Comm_rank({comm}, &{rank}); "
            f"MPI_Reduce({send}, {recv}, {count}, {kind}, {op}, 0, {comm}); "
            f"MPI_Bcast({args[1]}, {count}, {kind}, 0, {comm}); }}"
        )
        mutated = (raw[: node.start_byte] + replacement.encode() + raw[node.end_byte :]).decode()
        label = f"line {node.start_point[0] + 1}: MPI_Allreduce -> MPI_Reduce + MPI_Bcast"
        found.append(Mutation("combine", label, mutated))
    return found
