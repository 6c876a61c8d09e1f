"""What the analysis finds: a program's functions, their loops and each loop's dependences."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agents.analysis.errors import AnalysisError
from sandbox.spec import Language

LoopKind = Literal["for", "while", "do"]
DependenceKind = Literal["independent", "reduction", "carried", "unknown"]
ReductionOp = Literal["+", "*", "min", "max", "&", "|", "^", "&&", "||"]


PACKED_CHUNK = 512
"""Iterations per chunk for a loop writing a `std::vector<bool>` at its own index: a multiple
of the bits in any word a library packs them into (64 in libstdc++ and libc++), so that a chunk
that starts at a multiple of it writes whole words."""


@dataclass(frozen=True)
class Access:
    """One variable read or written in a loop body: a scalar (no indices) or an array element."""

    name: str
    indices: tuple[str, ...] = ()
    """The subscript expressions, outermost first, as tokens joined by spaces (`i * n + j`)."""

    @property
    def is_array(self) -> bool:
        return bool(self.indices)

    def __str__(self) -> str:
        return self.name + "".join(f"[{index}]" for index in self.indices)


@dataclass(frozen=True)
class Reduction:
    """A scalar that every iteration combines into with one associative operator."""

    var: str
    op: ReductionOp
    reassociates: bool = False
    """The variable may be floating-point and the operator `+`, `-` or `*`: combining partial
    results in another order rounds differently, so the result is equal only within a
    tolerance (an integer sum, or a min or max, is exact in any order)."""


@dataclass(frozen=True)
class ArrayReduction:
    """An array whose elements iterations only update in place with one operator (a histogram:
    `bins[k]++` where any iteration may hit any bin): each thread counts into its own copy."""

    var: str
    op: ReductionOp
    length: str
    """The number of elements, from the array's declaration (source text: `256`, `N`)."""
    element: str
    """The element type (`size_t`)."""
    container: bool = False
    """A `std::array`: OpenMP reduces only arrays and pointers, so the annotation reduces
    through a pointer to its data (`agents.analysis.annotate`)."""
    atomic: bool = False
    """The length is known only at run time (a `std::vector`, `y.size()`): GCC puts the
    per-thread copies of a reduced array section on each thread's stack, which a large array
    overflows, so each update becomes an `omp atomic` on the shared array instead."""


@dataclass(frozen=True)
class BestUpdate:
    """`if (d < best) { best = d; at = i; }`: the loop keeps the best value seen so far and,
    with it, what else the iteration that found it assigns (an argmin or argmax)."""

    best: str
    others: tuple[str, ...]
    """The scalars assigned alongside `best` (`at`), in source order."""
    keeps: Literal["min", "max"]
    strict: bool = True
    """`<` or `>`: a tie keeps the earlier iteration's; `<=` or `>=`: the later one's."""

    @property
    def merge(self) -> str:
        """How a thread's best (`{mine}`) beats the one kept so far: the loop's own test."""
        op = ("<" if self.keeps == "min" else ">") + ("" if self.strict else "=")
        return f"{{mine}} {op} {self.best}"


@dataclass(frozen=True)
class Scan:
    """A running value (`acc += x[i]; y[i] = acc;`, a prefix sum or a running minimum): the
    body first updates `var` with one associative operator (the input phase) and only then
    reads it (the scan phase). Each thread totals its block with the input phase alone, the
    totals of the blocks before it give its starting value, and then it runs the whole body
    over its block again (a two-pass blocked scan, `agents.analysis.annotate`)."""

    var: str
    op: Literal["+", "*", "min", "max"]
    split: int
    """The index of the body's first statement that reads `var` (the scan phase begins); for
    a recurrence, of the recurrence's statement (the phases part in its middle)."""
    recurrence: bool = False
    """`var` is an array and the loop a first-order recurrence `var[i] = var[i - 1] op e` (a
    prefix sum): the rewrite carries the previous element in a scalar of its own, which makes
    it a running value (`acc = acc op e; var[i] = acc;`)."""
    first: bool = False
    """The recurrence's first iteration assigns a value of its own (`if (i == lower) var[i] =
    e0; else var[i] = var[i - 1] op e;`): the scalar starts from the operator's identity and
    takes `e0` there, so nothing before the loop is read."""
    packs: tuple[str, ...] = ()
    """A compaction (`if (c) y[k++] = e;`, `reductions.match_pack`): `var` is the counter, the
    statement at `split` both counts and stores at it, and these arrays are stored into at
    consecutive indices; a blocked scan's first pass runs that statement with the stores
    removed, and each block's stores land at `var`'s values from its start."""
    exclusive: tuple[int, ...] = ()
    """An exclusive scan (`e[i] = ex; ex += x[i];`): the indices of the statements before the
    body's first update that read `var` (the value before the iteration's step), or what
    such a statement wrote (`long was = ex; e[i] = was;`). A blocked
    scan's first pass runs `statements[:split]` without them (they jump nowhere and write
    nothing the others read); `split` is then the first statement after the updates that
    reads `var`, or the one after the last update where none does."""
    offset: int = 0
    """A recurrence's element is `var[i + offset]` (`rp[i + 1] = rp[i] + count[i]`: 1), the
    previous one `var[i + offset - 1]`, read before the loop at its first iteration."""


@dataclass(frozen=True)
class Dependence:
    """The verdict on a loop's iterations, with the clauses a parallel version needs."""

    kind: DependenceKind
    reductions: tuple[Reduction, ...] = ()
    array_reductions: tuple[ArrayReduction, ...] = ()
    private: tuple[str, ...] = ()
    """Variables declared outside the loop whose values no iteration passes on to another one
    or to the code after the loop: each thread gets its own copy."""
    lastprivate: tuple[str, ...] = ()
    """Variables that every iteration assigns before reading them and whose value after the
    loop matters: the sequentially last iteration's value is copied out."""
    last_assigned: tuple[str, ...] = ()
    """Scalars that only some iterations assign and none reads, whose value after the loop
    matters: the value of the last iteration that assigned one (`lastprivate(conditional:)`,
    OpenMP 5.0), so `if (pages[i] < 100) last = i;` keeps the last match."""
    best_updates: tuple[BestUpdate, ...] = ()
    """Argmin/argmax updates (`BestUpdate`): each thread keeps its own best over its share of
    the iterations, and the threads' bests are merged in iteration order with the loop's own
    comparison, which gives what the sequential loop keeps, ties included."""
    first_match: bool = False
    """A search (kind "carried" only through its early exits): the body writes nothing outside
    itself, so every iteration may run; a `min` reduction finds the first one that would exit,
    and that iteration runs again alone to take its exit (`agents.analysis.annotate`)."""
    scan: Scan | None = None
    """A running value whose carried dependence a two-pass blocked scan resolves (`Scan`)."""
    packed: tuple[str, ...] = ()
    """`std::vector<bool>`s the iterations write at their own index, counting up by one from
    an aligned start: they are race-free only if each thread gets chunks of `PACKED_CHUNK`
    iterations (whole words), which the annotation then requires."""
    reason: str = ""
    assumptions: tuple[str, ...] = ()
    """What the verdict takes for granted and the code does not show (that two pointer
    parameters never overlap, that a floating-point sum may be reassociated): each one a
    sentence a user can check, shown by `parforge analyse` and carried into the verdict."""
    overlap_checks: tuple[str, ...] = ()
    """Conditions (C/C++ expressions over the function's names, true when two things the loop
    reaches through pointers or references do not overlap) that the code does not prove: the
    annotation multiversions the loop, running the parallel version only when all hold and the
    original loop, sequentially, otherwise (as GCC's vectoriser does)."""

    @property
    def parallelisable(self) -> bool:
        """Whether the iterations may run as they are, in any order."""
        return self.kind in ("independent", "reduction")

    @property
    def annotatable(self) -> bool:
        """Whether an annotation can parallelise the loop: as it is, as a first-match search or
        as a blocked scan."""
        return self.parallelisable or self.first_match or self.scan is not None

    @property
    def patterns(self) -> list[str]:
        """Tags for the loop's pattern (`reduction:+`, `histogram:+`, `last-value`, or the kind),
        by which verified candidates are retrieved as examples for later tasks."""
        tags = [f"reduction:{r.op}" for r in self.reductions]
        tags += [f"histogram:{a.op}" for a in self.array_reductions]
        if self.last_assigned:
            tags.append("last-value")
        tags += [f"{b.keeps}-loc" for b in self.best_updates]
        if self.first_match:
            tags.append("first-match")
        if self.scan is not None:
            tags.append(f"scan:{self.scan.op}")
        return tags or [self.kind]

    @property
    def sharing_clauses(self) -> list[str]:
        """The `private` and `lastprivate` clauses a parallel version needs (reductions aside).
        A last value is `firstprivate` too: where the loop runs no iteration, GCC's OpenMP
        copies a private copy back all the same (uninitialised, without it), where the
        sequential loop leaves the value it had."""
        clauses = []
        if self.private:
            clauses.append(f"private({','.join(self.private)})")
        if self.lastprivate:
            names = ",".join(self.lastprivate)
            clauses.append(f"firstprivate({names}) lastprivate({names})")
        if self.last_assigned:
            clauses.append(f"lastprivate(conditional:{','.join(self.last_assigned)})")
        return clauses


@dataclass(frozen=True)
class Loop:
    """One `for`, `while` or `do` loop in a function body."""

    id: str
    """`L1`, `L2`, ... in source order across the program."""
    function: str
    line: int
    """1-based line of the loop keyword."""
    end_line: int
    column: int
    """0-based column of the loop keyword, in bytes of the UTF-8 encoded line."""
    kind: LoopKind
    depth: int
    """0 for a loop that is outermost in its function."""
    parent: str | None
    ancestors: tuple[str, ...]
    """The ids of the loops around this one, outermost first."""
    var: str | None
    canonical: bool
    lower: str | None
    """The initial value of the induction variable (source text)."""
    upper: str | None
    """The bound the test compares the induction variable with (source text)."""
    trip_count: int | None
    reads: tuple[Access, ...]
    writes: tuple[Access, ...]
    calls: tuple[str, ...]
    dependence: Dependence
    perfect_nest: int
    """How many loops from here down are perfectly nested parallelisable canonical loops (>= 1)."""
    range_over: str | None = None
    """The container a range-based for loop runs over (None for any other loop)."""
    writes_range: bool = False
    """A range-based for loop assigns its container's elements through its reference element
    (`for (auto &e : x) e = ...`)."""
    counter_type: str | None = None
    """The type the loop's initialiser declares its variable with, when it counts up to a bound
    with `<` (None otherwise)."""
    declared_type: str | None = None
    """The type the loop's initialiser declares its variable with, whatever its test and
    direction (None for an assignment, `auto`, a pointer or a reference)."""
    test: str | None = None
    """How a canonical index loop compares its variable with `upper` (`<`, `<=`, `>`, `>=`,
    `!=`, the variable on the left; None for any other loop)."""
    stride: int | None = None
    """What each iteration adds to the variable, when the header says (`i -= 2`: -2)."""
    upper_value: str | None = None
    """`upper` as the accesses spell their subscripts, each local that holds its initializer
    there written as that value (`int nx = 400;`: `( 400 )`, as in `u[j * ( 400 ) + i]`)."""
    counter_kept: bool = False
    """The loop counts a variable declared before it (`int i; for (i = 0; ...)`) whose value
    when it ends may be read later (`agents.analysis.liveness`): a parallel version leaves the
    sequential end there (OpenMP `lastprivate`; MPI and CUDA set it after their blocks)."""
    openmp_form: str | None = None
    """Why OpenMP cannot take this loop's header as written (a test GCC's OpenMP rejects or
    counts otherwise, a counter type it takes not or runs short), or None: the annotator
    leaves such a loop; the other targets compute its range themselves."""
    static_only: bool = False
    """The loop counts down in an unsigned type narrower than 64 bits: GCC's OpenMP runs none
    of its iterations under a `dynamic` or `guided` schedule (only `static` is offered)."""
    directive: int | None = None
    """The line of a directive the program already has on this loop (an OpenMP or OpenACC
    directive, a loop hint such as `#pragma GCC ivdep` or `#pragma unroll`) or an OpenMP or
    OpenACC construct around it in its function (a `#pragma omp parallel` region holding it);
    None where it has none. No target rewrites such a loop: another directive cannot stand
    between a loop directive and its loop, and a region's threads would all run a rewrite."""


@dataclass(frozen=True)
class Function:
    """A function definition and the loops in its body, outer first, in source order."""

    name: str
    start_line: int
    end_line: int
    params: tuple[str, ...]
    loops: tuple[Loop, ...]
    start_byte: int
    end_byte: int
    """The definition's span in the UTF-8 encoded source."""


@dataclass(frozen=True)
class Program:
    """An analysed translation unit."""

    language: Language
    functions: tuple[Function, ...]
    has_main: bool
    syntax_errors: tuple[int, ...]
    """1-based lines where the parser had to recover from an error."""

    def function(self, name: str) -> Function | None:
        return next((f for f in self.functions if f.name == name), None)

    @property
    def loops(self) -> tuple[Loop, ...]:
        return tuple(loop for f in self.functions for loop in f.loops)

    def loop(self, loop_id: str) -> Loop:
        for loop in self.loops:
            if loop.id == loop_id:
                return loop
        raise AnalysisError(f"the program has no loop {loop_id}")
