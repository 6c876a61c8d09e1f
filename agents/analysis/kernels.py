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
- a scalar reduction the function returns (`T r = start; for (...) r += ...; return r;`):
  each thread folds its iterations from the operator's identity, a block's partials meet in a
  tree in shared memory, the block's thread 0 folds them into a device total with one atomic
  operation (`atomicAdd`, or a compare-and-swap loop for `*`, min and max: one per block, since
  one per thread serialises a launch of a thread per element on one address), and the block
  that ends last writes the function's start folded with the total into the result pointer,
  so whatever value the driver starts the result from takes no part;
- a histogram into an array parameter (`bins[k]++`): each update an `atomicAdd`;
- a first-index search (`if (...) return i;` then `return x.size();`, or any other value
  where nothing matches, `-1`): each thread stops at its first match, the blocks' first
  matches meet in a device minimum and the block that ends last writes it, or the value for
  none, whatever the driver started the result from; the last index a
  conditional assignment keeps (`if (...) last = i;`) and an argmin or argmax (`if (d < best)
  { best = d; at = i; }`), the last two written by the block that ends last;
- a scan (a prefix sum `y[i] = y[i - 1] + x[i]`, a running minimum `m = min(m, x[i]); x[i] =
  m;`): blocks take tiles of the iterations in ticket order, each totals its tile, waits for
  the running value the tile before passes on, passes its own and runs the body over its tile
  from it (`_scan_tiles`; one launch, no scratch memory, no launch order that can deadlock);
  a reduction of the running values may come along (`sum += y[i];`, folded in the tiles'
  second pass), and a recurrence's array may be the function's own (`std::vector<double>
  y(n);`, its elements the running value: no array on the device);
- loops that must run one after another (loops in turn, `y[i] *= beta;` then `y[row] +=
  ...`, a sum then a map dividing by it, with scalar steps between them, `m = m / n;`; or
  the map and histogram loops an outer loop runs in turn per iteration, an LU's row and
  column for each pivot, an element's store between them by one thread): blocks take seats while seating is open, take tiles of each loop and meet at a
  grid barrier after it, which closes seating, so only running blocks ever wait (`PHASES`);
  a reduction's total goes through a device variable into every thread's own copy. Between
  them one seated thread runs what the analysis does not prove (a pivot's search, a row
  swap, a back substitution, a scatter whose last write wins: `_one_thread`) while the others
  wait at the barrier after it, and passes the scalars it assigns on through device words;
  only where a deeper loop nest runs across the threads (else the launch would run at one
  thread's speed; a stack's pops inside the loop that pushes, `_pops`, count as no loop, a
  sorting network as more than one). The function's vectors (`std::vector<double> M(N * N,
  0.0)`, a copy `A_copy(A)`) are the kernel's own arrays in a static device store, filled in
  tiles (histograms into them atomic, one sorted whole a bitonic network's steps); a guard
  that throws unless a vector has a size (`if (A.size() != N * N) throw ...;`) gives that
  size (a kernel throws nothing: the driver's arrays are the right size), and a guard that
  reads only copies' sizes, among the vectors' declarations, runs first. One loop with such
  statements or vectors around it, a map, a histogram or a reduction, runs so too.

A function that only returns standard algorithms' results (`std::find(...) != x.end()`,
`std::count`, `std::count_if` with a one-line lambda, `std::accumulate`, `*std::max_element`,
`*std::min_element`, or an expression of several: `find(x) != end ^ find(y) != end`) is
first written as the loops the algorithms run, as is each statement that is one
`std::transform`, `std::for_each` (its element by reference), `std::fill` or `std::iota` over a
whole vector (`_statement_algorithms`). A function that only sorts a vector it
takes (`std::sort(x.begin(), x.end(), order)`) becomes a sorting network in one launch, its
steps meeting at the grid barrier of loops in phases (`_sort_kernel`); one that returns one
element of a sorted copy (`y = x; sort(y); return y[k - 1];`) selects it bit by bit of an
order-keeping key, a count per bit, without sorting (`_select_kernel`); one that sorts only
the elements a test selects, among their own places (`_placed_sort_kernel`), holds them in
the device heap for the launch and sorts them with the same network; one that only queries
a sorted copy (a lower or upper bound's index, a binary search) counts over the input instead
(`_sorted_queries`); a map filled from a vector and only read by key is read as searches of
that vector (`_map_lookups`). One that walks a graph with a worklist or by recursion, to count its
components, find the largest or a breadth-first distance, becomes levels of a breadth-first
search (`agents.analysis.traversal`).

`std::complex<T>` is the kernel's own complex type (`_COMPLEX`: the library's operators and
functions, laid out as the driver's `cuDoubleComplex`, whose pointers it views as that type);
a type's `std::string` member is the device's `const char *` where the kernel reads no member
of its name.

Iteration k runs where the loop's own test, in its own types, holds for the first iteration
and for k: the sequential loop's iterations, whatever its bound's type (`i < n / 2.0`) or its
signed and unsigned mix (`int i = -1; i < x.size()` runs none). Guards before the loop
(`if (x.size() < 2) return 0;`) run in every thread, thread 0 writing the answer; code before
the loop may not read an array the loop writes (other threads may have written it).

The kernel's pointers are the driver's separate device buffers, so the overlap checks the
analysis asks of the function's vectors (`&input != &output`) hold by its contract, and a
`std::vector<bool>` is a `bool *`: its elements are bytes of their own.

Some spellings are first written as the forms above: several reductions of one loop (`s +=
v; sq += v * v;`) each fold to a total of their own, the return's expression of them written
once (with scalars declared between the loop and the return); a vector the function returns
is the kernel's output, filled first (`_returned_vector`); `i + 1 < x.size()` is a test of
the counter alone (`_offset_tests`); `x[i] = max(x[i], x[i - 1])` is a scan with a running
value (`_in_place_recurrences`); an index kept in a local and the loop left with `break` is
a search (`_index_exit`); `std::accumulate` with an operation is its reduction; a loop by
iterator is its counted loop (`_iterator_loops`).

Names carry over: a vector parameter becomes the kernel's pointer of the same name (the
subscripts read alike), `x.size()` the kernel's one size parameter the function does not
have, or where it has several, the one named for the vector (`Nx`, `sizeA`). The source's helpers come along as `__host__ __device__`
functions under names of their own (`pf_fn_`), its constants in constant memory, its types
(without methods). Anything else (statements around the loop, calls other than math,
overloaded helpers, another result shape, a name the kernel does not take) gets no kernel,
with the reason.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node

from agents.analysis.distribute import _for_node
from agents.analysis.errors import AnnotationError
from agents.analysis.launch import (
    DONE,
    HELPERS,
    PHASES,
    PROMOTED,
    TILE_ITEMS,
    KernelParam,
    global_definition,
    seated,
    signature_params,
)
from agents.analysis.model import Dependence, Loop, Program
from agents.analysis.offload import _FLOATING, _INTEGRAL, _reached
from agents.analysis.offload import _histogram_updates as _offload_updates
from agents.analysis.offload import _plain as _number_type
from agents.analysis.parse import (
    JUMPS,
    body_statements,
    canon,
    declared_name,
    function_definitions,
    function_name,
    function_params,
    mentions,
    parse_int,
    root_of,
    syntax_tree,
    text,
    tokens,
    unwrap,
    walk,
)
from agents.analysis.purity import is_pure
from agents.analysis.reductions import match_pack, match_recurrence, previous_of, shifted
from agents.analysis.traversal import traversal_kernel
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
_DEVICE_NAMED = {"clamp": "pf_clamp", "swap": "pf_swap"}
"""Library calls the kernels' helpers (`launch.HELPERS`) define under a name of their own."""

_ATOMIC_TYPES = frozenset(
    {"int", "unsigned", "unsigned int", "long long", "unsigned long long", "size_t", "float",
     "double", "long", "unsigned long", "int64_t", "uint64_t", "int32_t", "uint32_t"}
)  # fmt: skip
"""Result types a device atomic (or a 4- or 8-byte compare-and-swap) can update."""


def kernel(source: str, program: Program, function: str, signature: str) -> str:
    """The kernel `signature` declares, doing what `function`'s loop does (see the module's
    text); AnnotationError says why there is none."""
    name, params = signature_params(signature)
    if name != function:
        raise AnnotationError(f"the kernel is {name}, not {function}")
    _check_what_it_changes(source, program, function, params)
    source, program = _order_spellings(source, program, function)
    source, program = _plain_iterators(source, program, function)
    source, program = _returned_vector(source, program, function, params)
    whole = _sort_kernel(source, program, function, signature)
    whole = whole if whole is not None else _select_kernel(source, program, function, signature)
    whole = (
        whole if whole is not None else _placed_sort_kernel(source, program, function, signature)
    )
    walked = _function_body(source, program, function) if whole is None else None
    if walked is not None:
        whole = traversal_kernel(walked[1], walked[3], signature)
    if whole is not None:
        return whole
    source, program = _lowered(source, program, function)
    source, program = _outputs_named_apart(source, program, function, params)
    root = syntax_tree(source, program.language).root_node
    definition, statements, phases, alone = _the_loops(root, program, function)
    if "vector" in text(definition.child_by_field_name("type") or definition.children[0]):
        # a vector returned otherwise than `_returned_vector` takes (another way out)
        raise AnnotationError(f"{function} returns a vector, which no kernel's output is")
    node, loop = phases[0].node, phases[0].loop
    serial_params = dict(function_params(definition))
    phased = len(phases) > 1 or phases[0].outer is not None or bool(alone)
    if not phased and _one_thread_around(statements, phases[0], serial_params, params):
        # the one loop (a map, a histogram or a reduction) with one thread's statements
        # before or after it: a loop in phases
        phased = True
    """Loops that must run one after another (`y[i] *= beta;` before `y[row] += a * x[col];`),
    or the one loop an outer loop's iterations run in turn (`for (i ...) for (j ...)`): the
    kernel's seated blocks meet at a barrier between them (`PHASES`)."""
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
    result = dep.reductions[0] if dep.reductions and not phased else None
    by_name = {p.name: p for p in params}
    kept = () if phased else _kept(dep)
    """The names the one loop keeps for the return (loops in phases keep their reductions'
    totals in every thread's own copy: `_phased_work`)."""
    # The statements around the loop: guards and declarations before it, its return after.
    tops = [p.top for p in phases]
    vectors = (
        {s: v for s in statements if (v := _declared_vector(s, serial_params)) is not None}
        if phased
        else {}
    )
    """Vectors the function declares, where its loops run in phases: the kernel's own arrays."""
    marks = [statements.index(s) for s in [*tops, *vectors, *alone] if s in statements]
    first, last = min(marks), max(statements.index(t) for t in [*tops, *alone] if t in statements)
    if phased:
        # one thread's statements before the first loop (`while (p < n) p *= 2;`) and after
        # the last one, before the return (`y[0] = total;`), run in their order as well
        ahead = next(
            (
                at
                for at, st in enumerate(statements[:first])
                if st.type != "declaration" and not _guarding(st, serial_params)
            ),
            first,
        )
        first = ahead if _one_thread(statements[ahead]) is None else first
        tail = statements[last + 1 :]
        while tail and tail[-1].type == "return_statement":
            tail = tail[:-1]
        if all(
            _scalar_step(st) or (st.type != "declaration" and _one_thread(st) is None)
            for st in tail
        ):
            last += len(tail)
    before, after = statements[:first], statements[last + 1 :]
    steps: list[Node] = []
    """Scalar statements between loops run in phases (`m = m / x.size();`, `int hi = 0;`):
    every seated thread runs them on its own copies, after the barrier."""
    singles: list[Node] = [a for a in alone if a in statements]
    """Statements between loops run in phases that one thread runs (`_one_thread`): loops the
    analysis does not prove, an element's store, a pivot's swap."""
    hoisted = _hoisted_guards(statements[first : last + 1], vectors) if phased else []
    """Guards among the vectors and their sorts, before any loop (`if (p.size() < 2) return
    0.0;` after a copy's sort), that read only sizes: they run first, as the guards before."""
    sorts: dict[Node, str] = {}
    """Sorts of the function's own vectors between its loops (`std::sort(p.begin(), p.end(),
    order)`): a sorting network's steps, across the threads."""
    for between in statements[first : last + 1]:
        if between in tops or between in vectors or between in singles or between in hoisted:
            continue
        if _resizes_output(between, by_name, serial_params):
            continue
        sorted_over = _sorted_whole(between) if phased else None
        if sorted_over is not None and sorted_over in {v.name for v in vectors.values()}:
            sorts[between] = sorted_over
        elif _scalar_step(between):
            steps.append(between)
        elif phased and _one_thread(between) is None:
            singles.append(between)
        else:
            raise AnnotationError(f"{function} does more between its loops: {text(between)[:60]}")
    for lone in singles:
        why = _one_thread(lone)
        if why is not None:
            raise AnnotationError(f"one thread cannot run {text(lone)[:60]}: {why}")
    inner_singles = [
        st
        for outer in dict.fromkeys(p.outer for p in phases if p.outer is not None)
        for st in _outer_body(outer)
        if st not in [p.node for p in phases] and not _scalar_step(st)
    ]
    deepest = max(
        [_loop_depth(p.node) + (p.outer is not None) for p in phases] + [1.5] * len(sorts)
    )  # a sorting network's work grows faster than its length: more than one loop's
    for lone in [*singles, *inner_singles]:
        if _loop_depth(lone) + (lone in inner_singles) >= deepest:
            # the deepest loop nest one thread's: the launch would be as slow as one thread
            raise alone.get(lone) or AnnotationError(
                f"{function} does more between its loops than one thread may run: {text(lone)[:60]}"
            )
    starts: dict[str, tuple[str, Node]] = {}
    """The declared type and first value of each name the loop keeps (the result, an argmin's
    best value and index)."""
    copied: list[Node] = []
    guards: list[Node] = []
    scan = dep.scan
    scan_start: Node | None = None
    """The value a scan's running value starts from (`float m = x[0];`, or the element a
    recurrence's first iteration reads, `y[0] = x[0];`)."""
    scan_store: Node | None = None
    scanned: str | None = None
    """The element type of a local array that only the scan's recurrence writes
    (`std::vector<double> y(x.size());`): the kernel keeps no array, its elements are the
    running value (`_ScanParts.scanned`)."""
    aliases = {p.name for p in params if _is_size_param(p.name, params, serial)}
    """Names of the kernel's size: its size parameters, locals declared as a vector's size."""
    known: dict[str, Node] = {}
    """Sizes a guard that throws otherwise gives (`if (A.size() != N * N) throw ...;`): the
    driver's arrays have them (a kernel throws nothing), so the guard is the size's word."""
    for statement in before:
        if _guard(statement):
            guards.append(statement)  # `if (x.size() < 2) return 0;`: the same for every thread
            continue
        asked = _size_guard(statement, serial_params) if phased else None
        if asked is not None:
            known.update(asked)
            continue
        if _resizes_output(statement, by_name, serial_params, aliases):
            continue  # `y.resize(x.size());`: the driver's buffer has the kernel's size already
        local_array = _local_vector(statement)
        if (
            scan is not None
            and scan.recurrence
            and scan.var not in by_name
            and local_array is not None
            and local_array[0] == scan.var
        ):
            scanned = local_array[1]
            continue
        if scan is not None and scan.recurrence and not scan.first and scan_store is None:
            stored = _stored_before(statement, scan.var, loop)
            if stored is not None:
                scan_store, scan_start = statement, stored  # thread 0 stores it, tile 0 starts
                continue
        declarator = statement.child_by_field_name("declarator")
        value = declarator.child_by_field_name("value") if declarator is not None else None
        if statement.type != "declaration" or value is None:
            raise AnnotationError(f"{function} does more than its loop: {text(statement)[:60]}")
        kind = statement.child_by_field_name("type")
        single = len(statement.children_by_field_name("declarator")) == 1
        if declared_name(declarator) in kept and single:
            starts[declared_name(declarator) or ""] = (_start_type(kind, value), value)
        elif scan is not None and declared_name(declarator) == scan.var and single:
            starts[scan.var] = (_start_type(kind, value), value)  # the running value's start
            scan_start = value
        elif single and _scalar(statement, sized_auto=True):
            copied.append(statement)  # `size_t n = x.size();`: every thread's own copy
            if _is_size_call(value):
                aliases.add(declared_name(declarator) or "")
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
    guards += hoisted
    returns = [s for s in after if s.type == "return_statement" and s.named_children]
    late = [
        s
        for s in after[:-1]
        if result is not None
        and scan is None
        and s.type == "declaration"
        and len(s.children_by_field_name("declarator")) == 1
        and _scalar(s)
        and (s.child_by_field_name("declarator") or s).child_by_field_name("value") is not None
    ]
    """Scalars the return reads, declared after a reduction's loop (`double n = x.size();`):
    the block that ends last declares them too, from the totals."""
    if len(after) != len(returns) + len(late) or len(returns) > 1:
        raise AnnotationError(f"{function} does more after its loop than return its result")
    returned = returns[0].named_children[0] if returns else None
    gives = text(returned) if returned is not None else ""
    returns_scan = scan is not None and not scan.recurrence and result is None and gives == scan.var
    """`return k;` of the scan's running value (a compaction's count, a running sum's total):
    the block that ends last writes it from the value the last tile passed on."""
    epilogue = None
    if phased:
        epilogue = returned  # read by one thread once the last loop's barrier is passed
    elif kept and (returned is None or set(kept) - set(starts)):
        raise AnnotationError(f"{function} does not start and return what its loop keeps")
    if phased and any(len(p.loop.dependence.reductions) > 1 for p in phases):
        raise AnnotationError("a loop run in phases folds more than one result")
    totals = {r.var for r in dep.reductions}
    if result is not None and (len(totals) > 1 or gives != result.var):
        if returned is None or not totals & _names(returned):
            raise AnnotationError(f"{function} does more after its loop than return its result")
        epilogue = returned  # `return sum / x.size();`: the total, then this, once
    if (
        scan is not None
        and (not scan.recurrence or scanned is not None)
        and any(
            scan.var in _names(part)
            for part in [*([returned] if returned and not returns_scan else []), *copied, *guards]
        )
    ):
        # the running value (or the function's own array a recurrence fills) lives in the
        # tiles alone: nothing before or after the loop can read it
        raise AnnotationError(f"{function} reads the scan's {scan.var} outside its loop")
    if dep.last_assigned and gives != dep.last_assigned[0]:
        raise AnnotationError(f"{function} does not return the last index its loop keeps")
    if dep.best_updates and gives != dep.best_updates[0].others[0]:
        raise AnnotationError(f"{function} does not return the index its argmin keeps")
    if (
        not kept
        and returned is not None
        and not dep.first_match
        and not phased
        and not returns_scan
    ):
        raise AnnotationError(f"{function} returns what its loop does not reduce")
    if dep.first_match and (returned is None or not _exits_return_counter(node, loop)):
        raise AnnotationError(f"{function}'s search does not return the index it finds")
    # The names: the function's parameters the kernel takes, its size, its result pointer.
    extra = [p for p in params if p.name not in serial]
    sizes = [p for p in extra if not p.pointer and p.type in ("size_t", "int", "unsigned")]
    outputs = [p for p in extra if p.pointer]
    scope = [
        *copied,
        *guards,
        *(p.top for p in phases),
        *steps,
        *singles,
        *vectors,
        *(v for _, v in starts.values()),
    ]
    if epilogue is not None:
        scope.append(epilogue)
    scope += late
    if dep.first_match and returned is not None:
        scope.append(returned)  # the not-found value, which the block that ends last writes
    if scan_store is not None:
        scope.append(scan_store)
    used = {text(n) for part in scope for n in _identifiers(part)}
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
        if c.type == "call_expression" and _limit(text(c)) is None
    }
    helpers = _helper_functions(root, callees - _MATH, function)
    # Helpers are compiled under names of their own: a kernel parameter may hide one
    # (`double *distance` and `distance(a, b)`), CUDA's library may have one (`rsqrt`).
    renamed = {h: f"pf_fn_{h}" for h in helpers}
    constants = _file_constants(root)
    hidden = sorted(set(constants) & used & set(by_name) - serial - local)
    if hidden:
        raise AnnotationError(f"the kernel's parameter {hidden[0]} hides the source's constant")
    for helper in helpers.values():
        strays = _names(helper) - _declared_in(helper) - set(helpers) - _MATH - _CONSTANTS
        if strays - set(constants):
            raise AnnotationError(
                f"{function_name(helper)} reads {sorted(strays - set(constants))[0]}, "
                "which the device does not have"
            )
    complex_ = any(_element(p) in _CUDA_COMPLEX for p in params if p.pointer) or any(
        "complex<" in text(part) for part in [*scope, *helpers.values()]
    )
    """`std::complex` (the driver's `cuDoubleComplex`) as the device's `pf_cplx` (`_COMPLEX`)."""
    own_types = {
        text(n.child_by_field_name("name") or n)
        for n in root.named_children
        if n.type in _TYPE_NODES and n.child_by_field_name("name") is not None
    }
    outside = sorted(
        used - set(by_name) - local - callees - _MATH - _CONSTANTS - set(constants) - {"static_cast"}
        - {loop.var} - set(kept) - ({scan.var} if scan is not None else set())
        - ({"complex", *_COMPLEX_CALLS} if complex_ else set())
        - own_types  # a cast to the source's type, `(Point)(h[k])`
    )  # fmt: skip
    if outside:
        raise AnnotationError(f"the loop uses {outside[0]}, which the kernel does not take")
    if any(set(kept) & _names(g) for g in guards):
        raise AnnotationError("a guard before the loop reads what the loop keeps")
    modified = {a.name for p in phases for a in (p.outer_loop or p.loop).writes if a.is_array} | {
        h.var for p in phases for h in p.loop.dependence.array_reductions
    }
    modified |= {name for lone in singles for name in _arrays_written(lone)}
    for name, (_, value) in starts.items():
        read = _names(value) & (set(kept) - {name})
        if read:
            # each kept name is the kernel's own (renamed) value: one's start cannot read another's
            raise AnnotationError(
                f"the start of {name} reads {sorted(read)[0]}, which the loop keeps"
            )
    early = [*copied, *guards, *(v for _, v in starts.values())]
    if any(modified & _data_names(part) for part in early if part is not scan_start):
        # every thread runs these while others write: it would read what they wrote (a scan's
        # start is read once, by the thread that starts its first tile, before any tile's
        # second pass writes)
        raise AnnotationError("code before the loop reads an array the loop writes")
    if scan_store is not None and modified & _names(scan_start):
        raise AnnotationError("the scan's first element reads an array the loop writes")
    own = {name: f"pf_len_{name}" for name in (v.name for v in vectors.values())}
    """The kernel's own arrays (the function's vectors) and their lengths' names."""
    for name, count in known.items():
        strays = {text(n) for n in _identifiers(count)} - {p.name for p in params if not p.pointer}
        if strays or not _without_effects(count):
            raise AnnotationError(f"the size of {name} is not one the kernel's sizes give")
    edits: list[tuple[int, int, str]] = _complex_edits(scope) if complex_ else []
    edits += _library_types(scope)
    for declaration in copied:  # `auto n = x.size();`: the host's type, not the size parameter's
        kind = declaration.child_by_field_name("type")
        if kind is not None and text(kind) == "auto":
            edits.append((kind.start_byte, kind.end_byte, "size_t"))
    measured: set[str] = set()
    valued: set[str] = set()  # measured outside a loop's condition (`y[i] = x[i] * w.size()`)

    def length_of(owner: str) -> str:
        """How many elements the array `owner` has, in the kernel (as a value)."""
        if owner in own:
            return own[owner]
        if owner in known:
            return f"(size_t)pf_size_{owner}"
        if owner not in by_name or not by_name[owner].pointer:
            raise AnnotationError(f"{owner} is no array the kernel takes or makes")
        counts = [p for p in params if not p.pointer and p.type in ("size_t", "int", "unsigned")]
        named = _named_size(owner, counts)
        others = {
            id(n) for p in params if p.pointer and (n := _named_size(p.name, counts)) is not None
        }
        rest = [p for p in counts if id(p) not in others]
        if named is not None or (others and len(rest) == 1):
            # `sizeA` for A; N for b where the kernel's sizes are `sizeA` and N
            return f"(size_t)({(named or rest[0]).name})"
        size = _size_of(owner, serial_params, by_name, sizes)
        if _named_size(owner, sizes) is None and not (
            owner in serial_params and "std::array" in text(serial_params[owner])
        ):
            measured.add(owner)
            valued.add(owner)
        return size

    lengths = {
        v.name: length_of(v.copied) if v.copied is not None else "" for v in vectors.values()
    }
    """The lengths of copies (`std::vector<double> A_copy(A);`): their sources'."""
    for lone in singles + inner_singles:
        for ranged in (n for n in walk(lone) if n.type == "for_range_loop"):
            # `for (auto const &e : A)` one thread runs: by index (the element a reference
            # or a copy as the loop declares it, in an `if` that declares it)
            over = ranged.child_by_field_name("right")
            element = ranged.child_by_field_name("declarator")
            kind = ranged.child_by_field_name("type")
            body = ranged.child_by_field_name("body")
            if over is None or over.type != "identifier" or element is None or kind is None:
                raise AnnotationError("one thread's loop runs over a range the kernel lacks")
            assert body is not None
            k = f"pf_r{ranged.start_byte}"
            paren = next(c for c in ranged.children if c.type == "(")
            raw = ranged.text or b""
            bound = raw[paren.end_byte - ranged.start_byte : element.end_byte - ranged.start_byte]
            edits.append(
                (
                    ranged.start_byte,
                    body.start_byte,
                    f"for (unsigned long long {k} = 0; {k} < (unsigned long long)"
                    f"({length_of(text(over))}); ++{k}) {{ if ({bound.decode().strip()} = "
                    f"{text(over)}[{k}]; true) ",
                )
            )
            edits.append((body.end_byte, body.end_byte, " }"))  # an `else` after stays outside
    copies = [s for s, v in vectors.items() if v.copied is not None]
    for call in (c for part in scope for c in walk(part) if not any(_within(c, s) for s in copies)):
        if call.type != "call_expression":
            continue
        callee = call.child_by_field_name("function")
        if callee is None or _is_cast(callee):
            continue  # `static_cast<size_t>(v / 10)`, `int(v)`: the device converts alike
        if callee.type == "parenthesized_expression" and text(callee)[1:-1].strip() in own_types:
            continue  # `(Point)(h[k])`: a copy of the source's type, the device's alike
        if callee.type == "field_expression" and text(callee).endswith((".size", ".empty")):
            owner, _, method = text(callee).rpartition(".")
            if owner in own or owner in known:
                size = own.get(owner, f"(size_t)pf_size_{owner}")
                edits.append(
                    (call.start_byte, call.end_byte, size if method == "size" else f"({size} == 0)")
                )
                continue
            size = _size_of(owner, serial_params, by_name, sizes)
            declared = text(serial_params.get(owner) or callee)
            if "std::array" not in declared and _named_size(owner, sizes) is None:
                measured.add(owner)  # the kernel's one size
                if not _bounds_a_loop(call):
                    valued.add(owner)
            edits.append(
                (call.start_byte, call.end_byte, size if method == "size" else f"({size} == 0)")
            )
            continue
        limit = _limit(text(call))
        if limit is not None:
            edits.append((call.start_byte, call.end_byte, limit))
            continue
        called = text(callee).removeprefix("std::")
        if complex_ and (
            any(e[:2] == (callee.start_byte, callee.end_byte) for e in edits)
            or (callee.type == "field_expression" and text(callee).endswith((".real", ".imag")))
        ):
            continue  # a complex constructor or `polar`, written already; `z.real()`
        if complex_ and called in _COMPLEX_CALLS:
            edits.append((callee.start_byte, callee.end_byte, called))
            continue
        if called in _DEVICE_NAMED and called not in helpers:
            edits.append((callee.start_byte, callee.end_byte, _DEVICE_NAMED[called]))
            continue
        if called not in _MATH and called not in helpers:
            raise AnnotationError(f"the loop calls {text(callee)}, which a kernel cannot")
        if called in renamed:
            edits.append((callee.start_byte, callee.end_byte, renamed[called]))
        elif called in PROMOTED and called not in helpers:
            edits.append((callee.start_byte, callee.end_byte, f"pf_{called}"))
        elif text(callee).startswith("std::"):
            # CUDA's math is in the global namespace: `::max` where a local is named `max`
            shadowed = called in serial or called in local or called in by_name
            edits.append(
                (callee.start_byte, callee.end_byte, f"::{called}" if shadowed else called)
            )
    declared_as = {text(serial_params[o].child_by_field_name("type") or serial_params[o])
                   + text(serial_params[o]).split(o)[0] for o in measured if o in serial_params}  # fmt: skip
    if len(measured) > 1 and (
        valued
        or len(declared_as) != 1
        or not all("const" in d and "vector" in d for d in declared_as)
    ):
        # `x.size()` and `w.size()` would both be the kernel's one size: only for inputs of
        # one type (`const std::vector<int> &x, const std::vector<int> &y`) each walked by
        # loops up to its size, which a signature with one size gives one length
        # (`xorContains(const int *x, const int *y, size_t N)`)
        raise AnnotationError(f"the loop measures {' and '.join(sorted(measured))}, one size")
    for field in (f for part in scope for f in walk(part) if f.type == "field_expression"):
        base, member = field.child_by_field_name("argument"), field.child_by_field_name("field")
        if (
            base is not None
            and member is not None
            and text(base) in by_name
            and by_name[text(base)].pointer
            and text(member) not in ("size", "empty")
        ):
            raise AnnotationError(f"the loop uses {text(field)}, which the kernel's pointer lacks")
    for phase in phases:
        holders = {  # the kernel's arrays and its own (the function's vectors)
            **by_name,
            **{v.name: KernelParam(v.name, f"{v.element} *", True) for v in vectors.values()},
        }
        for histogram in phase.loop.dependence.array_reductions:
            if histogram.op != "+" or histogram.var not in holders:
                raise AnnotationError(f"the histogram {histogram.var} is not the kernel's")
        edits += _histogram_atomics(phase.node, phase.loop, holders, edits)
    out = None
    if (
        dep.first_match
        or kept
        or returns_scan
        or any(_guard_value(g) is not None for g in guards)
        or (phased and returned is not None)
    ):
        if len(outputs) != 1:
            raise AnnotationError("cannot tell which kernel parameter holds the result")
        out = outputs[0]
    exits = any(
        bool(_returns(p.top))
        or any(n.type in ("break_statement", "goto_statement") for n in walk(p.node))
        for p in phases
    )
    if phased and exits:
        raise AnnotationError("a loop run in phases leaves early")
    globals_ = ""
    declare = combine = ""
    if dep.first_match:
        # A search: each thread takes its iterations in order and stops at its first match;
        # the block's first matches meet in a min, one atomic per block folds it into a
        # device value, and the block that ends last writes the first match, or the
        # function's not-found value (`x.size()`, `-1`) where none matched: the driver's
        # start takes no part.
        assert out is not None and returned is not None
        if _element(out) not in _ATOMIC_TYPES:
            raise AnnotationError("cannot tell which kernel parameter holds the index")
        if loop.var in _names(returned):
            raise AnnotationError("the search's not-found value reads its counter")
        for exit_node in _returns(node):
            found = text(exit_node.named_children[0])
            edits.append(
                (
                    exit_node.start_byte,
                    exit_node.end_byte,
                    f"{{ pf_match = (long long)({found}); goto pf_searched; }}",
                )
            )
        declare = "    long long pf_match = LLONG_MAX; /* this thread's first match */\n"
        fold = _Fold(dep, loop, node, out, starts, epilogue, edits, "")
        combine = (
            "    pf_searched:\n"
            "    pf_match = pf_cuda_block_fold(pf_match, pf_cuda_min_f());\n"
            "    if (pf_lane == 0) {\n"
            "        if (pf_match != LLONG_MAX) pf_cuda_fold_min(&pf_kernel_match, pf_match);\n"
            + fold.finish(
                "long long pf_total = *(volatile long long *)&pf_kernel_match",
                f"pf_total != LLONG_MAX ? ({fold.element})(pf_total) : "
                f"({fold.element})({_rewrite(returned, edits)})",
                "            *(volatile long long *)&pf_kernel_match = LLONG_MAX;\n",
            )
            + "    }\n"
        )
        globals_ = (
            DONE + "__device__ long long pf_kernel_match = LLONG_MAX; /* the first match */\n"
        )
    elif kept:
        assert out is not None
        if exits:
            raise AnnotationError("the loop leaves early: its threads cannot meet to combine")
        shape = _reduced if result is not None else _last if dep.last_assigned else _argmin
        declare, combine, globals_, renames = shape(
            _Fold(
                dep,
                loop,
                node,
                out,
                starts,
                epilogue,
                edits,
                _SCAN_RESETS if scan else "",
                tuple(late),
            )
        )
        edits += [
            (n.start_byte, n.end_byte, renames[text(n)])
            for n in walk(node)
            if n.type == "identifier" and text(n) in renames
        ]
    for guard in guards:
        value = _guard_value(guard)
        if value is None:
            continue
        assert out is not None
        exit_node = next(n for n in walk(guard) if n.type == "return_statement")
        edits.append(
            (
                exit_node.start_byte,
                exit_node.end_byte,
                f"{{ if (pf_t == 0) *{out.name} = ({_element(out)})({_rewrite(value, edits)}); "
                "return; }",
            )
        )
    body_node = node.child_by_field_name("body")
    assert body_node is not None
    inner = _rewrite(body_node, edits)
    setup = (
        "".join(  # a guard's size, as the function's entry has it
            f"    const unsigned long long pf_size_{name} = (unsigned long long)({text(count)});\n"
            for name, count in known.items()
        )
        + "".join(  # a copy's length, its source's: guards may read it
            f"    const unsigned long long pf_len_{v.name} = (unsigned long long){lengths[v.name]};\n"
            for v in vectors.values()
            if v.copied is not None and v.copied not in own
        )
        + "".join(
            f"    {_rewrite(d, edits)}\n" for d in [*before, *hoisted] if d in copied or d in guards
        )
    )
    device = "".join(f"__host__ __device__ {_device_math(helpers[h], renamed)}\n" for h in helpers)
    members = {
        text(f.child_by_field_name("field") or f)
        for part in [*scope, *helpers.values()]
        for f in walk(part)
        if f.type == "field_expression"
    }
    types = "".join(_type_definitions(root, members))
    if _has_methods(root):
        # a method (`operator+`) is host code: the kernel could not call it
        raise AnnotationError("the source's types have methods, which the device cannot run")
    if "std::" in types:
        # `struct Book { std::string title; ... }`: the driver's device copy has its own type
        raise AnnotationError("the source's types hold C++ library objects no device copy can")
    looped = _LoopHead.of(node, loop, edits, by_name, serial_params, sizes)
    head = looped.prelude + looped.loop("pf_t", "pf_threads")
    text_sig = global_definition(signature)
    complex_views = ""
    if complex_:
        text_sig, complex_views = _complex_params(text_sig)
    about = (
        f"/* {function}: the sequential loop as a kernel. Every thread of whatever grid the "
        "driver launches runs\n   iterations pf_t, pf_t + pf_threads, ... of the loop. */\n"
    )
    work = f"{head}        {inner}\n    }}\n"
    if scan is not None:
        if exits or any(_guard_value(g) is not None for g in guards):
            raise AnnotationError("the scan's function leaves early with a value")
        types_of = {p.name: _element(p) if p.pointer else p.type for p in params}
        for declaration in copied:
            kind = declaration.child_by_field_name("type")
            types_of[declared_name(declaration.child_by_field_name("declarator")) or ""] = (
                text(kind) if kind is not None else ""
            )
        scan_globals, work = _scan_tiles(
            _ScanParts(
                loop,
                node,
                looped,
                edits,
                by_name,
                types_of,
                starts,
                scan_start,
                scan_store,
                scanned,
                folded=result.var if result is not None else None,
                returned=out if returns_scan else None,
            )
        )
        # a fold's globals (its total) beside the scan's; the kernel's count of finished
        # blocks once
        globals_ = scan_globals + globals_.replace(DONE, "")
        about = (
            f"/* {function}: the sequential scan as a kernel. The blocks of whatever grid the "
            "driver launches take\n   tiles of the loop in order (a ticket); each totals its "
            "tile, takes the running value the tile\n   before it ends with, passes its own "
            "on and runs the loop's body over its tile from it. */\n"
        )
    tops = [p.top for p in phases]
    if phased:
        locals_ = {
            declared_name(d.child_by_field_name("declarator")) or "": text(
                d.child_by_field_name("type") or d
            )
            for d in [*copied, *(st for st in steps if st.type == "declaration")]
        }
        order = [
            st
            for st in statements[first : last + 1]
            if st in steps or st in tops or st in singles or st in vectors or st in sorts
        ]
        for lone in [*singles, *inner_singles]:
            for call in (c for c in walk(lone) if c.type == "call_expression"):
                called = text(call.child_by_field_name("function") or call)
                defined = helpers.get(called.removeprefix("std::"))
                changes = [
                    text(p)
                    for _, p in (function_params(defined) if defined is not None else [])
                    if re.search(r"[&*]", text(p)) and "const" not in text(p)
                ]
                if changes:
                    raise AnnotationError(
                        f"one thread calls {called}, which may change what it is given "
                        f"({changes[0]})"
                    )
        typed: dict[str, set[str]] = {}
        for p in params:
            if not p.pointer:
                typed.setdefault(p.name, set()).add(" ".join(p.type.replace("const", "").split()))
        for d in walk(definition):
            if d.type != "declaration" or not _scalar(d):
                continue
            spelled = " ".join(
                text(d.child_by_field_name("type") or d).replace("const", "").split()
            )
            for named in d.children_by_field_name("declarator"):
                scalar = declared_name(named)
                if scalar:
                    typed.setdefault(scalar, set()).add(spelled)
        scalars = {name: kinds.pop() if len(kinds) == 1 else "" for name, kinds in typed.items()}
        globals_, work = _phased_work(
            phases,
            order,
            edits,
            by_name,
            serial_params,
            sizes,
            locals_,
            out,
            epilogue,
            _OneThread(
                vectors,
                lengths,
                {n: k for n, k in scalars.items() if n not in own},
                sorts,
            ),
        )
        globals_ += _sort_step_order(sorts, vectors, root, function)
        about = (
            f"/* {function}: loops that run one after another, as one kernel. The first blocks "
            "of whatever grid the\n   driver launches to arrive take the seats (no more than "
            "can run at once); the seated threads\n   share each loop's iterations and meet at "
            "a barrier across the grid before the next loop. */\n"
        )
    # The source's constants the kernel, its helpers and types name (and those they name),
    # before the types, which may size arrays with them.
    mentioned = {
        *re.findall(r"[A-Za-z_]\w*", work + setup + device + declare + combine + types + globals_)
    }
    wanted = _constants_reached(constants, mentioned - set(by_name) - local)
    data = "".join(_device_constant(constants[c]) for c in constants if c in wanted)
    written = work + setup + device + data + declare + combine
    if "std::" in written or "vector" in device or "string" in device:
        raise AnnotationError("the loop builds or takes C++ library objects no kernel can")
    return (
        HELPERS
        + (_COMPLEX if complex_ else "")
        + data
        + types
        + device
        + globals_
        + about
        + (
            f"{text_sig} {{\n"
            "    const unsigned long long pf_threads = (unsigned long long)gridDim.x * gridDim.y * "
            "gridDim.z * blockDim.x * blockDim.y * blockDim.z;\n"
            "    const unsigned long long pf_block = blockIdx.x + (unsigned long long)gridDim.x * "
            "(blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);\n"
            "    const unsigned pf_lane = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
            "threadIdx.z);\n"
            "    const unsigned long long pf_t = pf_block * blockDim.x * blockDim.y * blockDim.z + "
            "pf_lane;\n"
            f"{complex_views}"
            f"{setup}"
            f"{declare}"
            f"{work}"
            f"{combine}"
            "}\n"
        )
    )


def _phased_work(
    phases: list[_Phase],
    order: list[Node],
    edits: list[tuple[int, int, str]],
    by_name: dict[str, KernelParam],
    serial_params: dict[str, Node],
    sizes: list[KernelParam],
    declared: dict[str, str],
    out: KernelParam | None,
    returned: Node | None,
    mine: _OneThread,
) -> tuple[str, str]:
    """The kernel's work where its loops run one after another (`PHASES`): a seated block
    takes tiles of each loop's iterations in turn (an outer loop's counter alike in every
    thread) and meets the other seated blocks at a grid barrier after each (inner) loop. A
    reduction's threads fold from its identity, each block's fold goes into a device total
    with one atomic, and after the barrier every thread combines its own copy of the variable
    (declared before the loops: `declared`) with the total, so the loops after it and the
    return read what the sequential function's do. The first seat's thread 0 writes the
    function's return after the last barrier. `order`: the loops' statements and the scalar
    steps between them, in the function's order. One thread runs the statements `mine` says
    (loops the analysis does not prove, a pivot's swap) between barriers, and passes the
    scalars they assign to every thread through device words; the function's vectors are the
    kernel's own arrays (`mine.vectors`). The device globals, the work."""
    parts: list[str] = []
    totals: list[str] = []
    resets: list[str] = []
    words = 0  # device words passing one thread's scalars on

    def phase_code(number: int, phase: _Phase) -> str:
        body = phase.node.child_by_field_name("body")
        assert body is not None
        head = _LoopHead.of(phase.node, phase.loop, edits, by_name, serial_params, sizes)
        start = fold = after = ""
        inside = edits
        for reduction in phase.loop.dependence.reductions:
            kind = " ".join(declared.get(reduction.var, "").replace("const", "").split())
            if not kind:
                raise AnnotationError(f"{reduction.var} is not declared before the loops")
            op = reduction.op
            name = _OP_NAMES.get(op) or _BITWISE.get(op)
            small = kind in _SMALL and op in (
                "+",
                "^",
                "|",
                "&",
            )  # totalled in 8 bytes (`_reduced`)
            if name is None or (
                not small
                and (kind not in _ATOMIC_TYPES or (op in _BITWISE and kind in ("float", "double")))
            ):
                raise AnnotationError(f"no device atomic combines a {op} reduction of {kind}")
            total, mine = f"pf_phase_total_{number}", f"pf_r_{reduction.var}"
            held = "unsigned long long" if small else kind
            identity = _identity_of(op, held)
            totals.append(f"__device__ {held} {total} = {identity}; /* a loop's total */\n")
            resets.append(f"        *(volatile {held} *)&{total} = {identity};\n")
            start += f"    {kind} {mine} = ({kind})({identity});\n"
            fold += (
                f"    {{ const {held} pf_p = pf_cuda_block_fold(({held}){mine}, "
                f"pf_cuda_{name}_f());\n"
                f"      if (pf_lane == 0) pf_cuda_fold_{name}(&{total}, pf_p); }}\n"
            )
            after += (
                f"    {reduction.var} = pf_cuda_{name}_f()({reduction.var}, "
                f"({kind})*(volatile {held} *)&{total});\n"
            )
            inside = inside + [
                (n.start_byte, n.end_byte, mine)
                for n in walk(phase.node)
                if n.type == "identifier" and text(n) == reduction.var
            ]
        code = (
            "{\n"
            f"{head.prelude}{start}"
            "    for (;;) {\n"
            "        if (pf_lane == 0) pf_tile = atomicAdd(&pf_phase_next, 1ULL);\n"
            "        __syncthreads();\n"
            "        const unsigned long long pf_base = pf_tile * pf_span;\n"
            f"{head.exists('pf_base')}"
            "        if (!pf_any) break;  /* the same for the whole block: past the loop's end */\n"
            + head.loop("pf_base + pf_lane", "pf_width", "pf_k < pf_base + pf_span")
            + f"        {_rewrite(body, inside)}\n    }}\n"
            "        __syncthreads();  /* before the next ticket overwrites the tile */\n"
            "    }\n"
            f"{fold}"
            "    pf_cuda_grid_sync();\n"
            f"{after}"
            "    }"
        )
        return code

    numbers = iter(range(len(phases)))
    arrays = {p.name for p in by_name.values() if p.pointer} | {
        v.name for v in mine.vectors.values()
    }
    sync = "pf_cuda_grid_sync();  /* the steps before read what may be written next */\n    "

    def vector_code(vector: _LocalVector) -> str:
        """The kernel's own array for a vector the function declares: its place in the store,
        its first values in tiles of the seated blocks, a barrier."""
        length = (
            mine.lengths[vector.name]
            if vector.length is None
            else f"(size_t)({_rewrite(vector.length, edits)})"
        )
        name = vector.name
        counted = (
            f"    const unsigned long long pf_len_{name} = (unsigned long long){length};\n"
            if vector.copied is None or vector.copied in {v.name for v in mine.vectors.values()}
            else ""  # the setup's, before the guards
        )
        if vector.copied is not None:
            value = f"{vector.copied}[pf_k]"
        elif vector.fill is not None:
            value = f"(pf_type_{name})({_rewrite(vector.fill, edits)})"
        else:
            value = f"pf_type_{name}()"
        return (
            f"typedef {vector.element} pf_type_{name};\n"
            f"{counted}"
            f"    pf_type_{name} *const {name} = (pf_type_{name} *)pf_cuda_store_take(&pf_store_at, "
            f'pf_len_{name} * sizeof(pf_type_{name}), pf_seated == 1 && pf_lane == 0, "{name}");\n'
            "    for (;;) {\n"
            "        if (pf_lane == 0) pf_tile = atomicAdd(&pf_phase_next, 1ULL);\n"
            "        __syncthreads();\n"
            "        const unsigned long long pf_base = pf_tile * pf_span;\n"
            f"        if (pf_base >= pf_len_{name}) break;\n"
            f"        for (unsigned long long pf_k = pf_base + pf_lane; pf_k < pf_base + pf_span && "
            f"pf_k < pf_len_{name}; pf_k += pf_width) {name}[pf_k] = {value};\n"
            "        __syncthreads();\n"
            "    }\n"
            "    pf_cuda_grid_sync();"
        )

    def passed_on(statement: Node) -> tuple[str, str]:
        """What one thread stores after `statement` and every thread loads after the barrier:
        each scalar it assigns that outlives it, as a device word."""
        nonlocal words
        stores = loads = ""
        for name in _assigned_outside(statement):
            if name in arrays:
                raise AnnotationError(f"one thread assigns the array {name} whole")
            if name not in mine.scalars:
                raise AnnotationError(f"one thread assigns {name}, no scalar the kernel declares")
            if mine.scalars[name] not in _WORDS:
                raise AnnotationError(
                    f"one thread assigns {name}, a {mine.scalars[name]}: no device word holds it"
                )
            stores += (
                f' static_assert(sizeof({name}) <= 8, "a word"); '
                f"{{ unsigned long long pf_w = 0; memcpy(&pf_w, &{name}, sizeof({name})); "
                f"*(volatile unsigned long long *)&pf_passed[{words}] = pf_w; }}"
            )
            loads += (
                f"\n    {{ const unsigned long long pf_w = *(volatile unsigned long long *)"
                f"&pf_passed[{words}]; memcpy(&{name}, &pf_w, sizeof({name})); }}"
            )
            words += 1
        return stores, loads

    def run(statements: list[Node], closing: bool) -> list[str]:
        """Each statement of a run of loops in phases as the kernel runs it: a loop's phase
        (a barrier after it), a scalar step in every thread on its own copies, an element's
        store by one thread between barriers, an outer loop's body as a run of its own
        (`closing`: the run repeats). A step that reads an array is followed by a barrier
        before the next phase or store, which may write it."""
        written, read = [], False
        for statement in statements:
            held = [phase for phase in phases if statement in (phase.node, phase.outer)]
            if statement in mine.vectors:
                written.append((sync if read else "") + vector_code(mine.vectors[statement]))
                read = False
                continue
            if statement in mine.sorts:
                over = mine.sorts[statement]
                written.append(
                    (sync if read else "")
                    + f"{{ /* {over} sorted: a bitonic network */\n"
                    + _bitonic_steps(over, f"pf_len_{over}", f"pf_type_{over}")
                    + "    }"
                )
                read = False
                continue
            if _scalar_step(statement):
                left = _expression_of(statement)
                if left is not None and text(left.child_by_field_name("left") or left) in arrays:
                    raise AnnotationError(f"a step assigns an array: {text(statement)[:60]}")
                read = read or bool(arrays & _data_names(statement))
                written.append(_rewrite(statement, edits))
                continue
            code = sync if read else ""
            read = False
            if held and held[0].node == statement:
                code += phase_code(next(numbers), held[0])
            elif held:
                body = _outer_body(statement)
                inner = run(body, closing=True)
                at = [(b.start_byte, b.end_byte, c) for b, c in zip(body, inner, strict=True)]
                code += _rewrite(statement, [*edits, *at])
            else:
                stores, loads = passed_on(statement)
                code += (
                    f"if (pf_seated == 1 && pf_lane == 0) {{ {_rewrite(statement, edits)}{stores} }}\n"
                    f"    pf_cuda_grid_sync();{loads}"
                )
            written.append(code)
        if read and closing:
            written[-1] += "\n    pf_cuda_grid_sync();  /* before the run's next round */"
        return written

    parts.extend(f"    {code}\n" for code in run(order, closing=False))
    answer = ""
    if returned is not None:
        assert out is not None
        answer = (
            "    if (pf_seated == 1 && pf_lane == 0) "
            f"*{out.name} = ({_element(out)})({_rewrite(returned, edits)});\n"
        )
    store = "    unsigned long long pf_store_at = 0; /* bytes of the store taken */\n"
    work = "    (void)pf_threads;\n    (void)pf_t;\n" + seated(
        (store if mine.vectors else "") + "".join(parts) + answer, "".join(resets)
    )
    passed = (
        f"__device__ unsigned long long pf_passed[{words}]; /* one thread's scalars, passed on */\n"
        if words
        else ""
    )
    return DONE + PHASES + (_STORE if mine.vectors else "") + passed + "".join(totals), work


@dataclass(frozen=True)
class _OneThread:
    """What a kernel in phases runs beyond its loops across the threads: the function's
    vectors as its own arrays (`lengths`: a copy's length), and the scalars (declared in the
    function, or the kernel's) that one thread's statements may assign and pass on."""

    vectors: dict[Node, _LocalVector]
    lengths: dict[str, str]
    scalars: dict[str, str]
    """Each scalar's type (`auto` where declared so; a name declared as two types: none)."""
    sorts: dict[Node, str]
    """Sorts of the function's vectors, whole (the vector's name)."""


_STORE = f"""\
#include <cstdio>
__device__ alignas(16) unsigned char pf_local_store[{1 << 26}]; /* the function's vectors */
/* The next `bytes` of the store (every thread takes alike: the same places); past its end
   the launch stops with a message (`speak`: the one thread that prints it). */
__device__ inline unsigned char *pf_cuda_store_take(unsigned long long *at,
        unsigned long long bytes, bool speak, const char *what) {{
    unsigned char *const place = pf_local_store + *at;
    *at += (bytes + 255) / 256 * 256;
    if (*at > sizeof(pf_local_store)) {{
        if (speak) printf("%s: %llu bytes are past the kernel's store of %llu\\n", what, *at,
                          (unsigned long long)sizeof(pf_local_store));
        __trap();
    }}
    return place;
}}
"""
"""The static device store of a kernel's own arrays (a static array: not the device heap's
8 MB by default)."""


def _assigned_outside(statement: Node) -> list[str]:
    """The names `statement` assigns (`=`, compound, `++`, `std::swap`'s arguments) that
    outlive it: not declared inside it before the assignment, in a block that holds it."""
    declared = [  # (where it is declared, its scope, the name)
        (d, _declaration_scope(d), declared_name(named))
        for d in walk(statement)
        if d.type in ("declaration", "for_range_loop")
        for named in d.children_by_field_name("declarator")
    ]
    outside = []
    for target in _targets(statement):
        target = unwrap(target)
        if target.type in ("conditional_expression", "comma_expression", "pointer_expression"):
            raise AnnotationError(f"one thread assigns through {text(target)[:40]}")
        while target.type == "field_expression":  # `b.hi = v`: b changes
            target = unwrap(target.named_children[0])
        if target.type != "identifier":
            continue
        name = text(target)
        scopes = [
            scope
            for d, scope, declared_as in declared
            if declared_as == name and d.start_byte < target.start_byte and scope is not None
        ]
        if not any(_within(target, held) for held in scopes) and name not in outside:
            outside.append(name)
    return outside


@dataclass(frozen=True)
class _LoopHead:
    """A loop's iterations as the kernel runs them: `prelude` (its first counter value, and
    whether its first iteration runs, or its element count), `exists(k)` (whether iteration
    `k` runs: `pf_any`) and `loop(start, step, limit)` (a loop over iterations from `start` by
    `step` while `limit` holds, up to its body, declaring the counter or element as the
    sequential loop has it)."""

    prelude: str
    test: str
    counter: str
    var: str
    named: str = ""
    over: str = ""
    direction: str = "+"
    """`-` for a loop counting down (`for (int i = n - 1; i >= 0; --i)`): iteration k is
    the first value less k."""

    @staticmethod
    def of(
        node: Node,
        loop: Loop,
        edits: list[tuple[int, int, str]],
        by_name: dict[str, KernelParam],
        serial_params: dict[str, Node],
        sizes: list[KernelParam],
    ) -> _LoopHead:
        if node.type == "for_range_loop":
            # `for (auto const &e : x)`: the element of the kernel's pointer x, one per
            # iteration.
            ranged = node.child_by_field_name("declarator")
            over = loop.range_over or ""
            if over not in by_name or not by_name[over].pointer or ranged is None:
                raise AnnotationError("the loop runs over a range the kernel does not take whole")
            upper = _size_of(over, serial_params, by_name, sizes)
            paren = next(c for c in node.children if c.type == "(")
            whole = node.text or b""
            span = whole[paren.end_byte - node.start_byte : ranged.end_byte - node.start_byte]
            return _LoopHead(
                f"    const long long pf_first = 0, pf_count = (long long)({upper});\n",
                "",
                "",
                "",
                named=span.decode().strip(),
                over=over,
            )
        # Iteration k runs where the loop's own test, in its own types, holds for the first
        # iteration (`int i = -1; i < x.size()` runs none) and for k (a bound of 2.5 runs 0, 1
        # and 2), and k is a value of the counter's type: what the sequential loop runs, from
        # the first value as the counter holds it (`unsigned char c = 260` starts at 4).
        test = _rewrite_span(node.child_by_field_name("condition"), edits, "")
        _upper_of(test, loop)
        counter, var = _device_type(loop.declared_type or "long long"), loop.var or ""
        prelude = (
            f"    const long long pf_first = (long long)(({counter})({_first_of(node, edits, loop)}));\n"
            f"    bool pf_runs;\n    {{ {counter} {var} = ({counter})pf_first; pf_runs = ({test}); }}\n"
        )
        return _LoopHead(prelude, test, counter, var, direction="-" if loop.stride == -1 else "+")

    def exists(self, k: str) -> str:
        if self.over:
            return f"        const bool pf_any = (long long)({k}) < pf_count;\n"
        at = f"pf_first {self.direction} (long long)({k})"
        return (
            "        bool pf_any = pf_runs;\n"
            f"        if (pf_any) {{ {self.counter} {self.var} = ({self.counter})({at}); "
            f"pf_any = (long long){self.var} == {at}{self._unwrapped(at)} && ({self.test}); }}\n"
        )

    def _unwrapped(self, at: str) -> str:
        """For a loop counting down, that the counter did not wrap past 0 (an unsigned
        counter below 0 is a huge value its test may pass: `i > 0` for `size_t i`)."""
        if self.direction == "+":
            return ""
        return f" && (({at}) >= 0 || ({self.counter})-1 < ({self.counter})0)"

    def loop(self, start: str, step: str, limit: str = "") -> str:
        if self.over:
            bound = "(long long)pf_k < pf_count" + (f" && {limit}" if limit else "")
            return (
                f"    for (unsigned long long pf_k = {start}; {bound}; pf_k += {step}) {{\n"
                f"        {self.named} = {self.over}[pf_first + (long long)pf_k];\n"
            )
        bound = "pf_runs" + (f" && {limit}" if limit else "")
        outside = f"(long long){self.var} != pf_iteration"
        if self.direction == "-":
            outside = f"!((long long){self.var} == pf_iteration{self._unwrapped('pf_iteration')})"
        return (
            f"    for (unsigned long long pf_k = {start}; {bound}; pf_k += {step}) {{\n"
            f"        const long long pf_iteration = pf_first {self.direction} (long long)pf_k;\n"
            f"        {self.counter} {self.var} = ({self.counter})pf_iteration;\n"
            f"        if ({outside} || !({self.test})) break;\n"
        )


_TYPE_NODES = frozenset(
    {"struct_specifier", "class_specifier", "union_specifier", "enum_specifier",
     "type_definition", "alias_declaration"}
)  # fmt: skip


def _type_definitions(root: Node, read: set[str]) -> list[str]:
    """The source's own types (`struct Point {...};`), which the kernel's signature and the
    driver name and the candidate defines, as the CUDA prompt does.

    A `std::string` member becomes the device's string, `const char *` (the driver copies the
    text to the device and points at it), where the kernel reads no member of that name
    (`read`): a comparison or a call on it would mean something else on a pointer."""
    found = []
    for node in root.named_children:
        inner = node.child_by_field_name("type") if node.type == "declaration" else node
        if node.type in _TYPE_NODES or (
            node.type == "declaration"
            and inner is not None
            and inner.type in _TYPE_NODES
            and node.child_by_field_name("declarator") is None
        ):
            edits = []
            for field in walk(node):
                kind = field.child_by_field_name("type")
                if field.type != "field_declaration" or kind is None:
                    continue
                if text(kind) not in ("std::string", "string"):
                    continue
                names = [text(d) for d in field.children_by_field_name("declarator")]
                if not all(re.fullmatch(r"[A-Za-z_]\w*", n) for n in names) or set(names) & read:
                    continue  # left as written: refused below as a library object
                edits.append(
                    (field.start_byte, field.end_byte, f"const char *{', *'.join(names)};")
                )
            body = _rewrite(node, edits)
            found.append(body if body.rstrip().endswith(";") else body + ";")
            found.append("\n")
    return found


def _has_methods(root: Node) -> bool:
    """Whether a type the source defines at file scope declares or defines a function."""
    for node in root.named_children:
        if node.type in _TYPE_NODES or node.type == "declaration":
            for n in walk(node):
                if n.type == "function_definition" or (
                    n.type == "field_declaration"
                    and any(c.type == "function_declarator" for c in walk(n))
                ):
                    return True
    return False


def _scalar_step(statement: Node) -> bool:
    """A statement every thread may run on its own copies: a scalar's declaration with a value
    (`int hi = INT_MIN;`) or an assignment to a plain name (`m = m / x.size();`), with no
    other effect (`double p = a[k]++;` writes an element, once per thread)."""
    if statement.type == "declaration":
        declarator = statement.child_by_field_name("declarator")
        value = declarator.child_by_field_name("value") if declarator is not None else None
        return (
            len(statement.children_by_field_name("declarator")) == 1
            and _scalar(statement)
            and (value is None or _without_effects(value))
        )
    expr = _expression_of(statement)
    left = expr.child_by_field_name("left") if expr is not None else None
    right = expr.child_by_field_name("right") if expr is not None else None
    return (
        expr is not None
        and expr.type == "assignment_expression"
        and left is not None
        and left.type == "identifier"
        and right is not None
        and _without_effects(right)
    )


_CONSTANT_TYPES = {
    **dict.fromkeys(("DBL_MAX", "DBL_MIN", "DBL_EPSILON", "HUGE_VAL", "M_PI", "M_E"), "double"),
    **dict.fromkeys(("FLT_MAX", "FLT_MIN", "FLT_EPSILON", "HUGE_VALF"), "float"),
    **dict.fromkeys(("INT_MAX", "INT_MIN"), "int"),
    **dict.fromkeys(("LLONG_MAX", "LLONG_MIN"), "long long"),
    "SIZE_MAX": "size_t",
}
"""The type of each library constant an `auto` result may start from."""
_LIMIT_OF = re.compile(
    r"-?(?:std::)?numeric_limits<((?:unsigned |signed |long |short )*"
    r"(?:int|long|short|char|float|double|size_t)|size_t)>::(?:max|min|lowest|infinity)\(\)"
)


def _start_type(kind: Node | None, value: Node) -> str:
    """The declared type of a result the loop keeps; for `auto`, the type of its start where
    that is plain (`auto best = DBL_MAX;`: `double`, `std::numeric_limits<int>::max()`: `int`,
    `0.0`: `double`); else `auto`, which no kernel result matches."""
    shown = text(kind) if kind is not None else ""
    if shown != "auto":
        return shown
    start = " ".join(text(value).split()).removeprefix("-")
    if start in _CONSTANT_TYPES:
        return _CONSTANT_TYPES[start]
    limit = _LIMIT_OF.fullmatch(" ".join(text(value).split()))
    if limit is not None:
        return limit.group(1)
    if re.fullmatch(r"\d+\.\d*(e[+-]?\d+)?|\d+e[+-]?\d+", start):
        return "double"
    return shown


_VECTOR_OF = re.compile(r"[^<]*?\bvector\s*<\s*([\w:\s]+?)\s*>")
"""The element type of the first `vector<...>` a declaration names, where it is a plain type
(`std::vector<std::vector<int>>` has none: its first vector's element is no plain type)."""

_SIZE_TYPES = frozenset(["size_t", "ptrdiff_t", "int64_t", "uint64_t", "int32_t", "uint32_t"])


def _scalar(declaration: Node, *, sized_auto: bool = False) -> bool:
    """A declaration of one number (`size_t n = ...`, `const std::size_t h = ...`); with
    `sized_auto` also `auto n = x.size();` (which the kernel declares `size_t`)."""
    kind = declaration.child_by_field_name("type")
    declarator = declaration.child_by_field_name("declarator")
    if kind is None or declarator is None or declarator.type != "init_declarator":
        return False
    if kind.type in ("primitive_type", "sized_type_specifier"):
        return True
    if text(kind).removeprefix("std::") in _SIZE_TYPES:
        return True
    value = declarator.child_by_field_name("value")
    return sized_auto and text(kind) == "auto" and value is not None and _is_size_call(value)


def _is_size_call(value: Node) -> bool:
    """`x.size()`."""
    value = unwrap(value)
    callee = value.child_by_field_name("function") if value.type == "call_expression" else None
    arguments = value.child_by_field_name("arguments") if callee is not None else None
    return (
        callee is not None
        and callee.type == "field_expression"
        and text(callee).endswith(".size")
        and arguments is not None
        and arguments.named_child_count == 0
    )


def _helper_functions(root: Node, names: set[str], function: str) -> dict[str, Node]:
    """The source's functions the loop calls (and those they call), in source order, when
    each calls only device math and the others: they are compiled for the device too."""
    definitions = list(function_definitions(root))
    defined = {function_name(d): d for d in definitions}
    found = _reached(root, sorted(names))
    if function in found:
        return {}
    overloaded = sorted(n for n in found if sum(function_name(d) == n for d in definitions) > 1)
    if overloaded:
        # which one the loop calls is the compiler's choice by argument types
        raise AnnotationError(f"{overloaded[0]} is overloaded")
    templates = sorted(
        n
        for n in found
        if (up := defined[n].parent) is not None and up.type == "template_declaration"
    )
    if templates:
        # its copy on the device would need its parameters' types, which only a call gives
        raise AnnotationError(f"{templates[0]} is a template")
    for name in found:
        for call in walk(defined[name]):
            callee = (
                call.child_by_field_name("function") if call.type == "call_expression" else None
            )
            called = text(callee).removeprefix("std::") if callee is not None else ""
            if callee is not None and called not in found and called not in _MATH:
                return {}
    return {name: node for name, node in defined.items() if name in found}


_MUTATING_METHODS = frozenset(
    {"push_back", "emplace_back", "pop_back", "push_front", "emplace_front", "pop_front",
     "resize", "assign", "clear", "insert", "erase", "emplace", "swap", "fill", "reserve",
     "shrink_to_fit", "append", "sort", "reverse", "remove", "remove_if", "unique", "merge",
     "splice"}
)  # fmt: skip
_MUTATING_CALLS = {
    **dict.fromkeys(
        ("sort", "stable_sort", "partial_sort", "nth_element", "reverse", "rotate", "fill",
         "fill_n", "iota", "replace", "replace_if", "shuffle", "random_shuffle", "generate",
         "generate_n", "partition", "stable_partition", "unique", "remove", "remove_if",
         "make_heap", "push_heap", "pop_heap", "sort_heap", "next_permutation",
         "prev_permutation", "memcpy", "memmove", "memset", "strcpy", "strncpy", "strcat",
         "strncat", "sprintf", "snprintf"),
        (0,),
    ),
    **dict.fromkeys(
        ("copy", "copy_n", "copy_if", "copy_backward", "move", "move_backward", "reverse_copy",
         "replace_copy", "replace_copy_if", "unique_copy", "rotate_copy", "remove_copy",
         "remove_copy_if", "partial_sum", "inclusive_scan", "exclusive_scan",
         "transform_inclusive_scan", "transform_exclusive_scan", "adjacent_difference",
         "transform", "partial_sort_copy", "swap_ranges"),
        (2,),
    ),
    **dict.fromkeys(
        ("merge", "set_union", "set_intersection", "set_difference",
         "set_symmetric_difference"),
        (4,),
    ),
    "swap": (0, 1),
    "iter_swap": (0, 1),
    "swap_ranges": (0, 2),
}  # fmt: skip
"""Library calls that change what some of their arguments reach, by position (`std::sort(
x.begin(), x.end())` its range's, `std::copy(a, b, out)` its output's; a binary
`std::transform`'s output is its fourth; an execution policy first moves each one on)."""


def _check_what_it_changes(
    source: str, program: Program, function: str, params: list[KernelParam]
) -> None:
    """Refuse a function that changes an array the kernel cannot: one it takes by value (a
    copy of the caller's: the kernel's pointer is the caller's array, which a second launch
    would find changed) or one the signature takes as `const`; and `std::max({a, b, c})`,
    whose list CUDA's `max` does not take. A change is an assignment into the array, a write
    through a range-based loop's reference element or a reference bound to it, a mutating
    method or library call, or an argument a helper takes by non-`const` reference or
    pointer."""
    root = syntax_tree(source, program.language).root_node
    definitions = {function_name(d): d for d in function_definitions(root)}
    definition = definitions.get(function)
    body = definition.child_by_field_name("body") if definition is not None else None
    if definition is None or body is None:
        return
    serial = dict(function_params(definition))
    changed: set[str] = set()
    """Arrays whose elements the function changes."""
    moved: set[str] = set()
    """Names assigned whole (`x = y;`, `p++`): a vector copy changes, a pointer moves."""
    for n in walk(body):
        target = None
        if n.type == "assignment_expression":
            target = n.child_by_field_name("left")
        elif n.type == "update_expression":
            target = n.child_by_field_name("argument")
        elif n.type == "for_range_loop":
            element = n.child_by_field_name("declarator")
            kind = n.child_by_field_name("type")
            if (
                element is not None
                and any(d.type == "reference_declarator" for d in walk(element))
                and "const" not in (text(kind) if kind is not None else "")
            ):
                target = n.child_by_field_name("right")
        elif n.type == "declaration":
            kind = n.child_by_field_name("type")
            for declarator in n.children_by_field_name("declarator"):
                value = declarator.child_by_field_name("value")
                if (
                    value is not None
                    and any(d.type == "reference_declarator" for d in walk(declarator))
                    and "const" not in (text(kind) if kind is not None else "")
                ):
                    changed.add(_root_name(value) or "")  # an alias may write it
        elif n.type == "call_expression":
            callee = n.child_by_field_name("function")
            arguments = n.child_by_field_name("arguments")
            called = re.split(r"::|\.|->", text(callee))[-1] if callee is not None else ""
            given = arguments.named_children if arguments is not None else []
            if called in ("min", "max") and any(a.type == "initializer_list" for a in given):
                raise AnnotationError(f"the function calls {called} on a list")
            if callee is not None and callee.type == "field_expression":
                if called in _MUTATING_METHODS:
                    target = callee.child_by_field_name("argument")
            elif called in definitions and callee is not None and "::" not in text(callee):
                helper = dict(enumerate(p for _, p in function_params(definitions[called])))
                for k, argument in enumerate(given):
                    declared = helper.get(k)
                    shown = text(declared) if declared is not None else "&"
                    if ("&" in shown or "*" in shown or "[" in shown) and "const" not in shown:
                        changed.add(_root_name(argument) or "")
            elif called in _MUTATING_CALLS:
                at = _MUTATING_CALLS[called]
                if called == "transform" and len(given) >= 5:
                    at = (3,)  # the binary form's output
                if given and "execution" in text(given[0]):
                    at = tuple(k + 1 for k in at)
                changed.update(_root_name(given[k]) or "" for k in at if k < len(given))
        if target is not None:
            bare = unwrap(target)
            (moved if bare.type == "identifier" else changed).add(_root_name(target) or "")
    for kernel_param in params:
        declared = serial.get(kernel_param.name)
        if declared is None or not kernel_param.pointer:
            continue
        by_value = not any(
            d.type in ("reference_declarator", "pointer_declarator", "array_declarator")
            for d in walk(declared)
        )
        if by_value and kernel_param.name in changed | moved:
            raise AnnotationError(
                f"{function} changes {kernel_param.name}, its own copy of the caller's array: "
                "the kernel's array is the caller's"
            )
        if kernel_param.name in changed and "const" in kernel_param.type.split("*")[0]:
            raise AnnotationError(
                f"{function} changes {kernel_param.name}, which the kernel takes as const"
            )


def _root_name(node: Node) -> str | None:
    """The variable an lvalue or argument reaches into (`x[i].v`, `*x`, `x.begin() + 1`,
    `std::begin(x)`, `std::next(x.begin(), k)`, `&x[i]`, `(x)`: `x`)."""
    node = unwrap(node)
    while True:
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if callee is not None and callee.type == "field_expression":
                inner = callee.child_by_field_name("argument")
            else:  # `std::begin(x)`, `std::data(x)`: the first argument's
                given = arguments.named_children if arguments is not None else []
                inner = given[0] if given else None
        elif node.type in ("subscript_expression", "field_expression"):
            inner = node.child_by_field_name("argument")
        elif node.type in ("pointer_expression", "unary_expression", "cast_expression"):
            inner = node.child_by_field_name("argument") or node.child_by_field_name("value")
        elif node.type == "binary_expression":
            inner = node.child_by_field_name("left")
        else:
            return text(node) if node.type == "identifier" else None
        if inner is None:
            return None
        node = unwrap(inner)


def kernel_loop(source: str, program: Program, function: str) -> Loop:
    """The loop of `function` that `kernel` would run on the device (AnnotationError: none)."""
    source, program = _lowered(source, program, function)
    root = syntax_tree(source, program.language).root_node
    first = _the_loops(root, program, function)[2][0]
    return first.outer_loop or first.loop


def _function_body(
    source: str, program: Program, function: str
) -> tuple[Node, Node, Node, list[Node]] | None:
    """The source's syntax tree, `function`'s definition, its body and the body's statements
    (comments left out); None where the source defines no such function with a body."""
    root = syntax_tree(source, program.language).root_node
    definition = next((d for d in function_definitions(root) if function_name(d) == function), None)
    body = definition.child_by_field_name("body") if definition is not None else None
    if definition is None or body is None:
        return None
    return root, definition, body, [s for s in body.named_children if s.type != "comment"]


_ORDERS = {"std::less": "a < b", "std::greater": "b < a"}
"""The library's comparison objects a sort may take, as the order they define."""


def _top_declaration(statements: list[Node], name: str) -> Node | None:
    """The statement among `statements` that declares `name` (its first declarator)."""
    return next(
        (
            s
            for s in statements
            if s.type == "declaration"
            and declared_name(s.child_by_field_name("declarator")) == name
        ),
        None,
    )


def _returned_vector(
    source: str, program: Program, function: str, params: list[KernelParam]
) -> tuple[str, Program]:
    """`source` with a function that returns a vector it declares (`std::vector<T> y(n);` or
    `y(n, v)`, then `return y;` as its last statement) written as one that fills the
    kernel's output instead: `y` a parameter by reference (under the name of the kernel's one
    pointer the function does not take, where that is not `y`), its declaration the loop that
    sets `y[0]` to `y[n - 1]` to `v` (`T()` where none: the driver's buffer may hold anything),
    the return gone; and that source's analysis. Else both as they are."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, statements = found
    returns = definition.child_by_field_name("type")
    declarator = definition.child_by_field_name("declarator")
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    last = statements[-1] if statements else None
    if returns is None or parameters is None or last is None or last.type != "return_statement":
        return source, program
    kind = _VECTOR_OF.match(text(returns))
    gives = last.named_children[0] if last.named_children else None
    if kind is None or not _VECTOR_TYPE.match(text(returns)) or gives is None:
        return source, program
    name = text(gives)
    if gives.type != "identifier" or _declarations(body, name) != 1:
        return source, program
    if len(_returns(body)) != 1:
        return source, program  # another way out (`if (x.empty()) return {};`)
    declaration = _top_declaration(statements, name)
    held = declaration.child_by_field_name("declarator") if declaration is not None else None
    declared = declaration.child_by_field_name("type") if declaration is not None else None
    arguments = held.named_children[-1] if held is not None and held.named_children else None
    if (
        declaration is None
        or held is None
        or held.type != "init_declarator"
        or declared is None
        or canon(declared) != canon(returns)
        or arguments is None
        or arguments.type != "argument_list"
        or len(declaration.children_by_field_name("declarator")) != 1
        or _static(declaration)
    ):
        return source, program  # not `std::vector<T> y(n);` of the type returned
    sized = [a for a in arguments.named_children if a.type != "comment"]
    element = " ".join(kind.group(1).split())
    if not 1 <= len(sized) <= 2 or not all(_without_effects(a) for a in sized):
        return source, program
    serial = {n for n, _ in function_params(definition)}
    outputs = [p for p in params if p.pointer and p.name not in serial]
    target = name if any(p.name == name for p in outputs) else None
    if target is None and len(outputs) == 1:
        target = outputs[0].name
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    if target is None or (target != name and target in taken):
        return source, program
    k = next(f"k_{n}" for n in range(100) if f"k_{n}" not in taken)
    value = text(sized[1]) if len(sized) == 2 else f"{element}()"
    fill = f"for (size_t {k} = 0; {k} < (size_t)({text(sized[0])}); ++{k}) {target}[{k}] = {value};"
    edits = [(declaration.start_byte, declaration.end_byte, fill), (*_whole_lines(last), "")]
    if target != name:
        edits += [
            (n.start_byte, n.end_byte, target)
            for n in walk(body)
            if n.type == "identifier" and text(n) == name and not _within(n, declaration)
        ]
    written = _rewrite(body, edits)
    raw = source.encode()
    opened = parameters.end_byte - 1  # before the `)`
    separator = ", " if any(c.type != "comment" for c in parameters.named_children) else ""
    lowered = (
        raw[: returns.start_byte]
        + b"void"
        + raw[returns.end_byte : opened]
        + f"{separator}std::vector<{element}> &{target}".encode()
        + raw[opened : body.start_byte]
        + written.encode()
        + raw[body.end_byte :]
    ).decode()
    from agents.analysis.program import analyse  # the analysis imports this module's users

    return lowered, analyse(lowered, program.language)


def _sort_kernel(source: str, program: Program, function: str, signature: str) -> str | None:
    """The kernel for a function that only sorts a vector it takes, in place and whole
    (`std::sort(x.begin(), x.end())`, with a comparison object or a lambda that captures
    nothing), or None where the function is no such sort; AnnotationError where it is one no
    kernel writes.

    The kernel is a sorting network, bitonic with every comparator ascending (each merge of
    two sorted runs first compares element i with its mirror across the run, then halves),
    over the vector padded to a power of two with elements greater than all: a comparator
    that reaches past the end would leave both elements where they are, so it is skipped and
    the padding is never stored. A network's comparators of one step touch distinct
    elements; the seated blocks of the launch share each step's comparators by tiles and meet
    at the grid barrier of loops in phases (`PHASES`) between steps: log2(n)(log2(n)+1)/2
    steps in one launch. The network's order for equal keys is its own, as `std::sort`'s is."""
    found = _function_body(source, program, function)
    if found is None:
        return None
    root, definition, _, statements = found
    if len(statements) != 1 or statements[0].type != "expression_statement":
        return None
    call = statements[0].named_children[0] if statements[0].named_children else None
    callee = call.child_by_field_name("function") if call is not None else None
    arguments = call.child_by_field_name("arguments") if call is not None else None
    if callee is not None and text(callee) == "std::stable_sort":
        raise AnnotationError(
            f"{function} sorts stably by an order under which distinct elements may be equal: "
            "no sorting network keeps their order"
        )
    if call is None or callee is None or arguments is None or text(callee) != "std::sort":
        return None
    args = [a for a in arguments.named_children if a.type != "comment"]
    over = text(args[0]).removesuffix(".begin()") if args else ""
    if (
        len(args) not in (2, 3)
        or not re.fullmatch(r"[A-Za-z_]\w*", over)
        or text(args[1]) != f"{over}.end()"
    ):
        raise AnnotationError(f"{function} sorts part of a vector, or not a vector by name")
    serial_params = dict(function_params(definition))
    _, params = signature_params(signature)
    by_name = {p.name: p for p in params}
    data = by_name.get(over)
    if over not in serial_params or "vector" not in text(serial_params[over]):
        raise AnnotationError(f"{function} sorts {over}, which is not a vector it takes")
    _by_reference(serial_params[over], function, over)
    if data is None or not data.pointer or "const" in data.type:
        raise AnnotationError(f"the kernel does not take {over} to sort in place")
    sizes = [p for p in params if p is not data and not p.pointer]
    if len(sizes) != 1 or len(params) != 2 or sizes[0].type not in ("size_t", "int", "unsigned"):
        raise AnnotationError("the sort's kernel takes more than the vector and its size")
    element = _element(data)
    size = sizes[0].name
    text_sig = global_definition(signature)
    return (
        _sort_preamble(args[2] if len(args) == 3 else None, root, element, function)
        + f"/* {function}: the sort as a bitonic sorting network in one kernel. The first blocks "
        "of whatever grid\n   the driver launches to arrive take the seats; the seated threads "
        "share each step's comparators\n   and meet at a barrier across the grid before the "
        "next step. */\n"
        f"{text_sig} {{\n"
        "    const unsigned pf_lane = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
        "threadIdx.z);\n"
        + seated(
            f"        const unsigned long long pf_n = (unsigned long long)({size});\n"
            + _bitonic_steps(over, "pf_n", element)
        )
        + "}\n"
    )


def _sort_preamble(
    order_arg: Node | None, root: Node, element: str, function: str, also: str = ""
) -> str:
    """The device code a sort's kernel opens with: the helpers, the grid barrier, the source's
    types, constants and helper functions the order (a sort's third argument, or `<` where
    there is none) and `also` (more device code of the kernel's) read, and
    `pf_sort_before(a, b)`, the order, followed by `also`."""
    helpers: dict[str, Node] = {}
    if order_arg is None:
        order = f"__device__ inline bool pf_sort_before(const {element} &a, const {element} &b) {{ return a < b; }}\n"
    else:
        order, helpers = _sort_order(order_arg, root, element, function)
    renamed = {h: f"pf_fn_{h}" for h in helpers}
    for old, new in renamed.items():
        order = re.sub(rf"\b{old}\b(?=\s*\()", new, order)
    device = "".join(f"__host__ __device__ {_device_math(helpers[h], renamed)}\n" for h in helpers)
    if _has_methods(root):
        raise AnnotationError("the source's types have methods, which the device cannot run")
    members = set(re.findall(r"(?:\.|->)\s*([A-Za-z_]\w*)", order + device + also))
    types = "".join(_type_definitions(root, members))
    if "std::" in types + order + device + also or "vector" in device or "string" in device:
        raise AnnotationError("the sort compares C++ library objects no kernel can")
    constants = _file_constants(root)
    read = set(re.findall(r"[A-Za-z_]\w*", order + device + types + also))
    wanted = _constants_reached(constants, read)
    consts = "".join(_device_constant(constants[c]) for c in constants if c in wanted)
    return (
        HELPERS
        + (_COMPLEX if "pf_cplx" in order + device + also else "")
        + consts
        + types
        + device
        + DONE
        + PHASES
        + order
        + also
    )


def _bitonic_steps(over: str, count: str, element: str) -> str:
    """The seated threads' code (`seated`) that sorts `over[0]` to `over[count - 1]` by
    `pf_sort_before` as a bitonic network (`_sort_kernel`), each step's comparators shared by
    tiles, a grid barrier after each step."""
    return (
        f"        unsigned long long pf_padded = 1;\n"
        f"        while (pf_padded < {count}) pf_padded <<= 1;\n"
        "        const unsigned long long pf_pairs = pf_padded / 2; /* comparators per step */\n"
        "        for (unsigned long long pf_run = 2; pf_run <= pf_padded; pf_run <<= 1) {\n"
        "            for (unsigned long long pf_d = pf_run / 2; pf_d > 0; pf_d /= 2) {\n"
        "                for (;;) {\n"
        "                    if (pf_lane == 0) pf_tile = atomicAdd(&pf_phase_next, 1ULL);\n"
        "                    __syncthreads();\n"
        "                    const unsigned long long pf_base = pf_tile * pf_span;\n"
        "                    if (pf_base >= pf_pairs) break; /* the same for the whole block */\n"
        "                    for (unsigned long long pf_c = pf_base + pf_lane; pf_c < pf_pairs && "
        "pf_c < pf_base + pf_span; pf_c += pf_width) {\n"
        "                        /* the lower element of comparator pf_c, and its partner: its "
        "mirror in the run\n                           at the run's first step, pf_d on after */\n"
        "                        const unsigned long long pf_i = pf_c / pf_d * 2 * pf_d + pf_c % pf_d;\n"
        "                        const unsigned long long pf_j = pf_d == pf_run / 2 ? pf_i ^ "
        "(pf_run - 1) : pf_i + pf_d;\n"
        f"                        if (pf_j < {count} && pf_sort_before({over}[pf_j], {over}[pf_i])) {{\n"
        f"                            const {element} pf_v = {over}[pf_i];\n"
        f"                            {over}[pf_i] = {over}[pf_j];\n"
        f"                            {over}[pf_j] = pf_v;\n"
        "                        }\n"
        "                    }\n"
        "                    __syncthreads(); /* before the next ticket overwrites the tile */\n"
        "                }\n"
        "                pf_cuda_grid_sync();\n"
        "            }\n"
        "        }\n"
    )


def _placed_sort_kernel(source: str, program: Program, function: str, signature: str) -> str | None:
    """The kernel for a function that sorts the elements of a vector it takes that a test
    selects, among their own places (`std::vector<int> kept; for (int v : x) if (v != 0)
    kept.push_back(v); std::sort(kept.begin(), kept.end()); size_t next = 0; for (auto &v : x)
    if (v != 0) v = kept[next++];`: the others stay where they are), or None where the function
    is no such sort; AnnotationError where it is one no kernel writes.

    The kept elements live in a static device store (`_KEPT_STORE`), or where they do not
    fit, in the device's heap for the launch (one block's thread allocates them, the block
    that ends last frees them; where the heap, 8 MB unless the host raised it, cannot hold
    them, the kernel stops the launch with a message). Phases of the seated blocks
    (`PHASES`): each tile of `x` counts its selected elements, one thread turns the counts
    into each tile's first place in `kept`, the tiles copy their selected elements there in
    order (a block's threads scan their counts), `kept` is sorted by the bitonic network of
    `_sort_kernel`, and the tiles write it back to the same places in the same order. The
    test must read the element alone, so it selects the same places before and after."""
    found = _function_body(source, program, function)
    if found is None:
        return None
    root, definition, body, statements = found
    _, params = signature_params(signature)
    sorts = [s for s in statements if _sorted_whole(s) is not None]
    if len(sorts) != 1:
        return None
    kept = _sorted_whole(sorts[0])
    assert kept is not None
    declaration = _top_declaration(statements, kept)
    kind = declaration.child_by_field_name("type") if declaration is not None else None
    declarator = declaration.child_by_field_name("declarator") if declaration is not None else None
    if declaration is None or kind is None or declarator is None or declarator.type != "identifier":
        return None  # sized or copied from something: not a vector the selection fills
    if len(declaration.children_by_field_name("declarator")) != 1:
        raise AnnotationError(f"{function} declares more than {kept} beside it")
    if _static(declaration):
        raise AnnotationError(f"{function}'s {kept} outlives a call: each call adds to it")
    gathers = [(s, _selection_loop(s, kept, gather=True)) for s in statements]
    places = [(s, _selection_loop(s, kept, gather=False)) for s in statements]
    gather = [(s, found) for s, found in gathers if found is not None]
    place = [(s, found) for s, found in places if found is not None]
    if len(gather) != 1 or len(place) != 1:
        return None
    (
        (gather_loop, (over, test, code, _, taken_as)),
        (place_loop, (over_again, test_again, _, next_name, put_as)),
    ) = (
        gather[0],
        place[0],
    )
    if over != over_again or test != test_again or next_name is None:
        raise AnnotationError(
            f"{function} writes its sorted elements to other places than it took them from"
        )
    counter = _top_declaration(statements, next_name)
    counted = counter.child_by_field_name("declarator") if counter is not None else None
    counter_value = counted.child_by_field_name("value") if counted is not None else None
    if counter is None or counter_value is None or compact_code(counter_value) not in _ZEROS:
        raise AnnotationError(f"{function} does not start {next_name} at the first kept element")
    counter_type = counter.child_by_field_name("type")
    if (
        len(counter.children_by_field_name("declarator")) != 1
        or _static(counter)
        or counter_type is None
        or " ".join(text(counter_type).split()).removeprefix("std::") not in _COUNTERS
    ):
        raise AnnotationError(
            f"{function}'s {next_name} is not one plain counter of 32 bits or more for this call"
        )
    order = [declaration, gather_loop, sorts[0], place_loop]
    spare = [
        s for s in statements if s not in order and s is not counter and not _reserves(s, kept)
    ]
    if spare or sorted(order, key=lambda s: s.start_byte) != order:
        raise AnnotationError(f"{function} does more than sort the elements it selects in place")
    if (
        counter.start_byte > place_loop.start_byte
        or _declarations(body, kept) != 1
        or _declarations(body, next_name) != 1
    ):
        raise AnnotationError(f"{function} names {kept} or {next_name} more than once")
    serial_params = dict(function_params(definition))
    by_name = {p.name: p for p in params}
    data = by_name.get(over)
    if over not in serial_params or "vector" not in text(serial_params[over]):
        raise AnnotationError(
            f"{function} sorts elements of {over}, which is not a vector it takes"
        )
    _by_reference(serial_params[over], function, over)
    if data is None or not data.pointer or "const" in data.type:
        raise AnnotationError(f"the kernel does not take {over} to sort in place")
    read = set(re.findall(r"[A-Za-z_]\w*", test))
    if {kept, next_name} & read:
        raise AnnotationError(f"{function}'s test reads {kept} or {next_name}, names of its own")
    scalars = {
        p.name: p.type
        for p in params
        if not p.pointer
        and p.name in read
        and p.name in serial_params
        and "vector" not in text(serial_params[p.name])
    }
    """The function's scalars the test reads (`v != limit`), which the kernel takes alike."""
    sizes = [p for p in params if p is not data and not p.pointer and p.name not in scalars]
    if (
        len(sizes) != 1
        or len(params) != 2 + len(scalars)
        or sizes[0].type not in ("size_t", "int", "unsigned")
    ):
        raise AnnotationError(
            "the sort's kernel takes more than the vector, its size and the test's scalars"
        )
    element = _element(data)
    if any(t and _same_type(t) != _same_type(element) for t in (taken_as, put_as)):
        raise AnnotationError(f"{function} converts {over}'s elements as it visits them")
    if _declarations(body, over):
        raise AnnotationError(f"a name of {function}'s own hides {over}")
    declared = _last_template(kind)
    arguments = declared.child_by_field_name("arguments") if declared is not None else None
    held = [t for t in arguments.named_children if t.type != "comment"] if arguments else []
    if len(held) != 1 or _same_type(" ".join(text(held[0]).split())) != _same_type(element):
        raise AnnotationError(f"{kept} holds another type than {over}'s elements")
    sort_args = _call_arguments(sorts[0])
    selected = _selection_test(code, element, set(_file_constants(root)), scalars)
    also = "".join(f", {name}" for name in scalars)
    size = sizes[0].name
    return (
        "#include <cstdio>\n#include <cstdlib>\n"  # the device's printf, malloc and free
        + _sort_preamble(
            sort_args[2] if len(sort_args) == 3 else None, root, element, function, selected
        )
        + f"__device__ alignas(16) unsigned char pf_kept_store[{_KEPT_STORE}]; /* static: not the heap's */\n"
        f"__device__ {element} *pf_kept = 0; /* the selected elements: the store, or the heap's */\n"
        "__device__ unsigned long long *pf_tile_first = 0; /* each tile's first place in pf_kept */\n"
        "__device__ unsigned long long pf_kept_count = 0;\n"
        "__device__ int pf_kept_in_heap = 0;\n"
        + f"/* {function}: the elements the test selects, copied out in order, sorted by a bitonic "
        "network and\n   written back to their places, in phases of the seated blocks of "
        "whatever grid the driver launches. */\n"
        f"{global_definition(signature)} {{\n"
        "    const unsigned pf_lane = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
        "threadIdx.z);\n"
        + seated(
            f"        const unsigned long long pf_n = (unsigned long long)({size});\n"
            "        const unsigned long long pf_tiles = (pf_n + pf_span - 1) / pf_span;\n"
            "        if (pf_seated == 1 && pf_lane == 0) {\n"
            f"            const unsigned long long pf_counts_at = (pf_n * sizeof({element}) + 15) / 16 * 16;\n"
            "            pf_kept_in_heap = pf_counts_at + pf_tiles * sizeof(unsigned long long) > "
            "sizeof(pf_kept_store);\n"
            "            if (!pf_kept_in_heap) {\n"
            f"                pf_kept = ({element} *)pf_kept_store;\n"
            "                pf_tile_first = (unsigned long long *)(pf_kept_store + pf_counts_at);\n"
            "            } else {\n"
            f"                pf_kept = ({element} *)malloc((pf_n ? pf_n : 1) * sizeof({element}));\n"
            "                pf_tile_first = (unsigned long long *)malloc((pf_tiles ? pf_tiles : 1) * "
            "sizeof(unsigned long long));\n"
            "            }\n"
            "            if (pf_kept == 0 || pf_tile_first == 0) {\n"
            '                printf("%s: the device heap cannot hold %llu elements (raise '
            'cudaLimitMallocHeapSize)\\n", "' + function + '", pf_n);\n'
            "                __trap();\n"
            "            }\n"
            "        }\n"
            "        pf_cuda_grid_sync();\n"
            f"        {element} *const pf_kept_at = *({element} *volatile *)&pf_kept;\n"
            "        unsigned long long *const pf_first = *(unsigned long long *volatile *)&pf_tile_first;\n"
            + _selected_tiles(over, "count", also)
            + "        pf_cuda_grid_sync();\n"
            "        if (pf_seated == 1 && pf_lane == 0) { /* the counts become first places */\n"
            "            unsigned long long pf_at = 0;\n"
            "            for (unsigned long long pf_t = 0; pf_t < pf_tiles; pf_t++) {\n"
            "                const unsigned long long pf_c = pf_first[pf_t];\n"
            "                pf_first[pf_t] = pf_at;\n"
            "                pf_at += pf_c;\n"
            "            }\n"
            "            pf_kept_count = pf_at;\n"
            "        }\n"
            "        pf_cuda_grid_sync();\n"
            + _selected_tiles(over, "gather", also)
            + "        pf_cuda_grid_sync();\n"
            "        const unsigned long long pf_m = *(volatile unsigned long long *)&pf_kept_count;\n"
            + _bitonic_steps("pf_kept_at", "pf_m", element)
            + _selected_tiles(over, "place", also),
            "        if (pf_kept_in_heap) {\n"
            "            free(pf_kept);\n"
            "            free(pf_tile_first);\n"
            "        }\n"
            "        pf_kept = 0;\n"
            "        pf_tile_first = 0;\n",
        )
        + "}\n"
    )


def _selected_tiles(over: str, step: str, scalars: str) -> str:
    """The seated threads' pass over the tiles of `over` for `_placed_sort_kernel`: each
    thread takes `TILE_ITEMS` elements in a row of its block's tile; `count` stores each
    tile's count of selected elements (`pf_first`), `gather` copies them to the kept
    elements (`pf_kept_at`) from the tile's first place, in order (the block's threads scan
    their counts), `place` writes the kept elements back to them alike. `scalars`: the
    test's arguments after the element (`, limit`)."""
    moved = {
        "gather": f"pf_kept_at[pf_at++] = {over}[pf_i];",
        "place": f"{over}[pf_i] = pf_kept_at[pf_at++];",
    }
    lines = (
        "        for (;;) {\n"
        "            if (pf_lane == 0) pf_tile = atomicAdd(&pf_phase_next, 1ULL);\n"
        "            __syncthreads();\n"
        "            const unsigned long long pf_base = pf_tile * pf_span;\n"
        "            if (pf_base >= pf_n) break; /* the same for the whole block */\n"
        f"            const unsigned long long pf_from = pf_base + (unsigned long long)pf_lane * {TILE_ITEMS};\n"
        f"            const unsigned long long pf_to = pf_from + {TILE_ITEMS} < pf_n ? pf_from + {TILE_ITEMS} : pf_n;\n"
        "            unsigned long long pf_mine = 0;\n"
        "            for (unsigned long long pf_i = pf_from; pf_i < pf_to; pf_i++)\n"
        f"                if (pf_selected({over}[pf_i]{scalars})) pf_mine++;\n"
    )
    if step == "count":
        lines += (
            "            const unsigned long long pf_all = pf_cuda_block_fold(pf_mine, pf_cuda_plus_f());\n"
            "            if (pf_lane == 0) pf_first[pf_tile] = pf_all;\n"
        )
    else:
        lines += (
            "            __shared__ unsigned long long pf_tile_total;\n"
            "            unsigned long long pf_at = pf_first[pf_tile]\n"
            "                + pf_cuda_block_scan(pf_mine, pf_cuda_plus_f(), 0ULL, &pf_tile_total);\n"
            "            for (unsigned long long pf_i = pf_from; pf_i < pf_to; pf_i++)\n"
            f"                if (pf_selected({over}[pf_i]{scalars})) {moved[step]}\n"
        )
    return lines + (
        "            __syncthreads(); /* before the next ticket overwrites the tile */\n        }\n"
    )


def _sorted_whole(statement: Node) -> str | None:
    """The vector `std::sort(v.begin(), v.end()[, order]);` sorts whole."""
    call = _expression_of(statement)
    callee = call.child_by_field_name("function") if call is not None else None
    args = _call_arguments(statement)
    if callee is None or text(callee) != "std::sort" or len(args) not in (2, 3):
        return None
    over = compact_code(args[0]).removesuffix(".begin()")
    if not re.fullmatch(r"[A-Za-z_]\w*", over) or compact_code(args[1]) != f"{over}.end()":
        return None
    return over


def _call_arguments(statement: Node) -> list[Node]:
    """The arguments of the call a statement is (`std::sort(a, b, order);`)."""
    call = _expression_of(statement)
    arguments = call.child_by_field_name("arguments") if call is not None else None
    return [a for a in arguments.named_children if a.type != "comment"] if arguments else []


def _reserves(statement: Node, name: str) -> bool:
    """Whether `statement` is `name.reserve(...)` with an argument without effects."""
    call = _expression_of(statement)
    callee = call.child_by_field_name("function") if call is not None else None
    return (
        call is not None
        and callee is not None
        and compact_code(callee) == f"{name}.reserve"
        and all(_without_effects(a) for a in _call_arguments(statement))
    )


_KEPT_STORE = 1 << 26
"""Bytes of static device memory for `_placed_sort_kernel`'s kept elements and tile counts
(64 MB: 16 million `int`s); more comes from the device heap, 8 MB unless the host raises it."""
_ZEROS = frozenset({"0", "{0}", "(0)", "0u", "0U", "0ul", "0UL", "0ull", "0ULL"})
"""A counter's first value written as zero."""
_COUNTERS = frozenset(
    {"int", "unsigned", "unsigned int", "long", "unsigned long", "long long",
     "unsigned long long", "size_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "ptrdiff_t"}
)  # fmt: skip
"""Counters of 32 bits or more, the types a count of a vector's kept elements may take."""


def _by_reference(param: Node, function: str, name: str) -> None:
    """AnnotationError where the function takes the vector it sorts by value: its sort
    changes its own copy, and the caller's stays as it was."""
    declarator = param.child_by_field_name("declarator")
    if declarator is None or declarator.type != "reference_declarator" or "&&" in text(declarator):
        raise AnnotationError(f"{function} takes {name} by value: the caller's stays as it was")


_PLACEHOLDER = "pf_e"
"""The element's name in a selection's test as `_selection_loop` returns it."""


def _selection_loop(
    loop: Node, kept: str, *, gather: bool
) -> tuple[str, str, str, str | None, str] | None:
    """(vector, test, code, counter, declared type: `_visited_elements`) where `loop` visits each element of a vector in order and,
    where the test holds, `gather`: appends it to `kept` (`kept.push_back(v)`); else: sets it
    to `kept[counter++]` (or `kept[counter]` then `counter++`). The test is the `if`'s
    condition as its tokens, the element one token `pf_e` (equal for tests that differ in
    layout alone), the code its text with the element written `pf_e`; the counter None for a
    gather. None for any other loop."""
    visited = _visited_elements(loop)
    if visited is None:
        return None
    over, statement, elements, by_reference, declared = visited
    branch = _sole_statement(statement)
    if branch is None or branch.type != "if_statement":
        return None
    if branch.child_by_field_name("alternative") is not None:
        return None
    condition = branch.child_by_field_name("condition")
    steps = _branch_steps(branch.child_by_field_name("consequence") or branch)
    if condition is None or not _without_effects(condition):
        return None
    tested = [n for n in elements if _within(n, condition)]
    code = _rewrite(condition, [(n.start_byte, n.end_byte, _PLACEHOLDER) for n in tested])
    test = " ".join(
        _PLACEHOLDER if element is not None else text(t)
        for t in tokens(condition)
        if (element := next((n for n in tested if _within(t, n)), None)) is None
        or t.start_byte == element.start_byte
    )
    inside = {n.start_byte for n in elements}
    if gather:
        call = _expression_of(steps[0]) if len(steps) == 1 else None
        callee = call.child_by_field_name("function") if call is not None else None
        arguments = _call_arguments(steps[0]) if call is not None else []
        if (
            callee is None
            or compact_code(callee) not in (f"{kept}.push_back", f"{kept}.emplace_back")
            or len(arguments) != 1
            or not any(
                (n.start_byte, n.end_byte) == (arguments[0].start_byte, arguments[0].end_byte)
                for n in elements
            )
        ):
            return None
        return over, test, code, None, declared
    if not by_reference or not steps or len(steps) > 2:
        return None
    store = _expression_of(steps[0])
    left = store.child_by_field_name("left") if store is not None else None
    right = store.child_by_field_name("right") if store is not None else None
    if (
        store is None
        or store.type != "assignment_expression"
        or text(store.child_by_field_name("operator") or store) != "="
        or left is None
        or right is None
        or left.start_byte not in inside
    ):
        return None
    taken = compact_code(right)
    match = re.fullmatch(rf"{re.escape(kept)}\[(\+\+)?([A-Za-z_]\w*)(\+\+)?\]", taken)
    if match is None:
        return None
    counter = match[2]
    if counter in {text(n) for n in elements}:
        return None  # `kept[v++]` with `v` the element: a place of the element's value
    if match[1]:
        return None  # `kept[++next]`: one place on
    if len(steps) == 2:
        stepped = _expression_of(steps[1])
        if (
            match[3]
            or stepped is None
            or compact_code(stepped) not in (f"++{counter}", f"{counter}++", f"{counter}+=1")
        ):
            return None
    elif not match[3]:
        return None
    return over, test, code, counter, declared


def _visited_elements(loop: Node) -> tuple[str, Node, list[Node], bool, str] | None:
    """(vector, body, element nodes, by reference, declared type) where `loop` visits each
    element of a
    vector by name in order and reads nothing else of the loop's own: `for (T v : x)` (the
    element the identifier `v`; by reference where declared `&`) or `for (size_t i = 0; i <
    x.size(); ++i)` (the element `x[i]`, the counter read nowhere else: an element by
    reference). The declared type is the range's element's (`int` of `const int &v`), empty
    for `auto` and counted loops. None for any other loop."""
    body = loop.child_by_field_name("body")
    if body is None:
        return None
    if loop.type == "for_range_loop":
        over = loop.child_by_field_name("right")
        declarator = loop.child_by_field_name("declarator")
        kind = loop.child_by_field_name("type")
        name = declared_name(declarator) if declarator is not None else None
        if over is None or over.type != "identifier" or name is None or kind is None:
            return None
        elements = [n for n in walk(body) if n.type == "identifier" and text(n) == name]
        by_reference = declarator is not None and declarator.type == "reference_declarator"
        declared = " ".join(text(kind).replace("const", " ").split())
        return text(over), body, elements, by_reference, "" if declared == "auto" else declared
    if loop.type != "for_statement":
        return None
    counter = _counts_up_by_one(loop)
    start = loop.child_by_field_name("initializer")
    condition = loop.child_by_field_name("condition")
    if counter is None or start is None or condition is None:
        return None
    value = start.children_by_field_name("declarator")[0].child_by_field_name("value")
    test = unwrap(condition)
    bound = test.child_by_field_name("right")
    if value is None or text(value) != "0" or text(test.children[1]) != "<" or bound is None:
        return None
    sized = re.fullmatch(r"([A-Za-z_]\w*)\.size\(\)", compact_code(bound))
    if sized is None:
        return None
    vector = sized[1]
    elements = []
    for n in walk(body):
        if n.type == "identifier" and text(n) == counter:
            read = n.parent
            if read is not None and read.type == "subscript_argument_list":
                read = read.parent
            if (
                read is None
                or read.type != "subscript_expression"
                or _subscript_index(read) != n
                or text(read.child_by_field_name("argument") or read) != vector
            ):
                return None
            elements.append(read)
    return vector, body, elements, True, ""


def _selection_test(test: str, element: str, constants: set[str], scalars: dict[str, str]) -> str:
    """`pf_selected(v, ...)`, the device's form of a selection's test (`_selection_loop`): its
    element `pf_e`, then the `scalars` it reads (name: type), math calls without `std::`;
    AnnotationError where the test reads more than these, `constants` (the source's) and
    math."""
    taken = "".join(f", const {kind} {name}" for name, kind in scalars.items())
    tree = syntax_tree(f"bool pf_t(const {element} pf_e{taken}) {{ return {test}; }}", Language.CPP)
    definition = next(function_definitions(tree.root_node), None)
    if definition is None or tree.root_node.has_error:
        raise AnnotationError(f"the selection's test {test} does not read as one")
    calls = {
        text(c.child_by_field_name("function") or c).removeprefix("std::")
        for c in walk(definition)
        if c.type == "call_expression" and not _is_cast(c.child_by_field_name("function") or c)
    }
    strays = sorted(
        _names(definition.child_by_field_name("body"))
        - {_PLACEHOLDER, "static_cast"}
        - set(scalars)
        - _MATH
        - _CONSTANTS
        - constants
    )
    if strays or calls - _MATH:
        raise AnnotationError(f"the selection's test reads {(strays or sorted(calls - _MATH))[0]}")
    code = _device_math(definition, {}).replace("bool pf_t(", "bool pf_selected(", 1)
    return f"__device__ inline {code}\n"


_KEYS = {
    # element type: (bits, kind) of the order-keeping unsigned key `_select_kernel` counts by
    "int": (32, "signed"), "int32_t": (32, "signed"), "long long": (64, "signed"),
    "long": (64, "signed"), "int64_t": (64, "signed"), "unsigned": (32, "unsigned"),
    "unsigned int": (32, "unsigned"), "uint32_t": (32, "unsigned"), "size_t": (64, "unsigned"),
    "unsigned long": (64, "unsigned"), "unsigned long long": (64, "unsigned"),
    "uint64_t": (64, "unsigned"), "float": (32, "floating"), "double": (64, "floating"),
}  # fmt: skip


def _select_kernel(source: str, program: Program, function: str, signature: str) -> str | None:
    """The kernel for a function that sorts a copy of a vector it takes and returns one
    element of it (`std::vector<int> y(x); std::sort(y.begin(), y.end()); return y[k - 1];`,
    scalar declarations besides), or None where the function is no such selection.

    No copy is sorted: the element of rank r is found bit by bit from the top of a key that
    orders as the elements do (an integer with its sign bit flipped, a floating number's bits
    with the negatives' reversed), each bit by counting the elements that agree with the
    bits found so far and have a 0 there: r below that count, the bit is 0, else 1 and r less
    the count. One count per bit of the type (32 or 64), each a loop in phases (`PHASES`):
    the seated blocks share the elements by tiles, total into a device counter of that bit
    and meet at the grid barrier; then every thread, alike, takes the bit."""
    found = _function_body(source, program, function)
    if found is None:
        return None
    _, definition, _, statements = found
    sorts = [
        i
        for i, s in enumerate(statements)
        if s.type == "expression_statement" and text(s).replace(" ", "").startswith("std::sort(")
    ]
    if len(sorts) != 1 or sorts[0] < 1 or sorts[0] != len(statements) - 2:
        return None
    sort, returned = statements[sorts[0]], statements[-1]
    copy = statements[sorts[0] - 1]
    into = _sorted_in_place(sort)
    if into is None or returned.type != "return_statement":
        return None
    serial_params = dict(function_params(definition))
    over = _copied_from(copy, into)
    read = returned.named_children[0] if returned.named_children else None
    if over is None or read is None or read.type != "subscript_expression":
        return None
    if text(read.child_by_field_name("argument") or read) != into:
        return None
    if over not in serial_params or "vector" not in text(serial_params[over]):
        return None
    index = _subscript_index(read)
    if index is None:
        return None
    _, params = signature_params(signature)
    by_name = {p.name: p for p in params}
    data, outputs = by_name.get(over), [p for p in params if p.pointer and p.name != over]
    sizes = [p for p in params if not p.pointer and p.name not in serial_params]
    if data is None or not data.pointer or len(outputs) != 1 or len(sizes) != 1:
        raise AnnotationError(
            "the selection's kernel does not take the vector, a size and a result"
        )
    element = _element(data)
    if _same_type(element) not in {_same_type(k) for k in _KEYS} or _same_type(
        _element(outputs[0])
    ) != _same_type(element):
        raise AnnotationError(f"no order-keeping key for {element} (or the result is not one)")
    bits, kind = next(v for k, v in _KEYS.items() if _same_type(k) == _same_type(element))
    size = f"(size_t)({sizes[0].name})"
    setup = []
    for statement in statements[: sorts[0] - 1]:
        if not _scalar(statement):
            raise AnnotationError(f"{function} does more than select: {text(statement)[:60]}")
        setup.append(statement)
    locals_ = {declared_name(s.child_by_field_name("declarator")) for s in setup}
    parts = [*setup, index]
    edits = [
        (c.start_byte, c.end_byte, size)
        for part in parts
        for c in walk(part)
        if c.type == "call_expression"
        and text(c).replace(" ", "") in (f"{over}.size()", f"{into}.size()")
    ]
    for part in parts:
        for c in walk(part):
            if c.type == "call_expression" and not any(e[0] <= c.start_byte < e[1] for e in edits):
                raise AnnotationError(f"the selection calls {text(c)[:40]}, which it cannot")
    strays = (
        {
            text(n)
            for part in parts
            for n in walk(part)
            if n.type == "identifier" and not any(e[0] <= n.start_byte < e[1] for e in edits)
        }
        - set(by_name)
        - locals_
        - _CONSTANTS
    )
    if strays:
        raise AnnotationError(f"the selection reads {sorted(strays)[0]}, which the kernel lacks")
    lines = "".join(f"        {_rewrite(s, edits)}\n" for s in setup)
    unsigned = "unsigned" if bits == 32 else "unsigned long long"
    top = f"{'1U' if bits == 32 else '1ULL'} << {bits - 1}"
    if kind == "floating":
        to_key = (
            f"    {unsigned} b; memcpy(&b, &v, sizeof b);\n"
            f"    return (b & ({top})) ? ~b : b | ({top});\n"
        )
        from_key = (
            f"    {unsigned} b = (k & ({top})) ? k & ~({top}) : ~k;\n"
            f"    {element} v; memcpy(&v, &b, sizeof v);\n    return v;\n"
        )
    elif kind == "signed":
        to_key = f"    return ({unsigned})v ^ ({top});\n"
        from_key = f"    return ({element})(({unsigned})k ^ ({top}));\n"
    else:
        to_key, from_key = "    return v;\n", f"    return ({element})k;\n"
    helpers = (
        f"__device__ unsigned long long pf_select_count[{bits}]; /* per bit: elements with a 0 */\n"
        f"/* A key whose order is {element}'s (as unsigned {bits}-bit numbers), and back. */\n"
        f"__device__ inline {unsigned} pf_select_key({element} v) {{\n{to_key}}}\n"
        f"__device__ inline {element} pf_select_value({unsigned} k) {{\n{from_key}}}\n"
    )
    text_sig = global_definition(signature)
    return (
        HELPERS
        + DONE
        + PHASES
        + helpers
        + f"/* {function}: the element of the sorted copy's rank, found bit by bit in one kernel: "
        "the seated\n   threads of whatever grid the driver launches count, per bit, the "
        "elements that agree with the bits\n   found so far and have a 0 there, and meet at a "
        "barrier across the grid before taking it. */\n"
        f"{text_sig} {{\n"
        "    const unsigned pf_lane = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
        "threadIdx.z);\n"
        + seated(
            f"{lines}"
            f"        const unsigned long long pf_n = (unsigned long long){size};\n"
            f"        unsigned long long pf_rank = (unsigned long long)({_rewrite(index, edits)});\n"
            f"        {unsigned} pf_found = 0; /* the key's bits above pf_bit */\n"
            f"        for (int pf_bit = {bits - 1}; pf_bit >= 0; --pf_bit) {{\n"
            f"            const {unsigned} pf_above = pf_bit == {bits - 1} ? 0 : ~((({unsigned})2 << pf_bit) - 1);\n"
            "            unsigned long long pf_zeros = 0;\n"
            "            for (;;) {\n"
            "                if (pf_lane == 0) pf_tile = atomicAdd(&pf_phase_next, 1ULL);\n"
            "                __syncthreads();\n"
            "                const unsigned long long pf_base = pf_tile * pf_span;\n"
            "                if (pf_base >= pf_n) break; /* the same for the whole block */\n"
            "                for (unsigned long long pf_i = pf_base + pf_lane; pf_i < pf_n && pf_i < "
            "pf_base + pf_span; pf_i += pf_width) {\n"
            f"                    const {unsigned} pf_k = pf_select_key({over}[pf_i]);\n"
            "                    pf_zeros += (pf_k & pf_above) == pf_found && !((pf_k >> pf_bit) & 1);\n"
            "                }\n"
            "                __syncthreads(); /* before the next ticket overwrites the tile */\n"
            "            }\n"
            "            pf_zeros = pf_cuda_block_fold(pf_zeros, pf_cuda_plus_f());\n"
            "            if (pf_lane == 0) atomicAdd(&pf_select_count[pf_bit], pf_zeros);\n"
            "            pf_cuda_grid_sync();\n"
            "            const unsigned long long pf_below = *(volatile unsigned long long "
            "*)&pf_select_count[pf_bit];\n"
            "            if (pf_rank >= pf_below) {\n"
            "                pf_rank -= pf_below;\n"
            f"                pf_found |= ({unsigned})1 << pf_bit;\n"
            "            }\n"
            "        }\n"
            f"        if (pf_seated == 1 && pf_lane == 0) *{outputs[0].name} = pf_select_value(pf_found);\n",
            f"        for (int pf_bit = 0; pf_bit < {bits}; ++pf_bit) "
            "*(volatile unsigned long long *)&pf_select_count[pf_bit] = 0;\n",
        )
        + "}\n"
    )


def _sorted_in_place(statement: Node) -> str | None:
    """The vector `std::sort(v.begin(), v.end());` sorts whole by its elements' own order."""
    match = re.fullmatch(
        r"std::sort\((\w+)\.begin\(\),(\w+)\.end\(\)\);", text(statement).replace(" ", "")
    )
    return match.group(1) if match is not None and match.group(1) == match.group(2) else None


def _copied_from(statement: Node, into: str) -> str | None:
    """The name `std::vector<T> into(x);` (or `= x;`) copies, where `statement` is that."""
    copied = re.fullmatch(
        rf"std::vector<([\w\s:]+)>{into}(?:\((\w+)\)|=(\w+));", text(statement).replace(" ", "")
    ) or re.fullmatch(
        rf"std::vector<([\w\s:]+)>\s+{into}\s*(?:\(\s*(\w+)\s*\)|=\s*(\w+))\s*;",
        text(statement),
    )
    return (copied.group(2) or copied.group(3)) if copied is not None else None


def _sort_order(
    order: Node, root: Node, element: str, function: str
) -> tuple[str, dict[str, Node]]:
    """`pf_sort_before(a, b)` for a sort's third argument: `std::less<T>()` or
    `std::greater<T>()` (or `{}`), or a lambda that captures nothing, whose body becomes the
    device function's (its math calls without `std::`); and the source's helpers it calls."""
    called = text(order.child_by_field_name("function") or order)
    if order.type in ("call_expression", "compound_literal_expression", "initializer_list"):
        library = re.sub(r"<.*", "", called.split("{")[0]).strip()
        compared = re.search(r"<(.*)>", called.split("{")[0])
        if (
            library in _ORDERS
            and compared is not None
            and compared[1].strip()
            and _same_type(" ".join(compared[1].split())) != _same_type(element)
        ):
            raise AnnotationError(
                f"{function} sorts by {library}<{compared[1].strip()}>, which compares the "
                f"elements converted from {element}"
            )
        if library in _ORDERS:
            return (
                f"__device__ inline bool pf_sort_before(const {element} &a, const {element} &b) "
                f"{{ return {_ORDERS[library]}; }}\n",
                {},
            )
    if order.type != "lambda_expression":
        raise AnnotationError(f"{function} sorts by {text(order)[:40]}, which a kernel cannot")
    captures = order.child_by_field_name("captures")
    declarator = order.child_by_field_name("declarator")
    body = order.child_by_field_name("body")
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    if captures is None or text(captures).replace(" ", "") != "[]" or parameters is None:
        raise AnnotationError("the sort's comparison captures names, or takes no parameters")
    if body is None or len(parameters.named_children) != 2:
        raise AnnotationError("the sort's comparison does not take two elements")
    own = {declared_name(p.child_by_field_name("declarator")) for p in parameters.named_children}
    callees = {
        text(c.child_by_field_name("function") or c).removeprefix("std::")
        for c in walk(body)
        if c.type == "call_expression"
    }
    helpers = _helper_functions(root, callees - _MATH, function)
    edits = []
    for call in walk(body):
        callee = call.child_by_field_name("function") if call.type == "call_expression" else None
        if callee is None:
            continue
        bare = text(callee).removeprefix("std::")
        complex_call = bare in _COMPLEX_CALLS and (element in _CUDA_COMPLEX or "cplx" in element)
        if bare not in _MATH and bare not in helpers and not complex_call:
            raise AnnotationError(
                f"the sort's comparison calls {text(callee)}, which a kernel cannot"
            )
        if bare in PROMOTED and bare not in helpers:
            edits.append((callee.start_byte, callee.end_byte, f"pf_{bare}"))
        elif text(callee).startswith("std::"):
            edits.append((callee.start_byte, callee.end_byte, bare))
    edits += _complex_edits([parameters, body])
    constants = _file_constants(root)
    strays = sorted(
        {text(n) for n in walk(body) if n.type == "identifier"}
        - own - callees - _MATH - _CONSTANTS - set(constants)
    )  # fmt: skip
    if strays:
        raise AnnotationError(f"the sort's comparison reads {strays[0]}, which it does not take")
    return (
        f"__device__ inline bool pf_sort_before{_rewrite(parameters, edits)} "
        f"{_rewrite(body, edits)}\n",
        helpers,
    )


def as_loops(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` and its analysis with `function`'s standard algorithms, searches for whether
    some element holds and loops over a vector's elements written as the counted loops they
    run (the rewrites of `_lowered` that keep the function's work what it was: no sorted
    copy's queries as counts), tests on the counter plus an offset as tests on the counter
    (`_offset_tests`) and running extremes in place as running values
    (`_in_place_recurrences`), for a writer that divides loops (MPI's `distribute`)."""
    source, program = _plain_iterators(source, program, function)
    source, program = _inlined_lambdas(source, program, function)
    source, program = _one_name_per_declaration(source, program, function)
    source, program = _counted_whiles(source, program, function)
    source, program = _statement_algorithms(source, program, function)
    source, program = _exits_as_flags(source, program, function)
    source, program = _indexed_scans(source, program, function)
    source, program = _first_index_of(source, program, function)
    source, program = _while_searches(source, program, function)
    source, program = _extreme_indices(source, program, function)
    source, program = _index_argmins(source, program, function)
    source, program = _offset_tests(source, program, function)
    source, program = _in_place_recurrences(source, program, function)
    source, program = _bounds_declared_apart(source, program, function)
    source, program = _iterator_loops(source, program, function)
    return _algorithm_as_loop(source, program, function)


_ORDERING = frozenset({"<", "<=", ">", ">="})
_FLOATING_CALLS = frozenset(
    {"fabs", "sqrt", "pow", "exp", "log", "log2", "log10", "sin", "cos", "tan", "atan",
     "atan2", "hypot", "fmin", "fmax", "floor", "ceil", "round", "fmod", "cbrt"}
)  # fmt: skip


def _extreme_indices(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with a returned index of `std::min_element` or `std::max_element` over a whole
    vector parameter (`return std::distance(x.begin(), std::min_element(x.begin(), x.end(),
    comp));`, or the iterator named first, `auto it = ...; return it - x.begin();`) written as
    the loop the library runs, and its analysis; both as they are where none applies:

        size_t best = 0;
        for (size_t k = 1; k < x.size(); ++k) if (comp(x[k], x[best])) best = k;
        return best;

    (`comp(x[best], x[k])` for the largest: the first of equal extremes either way; `<` where
    there is no comparison; an empty vector's index 0, its end's, as the library's). The
    comparison must be a lambda of one `return` that assigns nothing, made in the call (what
    it captures is read as the library's calls read it); the index loop is then an argmin like
    any other (`_index_argmins`)."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, statements = found
    params = dict(function_params(definition))
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    for at, statement in enumerate(statements):
        if statement.type != "return_statement" or not statement.named_children:
            continue
        returned = statement.named_children[0]
        named = statements[at - 1] if at > 0 else None
        declarator = (
            named.child_by_field_name("declarator")
            if named is not None and named.type == "declaration"
            else None
        )
        value = declarator.child_by_field_name("value") if declarator is not None else None
        iterator = declared_name(declarator) if value is not None else None
        uses = [n for n in walk(body) if n.type == "identifier" and text(n) == iterator]
        if len(uses) != 2:  # declared and returned, nothing else
            iterator, value = None, None
        found_index = _returned_extreme(returned, iterator, value, params)
        if found_index is None:
            continue
        over, largest, order, named_first = found_index
        start = named.start_byte if named is not None and named_first else statement.start_byte
        of = _VECTOR_OF.match(text(params[over]))
        kind = " ".join(of.group(1).split()) if of else None
        best = next(f"best_{n}" for n in range(100) if f"best_{n}" not in taken)
        k = next(f"k_{n}" for n in range(100) if f"k_{n}" not in taken)
        pair = [(f"{over}[{k}]", kind), (f"{over}[{best}]", kind)]
        if largest:
            pair.reverse()
        if order is None:
            test = f"{pair[0][0]} < {pair[1][0]}"
        else:
            applied = _lambda_value(order, pair)
            if applied is None:
                continue
            test = applied  # made where it is used: what it captures is read as it was
        indent = " " * statement.start_point[1]
        returns = " ".join(text(definition.child_by_field_name("type") or definition).split())
        if "auto" in returns.split() or "decltype" in returns:
            continue  # the library's index type is the result's: a size_t would change it
        index = returns if returns.removeprefix("std::") in _WIDE_INDICES else "size_t"
        written = (
            f"{index} {best} = 0;\n{indent}for (size_t {k} = 1; {k} < {over}.size(); ++{k}) {{\n"
            f"{indent}    if ({test}) {best} = {k};\n{indent}}}\n{indent}return {best};"
        )
        raw = source.encode()
        new_body = (
            raw[body.start_byte : start]
            + written.encode()
            + raw[statement.end_byte : body.end_byte]
        ).decode()
        return _body_replaced(source, program, body, new_body)
    return source, program


_WIDE_INDICES = frozenset(
    {"size_t", "long", "long long", "unsigned long", "unsigned long long", "ptrdiff_t", "int64_t",
     "uint64_t", "long int", "long long int"}
)  # fmt: skip
"""Return types an index of any vector fits (an `int` result is the index cut where it is
returned: the loop keeps it whole, in a `size_t`)."""


def _returned_extreme(
    returned: Node, iterator: str | None, value: Node | None, params: dict[str, Node]
) -> tuple[str, bool, Node | None, bool] | None:
    """(the vector, whether the largest, the comparison, whether through `iterator`) where
    `returned` is the index of a min/max element of a whole vector parameter:
    `std::distance(x.begin(), it)` or `it - x.begin()`, `it` the call itself or `iterator`,
    which `value` holds."""
    distance = None
    if (
        returned.type == "call_expression"
        and text(returned.child_by_field_name("function") or returned) == "std::distance"
    ):
        arguments = returned.child_by_field_name("arguments")
        args = [a for a in arguments.named_children if a.type != "comment"] if arguments else []
        if len(args) == 2:
            distance = (args[0], args[1])
    elif returned.type == "binary_expression" and text(returned.children[1]) == "-":
        left, right = returned.child_by_field_name("left"), returned.child_by_field_name("right")
        if left is not None and right is not None:
            distance = (right, left)
    if distance is None:
        return None
    begin, it = distance
    named_first = iterator is not None and text(it) == iterator
    call = value if named_first else it
    if call is None or call.type != "call_expression":
        return None
    callee = text(call.child_by_field_name("function") or call)
    largest = {"std::min_element": False, "std::max_element": True}.get(callee)
    arguments = call.child_by_field_name("arguments")
    args = [a for a in arguments.named_children if a.type != "comment"] if arguments else []
    if largest is None or len(args) not in (2, 3):
        return None
    over = compact_code(args[0]).removesuffix(".begin()")
    if (
        over not in params
        or compact_code(args[0]) != f"{over}.begin()"
        or compact_code(args[1]) != f"{over}.end()"
        or compact_code(begin) != f"{over}.begin()"
        or _VECTOR_OF.match(text(params[over])) is None
    ):
        return None
    order = args[2] if len(args) == 3 else None
    if order is not None and order.type != "lambda_expression":
        return None
    return over, largest, order, named_first


def _index_argmins(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with each argmin kept by its index alone,

        for (T i = lo; i < hi; ++i) if (e(i) < e(best)) best = i;

    (`e(best)` being `e(i)` with `best` for `i`; `<=`, `>`, `>=` alike, either side first)
    written as the best update it is, its value kept beside the index:

        V v = lo < hi ? e(best) : (V)0;  // read only where the loop runs, as the original does
        for (...) { V c = e(i); if (c < v) { v = c; best = i; } }

    `V` is `double` where `e` computes in floating point (a floating literal, `M_PI`, a
    floating math call, a floating vector's element or parameter), else `long long` (or
    `unsigned long long` where a 64-bit unsigned integer takes part): the value is kept
    exactly, so every comparison is the original's. Both sides must be without effects,
    `best` named nowhere else in the loop and the loop counting up by one to a bound;
    otherwise the source is left as it is."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    root, definition, body, statements = found
    params = dict(function_params(definition))
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    declared = {
        declared_name(s.child_by_field_name("declarator")): s
        for s in statements
        if s.type == "declaration"
        and len(s.children_by_field_name("declarator")) == 1
        and not _static(s)  # a `static` index keeps its value between calls
    }
    typed = _typed_names(root, definition, statements)
    edits: list[tuple[int, int, str]] = []
    for at, statement in enumerate(statements):
        if statement.type != "for_statement":
            continue
        # names declared before the loop that no statement between sets or reads
        untouched = {
            name
            for name, declaration in declared.items()
            if name is not None
            and declaration.start_byte < statement.start_byte
            and not any(
                declaration.end_byte <= s.start_byte and name in _names(s) for s in statements[:at]
            )
        }
        known = {**_visible_before(typed, statement), **params}
        rewritten = _argmin_by_value(statement, known, declared, taken, untouched)
        if rewritten is not None:
            edits.append((statement.start_byte, statement.end_byte, rewritten))
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _typed_names(root: Node, definition: Node, statements: list[Node]) -> dict[str, Node]:
    """Name → the declaration that gives its type, for the values an argmin's comparison may
    read beside the function's parameters: the body's own top-level declarations of a name
    it declares once, and, for a function that is no method (whose class's members would
    hide them), the file's declarations of a name it declares once and the function nowhere.
    Only a plain value or a one-level array or pointer (`int a[N]`, `int *p`, a vector): its
    declaration's type is what the name, or its element, holds. A loop reads only those that
    end before it (`_visible_before`)."""
    found: dict[str, Node] = {}
    declarator = definition.child_by_field_name("declarator")
    named = declarator.child_by_field_name("declarator") if declarator is not None else None
    method = (definition.parent is not None and definition.parent.type != "translation_unit") or (
        named is not None and named.type != "identifier"  # `C::m`, an operator
    )
    file = [] if method else [c for c in root.children if c.type == "declaration"]
    at_file = Counter(
        declared_name(d) for c in file for d in c.children_by_field_name("declarator")
    )
    body = [s for s in statements if s.type == "declaration"]
    for scope, declarations in (("file", file), ("body", body)):
        for declaration in declarations:
            for d in declaration.children_by_field_name("declarator"):
                name = declared_name(d)
                if name is None or _depth(d) > 1:
                    continue
                here = _declarations(definition, name)
                if scope == "file" and (here or at_file[name] != 1):
                    continue  # the function's own, or declared twice at file scope
                if scope == "body" and here != 1:
                    continue
                found[name] = declaration
    return found


def _visible_before(typed: dict[str, Node], loop: Node) -> dict[str, Node]:
    """Those of `typed` declared before `loop` (the file's come before the function)."""
    return {name: d for name, d in typed.items() if d.end_byte <= loop.start_byte}


def _depth(declarator: Node) -> int:
    """How many subscripts or dereferences a declarator's name takes to reach its declared
    type (`a[N]`, `*p`: 1; `a[N][M]`, `**p`: 2); references count none."""
    depth = 0
    node: Node | None = declarator
    while node is not None and node.type != "identifier":
        if node.type in ("array_declarator", "pointer_declarator"):
            depth += 1
        if node.type in ("function_declarator", "abstract_function_declarator"):
            return 99
        node = node.child_by_field_name("declarator") or next(
            (
                c
                for c in node.named_children
                if c.type.endswith("declarator") or c.type == "identifier"
            ),
            None,
        )
    return depth


def _argmin_by_value(
    loop: Node,
    params: dict[str, Node],
    declared: dict[str | None, Node],
    taken: set[str],
    untouched: set[str],
) -> str | None:
    """The loop and the declaration before it `_index_argmins` writes, or None."""
    start = loop.child_by_field_name("initializer")
    condition = loop.child_by_field_name("condition")
    body = loop.child_by_field_name("body")
    if start is None or condition is None or body is None or start.type != "declaration":
        return None
    if _counts_up_by_one(loop) is None:
        return None  # a header that steps other names, or a bound with effects
    starts = start.children_by_field_name("declarator")
    first = starts[0].child_by_field_name("value") if len(starts) == 1 else None
    var = declared_name(starts[0]) if len(starts) == 1 else None
    steps = _branch_steps(body)
    if first is None or var is None or len(steps) != 1 or steps[0].type != "if_statement":
        return None
    test = steps[0]
    then = test.child_by_field_name("consequence")
    if then is None or test.child_by_field_name("alternative") is not None:
        return None
    assigned = _branch_steps(then)
    expr = _expression_of(assigned[0]) if len(assigned) == 1 else None
    if expr is None or expr.type != "assignment_expression":
        return None
    target, value = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    operator = expr.child_by_field_name("operator")
    if target is None or value is None or operator is None or text(operator) != "=":
        return None
    best = text(target)
    if target.type != "identifier" or text(value) != var or best not in declared or best == var:
        return None
    kind = declared[best].child_by_field_name("type")
    if kind is None or " ".join(text(kind).replace("const", "").split()) not in _INTEGRAL:
        return None
    clause = test.child_by_field_name("condition")
    inner = [c for c in clause.named_children if c.type != "comment"] if clause else []
    comparison = unwrap(inner[0]) if len(inner) == 1 else None
    if comparison is None or comparison.type != "binary_expression":
        return None
    op = text(comparison.children[1])
    left, right = comparison.child_by_field_name("left"), comparison.child_by_field_name("right")
    if op not in _ORDERING or left is None or right is None:
        return None
    if sum(n.type == "identifier" and text(n) == best for n in walk(loop)) != 2:
        return None  # `best` read or written anywhere but the comparison and the update
    sides = []
    for side in (left, right):
        names = {text(n) for n in walk(side) if n.type == "identifier"}
        sides.append((side, var in names, best in names))
    if {(a, b) for _, a, b in sides} != {(True, False), (False, True)}:
        return None
    mine = next(side for side, by_var, _ in sides if by_var)
    theirs = next(side for side, _, by_best in sides if by_best)
    initial = declared[best].children_by_field_name("declarator")[0].child_by_field_name("value")
    if initial is None:
        return None
    as_best = _rewrite(
        mine,
        [
            (n.start_byte, n.end_byte, best)
            for n in walk(mine)
            if n.type == "identifier" and text(n) == var
        ],
    )
    if "".join(as_best.split()) != "".join(text(theirs).split()):
        return None
    if not _without_effects(mine):
        return None
    value_type = _value_type(mine, params, {var, best})
    if value_type is None:
        return None
    suffixes = ("value", *(f"value_{k}" for k in range(1000)))
    kept = next(f"{best}_{n}" for n in suffixes if f"{best}_{n}" not in taken)
    candidate = next(f"{var}_{n}" for n in suffixes if f"{var}_{n}" not in taken)
    taken.update((kept, candidate))
    runs = _rewrite(
        condition,
        [
            (n.start_byte, n.end_byte, f"({text(first)})")
            for n in walk(condition)
            if n.type == "identifier" and text(n) == var
        ],
    )
    runs = runs.strip()
    if initial.type == "number_literal" and best in untouched:
        # `e(best)` before the loop is `e` at best's literal start (nothing between sets it):
        # so the value's start reads no other name the loop keeps
        theirs_text = _rewrite(
            mine,
            [
                (n.start_byte, n.end_byte, f"({text(initial)})")
                for n in walk(mine)
                if n.type == "identifier" and text(n) == var
            ],
        )
    else:
        theirs_text = text(theirs)
    comparison_text = f"{candidate} {op} {kept}" if mine == left else f"{kept} {op} {candidate}"
    head = text(loop)[: body.start_byte - loop.start_byte]
    return (
        f"{value_type} {kept} = ({runs}) ? ({value_type})({theirs_text}) : ({value_type})0;\n  "
        f"{head}{{\n    const {value_type} {candidate} = {text(mine)};\n"
        f"    if ({comparison_text}) {{\n      {kept} = {candidate};\n      {best} = {var};\n    }}\n  }}"
    )


def _value_type(expr: Node, params: dict[str, Node], counters: set[str]) -> str | None:
    """The type that keeps `expr`'s value exactly (see `_index_argmins`), or None: `double`
    where it computes in floating point, `long long` (or `unsigned long long`) where only in
    integers; None where a name's type is not read here, a call's result type is unknown, or
    a `long double` takes part (no wider type holds it)."""
    floating = False
    integers: set[str] = set()
    skipped: list[tuple[int, int]] = []
    for n in walk(expr):
        if n.type == "call_expression":
            callee = n.child_by_field_name("function")
            name = text(callee).removeprefix("std::") if callee is not None else ""
            if name in _FLOATING_CALLS:
                floating = True
            elif name not in ("abs", "labs", "llabs", "min", "max"):
                return None  # a result whose type is not read here
            if callee is not None:
                skipped.append((callee.start_byte, callee.end_byte))
        elif (
            n.type == "cast_expression"
            and " ".join(text(n.child_by_field_name("type") or n).split()) in _INTEGRAL
        ):
            # an integer whatever it converts: its operand's type does not count
            value = n.child_by_field_name("value")
            if value is not None:
                skipped.append((value.start_byte, value.end_byte))
        elif n.type == "subscript_expression":
            # the element's type counts, not the index's
            index = n.child_by_field_name("indices") or n.child_by_field_name("index")
            if index is not None:
                skipped.append((index.start_byte, index.end_byte))
    for n in walk(expr):
        if any(a <= n.start_byte < b for a, b in skipped):
            continue
        if n.type == "number_literal":
            spelled = text(n).lower()
            if not spelled.startswith("0x") and any(c in spelled for c in ".ef"):
                floating = True
        elif n.type in ("field_expression", "sizeof_expression"):
            return None  # a member's type is the struct's
        elif n.type == "cast_expression" or (
            n.type == "call_expression" and n.child_by_field_name("function") is None
        ):
            kind = n.child_by_field_name("type")
            shown = " ".join(text(kind).split()) if kind is not None else ""
            if "long double" in shown:
                return None
            if shown in _FLOATING:
                floating = True
            elif shown in _INTEGRAL:
                integers.add(shown)
            else:
                return None
        elif n.type == "identifier":
            name = text(n)
            if name in ("M_PI", "M_E"):
                floating = True
            elif name in params:
                declared = " ".join(text(params[name]).replace("const", "").split())
                element = _VECTOR_OF.match(declared)
                own = params[name].child_by_field_name("type")
                spelled = element.group(1) if element else text(own) if own is not None else ""
                spelled = " ".join(spelled.replace("const", "").split())
                if "long double" in spelled:
                    return None
                if spelled in _FLOATING:
                    floating = True
                elif spelled in _INTEGRAL:
                    integers.add(spelled)
                else:
                    return None
            elif name not in counters:
                return None  # a local or a global: its type is not read here
    if floating:
        return "double"
    if not integers:
        return None
    # every integer the expression computes fits a `long long`, but a 64-bit unsigned one
    wide = {"unsigned long", "unsigned long long", "size_t", "std::size_t", "uint64_t"}
    return "unsigned long long" if integers & wide else "long long"


def _while_searches(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with a search spelled as a `while` loop ending the function,

        T i = 0;  while (i < n && c) ++i;  return i;

    (`n` a vector's `size()`, so never below 0; the body only steps `i` by one) written as the
    first-index search it is, `for (T i = 0; i < n; ++i) if (!(c)) return i; return n;`, and
    that source's analysis; both as they are otherwise."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, _, body, statements = found
    if len(statements) < 3:
        return source, program
    start, loop, ending = statements[-3:]
    declarator = start.child_by_field_name("declarator") if start.type == "declaration" else None
    kind = start.child_by_field_name("type") if declarator is not None else None
    value = declarator.child_by_field_name("value") if declarator is not None else None
    name = declared_name(declarator) if declarator is not None else None
    if kind is None or value is None or name is None or text(value) != "0" or _static(start):
        return source, program
    if loop.type != "while_statement" or ending.type != "return_statement":
        return source, program
    if [text(c) for c in ending.named_children] != [name]:
        return source, program
    condition = loop.child_by_field_name("condition")
    step = loop.child_by_field_name("body")
    inner = [c for c in condition.named_children if c.type != "comment"] if condition else []
    test = unwrap(inner[0]) if len(inner) == 1 else None
    if (
        test is None
        or step is None
        or test.type != "binary_expression"
        or text(test.children[1]) != "&&"
    ):
        return source, program
    bound, rest = test.child_by_field_name("left"), test.child_by_field_name("right")
    steps = _branch_steps(step)
    stepped = len(steps) == 1 and compact_code(steps[0]) in (
        f"++{name};",
        f"{name}++;",
        f"{name}+=1;",
    )
    limit = (
        re.fullmatch(rf"{re.escape(name)}<(\w+)\.size\(\)", compact_code(bound)) if bound else None
    )
    if not stepped or limit is None or rest is None or not _without_effects(rest):
        return source, program
    if not any(n.type == "identifier" and text(n) == name for n in walk(rest)):
        return source, program  # the test does not look at the element it stands on
    size = f"{limit.group(1)}.size()"
    written = (
        f"for ({text(kind)} {name} = 0; {name} < {size}; ++{name}) {{\n"
        f"    if (!({text(rest)})) return {name};\n  }}\n  return {size};"
    )
    edits = [(start.start_byte, ending.end_byte, written)]
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _counted_whiles(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with `function`'s loops counted by hand,

        T i = e;  while (c) { ...; i++; }        i = e;  while (c) { ...; i += 2; }

    written as the `for` loops they are, `for (T i = e; c; i++) { ...; }` (the counter declared
    before the loop where the function names it after; `for (i = e; c; i += 2)` where it was
    assigned), and that source's analysis; both as they are where there is none. Only where
    the `for` does what the `while` did (`_as_counted`)."""
    for _ in range(4):  # a `while` inside a rewritten one is rewritten on the next pass
        found = _function_body(source, program, function)
        if found is None:
            return source, program
        _, _, body, _ = found
        edits: list[tuple[int, int, str]] = []
        for loop in walk(body):
            written = _as_counted(loop) if loop.type == "while_statement" else None
            if written and not any(b <= e[0] < end for b, end, _ in edits for e in written):
                edits.extend(written)
        if not edits:
            break
        source, program = _body_replaced(source, program, body, _rewrite(body, sorted(edits)))
    return source, program


def _as_counted(loop: Node) -> list[tuple[int, int, str]] | None:
    """The edits writing a `while` loop counted by hand as the `for` loop it is: its counter's
    start (`T i = e;` or `i = e;` in the same block, before the loop with only declarations of
    other numbers without a value between) and the loop; None where they are not that.

    The `for` runs the step after the body where the `while` ran it as the body's last
    statement, and evaluates the start after the declarations between: so nothing in the body
    may continue the loop or declare a name the step reads, nothing between may run code or
    read anything, and no macro the block uses may continue or name the counter. The counter
    is declared in the `for` only where nothing after the loop can reach it (no mention, no
    address or reference or capture taken in the body, no call given it)."""
    condition = loop.child_by_field_name("condition")
    block = loop.child_by_field_name("body")
    holder = loop.parent
    if condition is None or block is None or block.type != "compound_statement":
        return None
    if holder is None or holder.type != "compound_statement":
        return None  # a `case`'s statements, a branch's or a loop's only statement
    steps = [s for s in block.named_children if s.type != "comment"]
    name = _counter_stepped(steps[-1]) if len(steps) >= 2 else None
    if name is None or not any(n.type == "identifier" and text(n) == name for n in walk(condition)):
        return None
    step = steps[-1].named_children[0]
    stepped = {text(n) for n in walk(step) if n.type in ("identifier", "type_identifier")}
    declared_in_body = _declared_names(block)
    if _continues(block) or name in declared_in_body or stepped & declared_in_body:
        return None
    if _macro_reaches(loop, {"continue", name}):
        return None
    # Back from the loop past comments and declarations of other numbers without a value.
    start = loop.prev_named_sibling
    while start is not None and (start.type == "comment" or _bare_numbers(start, name)):
        start = start.prev_named_sibling
    begun = _counter_start(start, name) if start is not None and start.parent == holder else None
    if begun is None:
        return None
    assert start is not None
    kind, value = begun
    initial = f"{name} = {text(value)}"
    kept = ""  # what stays where the counter started: its declaration, where reached after
    if kind and (_named_after(loop, name) or _escapes(block, name)):
        if not _number_type(kind):
            return None  # declared apart without a value, a class would need a constructor
        kept = f"{kind} {name};"
    elif kind:
        initial = f"{kind} {initial}"
    inner = [c for c in condition.named_children if c.type != "comment"]
    test = text(inner[0]) if len(inner) == 1 else text(condition)
    raw = block.text or b""
    done = raw[: steps[-1].start_byte - block.start_byte].decode().rstrip()
    rest = raw[steps[-1].end_byte - block.start_byte :].decode().lstrip()
    written = f"for ({initial}; {test}; {text(step)}) {done}\n{' ' * loop.start_point[1]}{rest}"
    begin, end = (start.start_byte, start.end_byte) if kept else _whole_lines(start)
    return [(begin, end, kept), (loop.start_byte, loop.end_byte, written)]


def _declared_names(block: Node) -> set[str]:
    """The names a block declares anywhere in it: variables, types (`typedef`, `struct T`,
    `enum E`) and enumerators."""
    found: set[str] = set()
    for node in walk(block):
        if node.type == "declaration":
            found |= {
                n for d in node.children_by_field_name("declarator") if (n := declared_name(d))
            }
        elif node.type == "type_definition":  # `typedef char T;`: T is a type_identifier
            found |= {
                text(n)
                for d in node.children_by_field_name("declarator")
                for n in walk(d)
                if n.type in ("type_identifier", "identifier")
            }
        elif node.type in _NAMING_TYPES:
            named = node.child_by_field_name("name")
            found |= {text(named)} if named is not None else set()
    return found


_NAMING_TYPES = frozenset(
    {"struct_specifier", "class_specifier", "union_specifier", "enum_specifier", "enumerator"}
)
"""Nodes that declare a type (`struct T { ... }`) or an enumerator by their `name`."""


def _bare_numbers(statement: Node, name: str) -> bool:
    """`int c;`, `double a, b;`: a declaration of numbers (not `name`) without values, which
    runs nothing and reads nothing."""
    if statement.type != "declaration" or any(
        c.type in ("storage_class_specifier", "type_qualifier") for c in statement.children
    ):
        return False
    kind = statement.child_by_field_name("type")
    declarators = statement.children_by_field_name("declarator")
    return (
        kind is not None
        and _number_type(text(kind))
        and bool(declarators)
        and all(d.type == "identifier" and text(d) != name for d in declarators)
    )


def _escapes(block: Node, name: str) -> bool:
    """Whether the body may leave a way to the counter after the loop: its address (`&i`), a
    reference or a lambda (which may capture it) made in the body, or the counter given to a
    call (which may take it by reference)."""
    for node in walk(block):
        if node.type in ("lambda_expression", "reference_declarator"):
            return True
        if node.type == "pointer_expression" and text(node.children[0]) == "&":
            return True
        if node.type == "argument_list" and any(
            unwrap(a).type == "identifier" and text(unwrap(a)) == name for a in node.named_children
        ):
            return True
    return False


def _macro_reaches(node: Node, tokens: set[str]) -> bool:
    """Whether the block holding `node` uses a macro of the file whose text holds one of
    `tokens` (`#define NEXT continue`, `#define R i`): what the parser cannot see."""
    root = node
    while root.parent is not None:
        root = root.parent
    macros = {}
    for d in walk(root):
        if d.type in ("preproc_def", "preproc_function_def"):
            named = d.child_by_field_name("name")
            value = d.child_by_field_name("value")
            if named is not None:
                body = set(re.findall(r"\w+", text(value))) if value is not None else set()
                macros[text(named)] = body
    used = {text(n) for n in walk(node.parent or node) if n.type == "identifier"}
    return any(macros[m] & tokens for m in used & set(macros))


def _whole_lines(node: Node) -> tuple[int, int]:
    """The bytes of `node` with its line's indentation and end, where nothing else is on it
    (for a statement removed without leaving an empty line); else `node`'s own."""
    holder = node.parent
    if holder is None:
        return node.start_byte, node.end_byte
    raw = holder.text or b""
    before = raw[: node.start_byte - holder.start_byte]
    after = raw[node.end_byte - holder.start_byte :]
    indent = len(before) - len(before.rstrip(b" \t"))
    if not before[: len(before) - indent].endswith(b"\n") or not after.startswith(b"\n"):
        return node.start_byte, node.end_byte
    return node.start_byte - indent, node.end_byte + 1


def _counter_start(statement: Node, name: str) -> tuple[str, Node] | None:
    """(type, value) of `T name = value;` (the type "" for `name = value;`); None for anything
    else."""
    if statement.type == "expression_statement" and statement.named_children:
        assign = unwrap(statement.named_children[0])
        left = (
            assign.child_by_field_name("left") if assign.type == "assignment_expression" else None
        )
        operator = assign.child_by_field_name("operator") if left is not None else None
        value = assign.child_by_field_name("right") if left is not None else None
        if left is None or text(left) != name or operator is None or text(operator) != "=":
            return None
        return ("", value) if value is not None else None
    declarators = statement.children_by_field_name("declarator")
    if statement.type != "declaration" or len(declarators) != 1 or _static(statement):
        return None
    if any(c.type == "type_qualifier" for c in statement.children):
        return None  # `const int i = 0;` is never counted
    counter = declarators[0].child_by_field_name("declarator")
    value = declarators[0].child_by_field_name("value")
    kind = text(statement)[: declarators[0].start_byte - statement.start_byte].rstrip()
    if counter is None or text(counter) != name or value is None or not kind:
        return None
    if value.type in ("initializer_list", "argument_list") or kind.split()[-1] == "auto":
        return None  # `int i{0}`, `int i(0)`; an `auto` declared apart would have no type
    return kind, value


def _counter_stepped(statement: Node) -> str | None:
    """`i` of `i++;`, `++i;`, `i--;`, `i += c;`, `i -= c;` or `i = i + c;` (`c` without effects,
    not reading `i`); None for any other statement."""
    if statement.type != "expression_statement" or not statement.named_children:
        return None
    step = unwrap(statement.named_children[0])
    if step.type == "update_expression":
        argument = step.child_by_field_name("argument")
        return text(argument) if argument is not None and argument.type == "identifier" else None
    if step.type != "assignment_expression":
        return None
    left, right = step.child_by_field_name("left"), step.child_by_field_name("right")
    operator = step.child_by_field_name("operator")
    if left is None or left.type != "identifier" or right is None or operator is None:
        return None
    name = text(left)
    if text(operator) == "=" and right.type == "binary_expression":
        first, by = right.child_by_field_name("left"), right.child_by_field_name("right")
        if first is None or text(first) != name or text(right.children[1]) not in ("+", "-"):
            return None
        right = by
    elif text(operator) not in ("+=", "-="):
        return None
    if right is None or name in _names(right) or not _without_effects(right):
        return None
    return name


def _continues(block: Node) -> bool:
    """A `continue` in `block` that continues its loop (not one of a loop inside it)."""
    stack = list(block.named_children)
    while stack:
        node = stack.pop()
        if node.type == "continue_statement":
            return True
        if node.type in ("for_statement", "while_statement", "do_statement", "for_range_loop"):
            continue
        if node.type == "lambda_expression":
            continue
        stack.extend(node.named_children)
    return False


def _named_after(loop: Node, name: str) -> bool:
    """Whether the block holding `loop` mentions `name` after it."""
    parent = loop.parent
    return parent is not None and any(
        n.type == "identifier" and text(n) == name and n.start_byte >= loop.end_byte
        for n in walk(parent)
    )


def _lowered(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` and its analysis with `function` written in the forms the kernel writer reads:
    one name per declaration, a sorted copy's queries as counts, a map's reads as searches, a
    vector cleared and resized as its fill, then `as_loops` (each a
    rewrite of the source, analysed again; the source as it is where none applies)."""
    source, program = _one_name_per_declaration(source, program, function)
    source, program = _sorted_queries(source, program, function)
    source, program = _map_lookups(source, program, function)
    source, program = _refills(source, program, function)
    return as_loops(source, program, function)


def _iterator_loops(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with `function`'s loops over a vector by iterator, `for (auto it = x.begin();
    it != x.end(); ++it)` (`<`, `it++`, the iterator's type spelled out), written as counted
    loops over its indices, `for (size_t k = 0; k < x.size(); ++k)` with `*it` as `x[k]` and
    `it->m` as `x[k].m`, and that source's analysis; else both as they are. Only where the
    body uses the iterator in those two ways alone and names the vector only by subscript
    or its size (nothing changes its length, so the end is where it was)."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, _ = found
    vectors = _params_declared(definition, "vector")
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    edits: list[tuple[int, int, str]] = []
    for loop in walk(body):
        start = loop.child_by_field_name("initializer") if loop.type == "for_statement" else None
        condition = loop.child_by_field_name("condition")
        update = loop.child_by_field_name("update")
        inner = loop.child_by_field_name("body")
        declarators = start.children_by_field_name("declarator") if start is not None else []
        if start is None or len(declarators) != 1 or None in (condition, update, inner):
            continue
        assert condition is not None and update is not None and inner is not None
        it = declared_name(declarators[0])
        value = declarators[0].child_by_field_name("value")
        begun = re.fullmatch(r"(\w+)\.begin\(\)", compact_code(value)) if value else None
        if it is None or begun is None or begun[1] not in vectors:
            continue
        over = begun[1]
        if compact_code(condition) not in (f"{it}!={over}.end()", f"{it}<{over}.end()"):
            continue
        if _declarations(inner, it) or _declarations(inner, over):
            continue  # a name of the body's own hides the iterator or the vector
        if compact_code(update) not in (f"++{it}", f"{it}++"):
            continue
        k = next(f"k_{n}" for n in range(100) if f"k_{n}" not in taken)
        uses: list[tuple[int, int, str]] = []
        for n in walk(inner):
            if n.type != "identifier" or text(n) not in (it, over):
                continue
            parent = n.parent
            if text(n) == over:
                sized = (
                    parent is not None
                    and parent.type == "field_expression"
                    and text(parent.child_by_field_name("field") or parent) in ("size", "empty")
                )
                subscripted = parent is not None and parent.type == "subscript_expression"
                if not (sized or subscripted) or (
                    subscripted
                    and parent is not None
                    and parent.child_by_field_name("argument") != n
                ):
                    break
                continue
            if (
                parent is not None
                and parent.type == "pointer_expression"
                and text(parent.children[0]) == "*"
            ):
                uses.append((parent.start_byte, parent.end_byte, f"{over}[{k}]"))
            elif (
                parent is not None
                and parent.type == "field_expression"
                and text(parent.children[1]) == "->"
            ):
                uses.append((n.start_byte, parent.children[1].end_byte, f"{over}[{k}]."))
            else:
                break
        else:
            if not uses:
                continue
            taken.add(k)
            header = f"for (size_t {k} = 0; {k} < {over}.size(); ++{k}) "
            edits.append((loop.start_byte, inner.start_byte, header))
            edits.extend(uses)
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _bounds_declared_apart(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with `function`'s loops `for (T i = a, n = b; i < n; ++i)` (a bound declared
    beside the counter, `b` without effects, `n` declared nowhere else and not written in the
    loop) written `T n = b;` then `for (T i = a; i < n; ++i)`, and that source's analysis;
    else both as they are. Only for a loop that is a statement of a block: `n` then lives
    past the loop, under a name nothing else in the function has."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, _, body, _ = found
    edits: list[tuple[int, int, str]] = []
    for loop in walk(body):
        start = loop.child_by_field_name("initializer") if loop.type == "for_statement" else None
        kind = start.child_by_field_name("type") if start is not None else None
        declarators = start.children_by_field_name("declarator") if start is not None else []
        if start is None or kind is None or len(declarators) != 2 or _static(start):
            continue
        if loop.parent is None or loop.parent.type != "compound_statement":
            continue
        counter, bound = declarators
        name = declared_name(bound)
        value = bound.child_by_field_name("value")
        if name is None or value is None or not _without_effects(value):
            continue
        if declared_name(counter) in _names(value):
            continue  # `n = i + 5`: read after the counter is set
        if _declarations(body, name) != 1 or bound.type != "init_declarator":
            continue
        written = _assigned_targets(loop)
        if name in written or _names(value) & written:
            continue
        indent = " " * loop.start_point[1]
        edits.append((loop.start_byte, loop.start_byte, f"{text(kind)} {text(bound)};\n{indent}"))
        edits.append((counter.end_byte, bound.end_byte, ""))
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _offset_tests(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with `function`'s loops `for (T i = a; i + c < b; ++i)` (`c + i` too; `a` and
    `c` integer literals, `a` not negative, `c` positive, `b` without effects) written
    `for (T i = a; i < (b >= c ? b - c : 0); ++i)`, a test in the form a counted loop has,
    and that source's analysis; else both as they are. The same iterations: the counter is
    never negative, so where `b` is below `c` neither runs (an unsigned `b - c` would wrap
    round), and elsewhere `i + c < b` is `i < b - c`."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, _, body, _ = found
    edits: list[tuple[int, int, str]] = []
    for loop in walk(body):
        if loop.type != "for_statement":
            continue
        start = loop.child_by_field_name("initializer")
        condition = loop.child_by_field_name("condition")
        update = loop.child_by_field_name("update")
        declarators = start.children_by_field_name("declarator") if start is not None else []
        if start is None or start.type != "declaration" or len(declarators) != 1:
            continue
        var, value = declared_name(declarators[0]), declarators[0].child_by_field_name("value")
        first = parse_int(text(value)) if value is not None else None
        if var is None or first is None or first < 0 or condition is None or update is None:
            continue
        if compact_code(update) not in (f"++{var}", f"{var}++", f"{var}+=1"):
            continue
        test = unwrap(condition)
        if test.type != "binary_expression" or text(test.children[1]) != "<":
            continue
        left, bound = test.child_by_field_name("left"), test.child_by_field_name("right")
        if left is None or bound is None or not _without_effects(bound):
            continue
        offset = re.fullmatch(
            rf"{re.escape(var)}\+(\d+)|(\d+)\+{re.escape(var)}", compact_code(left)
        )
        c = int(offset[1] or offset[2]) if offset is not None else 0
        if c <= 0 or var in _names(bound):
            continue
        b = text(bound)
        edits.append((test.start_byte, test.end_byte, f"{var} < (({b}) >= {c} ? ({b}) - {c} : 0)"))
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _in_place_recurrences(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with `function`'s loops `for (T i = a; i < b; ++i) x[i] = E;`, `E` reading `x`
    only as `x[i]` and `x[i - 1]` (`std::max(x[i], x[i - 1])`, a running maximum in place),
    written with a running value, `V run = (T)(a) < (b) ? x[a - 1] : V(); for (...) { run =
    E'; x[i] = run; }` (`E'` reading `run` for `x[i - 1]`; braced where the loop is not a
    statement of a block; `(V)0` for `V()` in C), and that source's analysis; else
    both as they are. The same values in the same order: `run` is the element the iteration
    before stored (`x[a - 1]` for the first), read only where the loop runs; `a` a literal of
    at least 1, `b` without effects, `V` the vector's element type."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    root, definition, body, _ = found
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    edits: list[tuple[int, int, str]] = []
    for loop in walk(body):
        counter = _counts_up_by_one(loop) if loop.type == "for_statement" else None
        start = loop.child_by_field_name("initializer")
        condition = loop.child_by_field_name("condition")
        statement = _sole_statement(loop.child_by_field_name("body"))
        if counter is None or start is None or condition is None or statement is None:
            continue
        kind = start.child_by_field_name("type")
        value = start.children_by_field_name("declarator")[0].child_by_field_name("value")
        first = parse_int(text(value)) if value is not None else None
        test = unwrap(condition)
        if kind is None or first is None or first < 1 or text(test.children[1]) != "<":
            continue
        expr = _expression_of(statement)
        if expr is None or expr.type != "assignment_expression":
            continue
        if match_recurrence(statement, counter) is not None:
            continue  # a sum's or a product's recurrence: the analysis reads it as it is
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        if (
            left is None
            or right is None
            or text(expr.child_by_field_name("operator") or expr) != "="
        ):
            continue
        index = _subscript_index(left)
        array = left.child_by_field_name("argument")
        if index is None or array is None or array.type != "identifier" or text(index) != counter:
            continue
        name = text(array)
        previous, own = [], 0
        for n in walk(right):
            if n.type != "identifier" or text(n) != name:
                continue
            read = n.parent
            at = _subscript_index(read) if read is not None else None
            shown = compact_code(at) if at is not None else ""
            if shown == counter:
                own += 1
            elif shown == f"{counter}-1":
                assert read is not None
                previous.append(read)
            else:
                previous = []
                break
        loop_names = [n for n in walk(statement) if n.type == "identifier" and text(n) == name]
        if not previous or len(loop_names) != 1 + own + len(previous):
            continue  # `x` read otherwise, or no element before
        if not _without_effects(right) or not _without_effects(
            test.child_by_field_name("right") or test
        ):
            continue
        element = _element_of_array(definition, root, name, loop)
        if element is None:
            continue
        run = next(f"{name}_run{k}" for k in range(100) if f"{name}_run{k}" not in taken)
        zero = f"{element}()" if program.language != Language.C else f"({element})0"
        taken.add(run)
        bound = text(test.child_by_field_name("right") or test)
        stepped = _rewrite(right, [(p.start_byte, p.end_byte, run) for p in previous])
        loop_body = loop.child_by_field_name("body") or statement
        header = text(loop)[: loop_body.start_byte - loop.start_byte]
        indent = " " * loop.start_point[1]
        written = (
            f"{element} {run} = ({text(kind)})({first}) < ({bound}) ? {name}[{first} - 1] : "
            f"{zero};\n{indent}{header.rstrip()} "
            f"{{ {run} = {stepped}; {name}[{counter}] = {run}; }}"
        )
        braced = loop.parent is not None and loop.parent.type == "compound_statement"
        edits.append((loop.start_byte, loop.end_byte, written if braced else f"{{ {written} }}"))
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _indexed_scans(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with `function`'s loops over a vector parameter's elements
    (`for (double v : x)`, `for (auto &v : x)`) written as counted loops over its indices
    where that makes each a scan the analysis proves (`running += v; y[i] = running;`, a scan's
    tiles need the iteration's index), and that source's analysis; both as they are
    otherwise. An element taken by value is the body's own copy (`double v = x[i];`, in the
    vector's element type for `auto`); one taken by reference is the element itself, each use
    of the name written `x[i]` (refused where the body declares that name again)."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, statements = found
    params = dict(function_params(definition))
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    index = next(n for n in ("i", "k", "j", *(f"at_{m}" for m in range(100))) if n not in taken)
    edits: list[tuple[int, int, str]] = []
    for statement in statements:
        if statement.type != "for_range_loop":
            continue
        rewritten = _as_indexed(statement, params, index)
        if rewritten is not None:
            edits.append((statement.start_byte, statement.end_byte, rewritten))
    if not edits:
        return source, program
    lowered, analysed = _body_replaced(source, program, body, _rewrite(body, edits))
    scans = [lp for lp in analysed.loops if lp.function == function and lp.dependence.scan]
    return (lowered, analysed) if scans else (source, program)


def indexed_loops(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with `function`'s loops over a vector's elements (`for (double v : x)`, `for
    (auto &v : x)`, `x` a parameter or a vector the function declares before the loop) written
    as the counted loops over its indices they run (`_as_indexed`), and that source's analysis;
    both as they are where there is none. For a tool that takes counted loops only (CUDA's
    `offload`); a loop inside another such loop stays as it is (the outer one is written)."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, _ = found
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    index = next(n for n in ("i", "k", "j", *(f"at_{m}" for m in range(100))) if n not in taken)
    edits: list[tuple[int, int, str]] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "lambda_expression":
            continue
        if node.type == "for_range_loop":
            rewritten = _as_indexed(node, _vectors(definition, node), index)
            if rewritten is not None:
                edits.append((node.start_byte, node.end_byte, rewritten))
                continue
        stack.extend(node.named_children)
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def running_recurrences(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with `function`'s prefix sums and products written as recurrences (`p[i] =
    p[i - 1] + x[i]`, the body's first statement, braces or not) written with a running value
    of their own, and that source's analysis; both as they are where there is none:
    `{ T p_run = 0; if (lo < hi) p_run = p[lo - 1]; for (...) { p_run += x[i]; p[i] = p_run; } }`
    (from the identity, the term `(i == lo ? e0 : e)`, for the form whose first iteration
    assigns its own value). The same values in the same order, each step in the element's type
    `T` as the recurrence's store makes it; for a tool that runs running values only (CUDA's
    `offload`)."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    root, definition, body, _ = found
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    edits: list[tuple[int, int, str]] = []
    for loop in program.loops:
        scan = loop.dependence.scan
        if loop.function != function or scan is None or not scan.recurrence or scan.split != 0:
            continue
        if scan.op not in ("+", "*") or loop.var is None or loop.test not in ("<", "<="):
            continue
        if loop.dependence.overlap_checks and any(
            a.is_array and a.name != scan.var for a in loop.writes
        ):
            # another array the loop writes may be the recurrence's (`b[i] = a[i] ^ 5` with
            # `b == a`): the element the next iteration reads is then not the running value
            continue
        node = _for_node(body, loop)
        statements = body_statements(node.child_by_field_name("body"))
        matched = match_recurrence(statements[0], loop.var) if statements else None
        kind = _element_of_array(definition, root, scan.var, node)
        # the element types `offload`'s scans take (`_scan_parts`)
        if matched is None or kind is None or kind not in _INTEGRAL | _FLOATING:
            continue
        run = next(
            f"{scan.var}_run{n or ''}"
            for n in range(100)
            if f"{scan.var}_run{n or ''}" not in taken
        )
        taken.add(run)
        term = text(matched.term)
        start = [f"{kind} {run} = {_identity_of(scan.op, kind)};"]
        if matched.first is not None:
            condition, _, value = matched.first
            test = text(condition)
            term = f"({test} ? ({text(value)}) : ({term}))"
        else:
            start.append(
                f"if (({loop.lower}) {loop.test} ({loop.upper})) {run} = {previous_of(scan.var, loop.lower or '', scan.offset)};"
            )
        loop_body = node.child_by_field_name("body")
        assert loop_body is not None
        step = f"{run} {scan.op}= {term}; {text(matched.element)} = {run};"
        rest = [text(st) for st in statements[1:]]
        new_body = "{ " + " ".join([step, *rest]) + " }"
        header = source.encode()[node.start_byte : loop_body.start_byte].decode()
        indent = " " * node.start_point[1]
        edits.append(
            (
                node.start_byte,
                node.end_byte,
                "{ " + " ".join(start) + f"\n{indent}{header}{new_body} }}",
            )
        )
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _element_of_array(definition: Node, root: Node, name: str, at: Node) -> str | None:
    """The element type of `name` where the function (or the file) declares it once as a
    vector, a pointer or an array of one dimension: `long *p`, `double p[N]`,
    `std::vector<int> p(n)`; None otherwise."""
    found = _declaring(definition, name)
    if not found:
        found = [
            (n, d)
            for n in root.children
            if n.type == "declaration"
            for d in n.children_by_field_name("declarator")
            if declared_name(d) == name
        ]
    if len(found) != 1 or (
        found[0][0].end_byte > at.start_byte and found[0][0].type == "declaration"
    ):
        return None
    declaration, declarator = found[0]
    kind = declaration.child_by_field_name("type")
    if kind is None:
        return None
    vector = _VECTOR_OF.match(text(declaration))
    if vector is not None and _VECTOR_TYPE.match(text(kind)):
        return " ".join(vector.group(1).split())
    if declarator.type == "init_declarator":
        declarator = declarator.child_by_field_name("declarator") or declarator
    if declarator.type in ("pointer_declarator", "array_declarator"):
        inner = declarator.child_by_field_name("declarator")
        if inner is not None and inner.type == "identifier":
            return " ".join(text(kind).replace("const", "").split())
    return None


def _as_indexed(loop: Node, params: dict[str, Node], index: str) -> str | None:
    """`for (T v : x) body` as `for (size_t <index> = 0; <index> < x.size(); ++<index>)` over
    a vector parameter `x` (see `_indexed_scans`), or None."""
    over = loop.child_by_field_name("right")
    declarator = loop.child_by_field_name("declarator")
    kind = loop.child_by_field_name("type")
    body = loop.child_by_field_name("body")
    if over is None or declarator is None or kind is None or body is None:
        return None
    vector = text(over)
    declared = text(params[vector]) if vector in params else ""
    element = _VECTOR_OF.match(declared)
    if over.type != "identifier" or element is None:
        return None
    name = declared_name(declarator)
    if name is None:
        return None
    if any(
        n.type in _DECLARING and declared_name(n.child_by_field_name("declarator")) == name
        for n in walk(body)
    ):
        return None  # the name declared again inside: which uses are the element's is unclear
    head = f"for (size_t {index} = 0; {index} < {vector}.size(); ++{index})"
    if declarator.type == "identifier":  # by value: the body's own copy
        shown = element.group(1) if text(kind).strip() in ("auto", "const auto") else text(kind)
        inner = text(body)
        if body.type == "compound_statement":
            inner = inner.strip()[1:-1]
        return f"{head} {{ {shown} {name} = {vector}[{index}]; {inner} }}"
    if declarator.type != "reference_declarator":
        return None
    uses = [
        (n.start_byte, n.end_byte, f"{vector}[{index}]")
        for n in walk(body)
        if n.type == "identifier" and text(n) == name
    ]
    return f"{head} {_rewrite(body, uses)}"


_BOOLS = {"true": "false", "false": "true"}
"""Each truth value's opposite."""


def _exits_as_flags(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with `function`'s searches for whether some iteration holds written as `|`
    (or `&`) reductions of the test, and that source's analysis; else both as they are:

    - `for (...) { ...; if (c) return A; } return B;` ending the function, `A` and `B` the two
      truth values: `bool acc = false; for (...) { ...; acc |= (bool)(c); } return acc;`
      (`!acc` where `A` is `false`);
    - `bool f = B; ... for (...) { ...; if (c) { f = A; break; } }`, `A` the other truth value,
      `f` named nowhere else in the loop: `f |= (bool)(c);` (`f &= !(bool)(c);` where `B` is
      `true`);
    - not a flag but an index: `T at = V; for (...) { ...; if (c) { at = i; break; } } return
      at;` ending the function becomes the search `if (c) return i;` ... `return V;`
      (`_index_exit`).

    The rewritten loop runs its test on every iteration, after the first that holds too, as
    any thread of the search's kernel would; so what the loop runs before its test must be
    declarations without effects (no assignment, increment or call the analysis does not know
    pure), and the loop leaves in no other way."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, statements = found
    taken = {text(n) for n in walk(body) if n.type == "identifier"}
    edits: list[tuple[int, int, str]] = []
    flags: dict[str, str] = {}  # `bool f = B;` declared at the top level: f -> B
    indices: dict[str, Node] = {}  # `T at = V;` declared at the top level: at -> the declaration
    for at, statement in enumerate(statements):
        declarators = statement.children_by_field_name("declarator")
        kind = statement.child_by_field_name("type")
        if statement.type == "declaration" and len(declarators) == 1 and kind is not None:
            value = declarators[0].child_by_field_name("value")
            name = declared_name(declarators[0])
            if text(kind) == "bool" and value is not None and text(value) in _BOOLS and name:
                flags[name] = text(value)
            elif name and value is not None and not _static(statement):
                indices[name] = statement
            continue
        if statement.type not in ("for_statement", "for_range_loop"):
            continue
        exit_ = _only_exit(statement)
        if exit_ is None:
            continue
        test, then = exit_
        returned = _returned_bool(then)
        ending = statements[at + 1] if at + 1 < len(statements) else None
        if returned is not None and ending is not None and at + 2 == len(statements):
            after = _returned_bool(ending)
            if after != _BOOLS[returned]:
                continue
            acc = next(f"acc_{n}" for n in range(100) if f"acc_{n}" not in taken)
            taken.add(acc)
            edits.append((statement.start_byte, statement.start_byte, f"bool {acc} = false;\n  "))
            edits.append((test.start_byte, test.end_byte, f"{acc} |= (bool)({_condition(test)});"))
            shown = acc if returned == "true" else f"!{acc}"
            edits.append((ending.start_byte, ending.end_byte, f"return {shown};"))
            continue
        kept = _index_and_break(then, statement)
        if kept is not None and kept in indices and ending is not None:
            written = _index_exit(definition, statement, indices[kept], then, ending)
            if written is not None and at + 2 == len(statements):
                edits += written
                continue
        flag = _set_and_break(then)
        if flag is None or flags.get(flag[0]) != _BOOLS[flag[1]]:
            continue
        if sum(n.type == "identifier" and text(n) == flag[0] for n in walk(statement)) != 1:
            continue  # the loop reads its flag, or sets it elsewhere
        update = (
            f"{flag[0]} |= (bool)({_condition(test)});"
            if flag[1] == "true"
            else f"{flag[0]} &= !(bool)({_condition(test)});"
        )
        edits.append((test.start_byte, test.end_byte, update))
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _index_and_break(branch: Node, loop: Node) -> str | None:
    """`at` where `branch` is `{ at = i; break; }`, `i` the counter `loop` declares and steps."""
    steps = _branch_steps(branch)
    counter = _counts_up_by_one(loop) if loop.type == "for_statement" else None
    if counter is None or len(steps) != 2 or steps[1].type != "break_statement":
        return None
    expr = _expression_of(steps[0])
    if expr is None or expr.type != "assignment_expression":
        return None
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    operator = expr.child_by_field_name("operator")
    if left is None or right is None or operator is None or text(operator) != "=":
        return None
    if left.type != "identifier" or text(right) != counter:
        return None
    return text(left)


def _index_exit(
    definition: Node, loop: Node, declaration: Node, then: Node, ending: Node
) -> list[tuple[int, int, str]] | None:
    """The rewrites of `T at = V; for (...) { ...; if (c) { at = i; break; } } return at;`
    into the search `for (...) { ...; if (c) return i; } return V;`, or None where they would
    differ: `T` is the function's return type (one conversion, not two), `at` is named nowhere
    else, `V` has no effects and the loop writes none of its names (it is read after the loop
    instead of before)."""
    declarator = declaration.child_by_field_name("declarator")
    kind = declaration.child_by_field_name("type")
    returns = definition.child_by_field_name("type")
    value = declarator.child_by_field_name("value") if declarator is not None else None
    name = declared_name(declarator) if declarator is not None else None
    if value is None or kind is None or returns is None or name is None:
        return None
    if canon(kind) != canon(returns) or not _without_effects(value):
        return None
    gives = ending.named_children[0] if ending.type == "return_statement" else None
    if gives is None or gives.type != "identifier" or text(gives) != name:
        return None
    body = definition.child_by_field_name("body")
    if body is None or sum(n.type == "identifier" and text(n) == name for n in walk(body)) != 3:
        return None  # declared, set where found, returned: nothing else
    if _names(value) & _assigned_targets(loop):
        return None
    counter = _counts_up_by_one(loop)
    return [
        (*_whole_lines(declaration), ""),
        (then.start_byte, then.end_byte, f"return {counter};"),
        (ending.start_byte, ending.end_byte, f"return {text(value)};"),
    ]


def _assigned_targets(node: Node) -> set[str]:
    """The text of what `node` assigns or steps (`n`, `x[i]`): a name among them is written."""
    return {
        text(target)
        for n in walk(node)
        if n.type in ("assignment_expression", "update_expression")
        for target in [n.child_by_field_name("left") or n.child_by_field_name("argument")]
        if target is not None
    }


def _only_exit(loop: Node) -> tuple[Node, Node] | None:
    """(the `if`, its branch) where `loop`'s body is declarations without effects and then one
    `if (c) <branch>` without `else`, and the branch is the loop's only way out."""
    body = loop.child_by_field_name("body")
    if body is None:
        return None
    steps = _branch_steps(body)
    if not steps or steps[-1].type != "if_statement":
        return None
    test = steps[-1]
    then = test.child_by_field_name("consequence")
    if then is None or test.child_by_field_name("alternative") is not None:
        return None
    clause = test.child_by_field_name("condition")
    if clause is None or clause.child_by_field_name("initializer") is not None:
        return None  # `if (int d = ...; d == 0)`: a declaration, not a value to fold
    if clause.child_by_field_name("value") is not None and any(
        c.type == "declaration" for c in clause.named_children
    ):
        return None
    if any(n.type in JUMPS and not _within(n, then) for n in walk(loop)):
        return None  # the steps before the test are declarations: nothing else may leave
    for step in steps[:-1]:
        if step.type != "declaration" or not _without_effects(step):
            return None
    if loop.type == "for_statement" and _counts_up_by_one(loop) is None:
        # its counter its own, stepped alone, up to a bound: no name the loop steps outlives
        # it (a counter declared outside would hold the first match's index, not the
        # bound's), and the loop ends without its exit
        return None
    condition = test.child_by_field_name("condition")
    if condition is None or not _without_effects(condition):
        return None
    return test, then


def _counts_up_by_one(loop: Node) -> str | None:
    """The counter of `for (T i = e; i < b; ++i)` (`<=`, `i++`, `i += 1` too; `b` without
    effects), the counter the loop declares and steps alone; None for any other header."""
    start = loop.child_by_field_name("initializer")
    update = loop.child_by_field_name("update")
    condition = loop.child_by_field_name("condition")
    declarators = start.children_by_field_name("declarator") if start is not None else []
    if start is None or start.type != "declaration" or len(declarators) != 1:
        return None
    var = declared_name(declarators[0])
    if var is None or update is None or condition is None:
        return None
    if compact_code(update) not in (f"++{var}", f"{var}++", f"{var}+=1"):
        return None
    test = unwrap(condition)
    if test.type != "binary_expression" or text(test.children[1]) not in ("<", "<="):
        return None
    left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
    if left is None or right is None or text(left) != var or not _without_effects(right):
        return None
    return var


def _static(declaration: Node) -> bool:
    """A declaration with a storage class (`static int i = 0;`): its value outlives a call."""
    return any(c.type == "storage_class_specifier" for c in declaration.children)


def _within(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _without_effects(node: Node) -> bool:
    """No assignment, increment or call to other than a pure function in `node`."""
    for n in walk(node):
        if n.type in ("assignment_expression", "update_expression", "lambda_expression"):
            return False
        if n.type == "call_expression":
            callee = n.child_by_field_name("function")
            name = text(callee) if callee is not None else ""
            if callee is not None and callee.type == "field_expression":
                name = text(callee.child_by_field_name("field") or callee)
            if not (is_pure(name) or (callee is not None and _is_cast(callee))):
                return False
    return True


def _condition(test: Node) -> str:
    """An `if`'s condition without its parentheses."""
    condition = test.child_by_field_name("condition")
    assert condition is not None
    inner = [c for c in condition.named_children if c.type != "comment"]
    return text(inner[0]) if len(inner) == 1 else text(condition)


def _branch_steps(branch: Node) -> list[Node]:
    if branch.type == "compound_statement":
        return [s for s in branch.named_children if s.type != "comment"]
    return [branch]


def _returned_bool(branch: Node) -> str | None:
    """`true` or `false` where `branch` is `return true;` / `return false;` (braced or not)."""
    steps = _branch_steps(branch)
    if len(steps) != 1 or steps[0].type != "return_statement" or not steps[0].named_children:
        return None
    value = text(steps[0].named_children[0])
    return value if value in _BOOLS else None


def _set_and_break(branch: Node) -> tuple[str, str] | None:
    """(f, A) where `branch` is `{ f = A; break; }`, `A` a truth value."""
    steps = _branch_steps(branch)
    if len(steps) != 2 or steps[1].type != "break_statement":
        return None
    expr = _expression_of(steps[0])
    if expr is None or expr.type != "assignment_expression":
        return None
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    operator = expr.child_by_field_name("operator")
    if left is None or right is None or operator is None or text(operator) != "=":
        return None
    if left.type != "identifier" or text(right) not in _BOOLS:
        return None
    return text(left), text(right)


def _inlined_lambdas(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with each local helper lambda of `function` that computes one value written
    where it is called, and its analysis; both as they are where none applies. The helper is
    declared by name in the function's body (`auto at = [&](long r, long c) -> double {...};`)
    and only called after; its body is one `return`, or `if (c) return a;` lines before one
    (a chain of conditionals), and assigns nothing. A call becomes the value with each
    parameter read as its argument converted to the parameter's type, and the whole converted
    to the declared return type (a reference to an element, `-> double &`, is the element
    itself). That is the call's value exactly when:

    - every argument is without effects (a parameter read twice or never would evaluate its
      argument as many times);
    - each name the body reads besides its parameters is declared at most once in the
      function, so a call inside a loop reads the same one;
    - a name captured by value (`[=]`, `[n]`) is never changed in the function, so its value
      at the call is the one copied when the lambda was made (a capture by reference reads
      the name at the call, as the inline copy does)."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, statements = found
    if any(n.type == "goto_statement" for n in walk(body)):
        return source, program
    params = {name for name, _ in function_params(definition)}
    for statement in statements:
        declarator = (
            statement.child_by_field_name("declarator") if statement.type == "declaration" else None
        )
        lam = declarator.child_by_field_name("value") if declarator is not None else None
        name = declared_name(declarator) if declarator is not None and lam is not None else None
        parts = _Lambda.of(lam) if lam is not None else None
        if name is None or lam is None or parts is None or not _declared_once(body, name):
            continue
        pieces = _returned_value(parts)
        names = [declared_name(p.child_by_field_name("declarator")) for p in parts.params]
        if pieces is None or None in names or len(set(names)) != len(names):
            continue
        own = {n for n in names if n is not None}
        free = {text(n) for piece in pieces for n in walk(piece) if n.type == "identifier"} - own
        if any(
            _declarations(body, f) + (f in params) > 1
            or (_declarations(body, f) == 1 and not _declared_before(body, f, statement))
            for f in free
        ):
            continue  # a name the body reads is declared again, or later: a call may not see it
        if not all(_constant_value(definition, c) for c in _copied_captures(lam, free)):
            continue  # a copy made with the lambda may differ from the name at the call
        uses = [n for n in walk(body) if n.type == "identifier" and text(n) == name]
        calls = [
            u.parent
            for u in uses
            if u.parent is not None
            and u.parent.type == "call_expression"
            and u.parent.child_by_field_name("function") == u
            and u.start_byte > statement.end_byte
            and not any(
                _within(u, other)
                for other in walk(body)
                if other.type == "lambda_expression" and other is not lam
            )  # inside another lambda, a name the helper captures could change capture
        ]
        if len(calls) != len(uses) - 1 or not calls:
            continue
        returns = parts.returns
        if returns is not None and returns.endswith("&"):
            if len(pieces) != 1 or pieces[0].type != "subscript_expression":
                continue
            returns = None  # the element itself
        elif returns is None and not all(_read_as_value(c) for c in calls):
            continue  # a call's value bound to a reference is a copy, not the element
        edits: list[tuple[int, int, str]] = [(statement.start_byte, statement.end_byte, "")]
        for call in calls:
            arguments = call.child_by_field_name("arguments") if call is not None else None
            args = [a for a in arguments.named_children if a.type != "comment"] if arguments else []
            if (
                call is None
                or len(args) != len(parts.params)
                or not all(_without_effects(a) for a in args)
            ):
                edits = []
                break
            by_name = {
                n: _as_parameter(p, text(a), _declared_type(definition, a))
                for n, p, a in zip(names, parts.params, args, strict=True)
                if n is not None
            }
            inlined = [_inline(piece, by_name) for piece in pieces]
            if returns:
                # each returned value converted on its own, as each `return` converts it (a
                # conditional would first bring both to their common type)
                inlined = [
                    piece if at % 2 == 0 and at < len(inlined) - 1 else f"(({returns})({piece}))"
                    for at, piece in enumerate(inlined)
                ]
            edits.append((call.start_byte, call.end_byte, f"({_chained(inlined)})"))
        if edits:
            return _inlined_lambdas(
                *_body_replaced(source, program, body, _rewrite(body, edits)), function
            )
    return source, program


def _declaring(root: Node, name: str) -> list[tuple[Node, Node]]:
    """(the declaring node, its declarator) for each declaration of `name` inside `root`: not
    what the parser reads as a parameter of a local prototype (`std::vector<double> a(N * N);`
    parses as a function taking `N *`)."""
    return [
        (n, d)
        for n in walk(root)
        if n.type in _DECLARING and n.type != "init_declarator" and not _prototype_part(n)
        for d in n.children_by_field_name("declarator")
        if declared_name(d) == name
    ]


def _plain(declarator: Node) -> bool:
    """Whether a declarator names a plain value (not a reference, pointer or array)."""
    if declarator.type == "init_declarator":
        declarator = declarator.child_by_field_name("declarator") or declarator
    return declarator.type == "identifier"


def _declarations(body: Node, name: str) -> int:
    """How many times `body` declares `name`."""
    return len(_declaring(body, name))


def _declared_before(body: Node, name: str, statement: Node) -> bool:
    """Whether `body`'s declaration of `name` comes before `statement`."""
    return any(n.start_byte < statement.start_byte for n, _ in _declaring(body, name))


def _declared_type(definition: Node, node: Node) -> str | None:
    """The type `node` is declared with where it is a name the function declares once as
    a plain value (not a reference or pointer), else None."""
    if node.type != "identifier":
        return None
    found = [n for n, d in _declaring(definition, text(node)) if _plain(d)]
    kind = found[0].child_by_field_name("type") if len(found) == 1 else None
    return " ".join(text(kind).split()) if kind is not None else None


def _constant_value(definition: Node, name: str) -> bool:
    """Whether the function declares `name` once, `const`, as a plain value (no reference or
    pointer): what a lambda copied of it is what it holds at any later call."""
    found = [
        (n, d)
        for n, d in _declaring(definition, name)
        if n.type in ("declaration", "parameter_declaration")
    ]
    if len(found) != 1:
        return False
    declaration, declarator = found[0]
    qualifiers = {text(c) for c in declaration.children if c.type == "type_qualifier"}
    return _plain(declarator) and "const" in qualifiers and "mutable" not in text(declaration)


def _read_as_value(call: Node) -> bool:
    """Whether a call's value is only read where it stands (an operand, an index, the right
    of an assignment, a value's initial value, a condition): there an element read in place is
    the same as the copy a lambda returning by value makes."""
    node, parent = call, call.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type == "binary_expression" or parent.type == "subscript_argument_list":
        return True
    if parent.type == "unary_expression":
        return text(parent.children[0]) in ("-", "+", "!", "~")
    if parent.type == "assignment_expression":
        return parent.child_by_field_name("right") == node
    if parent.type == "init_declarator":
        plain = parent.child_by_field_name("declarator")
        return plain is not None and plain.type == "identifier"
    if parent.type == "cast_expression":
        return True
    return parent.type in ("condition_clause", "conditional_expression") and (
        parent.type == "condition_clause" or parent.child_by_field_name("condition") == node
    )


def _returned_value(parts: _Lambda) -> list[Node] | None:
    """The expressions a lambda's body returns its one value by: `[c1, a1, c2, a2, ..., b]` for
    `if (c1) return a1; if (c2) return a2; ... return b;` (the conditions as their clauses,
    parentheses included), `[b]` for a lone `return b;`; None where the body does more or
    assigns something."""
    if not parts.statements:
        return None
    *tests, last = parts.statements
    if last.type != "return_statement" or not last.named_children:
        return None
    pieces: list[Node] = []
    for test in tests:
        condition = test.child_by_field_name("condition") if test.type == "if_statement" else None
        then = _sole_statement(test.child_by_field_name("consequence")) if condition else None
        if (
            condition is None
            or then is None
            or test.child_by_field_name("alternative") is not None
            or then.type != "return_statement"
            or not then.named_children
            or condition.named_child_count != 1  # `if (init; c)`
        ):
            return None
        pieces += [condition, then.named_children[0]]
    pieces.append(last.named_children[0])
    if any(
        n.type in ("assignment_expression", "update_expression", "lambda_expression")
        or n.type in _DECLARING
        for piece in pieces
        for n in walk(piece)
    ):
        return None
    return pieces


def _chained(pieces: list[str]) -> str:
    """`c1 ? a1 : (c2 ? a2 : b)` of `_returned_value`'s pieces, each inlined."""
    *tests, last = pieces
    chain = f"({last})"
    for at in range(len(tests) - 2, -1, -2):
        chain = f"({tests[at]} ? ({tests[at + 1]}) : {chain})"
    return chain


def _sole_statement(node: Node | None) -> Node | None:
    """`node`, or the one statement of a block `{ s; }`."""
    while node is not None and node.type == "compound_statement":
        inner = [c for c in node.named_children if c.type != "comment"]
        node = inner[0] if len(inner) == 1 else None
    return node


def _copied_captures(lam: Node, free: set[str]) -> set[str]:
    """The names of `free` the lambda `lam` captures by value: all of them by `[=]`, those it
    names without `&`."""
    captures = lam.child_by_field_name("captures")
    if captures is None:
        return set()
    listed = compact_code(captures).strip("[]").split(",")
    copied = {c for c in listed if re.fullmatch(r"[A-Za-z_]\w*", c)}
    return set(free) if "=" in listed else copied & free


def _order_spellings(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with `function`'s sorts, their comparisons and the copies they sort spelled the
    one way `_sort_kernel` and `_select_kernel` read, and its analysis; both as they are where
    none applies. Each rewrite leaves what the function computes as it was:

    - a comparison that captures nothing, declared once by name (`auto byKey = [](...) {...};`)
      and only passed as an argument, written where it is passed: a lambda that captures
      nothing holds no state, so where it is made changes nothing;
    - a copy of a vector parameter by `auto` (`auto y = x;`) or by its whole range
      (`std::vector<T> y(x.begin(), x.end());`) as `std::vector<T> y(x);`, with T the
      parameter's element type;
    - a stable sort of integers by their own order (or the library's `less` or `greater`) as a
      sort: equal integers cannot be told apart, so every sorted order of them is the stable
      one (not floating numbers: 0.0 and -0.0 are equal and differ);
    - `std::nth_element(y.begin(), y.begin() + m, y.end())` followed by `return y[m];` as a
      sort of `y`: the element it puts at m is the one a sort puts there, and nothing else of
      `y` is read."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, statements = found
    if any(n.type == "goto_statement" for n in walk(body)):
        return source, program
    params = dict(function_params(definition))
    edits: list[tuple[int, int, str]] = []
    uses: dict[str, list[Node]] = {}
    for n in walk(body):
        if n.type == "identifier":
            uses.setdefault(text(n), []).append(n)
    for at, statement in enumerate(statements):
        declarator = (
            statement.child_by_field_name("declarator") if statement.type == "declaration" else None
        )
        value = declarator.child_by_field_name("value") if declarator is not None else None
        name = declared_name(declarator) if declarator is not None else None
        kind = statement.child_by_field_name("type")
        if value is None or name is None or kind is None:
            pass
        elif value.type == "lambda_expression" and _captures_nothing(value):
            passed = [
                u
                for u in uses.get(name, [])
                if u.parent is not None
                and u.parent.type == "argument_list"
                and u.start_byte > statement.end_byte  # before it, the name is another's
            ]
            if len(passed) == len(uses[name]) - 1 and _declared_once(body, name):
                edits.append((statement.start_byte, statement.end_byte, ""))
                edits += [(u.start_byte, u.end_byte, text(value)) for u in passed]
            continue
        elif text(kind) == "auto" and value.type == "identifier" and text(value) in params:
            # `auto y = x;`: a copy of the vector parameter x (not `auto &y = x;`, a reference)
            of = _VECTOR_OF.match(text(params[text(value)]))
            plain = declarator.child_by_field_name("declarator") if declarator else None
            if of is not None and plain is not None and plain.type == "identifier":
                element = " ".join(of.group(1).split())
                edits.append(
                    (
                        statement.start_byte,
                        statement.end_byte,
                        f"std::vector<{element}> {name}({text(value)});",
                    )
                )
            continue
        ranged = re.fullmatch(
            r"std::vector<([\w\s:]+)>([A-Za-z_]\w*)\(([A-Za-z_]\w*)\.begin\(\),\3\.end\(\)\);",
            compact_code(statement),
        )
        if ranged is not None and ranged[3] in params:
            of = _VECTOR_OF.match(text(params[ranged[3]]))
            if of is not None and _same_type(" ".join(of.group(1).split())) == _same_type(
                " ".join(ranged[1].split())
            ):
                edits.append(
                    (
                        statement.start_byte,
                        statement.end_byte,
                        f"std::vector<{' '.join(ranged[1].split())} > {ranged[2]}({ranged[3]});",
                    )
                )
            continue
        call = (
            statement.named_children[0]
            if statement.type == "expression_statement" and statement.named_children
            else None
        )
        callee = (
            call.child_by_field_name("function")
            if call is not None and call.type == "call_expression"
            else None
        )
        arguments = (
            call.child_by_field_name("arguments")
            if callee is not None and call is not None
            else None
        )
        if call is None or callee is None or arguments is None:
            continue
        args = [a for a in arguments.named_children if a.type != "comment"]
        over = text(args[0]).removesuffix(".begin()") if args else ""
        if (
            len(args) < 2
            or compact_code(args[0]) != f"{over}.begin()"
            or compact_code(args[-1] if text(callee) == "std::nth_element" else args[1])
            != f"{over}.end()"
        ):
            continue
        if text(callee) == "std::stable_sort" and over in params:
            of = _VECTOR_OF.match(text(params[over]))
            order = args[2] if len(args) == 3 else None
            library = (
                re.sub(r"<.*", "", text(order).split("{")[0]).strip() if order is not None else ""
            )
            element = " ".join(of.group(1).split()) if of is not None else ""
            compared = re.search(r"<\s*([^<>]*?)\s*>", text(order)) if order is not None else None
            own = order is None or (
                order.type != "lambda_expression"
                and library in _ORDERS
                # `std::less<>` or of the element's own type: `less<float>` on ints makes
                # distinct ints equal
                and (compared is None or compared[1] in ("", element))
            )
            if of is not None and own and element.removeprefix("std::") in _INTEGER_ORDERS:
                edits.append((callee.start_byte, callee.end_byte, "std::sort"))
        elif text(callee) == "std::nth_element" and len(args) == 3 and at + 1 < len(statements):
            nth = re.fullmatch(rf"{re.escape(over)}\.begin\(\)\+(.+)", compact_code(args[1]))
            returned = statements[at + 1]
            read = (
                returned.named_children[0]
                if returned.type == "return_statement" and returned.named_children
                else None
            )
            index = _subscript_index(read)
            if (
                nth is not None
                and read is not None
                and index is not None
                and text(read.child_by_field_name("argument") or read) == over
                and compact_code(index) == _unparenthesised(nth[1])
                and _without_effects(index)
            ):
                edits.append(
                    (call.start_byte, call.end_byte, f"std::sort({over}.begin(), {over}.end())")
                )
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


_INTEGER_ORDERS = frozenset(k.removeprefix("std::") for k in _INTEGRAL) | {"bool"}
"""Element types whose equal values cannot be told apart (a stable sort's order is any sort's)."""


def _unparenthesised(code: str) -> str:
    """`code` without parentheses around the whole of it (`(k-1)` as `k-1`)."""
    while code.startswith("(") and code.endswith(")"):
        depth = 0
        for at, c in enumerate(code):
            depth += {"(": 1, ")": -1}.get(c, 0)
            if depth == 0 and at < len(code) - 1:
                return code  # `(a)+(b)`: the first parenthesis closes early
        code = code[1:-1]
    return code


def _captures_nothing(lam: Node) -> bool:
    captures = lam.child_by_field_name("captures")
    return captures is not None and compact_code(captures) == "[]"


def _declared_once(body: Node, name: str) -> bool:
    """Whether `body` declares `name` once (no inner declaration shadows it)."""
    return _declarations(body, name) == 1


def _prototype_part(node: Node) -> bool:
    """Whether `node` is a parameter of a function declared inside a declaration (a local
    prototype, or a constructor call the parser reads as one), not of a lambda."""
    if node.type not in ("parameter_declaration", "optional_parameter_declaration"):
        return False
    parent = node.parent
    while parent is not None and parent.type not in ("lambda_expression", "function_definition"):
        if parent.type == "declaration":
            return True
        parent = parent.parent
    return False


def _params_declared(definition: Node, template: str) -> set[str]:
    """The function's parameters declared a `std::` `template` (`vector`, `(?:vector|array)`),
    by value or reference, `const` or not."""
    return {
        name
        for name, node in function_params(definition)
        if re.match(rf"(?:const\s+)?(?:std::)?{template}\s*<", text(node))
    }


def _plain_iterators(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with `function`'s iterator spellings made one: `x.cbegin()`, `std::begin(x)`
    and `std::cbegin(x)` as `x.begin()`, their ends alike (the same elements, read the same
    way by an algorithm), and a vector's or array's `x.at(i)` as `x[i]` (not where the function
    catches what `at` throws), and its analysis; both as they are where it has none. Only names
    declared a `std::vector` or `std::array` (a `std::map`'s `at` inserts nothing; a C array
    has no `begin`)."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, _ = found
    vectors = _params_declared(definition, "(?:vector|array)") | {
        declared_name(d)
        for n in walk(body)
        if n.type == "declaration" and re.match(r"(?:std::)?(?:vector|array)\s*<", text(n))
        for d in n.children_by_field_name("declarator")
    }
    edits: list[tuple[int, int, str]] = []
    for call in walk(body):
        callee = call.child_by_field_name("function") if call.type == "call_expression" else None
        arguments = call.child_by_field_name("arguments") if callee is not None else None
        if callee is None or arguments is None:
            continue
        args = [a for a in arguments.named_children if a.type != "comment"]
        spelled = re.fullmatch(r"([A-Za-z_]\w*)\.c(begin|end)", text(callee))
        if spelled and not args:
            edits.append((call.start_byte, call.end_byte, f"{spelled[1]}.{spelled[2]}()"))
            continue
        checked = re.fullmatch(r"([A-Za-z_]\w*)\.at", text(callee))
        catches = any(n.type == "try_statement" for n in walk(body))
        if checked and len(args) == 1 and checked[1] in vectors and not catches:
            # `x.at(i)`: the element `x[i]` (the check throws only past the end, where the
            # verifier's inputs never reach)
            edits.append((call.start_byte, call.end_byte, f"{checked[1]}[{text(args[0])}]"))
            continue
        free = re.fullmatch(r"std::c?(begin|end)", text(callee))
        if free and len(args) == 1 and args[0].type == "identifier" and text(args[0]) in vectors:
            edits.append((call.start_byte, call.end_byte, f"{text(args[0])}.{free[1]}()"))
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _first_index_of(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with a function returning the index of the first element a one-line lambda
    holds for (`std::distance(x.begin(), std::find_if(x.begin(), x.end(), f))`, the iterator
    first kept in a variable, or `it - x.begin()`) written as the first-index search it is
    (`for (k ...) if (f(x[k])) return k; return x.size();`), and its analysis; both as they
    are otherwise."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, statements = found
    if not 1 <= len(statements) <= 2 or statements[-1].type != "return_statement":
        return source, program
    returned = statements[-1].named_children[0] if statements[-1].named_children else None
    if returned is None:
        return source, program
    search: Node | None = None
    if len(statements) == 2:
        kept = statements[0]
        declarator = kept.child_by_field_name("declarator") if kept.type == "declaration" else None
        value = declarator.child_by_field_name("value") if declarator is not None else None
        name = declared_name(declarator) if declarator is not None else None
        if value is None or name is None:
            return source, program
        search, iterator = value, name
    else:
        iterator = ""
    missing = None
    """The value returned where nothing holds, where the return says so (`it == x.end() ? -1
    : it - x.begin()`); else the vector's size, the index `x.end()` has."""
    if returned.type == "conditional_expression" and iterator:
        returned, missing = _found_or(returned, iterator)
        if returned is None or missing is None:
            return source, program
        kind = definition.child_by_field_name("type")
        cast = returned.child_by_field_name("type") if returned.type == "cast_expression" else None
        if cast is not None and kind is not None and canon(cast) == canon(kind):
            # `(long)(it - x.begin())` in a function returning `long`: the return's conversion
            returned = unwrap(returned.child_by_field_name("value") or returned)
    distance = re.fullmatch(r"std::distance\((\w+)\.begin\(\),(.+)\)", compact_code(returned))
    minus = re.fullmatch(r"(.+)-(\w+)\.begin\(\)", compact_code(returned))
    if distance:
        over, it = distance[1], distance[2]
    elif minus:
        over, it = minus[2], minus[1]
    else:
        return source, program
    if missing is not None and f"{over}.end()" not in compact_code(statements[-1]):
        return source, program  # compared with another vector's end
    if search is None:
        calls = [n for n in walk(returned) if n.type == "call_expression" and compact_code(n) == it]
        if not calls:
            return source, program
        search = calls[0]
    elif it != iterator:
        return source, program
    callee = search.child_by_field_name("function") if search.type == "call_expression" else None
    arguments = search.child_by_field_name("arguments") if callee is not None else None
    if callee is None or arguments is None or text(callee) not in ("std::find_if", "std::find"):
        return source, program
    args = [a for a in arguments.named_children if a.type != "comment"]
    if len(args) != 3 or _whole_vector(args, definition) != over:
        return source, program
    params = dict(function_params(definition))
    of = _VECTOR_OF.match(text(params[over]))
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    k = next(f"k_{n}" for n in range(100) if f"k_{n}" not in taken)
    if text(callee) == "std::find":
        # the library compares each element with the value, evaluated once: one without effects
        holds = f"{over}[{k}] == ({text(args[2])})" if _without_effects(args[2]) else None
    else:
        holds = _lambda_value(
            args[2], [(f"{over}[{k}]", " ".join(of.group(1).split()) if of else None)]
        )
    if holds is None:
        return source, program
    written = (
        "{\n"
        f"    for (size_t {k} = 0; {k} < {over}.size(); ++{k}) {{\n"
        f"        if ({holds}) return {k};\n"
        "    }\n"
        f"    return {text(missing) if missing is not None else f'{over}.size()'};\n"
        "}"
    )
    return _body_replaced(source, program, body, written)


def _found_or(choice: Node, iterator: str) -> tuple[Node | None, Node | None]:
    """(the index, the value for none) of `it == x.end() ? none : index` (or `it != x.end() ?
    index : none`, `x.end()` on either side), `none` without effects and not reading `it`;
    (None, None) for any other conditional."""
    condition = unwrap(choice.child_by_field_name("condition") or choice)
    then, otherwise = (
        choice.child_by_field_name("consequence"),
        choice.child_by_field_name("alternative"),
    )
    if condition.type != "binary_expression" or then is None or otherwise is None:
        return None, None
    operator = text(condition.children[1])
    sides = {compact_code(condition.child_by_field_name("left") or condition),
             compact_code(condition.child_by_field_name("right") or condition)}  # fmt: skip
    ended = next((side for side in sides if side.endswith(".end()")), None)
    if operator not in ("==", "!=") or ended is None or sides != {iterator, ended}:
        return None, None
    index, none = (otherwise, then) if operator == "==" else (then, otherwise)
    if not _without_effects(none) or iterator in _names(none):
        return None, None
    return unwrap(index), none


def compact_code(node: Node) -> str:
    """The node's code with spaces only between words (`std::distance(x.begin(),it)`)."""
    return re.sub(r"\s*([^\w\s])\s*", r"\1", canon(node))


def _one_name_per_declaration(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with each of `function`'s top-level declarations of several plain names
    (`double sum = 0, best = x[0];`, `std::vector<int> a(n), b(x);`) written as one
    declaration per name, in order, and that source's analysis; else both as they are. A
    declarator with a pointer, reference or array of its own (`int a, *p;`) is left alone: its
    type is not the others'."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, _, body, statements = found
    edits: list[tuple[int, int, str]] = []
    for statement in statements:
        declarators = statement.children_by_field_name("declarator")
        if statement.type != "declaration" or len(declarators) < 2:
            continue
        if any(n.type == "field_declaration_list" for n in walk(statement)):
            continue  # `struct P { ... } p, q;`: one definition of the type, not one per name
        plain = all(
            d.type == "identifier"
            or (
                d.type in ("init_declarator", "function_declarator")
                and (inner := d.child_by_field_name("declarator")) is not None
                and inner.type == "identifier"
            )
            for d in declarators
        )  # `rhs(b)` reads to the grammar as a function's declarator
        if not plain:
            continue
        raw = statement.text or b""
        kind = raw[: declarators[0].start_byte - statement.start_byte].decode().rstrip()
        indent = "\n" + " " * statement.start_point[1]
        edits.append(
            (
                statement.start_byte,
                statement.end_byte,
                indent.join(f"{kind} {text(d)};" for d in declarators),
            )
        )
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _body_replaced(source: str, program: Program, body: Node, written: str) -> tuple[str, Program]:
    """`source` with a function's `body` replaced by `written`, and that source's analysis."""
    from agents.analysis.program import analyse  # the analysis imports this module's users

    raw = source.encode()
    lowered = (raw[: body.start_byte] + written.encode() + raw[body.end_byte :]).decode()
    return lowered, analyse(lowered, program.language)


_DECLARING = frozenset(
    {"init_declarator", "declaration", "for_range_loop", "parameter_declaration",
     "optional_parameter_declaration"}
)  # fmt: skip
"""Nodes whose `declarator` names what they declare."""

_QUERIES = {
    "std::lower_bound": ("long long", "0", "{acc} += ({v}[{k}] < ({e}));"),
    "std::upper_bound": ("long long", "0", "{acc} += !(({e}) < {v}[{k}]);"),
    "std::binary_search": ("bool", "false", "{acc} |= !({v}[{k}] < ({e})) && !(({e}) < {v}[{k}]);"),
}
"""A query of a sorted copy of `v` as a loop over `v` itself: a lower bound's index is the count
of elements below `e`, an upper bound's the count not above it, a binary search whether one is
neither below nor above it."""


def _sorted_queries(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with `function`'s sorted copy of an input written as counts over the input,
    where the copy is only queried, and that source's analysis; else both as they are.

    `std::vector<T> s = x; std::sort(s.begin(), s.end());` (or `s(x)`), `x` a const vector the
    function takes, and `s` read only by `std::distance(s.begin(), std::lower_bound(s.begin(),
    s.end(), e))` (or `std::lower_bound(...) - s.begin()`, `upper_bound` alike) and
    `std::binary_search(s.begin(), s.end(), e)`: each query becomes a count over `x` (see
    `_QUERIES`), declared and run just before the statement that holds it, and the copy and
    its sort go. The counts are what the library finds in a copy sorted by `<` (a strict weak
    order: no NaN, as the sort itself needs), whatever the ties. Each query costs a pass over
    `x` instead of a binary search: quadratic work for a loop of queries, each iteration's
    pass its own, so a kernel runs them at once and needs no sorted copy in device memory.
    A query whose `e` has side effects or reads a name its statement declares, one under a
    loop's or an `if`'s own statement, or any other use of the copy, leaves the source as it
    is."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, statements = found
    sorts = [(i, into) for i, st in enumerate(statements) if (into := _sorted_in_place(st))]
    if len(sorts) != 1:
        return source, program
    at, into = sorts[0]
    copies = [(i, x) for i, st in enumerate(statements[:at]) if (x := _copied_from(st, into))]
    params = dict(function_params(definition))
    if len(copies) != 1:
        return source, program
    copy, over = copies[0]
    declared = text(params[over]) if over in params else ""
    if "vector" not in declared or "const" not in declared.split(over)[0]:
        return source, program
    if any(
        n.type in _DECLARING and declared_name(n.child_by_field_name("declarator")) == over
        for n in walk(body)
    ):
        return source, program  # a name of the body's own hides the input the counts walk
    uses = [
        n
        for n in walk(definition)
        if n.type == "identifier"
        and text(n) == into
        and not statements[copy].start_byte <= n.start_byte < statements[copy].end_byte
        and not statements[at].start_byte <= n.start_byte < statements[at].end_byte
    ]
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    begin, end = f"{into}.begin()", f"{into}.end()"
    edits: list[tuple[int, int, str]] = [
        (statements[copy].start_byte, statements[copy].end_byte, ""),
        (statements[at].start_byte, statements[at].end_byte, ""),
    ]
    covered: list[tuple[int, int]] = []
    for call in walk(definition):
        callee = call.child_by_field_name("function") if call.type == "call_expression" else None
        arguments = call.child_by_field_name("arguments") if callee is not None else None
        if callee is None or arguments is None or text(callee) not in _QUERIES:
            continue
        args = [a for a in arguments.named_children if a.type != "comment"]
        if len(args) != 3 or [text(a).replace(" ", "") for a in args[:2]] != [begin, end]:
            continue
        query, parent = call, call.parent
        if text(callee) != "std::binary_search":
            # the index the bound's iterator stands at: `distance(s.begin(), it)`, `it - s.begin()`
            outer = parent.parent if parent is not None and parent.type == "argument_list" else None
            if parent is not None and outer is not None and outer.type == "call_expression":
                named = [a for a in parent.named_children if a.type != "comment"]
                if text(outer.child_by_field_name("function") or outer) != "std::distance" or (
                    len(named) != 2 or text(named[0]).replace(" ", "") != begin
                ):
                    continue
                query = outer
            elif parent is not None and parent.type == "binary_expression":
                right = parent.child_by_field_name("right")
                if (
                    parent.child_by_field_name("left") != call
                    or text(parent.children[1]) != "-"
                    or right is None
                    or text(right).replace(" ", "") != begin
                ):
                    continue
                query = parent
            else:
                continue
        value = args[2]
        site = _hoist_site(query, [value])
        if site is None or into in _names(value):
            return source, program
        statement, braced = site
        acc = next(f"below_{n}" for n in range(1000) if f"below_{n}" not in taken)
        k = next(f"k_{n}" for n in range(1000) if f"k_{n}" not in taken and f"k_{n}" != acc)
        taken |= {acc, k}
        kind, start, update = _QUERIES[text(callee)]
        counted = update.format(acc=acc, v=over, k=k, e=text(value))
        indent = "\n" + " " * statement.start_point[1]
        edits.append(
            (
                statement.start_byte,
                statement.start_byte,
                ("" if braced else "{ ") + f"{kind} {acc} = {start};{indent}"
                f"for (size_t {k} = 0; {k} < {over}.size(); ++{k}) {counted}{indent}",
            )
        )
        if not braced:
            edits.append((statement.end_byte, statement.end_byte, " }"))
        edits.append((query.start_byte, query.end_byte, acc))
        covered.append((query.start_byte, query.end_byte))
    if not covered or any(not any(b <= n.start_byte < e for b, e in covered) for n in uses):
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


_MAPS = ("std::map<", "std::unordered_map<")
_PAIR = re.compile(r"^std::pair<\s*([^,<>]+?)\s*,\s*([^,<>]+?)\s*>$")


def _map_lookups(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with `function`'s map that is filled from a vector and then only read written
    as searches of that vector, and that source's analysis; else both as they are.

    `std::map<K, V> m;` (or `std::unordered_map`), then `for (const auto &e : x) m[key] =
    value;` (`x` a const vector the function takes, `key` and `value` reading `e` alone, `+=`
    alike), then only reads `m[k]`: each read becomes the value of the last element of `x`
    whose key is `k` (for `+=`, the sum over every such element), `V`'s zero where there is
    none, computed in a pass over `x` just before the statement that holds it
    (`_hoist_site`). The entry `operator[]` adds for a missing key is never seen: nothing
    else reads the map. Keys are integers or pairs of them (`std::pair<size_t, size_t>`,
    written `{a, b}`), compared as their types. Each read costs a pass over `x` instead of a
    lookup: a kernel runs a loop of reads at once and needs no map in device memory."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, statements = found
    params = dict(function_params(definition))
    for at, declaration in enumerate(statements[:-1]):
        kind = declaration.child_by_field_name("type")
        declarator = declaration.child_by_field_name("declarator")
        if (
            declaration.type != "declaration"
            or kind is None
            or declarator is None
            or declarator.type != "identifier"
            or len(declaration.children_by_field_name("declarator")) != 1
        ):
            continue
        template = _last_template(kind)
        arguments = template.child_by_field_name("arguments") if template is not None else None
        if not "".join(text(kind).split()).startswith(_MAPS) or arguments is None:
            continue
        types = [text(t) for t in arguments.named_children if t.type != "comment"]
        if len(types) != 2 or not _number_type(types[1]):
            continue
        pair = _PAIR.match(" ".join(types[0].split()))
        keys = [pair[1], pair[2]] if pair else [" ".join(types[0].split())]
        if not all(k.removeprefix("std::") in _INTEGRAL for k in keys):
            continue
        if _declarations(body, text(declarator)) != 1 or _static(declaration):
            continue  # another of the name in an inner block; a map that outlives the call
        written = _map_lookups_of(
            definition, body, statements, at, text(declarator), keys, types[1], params
        )
        if written is not None:
            return _body_replaced(source, program, body, written)
    return source, program


def _last_template(kind: Node) -> Node | None:
    """The outermost template of a type (`map<...>` of `std::map<...>`)."""
    name = kind.child_by_field_name("name") if kind.type == "qualified_identifier" else kind
    return name if name is not None and name.type == "template_type" else None


def _map_lookups_of(
    definition: Node,
    body: Node,
    statements: list[Node],
    at: int,
    name: str,
    keys: list[str],
    value_type: str,
    params: dict[str, Node],
) -> str | None:
    """`body` rewritten for `_map_lookups`, the map `name` declared by `statements[at]`; None
    where its fill and reads are not those."""
    fill = statements[at + 1]
    over = fill.child_by_field_name("right")
    element = declared_name(fill.child_by_field_name("declarator"))
    store = _sole_statement(fill.child_by_field_name("body"))
    expr = _expression_of(store) if store is not None else None
    kind = fill.child_by_field_name("type")
    if fill.type != "for_range_loop" or over is None or over.type != "identifier" or not element:
        return None
    if kind is None or text(kind) != "auto":
        return None  # `for (int v : x)`: the element converted, which the search would not
    over_name = text(over)
    declared = text(params[over_name]) if over_name in params else ""
    if "vector" not in declared or "const" not in declared.split(over_name)[0]:
        return None
    if any(
        n.type in _DECLARING and declared_name(n.child_by_field_name("declarator")) == over_name
        for n in walk(body)
    ):
        return None  # a name of the body's own hides the input the searches walk
    if expr is None or expr.type != "assignment_expression":
        return None
    operator = text(expr.child_by_field_name("operator") or expr)
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    key = _subscript_index(left)
    if (
        operator not in ("=", "+=")
        or left is None
        or right is None
        or key is None
        or text(left.child_by_field_name("argument") or left) != name
        or not _without_effects(key)
        or not _without_effects(right)
        or (_names(key) | _names(right)) - {element}
    ):
        return None
    stored = _key_parts(key, len(keys))
    if stored is None:
        return None
    reads = [
        n
        for n in walk(definition)
        if n.type == "identifier" and text(n) == name and n.start_byte >= fill.end_byte
    ]
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    edits: list[tuple[int, int, str]] = [
        (*_whole_lines(statements[at]), ""),
        (*_whole_lines(fill), ""),
    ]
    for read in reads:
        lookup = read.parent
        if (
            lookup is None
            or lookup.type != "subscript_expression"
            or lookup.child_by_field_name("argument") != read
        ):
            return None
        if not _read_as_value(lookup):
            return None  # written, its address or a reference taken: not only read
        wanted = _subscript_index(lookup)
        asked = _key_parts(wanted, len(keys)) if wanted is not None else None
        site = _hoist_site(lookup, asked or [])
        if asked is None or site is None or any(name in _names(part) for part in asked):
            return None
        statement, braced = site
        acc = next(f"found_{n}" for n in range(1000) if f"found_{n}" not in taken)
        k = next(f"e_{n}" for n in range(1000) if f"e_{n}" not in taken and f"e_{n}" != acc)
        taken |= {acc, k}
        item = f"{over_name}[{k}]"
        match = " && ".join(
            f"({kind})({_substituted(part, element, item)}) == ({kind})({text(other)})"
            for kind, part, other in zip(keys, stored, asked, strict=True)
        )
        update = f"{acc} {operator} {_substituted(right, element, item)};"
        indent = "\n" + " " * statement.start_point[1]
        edits.append(
            (
                statement.start_byte,
                statement.start_byte,
                ("" if braced else "{ ") + f"{value_type} {acc} = 0;{indent}"
                f"for (size_t {k} = 0; {k} < {over_name}.size(); ++{k}) {{ if ({match}) {update} }}"
                f"{indent}",
            )
        )
        if not braced:
            edits.append((statement.end_byte, statement.end_byte, " }"))
        edits.append((lookup.start_byte, lookup.end_byte, acc))
    if not reads:
        return None
    return _rewrite(body, edits)


def _key_parts(key: Node | None, count: int) -> list[Node] | None:
    """A map key's parts: the key itself, or a pair's two members written `{a, b}`."""
    if key is None:
        return None
    if count == 1:
        return None if key.type == "initializer_list" else [key]
    parts = [c for c in key.named_children if c.type != "comment"]
    if key.type != "initializer_list" or len(parts) != count:
        return None
    return parts


def _substituted(node: Node, name: str, by: str) -> str:
    """`node`'s text with the identifier `name` written `by`."""
    return _rewrite(
        node,
        [
            (n.start_byte, n.end_byte, by)
            for n in walk(node)
            if n.type == "identifier" and text(n) == name
        ],
    )


def _refills(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with each `v.clear();` followed by `v.resize(n, value);` (or `v.resize(n);`
    for numbers: their zero), `v` a vector the function takes by reference and nothing
    between naming it, written as the loop that sets `v[0]` to `v[n - 1]` to `value`, and
    that source's analysis; else both as they are. Only where after it `v` is read and
    written by subscript alone: its size stays the caller's, which the driver has made `n`
    (as it does for a `resize` alone: `_resizes_output`)."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, statements = found
    params = dict(function_params(definition))
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    edits: list[tuple[int, int, str]] = []
    for at, statement in enumerate(statements):
        cleared = _method_call(statement, "clear", 0)
        owner = cleared[0] if cleared is not None else None
        declared = text(params[owner]) if owner in params else ""
        element = re.match(r"^std::vector<(.+)>\s*&", declared)
        if owner is None or element is None or "const" in declared.rpartition(">")[2]:
            continue  # not a vector the function fills for its caller
        later = [s for s in statements[at + 1 :] if owner in _names(s)]
        resize = later[0] if later else None
        between = statements[at + 1 : statements.index(resize)] if resize is not None else []
        if any(
            _method_call(b, "clear", 0) is None and _method_call(b, "resize", 1, 2) is None
            for b in between
        ):
            continue  # a path between may leave without the resize (`if (...) return;`)
        sized = _method_call(resize, "resize", 1, 2) if resize is not None else None
        if resize is None or sized is None or sized[0] != owner:
            continue
        values = sized[1]
        if not all(_without_effects(v) for v in values):
            continue
        if owner in {n for v in values for n in _names(v)}:
            continue
        if len(values) == 1 and not _number_type(element[1]):
            continue
        after = [
            n
            for n in walk(definition)
            if n.type == "identifier" and text(n) == owner and n.start_byte >= resize.end_byte
        ]
        if any(
            n.parent is None
            or n.parent.type != "subscript_expression"
            or n.parent.child_by_field_name("argument") != n
            for n in after
        ):
            continue
        k = next(f"i_{n}" for n in range(1000) if f"i_{n}" not in taken)
        taken.add(k)
        value = text(values[1]) if len(values) == 2 else "0"
        edits.append((*_whole_lines(statement), ""))
        edits.append(
            (
                resize.start_byte,
                resize.end_byte,
                f"for (size_t {k} = 0; {k} < (size_t)({text(values[0])}); ++{k}) "
                f"{owner}[{k}] = {value};",
            )
        )
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _method_call(statement: Node, method: str, *counts: int) -> tuple[str, list[Node]] | None:
    """The name whose `method` the statement calls with one of `counts` arguments
    (`v.clear();`) and those arguments, else None."""
    call = _expression_of(statement)
    callee = call.child_by_field_name("function") if call is not None else None
    args = call.child_by_field_name("arguments") if call is not None else None
    if call is None or call.type != "call_expression" or callee is None or args is None:
        return None
    owner = callee.child_by_field_name("argument")
    field = callee.child_by_field_name("field")
    given = [a for a in args.named_children if a.type != "comment"]
    if (
        callee.type != "field_expression"
        or owner is None
        or owner.type != "identifier"
        or field is None
        or text(field) != method
        or len(given) not in counts
    ):
        return None
    return text(owner), given


def _hoist_site(query: Node, values: list[Node]) -> tuple[Node, bool] | None:
    """Where a query may be computed just before the statement that holds it: that statement
    and whether it stands in a block (else it is a loop's or an `if`'s one statement, to be
    braced); None where the query's `values` have side effects or read a name the statement
    declares, or where computed before the statement the query would run where the statement
    may not reach it (`c ? q : 0`, `a && q`) or before a write its value would have read
    (`(t = x[i], q(t))`)."""
    effects = [
        n
        for value in values
        for n in walk(value)
        if n.type in ("assignment_expression", "update_expression", "comma_expression",
                      "lambda_expression")
        or (
            n.type == "call_expression"
            and text(n.child_by_field_name("function") or n).removeprefix("std::") not in _MATH
        )
    ]  # fmt: skip
    statement, braced = query, True
    while statement.parent is not None and statement.parent.type != "compound_statement":
        holder = statement.parent
        if statement.type.endswith("statement") and (
            holder.type == "else_clause"
            or any(holder.child_by_field_name(f) == statement for f in ("body", "consequence"))
        ):
            braced = False  # a loop's or an `if`'s one statement: braces make it a block
            break
        statement = holder
    if (
        effects
        or statement.type not in ("expression_statement", "declaration", "return_statement")
        or statement.start_byte == query.start_byte
    ):
        return None
    between, up = [], query.parent
    while up is not None:
        between.append(up)
        if up == statement:
            break
        up = up.parent
    top = _expression_of(statement)
    if any(
        n.type in ("comma_expression", "conditional_expression", "lambda_expression")
        or (n.type == "binary_expression" and text(n.children[1]) in ("&&", "||"))
        for n in between
    ) or any(
        n.type in ("assignment_expression", "update_expression") and n != top
        for n in walk(statement)
    ):
        return None
    if statement.type == "declaration":
        own = {declared_name(d) for d in statement.children_by_field_name("declarator")}
        if any(own & _names(value) for value in values):
            return None
    return statement, braced


def _expression_of(statement: Node) -> Node | None:
    """An expression statement's expression; None for any other statement and for `;`."""
    if statement.type != "expression_statement" or not statement.named_children:
        return None
    return statement.named_children[0]


def _statement_algorithms(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with each of `function`'s top-level statements that is one standard algorithm
    over whole vectors written as the loop it runs, and that source's analysis; else both as
    they are:

    - `std::transform(a.begin(), a.end(), out.begin(), f)` (and with `b.begin()` before
      `out.begin()`, a binary `f`): `out[k] = f(a[k])` (`f(a[k], b[k])`) for every k of `a`,
      `f` a lambda of one `return` that assigns nothing;
    - `std::for_each(a.begin(), a.end(), f)`: `f`'s body for every element, its parameter a
      reference (`[](int &e) { if (e < 0) e = 0; }`) standing for `a[k]`; a body that returns,
      declares a lambda or takes its parameter's address is refused;
    - `std::fill(a.begin(), a.end(), v)`: `a[k] = v`;
    - `std::iota(a.begin(), a.end(), v)`, `v` an integer: `a[k] = v + k` in `v`'s type;
    - `std::partial_sum(a.begin(), a.end(), out.begin())`, `out` another vector parameter of
      `a`'s element type: `out[k] = a[k]` at `k == 0`, else `out[k - 1] + a[k]`.

    Each is the loop the library runs element by element in order; the kernel is then written
    from the loops like any other (maps in phases), and refused the same way."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, statements = found
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    edits: list[tuple[int, int, str]] = []
    for statement in statements:
        call = _expression_of(statement)
        if call is None or call.type != "call_expression":
            continue
        callee = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if callee is None or arguments is None:
            continue
        args = [a for a in arguments.named_children if a.type != "comment"]
        over = _whole_vector(args, definition) if len(args) >= 3 else None
        if over is None:
            continue
        k = next(f"k_{n}" for n in range(100) if f"k_{n}" not in taken)
        element = f"{over}[{k}]"
        body_text = _algorithm_statement(text(callee), args, element, k, definition)
        if body_text is None:
            continue
        taken.add(k)
        indent = " " * statement.start_point[1]
        edits.append(
            (
                statement.start_byte,
                statement.end_byte,
                f"for (size_t {k} = 0; {k} < {over}.size(); ++{k}) {{\n{indent}    {body_text}\n"
                f"{indent}}}",
            )
        )
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _algorithm_statement(
    algorithm: str, args: list[Node], element: str, k: str, definition: Node
) -> str | None:
    """The body of the loop `_statement_algorithms` writes for one algorithm call (its
    arguments `args`, the first vector's element `element` at `k`), or None."""
    params = _vectors(definition, args[0])
    over = element.split("[", 1)[0]

    def element_type(name: str) -> str | None:
        declared = params.get(name)
        found = _VECTOR_OF.match(text(declared)) if declared else None
        return " ".join(found.group(1).split()) if found else None

    def out_at(node: Node) -> str | None:
        # `y.begin()` of a vector the function takes (or declares before: its own local)
        name = text(node).removesuffix(".begin()")
        if name == text(node) or not re.fullmatch(r"[A-Za-z_]\w*", name):
            return None
        declared = params.get(name)
        if declared is None or not _VECTOR_TYPE.match(text(declared)):
            return None
        return f"{name}[{k}]"

    if algorithm == "std::fill" and len(args) == 3:
        if any(n.type in _EFFECTFUL for n in walk(args[2])) or mentions(args[2], over):
            return None  # evaluated once by the library, each iteration here (after writes)
        return f"{element} = ({text(args[2])});"
    if algorithm == "std::iota" and len(args) == 3:
        # `value` stored, then incremented: the k-th element its start plus k, in the start's
        # type; an integer's only (a floating start's increments round at each step)
        kind = _literal_type(args[2], dict(function_params(definition)))
        if kind is None or kind.removeprefix("std::") not in _INTEGRAL:
            return None
        if any(n.type in _EFFECTFUL for n in walk(args[2])) or mentions(args[2], over):
            return None
        return f"{element} = ({kind})(({text(args[2])}) + ({kind})({k}));"
    if algorithm == "std::transform" and len(args) in (4, 5):
        target = out_at(args[-2])
        if target is not None and _copies(args[-1], target.split("[", 1)[0]):
            return None
        second = out_at(args[2]) if len(args) == 5 else None
        if target is None or (len(args) == 5 and second is None):
            return None
        inputs = [(element, element_type(over))]
        if second is not None:
            inputs.append((second, element_type(second.split("[", 1)[0])))
        value = _lambda_value(args[-1], inputs) or _library_operation(args[-1], inputs)
        function_named = args[-1].type == "identifier" and text(args[-1]) in {
            function_name(d) for d in function_definitions(root_of(definition))
        }
        if value is None and function_named and text(args[-1]) not in params:
            # a function of the source by name (`isPowerOfTwo`): called on the elements
            value = f"{text(args[-1])}({', '.join(e for e, _ in inputs)})"
        return None if value is None else f"{target} = {value};"
    if algorithm == "std::for_each" and len(args) == 3:
        if _copies(args[2], over):
            return None
        return _lambda_body(args[2], element, element_type(over))
    if algorithm == "std::partial_sum" and len(args) == 3:
        # the running sum in the output: a recurrence with a first iteration of its own; the
        # library sums in the input's element type, the recurrence in the output's, so the
        # two must be one type (the function's parameters), and not one vector (in place,
        # the recurrence would read the element it replaces)
        target = out_at(args[2])
        into = target.split("[", 1)[0] if target is not None else ""
        kind = element_type(over)
        if target is None or into == over or kind is None or element_type(into) != kind:
            return None
        return f"if ({k} == 0) {target} = {element}; else {target} = {into}[{k} - 1] + {element};"
    return None


_OPERATIONS = {
    "std::plus": "+", "std::minus": "-", "std::multiplies": "*", "std::divides": "/",
    "std::negate": "-",
}  # fmt: skip
"""The library's arithmetic function objects, as their operators."""


def _library_operation(operation: Node, inputs: list[tuple[str, str | None]]) -> str | None:
    """`std::plus<T>()` (`{}`, or `<>` for the operands' own types) and its kin applied to
    `inputs`: `((T)(a) + (T)(b))`, `-(T)(a)` for `negate`; None for anything else."""
    if operation.type not in ("call_expression", "compound_literal_expression"):
        return None
    called = compact_code(operation).split("{")[0].removesuffix("()")
    match = re.fullmatch(r"(std::\w+)<([^<>]*)>", called)
    if match is None or match[1] not in _OPERATIONS:
        return None
    unary = match[1] == "std::negate"
    if len(inputs) != (1 if unary else 2):
        return None
    cast = f"({match[2]})" if match[2] else ""
    values = [f"{cast}({value})" for value, _ in inputs]
    symbol = _OPERATIONS[match[1]]
    return f"({symbol}{values[0]})" if unary else f"({values[0]} {symbol} {values[1]})"


def _copies(lam: Node, written: str) -> bool:
    """Whether lambda `lam` reads a copy of `written` taken when it was made (`[a]`, or `[=]`
    with `a` in its body): inlined into the loop that writes `written`, it would read the
    live vector instead."""
    captures = lam.child_by_field_name("captures") if lam.type == "lambda_expression" else None
    if captures is None:
        return False
    children = list(captures.children)
    by_value = {
        text(c)
        for at, c in enumerate(children)
        if c.type == "identifier" and (at == 0 or children[at - 1].type != "&")
    }
    every = any(c.type == "lambda_default_capture" and text(c) == "=" for c in children)
    body = lam.child_by_field_name("body")
    read = {text(n) for n in walk(body) if n.type == "identifier"} if body is not None else set()
    return written in by_value or (every and written in read)


_EFFECTFUL = frozenset(
    {"call_expression", "assignment_expression", "update_expression", "new_expression",
     "delete_expression", "lambda_expression"}
)  # fmt: skip
"""Expressions that do something each time they are evaluated."""


@dataclass(frozen=True)
class _Lambda:
    """A lambda the algorithms' loops write inline: its parameters, its body (a compound
    statement) and the type it declares it returns (None where it deduces it)."""

    params: list[Node]
    body: Node
    returns: str | None

    @property
    def statements(self) -> list[Node]:
        return [c for c in self.body.named_children if c.type != "comment"]

    @staticmethod
    def of(lam: Node) -> _Lambda | None:
        """None where `lam` is no lambda, or one whose inline copy could differ: `mutable`,
        `noexcept` or attributes, an initialised capture (a name of its own), a parameter
        that is a pointer, an array or a pack, a preprocessor line in its body."""
        if lam.type != "lambda_expression":
            return None
        declarator = lam.child_by_field_name("declarator")
        parameters = (
            declarator.child_by_field_name("parameters") if declarator is not None else None
        )
        body = lam.child_by_field_name("body")
        if parameters is None or body is None or declarator is None:
            return None
        returns = None
        for c in declarator.children:
            if c.type == "trailing_return_type":
                returns = " ".join(text(c).removeprefix("->").split())
            elif c.type != "parameter_list":
                return None  # `mutable`, `noexcept`, attributes
        captures = lam.child_by_field_name("captures")
        if captures is not None and any(
            c.type in ("lambda_capture_initializer", "ERROR") for c in captures.children
        ):
            return None  # `[s = 2]`: a name of the lambda's own, unknown outside it
        params = list(parameters.named_children)
        for param in params:
            declarator_of = param.child_by_field_name("declarator")
            if param.type != "parameter_declaration" or declarator_of is None:
                return None
            if declarator_of.type not in ("identifier", "reference_declarator"):
                return None
        if any(n.type.startswith("preproc") for n in walk(body)):
            return None
        return _Lambda(params, body, None if returns in (None, "auto") else returns)


def _param_type(param: Node) -> str | None:
    """A lambda parameter's declared type as written (`double`, `std::size_t`), or None for
    `auto`."""
    kind = param.child_by_field_name("type")
    if kind is None or "auto" in text(kind).split():
        return None
    return " ".join(text(kind).split())


def _as_parameter(param: Node, element: str, element_type: str | None) -> str:
    """`element` as the lambda's parameter `param` receives it: as it is where the parameter
    is `auto` or of the element's own type (a reference to the element itself), else
    converted to its declared type (`[](double v)` on an `int` element divides as a double)."""
    kind = _param_type(param)
    if kind is None or (element_type is not None and _same_type(kind) == _same_type(element_type)):
        return f"({element})"
    return f"(({kind})({element}))"


def _inline(node: Node, names: dict[str, str]) -> str:
    """`node`'s text with each use of a name of `names` (not a member's or a qualified
    name's last part: `std::exp` beside a parameter `exp`) replaced by its text."""
    return _rewrite(
        node,
        [
            (n.start_byte, n.end_byte, names[text(n)])
            for n in walk(node)
            if n.type == "identifier"
            and text(n) in names
            and (n.parent is None or n.parent.type != "qualified_identifier")
        ],
    )


def _lambda_value(lam: Node, inputs: list[tuple[str, str | None]]) -> str | None:
    """A lambda of one `return` that assigns nothing, applied to `inputs` (each an element and
    its type where known; the parameters read as those elements, by value), else None."""
    parts = _Lambda.of(lam)
    if parts is None or len(parts.params) != len(inputs) or len(parts.statements) != 1:
        return None
    (returned,) = parts.statements
    if returned.type != "return_statement" or not returned.named_children:
        return None
    value = returned.named_children[0]
    if any(
        (n.type in _EFFECTFUL and n.type != "call_expression") or n.type in _DECLARING
        for n in walk(value)
    ):
        return None  # calls: the analysis judges them, as in any loop
    names = [declared_name(p.child_by_field_name("declarator")) for p in parts.params]
    if None in names or len(set(names)) != len(names):
        return None
    by_name = {
        name: _as_parameter(p, element, kind)
        for name, p, (element, kind) in zip(names, parts.params, inputs, strict=True)
        if name is not None
    }
    inline = _inline(value, by_name)
    return f"(({parts.returns})({inline}))" if parts.returns else f"({inline})"


def _lambda_body(lam: Node, element: str, element_type: str | None) -> str | None:
    """A `for_each` lambda's body (a block) with its one reference parameter read and written
    as `element` (a parameter by value: a copy of the element declared before the body), else
    None: a reference converting the element (a `const double &` bound to an `int` is a copy),
    a `return`, a lambda, a declaration of the parameter's or the vector's name inside, the
    parameter's address, size or type taken."""
    parts = _Lambda.of(lam)
    if parts is None or len(parts.params) != 1 or parts.returns is not None:
        return None
    (param,) = parts.params
    declarator = param.child_by_field_name("declarator")
    name = declared_name(declarator)
    kind = _param_type(param)
    if name is None or declarator is None:
        return None
    copied = declarator.type == "identifier"
    """A parameter by value: the body runs on a copy (`[&](int p) { bins[p] += 1; }`)."""
    if not copied and declarator.type != "reference_declarator":
        return None
    if (
        not copied
        and kind is not None
        and (element_type is None or _same_type(kind) != _same_type(element_type))
    ):
        return None
    hidden = {name, element.split("[", 1)[0]}
    if any(
        n.type in ("return_statement", "lambda_expression", "goto_statement")
        or (
            n.type in ("declaration", "for_range_loop", "parameter_declaration")
            and any(declared_name(d) in hidden for d in n.children_by_field_name("declarator"))
        )
        or (n.type == "pointer_expression" and text(n).startswith("&"))
        or n.type in ("sizeof_expression", "decltype", "alignof_expression")
        for n in walk(parts.body)
    ):
        return None
    if copied:
        local = kind if kind not in (None, "auto", "const auto") else element_type
        if local is None:
            return None
        return f"{{ {local} {name} = {element}; {text(parts.body)} }}"
    return _inline(parts.body, {name: f"({element})"})


def _algorithm_as_loop(source: str, program: Program, function: str) -> tuple[str, Program]:
    """`source` with each of `function`'s statements (in its body or a block inside it) whose
    value holds standard algorithms (a return's, a declaration's, an assignment's: `return
    std::accumulate(...)`, `int deg = std::count(A.begin() + i * N, ...)` in a loop,
    `const bool in = std::find(...) != x.end();`, `bins[0] = std::count_if(...);`) written as
    the loops those run, just before the statement, which then reads their results; and that
    source's analysis; else both as they are. A value that calls anything else is left alone.

    - `std::find(v.begin(), v.end(), e) != v.end()` (or `==`): whether some element equals
      `e`, an `|` reduction over `v[k] == e` (negated for `==`);
    - `std::count(v.begin(), v.end(), e)`: a `+` reduction of `v[k] == e` in the function's
      return type;
    - `std::accumulate(v.begin(), v.end(), init)`: a `+` reduction from `init`, in the type
      `init` has (an integer literal: `int`, as the library sums), refused where that cuts
      floating-point elements at every step.

    The kernel is then written from the loop like any other, so what it may not do (a size the
    kernel lacks, a result type no atomic updates) is refused the same way."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, _ = found
    if any(n.type == "goto_statement" for n in walk(body)):
        return source, program  # a jump past a loop's declarations would not compile
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    edits: list[tuple[int, int, str]] = []
    for statement in _block_statements(body):
        value = _statement_value(statement)
        if value is None:
            continue
        loops: list[str] = []
        inside: list[tuple[int, int, str]] = []
        names = set(taken)
        pending = [value]
        while pending:
            # each algorithm the value holds (`find(x) != end ^ find(y) != end`) is its own
            # loop, outermost first, run just before the statement; the rest of the value
            # reads their results
            expr = pending.pop()
            if (_maybe_unevaluated(expr, value) and not _total(expr)) or _addressed(expr):
                continue  # run before the statement, it would run where the original does not
            acc = next(f"acc_{n}" for n in range(100) if f"acc_{n}" not in names)
            lowered = _algorithm_loop(expr, definition, names | {acc}, acc)
            if lowered is None:
                pending.extend(reversed(expr.named_children))  # left first
                continue
            names.add(acc)
            loops.append(lowered[0])
            inside.append((expr.start_byte, expr.end_byte, lowered[1]))
        if not loops or any(
            n.type == "call_expression"
            and not any(e[0] <= n.start_byte < e[1] for e in inside)
            and not re.fullmatch(r"[A-Za-z_]\w*\.size\(\)", text(n))  # `sum / x.size()`
            and not _is_cast(n.child_by_field_name("function") or n)
            for n in walk(value)
        ):
            continue  # no algorithm, or a call besides them
        taken = names
        indent = " " * statement.start_point[1]
        written = "".join(f"{indent}{loop.strip()}\n" for loop in loops)
        whole = written + indent + _rewrite(statement, inside).strip()
        if _braced(statement):
            whole = f"{{\n{whole}\n{indent}}}"
        edits.append((statement.start_byte, statement.end_byte, whole))
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _block_statements(body: Node) -> list[Node]:
    """The statements of `body` and of every block inside it (a loop's, a branch's braces;
    not a lambda's), and a loop's or a branch's one statement without braces, in source order:
    where a loop can go just before a statement (`_braced` puts braces around the last)."""
    found: list[Node] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "lambda_expression":
            continue
        if node.type == "compound_statement":
            found.extend(c for c in node.named_children if c.type != "comment")
        elif _braced(node):
            found.append(node)
        stack.extend(node.named_children)
    return sorted(found, key=lambda n: n.start_byte)


def _braced(statement: Node) -> bool:
    """Whether `statement` is a loop's or a branch's whole body, without braces (a loop
    written before it must go inside braces with it)."""
    parent = statement.parent
    if parent is None or statement.type not in ("expression_statement", "return_statement"):
        return False
    if parent.type == "else_clause":
        return True
    field = {
        "for_statement": "body",
        "while_statement": "body",
        "for_range_loop": "body",
        "if_statement": "consequence",
    }.get(parent.type)
    return field is not None and parent.child_by_field_name(field) == statement


def _maybe_unevaluated(expr: Node, value: Node) -> bool:
    """Whether `expr`, inside `value`, is evaluated only on some paths: a branch of `?:`, the
    right side of `&&` or `||`."""
    node = expr
    while node != value and node.parent is not None:
        parent = node.parent
        if parent.type == "conditional_expression" and node != parent.child_by_field_name(
            "condition"
        ):
            return True
        if (
            parent.type == "binary_expression"
            and text(parent.children[1]) in ("&&", "||")
            and node == parent.child_by_field_name("right")
        ):
            return True
        node = parent
    return False


def _total(expr: Node) -> bool:
    """Whether an algorithm call in `expr` is safe to run where the original might not: over a
    whole vector (`x.begin(), x.end()`), its lambdas only computing a value, no element
    dereferenced (an empty vector's `*max_element` reads past its end)."""
    if text(expr).lstrip().startswith("*"):
        return False
    for lam in (n for n in walk(expr) if n.type == "lambda_expression"):
        body = lam.child_by_field_name("body")
        if body is None or not _without_effects(body):
            return False  # a predicate that does more than compute a value
    calls = [n for n in walk(expr) if n.type == "call_expression"]
    for call in calls:
        arguments = call.child_by_field_name("arguments")
        args = [a for a in arguments.named_children if a.type != "comment"] if arguments else []
        if len(args) >= 2 and compact_code(args[0]).endswith(".begin()"):
            over = compact_code(args[0]).removesuffix(".begin()")
            if compact_code(args[1]) != f"{over}.end()":
                return False
    return True


def _addressed(expr: Node) -> bool:
    """`&*std::max_element(...)`: the element itself, not a value a loop could keep."""
    parent = expr.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    return (
        parent is not None
        and parent.type == "pointer_expression"
        and text(parent.children[0]) == "&"
    )


def _statement_value(statement: Node) -> Node | None:
    """The value a top-level statement computes once: a return's, a declaration's of one name,
    an assignment's right side (`bins[0] = ...;`); None for other statements."""
    if statement.type == "return_statement":
        return statement.named_children[0] if statement.named_children else None
    if statement.type == "declaration":
        declarators = statement.children_by_field_name("declarator")
        named = declarators[0].child_by_field_name("declarator") if len(declarators) == 1 else None
        if named is None or named.type != "identifier":
            return None  # a reference or pointer would bind to the element, not to a value
        return declarators[0].child_by_field_name("value")
    expr = _expression_of(statement)
    if expr is None or expr.type != "assignment_expression":
        return None
    return expr.child_by_field_name("right")


_COUNT_TYPE = "long long"
"""The type a count is kept in, as the library's `ptrdiff_t` (in the function's return type a
`bool` count would stop at 1, an `unsigned` one wrap where the statement subtracts counts);
the kernel converts its total to the result's type once."""


def _algorithm_loop(
    expr: Node, definition: Node, taken: set[str], acc: str
) -> tuple[str, str] | None:
    """The declaration of `acc` and the loop `_algorithm_as_loop` writes for the algorithm
    `expr` is, and what stands for `expr` after it (`acc`, `!acc` for a find that is `==`
    its end); None where `expr` is no algorithm."""
    while expr.type == "parenthesized_expression" and expr.named_children:
        expr = expr.named_children[0]
    extreme = _extreme_loop(expr, definition, taken, acc)
    if extreme is not None:
        return extreme
    negate = False
    call = expr
    if expr.type == "binary_expression":
        operator = text(expr.children[1])
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        if operator not in ("==", "!=") or left is None or right is None:
            return None
        call, end = (left, right) if left.type == "call_expression" else (right, left)
        negate = operator == "=="
    callee = call.child_by_field_name("function") if call.type == "call_expression" else None
    arguments = call.child_by_field_name("arguments") if callee is not None else None
    if callee is None or arguments is None:
        return None
    algorithm = text(callee)
    args = [a for a in arguments.named_children if a.type != "comment"]
    if algorithm == "std::inner_product" and expr is call:
        return _inner_product_loop(args, definition, taken, acc)
    folded = args[3] if algorithm == "std::accumulate" and len(args) == 4 else None
    """`std::accumulate`'s operation: `std::plus<T>()`, `std::multiplies<T>()` or a lambda of
    the running value and an element."""
    if folded is not None:
        args = args[:3]
    if len(args) != 3 or algorithm not in (
        "std::find",
        "std::find_if",
        "std::count",
        "std::count_if",
        "std::accumulate",
        *_PREDICATES,
    ):
        return None
    span = _span(args, definition)
    if span is None or (expr is call) == (algorithm in ("std::find", "std::find_if")):
        return None  # a find compared with its end, a count, a sum or a test returned as it is
    over, lo, hi = span
    if expr is not call and compact_code(end) != compact_code(args[1]):
        return None
    params = _vectors(definition, expr)
    k = next(f"k_{n}" for n in range(100) if f"k_{n}" not in taken)
    taken.add(k)
    value = text(args[2])
    returned = definition.child_by_field_name("type")
    if algorithm in ("std::find", "std::count") and not _without_effects(args[2]):
        return None  # the library evaluates the value once, the loop would at every element
    if algorithm == "std::find":
        kind, start, update = "bool", "false", f"{acc} |= ({over}[{k}] == ({value}));"
    elif algorithm == "std::find_if" or algorithm in _PREDICATES:
        # whether some element holds (`any_of`, a find_if compared with its end), or some
        # element fails (`all_of`: its negation) or holds (`none_of`: its negation)
        of = _VECTOR_OF.match(text(params[over]))
        holds = _lambda_value(
            args[2], [(f"{over}[{k}]", " ".join(of.group(1).split()) if of else None)]
        )
        if holds is None:
            return None
        failing = algorithm == "std::all_of"
        kind, start = "bool", "false"
        update = f"{acc} |= {'!' if failing else ''}(bool)({holds});"
        negate = negate or algorithm in ("std::all_of", "std::none_of")
    elif algorithm == "std::count":
        if returned is None:
            return None
        kind, start, update = _COUNT_TYPE, "0", f"{acc} += ({over}[{k}] == ({value}));"
    elif algorithm == "std::count_if":
        of = _VECTOR_OF.match(text(params[over]))
        holds = _lambda_value(
            args[2], [(f"{over}[{k}]", " ".join(of.group(1).split()) if of else None)]
        )
        if returned is None or holds is None:
            return None
        kind, start, update = _COUNT_TYPE, "0", f"{acc} += (({holds}) ? 1 : 0);"
    else:
        typed = _literal_type(args[2], params)
        element = _VECTOR_OF.match(text(params[over]))
        if typed is None or element is None:
            return None
        kind = typed
        floating = ("float", "double", "long double")
        if kind not in floating and _same_type(element.group(1)) in floating:
            raise AnnotationError(
                f"std::accumulate from {value} sums {element.group(1)}s in a {kind}, cutting "
                "every step (a parallel sum would cut once)"
            )
        start, update = value, f"{acc} += {over}[{k}];"
        if folded is not None:
            called = compact_code(folded).split("{")[0].split("(")[0]
            library = re.sub(r"<.*", "", called)
            operand = re.search(r"<(.*)>", called)
            if operand is not None and operand[1] and _same_type(operand[1]) != _same_type(kind):
                return None  # `std::plus<int>` on a double total: both converted each step
            if folded.type != "lambda_expression" and library in _ACCUMULATIONS:
                update = f"{acc} {_ACCUMULATIONS[library]} {over}[{k}];"
            else:
                step = _lambda_value(
                    folded, [(acc, kind), (f"{over}[{k}]", " ".join(element.group(1).split()))]
                )
                if step is None:
                    return None
                # the running value bare (`acc + b * b`, not `(acc) + ...`): the fold's shape
                update = f"{acc} = {step.replace(f'({acc})', acc)};"
    return (
        f"    {kind} {acc} = {start};\n"
        f"    for (size_t {k} = {lo}; {k} < {hi}; ++{k}) {{\n        {update}\n    }}\n"
    ), f"(!{acc})" if negate else acc


def _inner_product_loop(
    args: list[Node], definition: Node, taken: set[str], acc: str
) -> tuple[str, str] | None:
    """`std::inner_product(x.begin(), x.end(), y.begin(), init)` as the `+` reduction of
    `x[k] * y[k]` from `init` (in `init`'s type, as `accumulate`), or with `std::plus` and a
    one-line lambda of the pair (`[](double a, double b) { return std::min(a, b); }`) the
    reduction of the lambda's value; None for any other form. The first range may be part of
    its vector and the second may start past its begin (`A.begin() + i * N, A.begin() + (i +
    1) * N, x.begin()`: a row times a vector), offsets without effects (`_span`)."""
    if len(args) not in (4, 6):
        return None
    span = _span(args[:2], definition)
    params = _vectors(definition, args[0])
    second = _span([args[2], args[2]], definition) if args[2].type != "call_expression" else None
    other = text(args[2]).removesuffix(".begin()")
    start = "0"
    if second is not None:
        other, start = second[0], second[1]  # `y.begin() + e`
    if span is None or other == text(args[2]) or "vector" not in text(params.get(other) or args[2]):
        return None
    over, lo, hi = span
    k = next(f"k_{n}" for n in range(100) if f"k_{n}" not in taken)
    taken.add(k)
    at = k if (lo, start) == ("0", "0") else f"{k} - {lo} + {start}"

    def element(name: str) -> str | None:
        found = _VECTOR_OF.match(text(params[name]))
        return " ".join(found.group(1).split()) if found else None

    value: str | None = f"{over}[{k}] * {other}[{at}]"
    kind = _literal_type(args[3], params)
    if len(args) == 6:
        plus = re.fullmatch(
            r"std::plus<([\w\s]*)>(?:\(\)|\{\})", compact_code(args[4]).replace(" ", "")
        )
        if plus is None or plus.group(1) not in ("", (kind or "").replace(" ", "")):
            return None  # `std::plus<int>` over doubles converts every step's operands
        value = _lambda_value(
            args[5], [(f"{over}[{k}]", element(over)), (f"{other}[{at}]", element(other))]
        )
    if value is None or kind is None:
        return None
    floating = ("float", "double", "long double")
    if kind not in floating and element(over) in floating:
        raise AnnotationError(
            f"std::inner_product from {text(args[3])} sums in a {kind}, cutting every step"
        )
    return (
        f"    {kind} {acc} = {text(args[3])};\n"
        f"    for (size_t {k} = {lo}; {k} < {hi}; ++{k}) {{\n        {acc} += {value};\n    }}\n"
    ), acc


_ACCUMULATIONS = {"std::plus": "+=", "std::multiplies": "*="}
"""The library's operations an `accumulate` may take, as the update each step makes."""
_PREDICATES = ("std::any_of", "std::all_of", "std::none_of")
"""Algorithms returning whether a predicate holds for some, every or no element."""


def _span(args: list[Node], definition: Node) -> tuple[str, str, str] | None:
    """(the vector, the first index, the index past the last) an algorithm's first two
    arguments span in a vector parameter: `x.begin(), x.end()` (`0`, `x.size()`), or either
    end `x.begin() + e` (`e` without effects: `A.begin() + i * N, A.begin() + (i + 1) * N`, a
    row); else None."""
    if len(args) < 2:
        return None
    ends = []
    over = ""
    for arg, whole in ((args[0], "begin"), (args[1], "end")):
        spelled = compact_code(arg)
        found = re.fullmatch(r"([A-Za-z_]\w*)\.(begin|end)\(\)(?:\+(.+))?", spelled)
        if found is None or (over and found.group(1) != over):
            return None
        over = found.group(1)
        if found.group(3) is None:
            if found.group(2) != whole:
                return None
            ends.append("0" if whole == "begin" else f"{over}.size()")
            continue
        offset = _begin_offset(arg, over)
        if found.group(2) != "begin" or offset is None:
            return None
        ends.append(f"(size_t)({offset})")
    declared = _vectors(definition, args[0]).get(over)
    if declared is None or "vector" not in text(declared):
        return None
    return over, ends[0], ends[1]


_VECTOR_TYPE = re.compile(r"(?:const\s+)?(?:std::)?vector\s*<")


def _vectors(definition: Node, at: Node) -> dict[str, Node]:
    """The vectors a statement at `at` can name by a name of the function's own, each with the
    node declaring it: the function's parameters (as they are declared, whatever their type),
    and the `std::vector`s it declares before `at` (`std::vector<int> v(n);`, a whole
    program's `main`) under a name it declares nowhere else (one declared twice may be
    another vector at `at`). Pointers to vectors are not vectors."""
    found = dict(function_params(definition))
    body = definition.child_by_field_name("body")
    for node in walk(body) if body is not None else ():
        kind = node.child_by_field_name("type") if node.type == "declaration" else None
        if kind is None or node.end_byte > at.start_byte or not _VECTOR_TYPE.match(text(kind)):
            continue
        for declarator in node.children_by_field_name("declarator"):
            name = declared_name(declarator)
            if (
                name
                and name not in found
                and declarator.type != "pointer_declarator"
                and len(_declaring(definition, name)) == 1
            ):
                found[name] = node
    return found


def _begin_offset(arg: Node, over: str) -> str | None:
    """`e` for an iterator `over.begin() + e` (`over.begin() + i + 1`: `(i) + (1)`, a `-`
    term subtracted), each term without effects; None for any other form."""
    terms: list[str] = []
    node = unwrap(arg)
    while node.type == "binary_expression" and text(node.children[1]) in ("+", "-"):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or not _without_effects(right):
            return None
        terms.insert(0, f"{text(node.children[1])} ({text(right)})")
        node = unwrap(left)
    if compact_code(node) != f"{over}.begin()" or not terms or not terms[0].startswith("+"):
        return None
    return " ".join(terms).removeprefix("+ ")


def _whole_vector(args: list[Node], definition: Node) -> str | None:
    """The vector parameter an algorithm's first two arguments span whole (`x.begin(),
    x.end()`), else None."""
    span = _span(args, definition)
    if span is None or span[1:] != ("0", f"{span[0]}.size()"):
        return None
    return span[0]


def _extreme_loop(
    expr: Node, definition: Node, taken: set[str], acc: str
) -> tuple[str, str] | None:
    """`*std::max_element(v.begin(), v.end())` (or `min_element`) as the loop keeping the
    largest (smallest) element from the first: what the library's element holds (an empty
    vector has none to read, as in the sequential function)."""
    call = expr.child_by_field_name("argument") if expr.type == "pointer_expression" else None
    if call is None or text(expr).lstrip()[:1] != "*" or call.type != "call_expression":
        return None
    callee = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    largest = {"std::max_element": ">", "std::min_element": "<"}.get(text(callee or call))
    args = [a for a in arguments.named_children if a.type != "comment"] if arguments else []
    if largest is None or len(args) != 2:
        return None
    over = _whole_vector(args, definition)
    params = _vectors(definition, expr)
    element = _VECTOR_OF.match(text(params[over])) if over else None
    if over is None or element is None:
        return None
    k = next(f"k_{n}" for n in range(100) if f"k_{n}" not in taken)
    taken.add(k)
    kind = " ".join(element.group(1).split())
    return (
        f"    {kind} {acc} = {over}[0];\n"
        f"    for (size_t {k} = 0; {k} < {over}.size(); ++{k}) {{\n"
        f"        if ({over}[{k}] {largest} {acc}) {acc} = {over}[{k}];\n    }}\n"
    ), acc


_LIMIT_TYPES = {
    "INT_MAX": "int", "INT_MIN": "int", "UINT_MAX": "unsigned", "LLONG_MAX": "long long",
    "LLONG_MIN": "long long", "DBL_MAX": "double", "FLT_MAX": "float",
}  # fmt: skip
"""The C headers' limits an `accumulate` may start from, with their types."""


def _literal_type(node: Node, params: dict[str, Node]) -> str | None:
    """The type of an `accumulate`'s start: a literal's (`0` int, `0.0` double, `0.0f` float,
    `0LL` long long, `0u` unsigned, negated too), a limit's (`INT_MIN` int) or a parameter's
    (its declared type), else None."""
    if node.type == "identifier" and text(node) in params:
        kind = params[text(node)].child_by_field_name("type")
        return " ".join(text(kind).replace("const", "").split()) if kind is not None else None
    if node.type == "identifier" and text(node) in _LIMIT_TYPES:
        return _LIMIT_TYPES[text(node)]
    negated = node.child_by_field_name("argument") if node.type == "unary_expression" else None
    if negated is not None and text(node).lstrip().startswith("-"):
        return _literal_type(negated, {})  # `-5`: the literal's type
    if node.type != "number_literal":
        return None
    literal = text(node).lower().removeprefix("-")
    if literal.startswith("0x"):
        return None
    if re.search(r"[.e]", literal):
        return "float" if literal.endswith("f") else "double"
    suffix = literal.lstrip("0123456789'")
    return {"": "int", "u": "unsigned", "l": "long", "ul": "unsigned long", "lu": "unsigned long",
            "ll": "long long", "ull": "unsigned long long", "llu": "unsigned long long"}.get(suffix)  # fmt: skip


@dataclass(frozen=True)
class _Phase:
    """A loop the kernel runs across its threads: `node` with its facts, and where an outer
    loop runs it once per outer iteration, that loop (`outer`) with its facts."""

    node: Node
    loop: Loop
    outer: Node | None = None
    outer_loop: Loop | None = None

    @property
    def top(self) -> Node:
        """The function's statement that holds the phase."""
        return self.outer if self.outer is not None else self.node


_FORS = ("for_statement", "for_range_loop")


def _the_loops(
    root: Node, program: Program, function: str
) -> tuple[Node, list[Node], list[_Phase], dict[Node, AnnotationError]]:
    """`function`'s definition, its body's statements, the loops the kernel runs across its
    threads and the loops one thread runs: its one loop; or loops that run one after another,
    each a map or histogram; or the one map or histogram loop an outer counted loop holds
    alone (its iterations one after another). Where some loops run across the threads, a loop
    the analysis does not prove (nor its inner loops) is one thread's (`_one_thread`), as are
    such inner loops of an outer loop whose other inner loops run across them (each with why
    it is not run across the threads)."""
    definition = next((d for d in function_definitions(root) if function_name(d) == function), None)
    if definition is None:
        raise AnnotationError(f"no function {function} in the source")
    body = definition.child_by_field_name("body")
    if body is None:
        raise AnnotationError(f"{function} has no body")
    statements = [s for s in body.named_children if s.type != "comment"]
    fors = [s for s in statements if s.type in _FORS]

    def facts(node: Node) -> Loop:
        loop = next((x for x in program.loops if (x.line - 1, x.column) == node.start_point), None)
        if loop is None:
            raise AnnotationError("the analysis has no facts for the loop")
        return loop

    if not fors:
        raise AnnotationError(f"{function} has 0 top-level loops, not one")
    phases: list[_Phase] = []
    alone: dict[Node, AnnotationError] = {}
    for node in fors:
        loop = facts(node)
        try:
            _check_loop(loop)
            if len(fors) > 1:
                _check_phase(loop)
            phases.append(_Phase(node, loop))
            continue
        except AnnotationError as refused:
            first = refused
        inside: dict[Node, AnnotationError] = {}
        try:
            inner = _inner_phases(node, facts, inside)
            if inner is None:
                raise first
            _check_outer(loop)
        except AnnotationError as refused:
            alone[node] = refused
            continue
        phases.extend(inner)
        alone.update(inside)
    if not phases:
        raise next(iter(alone.values()))
    return definition, statements, phases, alone


def _inner_phases(
    outer: Node, facts: Callable[[Node], Loop], alone: dict[Node, AnnotationError]
) -> list[_Phase] | None:
    """The loops an outer loop runs in turn in each of its iterations (an LU's row of U, then
    its column of L, for each pivot), each a map or histogram, with the statements between
    them every thread may run (`_scalar_step`) or one thread runs (`_one_thread`: an
    element's store, a loop the analysis does not prove, a pivot's swap); None where the
    outer loop's body holds no loop. `alone` gets the inner loops one thread runs, each with
    why."""
    statements = _outer_body(outer)
    inner = [s for s in statements if s.type in _FORS]
    if not inner:
        return None
    phases = []
    for node in inner:
        try:
            if node.type != "for_statement":
                raise AnnotationError("a range loop inside an outer loop, run in phases")
            loop = facts(node)
            _check_loop(loop)
            _check_phase(loop, outer=True)
        except AnnotationError as refused:
            alone[node] = refused
            continue
        phases.append(_Phase(node, loop, outer, facts(outer)))
    if not phases:
        raise next(iter(alone.values()))
    held = {p.node for p in phases}
    for statement in statements:
        if statement not in held and not _scalar_step(statement) and _one_thread(statement):
            raise AnnotationError(
                f"the outer loop does more between its loops: {text(statement)[:60]} "
                f"({_one_thread(statement)})"
            )
    written = {a.name for a in facts(outer).writes if a.is_array}
    header = [outer.child_by_field_name(f) for f in ("condition", "update")]
    if any(written & _data_names(part) for part in header if part is not None):
        # a thread past the barrier may write it while another still tests it
        raise AnnotationError("the outer loop's test reads an array its loops write")
    return phases


def _one_thread(statement: Node) -> str | None:
    """Why one seated thread cannot run `statement` between barriers while the others wait,
    or None where it can: a statement that leaves only by its end (no `return`, no `goto`,
    `break` or `continue` only of loops inside it) and declares nothing the statements after
    it read (a declaration's name would end with the thread's block). What it calls and
    which names it reaches the kernel's checks decide, as for any loop's body."""
    if statement.type == "declaration":
        return "a declaration"
    if statement.type == "expression_statement" and not statement.named_children:
        return "an empty statement"
    lambdas = [n for n in walk(statement) if n.type == "lambda_expression"]
    for node in walk(statement):
        if any(_within(node, lam) for lam in lambdas):
            continue  # a lambda's returns and parameters are its own (a sort's order)
        method = node.child_by_field_name("function") if node.type == "call_expression" else None
        if (
            method is not None
            and method.type == "field_expression"
            and text(method.child_by_field_name("field") or method) not in ("size", "empty")
        ):
            return f"a call of a method ({text(method)[:30]})"  # `y.resize(n)`: the host's
        ranged = node.parent is not None and node.parent.type == "for_range_loop"
        if (node.type in ("reference_declarator", "pointer_declarator") and not ranged) or (
            node.type == "pointer_expression" and text(node).startswith("&")
        ):
            # a name's other name: what is assigned through it would not be passed on
            return f"a reference or address ({text(node)[:30]})"
        if node.type in (
            "return_statement",
            "goto_statement",
            "labeled_statement",
            "throw_statement",
        ):
            return f"a {node.type.removesuffix('_statement')}"
        if node.type in ("break_statement", "continue_statement"):
            owner = node.parent
            kinds: tuple[str, ...] = (
                "for_statement",
                "for_range_loop",
                "while_statement",
                "do_statement",
            )
            if node.type == "break_statement":
                kinds += ("switch_statement",)
            while owner is not None and owner.type not in kinds:
                owner = owner.parent
            if owner is None or not _within(owner, statement):
                return f"a {node.type.removesuffix('_statement')} out of it"
    return None


@dataclass(frozen=True)
class _LocalVector:
    """A vector the function declares where its loops run in phases (`std::vector<double>
    A_copy(A);`, `std::vector<double> M(N * N, 0.0);`): the kernel's own array, in a static
    device store (`_STORE`), filled by the seated threads before the statements after it."""

    name: str
    element: str
    length: Node | None
    """Its count of elements (None for a copy: its source's)."""
    fill: Node | None
    """Each element's first value (None: the type's zero, or a copy's element)."""
    copied: str | None
    """The array it copies."""


_VECTOR_ELEMENT = re.compile(r"(?:std::)?vector\s*<\s*([\w\s:]+?)\s*>")


def _declared_vector(statement: Node, serial_params: dict[str, Node]) -> _LocalVector | None:
    """The vector `statement` declares with a size (and a value for every element) or as a
    copy of a vector the function takes or declared before, else None."""
    if statement.type != "declaration" or len(statement.children_by_field_name("declarator")) != 1:
        return None
    kind = statement.child_by_field_name("type")
    declarator = statement.child_by_field_name("declarator")
    match = _VECTOR_ELEMENT.fullmatch(text(kind)) if kind is not None else None
    if match is None or declarator is None:
        return None
    if declarator.type == "function_declarator":
        # `std::vector<double> A_copy(A);` as C++ reads a declaration it may be: one name
        # given (a type's name to the grammar)
        given = declarator.child_by_field_name("parameters")
        named = [p for p in (given.named_children if given else []) if p.type != "comment"]
        if (
            len(named) != 1
            or len(named[0].named_children) != 1
            or named[0].named_children[0].type != "type_identifier"
        ):
            return None
        value = named[0].named_children[0]
    elif declarator.type == "init_declarator":
        value = declarator.child_by_field_name("value") or declarator.named_children[-1]
    else:
        return None
    name = declared_name(declarator) or ""
    element = " ".join(match.group(1).split())
    if element.removeprefix("std::") in _ARITHMETIC:
        element = element.removeprefix("std::")  # `std::size_t`: the device's `size_t`
    vectors = {n for n, node in serial_params.items() if "vector" in text(node)}
    walked = statement.parent
    while walked is not None and walked.type != "function_definition":
        walked = walked.parent
    if walked is not None:  # the vectors declared before it in the function
        vectors |= {
            declared_name(d.child_by_field_name("declarator")) or ""
            for d in walk(walked)
            if d.type == "declaration"
            and d.end_byte <= statement.start_byte
            and _VECTOR_ELEMENT.fullmatch(text(d.child_by_field_name("type") or d))
        }
    if value.type in ("identifier", "type_identifier") and text(value) in vectors:
        return _LocalVector(name, element, None, None, text(value))  # `= b`, `(b)`
    if value.type == "type_identifier":
        return _LocalVector(name, element, value, None, None)  # `(n)`
    if value.type != "argument_list":
        return None
    args = [a for a in value.named_children if a.type != "comment"]
    if len(args) == 1 and args[0].type == "identifier" and text(args[0]) in vectors:
        return _LocalVector(name, element, None, None, text(args[0]))  # `(b)`
    if len(args) == 2:
        ends = [re.fullmatch(r"(\w+)\s*\.\s*(c?begin|c?end)\s*\(\s*\)", text(a)) for a in args]
        first, last = ends
        if first is not None and last is not None:
            if (
                first.group(1) == last.group(1)
                and first.group(2).endswith("begin")
                and last.group(2).endswith("end")
                and first.group(1) in vectors
            ):
                return _LocalVector(name, element, None, None, first.group(1))
            return None
    if len(args) in (1, 2) and all(_without_effects(a) for a in args):
        return _LocalVector(name, element, args[0], args[1] if len(args) == 2 else None, None)
    return None


def _size_guard(statement: Node, serial_params: dict[str, Node]) -> dict[str, Node] | None:
    """The sizes `if (A.size() != N * N || b.size() != N) throw ...;` asks of the vectors the
    function takes (each `!=` a size, as the guard throws otherwise), else None."""
    then = _sole_consequence(statement)
    thrown = then is not None and (
        then.type == "throw_statement"
        or (
            then.type == "expression_statement"
            and bool(then.named_children)
            and then.named_children[0].type == "throw_expression"
        )
    )
    condition = statement.child_by_field_name("condition")
    if not thrown or condition is None:
        return None
    parts = [unwrap(c) for c in condition.named_children if c.type != "comment"]
    sizes: dict[str, Node] = {}
    while parts:
        part = unwrap(parts.pop())
        operator = (
            part.child_by_field_name("operator") if part.type == "binary_expression" else None
        )
        left, right = part.child_by_field_name("left"), part.child_by_field_name("right")
        if operator is None or left is None or right is None:
            return None
        if text(operator) == "||":
            parts += [left, right]
            continue
        if text(operator) != "!=":
            return None
        for measured, size in ((unwrap(left), unwrap(right)), (unwrap(right), unwrap(left))):
            owner = re.fullmatch(r"(\w+)\s*\.\s*size\s*\(\s*\)", text(measured))
            if (
                owner
                and "vector" in text(serial_params.get(owner.group(1)) or measured)
                and owner.group(1) in serial_params
                and owner.group(1) not in sizes
            ):
                sizes[owner.group(1)] = size
                break
        else:
            return None
    return sizes or None


def _declaration_scope(declaration: Node) -> Node | None:
    """Where a declaration's name is seen: a range loop's own, the block or loop holding a
    declaration, or the whole `if`, `while` or `switch` whose condition declares it."""
    if declaration.type == "for_range_loop":
        return declaration
    scope = declaration.parent
    while scope is not None and scope.type in ("init_statement", "condition_clause"):
        scope = scope.parent
    return scope


def _targets(statement: Node) -> list[Node]:
    """What `statement` assigns: the left of each assignment, the operand of each `++` and
    `--`, each argument of a `std::swap`."""
    targets = [
        target
        for n in walk(statement)
        if n.type in ("assignment_expression", "update_expression")
        for target in [n.child_by_field_name("left") or n.child_by_field_name("argument")]
        if target is not None
    ]
    for call in (n for n in walk(statement) if n.type == "call_expression"):
        callee = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if callee is not None and arguments is not None and text(callee) in ("swap", "std::swap"):
            targets += [a for a in arguments.named_children if a.type != "comment"]
    return targets


def _arrays_written(statement: Node) -> set[str]:
    """The arrays `statement` writes elements of (`a[i] = v`, `a[i]++`, `std::swap(a[i],
    a[j])`, `p[i].x = v`)."""
    written = set()
    for target in _targets(statement):
        element = False
        while target.type in (
            "subscript_expression",
            "field_expression",
            "parenthesized_expression",
        ):
            element = element or target.type != "parenthesized_expression"
            target = target.named_children[0]
        if element and target.type == "identifier":
            written.add(text(target))
    for ranged in (n for n in walk(statement) if n.type == "for_range_loop"):
        over = ranged.child_by_field_name("right")
        named = ranged.child_by_field_name("declarator")
        if over is not None and named is not None and named.type == "reference_declarator":
            written.add(text(over))  # `for (auto &e : x)`: its elements, by their other name
    return written


def _outputs_named_apart(
    source: str, program: Program, function: str, params: list[KernelParam]
) -> tuple[str, Program]:
    """`source` with `function`'s locals named as a kernel output the function does not take
    (`double perimeter = 0.0; ... return perimeter;` for the kernel's `double *perimeter`)
    named apart (`perimeter_1`), and its analysis; else both as they are."""
    found = _function_body(source, program, function)
    if found is None:
        return source, program
    _, definition, body, _ = found
    taken = {text(n) for n in walk(definition) if n.type == "identifier"}
    outputs = {p.name for p in params if p.pointer} - set(dict(function_params(definition)))
    root = definition
    while root.parent is not None:
        root = root.parent
    outputs -= {  # a name the source declares outside the function too: left as it is
        declared_name(d)
        for n in root.named_children
        if n.type == "declaration"
        for d in n.children_by_field_name("declarator")
    }
    clashing = outputs & {
        declared_name(d)
        for n in walk(body)
        if n.type == "declaration"
        for d in n.children_by_field_name("declarator")
    }
    edits = []
    for name in sorted(clashing):
        apart = next(f"{name}_{k}" for k in range(1, 100) if f"{name}_{k}" not in taken)
        edits += [
            (n.start_byte, n.end_byte, apart)
            for n in walk(body)
            if n.type == "identifier" and text(n) == name
        ]
    if not edits:
        return source, program
    return _body_replaced(source, program, body, _rewrite(body, edits))


def _sort_step_order(
    sorts: dict[Node, str], vectors: dict[Node, _LocalVector], root: Node, function: str
) -> str:
    """`pf_sort_before`, the order of the one sort of a function's vector between its loops
    (none: no code); the source's types the order reads come with the kernel's."""
    if not sorts:
        return ""
    if len(sorts) > 1:
        raise AnnotationError(f"{function} sorts more than one of its vectors")
    ((statement, over),) = sorts.items()
    element = next(v.element for v in vectors.values() if v.name == over)
    args = _call_arguments(statement)
    if len(args) == 2 and element not in _ARITHMETIC:
        raise AnnotationError(f"{function} sorts {element}s by an operator the device lacks")
    if len(args) == 2:
        return (
            f"__device__ inline bool pf_sort_before(const {element} &a, const {element} &b) "
            "{ return a < b; }\n"
        )
    order, helpers = _sort_order(args[2], root, element, function)
    if helpers or "std::" in order:
        raise AnnotationError(f"{function}'s sort calls what the kernel does not bring along")
    return order


def _guarding(statement: Node, serial_params: dict[str, Node]) -> bool:
    """A guard of either kind: an early answer (`_guard`) or a size asked (`_size_guard`)."""
    return _guard(statement) or _size_guard(statement, serial_params) is not None


def _one_thread_around(
    statements: list[Node], phase: _Phase, serial_params: dict[str, Node], params: list[KernelParam]
) -> bool:
    """Whether the one loop `phase`, a map, a histogram or a reduction (`_check_phase`), has
    statements before or after it (other than scalar declarations, guards, size guards,
    resizes of an output and returns), each a vector's declaration (`_declared_vector`) or
    one one thread may run (`_one_thread`)."""
    by_name = {p.name: p for p in params}
    around = [
        st
        for st in statements
        if st != phase.top
        and (st.type != "declaration" or _declared_vector(st, serial_params) is not None)
        and st.type != "return_statement"
        and not _guarding(st, serial_params)
        and not _resizes_output(st, by_name, serial_params)
    ]
    own = {v.name for st in around if (v := _declared_vector(st, serial_params)) is not None}
    if not around or any(
        st.type != "declaration" and _sorted_whole(st) not in own and _one_thread(st) is not None
        for st in around
    ):
        return False  # each a vector's declaration, its sort or one thread's statement
    try:
        _check_phase(phase.loop)
    except AnnotationError:
        return False  # a search, a last index, an argmin or a scan keeps its own shape
    return True


def _hoisted_guards(statements: list[Node], vectors: dict[Node, _LocalVector]) -> list[Node]:
    """The guards (`_guard`) among the first of `statements` that only declare the function's
    vectors or sort them (nothing the caller sees), which read no vector but the sizes of
    copies (`if (p.size() < 2) return 0.0;` after `std::vector<Point> p(points);` and its
    sort): they answer alike before those statements, in every thread."""
    names = {v.name for v in vectors.values()}
    copies = {v.name for v in vectors.values() if v.copied is not None and v.copied not in names}
    hoisted = []
    for statement in statements:
        if statement in vectors or _sorted_whole(statement) in names:
            continue
        if not _guard(statement):
            break
        measured = {
            text(owner)
            for call in walk(statement)
            if call.type == "call_expression"
            and (callee := call.child_by_field_name("function")) is not None
            and callee.type == "field_expression"
            and (owner := callee.child_by_field_name("argument")) is not None
        }
        if _data_names(statement) & names or measured & names - copies:
            break
        hoisted.append(statement)
    return hoisted


def _pops(loop: Node, within: Node) -> bool:
    """Whether `loop` is a `while` whose only step is one name's step down by one (`k--`),
    inside a loop `within` whose body, outside it, steps that name up by one once (`h[k++] =
    p[i]`) and assigns it nothing else, whose header sets it not, and which declares no other
    name so: a stack's pops, never more in all than its pushes."""
    if loop.type != "while_statement":
        return False
    steps = [n for n in walk(loop) if n.type in ("update_expression", "assignment_expression")]
    if len(steps) != 1 or steps[0].type != "update_expression" or "--" not in text(steps[0]):
        return False
    name = text(steps[0].child_by_field_name("argument") or steps[0])
    body = within.child_by_field_name("body")
    if body is None or not re.fullmatch(r"[A-Za-z_]\w*", name):
        return False
    header = [within.child_by_field_name(f) for f in ("initializer", "update")]
    if any(text(unwrap(t)) == name for h in header if h is not None for t in _targets(h)) or any(
        declared_name(d) == name
        for n in [*walk(body), *(h for h in header if h is not None)]
        if n.type == "declaration"
        for d in n.children_by_field_name("declarator")
    ):
        return False  # set again each iteration, or another name's pops
    outside = [
        t.parent
        for t in _targets(body)
        if not _within(t, loop) and text(unwrap(t)) == name and t.parent is not None
    ]
    return (
        len(outside) == 1
        and outside[0].type == "update_expression"
        and "++" in text(outside[0])
        and not any(_within(outside[0], n) for n in walk(body) if n.type in _BRANCHES)
    )


_BRANCHES = frozenset(
    {"if_statement", "while_statement", "for_statement", "for_range_loop", "do_statement",
     "switch_statement", "conditional_expression"}
)  # fmt: skip


def _loop_depth(node: Node, around: Node | None = None) -> int:
    """How deep loops nest in `node` (a loop itself counts one; a stack's pops inside the
    loop that pushes, `_pops`, none: they run no more often than the pushes)."""
    kinds = ("for_statement", "for_range_loop", "while_statement", "do_statement")
    if around is not None and _pops(node, around):
        return 0
    own = 1 if node.type in kinds else 0
    inner = node if own else around
    return own + max((_loop_depth(c, inner) for c in node.named_children), default=0)


def _outer_body(outer: Node) -> list[Node]:
    """The statements of an outer loop's body (its one statement where it is not a block, the
    block's where the block is all there is)."""
    body = outer.child_by_field_name("body")
    statements = [body] if body is not None else []
    while len(statements) == 1 and statements[0].type == "compound_statement":
        statements = [c for c in statements[0].named_children if c.type != "comment"]
    return statements


def _check_outer(loop: Loop) -> None:
    """An outer loop every seated thread runs alike: counted, its counter its own."""
    if not loop.canonical or loop.var is None or loop.declared_type in (None, "auto"):
        raise AnnotationError(f"the analysis does not prove the loop ({loop.dependence.reason})")


def _check_phase(loop: Loop, outer: bool = False) -> None:
    """A loop run as one phase among others: a map, a histogram, or (not inside an outer
    loop) a reduction whose total the loops after it and the function's return may read."""
    dep = loop.dependence
    if dep.last_assigned or dep.best_updates or dep.first_match or dep.scan is not None:
        raise AnnotationError(
            "loops run one after another keep an index or a running value: only maps, "
            "histograms and reductions run in phases"
        )
    if outer and dep.reductions:
        raise AnnotationError("a reduction inside an outer loop, run in phases")


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
        down = loop.test in (">", ">=") and loop.stride == -1
        if not down and (loop.test not in ("<", "<=") or loop.stride not in (None, 1)):
            raise AnnotationError("the loop does not count up or down by one")
        if down and (
            dep.first_match
            or dep.last_assigned
            or dep.best_updates
            or (dep.scan is not None and (dep.scan.recurrence or dep.scan.packs))
        ):
            # a map's, a reduction's or a histogram's iterations may run in any order; which
            # match is first or last and an argmin's ties follow the loop's (a running
            # value's tiles take the iterations in the loop's order: iteration k is the
            # first value less k)
            raise AnnotationError("the loop counts down to a result that depends on its order")
        if loop.declared_type in (None, "auto"):
            raise AnnotationError("the loop's counter is not declared in its header")
    shapes = len(dep.reductions) + len(dep.last_assigned) + len(dep.best_updates)
    if dep.scan is not None and dep.kind == "carried":
        # the one dependence a scan's tiles resolve (`_scan`), and nothing else kept
        if loop.range_over is not None:
            raise AnnotationError("a scan over a range, not a counted loop")
        if (
            shapes > len(dep.reductions)
            or len(dep.reductions) > 1
            or dep.lastprivate
            or dep.array_reductions
            or dep.first_match
        ):
            # one reduction of the scanned values may come along (`sum += y[i];`: folded in
            # the tiles' second pass, `_scan_tiles`); nothing else kept
            raise AnnotationError("the scan's loop also folds or keeps other values")
        return
    if dep.kind not in ("independent", "reduction") and not dep.first_match:
        raise AnnotationError(f"the analysis does not prove the loop ({dep.reason})")
    if dep.lastprivate or dep.scan is not None or (shapes > 1 and shapes > len(dep.reductions)):
        raise AnnotationError(
            "the loop's result is not a map, one reduction, a histogram, a last index, an "
            "argmin or a scan"
        )
    if dep.best_updates and len(dep.best_updates[0].others) != 1:
        raise AnnotationError("the argmin keeps more than its index")


def _histogram_atomics(
    node: Node, loop: Loop, by_name: dict[str, KernelParam], edits: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """The histogram updates `offload` finds (`bins[k]++`, `--`, `+= v`, `-= v`) as atomic
    additions into the kernel's bins, with the rewrites inside them (`edits`: sizes, helpers);
    an amount other than an integer literal only into floating-point bins (an atomic adds the
    amount converted first, the sequential `+=` converts the sum)."""
    found = []
    for statement, element, value, op in _offload_updates(node, loop):
        array = element.partition("[")[0].strip()
        if op != "+" or array not in by_name:
            raise AnnotationError(f"the histogram {array} is not the kernel's")
        bins = _element(by_name[array])
        if _same_type(bins) not in _ADDABLE:
            raise AnnotationError(f"no device atomic adds to {bins} bins")
        literal = parse_int(value.lstrip("-").strip("()")) is not None
        if not literal and bins not in ("double", "float"):
            raise AnnotationError(f"{text(statement)} adds a computed amount to integer bins")
        expr = statement.named_children[0]
        while expr.type == "parenthesized_expression":
            expr = expr.named_children[0]
        target = expr.child_by_field_name(
            "argument" if expr.type == "update_expression" else "left"
        )
        right = expr.child_by_field_name("right")
        assert target is not None
        cell = _rewrite(target, edits)
        if right is not None:
            amount = _rewrite(right, edits)
            value = f"-({amount})" if value.startswith("-(") else f"({amount})"
        found.append(
            (statement.start_byte, statement.end_byte, f"pf_cuda_fold_plus(&{cell}, {value});")
        )
    return found


_ADDABLE = frozenset(
    {"int", "unsigned int", "float", "double", "long int", "long", "unsigned long", "long long",
     "unsigned long long"}
)  # fmt: skip
"""Bins a device atomic adds to (`pf_cuda_add`: CUDA's own, and 8-byte integers)."""


def _declared_in(definition: Node) -> set[str]:
    """The names a function declares: its parameters and locals."""
    return {
        name
        for n in walk(definition)
        if n.type in ("init_declarator", "declaration", "parameter_declaration", "for_range_loop")
        for name in [declared_name(n.child_by_field_name("declarator"))]
        if name
    }


def _device_math(definition: Node, renamed: dict[str, str]) -> str:
    """A helper function's text with `std::` dropped from its math calls, `numeric_limits`
    as the C headers' constants, and the helpers `renamed` under their new names."""
    edits = []
    declarator = definition.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    own = declarator.child_by_field_name("declarator") if declarator is not None else None
    if own is not None and text(own) in renamed:
        edits.append((own.start_byte, own.end_byte, renamed[text(own)]))
    for call in walk(definition):
        callee = call.child_by_field_name("function") if call.type == "call_expression" else None
        if callee is None:
            continue
        limit = _limit(text(call))
        bare = text(callee).removeprefix("std::")
        if limit is not None:
            edits.append((call.start_byte, call.end_byte, limit))
        elif bare in renamed:
            edits.append((callee.start_byte, callee.end_byte, renamed[bare]))
        elif bare in PROMOTED and callee.type in ("identifier", "qualified_identifier"):
            edits.append((callee.start_byte, callee.end_byte, f"pf_{bare}"))
        elif text(callee).startswith("std::") and (bare in _MATH or bare in _COMPLEX_CALLS):
            edits.append((callee.start_byte, callee.end_byte, bare))
    return _rewrite(definition, [*_complex_edits([definition]), *edits])


def _identifiers(node: Node) -> list[Node]:
    """The identifiers under `node`, those of `numeric_limits` calls left out (a kernel gets
    their constants)."""
    found, stack = [], [node]
    while stack:
        n = stack.pop()
        if n.type == "call_expression" and _limit(text(n)) is not None:
            continue
        if n.type == "identifier":
            found.append(n)
        stack.extend(n.children)
    return found


def _element(param: KernelParam) -> str:
    """The element type of a pointer or array parameter (`const size_t *` -> `size_t`)."""
    return " ".join(param.type.replace("const", "").replace("*", "").split())


_SAME = {"unsigned": "unsigned int", "long": "long int", "size_t": "unsigned long",
         "unsigned long": "unsigned long", "long long": "long long", "uint64_t": "unsigned long",
         "int64_t": "long", "uint32_t": "unsigned int", "int32_t": "int"}  # fmt: skip


def _same_type(name: str) -> str:
    bare = name.removeprefix("std::")
    return _SAME.get(bare, bare)


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
    named = _named_size(owner, sizes)
    if named is not None:
        return f"(size_t)({named.name})"
    if len(sizes) != 1:
        raise AnnotationError("cannot tell which kernel parameter is the vector's size")
    return f"(size_t)({sizes[0].name})"


def _bounds_a_loop(node: Node) -> bool:
    """Whether `node` is inside a for loop's condition (`i < x.size()`)."""
    child, parent = node, node.parent
    while parent is not None:
        if parent.type == "for_statement":
            condition = parent.child_by_field_name("condition")
            if (
                condition is not None
                and condition.start_byte <= child.start_byte < condition.end_byte
            ):
                return True
        child, parent = parent, parent.parent
    return False


def _named_size(owner: str, sizes: list[KernelParam]) -> KernelParam | None:
    """The one size parameter named for `owner` (`Nx` or `sizeX` for `x`, `sizeA` for `A`)
    where the kernel takes several, else None."""
    if len(sizes) < 2:
        return None
    upper = owner[:1].upper() + owner[1:]
    names = {f"N{owner}", f"n{owner}", f"N_{owner}", f"n_{owner}", f"size{upper}",
             f"size{owner}", f"size_{owner}", f"{owner}_size", f"{owner}Size", f"len_{owner}"}  # fmt: skip
    named = [p for p in sizes if p.name in names]
    return named[0] if len(named) == 1 else None


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
    inside = []
    reach = -1
    for edit in sorted(edits, key=lambda e: (e[0], -e[1])):
        # an edit inside another is the outer one's to make (its text has it already)
        if node.start_byte <= edit[0] and edit[1] <= node.end_byte and edit[0] >= reach:
            inside.append(edit)
            reach = edit[1]
    for begin, end, new in sorted(inside, key=lambda e: e[0], reverse=True):
        raw = raw[: begin - node.start_byte] + new.encode() + raw[end - node.start_byte :]
    return raw.decode()


def _upper_of(condition: str, loop: Loop) -> str:
    """The bound of a rewritten `i < bound` test (`i >= bound` for a loop counting down)."""
    compare = ">=?" if loop.stride == -1 else "<=?"
    match = re.match(rf"\s*{re.escape(loop.var or '')}\s*{compare}\s*(.+)$", condition, re.S)
    if match is None:
        raise AnnotationError(f"cannot read the loop's bound from {condition!r}")
    return match.group(1)


def _kept(dep: Dependence) -> tuple[str, ...]:
    """The names the loop keeps for the function to return: a reduction's result, the last
    index a conditional assignment keeps, an argmin's best value and index."""
    if dep.reductions:
        return tuple(r.var for r in dep.reductions)
    if dep.last_assigned:
        return (dep.last_assigned[0],)
    if dep.best_updates:
        return (dep.best_updates[0].best, *dep.best_updates[0].others)
    return ()


def _guard(statement: Node) -> bool:
    """`if (cond) return v;` (or `{ return v; }`) with no else: an early answer for inputs the
    loop does not handle, which reads no loop counter, so every thread takes it alike."""
    then = _sole_consequence(statement)
    return then is not None and then.type == "return_statement"


def _sole_consequence(statement: Node) -> Node | None:
    """The one statement an `if` without an `else` runs (through braces), else None."""
    if statement.type != "if_statement" or statement.child_by_field_name("alternative"):
        return None
    then = statement.child_by_field_name("consequence")
    while then is not None and then.type == "compound_statement":
        inner = [c for c in then.named_children if c.type != "comment"]
        then = inner[0] if len(inner) == 1 else None
    return then


def _guard_value(guard: Node) -> Node | None:
    exit_node = next(n for n in walk(guard) if n.type == "return_statement")
    return exit_node.named_children[0] if exit_node.named_children else None


_ARITHMETIC = frozenset(
    {"bool", "char", "short", "int", "long", "unsigned", "float", "double", "size_t",
     "long long", "unsigned int", "unsigned long", "unsigned long long", "long double",
     "std::size_t", "int64_t", "uint64_t", "int32_t", "uint32_t", "std::int64_t", "std::uint64_t"}
)  # fmt: skip
"""Types whose functional cast (`int(v)`) converts a number as the device does."""

_WORDS = (_ARITHMETIC - {"long double"}) | {"auto", "char", "signed char", "unsigned char",
    "unsigned short", "long int", "unsigned long int", "unsigned long long int", "long long int",
    "ptrdiff_t", "std::ptrdiff_t", "int8_t", "uint8_t", "int16_t", "uint16_t"}  # fmt: skip
"""Scalar types a device word holds (an `auto`'s size the build checks)."""


def _is_cast(callee: Node) -> bool:
    """Whether a call's callee is a conversion, not a function: `static_cast<T>` to an
    arithmetic type or `T(v)` of one."""
    if callee.type == "template_function":
        name = callee.child_by_field_name("name")
        arguments = callee.child_by_field_name("arguments")
        return (
            name is not None
            and text(name) == "static_cast"
            and arguments is not None
            and " ".join(text(arguments)[1:-1].split()) in _ARITHMETIC
        )
    return callee.type in ("primitive_type", "type_identifier", "qualified_identifier") and (
        " ".join(text(callee).split()) in _ARITHMETIC
    )


def _names(node: Node | None) -> set[str]:
    return {text(n) for n in walk(node) if n.type == "identifier"} if node is not None else set()


def _data_names(node: Node) -> set[str]:
    """The names `node` reads other than as a vector whose size it takes (`x.size()`,
    `x.empty()`: writing the elements changes neither)."""
    measured = {
        n.start_byte
        for call in walk(node)
        if call.type == "call_expression"
        and (callee := call.child_by_field_name("function")) is not None
        and callee.type == "field_expression"
        and text(callee.child_by_field_name("field") or callee) in ("size", "empty")
        and (n := callee.child_by_field_name("argument")) is not None
        and n.type == "identifier"
    }
    return {text(n) for n in walk(node) if n.type == "identifier" and n.start_byte not in measured}


_LIBRARY_TYPES = {
    "std::size_t": "size_t", "std::ptrdiff_t": "ptrdiff_t", "std::int8_t": "int8_t",
    "std::uint8_t": "uint8_t", "std::int16_t": "int16_t", "std::uint16_t": "uint16_t",
    "std::int32_t": "int32_t", "std::uint32_t": "uint32_t", "std::int64_t": "int64_t",
    "std::uint64_t": "uint64_t",
}  # fmt: skip
"""The library's integer type names, as the device's global ones."""


def _device_type(kind: str) -> str:
    """`kind` with the library's integer names and a vector's `size_type` (`size_t`) or
    `difference_type` (`ptrdiff_t`) as the device names them."""
    kind = re.sub(r"(?:std::)?vector\s*<[^;{}]*>\s*::\s*size_type", "size_t", kind)
    kind = re.sub(r"(?:std::)?vector\s*<[^;{}]*>\s*::\s*difference_type", "ptrdiff_t", kind)
    return re.sub(
        r"std\s*::\s*(u?int(?:8|16|32|64)_t|size_t|ptrdiff_t)\b", lambda m: m.group(1), kind
    )


def _library_types(parts: list[Node]) -> list[tuple[int, int, str]]:
    """Edits naming the library's integer types in `parts` as the device does
    (`std::size_t i` → `size_t i`, `std::vector<int>::size_type` → `size_t`)."""
    edits = []
    for part in parts:
        for n in walk(part):
            if n.type == "qualified_identifier" and _device_type(text(n)) != text(n):
                if n.parent is not None and n.parent.type == "qualified_identifier":
                    continue  # the outermost name is rewritten whole
                edits.append((n.start_byte, n.end_byte, _device_type(text(n))))
    return edits


def _file_constants(root: Node) -> dict[str, Node]:
    """The source's constant numbers and arrays at file scope (`const int edge[3][3] = ...`),
    by name: a kernel reading one gets its copy in constant memory."""
    found = {}
    for node in root.named_children:
        if node.type != "declaration":
            continue
        qualifiers = {text(c) for c in node.children if c.type == "type_qualifier"}
        kind = node.child_by_field_name("type")
        declarators = node.children_by_field_name("declarator")
        if (
            not qualifiers & {"const", "constexpr"}
            or kind is None
            or kind.type not in ("primitive_type", "sized_type_specifier")
            or len(declarators) != 1
            or declarators[0].type != "init_declarator"
        ):
            continue
        name = declared_name(declarators[0])
        if name:
            found[name] = node
    return found


def _constants_reached(constants: dict[str, Node], names: set[str]) -> set[str]:
    """The constants among `names`, and those their values name, and so on."""
    found: set[str] = set()
    todo = sorted(names & set(constants))
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo += sorted(_names(constants[name]) & set(constants) - found)
    return found


def _device_constant(node: Node) -> str:
    """A file-scope constant for the device: an array in constant memory, an integer as a
    `constexpr` (usable as an array bound), any other number in constant memory."""
    kind = node.child_by_field_name("type")
    declarator = node.children_by_field_name("declarator")[0]
    assert kind is not None
    target = declarator.child_by_field_name("declarator")
    array = target is not None and target.type == "array_declarator"
    integral = text(kind) not in ("float", "double", "long double")
    if not array and integral:
        return f"constexpr {text(kind)} {text(declarator)};\n"
    return f"__constant__ {text(kind)} {text(declarator)};\n"


_LIMITS = {
    ("double", "max"): "DBL_MAX", ("double", "lowest"): "(-DBL_MAX)",
    ("double", "min"): "DBL_MIN", ("double", "infinity"): "HUGE_VAL",
    ("double", "epsilon"): "DBL_EPSILON",
    ("float", "max"): "FLT_MAX", ("float", "lowest"): "(-FLT_MAX)", ("float", "min"): "FLT_MIN",
    ("float", "infinity"): "HUGE_VALF", ("float", "epsilon"): "FLT_EPSILON",
    ("int", "max"): "INT_MAX", ("int", "min"): "INT_MIN", ("int", "lowest"): "INT_MIN",
    ("unsigned", "max"): "UINT_MAX", ("unsigned int", "max"): "UINT_MAX",
    ("long long", "max"): "LLONG_MAX", ("long long", "min"): "LLONG_MIN",
    ("long long", "lowest"): "LLONG_MIN", ("unsigned long long", "max"): "ULLONG_MAX",
    ("size_t", "max"): "SIZE_MAX", ("std::size_t", "max"): "SIZE_MAX",
    ("int64_t", "max"): "INT64_MAX", ("int64_t", "min"): "INT64_MIN",
    ("uint64_t", "max"): "UINT64_MAX", ("uint32_t", "max"): "UINT32_MAX",
    ("int32_t", "max"): "INT32_MAX", ("int32_t", "min"): "INT32_MIN",
}  # fmt: skip
"""`std::numeric_limits<T>::f()` as the C headers' constants: host functions a kernel cannot
call (without nvcc's relaxed constexpr), the same values."""


def _limit(call: str) -> str | None:
    match = re.fullmatch(
        r"std\s*::\s*numeric_limits\s*<\s*([\w: ]+?)\s*>\s*::\s*(\w+)\s*\(\s*\)", call
    )
    if match is None:
        return None
    return _LIMITS.get((" ".join(match.group(1).split()), match.group(2)))


@dataclass
class _Fold:
    """What a kept result's shape needs to fold it: the facts, the loop, the result pointer,
    the kept names' declared types and first values, the return's expression after the
    total (`sum / x.size()`), and the rewrites so far (sizes, limits)."""

    dep: Dependence
    loop: Loop
    node: Node
    out: KernelParam
    starts: dict[str, tuple[str, Node]]
    epilogue: Node | None
    edits: list[tuple[int, int, str]]
    resets: str = ""
    """What else the block that ends last resets for the next launch (a scan's tickets)."""
    late: tuple[Node, ...] = ()
    """Scalar declarations between the loop and the return, which the return may read."""

    def start(self, name: str) -> str:
        return _rewrite(self.starts[name][1], self.edits)

    def declared(self, name: str) -> str:
        return " ".join(self.starts[name][0].replace("const", "").split())

    @property
    def element(self) -> str:
        return _element(self.out)

    def total_of(self) -> str:
        """The function's return over the total (`pf_total / (size_t)(N)`), or the total."""
        if self.epilogue is None:
            return "pf_total"
        return self._with_totals(self.epilogue)

    def _with_totals(self, node: Node) -> str:
        """`node`'s text with the reductions' names read as their totals."""
        totals = {r.var: _suffixed("pf_total", j) for j, r in enumerate(self.dep.reductions)}
        named = [
            (n.start_byte, n.end_byte, totals[text(n)])
            for n in walk(node)
            if n.type == "identifier" and text(n) in totals
        ]
        return _rewrite(node, self.edits + named)

    def late_code(self) -> list[str]:
        """The declarations after the loop, for the block that ends last (`late`)."""
        return [self._with_totals(d).rstrip().removesuffix(";") for d in self.late]

    def finish(self, total: str, value: str, reset: str = "") -> str:
        """Code for the block that ends last (every other block's fold done): `total` read
        as `pf_total`, then the result written from it as `value`."""
        return (
            "        if (pf_cuda_last_block(&pf_kernel_done)) {\n"
            f"            {total};\n"
            f"            *{self.out.name} = ({self.element})({value});\n"
            f"{reset}{self.resets}"
            "        }\n"
        )


_SMALL = frozenset({"bool", "char", "signed char", "unsigned char", "short", "unsigned short",
                    "int8_t", "uint8_t", "int16_t", "uint16_t"})  # fmt: skip
"""Result types no device atomic updates (a 4-byte compare-and-swap would reach past a
one-byte allocation): their partials meet in an 8-byte device variable instead."""
_BITWISE = {"^": "xor", "|": "or", "&": "and"}


def _reduced(fold: _Fold) -> tuple[str, str, str, dict[str, str]]:
    """A returned reduction: each thread folds its iterations from the operator's identity, a
    block's partials meet in a shared-memory tree, one atomic per block folds them into a
    device total, and the block that ends last writes the function's result: its start
    folded with the total, through the return's expression if any (`sum / x.size()`). The
    driver's start value takes no part, so no driver can make it wrong. A result no atomic
    updates (`bool`, `char`) totals in an 8-byte device variable. The fold is in the type the
    function declares its result (converted to the kernel's result type once, at the end).
    Several reductions of one loop (`s += v; sq += v * v;`, `lo = min(lo, v); hi = max(hi,
    v);`) fold alike, each with a total of its own, and the return's expression reads them
    all (`return sq / n - s * s / (n * n);`)."""
    declare = combine_blocks = totals = resets = globals_ = ""
    reads: list[str] = []
    renames: dict[str, str] = {}
    for j, result in enumerate(fold.dep.reductions):
        r, p, total_name = _suffixed("pf_r", j), _suffixed("pf_p", j), _suffixed("pf_total", j)
        kernel_total = _suffixed("pf_kernel_total", j)
        element = fold.element if len(fold.dep.reductions) == 1 else fold.declared(result.var)
        declared = fold.declared(result.var)
        if _same_type(declared) != _same_type(element):
            # The fold runs in the function's own type (`long long c` counted, the kernel's
            # `bool *` written from `c % 2 == 1` once): folding in the result's type would
            # convert every partial, not the total.
            if _same_type(declared) not in {_same_type(t) for t in _ATOMIC_TYPES}:
                raise AnnotationError(f"the function's {declared} result is the kernel's {element}")
            element = declared
        op = result.op
        if op not in ("+", "*", "min", "max", *_BITWISE):
            raise AnnotationError(f"no device atomic for a {op} reduction")
        name = _OP_NAMES.get(op) or _BITWISE[op]
        small = element in _SMALL and op in ("+", "^", "|", "&")
        if not small and (
            element not in _ATOMIC_TYPES or (op in _BITWISE and element in ("float", "double"))
        ):
            raise AnnotationError(f"no device atomic combines a {element} result")
        total = "unsigned long long" if small else element
        identity = _identity_of(op, total)
        functor = f"pf_cuda_{name}_f()"
        declare += f"    {element} {r} = ({element})({identity});\n"
        start = fold.start(result.var)
        combine_blocks += (
            "    __syncthreads(); /* the tree before is read: its shared memory is free */\n"
            if j
            else ""
        ) + f"    {total} {p} = pf_cuda_block_fold(({total}){r}, {functor});\n"
        totals += f"        pf_cuda_fold_{name}(&{kernel_total}, {p});\n"
        resets += f"            *(volatile {total} *)&{kernel_total} = {identity};\n"
        globals_ += f"__device__ {total} {kernel_total} = {identity}; /* the blocks' total */\n"
        renames[result.var] = r
        reads.append(
            f"{element} {total_name} = ({element}){functor}(({element})({start}), "
            f"({element})*(volatile {total} *)&{kernel_total})"
        )
    combine = (
        combine_blocks
        + "    if (pf_lane == 0) {\n"
        + totals
        + fold.finish(";\n            ".join(reads + fold.late_code()), fold.total_of(), resets)
        + "    }\n"
    )
    return declare, combine, DONE + globals_, renames


def _suffixed(name: str, j: int) -> str:
    """The name of the j-th of several reductions' values (`pf_total`, `pf_total_1`, ...)."""
    return name if j == 0 else f"{name}_{j}"


_EXTREMES = {
    # type: (the largest value, the smallest): min's and max's identities
    "double": ("HUGE_VAL", "-HUGE_VAL"), "float": ("HUGE_VALF", "-HUGE_VALF"),
    "int": ("INT_MAX", "INT_MIN"), "unsigned int": ("UINT_MAX", "0"),
    "long int": ("LONG_MAX", "LONG_MIN"), "long": ("LONG_MAX", "LONG_MIN"),
    "unsigned long": ("ULONG_MAX", "0"),
    "long long": ("LLONG_MAX", "LLONG_MIN"), "unsigned long long": ("ULLONG_MAX", "0"),
}  # fmt: skip


def _identity_of(op: str, kind: str) -> str:
    """The identity of `op` over `kind`, as a constant expression (a device variable's start)."""
    if op in ("min", "max"):
        extremes = _EXTREMES.get(_same_type(kind))
        if extremes is None:
            raise AnnotationError(f"no identity of {op} over {kind}")
        return extremes[0] if op == "min" else extremes[1]
    if op == "&":
        return f"({kind})~({kind})0"  # every bit set
    return "1" if op == "*" else "0"


def _assignments(node: Node, var: str) -> list[Node] | None:
    """Every assignment to `var` in the loop (`var = ...`), or None where `var` is read or
    updated any other way."""
    found = []
    for n in walk(node):
        if n.type == "identifier" and text(n) == var:
            parent = n.parent
            if (
                parent is None
                or parent.type != "assignment_expression"
                or parent.child_by_field_name("left") != n
                or text(parent.child_by_field_name("operator") or parent) != "="
            ):
                return None
            found.append(parent)
    return found


def _index_only(fold: _Fold, var: str) -> list[Node]:
    assignments = _assignments(fold.node, var)
    if not assignments or any(
        text(a.child_by_field_name("right") or a).strip() != fold.loop.var for a in assignments
    ):
        raise AnnotationError(f"the loop keeps in {var} something other than its counter")
    first = parse_int(fold.loop.lower or "")
    unsigned = (fold.loop.declared_type or "").startswith(("unsigned", "size_t", "std::size_t"))
    if not unsigned and (first is None or first < 0):
        raise AnnotationError("the loop's counter may be negative")
    return assignments


def _last(fold: _Fold) -> tuple[str, str, str, dict[str, str]]:
    """The last index a conditional assignment keeps (`if (x[i] < 100) last = i;`): each
    thread's last (its iterations ascend) plus one, 0 for none, meets in a max; the block
    that ends last writes the index, or the function's start where no iteration assigned."""
    var = fold.dep.last_assigned[0]
    assignments = _index_only(fold, var)
    if _same_type(fold.declared(var)) != _same_type(fold.element):
        raise AnnotationError(f"the function's {fold.declared(var)} is the kernel's {fold.element}")
    fold.edits += [
        (a.start_byte, a.end_byte, f"pf_last = (unsigned long long)({fold.loop.var}) + 1")
        for a in assignments
    ]
    declare = "    unsigned long long pf_last = 0;\n"
    combine = (
        "    pf_last = pf_cuda_block_fold(pf_last, pf_cuda_max_f());\n"
        "    if (pf_lane == 0) {\n"
        "        pf_cuda_fold_max(&pf_kernel_acc, pf_last);\n"
        + fold.finish(
            "unsigned long long pf_total = *(volatile unsigned long long *)&pf_kernel_acc",
            f"pf_total ? ({fold.element})(pf_total - 1) : ({fold.element})({fold.start(var)})",
            "            *(volatile unsigned long long *)&pf_kernel_acc = 0;\n",
        )
        + "    }\n"
    )
    globals_ = DONE + "__device__ unsigned long long pf_kernel_acc = 0; /* last index + 1 */\n"
    return declare, combine, globals_, {}


def _argmin(fold: _Fold) -> tuple[str, str, str, dict[str, str]]:
    """An argmin or argmax (`if (d < best) { best = d; at = i; }`): each thread keeps its own
    best and index over its iterations, a block's pairs meet in a shared-memory tree (ties to
    the earlier index for `<`, the later for `<=`), each block's best is merged under a lock
    into the result and a device copy of its value, and the block that ends last writes the
    function's start where no iteration found one."""
    update = fold.dep.best_updates[0]
    at = update.others[0]
    assignments = _index_only(fold, at)
    key = fold.declared(update.best)
    if key not in _KEY_TYPES:
        raise AnnotationError(f"the argmin compares {key or 'values'}, not numbers")
    if _same_type(fold.declared(at)) != _same_type(fold.element):
        raise AnnotationError(f"the function's {fold.declared(at)} is the kernel's {fold.element}")
    fold.edits += [
        (a.start_byte, a.end_byte, f"(pf_found = true, pf_at = {fold.loop.var})")
        for a in assignments
    ]
    element, out = fold.element, fold.out.name
    rule = f"{'true' if update.keeps == 'min' else 'false'}, {'true' if update.strict else 'false'}"
    declare = (
        f"    {key} pf_best = ({key})({fold.start(update.best)});\n"
        f"    {element} pf_at = ({element})({fold.start(at)});\n"
        "    bool pf_found = false;\n"
    )
    combine = (
        f"    pf_cuda_best<{key}, {element}> pf_b = pf_cuda_block_fold("
        f"pf_cuda_best<{key}, {element}>{{pf_found, pf_best, pf_at}}, pf_cuda_better{{{rule}}});\n"
        "    if (pf_lane == 0) {\n"
        f"        if (pf_b.found) pf_cuda_merge_best(&pf_kernel_best, {out}, pf_b, {rule});\n"
        "        if (pf_cuda_last_block(&pf_kernel_done)) {\n"
        f"            if (!*(volatile int *)&pf_kernel_best.have) *{out} = ({element})({fold.start(at)});\n"
        "            *(volatile int *)&pf_kernel_best.have = 0;\n"
        "        }\n"
        "    }\n"
    )
    globals_ = (
        DONE
        + f"__device__ pf_cuda_kept<{key}> pf_kernel_best = {{0, 0, 0}}; /* the best so far */\n"
    )
    return declare, combine, globals_, {update.best: "pf_best", at: "pf_at"}


def _resizes_output(
    statement: Node,
    by_name: dict[str, KernelParam],
    serial_params: dict[str, Node],
    aliases: set[str] | frozenset[str] = frozenset(),
) -> bool:
    """`y.resize(x.size());` where `y` is a vector the kernel takes as a pointer and `x` a
    vector (or `y.resize(n)`, `n` one of the `aliases` of the kernel's size: its size parameter,
    a local declared `x.size()`): the driver allocates `y` at the kernel's size, so the kernel
    has nothing to do."""
    call = _expression_of(statement)
    callee = call.child_by_field_name("function") if call is not None else None
    arguments = call.child_by_field_name("arguments") if call is not None else None
    if call is None or call.type != "call_expression" or callee is None or arguments is None:
        return False
    owner, _, method = text(callee).rpartition(".")
    sizes = [a for a in arguments.named_children if a.type != "comment"]
    measured = text(sizes[0]).removesuffix(".size()").strip() if len(sizes) == 1 else ""
    return (
        method == "resize"
        and owner in by_name
        and by_name[owner].pointer
        and "vector" in text(serial_params.get(owner) or callee)
        and len(sizes) == 1
        and (
            (
                text(sizes[0]).endswith(".size()")
                and "vector" in text(serial_params.get(measured) or callee)
            )
            or (sizes[0].type == "identifier" and text(sizes[0]) in aliases)
        )
    )


def _stored_before(statement: Node, var: str, loop: Loop) -> Node | None:
    """The value of `var[lower - 1] = value;` (the element a recurrence's first iteration
    reads, `y[0] = x[0];` before `for (i = 1; ...) y[i] = y[i - 1] + x[i]`), else None."""
    expr = _expression_of(statement)
    if expr is None or expr.type != "assignment_expression":
        return None
    left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
    operator = expr.child_by_field_name("operator")
    if left is None or right is None or operator is None or text(operator) != "=":
        return None
    array, index = left.child_by_field_name("argument"), left.child_by_field_name("indices")
    if left.type != "subscript_expression" or array is None or text(array) != var:
        return None
    at = parse_int(text(index or left).strip("[]() "))
    first = parse_int(loop.lower or "")
    offset = loop.dependence.scan.offset if loop.dependence.scan is not None else 0
    if at is None or first is None or at != first + offset - 1 or var in _names(right):
        return None
    return right


@dataclass
class _ScanParts:
    """What a scan's tiles need: the facts, the loop and its head, the rewrites so far, the kernel's
    parameters, the types of the names the body reads, the running value's declared start,
    and a recurrence's element stored before the loop."""

    loop: Loop
    node: Node
    head: _LoopHead
    edits: list[tuple[int, int, str]]
    by_name: dict[str, KernelParam]
    types: dict[str, str]
    starts: dict[str, tuple[str, Node]]
    start: Node | None
    store: Node | None
    scanned: str | None = None
    """The element type of the recurrence's array where it is the function's own (no kernel
    parameter): the running value stands for its elements, and nothing is stored."""
    folded: str | None = None
    """The reduction the loop also folds (`sum += y[i];`), renamed to each thread's partial:
    the tiles' second pass folds it, and the kernel's fold combines the partials after."""
    returned: KernelParam | None = None
    """The result pointer the function's `return k;` of the running value goes to: the block
    that ends last writes the value the last tile passed on (the start where no tile ran)."""


_SCAN_ITEMS = 8
"""Iterations per thread in a scan's tile: a block of 256 threads takes 2,048 at a time."""
_SCAN_RESETS = (
    "        *(volatile unsigned long long *)&pf_scan_ticket = 0;\n"
    "        *(volatile unsigned long long *)&pf_scan_passed = 0;\n"
)
"""The scan's tickets, reset by the block that ends last for the next launch."""


def _local_vector(statement: Node) -> tuple[str, str] | None:
    """The name and element type of a local vector a declaration sizes and nothing else
    (`std::vector<double> y(x.size());`, one declarator), else None."""
    if statement.type != "declaration" or len(statement.children_by_field_name("declarator")) != 1:
        return None
    kind = statement.child_by_field_name("type")
    declarator = statement.child_by_field_name("declarator")
    match = re.fullmatch(r"(?:std::)?vector\s*<\s*([\w\s]+?)\s*>", text(kind)) if kind else None
    arguments = declarator.named_children[-1] if declarator is not None else None
    if match is None or declarator is None or declarator.type != "init_declarator":
        return None
    if arguments is None or arguments.type != "argument_list" or len(arguments.named_children) != 1:
        return None
    return declared_name(declarator) or "", " ".join(match.group(1).split())


def _subscript_index(node: Node | None) -> Node | None:
    """The one index of a subscript (`y[i]`), else None."""
    if node is None or node.type != "subscript_expression":
        return None
    index = node.child_by_field_name("indices") or node.child_by_field_name("index")
    if index is not None and index.type == "subscript_argument_list":
        index = index.named_children[0] if len(index.named_children) == 1 else None
    return index


def _scan_tiles(parts: _ScanParts) -> tuple[str, str]:
    """A scan (`Dependence.scan`) in one launch, for whatever grid the driver launches: blocks
    take tiles of the loop's iterations in ticket order (a block waits only for a tile whose
    block already runs, so no launch order can deadlock). In a tile each thread totals its
    run of iterations with the body's input phase from the operator's identity, the block
    scans the totals in shared memory, its thread 0 waits until the tile before has passed on
    its running value (the function's start for the first tile), passes on its own, and every
    thread runs the whole body over its run from its value. The block that ends last resets
    the tickets for the next launch.

    Exact for min and max, and for integers from integer terms; a floating-point sum is
    regrouped (per tile), as any parallel scan is. The arrays the loop writes are read and
    written only at the iteration's own element (the recurrence's previous one aside), so
    tiles touch disjoint elements while earlier tiles still run their second pass."""
    loop, node, edits = parts.loop, parts.node, parts.edits
    scan = loop.dependence.scan
    assert scan is not None and loop.var is not None
    var = loop.var
    written = {a.name for a in loop.writes if a.is_array}
    for access in (*loop.reads, *loop.writes):
        if access.name in scan.packs:
            continue  # stored at the running count, which tiles take in turn
        own = (
            access.indices == (shifted(var, scan.offset),)
            if scan.recurrence and access.name == scan.var
            else access.indices == (var,)
        ) or (
            scan.recurrence
            and access.name == scan.var
            and access.indices == (shifted(var, scan.offset - 1),)
        )
        if access.name in written and not own:
            raise AnnotationError(f"the scan's loop reaches {access} of an array it writes")
    body = node.child_by_field_name("body")
    statements = body_statements(body)
    if (
        body is None
        or len(statements) < scan.split
        or (len(statements) == scan.split and not scan.exclusive)
    ):
        raise AnnotationError("the scan's body is not the block the analysis found")
    functor = f"pf_cuda_{_OP_NAMES[scan.op]}_f()"
    # what the tiles' first pass runs: the input phase, without an exclusive scan's reads
    first_pass = [st for k, st in enumerate(statements[: scan.split]) if k not in scan.exclusive]
    input_phase = [_rewrite(st, edits) for st in first_pass]
    if scan.packs:
        # a compaction's first pass counts with the stores removed (`if (c) k++;`)
        split = statements[scan.split]
        pack = match_pack(split, scan.var)
        if pack is None or pack.arrays != scan.packs:
            raise AnnotationError("the compaction is not the one the analysis found")
        for array in pack.arrays:
            param = parts.by_name.get(array)
            if param is None or not param.pointer:
                raise AnnotationError(f"the compaction's array {array} is not the kernel's")
        removed = list(pack.counting)
        kept_edits = [e for e in edits if not any(a <= e[0] and e[1] <= b for a, b, _ in removed)]
        input_phase.append(_rewrite(split, [*kept_edits, *removed]))
    if scan.recurrence:
        matched = match_recurrence(statements[scan.split], var)
        if matched is None or (matched.first is not None) != scan.first:
            raise AnnotationError("the scan's recurrence is not the one the analysis found")
        param = parts.by_name.get(scan.var)
        if parts.scanned is not None:
            if scan.offset != 0 or mentions(matched.term, scan.var):
                # the function's own array has no device copy: its elements are the running
                # value at the iteration's own index, and its term cannot read one
                raise AnnotationError(f"the scan's own array {scan.var} is read as an array")
            kind, acc = parts.scanned, "pf_acc"
        elif param is None or not param.pointer:
            raise AnnotationError(f"the scan's array {scan.var} is not the kernel's")
        else:
            kind, acc = _element(param), "pf_acc"
        term = f"({_rewrite(matched.term, edits)})"
        exact_part = [matched.term]
        if matched.first is not None:
            condition, _, value = matched.first
            term = f"({_rewrite(condition, edits)} ? ({_rewrite(value, edits)}) : {term})"
            exact_part.append(value)
        update = f"pf_acc = {functor}(pf_acc, ({kind}){term});"
        element = _rewrite(matched.element, edits)
        recurrence = statements[scan.split]
        stored = f"{update} {element} = pf_acc;"
        read: list[tuple[int, int, str]] = []
        if parts.scanned is not None:
            # the function's own array: its element is the running value, read as it
            stored = update
            for statement in statements:
                if statement is recurrence:
                    continue
                for n in walk(statement):
                    if n.type == "identifier" and text(n) == scan.var:
                        subscript = n.parent
                        index = _subscript_index(subscript)
                        if subscript is None or index is None or text(index) != var:
                            raise AnnotationError(
                                f"the scan reads {scan.var} other than at its own element"
                            )
                        if statement.start_byte < recurrence.start_byte:
                            raise AnnotationError(f"the scan reads {scan.var} before its step")
                        read.append((subscript.start_byte, subscript.end_byte, "pf_acc"))
        whole = _rewrite(
            body, [*edits, *read, (recurrence.start_byte, recurrence.end_byte, stored)]
        )
        if recurrence == body:  # a body of one statement, without braces
            whole = f"{{ {whole} }}"
        totalling = [*input_phase, update]
        if parts.start is not None:
            start = _rewrite(parts.start, edits)
        elif scan.first:
            start = _identity_of(scan.op, kind)
        elif parts.scanned is None:
            start = previous_of(scan.var, "pf_first", scan.offset)
        else:
            raise AnnotationError(f"the scan's own array {scan.var} has no first value")
    else:
        if scan.var not in parts.starts or parts.start is None:
            raise AnnotationError(f"the scan's running value {scan.var} has no start before it")
        kind, acc = " ".join(parts.starts[scan.var][0].replace("const", "").split()), scan.var
        exact_part = first_pass
        whole = _rewrite(body, edits)
        totalling = input_phase
        start = _rewrite(parts.start, edits)
    if parts.folded is not None and any(
        text(n) == parts.folded for st in first_pass for n in walk(st) if n.type == "identifier"
    ):
        # the input phase runs in both passes: its fold would count every iteration twice
        raise AnnotationError(f"the scan's loop folds {parts.folded} before its running value")
    if _same_type(kind) not in {_same_type(k) for k in _KEY_TYPES}:
        raise AnnotationError(f"the scan's running value is a {kind or 'value'}, not a number")
    _exact_scan(scan.op, kind, exact_part, {var, acc, scan.var}, parts.types)
    identity = f"({kind})({_identity_of(scan.op, kind)})"
    store = ""
    if parts.store is not None and parts.scanned is None:
        # (the function's own array has no device copy: its first value is the start alone)
        store = f"    if (pf_t == 0) {_rewrite(parts.store, edits)}\n"
    run = parts.head.loop("pf_run", "1", "pf_k < pf_run + pf_items")  # the thread's own run
    globals_ = DONE + (
        "__device__ unsigned long long pf_scan_ticket = 0; /* the next tile to take */\n"
        "__device__ unsigned long long pf_scan_passed = 0; /* tiles whose value is passed on */\n"
        f"__device__ {kind} pf_scan_carry; /* the running value the last tile passed on */\n"
    )
    work = (
        "    (void)pf_threads;\n    (void)pf_t;\n"
        f"    const unsigned pf_items = {_SCAN_ITEMS}, pf_width = blockDim.x * blockDim.y * "
        "blockDim.z;\n"
        f"{parts.head.prelude}{store}"
        "    __shared__ unsigned long long pf_tile;\n"
        f"    __shared__ {kind} pf_carry_in, pf_tile_total;\n"
        "    for (;;) {\n"
        "        if (pf_lane == 0) pf_tile = atomicAdd(&pf_scan_ticket, 1ULL);\n"
        "        __syncthreads();\n"
        "        const unsigned long long pf_base = pf_tile * pf_width * pf_items;\n"
        "        const unsigned long long pf_run = pf_base + (unsigned long long)pf_lane * pf_items;\n"
        f"{parts.head.exists('pf_base')}"
        "        if (!pf_any) break;  /* the same for the whole block: past the loop's end */\n"
        f"        {kind} {acc} = {identity};\n"
        + f"{run}            {{ {' '.join(totalling)} }}\n        }}\n"
        + f"        const {kind} pf_before = pf_cuda_block_scan({acc}, {functor}, {identity}, "
        "&pf_tile_total);\n"
        "        if (pf_lane == 0) {\n"
        f"            {kind} pf_carry;\n"
        "            if (pf_tile == 0) {\n"
        f"                pf_carry = ({kind})({start});\n"
        "            } else {\n"
        "                while (*(volatile unsigned long long *)&pf_scan_passed != pf_tile) {\n"
        "                    pf_cuda_pause();\n"
        "                }\n"
        "                __threadfence();\n"
        f"                pf_carry = *(volatile {kind} *)&pf_scan_carry;\n"
        "            }\n"
        f"            *(volatile {kind} *)&pf_scan_carry = {functor}(pf_carry, pf_tile_total);\n"
        "            __threadfence();\n"
        "            *(volatile unsigned long long *)&pf_scan_passed = pf_tile + 1;\n"
        "            pf_carry_in = pf_carry;\n"
        "        }\n"
        "        __syncthreads();\n"
        f"        {acc} = {functor}(pf_carry_in, pf_before);\n"
        + f"{run}            {whole}\n        }}\n"
        + "        __syncthreads();  /* before the next ticket overwrites the tile's values */\n"
        "    }\n"
    )
    if parts.folded is None:  # else the fold's last block resets the tickets (`_Fold.resets`)
        written_back = ""
        if parts.returned is not None:
            # the value the last tile passed on, or the start where the loop ran no iteration
            written_back = (
                f"        *{parts.returned.name} = ({_element(parts.returned)})"
                f"(*(volatile unsigned long long *)&pf_scan_passed > 0 ? "
                f"*(volatile {kind} *)&pf_scan_carry : ({kind})({start}));\n"
            )
        work += (
            "    if (pf_lane == 0 && pf_cuda_last_block(&pf_kernel_done)) {\n"
            + written_back
            + _SCAN_RESETS
            + "    }\n"
        )
    elif parts.returned is not None:
        raise AnnotationError("the scan's loop folds and returns its running value both")
    return globals_, work


def _exact_scan(
    op: str, kind: str, phase: list[Node], own: set[str], types: dict[str, str]
) -> None:
    """Refuse a scan whose tiles would not give the sequential loop's values: a floating-point
    product (regrouped, it can overflow where the sequential one does not) or an integer sum
    or product of terms that may not be integers (the sequential loop cuts each step's value,
    a tile's total is cut once)."""
    bare = _same_type(kind)
    if bare in _FLOATING:
        if op == "*":
            raise AnnotationError("a floating-point product, which regrouping can overflow")
        return
    if op in ("min", "max"):
        return  # a min of values cut toward zero is the cut of their min: exact
    types = dict(types)
    for part in phase:  # the phase's own locals (`int v = x[i];`)
        for n in walk(part):
            kind_node = n.child_by_field_name("type") if n.type == "declaration" else None
            if kind_node is None:
                continue
            for declarator in n.children_by_field_name("declarator"):
                types[declared_name(declarator) or ""] = text(kind_node)
    for part in phase:
        for n in walk(part):
            if n.type in ("call_expression", "cast_expression"):
                raise AnnotationError("an integer scan whose terms call or convert")
            if (
                n.type == "number_literal"
                and re.search(r"[.eEpP]", text(n))
                and not text(n).lower().startswith("0x")
            ):
                raise AnnotationError(f"an integer scan with the floating term {text(n)}")
            if n.type == "identifier" and text(n) not in own:
                named = _same_type(" ".join(types.get(text(n), "").replace("const", "").split()))
                if named not in _INTEGRAL_SAME:
                    raise AnnotationError(f"an integer scan whose term reads {text(n)}")


_INTEGRAL_SAME = frozenset(_same_type(k) for k in _INTEGRAL) | {"bool"}
"""Integer types (and `bool`), by `_same_type`'s names."""


_KEY_TYPES = frozenset(
    {"int", "unsigned", "unsigned int", "long", "long long", "unsigned long",
     "unsigned long long", "size_t", "float", "double", "int64_t", "uint64_t", "int32_t",
     "uint32_t", "short", "char"}
)  # fmt: skip


_COMPLEX = """\
/* std::complex<T> on the device: the library's operators and functions, laid out as CUDA's
   cuDoubleComplex (cuFloatComplex), whose pointers the driver passes. */
template <class T> struct alignas(2 * sizeof(T)) pf_cplx {
    T re, im;
    __host__ __device__ pf_cplx(T r = T(), T i = T()) : re(r), im(i) {}
    template <class V, class = decltype(V().x + V().y)>
    __host__ __device__ pf_cplx(const V &v) : re((T)v.x), im((T)v.y) {}
    __host__ __device__ T real() const { return re; }
    __host__ __device__ T imag() const { return im; }
    __host__ __device__ pf_cplx &operator+=(pf_cplx b) { re += b.re; im += b.im; return *this; }
    __host__ __device__ pf_cplx &operator-=(pf_cplx b) { re -= b.re; im -= b.im; return *this; }
    __host__ __device__ pf_cplx &operator*=(pf_cplx b) { return *this = *this * b; }
    __host__ __device__ pf_cplx &operator/=(pf_cplx b) { return *this = *this / b; }
    friend __host__ __device__ pf_cplx operator+(pf_cplx a, pf_cplx b) { return {a.re + b.re, a.im + b.im}; }
    friend __host__ __device__ pf_cplx operator-(pf_cplx a, pf_cplx b) { return {a.re - b.re, a.im - b.im}; }
    friend __host__ __device__ pf_cplx operator-(pf_cplx a) { return {-a.re, -a.im}; }
    friend __host__ __device__ pf_cplx operator+(pf_cplx a) { return a; }
    friend __host__ __device__ pf_cplx operator*(pf_cplx a, pf_cplx b) {
        return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    }
    friend __host__ __device__ pf_cplx operator/(pf_cplx a, pf_cplx b) {
        const T d = b.re * b.re + b.im * b.im;
        return {(a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d};
    }
    /* with a real number: the library's formulas, not a complex with a zero part's */
    __host__ __device__ pf_cplx &operator+=(T b) { re += b; return *this; }
    __host__ __device__ pf_cplx &operator-=(T b) { re -= b; return *this; }
    __host__ __device__ pf_cplx &operator*=(T b) { re *= b; im *= b; return *this; }
    __host__ __device__ pf_cplx &operator/=(T b) { re /= b; im /= b; return *this; }
    friend __host__ __device__ pf_cplx operator+(pf_cplx a, T b) { return {a.re + b, a.im}; }
    friend __host__ __device__ pf_cplx operator+(T a, pf_cplx b) { return {a + b.re, b.im}; }
    friend __host__ __device__ pf_cplx operator-(pf_cplx a, T b) { return {a.re - b, a.im}; }
    friend __host__ __device__ pf_cplx operator-(T a, pf_cplx b) { return {a - b.re, -b.im}; }
    friend __host__ __device__ pf_cplx operator*(pf_cplx a, T b) { return {a.re * b, a.im * b}; }
    friend __host__ __device__ pf_cplx operator*(T a, pf_cplx b) { return {a * b.re, a * b.im}; }
    friend __host__ __device__ pf_cplx operator/(pf_cplx a, T b) { return {a.re / b, a.im / b}; }
    friend __host__ __device__ bool operator==(pf_cplx a, pf_cplx b) { return a.re == b.re && a.im == b.im; }
    friend __host__ __device__ bool operator!=(pf_cplx a, pf_cplx b) { return !(a == b); }
    friend __host__ __device__ T real(pf_cplx a) { return a.re; }
    friend __host__ __device__ T imag(pf_cplx a) { return a.im; }
    friend __host__ __device__ T abs(pf_cplx a) { return hypot(a.re, a.im); }
    friend __host__ __device__ T norm(pf_cplx a) { return a.re * a.re + a.im * a.im; }
    friend __host__ __device__ T arg(pf_cplx a) { return atan2(a.im, a.re); }
    friend __host__ __device__ pf_cplx conj(pf_cplx a) { return {a.re, -a.im}; }
    friend __host__ __device__ pf_cplx exp(pf_cplx a) { const T m = exp(a.re); return {m * cos(a.im), m * sin(a.im)}; }
};
template <class R, class A = R>
__host__ __device__ inline pf_cplx<decltype(R() + A())> pf_cplx_polar(R r, A theta = A()) {
    return {r * cos(theta), r * sin(theta)};
}
"""
_COMPLEX_TYPES = {
    "std::complex<double>": "pf_cplx<double>",
    "std::complex<float>": "pf_cplx<float>",
}
_CUDA_COMPLEX = {"cuDoubleComplex": "pf_cplx<double>", "cuFloatComplex": "pf_cplx<float>"}
_COMPLEX_CALLS = frozenset({"conj", "real", "imag", "norm", "arg", "polar"})
"""The library's complex functions a kernel may call (with `abs` and `exp`, which are math)."""


def _complex_edits(parts: list[Node]) -> list[tuple[int, int, str]]:
    """Edits that write `std::complex<T>` as the device's `pf_cplx<T>` in `parts` (the type
    of a declaration, a cast, a constructor call) and `std::polar` as `pf_cplx_polar`."""
    edits = []
    for part in parts:
        for n in walk(part):
            written = " ".join(text(n).split()).replace("< ", "<").replace(" >", ">")
            if n.type == "qualified_identifier" and written in _COMPLEX_TYPES:
                edits.append((n.start_byte, n.end_byte, _COMPLEX_TYPES[written]))
            elif n.type == "qualified_identifier" and written == "std::polar":
                edits.append((n.start_byte, n.end_byte, "pf_cplx_polar"))
    return edits


def _complex_params(signature: str) -> tuple[str, str]:
    """The signature with each complex pointer parameter (`cuDoubleComplex *x`) renamed
    `pf_raw_x`, and the lines that declare `x` as the device's complex type over it."""
    _, params = signature_params(signature)
    lines = []
    for param in params:
        kind = _CUDA_COMPLEX.get(_element(param))
        if kind is None or not param.pointer:
            continue
        const = "const " if "const" in param.type else ""
        signature = re.sub(
            rf"\b{param.name}\b(?=\s*[,)\[])", f"pf_raw_{param.name}", signature, count=1
        )
        lines.append(
            f"    {const}{kind} *const {param.name} = reinterpret_cast<{const}{kind} *>(pf_raw_{param.name});\n"
        )
    return signature, "".join(lines)
