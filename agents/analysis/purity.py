"""Which calls a loop may make and still have independent iterations."""

from __future__ import annotations

# C's math.h and C++'s <cmath>/<algorithm>/<complex> functions without side effects, and casts.
_MATH = frozenset(
    [
        "abs",
        "labs",
        "llabs",
        "fabs",
        "fabsf",
        "fabsl",
        "sqrt",
        "sqrtf",
        "sqrtl",
        "cbrt",
        "cbrtf",
        "exp",
        "expf",
        "exp2",
        "exp2f",
        "expm1",
        "log",
        "logf",
        "log2",
        "log2f",
        "log10",
        "log10f",
        "log1p",
        "pow",
        "powf",
        "sin",
        "sinf",
        "cos",
        "cosf",
        "tan",
        "tanf",
        "asin",
        "acos",
        "atan",
        "atan2",
        "atan2f",
        "sinh",
        "cosh",
        "tanh",
        "asinh",
        "acosh",
        "atanh",
        "floor",
        "floorf",
        "ceil",
        "ceilf",
        "round",
        "roundf",
        "lround",
        "trunc",
        "truncf",
        "fmod",
        "fmodf",
        "remainder",
        "clamp",
        "fmin",
        "fminf",
        "fmax",
        "fmaxf",
        "fma",
        "hypot",
        "hypotf",
        "erf",
        "erfc",
        "tgamma",
        "copysign",
        "isnan",
        "isinf",
        "isfinite",
        "signbit",
        "min",
        "max",
        "norm",
        "conj",
        "real",
        "imag",
        "arg",
        "polar",
        "strlen",
        "strcmp",
        "strncmp",
        "memcmp",
        "toupper",
        "tolower",
        "isdigit",
        "isalpha",
        "isspace",
        "isupper",
        "islower",
        "static_cast",
        "const_cast",
        "reinterpret_cast",
        "int",
        "long",
        "float",
        "double",
        "char",
        "unsigned",
        "bool",
        "size_t",
        # <complex>'s value type, constructed (`std::complex<double>(0, t)`).
        "complex",
        # <iterator>/<algorithm> searches that only read their ranges (a comparator, if one
        # is passed, must be a strict weak ordering, which the standard requires to be pure).
        "distance",
        "lower_bound",
        "upper_bound",
        "binary_search",
        "equal_range",
    ]
)
# Member functions that only read their object (`x.size()`): named by the member alone.
_READ_ONLY_METHODS = frozenset(
    [
        "size",
        "length",
        "empty",
        "at",
        "front",
        "back",
        "begin",
        "end",
        "cbegin",
        "cend",
        "rbegin",
        "rend",
        "data",
        "real",
        "imag",
        "count",
        "find",
        "contains",
        "first",
        "second",
        "c_str",
    ]
)


def is_pure(
    call: str,
    user_pure: set[str] | frozenset[str] = frozenset(),
    user_defined: set[str] | frozenset[str] = frozenset(),
) -> bool:
    """Whether a call (as the analysis names it: `sqrt`, `std::max`, `size` for `x.size()`) has no
    side effects; `user_pure` names the program's own functions found pure, `user_defined` all
    the names the program defines a function or method under. A library name is trusted only
    when the program does not define it itself: its own `max` or `count` is pure only when it
    was found pure (a call spelled `std::` is the library's)."""
    if call in user_pure:
        return True
    name = call.removeprefix("std::").split("<", 1)[0].strip()
    if not call.startswith("std::") and (call in user_defined or name in user_defined):
        return False
    return name in _MATH or name in _READ_ONLY_METHODS


def defined_names(names: set[str] | frozenset[str]) -> frozenset[str]:
    """The names calls may reach the program's own functions by: each as defined and, for a
    method defined outside its class (`Counter::count`), its last part."""
    return frozenset(names | {n.rsplit("::", 1)[-1] for n in names})
