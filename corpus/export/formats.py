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


def openai_record(row: SampleRow) -> dict[str, Any]:
    record: dict[str, Any] = {"messages": conversation(row, json_arguments=True)}
    if row.tools:
        record["tools"] = row.tools
    return record


def sft_record(row: SampleRow) -> dict[str, Any]:
    return {"messages": conversation(row, json_arguments=False), "tools": row.tools or []}


def prompt_key(row: SampleRow) -> str:
    return json.dumps(row.messages, sort_keys=True)


def dpo_records(rows: Iterable[SampleRow], filters: ExportFilter) -> Iterator[dict[str, Any]]:
    """Preference pairs among the calls of one task that share a prompt.

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
            record = _pair(good, bad)
            if record["chosen"] != record["rejected"]:
                yield record


def _pair(good: SampleRow, bad: SampleRow) -> dict[str, Any]:
    prompt = merged_turns([_message(m, json_arguments=False) for m in good.messages])
    return {
        "prompt": prompt,
        "chosen": [_message(good.response, json_arguments=False)],
        "rejected": [_message(bad.response, json_arguments=False)],
    }
