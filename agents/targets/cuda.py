"""CUDA: kernels on a GPU, launched from the host.

A candidate is written in CUDA C++ whatever the sequential program's language, built with nvcc
and checked by compute-sanitizer. The target's own tool, `offload`, writes one from the
analysis's facts where it proves a loop (each such loop a grid-stride kernel), so its default
plan leads with that candidate. Its evolution neighbours are the block sizes of its kernel
launches, where a launch takes its block size from one constant the program defines once, the
most blocks a grid-stride launch of `offload`'s starts (`PF_CUDA_GRID`), and whether its
histograms count per block in shared memory first (`PF_CUDA_SHARED`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

from tree_sitter import Node

from agents.analysis.errors import AnnotationError
from agents.analysis.kernels import kernel, signature_params
from agents.analysis.model import Program
from agents.analysis.offload import cpp_compatible, offload, offloadable
from agents.analysis.parse import declared_name, parse_int, syntax_tree, text, walk
from agents.targets.base import Draft, Kept, Kit, Mutation
from agents.targets.lowered import algorithms_as_loops, with_most_loops
from sandbox.spec import Language, Target

BLOCK_SIZES = (64, 128, 256, 512, 1024)
"""CUDA threads per block tried: powers of two (kernels often reduce by halving) up to the
hardware's limit."""

GRID_LIMITS = (132, 528, 2112, 65535)
"""Most blocks per launch tried where `offload` wrote grid-stride kernels (`PF_CUDA_GRID`):
one, four and sixteen blocks per multiprocessor of an H100 (132 of them), and the most a
launch's first dimension always allows on every GPU."""


SEEDED = (
    "start from the kernels the `offload` tool writes for the loops the analysis proves, "
    "and improve their memory traffic, launch shape and what they leave on the host"
)


class Cuda(Kit):
    target: ClassVar[Target] = Target.CUDA
    name: ClassVar[str] = "CUDA"
    strategies: ClassVar[tuple[str, ...]] = (
        "one thread per element with a bounds guard",
        "grid-stride loops",
        "tree reduction in shared memory, one atomicAdd per block",
        "tiles staged in shared memory, one block per tile",
        "one atomicAdd per element into the result",
        SEEDED,
    )
    seeded: ClassVar[str | None] = SEEDED
    rules: ClassVar[tuple[str, ...]] = (
        "Move the loops that carry the work into `__global__` kernels launched with "
        "`<<<blocks, threads>>>`; allocate device memory with cudaMalloc, copy with cudaMemcpy, "
        "check the error codes, and free what you allocate.",
        "Handle problem sizes that are not a multiple of the block size (guard the indices).",
        "Where threads combine results, use atomics or a reduction in shared memory with "
        "`__syncthreads()` between its steps; no two threads may race on the same address.",
        "The host code keeps reading the same arguments and standard input and printing the "
        "same output.",
    )
    tools: ClassVar[tuple[str, ...]] = ("offload",)

    def driver_rules(self) -> tuple[str, ...]:
        return (
            "The driver allocates and copies the device memory and launches the kernel itself, "
            "with at least as many threads as there are elements (more where it rounds up): "
            "write the `__global__` kernel, guard the indices, and let each thread do its "
            "share of the work.",
            self.rules[2],
        )

    checks: ClassVar[str] = "compute-sanitizer (memcheck, racecheck, synccheck)"

    def language(self, source: Language) -> Language:
        return Language.CUDA

    def build_line(self, language: Language) -> str:
        return "nvcc -O2 (the file is main.cu)"

    def seed(self, source: str, program: Program, signature: str | None = None) -> str | None:
        try:
            if signature is not None:
                return kernel(source, program, signature_params(signature)[0], signature)
            if not program.has_main:
                return None
            source, program = cpp_compatible(source, program)
            source, program, loops = with_most_loops(source, program, offloadable, counted=True)
            return offload(source, program, [loop.id for loop in loops]) if loops else None
        except AnnotationError:
            return None

    def mechanical(self, source: str, program: Program, signature: str | None = None) -> bool:
        """A whole program with a loop `offload` can move, or a function whose loop `kernel`
        can write as the driver's kernel."""
        if signature is not None:
            try:
                kernel(source, program, signature_params(signature)[0], signature)
            except AnnotationError:
                return False
            return True
        if not program.has_main:
            return False
        source, program = cpp_compatible(source, program)
        if offloadable(source, program):
            return True
        try:
            return algorithms_as_loops(source, program, offloadable, counted=True) is not None
        except AnnotationError:
            return False

    def candidates(self, plan: Draft, *, annotatable: bool, use_model: bool) -> list[str]:
        """Where `offload` can move a loop: the model's pick of loops, every loop the analysis
        offers, and a rewrite (without a model, the analysis's candidate alone)."""
        return self._loop_tool_candidates(
            plan,
            "offload",
            "every loop the analysis proves, as kernels",
            annotatable=annotatable,
            use_model=use_model,
        )

    def descriptor(self, lines: Sequence[str]) -> tuple[str, int]:
        """`cuda` and its kernel launches."""
        return "cuda", sum(line.count("<<<") for line in lines)

    def mutations(self, source: str, language: Language) -> list[Mutation]:
        """Each constant a kernel launch takes its block size from, set to the other sizes of
        `BLOCK_SIZES`; `offload`'s grid limit set to the others of `GRID_LIMITS`, and its
        histograms counted in shared memory per block or straight into global memory
        (`PF_CUDA_SHARED`)."""
        return _launch_mutations(source, language)


_INTEGER_TYPES = frozenset({"int", "unsigned", "unsigned int", "long", "size_t"})


def _launch_mutations(source: str, language: Language) -> list[Mutation]:
    raw = source.encode()
    root = syntax_tree(source, language).root_node
    kept = Kept(source)
    for name in dict.fromkeys(_launch_blocks(source)):
        for value, size, mutated in _retyped(raw, _constant(root, name), BLOCK_SIZES):
            label = f"{name}: block size {value} -> {size}"
            kept.keep(Mutation("block_size", label, mutated))
    for value, limit, mutated in _retyped(raw, _constant(root, "PF_CUDA_GRID"), GRID_LIMITS):
        kept.keep(Mutation("grid", f"PF_CUDA_GRID: at most {value} -> {limit} blocks", mutated))
    for value, shared, mutated in _retyped(raw, _constant(root, "PF_CUDA_SHARED"), (0, 1)):
        where = {0: "global memory", 1: "shared memory per block"}
        label = f"PF_CUDA_SHARED: histograms in {where[value]} -> {where[shared]}"
        kept.keep(Mutation("shared", label, mutated))
    return kept.mutations


def _retyped(
    raw: bytes, constant: tuple[tuple[int, int], int] | None, choices: Sequence[int]
) -> Iterator[tuple[int, int, str]]:
    """(old value, new value, program) for each other choice of a constant's literal."""
    if constant is None:
        return
    (start, end), value = constant
    for choice in choices:
        if choice != value:
            yield value, choice, (raw[:start] + str(choice).encode() + raw[end:]).decode()


def _constant(root: Node, name: str) -> tuple[tuple[int, int], int] | None:
    """The byte span and value of the integer literal `name` is defined as, when the program
    defines it exactly once (a `#define`, or an integer declaration at file or function scope)
    and never assigns or declares it anywhere else."""
    spans: list[tuple[tuple[int, int], int] | None] = []
    for node in walk(root):
        if node.type == "preproc_def":
            macro, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if macro is not None and text(macro) == name:
                spans.append(_macro_literal(value))
        elif node.type in ("declaration", "parameter_declaration", "field_declaration"):
            for declarator in node.children_by_field_name("declarator"):
                if declared_name(declarator) == name:
                    spans.append(_declared_literal(node, declarator))
        elif node.type in ("assignment_expression", "update_expression"):
            target = node.child_by_field_name("left") or node.child_by_field_name("argument")
            if target is not None and text(target) == name:
                return None
    return spans[0] if len(spans) == 1 else None


def _macro_literal(value: Node | None) -> tuple[tuple[int, int], int] | None:
    if value is None:
        return None
    body = value.text or b""
    code = body.split(b"//")[0].split(b"/*")[0].strip()
    number = parse_int(code.decode())
    if number is None or not code:
        return None
    start = value.start_byte + body.index(code)
    return (start, start + len(code)), number


def _declared_literal(declaration: Node, declarator: Node) -> tuple[tuple[int, int], int] | None:
    kind = declaration.child_by_field_name("type")
    value = declarator.child_by_field_name("value")
    scope = declaration.parent
    at_scope = scope is not None and (
        scope.type == "translation_unit"
        or (
            scope.type == "compound_statement"
            and scope.parent is not None
            and scope.parent.type == "function_definition"
        )
    )
    if (
        declaration.type != "declaration"
        or not at_scope
        or kind is None
        or " ".join(text(kind).split()) not in _INTEGER_TYPES
        or value is None
        or value.type != "number_literal"
    ):
        return None
    number = parse_int(text(value))
    return None if number is None else ((value.start_byte, value.end_byte), number)


def _launch_blocks(source: str) -> Iterator[str]:
    """The names kernel launches (`k<<<grid, BLOCK, ...>>>`) take their block size from, in
    source order; a literal or an expression is skipped (a literal may also be spelled out in
    the grid's arithmetic, which a change would have to find)."""
    tokens = list(_lex(source))
    for i, token in enumerate(tokens):
        if token != "<<<":
            continue
        depth = 0
        args: list[list[str]] = []
        current: list[str] = []
        for inner in tokens[i + 1 :]:
            if inner == ">>>" and depth == 0:
                args.append(current)
                break
            depth += (inner in ("(", "[", "{")) - (inner in (")", "]", "}"))
            if inner == "," and depth == 0:
                args.append(current)
                current = []
            else:
                current.append(inner)
        else:
            continue  # no `>>>`: not a launch this lexer understands
        if len(args) >= 2 and len(args[1]) == 1 and args[1][0].isidentifier():
            yield args[1][0]


def _lex(source: str) -> Iterator[str]:
    """C tokens enough to find launch configurations: words, `<<<`, `>>>` and single
    characters, with comments, string and character literals and preprocessor lines left out."""
    i, n, line_start = 0, len(source), True
    while i < n:
        ch = source[i]
        if ch == "\n":
            i, line_start = i + 1, True
            continue
        if ch.isspace():
            i += 1
            continue
        if line_start and ch == "#":
            while i < n and (source[i] != "\n" or source[i - 1] == "\\"):
                i += 1
            continue
        line_start = False
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif ch in "\"'":
            i += 1
            while i < n and source[i] != ch:
                i += 2 if source[i] == "\\" else 1
            i += 1
        elif source.startswith(("<<<", ">>>"), i):
            yield source[i : i + 3]
            i += 3
        elif ch.isalnum() or ch == "_":
            start = i
            while i < n and (source[i].isalnum() or source[i] in "_."):
                i += 1
            if source[i - 1] == "R" and source.startswith('"', i):
                end = source.find("(", i)
                close = source.find(")" + source[i + 1 : end] + '"', end)
                i = n if end < 0 or close < 0 else close + end - i + 1
                continue
            yield source[start:i]
        else:
            yield ch
            i += 1
