"""Plans: the schema a planner's output is held to, and the checks on a parsed plan."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from agents.core import Plan, PlanError, PlanStep, parse_plan, plan_schema, validate_plan
from agents.llm.schema import STRICT_KEYWORDS, strict_problems
from tests.fakes.plans import GOOD_PLAN, TOOLS


def as_strict(plan: dict) -> dict:
    """`plan` as a strict-mode decoder writes it: every field present, `null` for an optional
    argument not given, `why` always."""
    args = {t.name: t.args_schema.get("properties", {}) for t in TOOLS}
    return {
        "steps": [
            step
            | {"why": step.get("why", "")}
            | {"args": {k: step["args"].get(k) for k in args[step["tool"]]}}
            for step in plan["steps"]
        ]
    }


def _checker(max_steps: int = 12) -> Draft202012Validator:
    schema = plan_schema(TOOLS, max_steps=max_steps)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _keywords(node: object, found: set[str]) -> set[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            found.add(key)
            # names under `properties` are fields, not keywords
            children = value.values() if key == "properties" else [value]
            for child in children:
                _keywords(child, found)
    elif isinstance(node, list):
        for item in node:
            _keywords(item, found)
    return found


def test_the_schema_accepts_a_good_plan_with_references_in_typed_fields():
    assert list(_checker().iter_errors(as_strict(GOOD_PLAN))) == []


@pytest.mark.parametrize(
    ("why", "step"),
    [
        ("unknown tool", {"id": 1, "tool": "deploy", "args": {}}),
        ("missing args", {"id": 1, "tool": "analyse"}),
        ("extra key", {"id": 1, "tool": "analyse", "args": {"source": "x", "language": "c"}, "x": 1}),
        ("enum broken", {"id": 1, "tool": "generate", "args": {"strategy": "gpu"}}),
        ("pattern broken", {"id": 1, "tool": "analyse", "args": {"source": "x", "language": "go"}}),
        ("integer as text", {"id": 1, "tool": "generate", "args": {"strategy": "loops", "samples": "four"}}),
        ("bad reference", {"id": 1, "tool": "generate", "args": {"strategy": "loops", "samples": "$x"}}),
        ("nested field", {"id": 1, "tool": "verify", "args": {"code": "c", "options": {"threads": "many"}}}),
        ("required arg", {"id": 1, "tool": "verify", "args": {"code": "c"}}),
        ("id as text", {"id": "1", "tool": "analyse", "args": {"source": "x", "language": "c"}}),
    ],
)  # fmt: skip
def test_the_schema_rejects_bad_steps(why, step):
    assert list(_checker().iter_errors({"steps": [step]})), why


def test_the_schema_bounds_the_number_of_steps():
    step = as_strict(GOOD_PLAN)["steps"][0]
    assert list(_checker().iter_errors({"steps": []}))
    assert list(_checker(max_steps=2).iter_errors({"steps": [step, step, step]}))
    assert list(_checker().iter_errors({"steps": [step], "note": "extra"}))


def test_the_schema_keeps_to_strict_structured_outputs_rules():
    """OpenAI's strict mode refuses optional properties, a value of no type and keywords such
    as `default`; a refusal would send every plan to the default plan."""
    assert strict_problems(plan_schema(TOOLS)) == []
    assert _keywords(plan_schema(TOOLS), set()) <= STRICT_KEYWORDS
    assert "$ref" not in json.dumps(plan_schema(TOOLS))  # nested models inlined


def test_a_strict_reply_leaves_out_what_it_wrote_as_null():
    plan = parse_plan(json.dumps(as_strict(GOOD_PLAN)), TOOLS)
    assert plan.steps[1].args == {"strategy": "loops", "loops": ["$1.loops"]}
    assert plan.steps[0].why == "" and plan.steps[2].why == "a second strategy in parallel"


def test_a_valid_plan_has_no_problems():
    plan = Plan.model_validate(GOOD_PLAN)
    assert validate_plan(plan, TOOLS) == []
    assert validate_plan(plan, {t.name: t for t in TOOLS}) == []


def _problems(*steps: dict) -> list[str]:
    return validate_plan(Plan(steps=[PlanStep.model_validate(s) for s in steps]), TOOLS)


def test_validate_names_each_problem():
    analyse = {"tool": "analyse", "args": {"source": "x", "language": "c"}}
    assert _problems() == ["the plan has no steps"]
    assert _problems({"id": 1, **analyse}, {"id": 1, **analyse}) == ["step id 1 is used twice"]
    [unknown] = _problems({"id": 1, "tool": "deploy", "args": {}})
    assert "unknown tool 'deploy'" in unknown and "analyse, generate, verify" in unknown
    [forward] = _problems(
        {"id": 1, "tool": "verify", "args": {"code": "$2", "options": {"threads": 2}}},
        {"id": 2, **analyse},
    )
    assert forward == "step 1 refers to $2, which must be earlier steps"
    [itself] = _problems(
        {"id": 3, "tool": "generate", "args": {"strategy": "loops", "samples": "$3"}}
    )
    assert "refers to $3" in itself
    [inline] = _problems(
        {"id": 1, "tool": "analyse", "args": {"source": "fix $4", "language": "c"}}
    )
    assert "refers to $4" in inline
    [args] = _problems(
        {"id": 1, "tool": "verify", "args": {"code": "c", "options": {"threads": "x"}}}
    )
    assert args == "step 1 (verify): options.threads: 'x' is not of type 'integer'"
    [enum] = _problems({"id": 1, "tool": "generate", "args": {"strategy": "gpu"}})
    assert enum == "step 1 (generate): strategy: 'gpu' is not one of ['loops', 'tasks', 'simd']"


def test_parse_plan_reads_a_fenced_reply_and_reports_why_it_fails():
    reply = "Here is my plan:\n```json\n" + json.dumps(GOOD_PLAN, indent=2) + "\n```\n"
    assert parse_plan(reply, TOOLS) == Plan.model_validate(GOOD_PLAN)
    with pytest.raises(PlanError, match="not valid JSON"):
        parse_plan('{"steps": [{"id": 1,}]}', TOOLS)
    with pytest.raises(PlanError, match="no JSON object"):
        parse_plan("I cannot plan this.", TOOLS)
    with pytest.raises(PlanError, match=r"not a plan: steps\.0\.id"):
        parse_plan('{"steps": [{"id": 0, "tool": "analyse", "args": {}}]}', TOOLS)
    with pytest.raises(PlanError, match="no steps"):
        parse_plan('{"steps": []}', TOOLS)
    with pytest.raises(PlanError, match="unknown tool 'deploy'"):
        parse_plan('{"steps": [{"id": 1, "tool": "deploy", "args": {}}]}', TOOLS)
