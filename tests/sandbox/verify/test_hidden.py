"""Hidden inputs (`sandbox.verify.hidden`): declared or derived, reproducible from their seed."""

from __future__ import annotations

import pytest

from sandbox.spec import ArgSpec, HiddenInputs, Spec, TestCase
from sandbox.verify.hidden import TIMING_NAME, draw, is_hidden


def spec(*tests: TestCase, **more: object) -> Spec:
    return Spec.model_validate({"reference": "int main() {}", "tests": list(tests), **more})


def case(name: str, *args: str, stdin: str = "") -> TestCase:
    return TestCase(name=name, args=list(args), stdin=stdin)


def test_derived_from_the_tests_shapes_within_their_ranges_and_reproducible():
    s = spec(
        case("a", "32", "10", "fast"),
        case("b", "200", "40", "fast"),
        case("c", "1000", "100", "slow"),
        timing=case("t", "5000", "500", "fast"),
    )
    drawn = draw(s, seed=7, count=20)
    assert drawn.derived and len(drawn.tests) == 20 and drawn.timing is None
    for test in drawn.tests:
        assert is_hidden(test.name)
        n, steps, mode = test.args
        assert 32 <= int(n) <= 1000 and 10 <= int(steps) <= 100 and mode in ("fast", "slow")
    assert sum(int(t.args[0]) % 2 for t in drawn.tests) >= 15  # odd sizes preferred
    assert draw(s, seed=7, count=20) == drawn
    assert draw(s, seed=8, count=20) != drawn


def test_an_argument_that_never_changes_keeps_its_value():
    drawn = draw(spec(case("a", "7", "x"), case("b", "9", "x")), seed=1)
    assert all(t.args[1] == "x" and t.args[0] in ("7", "9") for t in drawn.tests)


@pytest.mark.parametrize(
    "tests",
    [
        [case("a", "10")],  # one test: no shape to draw from
        [case("a", "10"), case("b", "10")],  # nothing changes
        [case("a", "1", stdin="1 2"), case("b", "2", stdin="3 4")],  # the input is on stdin
        [case("a", "1"), case("b", "1", "2")],  # different shapes
    ],
)
def test_nothing_is_derived_where_the_tests_give_no_shape(tests):
    s = spec(*tests, timing=case("t", "100"))
    drawn = draw(s, seed=3)
    assert drawn.tests == [] and "no hidden input" in drawn.note


def test_declared_generators_draw_seeds_ranges_choices_and_a_hidden_timing_input():
    hidden = HiddenInputs(
        args=[ArgSpec(seed=True), ArgSpec(int_range=(5, 9)), ArgSpec(choice=["a", "b"])],
        count=3,
        timing=[ArgSpec(seed=True), ArgSpec(value="8388608")],
        program="int main() { return 0; }",
    )
    drawn = draw(spec(case("a", "1", "5", "a"), hidden=hidden), seed=11)
    assert not drawn.derived and len(drawn.tests) == 3 and len(drawn.program_seeds) == 3
    for test in drawn.tests:
        seed, size, pick = test.args
        assert 1 <= int(seed) < 2**31 and 5 <= int(size) <= 9 and pick in ("a", "b")
    assert drawn.timing is not None and drawn.timing.name == TIMING_NAME
    assert drawn.timing.args[1] == "8388608"


def test_an_argument_is_drawn_exactly_one_way():
    with pytest.raises(ValueError):
        ArgSpec(seed=True, value="1")
    with pytest.raises(ValueError):
        ArgSpec(int_range=(5, 1))
    with pytest.raises(ValueError):
        ArgSpec()
