"""CUDA from loop facts: the loops the dependence analysis proves, run as GPU kernels.

Each chosen loop becomes a template kernel written next to its function and launched where the
loop was. The kernel's parameters are the names the loop's body uses from outside it, with the
same names, so the body is pasted as it is: its types come from the arguments (template
deduction), scalars travel by value (a private copy per thread, which is what the analysis's
private variables need), and arrays by pointer. Each thread runs iterations of a grid-stride
loop:

- a scalar reduction starts each thread from its operator's identity (min and max from the
  value before the loop), is combined per block in shared memory, and each block's result once
  into a cell that starts from the value before the loop (an atomic compare-and-swap, for any
  operator and any 4- or 8-byte type);
- a histogram's updates become atomic updates of the element;
- arrays reach the GPU as they are when they live on the heap (the program's `malloc`, `calloc`,
  `realloc` and `free` become CUDA managed memory, shared by host and device), and through a
  managed copy in and, when the loop writes them, out, when they are C arrays or `std::vector`s
  (sizes known from the declaration). A pointer the device cannot reach at run time (a stack
  array passed down) leaves that loop to the host, as it was.

Every CUDA call is checked (a failure prints CUDA's message and exits non-zero); each launch is
followed by a synchronisation, so the host reads what the kernel wrote.

A scan whose body first adds (or multiplies) a term into its running value and then only reads
it (`acc += x[i]; y[i] = acc;`) runs in three steps: a kernel writes the terms, CUB's device
scan makes them prefixes, a kernel runs the rest of the body from each prefix.

An argmin or argmax (`if (a[i] < best) { best = a[i]; at = i; }`) keeps a pick per thread (the
value, the other name and the iteration that took them), the best per block in shared memory,
and the best of the blocks' on the host after the launch, ties to the loop's own order.

A first-match search (`if (a[i] == t) return i;`, `{ found = i; break; }`) notes in each
thread the first iteration of its own that would leave (`atomicMin` on one cell, skipping
iterations past one already noted), and the host runs the smallest again after the launch, as
the loop would have run it last (`_search_refusal` says which searches qualify).

Other scans, last values and range-based loops get no kernel yet; nor does
a loop calling a function of the program's that is not pure, or using an object whose class
has methods (the device cannot run the host's code). The CUDA kit and the `offload` tool give
this module a source whose loops over a vector's elements are counted loops, whose prefix sums
written as recurrences have running values and whose standard algorithms are the loops they run
(`agents.targets.lowered`), where that offers more loops.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tree_sitter import Node

from agents.analysis.annotate import _exits
from agents.analysis.dependence import FLOATING_LITERAL
from agents.analysis.distribute import (
    SHORT,
    _declared_types,
    _declares_counter,
    _for_node,
    _identity,
    _indent,
    _segment,
    interposed,
    outside_main,
)
from agents.analysis.errors import AnnotationError
from agents.analysis.model import Loop, Program
from agents.analysis.parse import (
    body_statements,
    constructed,
    declared_name,
    function_definitions,
    function_name,
    function_params,
    identifiers,
    is_method,
    mentions,
    syntax_tree,
    text,
    unwrap,
    walk,
)
from agents.analysis.program import analyse
from agents.analysis.reductions import (
    counting_only,
    fold_term,
    match_best_update,
    match_pack,
    match_reduction,
)
from sandbox.spec import Language

PRIVATE_BINS = 2048
"""Histograms with at most this many bins (a literal length) count per block in shared memory
(2048 8-byte bins: 16 KiB of the 48 KiB a block may always have)."""

SHARED_BINS = 2 * PRIVATE_BINS
"""The most bins one kernel's histograms keep in shared memory together (32 KiB of 8-byte
bins; the rest of a block's 48 KiB for its folds): four of 2,048 bins did not build."""

BLOCK = 256
"""Threads per block (`PF_CUDA_BLOCK`, defined once, so evolution's block-size mutations find
it): a power of two, well below every GPU's limit (the block folds take any size)."""

GRID = 65535
"""Most blocks a launch starts (`PF_CUDA_GRID`, defined once, so evolution's grid mutations
find it): a grid-stride kernel is correct with any grid, and fewer blocks mean fewer per-block
atomics and merges of privatised bins, more blocks more parallel slack."""

_OPS = {
    "+": "pf_cuda_plus", "*": "pf_cuda_times", "min": "pf_cuda_min", "max": "pf_cuda_max",
    "&": "pf_cuda_and", "|": "pf_cuda_or", "^": "pf_cuda_xor", "&&": "pf_cuda_all",
    "||": "pf_cuda_any",
}  # fmt: skip
_ALLOCATORS = ("malloc", "calloc", "realloc", "free")
_CONTAINER = re.compile(r"\b(?:std::)?(vector|array)\s*<")


@dataclass(frozen=True)
class _Name:
    """A name the loop's body uses from outside it, and how it reaches the device."""

    name: str
    kind: str
    """`scalar` (by value), `pointer` (as it is: heap memory is managed), `array` (a C array:
    copied through managed memory) or `container` (a `std::vector` or `std::array`: the same)."""


def offloadable(source: str, program: Program, function: str | None = None) -> list[Loop]:
    """The loops a kernel can run, outermost first, none inside another."""
    root = syntax_tree(source, program.language).root_node
    chosen = [
        loop
        for loop in program.loops
        if (function is None or loop.function == function) and why_not(root, program, loop) is None
    ]
    ids = {loop.id for loop in chosen}
    outer = [loop for loop in chosen if not any(a in ids for a in loop.ancestors)]
    # A function a kernel calls runs on the device, where it cannot launch a kernel itself.
    on_device = _reached(root, [c for loop in outer for c in loop.calls])
    return [loop for loop in outer if loop.function not in on_device]


def why_not(root: Node, program: Program, loop: Loop) -> str | None:
    """Why `loop` gets no kernel (None: it can)."""
    dep = loop.dependence
    if loop.directive is not None:
        return f"it is under the program's own directive (line {loop.directive}: OpenMP, OpenACC or a loop hint)"
    if loop.range_over is not None or loop.kind != "for" or not loop.canonical or not loop.var:
        return "not a counted for loop"
    if loop.function in outside_main(root):
        return (
            f"{loop.function}() may run before main starts or after it ends (from a file's "
            "initializer, a constructor or a destructor), outside the device's set-up"
        )
    down = loop.test in (">", ">=") and loop.stride == -1
    if (
        loop.lower is None
        or loop.upper is None
        or not (down or (loop.test in ("<", "<=") and loop.stride == 1))
    ):
        return "its bounds are not a range counted up or down by 1"
    if down and dep.first_match:
        # a map's, a reduction's or a histogram's iterations run in any order (a scan's
        # terms are in the loop's: iteration k is the first value less k); the first match
        # is the smallest iteration, not index
        return "a search counting down, whose first match follows the loop's order"
    if loop.trip_count is not None and loop.trip_count < SHORT:
        return f"{loop.trip_count} iterations, fewer than a kernel launch pays for"
    node = _for_node(root, loop)
    if dep.scan is not None:
        try:
            _scan_parts(node, loop, _declared_types(root, _definition(root, loop.function)))
        except AnnotationError as exc:
            return f"its iterations are not independent (a scan: {exc})"
    elif not dep.parallelisable and not dep.first_match:
        return f"its iterations are not independent ({dep.kind})"
    if dep.first_match:
        why = _search_refusal(node, loop)
        if why:
            return why
    if dep.lastprivate or dep.last_assigned or dep.packed:
        return "a last value or packed bits, which get no kernel yet"
    if dep.best_updates and (
        len(dep.best_updates) > 1 or len(dep.best_updates[0].others) > 1 or down
    ):
        # the pick keeps one value and what one other name takes with it, in iteration order
        return "an argmin/argmax keeping more than one name, or counting down"
    if any(r.op in ("&&", "||") for r in dep.reductions):
        return "a logical reduction (a one-byte value the device cannot update atomically)"
    definition = _definition(root, loop.function)
    declared = _declared_types(root, definition)
    used = {text(n) for n in walk(node) if n.type == "identifier"}
    why = _source_refusal(root, definition, node, loop, declared, used)
    if why:
        return why
    if (
        "long double" in text(node)
        or _LONG_DOUBLE_LITERAL.search(text(node))
        or any("long double" in declared.get(name, "") for name in used)
    ):
        # nvcc computes a `long double` as a `double` in device code: other values, and 8-byte
        # elements where the host's are 16
        return "it computes with long double, which the device reads as double"
    for name in [*(r.var for r in dep.reductions), *(h.var for h in dep.array_reductions)]:
        width = _narrow_width(declared.get(name, ""))
        if width is not None:
            # the device's atomics take 4- and 8-byte values (a build failure, as it was)
            return f"a reduction into {name}, of {width}-byte values the device cannot update atomically"
    try:
        names = _free_names(root, definition, node, loop)
        _histogram_updates(node, loop)
    except AnnotationError as exc:
        return str(exc)
    user = {function_name(d) for d in function_definitions(root)}
    called = [c for c in loop.calls if c in user]
    impure = [c for c in called if not _pure_definition(root, c)]
    if impure:
        return f"it calls {impure[0]}(), which the device cannot run as it is"
    if any(n.kind == "unsupported" for n in names):
        bad = next(n.name for n in names if n.kind == "unsupported")
        return f"it uses {bad}, which cannot be moved to the device"
    kinds = {n.name: n.kind for n in names}
    kept = [(u.best, *u.others) for u in dep.best_updates]
    if any(kinds.get(name) != "scalar" for names_kept in kept for name in names_kept):
        return "an argmin/argmax keeping something other than the function's own scalars"
    return None


def _source_refusal(
    root: Node,
    definition: Node,
    node: Node,
    loop: Loop,
    declared: dict[str, str],
    used: set[str],
) -> str | None:
    """Why the source around `loop` (at `node`, in `definition`) keeps it off the device, as
    a hostile probe found: a method's loop (a kernel cannot be a member), a name reached
    through `::` (`::g`, `ns::w`, `S::w`: the kernel's copy is not the name its body reads),
    `std::complex` (its members are host functions to nvcc), a variable-length array of rows
    (no type a kernel's parameter can name), a first value or bound calling the program's
    code that changes something (run again to size the launch), a function of the program
    defined in C's old style (`int twice(x) int x; {...}`: the program, as C++, builds no
    more)."""
    if is_method(definition):
        return "a method of a class: no kernel is a member function"
    for n in walk(node):
        if n.type == "qualified_identifier" and not text(n).startswith("std::"):
            parent = n.parent
            called = parent is not None and parent.type == "call_expression"
            if not (called and parent is not None and parent.child_by_field_name("function") == n):
                return f"it names {text(n)} through its scope, which the kernel's copy is not"
    if any(re.search(r"\bcomplex\s*<", declared.get(name, "")) for name in used):
        return "it computes with std::complex, whose members are host functions to the device"
    methods = _with_methods(root)
    for name in sorted(used):
        kind = set(re.findall(r"\w+", declared.get(name, ""))) & methods
        if kind:
            return (
                f"{name} holds a {min(kind)}, whose member functions (operators too) are host "
                "functions to the device"
            )
    for name in sorted(used & _variable_length_rows(definition)):
        return f"{name} is a variable-length array of rows, whose type no kernel takes"
    user = {function_name(d): d for d in function_definitions(root)}
    bounds = f"{loop.lower} {loop.upper}"
    for called in re.findall(r"(\w+)\s*\(", bounds):
        if called in user and not _pure_definition(root, called):
            return f"its first value or bound calls {called}(), which changes something"
    for name, found in user.items():
        if any(c.type == "declaration" for c in found.named_children):
            return f"the program defines {name}() in C's old style, which no C++ compiler reads"
    return None


def _with_methods(root: Node) -> set[str]:
    """The names of the program's structs and classes that define member functions."""
    found: set[str] = set()
    for node in walk(root):
        if node.type in ("struct_specifier", "class_specifier"):
            tag, body = node.child_by_field_name("name"), node.child_by_field_name("body")
            if (
                tag is not None
                and body is not None
                and any(
                    c.type in ("function_definition", "template_declaration")
                    for c in body.named_children
                )
            ):
                found.add(text(tag))
    return found


def _variable_length_rows(definition: Node) -> set[str]:
    """The names the function declares arrays of rows with a size a variable of it gives."""
    variables = {p for p, _ in function_params(definition)} | {
        declared_name(d)
        for x in walk(definition)
        if x.type == "declaration"
        for d in x.children_by_field_name("declarator")
    }
    found: set[str] = set()
    for n in walk(definition):
        inner = n.child_by_field_name("declarator") if n.type == "array_declarator" else None
        if inner is None or inner.type != "array_declarator":
            continue
        sizes = [d.child_by_field_name("size") for d in (n, inner)]
        if any(size is not None and set(identifiers(size)) & variables for size in sizes):
            found.add(declared_name(n) or "")
    return found


_LONG_DOUBLE_LITERAL = re.compile(FLOATING_LITERAL.pattern + r"[lL]\b")
"""A `long double` literal (`0.25L`, `1e3L`; not the integer `10L`)."""

_NARROW = {"char": 1, "bool": 1, "_Bool": 1, "short": 2, "int8_t": 1, "int16_t": 2}


def _narrow_width(declared: str) -> int | None:
    """The size of a declared type's (element) values when narrower than 4 bytes (`unsigned
    char`, `short`, `std::vector<uint8_t>`, `bool`), else None."""
    element = re.search(r"<\s*([^<>,]+?)\s*(?:,[^<>]*)?>", declared)
    words = (element.group(1) if element else declared).replace("std::", "").split()
    words = [w.removeprefix("u") if w.endswith("_t") else w for w in words]
    for word in words:
        if word in _NARROW:
            return _NARROW[word]
    return None


_NESTING = frozenset(
    {"for_statement", "for_range_loop", "while_statement", "do_statement", "switch_statement"}
)


def _search_refusal(node: Node, loop: Loop) -> str | None:
    """Why a first-match search gets no kernel (None: it can). Each thread notes the first
    iteration of its own that would leave the loop (`atomicMin` on one cell) and goes on to
    its next; the host runs the smallest such iteration again, as the loop would have run it
    last. So every way out must leave the body itself (not an inner loop or a `switch`, where
    the note's `continue` would bind elsewhere), the counter must be the loop's own (nothing
    after the loop reads where it stopped), and nothing else may be kept across iterations."""
    dep = loop.dependence
    if dep.reductions or dep.array_reductions or dep.best_updates or dep.scan is not None:
        return "a search that also folds or keeps other values"
    if not _declares_counter(node):
        return "a search whose counter is not declared in its header (read after it stops)"
    body = node.child_by_field_name("body")
    for way_out in _exits(node)[1:]:
        parent = way_out.parent
        while parent is not None and parent != body:
            if parent.type in _NESTING or parent.type == "lambda_expression":
                return "a search leaving from inside an inner loop or a switch"
            parent = parent.parent
    return None


def offload(source: str, program: Program, loop_ids: Sequence[str]) -> str:
    """The program as CUDA C++, with each loop of `loop_ids` a kernel (see the module's text).

    Raises AnnotationError for a loop that `offloadable` does not offer."""
    source, program = cpp_compatible(source, program)
    root = syntax_tree(source, program.language).root_node
    offered = {loop.id: loop for loop in offloadable(source, program)}
    for loop_id in loop_ids:
        if loop_id not in offered:
            loop = next((x for x in program.loops if x.id == loop_id), None)
            why = why_not(root, program, loop) if loop is not None else "no such loop"
            raise AnnotationError(f"loop {loop_id} cannot run as a kernel: {why or 'nested'}")
    if not loop_ids:
        raise AnnotationError("no loop chosen")
    clash = interposed(root)
    if clash:
        raise AnnotationError(clash)
    identifiers = {text(n) for n in walk(root) if n.type == "identifier"}
    taken = sorted(n for n in identifiers if n.startswith("pf_"))  # the kernels' own names
    if taken:
        raise AnnotationError(f"the program already uses the name {taken[0]}")
    raw = source.encode()
    edits: list[tuple[int, int, str]] = []
    kernels: dict[int, list[str]] = {}
    for number, loop_id in enumerate(dict.fromkeys(loop_ids)):
        loop = offered[loop_id]
        node = _for_node(root, loop)
        definition = _definition(root, loop.function)
        names = _free_names(root, definition, node, loop)
        if loop.dependence.scan is not None:
            types = _declared_types(root, definition)
            kernel, launch = _scan_kernels(raw, node, loop, names, number, types)
        else:
            nest = None if loop.dependence.first_match else _collapsible(program, loop, node)
            kernel, launch = _kernel(raw, node, loop, names, number, nest)
        kernels.setdefault(definition.start_byte, []).append(kernel)
        edits.append((node.start_byte, node.end_byte, launch))
    for start, written in kernels.items():
        # `std::min` and `std::max` are constexpr host functions a kernel may not call
        device = [_DEVICE_MIN_MAX.sub(r"pf_cuda_std_\1", k) for k in written]
        edits.append((start, start, "\n\n".join(device) + "\n\n"))
    for name in _device_functions(root, [offered[i] for i in loop_ids]):
        definition = _definition(root, name)
        edits.append((definition.start_byte, definition.start_byte, "__host__ __device__ "))
    # Always: a C program's `T *p = malloc(...)` compiles as C++ only through the managed
    # allocator's converting result.
    edits += _managed_allocations(root)
    out = raw
    for begin, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:begin] + new.encode() + out[end:]
    helpers = _HELPERS
    if any(offered[i].dependence.scan is not None for i in loop_ids):
        # before the program's own macros, which could reach into CUB's headers; without
        # CUB's NVTX ranges, whose start-up loads a library the environment names (`dlopen`:
        # the verifier refuses a program that imports it, as it must)
        helpers = helpers.replace(
            _CUDA_RUNTIME,
            _CUDA_RUNTIME + "#define CCCL_DISABLE_NVTX\n#include <cub/cub.cuh>\n",
            1,
        )
    return helpers + out.decode()


# --- what the kernel takes ------------------------------------------------------------------


def _definition(root: Node, name: str) -> Node:
    found = [d for d in function_definitions(root) if function_name(d) == name]
    if len(found) != 1:
        raise AnnotationError(f"cannot find the one definition of {name}()")
    return found[0]


def _free_names(root: Node, definition: Node, node: Node, loop: Loop) -> list[_Name]:
    """The names the loop's body uses that are declared outside it, in the function or at file
    scope (others are macros, enumerators or library names), with how each reaches the device."""
    body = node.child_by_field_name("body")
    if body is None:
        raise AnnotationError(f"loop {loop.id} has no body")
    inside = {n for d in walk(body) if d.type == "declaration" for n in _declared(d)}
    callees = {
        text(c.child_by_field_name("function") or c)
        for c in walk(body)
        if c.type == "call_expression"
    }
    declared = _visible(root, definition, node)
    found: dict[str, _Name] = {}
    for ident in walk(body):
        if ident.type != "identifier":
            continue
        name = text(ident)
        if name in inside or name in callees or name in found:
            continue
        if name == loop.var:
            continue
        kind = declared.get(name)
        if kind is None:
            continue
        found[name] = _Name(name, kind)
    if loop.var in declared and not _declares_counter(node):
        found[loop.var] = _Name(loop.var, "scalar")
    return list(found.values())


def _declared(declaration: Node) -> list[str]:
    names = []
    for declarator in declaration.children_by_field_name("declarator"):
        name = _base_name(declarator)
        if name:
            names.append(name)
    return names


def _base_name(declarator: Node) -> str | None:
    while declarator.type not in ("identifier", "field_identifier"):
        inner = declarator.child_by_field_name("declarator")
        if inner is None and declarator.type in (
            "reference_declarator",
            "parenthesized_declarator",
        ):
            # `std::vector<double> &a`, `long (*a)[W]`: the grammar gives the name inside no
            # field
            inner = next(iter(declarator.named_children), None)
        if inner is None:
            return None
        declarator = inner
    return text(declarator)


def _visible(root: Node, definition: Node, node: Node) -> dict[str, str]:
    """Name → how it reaches the device, for the file's variables, the function's parameters
    and its declarations before the loop (inner ones shadow outer ones)."""
    found: dict[str, str] = {}
    scopes = [c for c in root.children if c.type == "declaration"]
    scopes += [p for _, p in function_params(definition)]
    fbody = definition.child_by_field_name("body")
    if fbody is not None:
        scopes += [
            d for d in walk(fbody) if d.type == "declaration" and d.end_byte <= node.start_byte
        ]
    for declaration in scopes:
        kind_node = declaration.child_by_field_name("type")
        type_text = text(kind_node) if kind_node is not None else ""
        for declarator in declaration.children_by_field_name("declarator"):
            name = _base_name(declarator)
            if name is None:
                continue
            value = (
                declarator.child_by_field_name("value")
                if declarator.type == "init_declarator"
                else None
            )
            if "auto" in type_text.split() and value is not None and value.type == "identifier":
                # `auto &u = v;`, `auto w = v;`: what `v` is (a C array copied decays to a
                # pointer: `auto p = a;`)
                kind = found.get(text(value), "unsupported")
                reference = any(n.type == "reference_declarator" for n in walk(declarator))
                found[name] = "pointer" if kind == "array" and not reference else kind
            else:
                found[name] = _kind(declarator, type_text)
    # The elements of the range-based loops around the loop (`for (auto &row : rows)`): a
    # number spelled as one goes by value; what `auto` stands for is not known here.
    ranges = []
    holder = node.parent
    while holder is not None and holder != definition:
        if holder.type == "for_range_loop":
            ranges.append(holder)
        holder = holder.parent
    for ranged in reversed(ranges):
        element = ranged.child_by_field_name("declarator")
        kind_node = ranged.child_by_field_name("type")
        name = _base_name(element) if element is not None else None
        if name is None or element is None:
            continue
        type_text = text(kind_node) if kind_node is not None else "auto"
        plain = "auto" not in type_text.split()
        found[name] = _kind(element, type_text) if plain else "unsupported"
    return found


def _kind(declarator: Node, type_text: str) -> str:
    shapes = {n.type for n in walk(declarator)}
    container = _CONTAINER.search(type_text)
    if "function_declarator" in shapes and not (
        container and declarator.type == "function_declarator" and constructed(declarator)
    ):
        # a function named as a value: the device cannot call the host's (`std::vector<double>
        # a(n);` is a vector the parser reads as a prototype taking an `n`)
        return "unsupported"
    if container:
        inner = type_text[container.end() :]
        if _CONTAINER.search(inner) or re.match(r"\s*bool\b", inner) or "*" in inner:
            return "unsupported"
        return "container"
    if "pointer_declarator" in shapes:
        return "pointer"
    if "array_declarator" in shapes:
        parameter = declarator.parent is not None and declarator.parent.type.startswith("parameter")
        return "pointer" if parameter else "array"
    # A number, by value or by reference (the kernel takes a copy); anything else, whose
    # copy could run the host's code or carry the host's pointers, is not moved.
    return "scalar" if _plain(type_text) else "unsupported"


_PLAIN = re.compile(
    r"^(?:const\s+|volatile\s+|static\s+|unsigned\s+|signed\s+|long\s+|short\s+)*"
    r"(?:int|long|short|char|float|double|size_t|ssize_t|ptrdiff_t|bool|_Bool|"
    r"u?int(?:8|16|32|64)_t|unsigned|signed|auto)?(?:\s+const)?$"
)


def _plain(type_text: str) -> bool:
    """A number type (what a kernel can take by value without running the host's code)."""
    return bool(_PLAIN.match(" ".join(type_text.replace("std::", "").split())))


def _pure_definition(root: Node, name: str) -> bool:
    """A function the device may run: neither it nor a function of the program's it calls
    names a file-scope variable (the analysis already found the calls pure)."""
    globals_ = {n for c in root.children if c.type == "declaration" for n in _declared(c)}
    for reached in _reached(root, [name]):
        if any(
            n.type == "identifier" and text(n) in globals_ for n in walk(_definition(root, reached))
        ):
            return False
    return True


def _reached(root: Node, names: Sequence[str]) -> set[str]:
    """`names` and the program's functions they call, directly or not."""
    own = {function_name(d): d for d in function_definitions(root)}
    seen: set[str] = set()
    stack = [n for n in names if n in own]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        for node in walk(own[name]):
            callee = (
                node.child_by_field_name("function") if node.type == "call_expression" else None
            )
            if callee is not None and text(callee) in own:
                stack.append(text(callee))
    return seen


def _device_functions(root: Node, loops: Sequence[Loop]) -> list[str]:
    """The program's functions a kernel calls, directly or not: they become `__host__
    __device__`."""
    return sorted(_reached(root, [c for loop in loops for c in loop.calls]))


def _histogram_updates(node: Node, loop: Loop) -> list[tuple[Node, str, str, str]]:
    """Each histogram update in the loop's body: (statement, element, value, operator).

    Raises AnnotationError for an update that is not `h[e]++`, `h[e]--` or `h[e] op= v`."""
    arrays = {a.var: a.op for a in loop.dependence.array_reductions}
    found = []
    for statement in walk(node):
        matched = match_reduction(statement) if statement.type == "expression_statement" else None
        if matched is None or matched[0] not in arrays:
            continue
        expr = statement.named_children[0]
        while expr.type == "parenthesized_expression":
            expr = expr.named_children[0]
        if expr.type == "update_expression":
            target = expr.child_by_field_name("argument")
            value = "-1" if "--" in text(expr) else "1"
            op = "+"
        else:
            target = expr.child_by_field_name("left")
            right = expr.child_by_field_name("right")
            operator = text(expr.child_by_field_name("operator") or expr)
            if right is None or operator not in ("+=", "-=", "*=", "&=", "|=", "^="):
                raise AnnotationError(
                    f"a histogram update the GPU tool cannot make atomic: {text(statement)}"
                )
            value = f"-({text(right)})" if operator == "-=" else f"({text(right)})"
            op = "+" if operator == "-=" else operator[0]
        if target is None:
            raise AnnotationError(f"a histogram update without an element: {text(statement)}")
        found.append((statement, text(target), value, op))
    return found


# --- writing the kernel and its launch ------------------------------------------------------


def _collapsible(program: Program, loop: Loop, node: Node) -> tuple[Loop, Node] | None:
    """The inner loop of a perfect two-deep nest whose iterations all run as one flat range
    (`for i { for j { ... } }`, the inner bounds unchanged by the nest, no `break`, `goto` or
    `return` inside): one thread per (i, j) pair instead of one per row."""
    body = node.child_by_field_name("body")
    if body is None:
        return None
    statements = (
        [c for c in body.named_children if c.type != "comment"]
        if body.type == "compound_statement"
        else [body]
    )
    if len(statements) != 1 or statements[0].type != "for_statement":
        return None
    inner_node = statements[0]
    inner = next(
        (
            x
            for x in program.loops
            if x.parent == loop.id and (x.line - 1, x.column) == inner_node.start_point
        ),
        None,
    )
    if (
        inner is None
        or not inner.canonical
        or inner.counter_type in (None, "auto")
        or inner.test not in ("<", "<=")
        or inner.stride not in (None, 1)
        or inner.lower is None
        or inner.upper is None
        # its own iterations independent too (a row's prefix sum `a[i][j] += a[i][j - 1]` is
        # no flat range: a hostile probe's), folding only into what the nest folds
        or not inner.dependence.parallelisable
        or not {r.var for r in inner.dependence.reductions}
        <= {r.var for r in loop.dependence.reductions}
        or inner.dependence.array_reductions
        or inner.dependence.lastprivate
    ):
        return None
    bounds = f"{inner.lower} {inner.upper}"
    changing = {w.name for w in loop.writes} | {loop.var or ""}
    if any(name and re.search(rf"\b{re.escape(name)}\b", bounds) for name in changing):
        return None
    inner_body = inner_node.child_by_field_name("body")
    leaves = ("break_statement", "goto_statement", "return_statement", "continue_statement")
    if inner_body is None or any(n.type in leaves for n in walk(inner_body)):
        return None
    return inner, inner_node


def _trip(loop: Loop, first: str, count: str) -> list[str]:
    """Host code declaring `first` (the counter's first value) and `count` (the iterations) of
    a loop counted up or down by one, by its own test in its counter's type: the last value
    the test takes is the bound, or one short of it (`i < n / 3.0` with `n` 1 runs once, as
    `i >= 0.5` counting down from 0 runs none), and none where the first value fails it; the
    first value is the counter's (`unsigned char c = 260` starts at 4)."""
    named = loop.declared_type or loop.counter_type
    typed = named if named not in (None, "auto") else f"decltype({loop.lower})"
    down = loop.test in (">", ">=")
    last = f"{count}_last"
    return [
        f"long long {first} = (long long)(({typed})({loop.lower}));",
        f"long long {last} = (long long)({loop.upper});",
        f"if (!(({typed}){last} {loop.test} ({loop.upper}))) {last} {'+' if down else '-'}= 1;",
        f"long long {count} = " + (f"{first} + 1 - {last};" if down else f"{last} + 1 - {first};"),
        f"if (!(({typed})({loop.lower}) {loop.test} ({loop.upper}))) {count} = 0;",
    ]


def _grid_stride(bound: str) -> str:
    """The opening line of a kernel's grid-stride loop over `pf_k` below `bound`."""
    return (
        "    for (long long pf_k = blockIdx.x * (long long)blockDim.x + threadIdx.x; "
        f"pf_k < {bound}; pf_k += (long long)gridDim.x * blockDim.x) {{"
    )


def _kernel(
    raw: bytes,
    node: Node,
    loop: Loop,
    names: list[_Name],
    number: int,
    collapsed: tuple[Loop, Node] | None = None,
) -> tuple[str, str]:
    """The kernel's definition and the host code that replaces the loop (`collapsed`: its
    inner loop, whose pairs of iterations the threads share as one range)."""
    dep = loop.dependence
    var = loop.var or ""
    kernel = f"pf_cuda_kernel_{number}"
    tag = f"pf_cuda_{number}"
    reductions = list(dep.reductions)
    body = (collapsed[1] if collapsed else node).child_by_field_name("body")
    assert body is not None
    # Histograms with few bins (a literal length) count per block in shared memory first: one
    # global update per bin and block instead of one per iteration on the same few addresses;
    # as many as fit in the kernel's budget (`SHARED_BINS`), the others straight into theirs.
    private: dict[str, str] = {}
    room = SHARED_BINS
    for k, a in enumerate(dep.array_reductions):
        if a.length.isdigit() and 0 < int(a.length) <= min(PRIVATE_BINS, room):
            private[a.var] = f"pf_bins{k}"
            room -= int(a.length)
    atomics = []
    for statement, element, value, op in _histogram_updates(node, loop):
        array, _, index = element.partition("[")
        name = array.strip()
        cell = f"PF_CUDA_BINS({private[name]}, {name})[{index}" if name in private else element
        atomics.append(
            (
                statement.start_byte,
                statement.end_byte,
                f"pf_cuda_update(&({cell}), {value}, {_OPS[op]}());",
            )
        )
    if dep.first_match:
        # a way out notes its iteration and goes on to the thread's next (see `_search_refusal`)
        atomics += [
            (e.start_byte, e.end_byte, "{ atomicMin(pf_hit, pf_k); continue; }")
            for e in _exits(node)[1:]
        ]
    picked = dep.best_updates[0] if dep.best_updates else None
    if picked is not None:
        # the iteration that takes a better value notes that it did, and which it was
        for statement in walk(body):
            matched = match_best_update(statement) if statement.type == "if_statement" else None
            if matched is not None and matched[0].best == picked.best:
                brace = matched[2].start_byte + 1
                atomics.append((brace, brace, " pf_found = true; pf_order = pf_k;"))
    body_text = _segment(raw, body, atomics)
    lengths = {a.var: a.length for a in dep.array_reductions}
    bins_start, bins_end = [], []
    for array, shared in private.items():
        op = next(a.op for a in dep.array_reductions if a.var == array)
        bins_start += [
            "#if PF_CUDA_SHARED",
            f"    typedef typename std::remove_reference<decltype({array}[0])>::type {shared}_t;",
            f"    __shared__ {shared}_t {shared}[{lengths[array]}];",
            f"    for (int pf_b = threadIdx.x; pf_b < {lengths[array]}; pf_b += blockDim.x) "
            f"{shared}[pf_b] = {array}[pf_b];"
            if op in ("min", "max")
            else f"    for (int pf_b = threadIdx.x; pf_b < {lengths[array]}; pf_b += blockDim.x) "
            f"{{ {_identity(f'{shared}[pf_b]', op)} }}",
            "    __syncthreads();",
            "#endif",
        ]
        bins_end += [
            "#if PF_CUDA_SHARED",
            "    __syncthreads();",
            f"    for (int pf_b = threadIdx.x; pf_b < {lengths[array]}; pf_b += blockDim.x) "
            f"pf_cuda_update(&{array}[pf_b], {shared}[pf_b], {_OPS[op]}());",
            "#endif",
        ]
    params = [f"pf_cuda_T{k} {n.name}" for k, n in enumerate(names)]
    cells = [f"pf_cuda_C{k} pf_cell{k}" for k in range(len(reductions))]
    classes = [f"class pf_cuda_T{k}" for k in range(len(names))] + [
        f"class pf_cuda_C{k}" for k in range(len(reductions))
    ]
    picking: list[str] = []
    with_ = rule = ""
    if picked is not None:
        cells.append("pf_cuda_P pf_picks")
        classes.append("class pf_cuda_P")
        with_ = picked.others[0] if picked.others else picked.best
        rule = f"{'true' if picked.keeps == 'min' else 'false'}, {str(picked.strict).lower()}"
        picking = [
            f"    pf_cuda_pick_fold(pf_picks, pf_found, pf_order, {picked.best}, {with_}, {rule});"
        ]
    template = f"template <{', '.join(classes)}>\n" if classes else ""
    outer_k = "pf_k / pf_icount" if collapsed else "pf_k"
    sign = "-" if loop.stride == -1 else "+"  # iteration k: the first value less k, counting down
    kind = loop.declared_type or "long long"
    counter = (
        f"{var} = (pf_cuda_T{[n.name for n in names].index(var)})(pf_first {sign} {outer_k});"
        if any(n.name == var for n in names)
        else f"{kind} {var} = ({kind})(pf_first {sign} {outer_k});"
    )
    if collapsed:
        inner = collapsed[0]
        kind = inner.counter_type or "long long"
        counter += f" {kind} {inner.var} = ({kind})(pf_ifirst + pf_k % pf_icount);"
    if dep.first_match:
        # no iteration past one already found can be the first
        counter = f"if (pf_k > *(volatile long long *)pf_hit) continue; {counter}"
        cells.append("long long *pf_hit")
    starts = [s for r in reductions if (s := _identity(r.var, r.op))]
    if picked is not None:
        starts.append("bool pf_found = false; long long pf_order = -1;")
    folds = [
        f"    pf_cuda_fold(pf_cell{k}, {r.var}, {_OPS[r.op]}());" for k, r in enumerate(reductions)
    ] + picking
    definition = "\n".join(
        [
            f"/* Loop {loop.id} of {loop.function}() on the GPU: one grid-stride thread per "
            "iteration. */",
            f"{template}__global__ void {kernel}("
            + ", ".join(
                [
                    "long long pf_first",
                    "long long pf_count",
                    *(["long long pf_ifirst", "long long pf_icount"] if collapsed else []),
                    *cells,
                    *params,
                ]
            )
            + ") {",
            *(f"    {s}" for s in starts),
            *bins_start,
            _grid_stride("pf_count * pf_icount" if collapsed else "pf_count"),
            f"        {counter}",
            f"        {body_text}",
            "    }",
            *bins_end,
            *folds,
            "}",
        ]
    )
    indent = _indent(raw, node)
    host = [
        f"{{ /* loop {loop.id} runs as {kernel} */",
        *_trip(loop, f"{tag}_first", f"{tag}_count"),
    ]
    total = f"{tag}_count"
    if collapsed:
        host += _trip(collapsed[0], f"{tag}_ifirst", f"{tag}_icount")
        total = f"{tag}_count * {tag}_icount"
    host += [f"if ({total} > 0) {{"]
    written = {w.name for w in loop.writes} | {a.var for a in dep.array_reductions}
    copies, args, back = _arguments(names, tag, written)
    host += copies
    for k, r in enumerate(reductions):
        cell = f"{tag}_cell{k}"
        host.append(
            f"    auto *{cell} = (std::remove_reference<decltype({r.var})>::type *)"
            f"pf_cuda_copy_in(&({r.var}), sizeof({r.var}));"
        )
        back.insert(0, f"    {r.var} = *{cell};")
        back.append(f"    PF_CUDA_CHECK(cudaFree({cell}));")
    launch_args = ", ".join(
        [
            f"{tag}_first",
            f"{tag}_count",
            *([f"{tag}_ifirst", f"{tag}_icount"] if collapsed else []),
            *(f"{tag}_cell{k}" for k in range(len(reductions))),
            *([f"{tag}_picks"] if picked is not None else []),
            *([f"{tag}_hit"] if dep.first_match else []),
            *args,
        ]
    )
    host += [
        f"    long long {tag}_blocks = ({total} + PF_CUDA_BLOCK - 1) / PF_CUDA_BLOCK;",
        f"    if ({tag}_blocks > PF_CUDA_GRID) {tag}_blocks = PF_CUDA_GRID;",
        f"    if ({tag}_blocks < 1) {tag}_blocks = 1;",
    ]
    if picked is not None:
        # one pick per block, the best of them kept on the host after the launch
        host.append(
            f"    auto *{tag}_picks = pf_cuda_picks_for({tag}_blocks, {picked.best}, {with_});"
        )
        back.insert(
            0,
            f"    pf_cuda_picks_merge({tag}_picks, {tag}_blocks, &({picked.best}), &({with_}), "
            f"{rule});",
        )
    if dep.first_match:
        none = "0x7fffffffffffffffLL"
        host.append(
            f"    long long {tag}_none = {none}, *{tag}_hit = "
            f"(long long *)pf_cuda_copy_in(&{tag}_none, sizeof {tag}_none);"
        )
        # the first iteration that leaves runs again, here, as the loop's last
        back.insert(0, f"    long long {tag}_at = *{tag}_hit;")
        back.append(f"    PF_CUDA_CHECK(cudaFree({tag}_hit));")
        again = raw[body.start_byte : body.end_byte].decode()
        back.append(
            f"    if ({tag}_at != {none}) {{ {kind} {var} = ({kind})({tag}_first {sign} "
            f"{tag}_at); do {again} while (0); }}"
        )
    host += [
        f"    {kernel}<<<(unsigned){tag}_blocks, PF_CUDA_BLOCK>>>({launch_args});",
        "    PF_CUDA_CHECK(cudaGetLastError());",
        "    PF_CUDA_CHECK(cudaDeviceSynchronize());",
        *back,
        "}",
    ]
    if any(n.name == var for n in names):
        host.append(f"{var} = {tag}_first {sign} ({tag}_count > 0 ? {tag}_count : 0);")
    host.append("}")
    return definition, _guarded(raw, node, loop, names, f"\n{indent}".join(host))


def _guarded(raw: bytes, node: Node, loop: Loop, names: list[_Name], launch: str) -> str:
    """`launch` where the device can reach every pointer the loop uses and they do not
    overlap; else the loop as it was, on the host (a stack array passed down, memory another
    library allocated)."""
    checks = [f"pf_cuda_reachable({n.name})" for n in names if n.kind == "pointer"]
    checks += [f"({check})" for check in loop.dependence.overlap_checks]
    if not checks:
        return launch
    indent = _indent(raw, node)
    original = raw[node.start_byte : node.end_byte].decode()
    return f"if ({' && '.join(checks)}) {launch} else {{\n{indent}{original}\n{indent}}}"


_CUDA_RUNTIME = "#include <cuda_runtime.h>\n"


def _arguments(
    names: list[_Name], tag: str, written: set[str]
) -> tuple[list[str], list[str], list[str]]:
    """The host code that copies the kernel's C arrays and containers to managed memory, the
    launch's arguments, and the code that copies back what the loop writes and frees."""
    host: list[str] = []
    args: list[str] = []
    back: list[str] = []
    for k, n in enumerate(names):
        if n.kind in ("array", "container"):
            data = f"&({n.name})[0]" if n.kind == "array" else f"({n.name}).data()"
            size = (
                f"sizeof({n.name})"
                if n.kind == "array"
                else f"({n.name}).size() * sizeof(({n.name})[0])"
            )
            copy = f"{tag}_copy{k}"
            host.append(f"    void *{copy} = pf_cuda_copy_in({data}, {size});")
            args.append(f"(decltype({data})){copy}")
            if n.name in written:
                back.append(f"    pf_cuda_copy_out({data}, {copy}, {size});")
            back.append(f"    PF_CUDA_CHECK(cudaFree({copy}));")
        else:
            args.append(n.name)
    return host, args, back


def _scan_parts(
    node: Node, loop: Loop, types: dict[str, str] | None = None
) -> tuple[Node | None, str, list[Node]]:
    """A scan this tool runs on the device: its body's first statement folds a term into the
    running value (`acc += x[i];`, `m = std::max(m, x[i]);`, `if (x[i] < m) m = x[i];`: the
    term not reading it, `reductions.fold_term`), and the rest only read the running value
    (`y[i] = acc;`): the term, the operator, the rest; or, for an exclusive scan, one
    statement after every read does and those read the value before it (`e[i] = ex; ex +=
    x[i];`). A compaction (`if (c) y[k++] = e;`, its counter an integer): no term, `+`, the
    whole body (`_scan_kernels` counts each iteration's stores with them removed)."""
    dep = loop.dependence
    scan = dep.scan
    body = node.child_by_field_name("body")
    if scan is not None and scan.packs:
        if dep.reductions or dep.array_reductions or dep.best_updates or dep.lastprivate:
            raise AnnotationError("a compaction that also folds or keeps other values")
        if dep.last_assigned or dep.first_match:
            raise AnnotationError("a compaction that also keeps a last value")
        kind = " ".join(
            (types or {}).get(scan.var, "").replace("volatile", "").replace("const", "").split()
        )
        if kind not in _INTEGRAL:
            raise AnnotationError(f"a compaction counting in {kind or 'an unknown type'}")
        statements = body_statements(body)
        if len(statements) <= scan.split or match_pack(statements[scan.split], scan.var) is None:
            raise AnnotationError("the compaction is not the one the analysis found")
        return None, "+", statements
    if scan is None or body is None or body.type != "compound_statement":
        raise AnnotationError("a scan whose body is not a block")
    if (
        dep.reductions
        or dep.array_reductions
        or dep.best_updates
        or dep.lastprivate
        or dep.last_assigned
        or dep.first_match
    ):
        raise AnnotationError("a scan that also folds or keeps other values")
    statements = [c for c in body.named_children if c.type != "comment"]
    if scan.op not in ("+", "*", "min", "max") or len(statements) < 2:
        raise AnnotationError("a scan other than a sum, product, minimum or maximum")
    if scan.exclusive:
        # read only before the step (`e[i] = ex; ex += x[i];`), which is one statement
        steps = [
            k
            for k, st in enumerate(statements)
            if k not in scan.exclusive and mentions(st, scan.var)
        ]
        if len(steps) != 1 or steps[0] < max(scan.exclusive):
            raise AnnotationError("an exclusive scan read after its step, or stepped twice")
        first = statements[steps[0]]
        rest = [st for st in statements if st is not first]
    elif scan.split != 1:
        raise AnnotationError("a scan whose first statement is not its only update")
    else:
        first, rest = statements[0], statements[1:]
    right = fold_term(first, scan.var)
    if right is None or mentions(right, scan.var):
        raise AnnotationError(
            f"the scan's step does not fold one term into {scan.var} (`{scan.var} += term;`, "
            f"`{scan.var} = max({scan.var}, term);`)"
        )
    # Terms are totalled in the running value's type: exact for integers from integer terms
    # (a floating term would be cut each step in the sequential loop, not once), rounded for
    # sums of floating-point values; a floating product regrouped can overflow where the
    # sequential one does not.
    kind = " ".join(
        (types or {}).get(scan.var, "").replace("volatile", "").replace("const", "").split()
    )
    if kind in _FLOATING:
        if scan.op == "*":
            raise AnnotationError("a floating-point product, which regrouping can overflow")
    elif kind in _INTEGRAL:
        named = {text(n) for n in walk(right) if n.type == "identifier"} - {loop.var or ""}
        floating = re.search(r"\d\.|\.\d|\d[eE][-+]?\d", text(right)) is not None
        calls = any(n.type in ("call_expression", "cast_expression") for n in walk(right))
        if (
            floating
            or calls
            or any(_number_kind((types or {}).get(name, "")) not in _INTEGRAL for name in named)
        ):
            raise AnnotationError(f"{scan.var} is an integer and its term may not be one")
    else:
        raise AnnotationError(f"a running value of type {kind or 'unknown'}")
    for statement in rest:
        for n in walk(statement):
            if n.type in ("assignment_expression", "update_expression"):
                target = n.child_by_field_name("left") or n.child_by_field_name("argument")
                if target is not None and text(target) == scan.var:
                    raise AnnotationError(f"the scan's body writes {scan.var} again")
    return right, scan.op, rest


def _number_kind(declared: str) -> str:
    """A declaration's type as the numbers it holds: `const int` and `std::vector<int>` are
    `int` (a container's elements), anything else its text."""
    bare = " ".join(declared.replace("const", "").split())
    element = re.fullmatch(r"(?:std::)?(?:vector|array)\s*<\s*([\w ]+?)\s*(?:,[^<>]*)?>", bare)
    return " ".join(element.group(1).split()) if element else bare


_SCAN_FUNCTORS = {
    "+": "pf_cuda_scan_plus",
    "*": "pf_cuda_scan_times",
    "min": "pf_cuda_scan_min",
    "max": "pf_cuda_scan_max",
}
"""CUB's scan operator (the helpers' functor) per running value's operator."""

_FLOATING = frozenset({"float", "double", "long double"})
_INTEGRAL = frozenset(
    {"int", "unsigned", "unsigned int", "long", "unsigned long", "long long", "unsigned long long",
     "size_t", "short", "unsigned short", "char", "signed char", "unsigned char", "int64_t",
     "uint64_t", "int32_t", "uint32_t", "long int", "long long int", "std::size_t"}
)  # fmt: skip


def _scan_kernels(
    raw: bytes, node: Node, loop: Loop, names: list[_Name], number: int, types: dict[str, str]
) -> tuple[str, str]:
    """A scan as three steps on the device: a kernel writes each iteration's term, CUB's
    inclusive scan (`cub::DeviceScan::InclusiveScan`, with the running value's operator)
    makes them prefixes, and a kernel runs the rest of the body with the running value the
    value before the loop combined with the iteration's prefix (an exclusive scan's: the
    prefix of the iterations before); the running value ends as it combined with the last
    prefix. Ranges beyond what CUB counts in an `int` stay on the host."""
    term, op, rest = _scan_parts(node, loop, types)
    functor = _SCAN_FUNCTORS[op]
    scan = loop.dependence.scan
    assert scan is not None
    var, acc = loop.var or "", scan.var
    tag = f"pf_cuda_{number}"
    terms_kernel, rest_kernel = f"pf_cuda_kernel_{number}_terms", f"pf_cuda_kernel_{number}_scan"
    params = [f"pf_cuda_T{k} {n.name}" for k, n in enumerate(names) if n.name != acc]
    classes = ", ".join(
        ["class pf_cuda_A"] + [f"class pf_cuda_T{k}" for k, n in enumerate(names) if n.name != acc]
    )
    kind = loop.declared_type or "long long"
    sign = "-" if loop.stride == -1 else "+"  # iteration k: the first value less k, counting down
    counter = f"{kind} {var} = ({kind})(pf_first {sign} pf_k);"
    stride = _grid_stride("pf_count")
    if term is None:
        # A compaction: an iteration's term is how many times it counts (its statements up
        # to the one that stores, the stores removed, from a count of 0); the rest kernel
        # runs the whole body from the count before it (the prefix of the iterations before),
        # its counter under its own name.
        split = rest[scan.split]
        pack = match_pack(split, acc)
        assert pack is not None
        counting = " ".join(
            [*(_segment(raw, st, []) for st in rest[: scan.split]), counting_only(split, pack)]
        )
        terms_line = f"{{ pf_cuda_A {acc} = (pf_cuda_A)0; {counting} pf_terms[pf_k] = {acc}; }}"
        start_line = (
            f"pf_cuda_A {acc} = pf_before + (pf_k > 0 ? pf_terms[pf_k - 1] : (pf_cuda_A)0);"
        )
        renamed = []
    else:
        terms_line = f"pf_terms[pf_k] = (pf_cuda_A)({text(term)});"
        start_line = f"pf_cuda_A pf_acc = {functor}()(pf_before, pf_terms[pf_k]);"
        if scan.exclusive:
            # the value before the step: the prefix of the iterations before; the term may
            # read the locals the statements before it declare (they write nothing else)
            locals_ = [
                _segment(raw, st, [])
                for k, st in enumerate(rest[: scan.split - 1])
                if k not in scan.exclusive
            ]
            terms_line = "{ " + " ".join([*locals_, terms_line]) + " }"
            start_line = (
                f"pf_cuda_A pf_acc = pf_k > 0 ? {functor}()(pf_before, pf_terms[pf_k - 1]) "
                ": pf_before;"
            )
        renamed = [
            (n.start_byte, n.end_byte, "pf_acc")
            for statement in rest
            for n in walk(statement)
            if n.type == "identifier" and text(n) == acc
        ]
    rest_text = "\n        ".join(
        _segment(
            raw,
            statement,
            [e for e in renamed if statement.start_byte <= e[0] < statement.end_byte],
        )
        for statement in rest
    )
    definition = "\n".join(
        [
            f"/* Loop {loop.id} of {loop.function}(), a scan of {acc}: each iteration's term, "
            "then (after CUB's scan) the rest of the body from its prefix. */",
            f"template <{classes}>",
            f"__global__ void {terms_kernel}("
            + ", ".join(
                ["long long pf_first", "long long pf_count", "pf_cuda_A *pf_terms", *params]
            )
            + ") {",
            stride,
            f"        {counter}",
            f"        {terms_line}",
            "    }",
            "}",
            f"template <{classes}>",
            f"__global__ void {rest_kernel}("
            + ", ".join(
                [
                    "long long pf_first",
                    "long long pf_count",
                    "const pf_cuda_A *pf_terms",
                    "pf_cuda_A pf_before",
                    *params,
                ]
            )
            + ") {",
            stride,
            f"        {counter}",
            f"        {start_line}",
            f"        {rest_text}",
            "    }",
            "}",
        ]
    )
    indent = _indent(raw, node)
    written = {w.name for w in loop.writes}
    kept = [n for n in names if n.name != acc]
    copies, args, back = _arguments(kept, tag, written)
    kind = f"{tag}_t"
    launch_args = ", ".join([f"{tag}_first", f"{tag}_count", f"{tag}_terms", *args])
    rest_args = ", ".join([f"{tag}_first", f"{tag}_count", f"{tag}_terms", acc, *args])
    blocks = f"{tag}_blocks"
    host = [
        f"{{ /* loop {loop.id} runs as {terms_kernel}, CUB's scan and {rest_kernel} */",
        *_trip(loop, f"{tag}_first", f"{tag}_count"),
        f"if ({tag}_count > 0 && {tag}_count <= 2147483647LL) {{",
        f"    typedef typename std::remove_cv<typename std::remove_reference<decltype({acc})>::type>"
        f"::type {kind};",
        *copies,
        f"    {kind} *{tag}_terms = NULL;",
        f"    PF_CUDA_CHECK(cudaMalloc((void **)&{tag}_terms, sizeof({kind}) * {tag}_count));",
        f"    long long {blocks} = ({tag}_count + PF_CUDA_BLOCK - 1) / PF_CUDA_BLOCK;",
        f"    if ({blocks} > PF_CUDA_GRID) {blocks} = PF_CUDA_GRID;",
        f"    {terms_kernel}<<<(unsigned){blocks}, PF_CUDA_BLOCK>>>({launch_args});",
        "    PF_CUDA_CHECK(cudaGetLastError());",
        f"    size_t {tag}_bytes = 0;",
        f"    PF_CUDA_CHECK(cub::DeviceScan::InclusiveScan(NULL, {tag}_bytes, {tag}_terms, "
        f"{tag}_terms, {functor}(), (int){tag}_count));",
        f"    void *{tag}_work = NULL;",
        f"    PF_CUDA_CHECK(cudaMalloc(&{tag}_work, {tag}_bytes));",
        f"    PF_CUDA_CHECK(cub::DeviceScan::InclusiveScan({tag}_work, {tag}_bytes, {tag}_terms, "
        f"{tag}_terms, {functor}(), (int){tag}_count));",
        f"    {rest_kernel}<<<(unsigned){blocks}, PF_CUDA_BLOCK>>>({rest_args});",
        "    PF_CUDA_CHECK(cudaGetLastError());",
        "    PF_CUDA_CHECK(cudaDeviceSynchronize());",
        f"    {kind} {tag}_last;",
        f"    PF_CUDA_CHECK(cudaMemcpy(&{tag}_last, {tag}_terms + ({tag}_count - 1), "
        f"sizeof({kind}), cudaMemcpyDeviceToHost));",
        f"    {acc} = {functor}()({acc}, {tag}_last);",
        *back,
        f"    PF_CUDA_CHECK(cudaFree({tag}_work));",
        f"    PF_CUDA_CHECK(cudaFree({tag}_terms));",
        f"}} else if ({tag}_count > 0) {{",
        raw[node.start_byte : node.end_byte].decode(),
        "}",
    ]
    if any(n.name == var for n in names):
        host.append(f"{var} = {tag}_first {sign} ({tag}_count > 0 ? {tag}_count : 0);")
    host.append("}")
    return definition, _guarded(raw, node, loop, kept, f"\n{indent}".join(host))


_OWNING_CALLS = frozenset({"getline", "getdelim", "open_memstream", "open_wmemstream"})
"""Library functions that `realloc` or `free` memory the program allocated: given managed
memory, the C library's allocator would take it for its own (a crash)."""


def _managed_allocations(root: Node) -> list[tuple[int, int, str]]:
    """The program's heap calls (`malloc`, `calloc`, `realloc`, `free`) as managed ones; as
    the C library's own (`pf_cuda_c_malloc`: the same conversions a C program's `malloc`
    needs as C++) where it hands heap memory to a library function that reallocates it
    (`getline`): its loops over heap memory then run on the device only where it reads host
    memory."""
    calls = {
        text(callee)
        for node in walk(root)
        if node.type == "call_expression"
        and (callee := node.child_by_field_name("function")) is not None
    }
    prefix = "pf_cuda_c_" if calls & _OWNING_CALLS else "pf_cuda_"
    edits = []
    for node in walk(root):
        callee = node.child_by_field_name("function") if node.type == "call_expression" else None
        if callee is not None and callee.type == "identifier" and text(callee) in _ALLOCATORS:
            edits.append((callee.start_byte, callee.end_byte, f"{prefix}{text(callee)}"))
    return edits


_CPP_ONLY_WORDS = frozenset(
    {"new", "delete", "class", "this", "template", "typename", "private", "public", "protected",
     "operator", "namespace", "using", "virtual", "friend", "mutable", "explicit", "export",
     "catch", "throw", "try", "nullptr", "decltype", "constexpr", "noexcept", "static_assert",
     "thread_local", "alignas", "alignof", "char16_t", "char32_t", "char8_t", "consteval",
     "constinit", "concept", "requires", "co_await", "co_return", "co_yield", "typeid",
     "reinterpret_cast", "static_cast", "dynamic_cast", "const_cast", "and", "or", "not", "xor",
     "bitand", "bitor", "compl", "and_eq", "or_eq", "xor_eq", "not_eq"}
)  # fmt: skip
"""Words C leaves to the program and C++ keeps: a C program's variable `new` is no C++."""

_VOID_RESULTS = frozenset({"bsearch", "memchr", "memcpy", "memmove", "memset"})
"""Library functions returning `void *` (the allocators return the managed one's proxy)."""


def cpp_compatible(source: str, program: Program) -> tuple[str, Program]:
    """A C program as the C++ CUDA compiles (`c_as_cpp`), with its analysis (the same loops),
    so that the loops offered are those of the program the kernels are written from; a C++
    program, or C that is C++ already, as it is."""
    if program.language is not Language.C:
        return source, program
    compatible = c_as_cpp(source)
    if compatible == source:
        return source, program
    return compatible, analyse(compatible, Language.C)


def c_as_cpp(source: str) -> str:
    """A C program as C++ compiles it, with the same meaning (CUDA compiles the program as
    C++): names that are C++ keywords renamed (`new` → `pfc_new`: variables, members, tags,
    typedefs, macro parameters and the words of macro bodies, not their string literals); a
    `void *` that C converts silently to another pointer (`const int *x = a;` with `const
    void *a`, a comparator's; `p = bsearch(...)`; a return, an argument, a member, either arm
    of `?:`) cast to that pointer's type; an integer that C stores silently into an `enum`
    cast to it."""
    root = syntax_tree(source, Language.C).root_node
    macros = [n for n in walk(root) if n.type == "preproc_arg"]
    taken = {text(n) for n in walk(root) if n.type in _NAMES}
    taken |= {w for m in macros for w in re.findall(r"\b\w+\b", _LITERALS.sub("", text(m)))}
    # `bool`, `true` and `false` are the program's names only where it declares them
    # (`typedef int bool;`, before C23); else they are <stdbool.h>'s, as in C++
    declared = {
        text(d) if d.type == "primitive_type" else declared_name(d) or ""
        for n in walk(root)
        if n.type in ("declaration", "type_definition", "parameter_declaration")
        for d in n.children_by_field_name("declarator")
    }
    renamed: dict[str, str] = {}
    for word in sorted(taken & _CPP_ONLY_WORDS | declared & {"bool", "true", "false"}):
        name = f"pfc_{word}"
        while name in taken:
            name += "_"
        renamed[word] = name
    edits = [
        (n.start_byte, n.end_byte, renamed[text(n)])
        for n in walk(root)
        if (n.type in _NAMES or n.type in _KEYWORD_NODES) and text(n) in renamed
    ]  # (the parser reads a variable `nullptr`, a type `bool` as C23's keywords)
    for macro in macros if renamed else []:
        body = _renamed_words(text(macro), renamed)
        if body != text(macro):
            edits.append((macro.start_byte, macro.end_byte, body))
    edits += _shadowed_counters(root, taken | set(renamed.values()), set(renamed))
    types = _CTypes.of(root)
    for definition in function_definitions(root):
        edits += _casts(definition, types, renamed)
    out = source.encode()
    for begin, end, new in sorted(edits, reverse=True):
        out = out[:begin] + new.encode() + out[end:]
    return out.decode()


_NAMES = ("identifier", "field_identifier", "type_identifier")
_KEYWORD_NODES = ("null", "true", "false", "primitive_type")
_LITERALS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')


def _shadowed_counters(
    root: Node, taken: set[str], renamed: set[str]
) -> list[tuple[int, int, str]]:
    """Renames for a loop body's declaration of its own counter's name (`for (int s = 0; ...)
    { long s = 0; ... }`: C's body is a scope of its own, C++'s is the loop's): that name
    from there to the body's end, where only the body's variable (or one nested in it) is
    seen."""
    edits: list[tuple[int, int, str]] = []
    for loop in (n for n in walk(root) if n.type == "for_statement"):
        init, body = loop.child_by_field_name("initializer"), loop.child_by_field_name("body")
        if init is None or init.type != "declaration" or body is None:
            continue
        if body.type != "compound_statement":
            continue
        counters = {declared_name(d) for d in init.children_by_field_name("declarator")}
        for statement in body.named_children:
            if statement.type != "declaration":
                continue
            clash = counters & {
                declared_name(d) for d in statement.children_by_field_name("declarator")
            }
            for name in sorted(n for n in clash if n and n not in renamed):
                fresh = f"pfc_{name}"
                while fresh in taken:
                    fresh += "_"
                taken.add(fresh)
                edits += [
                    (n.start_byte, n.end_byte, fresh)
                    for n in walk(body)
                    if n.type == "identifier"
                    and text(n) == name
                    and n.start_byte >= statement.start_byte
                ]
    return edits


def _renamed_words(body: str, renamed: dict[str, str]) -> str:
    """A macro body with the renamed words renamed outside its string and character literals."""
    words = re.compile(r"\b(" + "|".join(map(re.escape, renamed)) + r")\b")
    parts, at = [], 0
    for literal in _LITERALS.finditer(body):
        parts.append(words.sub(lambda m: renamed[m.group(1)], body[at : literal.start()]))
        parts.append(literal.group(0))
        at = literal.end()
    parts.append(words.sub(lambda m: renamed[m.group(1)], body[at:]))
    return "".join(parts)


@dataclass
class _CTypes:
    """What `c_as_cpp`'s casts need of a C file's declarations: the pointer or `enum` type of
    its variables (by function: file scope, parameters, locals), of struct members (where one
    name has one type), and the return and parameter types of its functions."""

    files: dict[str, str]
    members: dict[str, str]
    functions: dict[str, tuple[str | None, list[str | None]]]
    enums: frozenset[str]

    @staticmethod
    def of(root: Node) -> _CTypes:
        enums = {
            text(d)
            for t in walk(root)
            if t.type == "type_definition"
            and (kind := t.child_by_field_name("type")) is not None
            and kind.type == "enum_specifier"
            for d in t.children_by_field_name("declarator")
            if d.type == "type_identifier"
        }
        types = _CTypes({}, {}, {}, frozenset(enums))
        types.files = types.declared([c for c in root.children if c.type == "declaration"])
        seen: dict[str, set[str | None]] = {}
        for field in (n for n in walk(root) if n.type == "field_declaration"):
            kinds = types.declared([field])
            for declarator in field.children_by_field_name("declarator"):
                name = declared_name(declarator)
                if name is not None:
                    seen.setdefault(name, set()).add(kinds.get(name))
        types.members = {
            name: kind for name, kinds in seen.items() if len(kinds) == 1 for kind in kinds if kind
        }
        for node in walk(root):
            if node.type in ("function_definition", "declaration"):
                types.function(node)
        return types

    def function(self, node: Node) -> None:
        """Note the return and parameter types of a function `node` defines or declares."""
        head, result = node.child_by_field_name("declarator"), node.child_by_field_name("type")
        stars = 0
        while head is not None and head.type == "pointer_declarator":
            stars += 1
            head = head.child_by_field_name("declarator")
        if head is None or head.type != "function_declarator" or result is None:
            return
        callee = head.child_by_field_name("declarator")
        params = head.child_by_field_name("parameters")
        if callee is None or callee.type != "identifier" or params is None:
            return
        returned = f"{self.base(node, result)} {'*' * stars}" if stars else None
        taken = [
            next(iter(self.declared([p]).values()), None)
            for p in params.named_children
            if p.type == "parameter_declaration"
        ]
        self.functions[text(callee)] = (returned, taken)

    def base(self, declaration: Node, kind: Node) -> str:
        qualifiers = " ".join(text(c) for c in declaration.children if c.type == "type_qualifier")
        return f"{qualifiers} {text(kind)}".strip()

    def declared(self, declarations: list[Node]) -> dict[str, str]:
        """Name → its pointer type (`const int *`) or `enum` type (`enum mode`, a typedef of
        one), for these declarations' declarators."""
        found: dict[str, str] = {}
        for declaration in declarations:
            kind = declaration.child_by_field_name("type")
            if kind is None:
                continue
            base = self.base(declaration, kind)
            enum = kind.type == "enum_specifier" or text(kind) in self.enums
            for declarator in declaration.children_by_field_name("declarator"):
                inner = (
                    declarator.child_by_field_name("declarator")
                    if declarator.type == "init_declarator"
                    else declarator
                )
                stars = 0
                while inner is not None and inner.type == "pointer_declarator":
                    stars += 1
                    inner = inner.child_by_field_name("declarator")
                if inner is None or inner.type not in ("identifier", "field_identifier"):
                    continue
                if stars:
                    found[text(inner)] = f"{base} {'*' * stars}"
                elif enum:
                    found[text(inner)] = (
                        text(kind) if kind.type != "enum_specifier" else _enum_name(kind)
                    )
        return {name: kind for name, kind in found.items() if kind}


def _enum_name(kind: Node) -> str:
    """`enum mode` for `enum mode { ... }` or `enum mode`; nothing for an unnamed enum."""
    name = kind.child_by_field_name("name")
    return f"enum {text(name)}" if name is not None else ""


def _is_void_pointer(kind: str | None) -> bool:
    return kind is not None and " ".join(kind.replace("const", "").split()) == "void *"


def _casts(definition: Node, types: _CTypes, renamed: dict[str, str]) -> list[tuple[int, int, str]]:
    """Casts around each value C converts silently where C++ does not: a `void *` (a name
    declared so, a library call returning one, a `?:` with one arm) that initialises, is
    assigned to, returned as or passed as a pointer of another type; an integer stored into
    an `enum`."""
    body = definition.child_by_field_name("body")
    local = types.declared(
        [p for _, p in function_params(definition)]
        + ([d for d in walk(body) if d.type == "declaration"] if body is not None else [])
    )
    names = {**types.files, **local}
    returned = types.functions.get(function_name(definition) or "", (None, []))[0]

    def is_void(value: Node) -> bool:
        value = unwrap(value)
        if value.type == "identifier":
            return _is_void_pointer(names.get(text(value)))
        if value.type == "call_expression":
            callee = value.child_by_field_name("function")
            if callee is None:
                return False
            known = types.functions.get(text(callee))
            return text(callee) in _VOID_RESULTS or (
                known is not None and _is_void_pointer(known[0])
            )
        if value.type == "conditional_expression":
            arms = [value.child_by_field_name(f) for f in ("consequence", "alternative")]
            return any(a is not None and is_void(a) for a in arms)
        return False

    def target(node: Node | None) -> str | None:
        if node is None:
            return None
        node = unwrap(node)
        if node.type == "identifier":
            return names.get(text(node))
        if node.type == "field_expression":
            field = node.child_by_field_name("field")
            return types.members.get(text(field)) if field is not None else None
        return None

    sites: list[tuple[str | None, Node | None]] = []
    for node in walk(definition):
        if node.type == "init_declarator":
            declarator = node.child_by_field_name("declarator")
            while declarator is not None and declarator.type == "pointer_declarator":
                declarator = declarator.child_by_field_name("declarator")
            sites.append((target(declarator), node.child_by_field_name("value")))
        elif node.type == "assignment_expression" and text(node.children[1]) == "=":
            sites.append(
                (target(node.child_by_field_name("left")), node.child_by_field_name("right"))
            )
        elif node.type == "return_statement" and node.named_children:
            sites.append((returned, node.named_children[0]))
        elif node.type == "call_expression":
            callee = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            known = types.functions.get(text(callee)) if callee is not None else None
            if known is not None and arguments is not None:
                values = [a for a in arguments.named_children if a.type != "comment"]
                sites += list(zip(known[1], values, strict=False))
    edits: list[tuple[int, int, str]] = []
    for wanted, value in sites:
        if wanted is None or value is None or value.type == "initializer_list":
            continue
        pointer = wanted.endswith("*")
        if (pointer and not _is_void_pointer(wanted) and is_void(value)) or (
            not pointer and unwrap(value).type not in ("identifier", "cast_expression")
        ):
            shown = _renamed_words(wanted, renamed) if renamed else wanted
            edits += [
                (value.start_byte, value.start_byte, f"({shown})("),
                (value.end_byte, value.end_byte, ")"),
            ]
    return edits


_DEVICE_MIN_MAX = re.compile(r"\bstd::(min|max)\b(?=\s*[<(])")
"""`std::min(` / `std::max<int>(` in a kernel's code: the helpers' device versions instead."""

_HELPERS = (
    """\
/* ---- ParForge: the program's loops run as CUDA kernels ---- */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>
#define restrict __restrict__
/* std::min and std::max as a kernel may call them (the same results: the first of equals). */
template <class T> __host__ __device__ inline const T &pf_cuda_std_min(const T &a, const T &b) {
    return b < a ? b : a;
}
template <class T> __host__ __device__ inline const T &pf_cuda_std_max(const T &a, const T &b) {
    return a < b ? b : a;
}
template <class T, class C>
__host__ __device__ inline const T &pf_cuda_std_min(const T &a, const T &b, C less) {
    return less(b, a) ? b : a;
}
template <class T, class C>
__host__ __device__ inline const T &pf_cuda_std_max(const T &a, const T &b, C less) {
    return less(a, b) ? b : a;
}
/* Threads per block of every launch (the block folds take any size); evolution tries
   other powers of two. */
#define PF_CUDA_BLOCK """
    + str(BLOCK)
    + """
/* Most blocks a launch starts; the kernels' grid-stride loops take what is left. */
#define PF_CUDA_GRID """
    + str(GRID)
    + """
/* Histograms with few bins count per block in shared memory first (1) or straight into the
   bins in global memory (0); evolution tries the other. */
#define PF_CUDA_SHARED 1
#if PF_CUDA_SHARED
#define PF_CUDA_BINS(shared, global) shared
#else
#define PF_CUDA_BINS(shared, global) global
#endif
#define PF_CUDA_CHECK(call) pf_cuda_check((call), #call, __FILE__, __LINE__)
static inline void pf_cuda_check(cudaError_t status, const char *call, const char *file, int line) {
    if (status != cudaSuccess) {
        fprintf(stderr, "%s:%d: %s failed: %s\\n", file, line, call, cudaGetErrorString(status));
        exit(1);
    }
}
/* Heap memory the host and the device share (CUDA managed memory), with its size in front of
   it so that realloc can copy it; memory not allocated here is freed by the C library. */
#define PF_CUDA_MAGIC 0x5046435544414d4dULL
struct pf_cuda_block { unsigned long long magic, size; };
struct pf_cuda_pointer {
    void *p;
    template <class T> operator T *() const { return (T *)p; }
};
static inline pf_cuda_pointer pf_cuda_malloc(size_t size) {
    char *raw = NULL;
    PF_CUDA_CHECK(cudaMallocManaged((void **)&raw, size + 16));
    struct pf_cuda_block header = {PF_CUDA_MAGIC, size};
    memcpy(raw, &header, sizeof header);
    return pf_cuda_pointer{raw + 16};
}
static inline pf_cuda_pointer pf_cuda_calloc(size_t count, size_t size) {
    pf_cuda_pointer p = pf_cuda_malloc(count * size);
    memset(p.p, 0, count * size);
    return p;
}
/* Whether `p` came from pf_cuda_malloc: managed memory (CUDA says so: nothing before a block
   the C library allocated, `strdup`'s, is read) with the header in front of it. */
static inline int pf_cuda_ours(const void *p) {
    cudaPointerAttributes seen;
    if (cudaPointerGetAttributes(&seen, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (seen.type != cudaMemoryTypeManaged) return 0;
    struct pf_cuda_block header;
    memcpy(&header, (const char *)p - 16, sizeof header);
    return header.magic == PF_CUDA_MAGIC;
}
static inline void pf_cuda_free(void *p) {
    if (p == NULL) return;
    if (pf_cuda_ours(p)) PF_CUDA_CHECK(cudaFree((char *)p - 16));
    else free(p);
}
static inline pf_cuda_pointer pf_cuda_realloc(void *p, size_t size) {
    /* memory the C library allocated stays the C library's */
    if (p != NULL && !pf_cuda_ours(p)) return pf_cuda_pointer{realloc(p, size)};
    pf_cuda_pointer fresh = pf_cuda_malloc(size);
    if (p != NULL) {
        struct pf_cuda_block header;
        memcpy(&header, (char *)p - 16, sizeof header);
        memcpy(fresh.p, p, header.size < size ? header.size : size);
        pf_cuda_free(p);
    }
    return fresh;
}
/* The C library's heap behind the same conversions, for a program that hands its heap memory
   to a library function that reallocates it (`getline`). */
static inline pf_cuda_pointer pf_cuda_c_malloc(size_t size) { return pf_cuda_pointer{malloc(size)}; }
static inline pf_cuda_pointer pf_cuda_c_calloc(size_t count, size_t size) {
    return pf_cuda_pointer{calloc(count, size)};
}
static inline pf_cuda_pointer pf_cuda_c_realloc(void *p, size_t size) {
    return pf_cuda_pointer{realloc(p, size)};
}
static inline void pf_cuda_c_free(void *p) { free(p); }
/* Whether the device can read and write memory at `p`: managed or device memory, or any
   memory where the GPU and the system share page tables. */
static inline int pf_cuda_reachable(const void *p) {
    static int pageable = -1;
    if (pageable < 0) {
        int device = 0;
        PF_CUDA_CHECK(cudaGetDevice(&device));
        PF_CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
    }
    if (pageable || p == NULL) return 1;
    cudaPointerAttributes seen;
    if (cudaPointerGetAttributes(&seen, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return seen.type == cudaMemoryTypeManaged || seen.type == cudaMemoryTypeDevice;
}
/* A managed copy of `size` bytes at `data` (a C array or a container's elements), and back. */
static inline void *pf_cuda_copy_in(const void *data, size_t size) {
    void *copy = NULL;
    PF_CUDA_CHECK(cudaMallocManaged(&copy, size > 0 ? size : 1));
    if (size > 0) memcpy(copy, data, size);
    return copy;
}
static inline void pf_cuda_copy_out(const void *data, const void *copy, size_t size) {
    if (size > 0) memcpy((void *)data, copy, size);
}
/* The operators of reductions, and one atomic update of any 4- or 8-byte value with one. */
struct pf_cuda_plus { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
struct pf_cuda_times { template <class T> __device__ T operator()(T a, T b) const { return a * b; } };
struct pf_cuda_min { template <class T> __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
struct pf_cuda_max { template <class T> __device__ T operator()(T a, T b) const { return b > a ? b : a; } };
struct pf_cuda_and { template <class T> __device__ T operator()(T a, T b) const { return a & b; } };
struct pf_cuda_or { template <class T> __device__ T operator()(T a, T b) const { return a | b; } };
struct pf_cuda_xor { template <class T> __device__ T operator()(T a, T b) const { return a ^ b; } };
template <class T, class Op> __device__ void pf_cuda_update(T *cell, T value, Op op) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "a 4- or 8-byte value");
    if constexpr (sizeof(T) == 8) {
        unsigned long long *bits = (unsigned long long *)cell, seen = *bits, was;
        do {
            was = seen;
            T now, next;
            memcpy(&now, &was, 8);
            next = op(now, value);
            unsigned long long wanted;
            memcpy(&wanted, &next, 8);
            seen = atomicCAS(bits, was, wanted);
        } while (seen != was);
    } else {
        unsigned int *bits = (unsigned int *)cell, seen = *bits, was;
        do {
            was = seen;
            T now, next;
            memcpy(&now, &was, 4);
            next = op(now, value);
            unsigned int wanted;
            memcpy(&wanted, &next, 4);
            seen = atomicCAS(bits, was, wanted);
        } while (seen != was);
    }
}
/* Sums the hardware adds atomically itself. */
__device__ inline void pf_cuda_update(int *cell, int value, pf_cuda_plus) { atomicAdd(cell, value); }
__device__ inline void pf_cuda_update(unsigned *cell, unsigned value, pf_cuda_plus) { atomicAdd(cell, value); }
__device__ inline void pf_cuda_update(unsigned long long *cell, unsigned long long value, pf_cuda_plus) {
    atomicAdd(cell, value);
}
__device__ inline void pf_cuda_update(long long *cell, long long value, pf_cuda_plus) {
    atomicAdd((unsigned long long *)cell, (unsigned long long)value);
}
__device__ inline void pf_cuda_update(unsigned long *cell, unsigned long value, pf_cuda_plus) {
    static_assert(sizeof(unsigned long) == sizeof(unsigned long long), "LP64");
    atomicAdd((unsigned long long *)cell, (unsigned long long)value);
}
__device__ inline void pf_cuda_update(long *cell, long value, pf_cuda_plus) {
    static_assert(sizeof(long) == sizeof(unsigned long long), "LP64");
    atomicAdd((unsigned long long *)cell, (unsigned long long)value);
}
__device__ inline void pf_cuda_update(float *cell, float value, pf_cuda_plus) { atomicAdd(cell, value); }
__device__ inline void pf_cuda_update(double *cell, double value, pf_cuda_plus) { atomicAdd(cell, value); }
template <class T, class V, class Op> __device__ void pf_cuda_update(T *cell, V value, Op op) {
    pf_cuda_update(cell, (T)value, op);
}
/* A scan's operators, for CUB. */
struct pf_cuda_scan_plus {
    template <class T> __host__ __device__ T operator()(const T &a, const T &b) const { return a + b; }
};
struct pf_cuda_scan_times {
    template <class T> __host__ __device__ T operator()(const T &a, const T &b) const { return a * b; }
};
struct pf_cuda_scan_min { /* the earlier value where neither is less, as `if (x < m) m = x;` */
    template <class T> __host__ __device__ T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
struct pf_cuda_scan_max {
    template <class T> __host__ __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
/* Every thread's value of a reduction, combined in shared memory per block (a tree), then once
   per block into the cell. Every thread of the block calls it. */
template <class T, class Op> __device__ void pf_cuda_fold(T *cell, T mine, Op op) {
    __shared__ T part[PF_CUDA_BLOCK];
    __syncthreads();
    part[threadIdx.x] = mine;
    __syncthreads();
    unsigned half = 1; /* the largest power of two below the block's size: any size folds */
    while (2 * half < blockDim.x) half *= 2;
    for (; half > 0; half /= 2) {
        if (threadIdx.x < half && threadIdx.x + half < blockDim.x)
            part[threadIdx.x] = op(part[threadIdx.x], part[threadIdx.x + half]);
        __syncthreads();
    }
    if (threadIdx.x == 0) pf_cuda_update(cell, part[0], op);
}
/* An argmin's or argmax's pick: whether a thread (then a block) took a better value than the
   one before the loop, at which iteration, the value and the name taken with it. A pick beats
   another by value, and on a tie by the loop's own order: the earlier iteration for `<`/`>`,
   the later for `<=`/`>=`. */
template <class K, class P> struct pf_cuda_pick { int found; long long order; K best; P with; };
template <class K, class P>
__host__ __device__ inline bool pf_cuda_pick_beats(const pf_cuda_pick<K, P> &a,
                                                   const pf_cuda_pick<K, P> &b, bool min, bool strict) {
    if (!a.found) return false;
    if (!b.found) return true;
    if (min ? a.best < b.best : b.best < a.best) return true;
    if (min ? b.best < a.best : a.best < b.best) return false;
    return strict ? a.order < b.order : a.order > b.order;
}
/* Every thread's pick, the best of the block's found in shared memory (a tree), one per block
   into `picks`. Every thread of the block calls it. */
template <class K, class P>
__device__ void pf_cuda_pick_fold(pf_cuda_pick<K, P> *picks, bool found, long long order, K best,
                                  P with, bool min, bool strict) {
    __shared__ pf_cuda_pick<K, P> part[PF_CUDA_BLOCK];
    __syncthreads();
    part[threadIdx.x] = pf_cuda_pick<K, P>{found, order, best, with};
    __syncthreads();
    unsigned half = 1;
    while (2 * half < blockDim.x) half *= 2;
    for (; half > 0; half /= 2) {
        if (threadIdx.x < half && threadIdx.x + half < blockDim.x &&
            pf_cuda_pick_beats(part[threadIdx.x + half], part[threadIdx.x], min, strict))
            part[threadIdx.x] = part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) picks[blockIdx.x] = part[0];
}
template <class K, class P>
static inline pf_cuda_pick<K, P> *pf_cuda_picks_for(long long blocks, const K &, const P &) {
    pf_cuda_pick<K, P> *picks = NULL;
    PF_CUDA_CHECK(cudaMallocManaged((void **)&picks, (size_t)blocks * sizeof *picks));
    return picks;
}
/* The blocks' best pick, if any found one, into the host's names; the picks freed. */
template <class K, class P>
static inline void pf_cuda_picks_merge(pf_cuda_pick<K, P> *picks, long long blocks, K *best,
                                       P *with, bool min, bool strict) {
    pf_cuda_pick<K, P> kept = picks[0];
    for (long long b = 1; b < blocks; b++)
        if (pf_cuda_pick_beats(picks[b], kept, min, strict)) kept = picks[b];
    if (kept.found) {
        *best = kept.best;
        *with = kept.with;
    }
    PF_CUDA_CHECK(cudaFree(picks));
}
/* ---- the program ---- */
"""
)
