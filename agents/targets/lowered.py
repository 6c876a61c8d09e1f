"""The source with its standard algorithms, searches and helper lambdas written as the loops
they run, for the tools that divide or move loops (`distribute` for MPI, `offload` for CUDA):
taken only where that offers the tool more loops than the source as written."""

from __future__ import annotations

from collections.abc import Callable

from agents.analysis.errors import AnnotationError
from agents.analysis.kernels import as_loops, indexed_loops, running_recurrences
from agents.analysis.model import Loop, Program
from agents.analysis.parse import function_definitions, function_name, syntax_tree

Offered = Callable[[str, Program, str | None], list[Loop]]
"""A tool's loops on offer in a source (`distributable`, `offloadable`): (source, its
analysis, only this function or None) -> the loops."""


def algorithms_as_loops(
    source: str, program: Program, offered: Offered, counted: bool = False
) -> tuple[str, Program] | None:
    """The source (and its analysis) with each function's standard algorithms, searches for
    whether some element holds and loops over a vector's elements written as the counted
    loops they run (`as_loops`, the CUDA writer's rewrites: `std::transform` as its map, a
    returned `std::accumulate` as its sum, `for (...) if (c) return true; return false;` as an
    `|` reduction), where that gives the tool loops to take (`offered`); None where it gives
    none. `counted`: loops over a vector's elements too, as counted loops over its indices
    (`indexed_loops`), and prefix sums written as recurrences with running values
    (`running_recurrences`), for a tool that takes no other kind."""
    root = syntax_tree(source, program.language).root_node
    for name in dict.fromkeys(function_name(d) for d in function_definitions(root)):
        if name:
            source, program = as_loops(source, program, name)
            if counted:
                source, program = indexed_loops(source, program, name)
                source, program = running_recurrences(source, program, name)
    return (source, program) if offered(source, program, None) else None


def with_most_loops(
    source: str,
    program: Program,
    offered: Offered,
    function: str | None = None,
    counted: bool = False,
) -> tuple[str, Program, list[Loop]]:
    """The source and its analysis as they are, or with the loops standard algorithms,
    searches and helper lambdas run written out (`algorithms_as_loops`) where that offers the
    tool more loops (in `function`, or anywhere); and the loops offered."""
    loops = offered(source, program, function)
    try:
        lowered = algorithms_as_loops(source, program, offered, counted)
    except AnnotationError:
        lowered = None  # (only an error where the source as written offers loops)
        if not loops:
            raise
    if lowered is not None:
        more = offered(*lowered, function)
        if len(more) > len(loops):
            return lowered[0], lowered[1], more
    return source, program, loops
