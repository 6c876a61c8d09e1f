"""Strict structured outputs: the rules every schema the agent sends keeps to."""

from __future__ import annotations

import re

import pytest

from agents.analysis import analyse, choice_schema
from agents.core import plan_schema
from agents.llm import JsonSchema
from agents.llm.schema import strict, strict_problems
from agents.reasoning.outlines import outline_schema
from agents.tools import registry
from agents.tools.distribute import _schema as loops_schema
from sandbox.spec import Language, Target

pytestmark = pytest.mark.unit

SOURCE = """#include <stdio.h>
int main(void) {
    double a[1000], s = 0;
    for (int i = 0; i < 1000; i++) a[i] = i * 0.5;
    for (int i = 0; i < 1000; i++) s += a[i];
    printf("%f\\n", s);
    return 0;
}
"""


@pytest.mark.parametrize("target", [Target.OPENMP, Target.MPI, Target.CUDA])
def test_every_schema_the_agent_sends_keeps_to_strict_mode(target: Target) -> None:
    loops = analyse(SOURCE, Language.C).loops
    sent = {
        "plan": plan_schema(registry(target).specs(), 10),
        "choices": choice_schema(loops),
        "loops": loops_schema([loop.id for loop in loops]),
        "outlines": outline_schema(target, 4),
    }
    for name, schema in sent.items():
        assert strict_problems(JsonSchema(json_schema=schema, name=name).json_schema) == [], name
    assert strict_problems(sent["plan"]) == []  # the plan's own schema, unconverted


def test_the_rules_are_checked() -> None:
    ok = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert strict_problems(ok) == []
    optional = ok | {"required": []}
    open_object = {k: v for k, v in ok.items() if k != "additionalProperties"}
    untyped = ok | {"properties": {"a": {}}}
    defaulted = ok | {"properties": {"a": {"type": "integer", "default": 1}}}
    union_root = {"anyOf": [ok, ok]}
    deep: dict = {"type": "string"}
    for _ in range(11):
        deep = {
            "type": "object",
            "properties": {"x": deep},
            "required": ["x"],
            "additionalProperties": False,
        }
    for bad in (optional, open_object, untyped, defaulted, union_root, deep):
        assert strict_problems(bad), bad


def test_strict_makes_optional_fields_required_and_nullable() -> None:
    loose = {
        "type": "object",
        "title": "Args",
        "properties": {
            "n": {"type": "integer", "default": 4},
            "tag": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "ids": {"type": "array", "items": {"enum": ["L1"]}, "uniqueItems": True},
        },
        "required": ["ids"],
    }
    out = strict(loose)
    assert strict_problems(out) == []
    assert out["required"] == ["n", "tag", "ids"] and out["additionalProperties"] is False
    assert out["properties"]["n"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert out["properties"]["tag"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert out["properties"]["ids"] == {"type": "array", "items": {"enum": ["L1"]}}
    with pytest.raises(ValueError, match="no type"):
        strict({"type": "object", "properties": {"x": {}}})


def test_string_lengths_become_a_pattern_the_grammar_can_hold() -> None:
    """Strict mode has no `maxLength`: dropping it let a small model spend its whole token
    budget inside one string; a pattern of the same bounds keeps it."""
    out = strict(
        {
            "type": "object",
            "properties": {
                "short": {"type": "string", "maxLength": 5},
                "long": {"type": "string", "minLength": 2},
                "both": {"type": "string", "minLength": 1, "maxLength": 3},
                "own": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 3},
            },
            "required": ["short", "long", "both", "own"],
        }
    )
    assert strict_problems(out) == []
    props = out["properties"]
    assert props["own"] == {"type": "string", "pattern": "^[a-z]+$"}  # its own pattern rules

    def fits(name: str, text: str) -> bool:
        return re.fullmatch(props[name]["pattern"], text) is not None

    assert fits("short", "") and fits("short", 'a"\n\tb') and not fits("short", "abcdef")
    assert fits("long", "ab\n" * 100) and not fits("long", "a")
    assert (
        fits("both", "x")
        and fits("both", "x\ny")
        and not fits("both", "")
        and not fits("both", "wxyz")
    )


def test_a_pick_of_loops_names_at_most_the_loops_offered() -> None:
    schema = strict(loops_schema(["L1", "L2", "L3"]))
    assert schema["properties"]["loops"]["maxItems"] == 3
    assert (
        "pattern"
        in strict(plan_schema(registry(Target.MPI).specs(), 4))["properties"]["steps"]["items"][
            "anyOf"
        ][0]["properties"]["why"]
    )


def test_string_bounds_no_string_fits_are_refused() -> None:
    impossible = {"type": "string", "minLength": 5, "maxLength": 3}
    with pytest.raises(ValueError, match="no string fits"):
        strict({"type": "object", "properties": {"s": impossible}, "required": ["s"]})


@pytest.mark.parametrize("low", [None, 0, 1, 15, 16, 17, 40])
@pytest.mark.parametrize("high", [None, 0, 1, 15, 16, 17, 32, 33, 64, 159, 160, 240])
def test_a_length_pattern_fits_exactly_the_lengths_allowed(low, high) -> None:
    if (low is None and high is None) or (None not in (low, high) and low > high):
        return
    node = {"type": "string"} | ({} if low is None else {"minLength": low})
    node |= {} if high is None else {"maxLength": high}
    schema = strict({"type": "object", "properties": {"s": node}, "required": ["s"]})
    pattern = schema["properties"]["s"]["pattern"]
    for n in range(300):
        want = n >= (low or 0) and (high is None or n <= high)
        text = "x\n" * (n // 2) + "y" * (n % 2)  # any characters count, newlines too
        assert (re.fullmatch(pattern, text) is not None) == want, n
