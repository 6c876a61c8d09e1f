"""Hidden inputs: tests drawn afresh for every verification, from a seed the verdict records.

A candidate sees the spec's tests (its author, a model, may have been shown them), so agreeing
with the reference on them proves little against a program that prints the answers it was
shown. Every verification therefore adds inputs nobody could know in advance: drawn from the
spec's declared generator (`Spec.hidden`), else derived from the shapes of its visible tests:

- each argument position where every test has an integer is drawn in the range those integers
  span (odd values preferred: sizes that do not divide evenly), when they differ between
  tests; an argument that is the same in every test keeps its value; any other argument takes
  one of the values the tests use;
- a stdin is kept only when every test has the same one (a program whose input changes with
  its stdin needs a declared generator program).

Nothing is derivable from a single test, or from tests whose arguments never change: then the
verification says that it had no hidden input. A derived input the reference fails on is
dropped (derivation guesses; the reference decides what is valid). The expected outputs come
from the reference, run in the same workspace, and never leave the host; the verdict redacts
hidden inputs from its steps and reasons, so nothing downstream (repair prompts, evolution's
feedback, exports) shows one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from sandbox.spec import ArgSpec, HiddenInputs, Spec, TestCase

PREFIX = "hidden-"
"""Name prefix of hidden tests (and of the hidden timing input)."""
TIMING_NAME = f"{PREFIX}timing"
_SEED_RANGE = (1, 2**31 - 1)


@dataclass(frozen=True)
class Drawn:
    """The hidden inputs of one verification."""

    tests: list[TestCase] = field(default_factory=list)
    timing: TestCase | None = None
    """A hidden timing input (None: the spec's visible one is timed)."""
    derived: bool = False
    """Derived from the tests' shapes rather than declared by the spec."""
    program_seeds: list[int] = field(default_factory=list)
    """With a declared generator program: the seed it is run with for each test (its stdout
    becomes that test's stdin)."""
    note: str = ""
    """Why there are none, when there are none."""


def is_hidden(name: str) -> bool:
    return name.startswith(PREFIX)


def draw(spec: Spec, seed: int, count: int | None = None) -> Drawn:
    """The hidden inputs for `seed` (the same seed gives the same inputs)."""
    rng = random.Random(seed)
    declared = spec.hidden
    if declared is not None:
        return _declared(declared, rng, count)
    n = 2 if count is None else count
    visible = spec.race_cases  # the timing input aside: keeps hidden runs as cheap as tests
    shapes = _derive(visible)
    if shapes is None:
        return Drawn(
            derived=True,
            note="no hidden input: the tests' arguments never change (declare `hidden` in the spec)",
        )
    tests = []
    for k in range(n):
        args = [_draw_arg(a, rng) for a in shapes.args]
        tests.append(TestCase(name=f"{PREFIX}{k + 1}", args=args, stdin=shapes.stdin))
    return Drawn(tests=tests, derived=True)


def _declared(hidden: HiddenInputs, rng: random.Random, count: int | None) -> Drawn:
    n = hidden.count if count is None else count
    tests = [
        TestCase(name=f"{PREFIX}{k + 1}", args=[_draw_arg(a, rng) for a in hidden.args])
        for k in range(n)
    ]
    timing = None
    if hidden.timing is not None:
        timing = TestCase(name=TIMING_NAME, args=[_draw_arg(a, rng) for a in hidden.timing])
    seeds = [rng.randint(*_SEED_RANGE) for _ in tests] if hidden.program else []
    return Drawn(tests=tests, timing=timing, program_seeds=seeds)


@dataclass(frozen=True)
class _Shapes:
    args: list[ArgSpec]
    stdin: str


def _derive(tests: list[TestCase]) -> _Shapes | None:
    if len(tests) < 2 or len({len(t.args) for t in tests}) != 1:
        return None
    if len({t.stdin for t in tests}) != 1:
        return None
    args: list[ArgSpec] = []
    varies = False
    for position in zip(*(t.args for t in tests), strict=True):
        values = list(dict.fromkeys(position))
        if len(values) == 1:
            args.append(ArgSpec(value=values[0]))
            continue
        varies = True
        numbers = [_int(v) for v in values]
        if all(n is not None for n in numbers):
            ints = [n for n in numbers if n is not None]
            args.append(ArgSpec(int_range=(min(ints), max(ints))))
        else:
            args.append(ArgSpec(choice=values))
    if not varies:
        return None
    return _Shapes(args=args, stdin=tests[0].stdin)


def _draw_arg(arg: ArgSpec, rng: random.Random) -> str:
    if arg.seed:
        return str(rng.randint(*_SEED_RANGE))
    if arg.int_range is not None:
        lo, hi = arg.int_range
        value = rng.randint(lo, hi)
        if value % 2 == 0 and value + 1 <= hi:
            value += 1  # odd sizes: the ones that do not split evenly between workers
        return str(value)
    if arg.choice is not None:
        return rng.choice(arg.choice)
    assert arg.value is not None
    return arg.value


def _int(text: str) -> int | None:
    try:
        return int(text, 10)
    except ValueError:
        return None
