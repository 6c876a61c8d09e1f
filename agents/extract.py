"""Finding the program in a model's reply (pure).

Models wrap code in Markdown fences, sometimes several: the original next to the answer, a
build command after it, or a fence left open when the reply hit `max_tokens`. The pick: among
the blocks in a C-family language (or with no language named), prefer one that defines `main`,
then the largest, then the last. A reply without any fence is taken whole, and the compiler
judges it; a blank reply has no code at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

C_FAMILY = frozenset({"c", "h", "cpp", "c++", "cc", "cxx", "hpp", "cuda", "cu", "objc"})
"""Fence info strings whose block is taken for C, C++ or CUDA code."""
_OPEN = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)")
_MAIN = re.compile(r"\bmain\s*\(")


@dataclass(frozen=True)
class Block:
    """One fenced block of a reply."""

    language: str
    """The fence's info word, lower-cased ("" when none)."""
    code: str
    closed: bool
    """False when the reply ended inside the block (cut off at `max_tokens`)."""


@dataclass(frozen=True)
class Extracted:
    """The code taken from a reply and how it was found."""

    code: str
    """Empty when the reply holds no code."""
    how: str
    """`fenced block 2 of 3`, `unclosed fence`, `whole reply` or `empty reply`."""


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced block, in order; an unclosed last fence runs to the end of the text."""
    blocks: list[Block] = []
    fence: str | None = None
    language = ""
    lines: list[str] = []
    for line in text.splitlines():
        if fence is None:
            match = _OPEN.match(line)
            if match:
                fence, language, lines = match.group(1), match.group(2).lower(), []
            continue
        stripped = line.strip()
        if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
            blocks.append(Block(language, "\n".join(lines), closed=True))
            fence = None
        else:
            lines.append(line)
    if fence is not None:
        blocks.append(Block(language, "\n".join(lines), closed=False))
    return blocks


def extract_code(reply: str) -> Extracted:
    """The program in `reply` (see the module's docstring for the rules)."""
    blocks = [b for b in fenced_blocks(reply) if b.code.strip()]
    if not blocks:
        code = reply.strip()
        return Extracted(code + "\n" if code else "", "whole reply" if code else "empty reply")
    usable = [b for b in blocks if b.language in C_FAMILY or not b.language] or blocks
    best = max(
        range(len(usable)),
        key=lambda i: (bool(_MAIN.search(usable[i].code)), len(usable[i].code.strip()), i),
    )
    block = usable[best]
    position = blocks.index(block) + 1
    how = f"fenced block {position} of {len(blocks)}" if block.closed else "unclosed fence"
    return Extracted(block.code.strip("\n") + "\n", how)
