"""Is a candidate's output the reference's output? Exactly, or within a numeric tolerance."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from sandbox.spec import Tolerance

_NUMBER = re.compile(
    r"^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|nan|inf|infinity)$", re.I
)
_SHOWN = 60


@dataclass(frozen=True)
class Comparison:
    """The answer, and where the first difference is when there is one."""

    ok: bool
    reason: str = ""


def normalize(text: str) -> list[str]:
    """Lines with trailing white space removed, trailing empty lines dropped."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def compare_outputs(expected: str, actual: str, tolerance: Tolerance | None = None) -> Comparison:
    """Compare line by line; with a tolerance, numeric tokens may differ within it.

    A number matches when |actual - expected| <= atol + rtol * |expected|; NaN matches NaN and
    infinities match infinities of the same sign. Every other token must be equal.
    """
    want, got = normalize(expected), normalize(actual)
    for n, (w, g) in enumerate(zip(want, got, strict=False), start=1):
        if w == g:
            continue
        if tolerance is None:
            return Comparison(False, f"line {n}: expected {_show(w)}, got {_show(g)}")
        reason = _compare_tokens(w.split(), g.split(), tolerance)
        if reason:
            return Comparison(False, f"line {n}: {reason}")
    if len(want) != len(got):
        return Comparison(False, f"expected {len(want)} lines of output, got {len(got)}")
    return Comparison(True)


def _compare_tokens(want: list[str], got: list[str], tol: Tolerance) -> str:
    if len(want) != len(got):
        return f"expected {len(want)} fields, got {len(got)}"
    for w, g in zip(want, got, strict=True):
        if w == g:
            continue
        if not (_NUMBER.match(w) and _NUMBER.match(g)):
            return f"expected {_show(w)}, got {_show(g)}"
        a, b = float(g), float(w)
        if math.isnan(a) or math.isnan(b):
            if math.isnan(a) and math.isnan(b):
                continue
            return f"expected {w}, got {g}"
        if math.isinf(a) or math.isinf(b):
            if a == b:
                continue
            return f"expected {w}, got {g}"
        diff = abs(a - b)
        if diff > tol.atol + tol.rtol * abs(b):
            rel = diff / abs(b) if b else math.inf
            return f"expected {w}, got {g} (relative error {rel:.3g} > rtol {tol.rtol:g})"
    return ""


def _show(text: str) -> str:
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "...")
