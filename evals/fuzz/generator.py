"""Random C and C++ programs from a grammar of loop shapes and hazards, seeded and reproducible.

A program is a handful of snippets. Each snippet owns its globals (all named `s<k>_...`), one
outermost loop in a function of its own (also `s<k>_...`), its initialisation and the lines it
prints, so an output line that differs names the loop that made it differ. Every snippet knows
from construction whether its loop is parallel (any thread count and schedule gives the
sequential output, floating reductions up to reassociation) or hazardous, and which shape or
hazard it is.

Output lines are `<name> i <hash>` for integer state (compared exactly) and `<name> f v v ...`
for floating state (compared within `oracle.RTOL`). Floating data that a parallel loop may
reassociate is drawn from quarter-integers of small magnitude, exact in `float`, so only
`double` products and stencils round at all; signed integers never overflow (products use
`unsigned`, whose wrap-around is defined), so the sanitizers stay quiet on correct programs.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from sandbox.spec import Language

SHAPES = (
    "map",
    "stencil",
    "reduction",
    "scan",
    "search_break",
    "search_return",
    "histogram",
    "argmin",
    "nested_rect",
    "nested_tri",
    "flat_in_row",
    "flat_by_column",
    "cpp_vector",
    "cpp_method",
    "helper_own",
    "helper_set",
    "inplace",
    "strided",
    "local_temps",
    "row_reduce",
    "disjoint_call",
    "skip_last",
    "flat_local",
    "halves",
    "pack",
)
"""Loop shapes whose iterations are parallel by construction."""

HAZARDS = (
    "recurrence",
    "alias_local",
    "overlap_call",
    "static_state",
    "helper_neighbour",
    "shadow_library",
    "global_write",
    "flat_out_of_row",
    "flat_column_past",
    "cpp_member_state",
    "helper_param_write",
    "deref_write",
    "ref_element",
    "cpp_ref_element",
    "static_cursor",
    "global_pointer",
    "struct_alias",
    "scatter",
    "wrap_or_swap",
    "hidden_access",
    "cpp_packed_alias",
    "typed_fold",
    "bound_element",
    "local_index",
    "pack_near",
)
"""Hazards: loops whose iterations depend on each other, so no annotation is sound."""

CPP_ONLY = frozenset(
    {"cpp_vector", "cpp_method", "cpp_member_state", "cpp_ref_element", "cpp_packed_alias"}
)
REDUCTION_OPS = ("+", "*", "min", "max", "&", "|", "^", "&&", "||")
SHADOW_NAMES = ("max", "min", "count", "sum", "clamp", "square")


@dataclass(frozen=True)
class Snippet:
    """One loop with its state, labelled at construction."""

    prefix: str
    klass: str
    """A shape from SHAPES or a hazard from HAZARDS."""
    detail: str
    """The variant (operator and type for a reduction, and so on), for reports."""
    decls: str
    """Globals and helper functions, ahead of the snippet's function."""
    function: str
    init: str
    """Statements in `main` before the call (`n` is the snippet's size)."""
    call: str
    prints: str

    @property
    def parallel(self) -> bool:
        return self.klass in SHAPES


@dataclass(frozen=True)
class GeneratedProgram:
    seed: int
    index: int
    language: Language
    source: str
    snippets: tuple[Snippet, ...] = field(default=())

    @property
    def name(self) -> str:
        return f"fuzz_{self.seed}_{self.index}"


class _Writer:
    """Helpers shared by the snippet templates: data initialisation and printing."""

    def __init__(self, rng: random.Random, prefix: str) -> None:
        self.rng = rng
        self.p = prefix
        self.n = rng.choice((1000, 2048, 3000, 4096))

    def fill(self, name: str, ctype: str, length: str, signed: bool = True) -> str:
        a, b, m = (
            self.rng.randrange(3, 97, 2),
            self.rng.randrange(100),
            self.rng.choice((7, 31, 97)),
        )
        k = f"(({a} * (long)i + {b}) % {m})"
        if ctype in ("double", "float"):
            value = f"({k} - {m // 2}) * 0.25 + 0.125" if signed else f"{k} * 0.25 + 0.25"
        elif ctype == "unsigned":
            value = f"(unsigned){k} * 2654435761u"
        else:
            value = f"({k} - {m // 2 if signed else 0})"
        return f"for (int i = 0; i < {length}; i++) {name}[i] = ({ctype})({value});"

    def print_array(self, name: str, ctype: str, length: str) -> str:
        if ctype in ("double", "float"):
            return (
                f'printf("{name} f"); for (int i = 0; i < {length}; i++) '
                f'printf(" %.17g", (double){name}[i]); printf("\\n");'
            )
        return (
            f"{{ unsigned long long h = 1469598103934665603ull; for (int i = 0; i < {length}; i++) "
            f"h = h * 1099511628211ull + (unsigned long long)(long long){name}[i]; "
            f'printf("{name} i %llu\\n", h); }}'
        )

    def print_scalar(self, name: str, ctype: str) -> str:
        if ctype in ("double", "float"):
            return f'printf("{name} f %.17g\\n", (double){name});'
        return f'printf("{name} i %lld\\n", (long long){name});'


def _snippet(
    w: _Writer,
    klass: str,
    detail: str,
    decls: str,
    function: str,
    init: str,
    call: str,
    prints: str,
) -> Snippet:
    return Snippet(w.p, klass, detail, decls, function, init, call, prints)


# --- parallel shapes ---------------------------------------------------------------------------


def _map(w: _Writer, shadow: list[str]) -> Snippet:
    p, n, t = w.p, w.n, w.rng.choice(("int", "long", "double", "float"))
    c = w.rng.choice(("3", "2", "5"))
    decls = f"static {t} {p}a[{n}], {p}b[{n}], {p}out[{n}];"
    body = f"{p}out[i] = {p}a[i] * {c} + {p}b[i] - i % 7;"
    if w.rng.random() < 0.5:  # through local pointers that alias nothing
        body = f"{t} *dst = {p}out; const {t} *src = {p}a;\n    for (int i = 0; i < {n}; i++) dst[i] = src[i] * {c} + {p}b[i];"
        fn = f"void {p}run(void) {{\n    {body}\n}}"
    else:
        fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) {body}\n}}"
    init = w.fill(f"{p}a", t, str(n)) + "\n" + w.fill(f"{p}b", t, str(n))
    return _snippet(w, "map", t, decls, fn, init, f"{p}run();", w.print_array(f"{p}out", t, str(n)))


def _stencil(w: _Writer, shadow: list[str]) -> Snippet:
    p, n, t = w.p, w.n, w.rng.choice(("int", "double"))
    decls = f"static {t} {p}a[{n}], {p}out[{n}];"
    if w.rng.random() < 0.5:
        expr = f"{p}a[i - 1] + 2 * {p}a[i] + {p}a[i + 1]"
        lo, hi = "1", f"{n} - 1"
    else:
        expr = f"{p}a[i + 2] - {p}a[i]"
        lo, hi = "0", f"{n} - 2"
    fn = f"void {p}run(void) {{\n    for (int i = {lo}; i < {hi}; i++) {p}out[i] = {expr};\n}}"
    return _snippet(
        w,
        "stencil",
        t,
        decls,
        fn,
        w.fill(f"{p}a", t, str(n)),
        f"{p}run();",
        w.print_array(f"{p}out", t, str(n)),
    )


def _reduction(w: _Writer, shadow: list[str]) -> Snippet:
    p, n, rng = w.p, w.n, w.rng
    op = rng.choice(REDUCTION_OPS)
    if op in ("&", "|", "^", "&&", "||"):
        t = rng.choice(("int", "unsigned", "long"))
    elif op == "*":
        t = rng.choice(("unsigned", "double"))
    else:
        t = rng.choice(("int", "long", "double", "float"))
    x = f"{p}a[i]"
    init_value = {
        "+": "0",
        "*": "1",
        "min": "1000000",
        "max": "-1000000",
        "&": "~0",
        "|": "0",
        "^": "0",
        "&&": "1",
        "||": "0",
    }[op]
    if t == "unsigned" and op in ("min", "max"):
        init_value = "0"
    if op == "*" and t == "double":
        x = f"(1.0 + {p}a[i] * 0.001)"
    elif op == "*":
        x = f"({p}a[i] | 1u)"
    forms: dict[str, list[str]] = {
        "+": [f"s += {x};", f"s = s + {x};", f"s = {x} + s;"],
        "*": [f"s *= {x};", f"s = s * {x};"],
        "min": [f"if ({x} < s) s = {x};", f"s = {x} < s ? {x} : s;"],
        "max": [f"if ({x} > s) s = {x};", f"s = s > {x} ? s : {x};"],
        "&": [f"s &= {x} | 0x11;", f"s = s & ({x} | 0x11);"],
        "|": [f"s |= {x} & 0x10f;", f"s = s | ({x} & 0x10f);"],
        "^": [f"s ^= {x};", f"s = s ^ {x};"],
        "&&": [f"s = s && ({x} != {rng.randrange(-3, 30)});"],
        "||": [f"s = s || ({x} == {rng.randrange(-3, 30)});"],
    }
    if op in ("min", "max") and t == "double" and rng.random() < 0.4:
        forms[op] = [f"s = f{op}(s, {x});"]
    stmt = rng.choice(forms[op])
    decls = f"static {t} {p}a[{n}]; static {t} {p}r;"
    fn = (
        f"void {p}run(void) {{\n    {t} s = {init_value};\n"
        f"    for (int i = 0; i < {n}; i++) {stmt}\n    {p}r = s;\n}}"
    )
    return _snippet(
        w,
        "reduction",
        f"{op} {t}",
        decls,
        fn,
        w.fill(f"{p}a", t, str(n)),
        f"{p}run();",
        w.print_scalar(f"{p}r", t),
    )


def _scan(w: _Writer, shadow: list[str]) -> Snippet:
    """A running sum into another array, or a prefix sum as a recurrence: in place (`a[i] +=
    a[i - 1]`), one element on (`out[i + 1] = out[i] + a[i]`, a CSR row pointer) or both; or
    an exclusive scan (`out[i] = acc; acc += a[i];`, row offsets), its term a local of the
    body and the value before the step read twice or kept in a local; a 1-based prefix sum (`i <= n - 1`); or
    suffix sums, counting down."""
    p, n, t = w.p, w.n, w.rng.choice(("int", "long", "float"))
    form = w.rng.choice(
        (
            "running", "in_place", "shifted", "shifted_in_place", "exclusive", "exclusive_local",
            "one_based", "suffix", "exclusive_kept",
        )
    )  # fmt: skip
    decls = f"static {t} {p}a[{n}], {p}out[{n}];"
    loop = {
        "running": (
            f"{t} acc = 0;\n    for (int i = 0; i < {n}; i++) {{\n"
            f"        acc += {p}a[i];\n        {p}out[i] = acc;\n    }}"
        ),
        "exclusive": (
            f"{t} acc = 2;\n    for (int i = 0; i < {n}; i++) {{\n"
            f"        {p}out[i] = acc;\n        acc += {p}a[i];\n    }}"
        ),
        "exclusive_local": (
            f"{t} acc = 0;\n    for (int i = 0; i < {n}; i++) {{\n"
            f"        {t} v = {p}a[i] + 1;\n        {p}out[i] = acc;\n"
            f"        {p}out[i] += acc - v;\n        acc += v;\n    }}"
        ),
        "in_place": f"for (int i = 1; i < {n}; i++) {p}a[i] += {p}a[i - 1];",
        "exclusive_kept": (
            f"{t} acc = 3;\n    for (int i = 0; i < {n}; i++) {{\n"
            f"        {t} prev = acc;\n        {p}out[i] = prev * 2;\n        acc += {p}a[i];\n    }}"
        ),
        "suffix": (
            f"{t} acc = 1;\n    for (int i = {n} - 1; i >= 0; i--) {{\n"
            f"        acc += {p}a[i];\n        {p}out[i] = acc;\n    }}"
        ),
        "one_based": (
            f"{p}out[0] = 1;\n    for (int i = 1; i <= {n} - 1; i++) {p}out[i] = {p}out[i - 1] + {p}a[i];"
        ),
        "shifted": (
            f"{p}out[0] = 0;\n    for (int i = 0; i < {n} - 1; i++) {p}out[i + 1] = {p}out[i] + {p}a[i];"
        ),
        "shifted_in_place": f"for (int i = 0; i < {n} - 1; i++) {p}a[i + 1] += {p}a[i];",
    }[form]
    fn = f"void {p}run(void) {{\n    {loop}\n}}"
    printed = f"{p}a" if form.endswith("in_place") else f"{p}out"
    return _snippet(
        w,
        "scan",
        f"{t} {form}",
        decls,
        fn,
        w.fill(f"{p}a", t, str(n)),
        f"{p}run();",
        w.print_array(printed, t, str(n)),
    )


def _pack(w: _Writer, shadow: list[str]) -> Snippet:
    """A compaction: the elements that pass a test packed at a counter (`if (c) out[k++] =
    e;`), two arrays stored before one increment, or through pointer parameters; the count
    kept after the loop."""
    p, n = w.p, w.n
    m, r = w.rng.choice((2, 3, 5)), w.rng.randrange(2)
    form = w.rng.choice(("postfix", "block", "pointers"))
    decls = f"static int {p}a[{n}], {p}out[{n}], {p}at[{n}]; static int {p}cnt;"
    test = f"{p}a[i] % {m} == {r}" if form != "pointers" else f"a[i] % {m} == {r}"
    if form == "postfix":
        fn = (
            f"void {p}run(void) {{\n    int k = 0;\n    for (int i = 0; i < {n}; i++)\n"
            f"        if ({test}) {p}out[k++] = {p}a[i] * 3 - i;\n    {p}cnt = k;\n}}"
        )
        call = f"{p}run();"
    elif form == "block":
        fn = (
            f"void {p}run(void) {{\n    long k = 0;\n    for (int i = 0; i < {n}; i++) {{\n"
            f"        int v = {p}a[i] + 1;\n        if ({test}) {{\n"
            f"            {p}out[k] = v;\n            {p}at[k] = i;\n            ++k;\n"
            f"        }}\n    }}\n    {p}cnt = (int)k;\n}}"
        )
        call = f"{p}run();"
    else:
        fn = (
            f"int {p}run(const int *a, int *out, int n) {{\n    int k = 0;\n"
            f"    for (int i = 0; i < n; i++) {{\n        if ({test}) out[k++] = a[i];\n    }}\n"
            f"    return k;\n}}"
        )
        call = f"{p}cnt = {p}run({p}a, {p}out, {n});"
    prints = " ".join(
        (
            w.print_array(f"{p}out", "int", str(n)),
            w.print_array(f"{p}at", "int", str(n)),
            w.print_scalar(f"{p}cnt", "int"),
        )
    )
    return _snippet(w, "pack", form, decls, fn, w.fill(f"{p}a", "int", str(n)), call, prints)


def _search(w: _Writer, shadow: list[str], exit_by: str) -> Snippet:
    p, n = w.p, w.n
    target = w.rng.randrange(-5, 40)
    decls = f"static int {p}a[{n}]; static int {p}r;"
    if exit_by == "break":
        fn = (
            f"void {p}run(void) {{\n    int pos = -1;\n    for (int i = 0; i < {n}; i++) {{\n"
            f"        if ({p}a[i] == {target}) {{ pos = i; break; }}\n    }}\n    {p}r = pos;\n}}"
        )
        call = f"{p}run();"
    else:
        fn = (
            f"int {p}find(int v) {{\n    for (int i = 0; i < {n}; i++) {{\n"
            f"        if ({p}a[i] == v) return i;\n    }}\n    return -1;\n}}"
        )
        call = f"{p}r = {p}find({target});"
    return _snippet(
        w,
        f"search_{exit_by}",
        str(target),
        decls,
        fn,
        w.fill(f"{p}a", "int", str(n)),
        call,
        w.print_scalar(f"{p}r", "int"),
    )


def _histogram(w: _Writer, shadow: list[str]) -> Snippet:
    p, n, bins = w.p, w.n, w.rng.choice((8, 16, 64))
    decls = f"static int {p}a[{n}]; static long {p}h[{bins}];"
    update = w.rng.choice((f"{p}h[{p}a[i] % {bins}]++;", f"{p}h[{p}a[i] % {bins}] += 1 + i % 3;"))
    fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) {update}\n}}"
    return _snippet(
        w,
        "histogram",
        str(bins),
        decls,
        fn,
        w.fill(f"{p}a", "int", str(n), signed=False),
        f"{p}run();",
        w.print_array(f"{p}h", "long", str(bins)),
    )


def _argmin(w: _Writer, shadow: list[str]) -> Snippet:
    p, n, t = w.p, w.n, w.rng.choice(("int", "double"))
    cmp = w.rng.choice(("<", ">"))
    decls = f"static {t} {p}a[{n}]; static {t} {p}best; static int {p}at;"
    fn = (
        f"void {p}run(void) {{\n    {t} best = {p}a[0];\n    int at = 0;\n"
        f"    for (int i = 1; i < {n}; i++) {{\n        if ({p}a[i] {cmp} best) {{ best = {p}a[i]; at = i; }}\n"
        f"    }}\n    {p}best = best;\n    {p}at = at;\n}}"
    )
    prints = w.print_scalar(f"{p}best", t) + "\n" + w.print_scalar(f"{p}at", "int")
    return _snippet(
        w, "argmin", f"{cmp} {t}", decls, fn, w.fill(f"{p}a", t, str(n)), f"{p}run();", prints
    )


def _rows(w: _Writer) -> tuple[int, int]:
    return w.rng.choice((40, 64, 100)), w.rng.choice((30, 50, 64))


def _nested_rect(w: _Writer, shadow: list[str]) -> Snippet:
    p, (r, c), t = w.p, _rows(w), w.rng.choice(("int", "double"))
    decls = f"static {t} {p}a[{r} * {c}], {p}out[{r} * {c}];"
    fn = (
        f"void {p}run(int n, int m) {{\n    for (int i = 0; i < n; i++)\n"
        f"        for (int j = 0; j < m; j++)\n            {p}out[i * m + j] = {p}a[i * m + j] * 2 + i - j;\n}}"
    )
    return _snippet(
        w,
        "nested_rect",
        t,
        decls,
        fn,
        w.fill(f"{p}a", t, f"{r} * {c}"),
        f"{p}run({r}, {c});",
        w.print_array(f"{p}out", t, f"{r} * {c}"),
    )


def _nested_tri(w: _Writer, shadow: list[str]) -> Snippet:
    p, (r, _), t = w.p, _rows(w), w.rng.choice(("long", "double"))
    decls = f"static {t} {p}a[{r} * {r}], {p}out[{r}], {p}t[{r} * {r}];"
    if w.rng.random() < 0.5:
        fn = (
            f"void {p}run(int n) {{\n    for (int i = 0; i < n; i++) {{\n        {t} s = 0;\n"
            f"        for (int j = 0; j <= i; j++) s += {p}a[i * n + j];\n        {p}out[i] = s;\n    }}\n}}"
        )
        prints = w.print_array(f"{p}out", t, str(r))
    else:
        fn = (
            f"void {p}run(int n) {{\n    for (int i = 0; i < n; i++)\n"
            f"        for (int j = i; j < n; j++) {p}t[i * n + j] = {p}a[i * n + j] + {p}a[j * n + i];\n}}"
        )
        prints = w.print_array(f"{p}t", t, f"{r} * {r}")
    return _snippet(
        w, "nested_tri", t, decls, fn, w.fill(f"{p}a", t, f"{r} * {r}"), f"{p}run({r});", prints
    )


def _flat_in_row(w: _Writer, shadow: list[str]) -> Snippet:
    p, (r, c) = w.p, _rows(w)
    decls = f"static unsigned {p}b[{r} * {c}]; static int {p}a[{r} * {c}];"
    inner = w.rng.choice((("0", "m"), ("1", "m"), ("0", "m - 1")))
    fn = (
        f"void {p}run(int n, int m) {{\n    for (int i = 0; i < n; i++)\n"
        f"        for (int j = {inner[0]}; j < {inner[1]}; j++)\n"
        f"            {p}b[i * m + j] = {p}b[i * m + j] * 3u + (unsigned){p}a[i * m + j];\n}}"
    )
    init = w.fill(f"{p}b", "unsigned", f"{r} * {c}") + "\n" + w.fill(f"{p}a", "int", f"{r} * {c}")
    return _snippet(
        w,
        "flat_in_row",
        f"j in [{inner[0]}, {inner[1]})",
        decls,
        fn,
        init,
        f"{p}run({r}, {c});",
        w.print_array(f"{p}b", "unsigned", f"{r} * {c}"),
    )


def _flat_by_column(w: _Writer, shadow: list[str]) -> Snippet:
    """Row-major storage written column by column: the outer counter is the column, below
    the row length, the inner one picks the row (`b[i + j * m]`)."""
    p, (r, c) = w.p, _rows(w)
    decls = f"static unsigned {p}b[{r} * {c}]; static int {p}a[{r} * {c}];"
    at = w.rng.choice(("i + j * m", "j * m + i", "m * j + i"))
    fn = (
        f"void {p}run(int n, int m) {{\n    for (int i = 0; i < m; i++)\n"
        f"        for (int j = 0; j < n; j++)\n"
        f"            {p}b[{at}] = {p}b[{at}] * 3u + (unsigned){p}a[j * m + i] + (unsigned)i;\n}}"
    )
    init = w.fill(f"{p}b", "unsigned", f"{r} * {c}") + "\n" + w.fill(f"{p}a", "int", f"{r} * {c}")
    return _snippet(
        w,
        "flat_by_column",
        at,
        decls,
        fn,
        init,
        f"{p}run({r}, {c});",
        w.print_array(f"{p}b", "unsigned", f"{r} * {c}"),
    )


def _flat_column_past(w: _Writer, shadow: list[str]) -> Snippet:
    """Written column by column where a column may reach the next row: the column counts
    up to the row length itself, or the rows are shorter than the columns' count."""
    p, (r, c) = w.p, _rows(w)
    column, length = w.rng.choice((("i <= m", "m"), ("i < m", "(m - 1)"), ("i < m + 1", "m")))
    size = f"({r} + 2) * {c} + 2"
    decls = f"static unsigned {p}b[{size}];"
    fn = (
        f"void {p}run(int n, int m) {{\n    for (int i = 0; {column}; i++)\n"
        f"        for (int j = 0; j < n; j++)\n"
        f"            {p}b[i + j * {length}] = {p}b[i + j * {length}] * 3u + (unsigned)i;\n}}"
    )
    return _snippet(
        w,
        "flat_column_past",
        f"{column}, rows of {length}",
        decls,
        fn,
        w.fill(f"{p}b", "unsigned", size),
        f"{p}run({r}, {c});",
        w.print_array(f"{p}b", "unsigned", size),
    )


def _flat_local(w: _Writer, shadow: list[str]) -> Snippet:
    """A flattened row through a local holding its index or its row's start."""
    p, (r, c) = w.p, _rows(w)
    decls = f"static unsigned {p}b[{r} * {c}]; static int {p}a[{r} * {c}];"
    spelling = w.rng.choice(("const int", "int", "const long", "row", "cast", "widened"))
    bound = "(int)m" if spelling == "cast" else "m"
    if spelling == "widened":
        body = (
            f"    for (int i = 0; i < n; i++)\n        for (int j = 0; j < m; j++)\n"
            f"            {p}b[(long)i * m + j] = {p}b[(long)i * m + j] * 3u + (unsigned){p}a[(long)i * m + j];"
        )
    elif spelling == "row":
        body = (
            f"    for (int i = 0; i < n; i++) {{\n        const int row = i * m;\n"
            f"        for (int j = 0; j < m; j++)\n"
            f"            {p}b[row + j] = {p}b[row + j] * 3u + (unsigned){p}a[row + j];\n    }}"
        )
    else:
        kind = "long" if spelling == "cast" else spelling
        body = (
            f"    for (int i = 0; i < n; i++)\n        for (int j = 0; j < {bound}; j++) {{\n"
            f"            {kind} idx = i * m + j;\n"
            f"            {p}b[idx] = {p}b[idx] * 3u + (unsigned){p}a[idx];\n        }}"
        )
    width = "unsigned" if spelling == "cast" else "int"
    fn = f"void {p}run(int n, {width} m) {{\n{body}\n}}"
    init = w.fill(f"{p}b", "unsigned", f"{r} * {c}") + "\n" + w.fill(f"{p}a", "int", f"{r} * {c}")
    return _snippet(
        w,
        "flat_local",
        spelling,
        decls,
        fn,
        init,
        f"{p}run({r}, {c});",
        w.print_array(f"{p}b", "unsigned", f"{r} * {c}"),
    )


def _local_index(w: _Writer, shadow: list[str]) -> Snippet:
    """A local index that does not hold the flattened index where it is used: it wraps (a
    narrow type), is changed after its declaration, or is static."""
    p, (r, c) = w.p, _rows(w)
    decls = f"static unsigned {p}b[{r} * {c}];"
    declared, after = w.rng.choice(
        (
            ("const unsigned char idx = i * m + j;", ""),
            ("int idx = i * m + j;", " idx /= 2;"),
            ("int idx = i * m + j;", " idx = idx % 7;"),
            ("const int idx = (unsigned char)(i * m + j);", ""),
        )
    )
    fn = (
        f"void {p}run(int n, int m) {{\n    for (int i = 0; i < n; i++)\n"
        f"        for (int j = 0; j < m; j++) {{\n            {declared}{after}\n"
        f"            {p}b[idx] = {p}b[idx] * 3u + (unsigned)(i * m + j);\n        }}\n}}"
    )
    return _snippet(
        w,
        "local_index",
        declared + after,
        decls,
        fn,
        w.fill(f"{p}b", "unsigned", f"{r} * {c}"),
        f"{p}run({r}, {c});",
        w.print_array(f"{p}b", "unsigned", f"{r} * {c}"),
    )


def _cpp_vector(w: _Writer, shadow: list[str]) -> Snippet:
    p, n = w.p, w.n
    decls = f"static std::vector<double> {p}v({n}), {p}w({n});"
    fn = (
        f"void {p}scale(std::vector<double>& v, const std::vector<double>& x) {{\n"
        f"    for (std::size_t i = 0; i < v.size(); ++i) v[i] = v[i] * 2.0 + x[i];\n}}"
    )
    init = w.fill(f"{p}v", "double", str(n)) + "\n" + w.fill(f"{p}w", "double", str(n))
    return _snippet(
        w,
        "cpp_vector",
        "double",
        decls,
        fn,
        init,
        f"{p}scale({p}v, {p}w);",
        w.print_array(f"{p}v", "double", str(n)),
    )


def _cpp_method(w: _Writer, shadow: list[str]) -> Snippet:
    p, n = w.p, w.n
    decls = (
        f"struct {p}Bag {{\n    std::vector<long> d;\n    long {p}total() const {{\n"
        f"        long s = 0;\n        for (std::size_t i = 0; i < d.size(); ++i) s += d[i];\n"
        f"        return s;\n    }}\n}};\nstatic {p}Bag {p}bag; static long {p}r;"
    )
    init = f"{p}bag.d.resize({n});\n" + w.fill(f"{p}bag.d", "long", str(n))
    return _snippet(
        w,
        "cpp_method",
        "long",
        decls,
        "",
        init,
        f"{p}r = {p}bag.{p}total();",
        w.print_scalar(f"{p}r", "long"),
    )


# --- hazards -----------------------------------------------------------------------------------


def _recurrence(w: _Writer, shadow: list[str]) -> Snippet:
    p, n, t = w.p, w.n, w.rng.choice(("unsigned", "double"))
    c = "3u" if t == "unsigned" else "0.5"
    decls = f"static {t} {p}a[{n}], {p}b[{n}];"
    fn = f"void {p}run(void) {{\n    for (int i = 1; i < {n}; i++) {p}b[i] = {p}b[i - 1] * {c} + {p}a[i];\n}}"
    init = w.fill(f"{p}a", t, str(n)) + "\n" + w.fill(f"{p}b", t, str(n))
    return _snippet(
        w, "recurrence", t, decls, fn, init, f"{p}run();", w.print_array(f"{p}b", t, str(n))
    )


def _alias_local(w: _Writer, shadow: list[str]) -> Snippet:
    p, n, t = w.p, w.n, w.rng.choice(("unsigned", "double"))
    c = "3u" if t == "unsigned" else "0.5"
    off = w.rng.choice((1, 2))
    decls = f"static {t} {p}a[{n}], {p}b[{n}];"
    fn = (
        f"void {p}run(void) {{\n    {t} *q = {p}b + {off};\n"
        f"    for (int i = 0; i < {n} - {off}; i++) q[i] = {p}b[i] * {c} + {p}a[i];\n}}"
    )
    init = w.fill(f"{p}a", t, str(n)) + "\n" + w.fill(f"{p}b", t, str(n))
    return _snippet(
        w,
        "alias_local",
        f"{t} +{off}",
        decls,
        fn,
        init,
        f"{p}run();",
        w.print_array(f"{p}b", t, str(n)),
    )


def _overlap_call(w: _Writer, shadow: list[str]) -> Snippet:
    p, n, t = w.p, w.n, w.rng.choice(("unsigned", "double"))
    c = "3u" if t == "unsigned" else "0.5"
    decls = f"static {t} {p}b[{n}];"
    fn = (
        f"void {p}step(const {t} *x, {t} *y, int m) {{\n"
        f"    for (int i = 0; i < m; i++) y[i] = x[i] * {c} + 1;\n}}"
    )
    return _snippet(
        w,
        "overlap_call",
        t,
        decls,
        fn,
        w.fill(f"{p}b", t, str(n)),
        f"{p}step({p}b, {p}b + 1, {n} - 1);",
        w.print_array(f"{p}b", t, str(n)),
    )


def _static_state(w: _Writer, shadow: list[str]) -> Snippet:
    p, n = w.p, w.n
    decls = (
        f"static unsigned {p}a[{n}], {p}out[{n}];\n"
        f"static unsigned {p}tick(void) {{\n    static unsigned c = 7;\n    c = c * 3u + 1u;\n    return c;\n}}"
    )
    fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) {p}out[i] = {p}a[i] + {p}tick();\n}}"
    return _snippet(
        w,
        "static_state",
        "counter",
        decls,
        fn,
        w.fill(f"{p}a", "unsigned", str(n)),
        f"{p}run();",
        w.print_array(f"{p}out", "unsigned", str(n)),
    )


def _helper_neighbour(w: _Writer, shadow: list[str]) -> Snippet:
    p, n, t = w.p, w.n, w.rng.choice(("int", "double"))
    off = w.rng.choice(("k + 1", "k - 1"))
    lo, hi = ("0", f"{n} - 1") if off == "k + 1" else ("1", str(n))
    decls = f"static {t} {p}a[{n}], {p}b[{n}];\nstatic {t} {p}next(int k) {{ return {p}b[{off}]; }}"
    fn = f"void {p}run(void) {{\n    for (int i = {lo}; i < {hi}; i++) {p}b[i] = {p}next(i) / 2 + {p}a[i];\n}}"
    init = w.fill(f"{p}a", t, str(n)) + "\n" + w.fill(f"{p}b", t, str(n))
    return _snippet(
        w,
        "helper_neighbour",
        f"{t} {off}",
        decls,
        fn,
        init,
        f"{p}run();",
        w.print_array(f"{p}b", t, str(n)),
    )


def _shadow_library(w: _Writer, shadow: list[str]) -> Snippet:
    p, n = w.p, w.n
    name = shadow.pop(0) if shadow else f"{p}max"
    decls = (
        f"static int {p}a[{n}], {p}out[{n}]; static unsigned {p}calls;\n"
        f"static int {name}(int x, int y) {{\n    {p}calls = {p}calls * 31u + (unsigned)x;\n"
        f"    return x > y ? x : y;\n}}"
    )
    fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) {p}out[i] = {name}({p}a[i], 3);\n}}"
    prints = (
        w.print_array(f"{p}out", "int", str(n)) + "\n" + w.print_scalar(f"{p}calls", "unsigned")
    )
    return _snippet(
        w, "shadow_library", name, decls, fn, w.fill(f"{p}a", "int", str(n)), f"{p}run();", prints
    )


def _global_write(w: _Writer, shadow: list[str]) -> Snippet:
    p, n = w.p, w.n
    decls = f"static int {p}a[{n}], {p}out[{n}]; static int {p}g;"
    if w.rng.random() < 0.5:
        body = f"if ({p}a[i] > 5) {p}g = i;"
        detail = "last match"
    else:
        body = f"{{ {p}out[i] = {p}g + {p}a[i]; {p}g = {p}a[i] * 2 + i; }}"
        detail = "read before write"
    fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) {body}\n}}"
    prints = w.print_array(f"{p}out", "int", str(n)) + "\n" + w.print_scalar(f"{p}g", "int")
    return _snippet(
        w, "global_write", detail, decls, fn, w.fill(f"{p}a", "int", str(n)), f"{p}run();", prints
    )


def _flat_out_of_row(w: _Writer, shadow: list[str]) -> Snippet:
    p, (r, c) = w.p, _rows(w)
    reach = w.rng.choice(("2 * m", "m + 1"))
    decls = f"static unsigned {p}b[({r} + 1) * {c} + 1];"
    fn = (
        f"void {p}run(int n, int m) {{\n    for (int i = 0; i < n; i++)\n"
        f"        for (int j = 0; j < {reach}; j++)\n            {p}b[i * m + j] = {p}b[i * m + j] * 3u + 1u;\n}}"
    )
    size = f"({r} + 1) * {c} + 1"
    return _snippet(
        w,
        "flat_out_of_row",
        f"j < {reach}",
        decls,
        fn,
        w.fill(f"{p}b", "unsigned", size),
        f"{p}run({r}, {c});",
        w.print_array(f"{p}b", "unsigned", size),
    )


def _cpp_member_state(w: _Writer, shadow: list[str]) -> Snippet:
    p, n = w.p, w.n
    decls = (
        f"struct {p}Counter {{\n    unsigned c = 1;\n    unsigned next() {{ c = c * 5u + 3u; return c; }}\n}};\n"
        f"static std::vector<unsigned> {p}out({n}); static {p}Counter {p}ctr;"
    )
    fn = (
        f"void {p}run(std::vector<unsigned>& out, {p}Counter& k) {{\n"
        f"    for (std::size_t i = 0; i < out.size(); ++i) out[i] = k.next() + (unsigned)i;\n}}"
    )
    return _snippet(
        w,
        "cpp_member_state",
        "method",
        decls,
        fn,
        "",
        f"{p}run({p}out, {p}ctr);",
        w.print_array(f"{p}out", "unsigned", str(n)),
    )


# --- harder parallel shapes ---------------------------------------------------------------------


def _helper_own(w: _Writer, shadow: list[str]) -> Snippet:
    """A pure helper reading its pointer parameter at its index argument."""
    p, n, t = w.p, w.n, w.rng.choice(("int", "double"))
    decls = (
        f"static {t} {p}a[{n}], {p}b[{n}], {p}out[{n}];\n"
        f"static {t} {p}f(const {t} *x, int k) {{ return x[k] * 3 + k % 5; }}"
    )
    init = w.fill(f"{p}a", t, str(n)) + "\n" + w.fill(f"{p}b", t, str(n))
    if w.rng.random() < 0.5:  # through pointer parameters the call site keeps apart
        fn = (
            f"void {p}run({t} *y, const {t} *x, int m) {{\n"
            f"    for (int i = 0; i < m; i++) y[i] = {p}f(x, i) + {p}b[i];\n}}"
        )
        call, detail = f"{p}run({p}out, {p}a, {n});", f"{t} through parameters"
    else:
        fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) {p}out[i] = {p}f({p}a, i) + {p}b[i];\n}}"
        call, detail = f"{p}run();", t
    return _snippet(
        w, "helper_own", detail, decls, fn, init, call, w.print_array(f"{p}out", t, str(n))
    )


def _helper_set(w: _Writer, shadow: list[str]) -> Snippet:
    """A helper writing through its pointer parameter at its index argument only."""
    p, n, t = w.p, w.n, w.rng.choice(("int", "double"))
    decls = (
        f"static {t} {p}a[{n}], {p}out[{n}];\n"
        f"static void {p}set({t} *y, int k, {t} v) {{ y[k] = v * 2 - k % 3; }}"
    )
    fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) {p}set({p}out, i, {p}a[i]);\n}}"
    return _snippet(
        w,
        "helper_set",
        t,
        decls,
        fn,
        w.fill(f"{p}a", t, str(n)),
        f"{p}run();",
        w.print_array(f"{p}out", t, str(n)),
    )


def _inplace(w: _Writer, shadow: list[str]) -> Snippet:
    p, n, t = w.p, w.n, w.rng.choice(("unsigned", "double"))
    c = "3u" if t == "unsigned" else "0.5"
    decls = f"static {t} {p}b[{n}];"
    fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) {p}b[i] = {p}b[i] * {c} + 1;\n}}"
    return _snippet(
        w,
        "inplace",
        t,
        decls,
        fn,
        w.fill(f"{p}b", t, str(n)),
        f"{p}run();",
        w.print_array(f"{p}b", t, str(n)),
    )


def _strided(w: _Writer, shadow: list[str]) -> Snippet:
    """Two writes per iteration, told apart by a stride of two (or a reversed index)."""
    p, n, t = w.p, w.n, w.rng.choice(("int", "long"))
    if w.rng.random() < 0.5:
        decls = f"static {t} {p}a[{n}], {p}out[2 * {n}];"
        body = f"{{ {p}out[2 * i] = {p}a[i]; {p}out[2 * i + 1] = -{p}a[i] + i % 3; }}"
        size, detail = f"2 * {n}", "2i, 2i+1"
    else:
        decls = f"static {t} {p}a[{n}], {p}out[{n}];"
        body = f"{p}out[{n} - 1 - i] = {p}a[i] * 2;"
        size, detail = str(n), "n-1-i"
    fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) {body}\n}}"
    return _snippet(
        w,
        "strided",
        detail,
        decls,
        fn,
        w.fill(f"{p}a", t, str(n)),
        f"{p}run();",
        w.print_array(f"{p}out", t, size),
    )


def _halves(w: _Writer, shadow: list[str]) -> Snippet:
    """A butterfly: `y[s + k]` and `y[s + k + h]` for `0 <= k < h`, both read and written, the
    terms in either order (iterations meet only `h` apart, and none are)."""
    p, n, t = w.p, w.n, w.rng.choice(("int", "long", "double"))
    half = w.rng.choice((f"{n} / 2", f"{n} / 4", f"({n} - 5) / 2"))
    start = w.rng.choice(("0", "3", "s"))
    at = "k" if start == "0" else f"{start} + k"
    other = w.rng.choice((f"{at} + h", f"h + {at}"))
    decls = f"static {t} {p}y[{n} + 8];"  # room for the start past 0
    fn = (
        f"void {p}run(int s) {{\n    const int h = {half};\n    (void)s;\n"
        f"    for (int k = 0; k < h; k++) {{\n"
        f"        {t} u = {p}y[{at}], v = {p}y[{other}] * 3;\n"
        f"        {p}y[{at}] = u + v;\n        {p}y[{other}] = u - v;\n    }}\n}}"
    )
    return _snippet(
        w,
        "halves",
        f"{t} h={half} at={other}",
        decls,
        fn,
        w.fill(f"{p}y", t, f"{n} + 8"),
        f"{p}run(3);",
        w.print_array(f"{p}y", t, f"{n} + 8"),
    )


def _local_temps(w: _Writer, shadow: list[str]) -> Snippet:
    """Locals declared in the body, a branch, and a write into a second array offset by one."""
    p, n, t = w.p, w.n, w.rng.choice(("int", "double"))
    decls = f"static {t} {p}a[{n}], {p}b[{n}], {p}out[{n}], {p}sh[{n} + 1];"
    fn = (
        f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) {{\n"
        f"        {t} x = {p}a[i] * 2;\n        {t} y = x + {p}b[i];\n"
        f"        if (x > 0) {p}out[i] = x * y; else {p}out[i] = y - x;\n"
        f"        {p}sh[i + 1] = y;\n    }}\n}}"
    )
    init = w.fill(f"{p}a", t, str(n)) + "\n" + w.fill(f"{p}b", t, str(n))
    prints = w.print_array(f"{p}out", t, str(n)) + "\n" + w.print_array(f"{p}sh", t, f"{n} + 1")
    return _snippet(w, "local_temps", t, decls, fn, init, f"{p}run();", prints)


def _row_reduce(w: _Writer, shadow: list[str]) -> Snippet:
    """Row sums of a flattened matrix, or a count of matching elements."""
    p, (r, c) = w.p, _rows(w)
    if w.rng.random() < 0.5:
        t = w.rng.choice(("long", "double"))
        decls = f"static {t} {p}m[{r} * {c}], {p}rs[{r}];"
        fn = (
            f"void {p}run(int n, int m) {{\n    for (int i = 0; i < n; i++) {{\n        {t} s = 0;\n"
            f"        for (int j = 0; j < m; j++) s += {p}m[i * m + j];\n        {p}rs[i] = s;\n    }}\n}}"
        )
        return _snippet(
            w,
            "row_reduce",
            f"rows {t}",
            decls,
            fn,
            w.fill(f"{p}m", t, f"{r} * {c}"),
            f"{p}run({r}, {c});",
            w.print_array(f"{p}rs", t, str(r)),
        )
    k = w.rng.randrange(0, 20)
    decls = f"static int {p}m[{r} * {c}]; static int {p}r;"
    fn = (
        f"void {p}run(int total) {{\n    int cnt = 0;\n"
        f"    for (int i = 0; i < total; i++) if ({p}m[i] > {k}) cnt++;\n    {p}r = cnt;\n}}"
    )
    return _snippet(
        w,
        "row_reduce",
        "count",
        decls,
        fn,
        w.fill(f"{p}m", "int", f"{r} * {c}"),
        f"{p}run({r} * {c});",
        w.print_scalar(f"{p}r", "int"),
    )


def _disjoint_call(w: _Writer, shadow: list[str]) -> Snippet:
    """Pointer parameters that the only call site passes distinct arrays for."""
    p, n, t = w.p, w.n, w.rng.choice(("unsigned", "double"))
    c = "3u" if t == "unsigned" else "0.5"
    decls = f"static {t} {p}a[{n}], {p}b[{n}];"
    fn = (
        f"void {p}step(const {t} *x, {t} *y, int m) {{\n"
        f"    for (int i = 0; i < m; i++) y[i] = x[i] * {c} + 1;\n}}"
    )
    return _snippet(
        w,
        "disjoint_call",
        t,
        decls,
        fn,
        w.fill(f"{p}a", t, str(n)),
        f"{p}step({p}a, {p}b, {n});",
        w.print_array(f"{p}b", t, str(n)),
    )


# --- harder hazards ----------------------------------------------------------------------------


def _helper_param_write(w: _Writer, shadow: list[str]) -> Snippet:
    """A helper writing its pointer parameter one past the index it is given."""
    p, n = w.p, w.n
    decls = (
        f"static unsigned {p}b[{n}];\n"
        f"static void {p}push(unsigned *v, int k) {{ v[k + 1] = v[k] * 3u + 1u; }}"
    )
    fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n} - 1; i++) {p}push({p}b, i);\n}}"
    return _snippet(
        w,
        "helper_param_write",
        "k+1",
        decls,
        fn,
        w.fill(f"{p}b", "unsigned", str(n)),
        f"{p}run();",
        w.print_array(f"{p}b", "unsigned", str(n)),
    )


def _deref_write(w: _Writer, shadow: list[str]) -> Snippet:
    """Writes through `*` rather than `[]`: pointer arithmetic reaching the next element, or a
    cursor that moves with the data."""
    p, n = w.p, w.n
    decls = f"static unsigned {p}a[{n}], {p}b[{n} + 1];"
    if w.rng.random() < 0.5:
        body = f"*({p}b + i + 1) = *({p}b + i) * 3u + {p}a[i];"
        fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) {body}\n}}"
        detail = "*(b+i+1)"
    else:
        fn = (
            f"void {p}run(void) {{\n    unsigned *q = {p}b;\n"
            f"    for (int i = 0; i < {n}; i++) {{ *q = *q * 3u + {p}a[i]; q += {p}a[i] & 1u; }}\n}}"
        )
        detail = "cursor"
    init = w.fill(f"{p}a", "unsigned", str(n)) + "\n" + w.fill(f"{p}b", "unsigned", f"{n} + 1")
    return _snippet(
        w,
        "deref_write",
        detail,
        decls,
        fn,
        init,
        f"{p}run();",
        w.print_array(f"{p}b", "unsigned", f"{n} + 1"),
    )


def _ref_element(w: _Writer, shadow: list[str]) -> Snippet:
    """A scalar parameter that the call site points at an element the loop writes."""
    p, n = w.p, w.n
    decls = f"static unsigned {p}b[{n}];"
    fn = (
        f"void {p}run(unsigned *v, const unsigned *s, int m) {{\n"
        f"    for (int i = 0; i < m; i++) v[i] = v[i] * 3u + *s;\n}}"
    )
    return _snippet(
        w,
        "ref_element",
        "pointer",
        decls,
        fn,
        w.fill(f"{p}b", "unsigned", str(n)),
        f"{p}run({p}b, &{p}b[{n} / 4], {n});",
        w.print_array(f"{p}b", "unsigned", str(n)),
    )


def _cpp_ref_element(w: _Writer, shadow: list[str]) -> Snippet:
    """The C++ form: a `const unsigned&` bound to an element of the vector the loop writes, as
    a parameter or as the element a range-based loop around it takes by reference."""
    p, n = w.p, w.n
    how = w.rng.choice(("reference", "ranged"))
    decls = f"static std::vector<unsigned> {p}v({n});"
    if how == "reference":
        fn = (
            f"void {p}run(std::vector<unsigned>& v, const unsigned& s) {{\n"
            f"    for (std::size_t i = 0; i < v.size(); ++i) v[i] = v[i] * 3u + s;\n}}"
        )
        call = f"{p}run({p}v, {p}v[{n} / 4]);"
    else:
        fn = (
            f"void {p}run(std::vector<unsigned>& v) {{\n"
            "    for (const unsigned& s : v) {\n"
            "        for (std::size_t i = 0; i < v.size(); ++i) v[i] = v[i] * 3u + s;\n"
            "        break;\n    }\n}"
        )
        call = f"{p}run({p}v);"
    return _snippet(
        w,
        "cpp_ref_element",
        how,
        decls,
        fn,
        w.fill(f"{p}v", "unsigned", str(n)),
        call,
        w.print_array(f"{p}v", "unsigned", str(n)),
    )


def _static_cursor(w: _Writer, shadow: list[str]) -> Snippet:
    """A helper handing out the next slot of an array through a static counter."""
    p, n = w.p, w.n
    decls = (
        f"static unsigned {p}a[{n}], {p}out[{n}];\n"
        f"static unsigned *{p}slot(void) {{\n    static int c = 0;\n    return &{p}out[c++];\n}}"
    )
    fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) *{p}slot() = {p}a[i] * 3u + (unsigned)i;\n}}"
    return _snippet(
        w,
        "static_cursor",
        "slot",
        decls,
        fn,
        w.fill(f"{p}a", "unsigned", str(n)),
        f"{p}run();",
        w.print_array(f"{p}out", "unsigned", str(n)),
    )


def _global_pointer(w: _Writer, shadow: list[str]) -> Snippet:
    """A file-scope pointer to the written array, read at the next index inside a helper."""
    p, n = w.p, w.n
    decls = (
        f"static unsigned {p}a[{n}], {p}b[{n} + 1];\nstatic unsigned *{p}gp = {p}b;\n"
        f"static unsigned {p}peek(int k) {{ return {p}gp[k + 1]; }}"
    )
    fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) {p}b[i] = {p}peek(i) / 2u + {p}a[i];\n}}"
    init = w.fill(f"{p}a", "unsigned", str(n)) + "\n" + w.fill(f"{p}b", "unsigned", f"{n} + 1")
    return _snippet(
        w,
        "global_pointer",
        "gp[k+1]",
        decls,
        fn,
        init,
        f"{p}run();",
        w.print_array(f"{p}b", "unsigned", f"{n} + 1"),
    )


def _struct_alias(w: _Writer, shadow: list[str]) -> Snippet:
    """Two pointer fields of one struct that point one element apart."""
    p, n = w.p, w.n
    decls = f"struct {p}View {{ unsigned *src; unsigned *dst; }};\nstatic unsigned {p}b[{n} + 1];"
    fn = (
        f"void {p}run(struct {p}View v, int m) {{\n"
        f"    for (int i = 0; i < m; i++) v.dst[i] = v.src[i] * 3u + 1u;\n}}"
    )
    call = f"{{ struct {p}View v = {{ {p}b, {p}b + 1 }}; {p}run(v, {n}); }}"
    return _snippet(
        w,
        "struct_alias",
        "src, src+1",
        decls,
        fn,
        w.fill(f"{p}b", "unsigned", f"{n} + 1"),
        call,
        w.print_array(f"{p}b", "unsigned", f"{n} + 1"),
    )


def _scatter(w: _Writer, shadow: list[str]) -> Snippet:
    """Writes through an index array with repeats: the last writer wins, so order matters."""
    p, n = w.p, w.n
    k = w.rng.choice((3, 7, 10))
    decls = f"static int {p}idx[{n}]; static unsigned {p}a[{n}], {p}out[{n}];"
    init = f"for (int i = 0; i < {n}; i++) {p}idx[i] = (i * {k}) % ({n} / {k});\n" + w.fill(
        f"{p}a", "unsigned", str(n)
    )
    fn = f"void {p}run(void) {{\n    for (int i = 0; i < {n}; i++) {p}out[{p}idx[i]] = {p}a[i] + (unsigned)i;\n}}"
    return _snippet(
        w,
        "scatter",
        f"repeats /{k}",
        decls,
        fn,
        init,
        f"{p}run();",
        w.print_array(f"{p}out", "unsigned", str(n)),
    )


def _wrap_or_swap(w: _Writer, shadow: list[str]) -> Snippet:
    """A modular index reaching the next element, a conditional recurrence, an anti-dependence,
    swaps of mirrored elements over the whole range, halves that overlap (`b[i + h]` for
    `i <= h`: iteration 0 writes what iteration `h` reads), or near misses of a prefix sum
    in place or one element on (a distance of two, the next element added in place, a
    difference, the previous element as the term too, a term that writes), or of an
    exclusive scan (a step reading what the read stored, or the value before it through a
    local, a read deciding whether the step runs)."""
    p, n = w.p, w.n
    decls = f"static unsigned {p}a[{n}], {p}b[{n}];"
    kind = w.rng.choice(
        (
            "wrap", "conditional", "anti", "swap", "half_past", "far", "next", "minus", "twice",
            "writes", "ex_stored", "ex_local", "ex_skip",
        )
    )  # fmt: skip
    body, lo, hi = {
        "ex_stored": (f"{{ {p}b[i] = s; s += {p}b[i] + {p}a[i]; }}", "0", str(n)),
        "ex_local": (f"{{ unsigned t = s; {p}b[i] = t; s += {p}a[i] + t; }}", "0", str(n)),
        "ex_skip": (f"{{ {p}b[i] = s; if (s & 4u) continue; s += {p}a[i]; }}", "0", str(n)),
        "writes": (f"{p}b[i] = {p}b[i - 1] + ({p}a[i] += 1u);", "1", str(n)),
        "far": (f"{p}b[i + 1] = {p}b[i - 1] + {p}a[i];", "1", f"{n} - 1"),
        "next": (f"{p}b[i] += {p}b[i + 1];", "0", f"{n} - 1"),
        "minus": (f"{p}b[i] -= {p}b[i - 1];", "1", str(n)),
        "twice": (f"{p}b[i + 1] = {p}b[i] + {p}b[i];", "0", f"{n} - 1"),
        "wrap": (f"{p}b[(i + 1) % {n}] = {p}b[i] * 3u + 1u;", "0", str(n)),
        "conditional": (f"if ({p}a[i] & 1u) {p}b[i] = {p}b[i - 1] * 3u + {p}a[i];", "1", str(n)),
        "anti": (f"{p}b[i] = {p}b[i + 1] * 3u + {p}a[i];", "0", f"{n} - 1"),
        "swap": (
            f"{{ unsigned t = {p}b[i]; {p}b[i] = {p}b[{n} - 1 - i] + {p}a[i]; {p}b[{n} - 1 - i] = t; }}",
            "0",
            str(n),
        ),
        "half_past": (f"{p}b[i + {n} / 2 - 1] = {p}b[i] * 3u + {p}a[i];", "0", f"{n} / 2"),
    }[kind]
    running = "unsigned s = 1u;\n    " if kind.startswith("ex_") else ""
    fn = f"void {p}run(void) {{\n    {running}for (int i = {lo}; i < {hi}; i++) {body}\n}}"
    init = w.fill(f"{p}a", "unsigned", str(n)) + "\n" + w.fill(f"{p}b", "unsigned", str(n))
    return _snippet(
        w,
        "wrap_or_swap",
        kind,
        decls,
        fn,
        init,
        f"{p}run();",
        w.print_array(f"{p}b", "unsigned", str(n)),
    )


def _pack_near(w: _Writer, shadow: list[str]) -> Snippet:
    """Near misses of a compaction: packing in place (`b[k++] = b[i]`: an iteration reads what
    another stores), a store every iteration whose counter moves only on some (the last
    store at a count wins), a packed array that is the input one element on, the count read
    by every iteration, a counter that wraps (an `unsigned char`)."""
    p, n = w.p, w.n
    kind = w.rng.choice(("in_place", "every", "aliased", "counted", "narrow"))
    decls = f"static unsigned {p}a[{n}], {p}b[{n}], {p}c[{n}];"
    body = {
        "in_place": f"if ({p}b[i] & 1u) {p}b[k++] = {p}b[i];",
        "every": f"{{ {p}b[k] = {p}a[i]; k += {p}a[i] & 1u; }}",
        "aliased": f"if ({p}a[i] & 1u) q[k++] = {p}b[i] + 1u;",
        "counted": f"{{ if ({p}a[i] & 1u) {p}b[k++] = {p}a[i]; {p}c[i] = (unsigned)k; }}",
        "narrow": f"if ({p}a[i] & 1u) {p}b[k++] = {p}a[i] + (unsigned)i;",
    }[kind]
    alias = f"unsigned *q = {p}b + 1;\n    " if kind == "aliased" else ""
    top = f"{n} - 1" if kind == "aliased" else str(n)
    counter = "unsigned char" if kind == "narrow" else "int"  # wraps at 256: stores collide
    fn = (
        f"void {p}run(void) {{\n    {alias}{counter} k = 0;\n"
        f"    for (int i = 0; i < {top}; i++) {body}\n}}"
    )
    init = w.fill(f"{p}a", "unsigned", str(n)) + "\n" + w.fill(f"{p}b", "unsigned", str(n))
    prints = " ".join(
        (w.print_array(f"{p}b", "unsigned", str(n)), w.print_array(f"{p}c", "unsigned", str(n)))
    )
    return _snippet(w, "pack_near", kind, decls, fn, init, f"{p}run();", prints)


def _skip_last(w: _Writer, shadow: list[str]) -> Snippet:
    """The last index a loop assigns past a `continue` that skips the final iterations: only
    the value of the last iteration that assigned it may be kept (`lastprivate(conditional:)`)."""
    p, n = w.p, w.n
    k = w.rng.choice((2, 3, 5))
    decls = f"static unsigned {p}a[{n}], {p}out[{n}];\nstatic int {p}last;"
    fn = (
        f"int {p}run(void) {{\n    int last = -1;\n    for (int i = 0; i < {n}; i++) {{\n"
        f"        if ({p}a[i] % {k}u == 0u || i >= {n} - 3) continue;\n"
        f"        last = i;\n        {p}out[i] = {p}a[i] / {k}u;\n    }}\n    return last;\n}}"
    )
    return _snippet(
        w,
        "skip_last",
        f"% {k}",
        decls,
        fn,
        w.fill(f"{p}a", "unsigned", str(n)),
        f"{p}last = {p}run();",
        w.print_scalar(f"{p}last", "int") + "\n" + w.print_array(f"{p}out", "unsigned", str(n)),
    )


def _hidden_access(w: _Writer, shadow: list[str]) -> Snippet:
    """The next element reached by a route no subscript of the array spells: an array of
    pointers one element apart, a reversed subscript, a cast, a macro, a pointer to rows of
    two, or a stride that is 0 at run time."""
    p, n = w.p, w.n
    kind = w.rng.choice(("pointer_rows", "reversed", "cast", "macro", "row_view", "zero_stride"))
    decls = f"static unsigned {p}a[{n}], {p}b[{n} + 2];\nstatic int {p}z = 0;"
    loop = f"for (int i = 0; i < {n}; i++)"
    body = {
        "pointer_rows": f"{{\n    unsigned *rows[2] = {{ {p}b, {p}b + 1 }};\n"
        f"    {loop} rows[0][i] = rows[1][i] * 3u + {p}a[i];\n}}",
        "reversed": f"{{\n    {loop} {p}b[i] = (i + 1)[{p}b] * 3u + {p}a[i];\n}}",
        "cast": f"{{\n    {loop} {p}b[i] = ((const unsigned *){p}b)[i + 1] * 3u + {p}a[i];\n}}",
        "macro": f"{{\n    {loop} {p}b[i] = {p}NEXT * 3u + {p}a[i];\n}}",
        "row_view": f"{{\n    unsigned (*v)[2] = (unsigned (*)[2]){p}b;\n"
        f"    for (int i = 0; i < {n} / 2; i++) v[i][0] = {p}b[2 * i + 2] * 3u + {p}a[i];\n}}",
        "zero_stride": f"{{\n    {loop} {p}b[z * i] = {p}b[z * i] * 3u + {p}a[i];\n}}",
    }[kind]
    if kind == "macro":
        decls += f"\n#define {p}NEXT {p}b[i + 1]"
    signature = f"void {p}run(int z)" if kind == "zero_stride" else f"void {p}run(void)"
    init = w.fill(f"{p}a", "unsigned", str(n)) + "\n" + w.fill(f"{p}b", "unsigned", f"{n} + 2")
    return _snippet(
        w,
        "hidden_access",
        kind,
        decls,
        f"{signature} {body}",
        init,
        f"{p}run({p}z);" if kind == "zero_stride" else f"{p}run();",
        w.print_array(f"{p}b", "unsigned", f"{n} + 2"),
    )


def _cpp_packed_alias(w: _Writer, shadow: list[str]) -> Snippet:
    """Bits of a file-scope `std::vector<bool>` behind a `typedef`, a `using` name or a
    member, written from an odd start: neighbouring iterations write the same word."""
    p, n = w.p, w.n
    kind = w.rng.choice(("typedef", "using", "member"))
    alias = {
        "typedef": f"typedef std::vector<bool> {p}Flags;",
        "using": f"using {p}Flags = std::vector<bool>;",
        "member": f"struct {p}Flags {{ std::vector<bool> bits; }};",
    }[kind]
    bits = f"{p}f.bits" if kind == "member" else f"{p}f"
    decls = f"{alias}\nstatic {p}Flags {p}f;\nstatic unsigned {p}a[{n}];\nstatic unsigned long long {p}h;"
    fn = (
        f"void {p}run(void) {{\n"
        f"    for (int i = 1; i < {n}; i++) {bits}[i] = ({p}a[i] & 1u) != 0u;\n}}"
    )
    init = w.fill(f"{p}a", "unsigned", str(n)) + f"\n{bits}.resize({n});"
    prints = (
        f"{p}h = 0; for (int i = 0; i < {n}; i++) {p}h = {p}h * 3u + ({bits}[i] ? 1u : 0u);\n"
        + w.print_scalar(f"{p}h", "unsigned long long")
    )
    return _snippet(w, "cpp_packed_alias", kind, decls, fn, init, f"{p}run();", prints)


def _typed_fold(w: _Writer, shadow: list[str]) -> Snippet:
    """A fold that computes in another type than its variable: a max of `unsigned` values
    into an `int` (C compares in `unsigned`), or an `int` sum of `double` terms (each step
    truncates)."""
    p, n = w.p, w.n
    kind = w.rng.choice(("unsigned_max", "double_into_int"))
    if kind == "unsigned_max":
        decls = f"static unsigned {p}u[{n}];\nstatic int {p}r;"
        init = f"for (int i = 0; i < {n}; i++) {p}u[i] = (i % 7 == 3) ? 4000000000u : (unsigned)i;"
        body = f"int m = 0;\n    for (int i = 0; i < {n}; i++) if ({p}u[i] > m) m = {p}u[i];"
    else:
        decls = f"static double {p}u[{n}];\nstatic int {p}r;"
        init = f"for (int i = 0; i < {n}; i++) {p}u[i] = (i < {n} / 3) ? 1.5 : -0.5;"
        body = f"int m = 0;\n    for (int i = 0; i < {n}; i++) m += {p}u[i];"
    fn = f"int {p}run(void) {{\n    {body}\n    return m;\n}}"
    return _snippet(
        w, "typed_fold", kind, decls, fn, init, f"{p}r = {p}run();", w.print_scalar(f"{p}r", "int")
    )


def _bound_element(w: _Writer, shadow: list[str]) -> Snippet:
    """A loop bound read from an element the body overwrites: the sequential loop reads the
    new value at its next test, a parallel one read the bound once. The element is read by
    subscript (`cnt[0]` or `0[cnt]`), through a dereference (`*cnt`, `*(cnt + 0)`), through a pointer parameter, or
    by a helper that reads the array."""
    p, n = w.p, w.n
    stop = w.rng.choice((50, 97, n // 3))
    how = w.rng.choice(("subscript", "swapped", "deref", "offset", "param", "helper"))
    bound = {
        "subscript": f"{p}cnt[0]",
        "swapped": f"0[{p}cnt]",
        "deref": f"*{p}cnt",
        "offset": f"*({p}cnt + 0)",
        "param": "*np",
        "helper": f"{p}bound()",
    }[how]
    decls = f"static unsigned {p}a[{n}];\nstatic int {p}cnt[{n}];"
    if how == "helper":
        decls += f"\nstatic int {p}bound(void) {{ return {p}cnt[0]; }}"
    init = w.fill(f"{p}a", "unsigned", str(n)) + f"\nfor (int i = 0; i < {n}; i++) {p}cnt[i] = {n};"
    params = "const int *np" if how == "param" else "void"
    fn = (
        f"void {p}run({params}) {{\n    for (int i = 0; i < {bound}; i++) "
        f"{p}cnt[i] = (int)({p}a[i] % {stop}u) + (i == 0 ? {stop} : 0);\n}}"
    )
    return _snippet(
        w,
        "bound_element",
        f"stop {stop} {how}",
        decls,
        fn,
        init,
        f"{p}run({p}cnt);" if how == "param" else f"{p}run();",
        w.print_array(f"{p}cnt", "int", str(n)),
    )


TEMPLATES: dict[str, Callable[[_Writer, list[str]], Snippet]] = {
    "map": _map,
    "stencil": _stencil,
    "reduction": _reduction,
    "scan": _scan,
    "search_break": lambda w, s: _search(w, s, "break"),
    "search_return": lambda w, s: _search(w, s, "return"),
    "histogram": _histogram,
    "argmin": _argmin,
    "nested_rect": _nested_rect,
    "nested_tri": _nested_tri,
    "flat_in_row": _flat_in_row,
    "cpp_vector": _cpp_vector,
    "cpp_method": _cpp_method,
    "recurrence": _recurrence,
    "alias_local": _alias_local,
    "overlap_call": _overlap_call,
    "static_state": _static_state,
    "helper_neighbour": _helper_neighbour,
    "shadow_library": _shadow_library,
    "global_write": _global_write,
    "flat_out_of_row": _flat_out_of_row,
    "flat_by_column": _flat_by_column,
    "flat_column_past": _flat_column_past,
    "cpp_member_state": _cpp_member_state,
    "helper_own": _helper_own,
    "helper_set": _helper_set,
    "inplace": _inplace,
    "strided": _strided,
    "local_temps": _local_temps,
    "row_reduce": _row_reduce,
    "disjoint_call": _disjoint_call,
    "helper_param_write": _helper_param_write,
    "deref_write": _deref_write,
    "ref_element": _ref_element,
    "cpp_ref_element": _cpp_ref_element,
    "static_cursor": _static_cursor,
    "global_pointer": _global_pointer,
    "struct_alias": _struct_alias,
    "scatter": _scatter,
    "wrap_or_swap": _wrap_or_swap,
    "skip_last": _skip_last,
    "hidden_access": _hidden_access,
    "cpp_packed_alias": _cpp_packed_alias,
    "typed_fold": _typed_fold,
    "bound_element": _bound_element,
    "flat_local": _flat_local,
    "halves": _halves,
    "local_index": _local_index,
    "pack": _pack,
    "pack_near": _pack_near,
}


def generate(
    seed: int, index: int, snippets: int = 4, hazard_share: float = 0.4
) -> GeneratedProgram:
    """The `index`-th program of the stream `seed`: the same arguments give the same program.

    About one program in four is C++ (and may use the C++-only shapes); `hazard_share` of the
    snippets are hazards."""
    rng = random.Random(f"{seed}:{index}")
    language = Language.CPP if rng.random() < 0.25 else Language.C
    allowed = [k for k in TEMPLATES if language is Language.CPP or k not in CPP_ONLY]
    shapes = [k for k in allowed if k in SHAPES]
    hazards = [k for k in allowed if k in HAZARDS]
    shadow = list(SHADOW_NAMES)
    rng.shuffle(shadow)
    # Real C code often includes <stdbool.h>; a rewrite that writes `bool` or `auto` into C
    # then compiles, so half the programs include it to test what such a rewrite means in C.
    stdbool = rng.random() < 0.5
    made = []
    for k in range(snippets):
        klass = rng.choice(hazards if rng.random() < hazard_share else shapes)
        made.append(TEMPLATES[klass](_Writer(rng, f"s{k}_"), shadow))
    return GeneratedProgram(seed, index, language, render(language, made, stdbool), tuple(made))


def render(language: Language, snippets: list[Snippet], stdbool: bool = False) -> str:
    """The program's source: includes, each snippet's globals and function, then `main`."""
    head = ["#include <stdio.h>", "#include <math.h>"]
    if stdbool and language is Language.C:
        head.append("#include <stdbool.h>")
    if language is Language.CPP:
        head += ["#include <cstddef>", "#include <vector>"]
    parts = ["\n".join(head)]
    for s in snippets:
        parts.append(s.decls + ("\n" + s.function if s.function else ""))
    body = []
    for s in snippets:
        body += [s.init, s.call, s.prints]
    main = (
        "int main(void) {\n"
        + "\n".join(f"    {line}" for b in body for line in b.split("\n") if line)
        + "\n    return 0;\n}"
    )
    return "\n\n".join([*parts, main]) + "\n"
