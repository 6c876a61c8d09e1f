"""Plans: the steps a planner asks for, the JSON schema its output is held to, and checks.

A plan is `{"steps": [{"id": 1, "tool": "...", "args": {...}, "why": "..."}, ...]}`. Steps
use earlier steps' results through `$N` references (see `agents.core.refs`), so the plan is a
graph without cycles: a step may only refer to steps that come before it.

Errors: `PlanError` is the root of every planning failure (output that is not JSON, a step
that is not a step, a plan that breaks the rules above).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as ValidationError_
from jsonschema.exceptions import relevance
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agents.core.refs import REF_PATTERN, references
from agents.llm.schema import bounded_text, strict, without_nulls

_REF = {"type": "string", "pattern": REF_PATTERN}
_MAX_ARG_PROBLEMS = 3
WHY_CHARS = 160
"""The longest `why` a plan's schema asks for: a short reason, not the tokens a small model
spends rambling there before the next step."""


class PlanError(Exception):
    """The planner's output cannot be used as a plan; the message says why."""


class PlanStep(BaseModel):
    """One call of one tool; `args` may hold `$N` references to earlier steps' results."""

    model_config = ConfigDict(extra="forbid")

    id: int = Field(ge=1)
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    why: str = ""


class Plan(BaseModel):
    """The steps in the order the planner wrote them."""

    model_config = ConfigDict(extra="forbid")

    steps: list[PlanStep]


@dataclass(frozen=True)
class ToolSpec:
    """What the planner knows of a tool: its name, what it does, the JSON schema of its args."""

    name: str
    description: str
    args_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})


Tools = Mapping[str, ToolSpec] | Iterable[ToolSpec]
"""Tools by name, or a list of them."""


def by_name(tools: Tools) -> dict[str, ToolSpec]:
    """The tools keyed by name."""
    if isinstance(tools, Mapping):
        return dict(tools)
    return {tool.name: tool for tool in tools}


def plan_schema(tools: Sequence[ToolSpec], max_steps: int = 12) -> dict[str, Any]:
    """The JSON schema of a plan over `tools`, for structured outputs (vLLM/xgrammar).

    Each step is one of the tools' step shapes; wherever a tool's args schema types a field,
    the field may also hold a `$N` reference. The schema keeps to strict structured outputs'
    rules (`agents.llm.schema`), which grammar back ends compile too: every field required, an
    optional argument as `null` (dropped again by `load_step`), the tools' local `$ref`s
    inlined.
    """
    if not tools:
        raise PlanError("a plan schema needs at least one tool")
    return {
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "items": {"anyOf": [_step_schema(tool) for tool in tools]},
                "minItems": 1,
                "maxItems": max_steps,
            }
        },
        "required": ["steps"],
        "additionalProperties": False,
    }


def _step_schema(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "tool": {"const": tool.name},
            "args": strict(args_schema(tool)),
            "why": bounded_text(WHY_CHARS),
        },
        "required": ["id", "tool", "args", "why"],
        "additionalProperties": False,
    }


def args_schema(tool: ToolSpec) -> dict[str, Any]:
    """The tool's args schema with its `$ref`s inlined and a `$N` reference allowed in every
    typed field below the top-level object."""
    schema = copy.deepcopy(tool.args_schema)
    defs = schema.pop("$defs", {}) | schema.pop("definitions", {})
    inlined = _inline(schema, defs, ())
    return _with_refs(inlined, top=True)


def _inline(node: Any, defs: Mapping[str, Any], seen: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs, seen) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
        name = ref.rsplit("/", 1)[-1]
        if name in seen or name not in defs:
            raise PlanError(f"cannot inline {ref!r} (recursive or undefined)")
        rest = {k: v for k, v in node.items() if k != "$ref"}
        return _inline(defs[name], defs, (*seen, name)) | _inline(rest, defs, seen)
    return {key: _inline(value, defs, seen) for key, value in node.items()}


def _with_refs(node: dict[str, Any], *, top: bool = False, branch: bool = False) -> dict[str, Any]:
    """`node` with its children opened to references, and itself too unless it is the top
    object or one branch of an `anyOf` (whose parent takes the reference once)."""
    out = dict(node)
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _with_refs(v) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = _with_refs(out["items"])
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = [_with_refs(b, branch=True) for b in out["anyOf"]]
        if not (top or branch):
            out["anyOf"].append(_REF)
        return out
    if top or branch or not ({"type", "enum", "const"} & out.keys()):
        return out
    if out.get("type") == "string" and not ({"enum", "const", "pattern", "format"} & out.keys()):
        return out  # any string is allowed already, a reference too
    return {"anyOf": [out, _REF]}


def validate_plan(plan: Plan, tools: Tools) -> list[str]:
    """What is wrong with `plan` (empty when nothing): no steps, repeated ids, unknown tools,
    references to steps that do not come earlier, args that break their tool's schema."""
    if not plan.steps:
        return ["the plan has no steps"]
    known = by_name(tools)
    checkers: dict[str, Draft202012Validator] = {}
    problems: list[str] = []
    earlier: set[int] = set()
    for step in plan.steps:
        problems += step_problems(step, known, earlier, checkers)
        earlier.add(step.id)
    return problems


def step_problems(
    step: PlanStep,
    tools: Mapping[str, ToolSpec],
    earlier: set[int],
    checkers: dict[str, Draft202012Validator] | None = None,
) -> list[str]:
    """What is wrong with one step, given the ids of the steps before it."""
    problems: list[str] = []
    if step.id in earlier:
        problems.append(f"step id {step.id} is used twice")
    later = sorted(references(step.args) - earlier)
    if later:
        names = ", ".join(f"${n}" for n in later)
        problems.append(f"step {step.id} refers to {names}, which must be earlier steps")
    tool = tools.get(step.tool)
    if tool is None:
        problems.append(
            f"step {step.id} uses unknown tool {step.tool!r} (known: {', '.join(sorted(tools))})"
        )
        return problems
    checkers = {} if checkers is None else checkers
    if tool.name not in checkers:
        checkers[tool.name] = Draft202012Validator(args_schema(tool))
    errors = sorted(checkers[tool.name].iter_errors(step.args), key=lambda e: list(e.path))
    for error in errors[:_MAX_ARG_PROBLEMS]:
        error = _real_mismatch(error)
        where = ".".join(str(p) for p in error.absolute_path) or "args"
        problems.append(f"step {step.id} ({step.tool}): {where}: {error.message}")
    return problems


def _real_mismatch(error: ValidationError_) -> ValidationError_:
    """For a field that may also be a reference, why its value fails the field's own schema
    (not that it is no reference)."""
    branches = error.validator_value
    if error.validator != "anyOf" or not branches or branches[-1] != _REF:
        return error
    own = [e for e in error.context or [] if e.schema_path[0] != len(branches) - 1]
    return _real_mismatch(max(own, key=relevance)) if own else error


def parse_plan(text: str, tools: Tools) -> Plan:
    """The plan in a model's reply (a code fence or words around the JSON are ignored).

    Raises `PlanError` with the reason when it is not JSON, not a plan, or not a valid one.
    """
    plan = load_plan(text)
    problems = validate_plan(plan, tools)
    if problems:
        raise PlanError("invalid plan: " + "; ".join(problems))
    return plan


def load_plan(text: str) -> Plan:
    """The plan in `text` as written, checked for shape only (not against the tools)."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise PlanError("the reply holds no JSON object")
    try:
        data = json.loads(text[start : end + 1])
    except json.JSONDecodeError as exc:
        raise PlanError(f"the plan is not valid JSON: {exc}") from exc
    try:
        if isinstance(data, dict) and isinstance(data.get("steps"), list):
            data = data | {"steps": [_given(step) for step in data["steps"]]}
        plan = Plan.model_validate(data)
    except ValidationError as exc:
        raise PlanError(f"the JSON is not a plan: {_first_error(exc)}") from exc
    if not plan.steps:
        raise PlanError("the plan has no steps")
    return plan


def load_step(data: Any) -> PlanStep:
    """One step from its decoded JSON; raises `PlanError` when it is not a step."""
    try:
        return PlanStep.model_validate(_given(data))
    except ValidationError as exc:
        raise PlanError(f"not a plan step: {_first_error(exc)}") from exc


def _given(step: Any) -> Any:
    """A step's JSON with what strict mode writes as `null` (an optional argument, or `why`,
    not given) left out, so that the defaults apply."""
    if not isinstance(step, dict):
        return step
    out = {k: v for k, v in step.items() if not (k == "why" and v is None)}
    if isinstance(out.get("args"), dict):
        out["args"] = without_nulls(out["args"])
    return out


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error["loc"]) or "top level"
    more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: {error['msg']}{more}"
