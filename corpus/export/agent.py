"""Tool-call conversations from agent runs (pure).

An agent's trajectory is a tree: an LLM call plans tool calls (its child `tool_call` steps), a
tool may make LLM calls of its own (their parent is the tool call), and one of those writes a
candidate. A training row for such a candidate reads as one conversation: the planning prompt,
the assistant's tool calls, each call's result, then the assistant message that wrote the
candidate. Prompt-mode calls have no planning ancestor and stay as they are.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class StepNode:
    """What the conversation needs of one step of a run."""

    id: int
    parent_id: int | None
    kind: str
    """`llm_call` or `tool_call`."""
    name: str = ""
    tool_name: str | None = None
    tool_call_id: str | None = None
    arguments: Any = None
    result: Any = None
    error: str | None = None


def children(nodes: Mapping[int, StepNode]) -> dict[int, list[StepNode]]:
    """Each step's child steps, in the order they were written."""
    out: dict[int, list[StepNode]] = {}
    for node in sorted(nodes.values(), key=lambda n: n.id):
        if node.parent_id is not None:
            out.setdefault(node.parent_id, []).append(node)
    return out


def planning_call(
    step_id: int, nodes: Mapping[int, StepNode], kids: Mapping[int, list[StepNode]]
) -> int | None:
    """The LLM call whose tool calls led to `step_id`: its nearest ancestor `llm_call` with at
    least one `tool_call` child; None when there is none (a prompt-mode call)."""
    seen = {step_id}
    node = nodes.get(step_id)
    while node is not None and node.parent_id is not None and node.parent_id not in seen:
        seen.add(node.parent_id)
        node = nodes.get(node.parent_id)
        if node is None:
            return None
        if node.kind == "llm_call" and any(k.kind == "tool_call" for k in kids.get(node.id, [])):
            return node.id
    return None


def tool_turn(plan_id: int, kids: Mapping[int, list[StepNode]]) -> list[dict[str, Any]]:
    """The assistant's tool calls of `plan_id` (one per `tool_call` child) and their results."""
    calls = [k for k in kids.get(plan_id, []) if k.kind == "tool_call"]
    ids = [c.tool_call_id or f"call_{c.id}" for c in calls]
    turn: list[dict[str, Any]] = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": c.tool_name or c.name, "arguments": c.arguments or {}},
                }
                for call_id, c in zip(ids, calls, strict=True)
            ],
        }
    ]
    for call_id, c in zip(ids, calls, strict=True):
        result = c.result if c.result is not None or c.error is None else {"error": c.error}
        turn.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "name": c.tool_name or c.name,
                "content": json.dumps(result, ensure_ascii=False, sort_keys=True),
            }
        )
    return turn
