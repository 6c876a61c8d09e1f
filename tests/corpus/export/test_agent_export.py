"""Agent runs exported as tool-call conversations, on trajectories written to a real store the
way runners write them (parent links: plan → tool call → LLM call → candidate → verdict)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from sqlmodel import Session

from corpus.export import ExportFilter, ExportFormat, export_lines, schema_for
from corpus.export.agent import StepNode, children, planning_call, tool_turn
from corpus.store import tasks
from corpus.store.models import CandidateCreate, StepCreate, StepKind, TaskCreate
from corpus.store.recorder import Recorder
from tests.fakes.runners import FAILED_VERDICT, PASSED_VERDICT

PLAN_PROMPT = [
    {"role": "system", "content": "Plan tool calls that parallelise the program."},
    {"role": "user", "content": "int main(void) { long s = 0; for (...) s += i; }"},
]
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("analyse", "rewrite", "verify")
]
GOOD = "#pragma omp parallel for reduction(+:s)"
RACY = "#pragma omp parallel for"


def _llm(name: str, messages: list[dict[str, Any]], content: str, parent: int | None = None):
    return StepCreate(
        kind=StepKind.LLM_CALL,
        name=name,
        parent_id=parent,
        model="m",
        messages=messages,
        response={"role": "assistant", "content": content},
        tools=TOOLS if name == "plan" else None,
    )


def _tool(name: str, parent: int, call_id: str | None, arguments: dict, **out: Any):
    return StepCreate(
        kind=StepKind.TOOL_CALL,
        name=name,
        parent_id=parent,
        tool_name=name,
        tool_call_id=call_id,
        arguments=arguments,
        **out,
    )


def _start(engine, runner: str) -> Recorder:
    with Session(engine) as s:
        task = tasks.submit(s, TaskCreate(target="openmp", source="int main(void);"))
        task = tasks.claim(s, "w", task.id)
        assert task is not None
        run = tasks.start_run(s, task, runner, "w")
        assert run.id is not None
        return Recorder(engine, task.id, run.id)


async def _agent_run(engine) -> dict[str, int]:
    """A plan with four tool calls: an analysis, two rewrites (each an LLM call that writes a
    candidate: one passes, one races) and a verification that failed to run."""
    rec = _start(engine, "graph")
    ids: dict[str, int] = {}
    ids["plan"] = plan = await rec.add_step(_llm("plan", PLAN_PROMPT, '{"steps": [...]}'))
    ids["analyse"] = await rec.add_step(
        _tool("analyse", plan, "call_a", {"function": "main"}, result={"reduction": ["s", "+"]})
    )
    for key, call_id, code, verdict in (
        ("good", "call_b", GOOD, PASSED_VERDICT),
        ("racy", None, RACY, FAILED_VERDICT),
    ):
        tool = await rec.add_step(
            _tool("rewrite", plan, call_id, {"strategy": key, "analysis": "$1"}, result={"ok": 1})
        )
        ids[f"{key}_tool"] = tool
        prompt = [{"role": "user", "content": f"Rewrite with the {key} strategy."}]
        ids[key] = llm = await rec.add_step(_llm("rewrite", prompt, f"```c\n{code}\n```", tool))
        candidate = await rec.add_candidate(
            CandidateCreate(target="openmp", source=code, strategy=key, step_id=llm)
        )
        await rec.add_verdict(candidate, verdict)
    ids["verify"] = await rec.add_step(
        _tool("verify", plan, "call_v", {"candidate": "$2"}, error="sandbox unavailable")
    )
    await rec.aclose()
    return ids


async def _prompt_run(engine) -> None:
    rec = _start(engine, "prompt")
    prompt = [{"role": "user", "content": "Translate to OpenMP."}]
    llm = await rec.add_step(_llm("generate", prompt, f"```c\n{GOOD}\n```"))
    candidate = await rec.add_candidate(
        CandidateCreate(target="openmp", source=GOOD, strategy="prompt", step_id=llm)
    )
    await rec.add_verdict(candidate, PASSED_VERDICT)
    await rec.aclose()


def _lines(engine, fmt: ExportFormat, **filters: Any) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in export_lines(engine, fmt, ExportFilter(**filters))]
    validator = jsonschema.Draft202012Validator(schema_for(fmt))
    for line in lines:
        validator.validate(line)
    return lines


async def test_an_agents_verified_candidate_is_a_tool_call_conversation(engine):
    ids = await _agent_run(engine)
    await _prompt_run(engine)
    # Verified candidates only; the export is in task order, and task ids are random.
    prompt_mode, agent = sorted(
        _lines(engine, ExportFormat.OPENAI), key=lambda x: len(x["messages"])
    )
    messages = agent["messages"]
    assert messages[:2] == PLAN_PROMPT
    calls = messages[2]["tool_calls"]
    assert messages[2]["role"] == "assistant" and messages[2]["content"] is None
    racy_id = f"call_{ids['racy_tool']}"  # a call the runner stored without an id gets one
    assert [c["id"] for c in calls] == ["call_a", "call_b", racy_id, "call_v"]
    assert [c["function"]["name"] for c in calls] == ["analyse", "rewrite", "rewrite", "verify"]
    assert json.loads(calls[1]["function"]["arguments"]) == {"strategy": "good", "analysis": "$1"}
    results = messages[3:7]
    assert [(m["role"], m["tool_call_id"], m["name"]) for m in results] == [
        ("tool", "call_a", "analyse"),
        ("tool", "call_b", "rewrite"),
        ("tool", racy_id, "rewrite"),
        ("tool", "call_v", "verify"),
    ]
    assert json.loads(results[0]["content"]) == {"reduction": ["s", "+"]}
    assert json.loads(results[3]["content"]) == {"error": "sandbox unavailable"}
    assert messages[7:] == [{"role": "assistant", "content": f"```c\n{GOOD}\n```"}]
    assert agent["tools"] == TOOLS
    # Prompt mode stays one call: its prompt and the reply that wrote the candidate.
    assert prompt_mode["messages"] == [
        {"role": "user", "content": "Translate to OpenMP."},
        {"role": "assistant", "content": f"```c\n{GOOD}\n```"},
    ]

    _, sft_agent = sorted(_lines(engine, ExportFormat.SFT), key=lambda x: len(x["messages"]))
    sft_calls = sft_agent["messages"][2]["tool_calls"]
    assert sft_calls[1]["function"]["arguments"] == {"strategy": "good", "analysis": "$1"}
    assert sft_agent["messages"][3:] == messages[3:]


async def test_all_adds_the_failing_candidate_and_the_calls_without_one(engine):
    ids = await _agent_run(engine)
    lines = _lines(engine, ExportFormat.OPENAI, verified_only=False)
    finals = [line["messages"][-1] for line in lines]
    assert len(lines) == 3
    # The plan itself, as the call it was: its prompt and its reply.
    assert lines[0]["messages"] == [
        *PLAN_PROMPT,
        {"role": "assistant", "content": '{"steps": [...]}'},
    ]
    assert finals[1]["content"] == f"```c\n{GOOD}\n```"
    assert finals[2]["content"] == f"```c\n{RACY}\n```"
    assert lines[2]["messages"][:-1] == lines[1]["messages"][:-1]  # the same plan and results
    assert ids["plan"] < ids["good"] < ids["racy"]


async def test_dpo_pairs_stay_per_call(engine):
    await _agent_run(engine)
    assert _lines(engine, ExportFormat.DPO) == []  # the two rewrites had different prompts


def _nodes(*rows: tuple[int, int | None, str]) -> dict[int, StepNode]:
    return {i: StepNode(i, parent, kind) for i, parent, kind in rows}


@pytest.mark.parametrize(
    ("rows", "step", "plan"),
    [
        # plan 1 → tool 2 → llm 3
        ([(1, None, "llm_call"), (2, 1, "tool_call"), (3, 2, "llm_call")], 3, 1),
        # a sub-plan 3 under tool 2 with its own tool 4 → llm 5: the nearest planner
        (
            [
                (1, None, "llm_call"),
                (2, 1, "tool_call"),
                (3, 2, "llm_call"),
                (4, 3, "tool_call"),
                (5, 4, "llm_call"),
            ],
            5,
            3,
        ),
        # a repair: an LLM call under the call it repairs, no tool calls between
        ([(1, None, "llm_call"), (2, 1, "llm_call")], 2, None),
        # prompt mode: a root call (its verify step is a child, not a parent)
        ([(1, None, "llm_call"), (2, 1, "tool_call")], 1, None),
        # a parent that is not in the run, and a cycle: no planner, no endless walk
        ([(1, 9, "llm_call")], 1, None),
        ([(1, 2, "tool_call"), (2, 1, "llm_call"), (3, 1, "llm_call")], 3, 2),
        ([(1, 2, "llm_call"), (2, 1, "llm_call")], 1, None),
    ],
)
def test_planning_call(rows, step, plan):
    nodes = _nodes(*rows)
    assert planning_call(step, nodes, children(nodes)) == plan


def test_tool_turn_keeps_results_that_are_not_objects():
    nodes = {
        1: StepNode(1, None, "llm_call"),
        2: StepNode(2, 1, "tool_call", name="profile", result=[1.5, 0.4]),
        3: StepNode(3, 1, "llm_call"),
    }
    call, result = tool_turn(1, children(nodes))
    assert call["tool_calls"] == [
        {"id": "call_2", "type": "function", "function": {"name": "profile", "arguments": {}}}
    ]
    assert result == {
        "role": "tool",
        "tool_call_id": "call_2",
        "name": "profile",
        "content": "[1.5, 0.4]",
    }
