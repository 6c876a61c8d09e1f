"""Compare a parallel run's output with the sequential one, line by line (pure).

Integer state is printed as hashes and compared exactly. Floating state is compared within a
relative tolerance `RTOL` (plus `ATOL` near zero): a parallel reduction may reassociate a sum,
which moves a double result by a few ulps, far below 1e-6, while a real ordering bug (a value
read before or after its neighbour was written) moves it by much more.
"""

from __future__ import annotations

import math

RTOL = 1e-6
ATOL = 1e-9


def _close(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return math.isclose(x, y, rel_tol=RTOL, abs_tol=ATOL)


def _by_name(output: str) -> dict[str, tuple[str, list[str]]]:
    lines: dict[str, tuple[str, list[str]]] = {}
    for line in output.splitlines():
        words = line.split()
        if len(words) >= 2:
            lines[words[0]] = (words[1], words[2:])
    return lines


def compare_outputs(expected: str, actual: str) -> set[str]:
    """The names of the printed variables whose values differ (a missing line differs too)."""
    want, got = _by_name(expected), _by_name(actual)
    differing = set()
    for name, (kind, values) in want.items():
        seen = got.get(name)
        if seen is None or seen[0] != kind or len(seen[1]) != len(values):
            differing.add(name)
        elif kind == "i":
            if seen[1] != values:
                differing.add(name)
        elif not all(_close(a, b) for a, b in zip(values, seen[1], strict=True)):
            differing.add(name)
    return differing


def snippet_of(name: str) -> str:
    """The snippet prefix (`s3_`) of a printed variable's name."""
    return name.split("_", 1)[0] + "_"
