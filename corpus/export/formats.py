"""Pure functions from stored LLM calls to the lines of each fine-tuning format."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from corpus.export.filters import ExportFilter
from corpus.export.rows import SampleRow

_MESSAGE_KEYS = ("role", "content", "name", "tool_calls", "tool_call_id")


def _arguments_as_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, sort_keys=True)


def _arguments_as_object(arguments: Any) -> dict[str, Any]:
    if isinstance(arguments, dict):
        return arguments
    try:
        parsed = json.loads(arguments)
    except (TypeError, ValueError):
        parsed = None
    # Arguments that are not a JSON object cannot be rendered by chat templates as they are.
    return parsed if isinstance(parsed, dict) else {"raw": arguments}


def _message(message: dict[str, Any], json_arguments: bool) -> dict[str, Any]:
    out = {k: message[k] for k in _MESSAGE_KEYS if message.get(k) is not None}
    out.setdefault("content", "" if out.get("role") != "assistant" else None)
    if out.get("content") is not None and not isinstance(out["content"], str):
        out["content"] = json.dumps(out["content"])
    if out.get("role") == "assistant" and "tool_calls" in out:
        calls = []
        for i, call in enumerate(out["tool_calls"]):
            function = call.get("function", {})
            arguments = function.get("arguments", {})
            calls.append(
                {
                    "id": call.get("id") or f"call_{i}",
                    "type": "function",
                    "function": {
                        "name": function.get("name", ""),
                        "arguments": _arguments_as_text(arguments)
                        if json_arguments
                        else _arguments_as_object(arguments),
                    },
                }
            )
        out["tool_calls"] = calls
    if out.get("role") == "assistant" and out.get("content") is None and "tool_calls" not in out:
        out["content"] = ""
    return out


def merged_turns(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive plain `system` or `user` messages as one (their texts a blank line apart):
    chat templates that enforce alternating roles refuse two user turns in a row, which the
    agent's calls send (instructions, then the program)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        previous = out[-1] if out else None
        if (
            previous is not None
            and message.get("role") in ("system", "user")
            and previous.get("role") == message.get("role")
            and set(previous) == set(message) == {"role", "content"}
            and isinstance(previous["content"], str)
            and isinstance(message["content"], str)
        ):
            out[-1] = {**previous, "content": f"{previous['content']}\n\n{message['content']}"}
        else:
            out.append(message)
    return out


def conversation(row: SampleRow, json_arguments: bool) -> list[dict[str, Any]]:
    """The call's messages followed by the model's answer."""
    return merged_turns([_message(m, json_arguments) for m in [*row.messages, row.response]])


def provenance(row: SampleRow) -> dict[str, Any]:
    """Where a sample comes from: its task, the run (trajectory) and LLM call (step) that wrote
    it, its candidate and that candidate's latest verdict, the model and the agent."""
    return {
        "task_id": row.task_id,
        "run_id": row.run_id,
        "step_id": row.step_id,
        "candidate_id": row.candidate_id,
        "verdict": row.verdict,
        "passed": row.passed,
        "speedup": row.speedup,
        "model": row.model,
        "adapter": row.adapter,
        "agent": row.agent,
        "target": row.target,
    }


def openai_record(row: SampleRow) -> dict[str, Any]:
    record: dict[str, Any] = {"messages": conversation(row, json_arguments=True)}
    if row.tools:
        record["tools"] = row.tools
    return record | {METADATA: provenance(row)}


def sft_record(row: SampleRow) -> dict[str, Any]:
    record = {"messages": conversation(row, json_arguments=False), "tools": row.tools or []}
    return record | {METADATA: provenance(row)}


METADATA = "metadata"
"""The key of a line's provenance (`provenance`); the writer drops it where a format's consumer
refuses keys it does not know (OpenAI's fine-tuning files)."""


def prompt_key(row: SampleRow) -> str:
    return json.dumps(row.messages, sort_keys=True)


def dpo_records(
    rows: Iterable[SampleRow], filters: ExportFilter, *, openai: bool = False
) -> Iterator[dict[str, Any]]:
    """Preference pairs among the calls of one task that share a prompt, as TRL's DPO lines
    (`prompt`, `chosen`, `rejected`) or, with `openai`, OpenAI's preference fine-tuning lines
    (`input`, `preferred_output`, `non_preferred_output`).

    chosen: a candidate that passed (and meets `min_speedup`); rejected: one that failed
    verification, or passed but at least `dpo_margin` slower than the fastest chosen.
    """
    groups: dict[str, list[SampleRow]] = {}
    for row in rows:
        if row.passed is not None:
            groups.setdefault(prompt_key(row), []).append(row)
    floor = filters.min_speedup
    for group in groups.values():
        passing = sorted((r for r in group if r.passed), key=lambda r: (-r.speedup, r.step_id))
        chosen = [r for r in passing if floor is None or r.speedup >= floor]
        if not chosen:
            continue
        best = chosen[0]
        rejected = [r for r in group if not r.passed]
        rejected += [r for r in passing if r.speedup * (1 + filters.dpo_margin) < best.speedup]
        for i, bad in enumerate(rejected):
            good = best if bad.passed else chosen[i % len(chosen)]
            chosen_answer = _message(good.response, json_arguments=openai)
            rejected_answer = _message(bad.response, json_arguments=openai)
            if chosen_answer == rejected_answer:
                continue
            prompt = merged_turns([_message(m, json_arguments=openai) for m in good.messages])
            metadata = _pair_provenance(good, bad)
            if openai:
                given: dict[str, Any] = {"messages": prompt}
                if good.tools:
                    given["tools"] = good.tools
                yield {
                    "input": given,
                    "preferred_output": [chosen_answer],
                    "non_preferred_output": [rejected_answer],
                    METADATA: metadata,
                }
            else:
                yield {
                    "prompt": prompt,
                    "chosen": [chosen_answer],
                    "rejected": [rejected_answer],
                    METADATA: metadata,
                }


def _pair_provenance(good: SampleRow, bad: SampleRow) -> dict[str, Any]:
    side = ("run_id", "step_id", "candidate_id", "verdict", "passed", "speedup", "model")
    chosen, rejected = provenance(good), provenance(bad)
    return {
        "task_id": good.task_id,
        "agent": good.agent,
        "target": good.target,
        "chosen": {k: chosen[k] for k in side},
        "rejected": {k: rejected[k] for k in side},
    }
