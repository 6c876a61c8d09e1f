"""Reading a plan while the model is still writing it, one finished step at a time.

The scanner follows the text character by character: whether it is inside a string (and after
a backslash), which objects and arrays are open, and which key of the top-level object it is
in. When an object directly inside the top-level `"steps"` array closes, that slice of text is
one step: it is decoded and returned at once, so that the scheduler can start it while the rest
of the plan streams. Text before the first `{` (a code fence, a sentence) and after the plan's
closing `}` is ignored.
"""

from __future__ import annotations

import json

from agents.core.plan import (
    Plan,
    PlanError,
    PlanStep,
    Tools,
    by_name,
    load_plan,
    load_step,
    step_problems,
    validate_plan,
)


class StreamingPlanParser:
    """Feed it the reply as it arrives; it returns each step as soon as its object closes.

    With `tools`, each step is also checked as it completes (known tool, args per schema, ids
    unique, references only to earlier steps) and a bad one raises `PlanError` at once.
    """

    def __init__(self, tools: Tools | None = None) -> None:
        self.tools = None if tools is None else by_name(tools)
        self.text = ""
        self.steps: list[PlanStep] = []
        self._pos = 0
        self._open: list[str] = []  # the open containers, "{" or "["
        self._in_string = False
        self._escaped = False
        self._string_start = 0
        self._last_string = ""  # the last string closed in the top-level object (a key)
        self._key = ""  # the top-level key whose value is being read
        self._steps_depth: int | None = None  # len(_open) inside the "steps" array
        self._step_start: int | None = None
        self._start: int | None = None  # where the plan's object opens
        self._end: int | None = None  # just after it closes

    def feed(self, chunk: str) -> list[PlanStep]:
        """Take the next piece of the reply; the steps whose objects it completed."""
        self.text += chunk
        finished: list[PlanStep] = []
        while self._pos < len(self.text) and self._end is None:
            step = self._scan(self.text[self._pos])
            self._pos += 1
            if step is not None:
                finished.append(step)
        return finished

    def _scan(self, char: str) -> PlanStep | None:
        if self._in_string:
            if self._escaped:
                self._escaped = False
            elif char == "\\":
                self._escaped = True
            elif char == '"':
                self._in_string = False
                if len(self._open) == 1:
                    self._last_string = self.text[self._string_start : self._pos + 1]
            return None
        if not self._open and char != "{":
            return None  # before the plan: a fence or prose
        if char == '"':
            self._in_string = True
            self._string_start = self._pos
        elif char == ":" and len(self._open) == 1:
            self._key = _decode_key(self._last_string)
        elif char in "{[":
            if not self._open:
                self._start = self._pos
            self._open.append(char)
            depth = len(self._open)
            if char == "[" and depth == 2 and self._key == "steps":
                self._steps_depth = depth
            elif char == "{" and self._steps_depth is not None and depth == self._steps_depth + 1:
                self._step_start = self._pos
        elif char in "}]":
            return self._close(char)
        return None

    def _close(self, char: str) -> PlanStep | None:
        depth = len(self._open)
        if not self._open or self._open.pop() != {"}": "{", "]": "["}[char]:
            raise PlanError(f"unbalanced {char!r} at character {self._pos} of the plan")
        if depth == 1:
            self._end = self._pos + 1  # the plan's object closed: the rest is a fence or prose
        if char == "]" and depth == self._steps_depth:
            self._steps_depth = None
        if char == "}" and self._step_start is not None and self._steps_depth == depth - 1:
            text = self.text[self._step_start : self._pos + 1]
            self._step_start = None
            return self._step(text)
        return None

    def _step(self, text: str) -> PlanStep:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PlanError(f"step {len(self.steps) + 1} is not valid JSON: {exc}") from exc
        step = load_step(data)
        if self.tools is not None:
            earlier = {s.id for s in self.steps}
            problems = step_problems(step, self.tools, earlier)
            if problems:
                raise PlanError("invalid plan step: " + "; ".join(problems))
        self.steps.append(step)
        return step

    def close(self) -> Plan:
        """The whole plan, once the reply has ended; raises `PlanError` when the text is not
        a valid plan (or, with tools, not a valid plan over them)."""
        whole = self._start is not None and self._end is not None
        plan = load_plan(self.text[self._start : self._end] if whole else self.text)
        if self.tools is not None:
            problems = validate_plan(plan, self.tools)
            if problems:
                raise PlanError("invalid plan: " + "; ".join(problems))
        return plan


def _decode_key(literal: str) -> str:
    try:
        key = json.loads(literal)
    except json.JSONDecodeError:
        return ""
    return key if isinstance(key, str) else ""
