"""CUDA kernels in a test driver's signature, from a sequential function's loop facts.

ParEval-style CUDA tasks fix the kernel: its signature (`__global__ void axpy(double alpha,
const double *x, const double *y, double *z, size_t N)`) and a driver that copies the inputs to
the device, sets each scalar result to its operator's identity, launches the kernel and copies
back. The sequential function they start from takes vectors (`std::vector<double> const &x`)
and returns its result. `kernel` writes the kernel from the function where the analysis proves
its one loop:

- a map (iterations independent, each writing its own elements): every thread runs iterations
  of a grid-linear stride, so the kernel is right for whatever grid and block shape the driver
  launches (one thread per element, 2-D grids, fewer threads than elements);
- a scalar reduction the function returns (`T r = identity; for (...) r += ...; return r;`):
  each thread folds its iterations from the identity, a block's partials meet in a tree in
  shared memory, and the block's thread 0 combines them into the kernel's result pointer with
  one atomic operation (`atomicAdd`, or a compare-and-swap loop for `*`, min and max): one
  atomic per block, since one per thread serialises a launch of a thread per element on one
  address;
- a histogram into an array parameter (`bins[k]++`): each update an `atomicAdd`.

The kernel's pointers are the driver's separate device buffers, so the overlap checks the
analysis asks of the function's vectors (`&input != &output`) hold by its contract, and a
`std::vector<bool>` is a `bool *`: its elements are bytes of their own.

Names carry over: a vector parameter becomes the kernel's pointer of the same name (the
subscripts read alike), `x.size()` the kernel's one size parameter the function does not
have. Anything else (statements around the loop, calls other than math, another result
shape, a name the kernel does not take) gets no kernel, with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node

from agents.analysis.errors import AnnotationError
from agents.analysis.model import Loop, Program
from agents.analysis.offload import _histogram_updates as _offload_updates
from agents.analysis.offload import _reached
from agents.analysis.parse import (
    declared_name,
    function_definitions,
    function_name,
    function_params,
    parse_int,
    syntax_tree,
    text,
    walk,
)
from sandbox.spec import Language

_MATH = frozenset(
    {
        "sqrt", "sqrtf", "cbrt", "fabs", "fabsf", "abs", "labs", "llabs", "pow", "powf", "exp",
        "expf", "exp2", "log", "logf", "log2", "log10", "sin", "sinf", "cos", "cosf", "tan",
        "tanf", "atan", "atan2", "asin", "acos", "sinh", "cosh", "tanh", "floor", "floorf",
        "ceil", "ceilf", "round", "trunc", "fmod", "fmin", "fmax", "min", "max", "hypot"
    }
)  # fmt: skip
"""Calls a kernel may keep: CUDA's device math library has each (`std::` dropped)."""

_ATOMIC_TYPES = frozenset(
    {"int", "unsigned", "unsigned int", "long long", "unsigned long long", "size_t", "float",
     "double", "long", "unsigned long", "int64_t", "uint64_t", "int32_t", "uint32_t"}
)  # fmt: skip
"""Result types a device atomic (or a 4- or 8-byte compare-and-swap) can update."""

_IDENTITY = {"+": {"0", "0.0", "0.0f", "0.", "0u", "0ul", "0ull", "0l", "0ll"}}
"""Initial values the driver's result starts from for `+` (it sets the operator's identity);
`*` starts from 1, min and max from any value (folding it again changes nothing)."""


@dataclass(frozen=True)
class KernelParam:
    name: str
    type: str
    """The declared type without the name (`const double *`, `size_t`)."""
    pointer: bool


def signature_params(signature: str) -> tuple[str, list[KernelParam]]:
    """The kernel's name and parameters, from its declaration (`__global__ void f(...)`)."""
    plain = signature.replace("__global__", "").strip().rstrip("{;").strip()
    root = syntax_tree(plain + " {}", Language.CPP).root_node
    definition = next(function_definitions(root), None)
    if definition is None:
        raise AnnotationError(f"cannot read the kernel signature {signature!r}")
    params = []
    for name, node in function_params(definition):
        declarator = node.child_by_field_name("declarator")
        pointer = declarator is not None and declarator.type in (
            "pointer_declarator",
            "array_declarator",
        )
        whole = text(node)
        params.append(KernelParam(name, whole[: whole.rfind(name)].strip(), pointer))
    return function_name(definition), params


def kernel(source: str, program: Program, function: str, signature: str) -> str:
    """The kernel `signature` declares, doing what `function`'s loop does (see the module's
    text); AnnotationError says why there is none."""
    name, params = signature_params(signature)
    if name != function:
        raise AnnotationError(f"the kernel is {name}, not {function}")
    root = syntax_tree(source, program.language).root_node
    definition, statements, node, loop = _the_loop(root, program, function)
    serial_params = dict(function_params(definition))
    serial = set(serial_params)
    taken = sorted(
        {
            text(n)
            for n in walk(definition)
            if n.type in ("identifier", "field_identifier", "type_identifier")
            and text(n).startswith("pf_")
        }
    )
    if taken:
        raise AnnotationError(f"the function already uses the name {taken[0]}")
    dep = loop.dependence
    result = dep.reductions[0] if dep.reductions else None
    by_name = {p.name: p for p in params}
    # The statements around the loop: the result's declaration before it, its return after.
    before, after = statements[: statements.index(node)], statements[statements.index(node) + 1 :]
    initial = None
    copied: list[Node] = []
    for statement in before:
        declarator = statement.child_by_field_name("declarator")
        value = declarator.child_by_field_name("value") if declarator is not None else None
        if statement.type != "declaration" or value is None:
            raise AnnotationError(f"{function} does more than its loop: {text(statement)[:60]}")
        kind = statement.child_by_field_name("type")
        if result is not None and declared_name(declarator) == result.var:
            initial = (text(kind) if kind is not None else "", text(value))
        elif len(statement.children_by_field_name("declarator")) == 1 and _scalar(statement):
            copied.append(statement)  # `size_t n = x.size();`: every thread's own copy
            if declared_name(declarator) in {p.name for p in params}:
                # `size_t N = x.size();` where the kernel's N is that size: nothing to copy
                copied.pop()
                if not (
                    text(value).endswith(".size()")
                    and _is_size_param(declared_name(declarator), params, serial)
                ):
                    raise AnnotationError(
                        f"{declared_name(declarator)} is both a kernel parameter and a local"
                    )
        else:
            raise AnnotationError(f"{function} does more than its loop: {text(statement)[:60]}")
    returned = [
        text(s.named_children[0])
        for s in after
        if s.type == "return_statement" and s.named_children
    ]
    if len(after) != len(returned) or (result is not None and returned != [result.var]):
        raise AnnotationError(f"{function} does more after its loop than return its result")
    if result is None and returned and not dep.first_match:
        raise AnnotationError(f"{function} returns what its loop does not reduce")
    if dep.first_match and (len(returned) != 1 or not _exits_return_counter(node, loop)):
        raise AnnotationError(f"{function}'s search does not return the index it finds")
    # The names: the function's parameters the kernel takes, its size, its result pointer.
    extra = [p for p in params if p.name not in serial]
    sizes = [p for p in extra if not p.pointer and p.type in ("size_t", "int", "unsigned")]
    outputs = [p for p in extra if p.pointer]
    scope = [*copied, node]
    used = {text(n) for part in scope for n in walk(part) if n.type == "identifier"}
    missing = sorted((used & serial) - set(by_name))
    if missing:
        raise AnnotationError(f"the kernel does not take {missing[0]}")
    local = {
        name
        for part in scope
        for n in walk(part)
        if n.type in ("init_declarator", "declaration", "for_range_loop")
        for name in [declared_name(n.child_by_field_name("declarator"))]
        if name
    }
    callees = {
        text(c.child_by_field_name("function") or c).removeprefix("std::")
        for part in scope
        for c in walk(part)
        if c.type == "call_expression"
    }
    helpers = _helper_functions(root, callees - _MATH, function)
    if set(helpers) & set(by_name):
        raise AnnotationError(
            f"the kernel's parameter {sorted(set(helpers) & set(by_name))[0]} "
            "hides a function the loop calls"
        )
    outside = sorted(
        name
        for name in used - set(by_name) - local - callees - _MATH - _CONSTANTS - {loop.var}
        if not (result is not None and name == result.var)
    )
    if outside:
        raise AnnotationError(f"the loop uses {outside[0]}, which the kernel does not take")
    edits: list[tuple[int, int, str]] = []
    for call in (c for part in scope for c in walk(part)):
        if call.type != "call_expression":
            continue
        callee = call.child_by_field_name("function")
        if callee is None:
            continue
        if callee.type == "field_expression" and text(callee).endswith(".size"):
            owner = text(callee)[: -len(".size")]
            edits.append(
                (call.start_byte, call.end_byte, _size_of(owner, serial_params, by_name, sizes))
            )
            continue
        called = text(callee).removeprefix("std::")
        if called not in _MATH and called not in helpers:
            raise AnnotationError(f"the loop calls {text(callee)}, which a kernel cannot")
        if text(callee).startswith("std::"):
            edits.append((callee.start_byte, callee.end_byte, called))
    for field in (f for part in scope for f in walk(part) if f.type == "field_expression"):
        base, member = field.child_by_field_name("argument"), field.child_by_field_name("field")
        if (
            base is not None
            and member is not None
            and text(base) in by_name
            and by_name[text(base)].pointer
            and text(member) != "size"
        ):
            raise AnnotationError(f"the loop uses {text(field)}, which the kernel's pointer lacks")
    for histogram in dep.array_reductions:
        if histogram.op != "+" or histogram.var not in by_name:
            raise AnnotationError(f"the histogram {histogram.var} is not the kernel's")
    edits += _histogram_atomics(node, loop, by_name)
    combine = ""
    declare = ""
    if dep.first_match:
        # A search: each thread takes its iterations in order and stops at its first match,
        # folding that index into the result with a min; the driver starts the result at what
        # the function returns when nothing matches (`x.size()`: the kernel's size).
        if len(outputs) != 1 or _element(outputs[0]) not in _ATOMIC_TYPES:
            raise AnnotationError("cannot tell which kernel parameter holds the index")
        out = outputs[0]
        not_found = returned[0]
        owner = not_found.removesuffix(".size()").strip()
        declared_owner = text(serial_params[owner]) if owner in serial_params else ""
        if len(sizes) != 1 or not (
            not_found == sizes[0].name
            or (not_found.endswith(".size()") and "vector" in declared_owner)
        ):
            raise AnnotationError("the search's not-found value is not the kernel's size")
        for exit_node in _returns(node):
            found = text(exit_node.named_children[0])
            edits.append(
                (
                    exit_node.start_byte,
                    exit_node.end_byte,
                    f"{{ pf_cuda_fold_min({out.name}, ({_element(out)})({found})); return; }}",
                )
            )
    if result is not None:
        if len(outputs) != 1:
            raise AnnotationError("cannot tell which kernel parameter holds the result")
        out = outputs[0]
        element = _element(out)
        if element not in _ATOMIC_TYPES or initial is None:
            raise AnnotationError(f"no device atomic combines a {element} result")
        declared = " ".join(initial[0].replace("const", "").split())
        if _same_type(declared) != _same_type(element):
            # folding `double s` into an `int *` would convert every partial, not the total
            raise AnnotationError(f"the function's {declared} result is the kernel's {element}")
        start = initial[1].strip()
        if result.op == "+" and start not in _IDENTITY["+"]:
            raise AnnotationError(f"the sum starts from {start}, not the driver's 0")
        if result.op == "*" and start not in ("1", "1.0", "1.0f", "1."):
            raise AnnotationError(f"the product starts from {start}, not the driver's 1")
        if result.op not in ("+", "*", "min", "max"):
            raise AnnotationError(f"no device atomic for a {result.op} reduction")
        # Each thread's partial starts from the identity, or for min and max from the value
        # the result holds (the driver's start or partials folded in: folding it again
        # changes nothing); the function's name for it may be the kernel's result pointer's.
        identity = {"+": f"({element})0", "*": f"({element})1"}.get(
            result.op, f"*(volatile {element} *){out.name}"
        )
        declare = f"    {element} pf_r = {identity};\n"
        fold = f"pf_cuda_fold_{_OP_NAMES[result.op]}({out.name}, pf_r);"
        if _returns(node) or any(n.type in ("break_statement", "goto_statement") for n in walk(node)):
            combine = f"    {fold}\n"  # threads leave at different points: no barrier
        else:
            # Every thread of a block reaches here: the block's partials meet in a tree in
            # shared memory, and one atomic per block folds the block's into the result.
            combine = (
                f"    pf_r = pf_cuda_block_fold(pf_r, pf_cuda_{_OP_NAMES[result.op]}_f());\n"
                f"    if (pf_lane == 0) {fold}\n"
            )
        edits += [
            (n.start_byte, n.end_byte, "pf_r")
            for n in walk(node)
            if n.type == "identifier" and text(n) == result.var
        ]
    body_node = node.child_by_field_name("body")
    assert body_node is not None
    inner = _rewrite(body_node, edits)
    setup = "".join(f"    {_rewrite(d, edits)}\n" for d in copied)
    device = "".join(f"__host__ __device__ {_device_math(helpers[h])}\n" for h in helpers)
    types = "".join(_type_definitions(root))
    if node.type == "for_range_loop":
        # `for (auto const &e : x)`: the element of the kernel's pointer x, one per iteration.
        ranged = node.child_by_field_name("declarator")
        over = loop.range_over or ""
        if over not in by_name or not by_name[over].pointer or len(sizes) != 1 or ranged is None:
            raise AnnotationError("the loop runs over a range the kernel does not take whole")
        first, upper, plus = "0", sizes[0].name, ""
        paren = next(c for c in node.children if c.type == "(")
        whole = node.text or b""
        span = whole[paren.end_byte - node.start_byte : ranged.end_byte - node.start_byte]
        named = span.decode().strip()
        each = f"{named} = {loop.range_over}[pf_first + (long long)pf_k];"
    else:
        upper = _rewrite_span(node.child_by_field_name("condition"), edits, loop.upper or "")
        upper = _upper_of(upper, loop)
        counter = loop.counter_type or "long long"
        first, plus = _first_of(node, edits, loop), " + 1" if loop.test == "<=" else ""
        each = f"{counter} {loop.var} = ({counter})(pf_first + (long long)pf_k);"
    text_sig = signature.strip().rstrip("{;").strip()
    if "__global__" not in text_sig:
        text_sig = "__global__ " + text_sig
    written = inner + setup + device
    if "std::" in written or "vector" in device or "string" in device:
        raise AnnotationError("the loop builds or takes C++ library objects no kernel can")
    return (
        _HELPERS
        + types
        + device
        + f"/* {function}: the sequential loop as a kernel. Every thread of whatever grid the "
        "driver launches runs\n   iterations pf_t, pf_t + pf_threads, ... of the loop. */\n"
        f"{text_sig} {{\n"
        f"{setup}"
        "    const unsigned long long pf_threads = (unsigned long long)gridDim.x * gridDim.y * "
        "gridDim.z * blockDim.x * blockDim.y * blockDim.z;\n"
        "    const unsigned long long pf_block = blockIdx.x + (unsigned long long)gridDim.x * "
        "(blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);\n"
        "    const unsigned pf_lane = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
        "threadIdx.z);\n"
        "    const unsigned long long pf_t = pf_block * blockDim.x * blockDim.y * blockDim.z + "
        "pf_lane;\n"
        f"    const long long pf_first = (long long)({first});\n"
        f"    const long long pf_count = (long long)({upper}){plus} - pf_first;\n"
        f"{declare}"
        "    for (unsigned long long pf_k = pf_t; (long long)pf_k < pf_count; pf_k += pf_threads) {\n"
        f"        {each}\n"
        f"        {inner}\n"
        "    }\n"
        f"{combine}"
        "}\n"
    )


_TYPE_NODES = frozenset(
    {"struct_specifier", "class_specifier", "union_specifier", "enum_specifier",
     "type_definition", "alias_declaration"}
)  # fmt: skip


def _type_definitions(root: Node) -> list[str]:
    """The source's own types (`struct Point {...};`), which the kernel's signature and the
    driver name and the candidate defines, as the CUDA prompt does."""
    found = []
    for node in root.named_children:
        inner = node.child_by_field_name("type") if node.type == "declaration" else node
        if node.type in _TYPE_NODES or (
            node.type == "declaration"
            and inner is not None
            and inner.type in _TYPE_NODES
            and node.child_by_field_name("declarator") is None
        ):
            body = text(node)
            found.append(body if body.rstrip().endswith(";") else body + ";")
            found.append("\n")
    return found


def _scalar(declaration: Node) -> bool:
    """A declaration of one number (`size_t n = ...`, `const double h = ...`)."""
    kind = declaration.child_by_field_name("type")
    declarator = declaration.child_by_field_name("declarator")
    if kind is None or declarator is None or declarator.type != "init_declarator":
        return False
    return kind.type in ("primitive_type", "sized_type_specifier") or text(kind) in (
        "size_t",
        "int64_t",
        "uint64_t",
    )


def _helper_functions(root: Node, names: set[str], function: str) -> dict[str, Node]:
    """The source's functions the loop calls (and those they call), in source order, when
    each calls only device math and the others: they are compiled for the device too."""
    defined = {function_name(d): d for d in function_definitions(root)}
    found = _reached(root, sorted(names))
    if function in found:
        return {}
    for name in found:
        for call in walk(defined[name]):
            callee = (
                call.child_by_field_name("function") if call.type == "call_expression" else None
            )
            called = text(callee).removeprefix("std::") if callee is not None else ""
            if callee is not None and called not in found and called not in _MATH:
                return {}
    return {name: node for name, node in defined.items() if name in found}


def kernel_loop(source: str, program: Program, function: str) -> Loop:
    """The loop of `function` that `kernel` would run on the device (AnnotationError: none)."""
    root = syntax_tree(source, program.language).root_node
    return _the_loop(root, program, function)[3]


def _the_loop(root: Node, program: Program, function: str) -> tuple[Node, list[Node], Node, Loop]:
    """`function`'s definition, its body's statements, its one loop's node and facts."""
    definition = next((d for d in function_definitions(root) if function_name(d) == function), None)
    if definition is None:
        raise AnnotationError(f"no function {function} in the source")
    body = definition.child_by_field_name("body")
    if body is None:
        raise AnnotationError(f"{function} has no body")
    statements = [s for s in body.named_children if s.type != "comment"]
    fors = [s for s in statements if s.type in ("for_statement", "for_range_loop")]
    if len(fors) != 1:
        raise AnnotationError(f"{function} has {len(fors)} top-level loops, not one")
    node = fors[0]
    loop = next((x for x in program.loops if (x.line - 1, x.column) == node.start_point), None)
    if loop is None:
        raise AnnotationError("the analysis has no facts for the loop")
    _check_loop(loop)
    return definition, statements, node, loop


_OP_NAMES = {"+": "plus", "*": "times", "min": "min", "max": "max"}


def _returns(loop: Node) -> list[Node]:
    """The `return` statements in a loop's body (outside lambdas)."""
    found = []
    stack = list(loop.named_children)
    while stack:
        node = stack.pop()
        if node.type == "lambda_expression":
            continue
        if node.type == "return_statement":
            found.append(node)
        stack.extend(node.named_children)
    return found


def _exits_return_counter(loop: Node, facts: Loop) -> bool:
    """Whether the loop leaves only by `return <counter>;` (a search for the first index)."""
    exits = _returns(loop)
    leaves = [n for n in walk(loop) if n.type in ("break_statement", "goto_statement")]
    return (
        bool(exits)
        and not leaves
        and all(
            len(e.named_children) == 1 and text(e.named_children[0]) == facts.var for e in exits
        )
    )


def _check_loop(loop: Loop) -> None:
    dep = loop.dependence
    if loop.range_over is None:
        if not loop.canonical or loop.var is None or loop.lower is None or loop.upper is None:
            raise AnnotationError("the loop is not a counted for loop")
        if loop.test not in ("<", "<=") or loop.stride not in (None, 1):
            raise AnnotationError("the loop does not count up by one")
        if loop.counter_type in (None, "auto"):
            raise AnnotationError("the loop's counter is not declared in its header")
    if dep.kind not in ("independent", "reduction") and not dep.first_match:
        raise AnnotationError(f"the analysis does not prove the loop ({dep.reason})")
    if (
        dep.lastprivate
        or dep.last_assigned
        or dep.best_updates
        or dep.scan is not None
        or len(dep.reductions) > 1
    ):
        raise AnnotationError("the loop's result is not a map, one reduction or a histogram")


def _histogram_atomics(
    node: Node, loop: Loop, by_name: dict[str, KernelParam]
) -> list[tuple[int, int, str]]:
    """The histogram updates `offload` finds (`bins[k]++`, `--`, `+= v`, `-= v`) as atomic
    additions into the kernel's bins; an amount other than an integer literal only into
    floating-point bins (an atomic adds the amount converted first, the sequential `+=`
    converts the sum)."""
    edits = []
    for statement, element, value, op in _offload_updates(node, loop):
        array = element.partition("[")[0].strip()
        if op != "+" or array not in by_name:
            raise AnnotationError(f"the histogram {array} is not the kernel's")
        literal = parse_int(value.lstrip("-").strip("()")) is not None
        if not literal and _element(by_name[array]) not in ("double", "float"):
            raise AnnotationError(f"{text(statement)} adds a computed amount to integer bins")
        edits.append(
            (statement.start_byte, statement.end_byte, f"pf_cuda_fold_plus(&{element}, {value});")
        )
    return edits


def _device_math(definition: Node) -> str:
    """A helper function's text with `std::` dropped from its math calls."""
    edits = []
    for call in walk(definition):
        callee = call.child_by_field_name("function") if call.type == "call_expression" else None
        if callee is not None and text(callee).startswith("std::"):
            bare = text(callee).removeprefix("std::")
            if bare in _MATH:
                edits.append((callee.start_byte, callee.end_byte, bare))
    return _rewrite(definition, edits)


def _element(param: KernelParam) -> str:
    """The element type of a pointer or array parameter (`const size_t *` -> `size_t`)."""
    return " ".join(param.type.replace("const", "").replace("*", "").split())


_SAME = {"unsigned": "unsigned int", "long": "long int", "size_t": "unsigned long",
         "unsigned long": "unsigned long", "long long": "long long", "uint64_t": "unsigned long",
         "int64_t": "long", "uint32_t": "unsigned int", "int32_t": "int"}  # fmt: skip


def _same_type(name: str) -> str:
    return _SAME.get(name, name)


_CONSTANTS = frozenset(
    {"M_PI", "M_E", "M_SQRT2", "INT_MAX", "INT_MIN", "UINT_MAX", "LLONG_MAX", "LLONG_MIN",
     "ULLONG_MAX", "SIZE_MAX", "DBL_MAX", "DBL_MIN", "DBL_EPSILON", "FLT_MAX", "FLT_MIN",
     "FLT_EPSILON", "INFINITY", "NAN", "NULL"}
)  # fmt: skip
"""Constants of the C library's headers a kernel may name (the driver includes them)."""


def _is_size_param(name: str | None, params: list[KernelParam], serial: set[str]) -> bool:
    return any(p.name == name and not p.pointer and p.name not in serial for p in params)


def _size_of(
    owner: str,
    serial_params: dict[str, Node],
    by_name: dict[str, KernelParam],
    sizes: list[KernelParam],
) -> str:
    """What `owner.size()` is in the kernel: a `std::array`'s length (the kernel's array
    parameter says it), or for a vector the kernel's one size parameter."""
    declared = text(serial_params[owner]) if owner in serial_params else ""
    param = by_name.get(owner)
    if "std::array" in declared:
        match = re.search(r",\s*(\w+)\s*>", declared)
        if match is None:
            raise AnnotationError(f"cannot read the length of {owner}")
        return f"(size_t)({match.group(1)})"
    if param is None or not param.pointer or "vector" not in declared:
        raise AnnotationError(f"{owner}.size() is not the size of a vector the kernel takes")
    if len(sizes) != 1:
        raise AnnotationError("cannot tell which kernel parameter is the vector's size")
    return f"(size_t)({sizes[0].name})"


def _first_of(node: Node, edits: list[tuple[int, int, str]], loop: Loop) -> str:
    """The loop's first counter value, with the rewrites inside it (`x.size() / 2`)."""
    init = node.child_by_field_name("initializer")
    declarator = init.child_by_field_name("declarator") if init is not None else None
    value = declarator.child_by_field_name("value") if declarator is not None else None
    return _rewrite_span(value, edits, loop.lower or "")


def _rewrite(node: Node, edits: list[tuple[int, int, str]]) -> str:
    return _rewrite_span(node, edits, text(node))


def _rewrite_span(node: Node | None, edits: list[tuple[int, int, str]], fallback: str) -> str:
    if node is None:
        return fallback
    raw = node.text or b""
    inside = [e for e in edits if node.start_byte <= e[0] and e[1] <= node.end_byte]
    for begin, end, new in sorted(inside, key=lambda e: e[0], reverse=True):
        raw = raw[: begin - node.start_byte] + new.encode() + raw[end - node.start_byte :]
    return raw.decode()


def _upper_of(condition: str, loop: Loop) -> str:
    """The bound of a rewritten `i < bound` test."""
    match = re.match(rf"\s*{re.escape(loop.var or '')}\s*<=?\s*(.+)$", condition, re.S)
    if match is None:
        raise AnnotationError(f"cannot read the loop's bound from {condition!r}")
    return match.group(1)


_HELPERS = """\
/* Device atomics of the kernel's results: additions where CUDA has them, compare-and-swap
   loops otherwise (and for 8-byte integers, whose addition is that of their bits). */
#include <cstring>
#include <type_traits>
__device__ inline void pf_cuda_add(int *a, int v) { atomicAdd(a, v); }
__device__ inline void pf_cuda_add(unsigned *a, unsigned v) { atomicAdd(a, v); }
__device__ inline void pf_cuda_add(float *a, float v) { atomicAdd(a, v); }
__device__ inline void pf_cuda_add(double *a, double v) { atomicAdd(a, v); }
template <class T> __device__ inline void pf_cuda_add(T *a, T v) {
    static_assert(std::is_integral<T>::value && sizeof(T) == 8, "an 8-byte integer");
    atomicAdd((unsigned long long *)a, (unsigned long long)v);
}
template <class T, class V> __device__ inline void pf_cuda_fold_plus(T *a, V v) {
    pf_cuda_add(a, (T)v);
}
template <class T, class F> __device__ inline void pf_cuda_fold_cas(T *a, T v, F f) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "a 4- or 8-byte result");
    typedef typename std::conditional<sizeof(T) == 4, unsigned, unsigned long long>::type W;
    W *word = (W *)a, seen = *word, want;
    do {
        want = seen;
        T now, next;
        memcpy(&now, &want, sizeof(T));
        next = f(now, v);
        W bits;
        memcpy(&bits, &next, sizeof(T));
        seen = atomicCAS(word, want, bits);
    } while (seen != want);
}
struct pf_cuda_plus_f { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
struct pf_cuda_times_f { template <class T> __device__ T operator()(T a, T b) const { return a * b; } };
struct pf_cuda_min_f { template <class T> __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
struct pf_cuda_max_f { template <class T> __device__ T operator()(T a, T b) const { return a < b ? b : a; } };
/* A block's partials folded in a tree in shared memory (any block size CUDA allows, every
   thread of the block calling): the block's fold, for its thread 0. */
template <class T, class F> __device__ inline T pf_cuda_block_fold(T v, F f) {
    __shared__ T pf_part[1024];
    const unsigned n = blockDim.x * blockDim.y * blockDim.z;
    const unsigned i = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned half = 1;
    while (2 * half < n) half *= 2;
    pf_part[i] = v;
    __syncthreads();
    for (; half > 0; half /= 2) {
        if (i < half && i + half < n) pf_part[i] = f(pf_part[i], pf_part[i + half]);
        __syncthreads();
    }
    return pf_part[0];
}
template <class T> __device__ inline void pf_cuda_fold_times(T *a, T v) { pf_cuda_fold_cas(a, v, pf_cuda_times_f()); }
template <class T> __device__ inline void pf_cuda_fold_min(T *a, T v) { pf_cuda_fold_cas(a, v, pf_cuda_min_f()); }
template <class T> __device__ inline void pf_cuda_fold_max(T *a, T v) { pf_cuda_fold_cas(a, v, pf_cuda_max_f()); }
"""
