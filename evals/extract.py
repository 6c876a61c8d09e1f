"""From a model's text to a candidate source: pure functions, no I/O.

A completion continues the prompt, which ends inside the function to write (`... {`); like
ParEval, the candidate is the prompt plus the completion up to the brace that closes that
function, so that whatever the model wrote after it (a `main`, prose) does not break the build.
A chat reply is expected to hold the code in a fenced block; it may repeat the whole function or
give only its body.
"""

from __future__ import annotations

import re

from agents.extract import fenced_blocks


def brace_depth(text: str) -> int:
    """Open braces left at the end of `text`, ignoring comments, strings and characters."""
    depth, _ = _scan(text, 0, stop=False)
    return depth


def close_function(prompt: str, completion: str) -> str:
    """`completion` cut right after the brace that closes what `prompt` left open.

    Unchanged when the prompt leaves nothing open or the completion never closes it (a
    truncated sample stays truncated and fails to build: data, not an error).
    """
    depth = brace_depth(prompt)
    if depth <= 0:
        return completion
    _, end = _scan(completion, depth)
    return completion if end is None else completion[:end]


def code_block(reply: str, function: str | None = None) -> str:
    """The code of a chat reply: the last fenced block that defines `function`, else the
    largest block, else the whole reply (fences parsed as `agents.extract` does)."""
    blocks = [b for b in fenced_blocks(reply) if b.code.strip()]
    if not blocks:
        return reply
    if function is not None:
        defining = [b for b in blocks if _definition(b.code, function) is not None]
        if defining:
            return defining[-1].code + "\n"
    return max(blocks, key=lambda b: len(b.code.strip())).code + "\n"


def from_completion(prompt: str, completion: str) -> str:
    """The candidate for a text completion of `prompt`."""
    return prompt + close_function(prompt, completion)


def from_chat(prompt: str, reply: str, function: str) -> str:
    """The candidate for a chat reply to `prompt`, which asks for `function`.

    A reply that defines the function replaces the prompt's signature with its own (keeping the
    prompt's includes and description, and anything the reply defines before the function);
    a reply that does not is taken as the body that follows the prompt.
    """
    code = code_block(reply, function)
    definition = _definition(code, function)
    if definition is None:
        return from_completion(prompt, code if code.startswith("\n") else "\n" + code)
    head, body = definition
    _, end = _scan(code[body:], 0)
    function_text = code[head:] if end is None else code[head : body + end]
    before = code[:head].strip()
    return _preamble(prompt, function) + (before + "\n" if before else "") + function_text


def _definition(code: str, function: str) -> tuple[int, int] | None:
    """(start of the line of the definition of `function`, index of its opening brace)."""
    pattern = re.compile(
        rf"^[^\n;{{}}]*\b{re.escape(function)}\s*\([^;{{}}]*\)[^;{{}}]*\{{", re.MULTILINE
    )
    match = pattern.search(code)
    if match is None:
        return None
    return match.start(), match.end() - 1


def _preamble(prompt: str, function: str) -> str:
    """The prompt up to the line that declares `function` (includes, types, description)."""
    at = prompt.rfind(function + "(")
    if at < 0:
        return ""
    return prompt[: prompt.rfind("\n", 0, at) + 1]


def _scan(text: str, depth: int, stop: bool = True) -> tuple[int, int | None]:
    """Track brace depth from `depth` through `text`; return the final depth and (with `stop`)
    the index just after the first brace that brought it down to 0 (None when none did)."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = _until(text, "\n", i + 2)
            continue
        if text.startswith("/*", i):
            i = _until(text, "*/", i + 2)
            continue
        if c in "\"'":
            i = _string_end(text, i)
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and stop:
                return 0, i + 1
        i += 1
    return depth, None


def _until(text: str, end: str, i: int) -> int:
    at = text.find(end, i)
    return len(text) if at < 0 else at + len(end)


def _string_end(text: str, i: int) -> int:
    quote, j = text[i], i + 1
    while j < len(text) and text[j] != quote and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
    return j + 1
