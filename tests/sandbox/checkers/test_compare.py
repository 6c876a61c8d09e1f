import pytest

from sandbox.checkers.compare import compare_outputs
from sandbox.spec import Tolerance


def test_exact_match_ignores_trailing_white_space_only():
    assert compare_outputs("1 2\n3\n", "1 2   \n3\n\n\n").ok
    result = compare_outputs("1 2\n3\n", " 1 2\n3\n")
    assert not result.ok
    assert result.reason.startswith("line 1: expected '1 2', got ' 1 2'")


def test_missing_or_extra_lines_fail():
    assert "expected 2 lines of output, got 1" in compare_outputs("a\nb\n", "a\n").reason
    assert not compare_outputs("a\n", "a\nb\n").ok


def test_without_tolerance_numbers_must_match_textually():
    assert not compare_outputs("1.0\n", "1.00\n").ok


@pytest.mark.parametrize(
    ("expected", "actual", "ok"),
    [
        ("total 1.0000000000e+06", "total 1.0000000001e+06", True),  # rel 1e-10
        ("total 1.0000000000e+06", "total 1.0000100000e+06", False),  # rel 1e-5
        ("x 0.0", "x 1e-13", True),  # within atol
        ("x 0.0", "x 1e-6", False),
        ("nan inf -inf", "nan inf -inf", True),
        ("inf", "-inf", False),
        ("1.5 ok", "1.5 OK", False),  # words compare exactly
        ("1 2 3", "1 2", False),
    ],
)
def test_tolerance_compares_numbers_token_by_token(expected, actual, ok):
    tolerance = Tolerance(rtol=1e-9, atol=1e-12)
    assert compare_outputs(expected, actual, tolerance).ok is ok


def test_tolerance_reason_names_the_relative_error():
    result = compare_outputs("2.0\n", "2.2\n", Tolerance(rtol=1e-6))
    assert "relative error 0.1 > rtol 1e-06" in result.reason
