"""Task runners: what the worker pool runs for a task (see `corpus.runner`).

`PromptRunner` is prompt mode: K samples from the served model, each verified in the sandbox,
the best kept, every step stored. `GraphRunner` runs the translate graph (agents.graphs.translate) behind the same seam.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.extract import Extracted, extract_code
    from agents.judge import Judge, SandboxJudge, task_spec
    from agents.prompts.program import build_messages
    from agents.runners.config import PromptModeConfig
    from agents.runners.graph import GraphRunner
    from agents.runners.prompt_mode import PromptRunner

# Imported on first use: the runners pull in LangGraph and the LLM client, and the settings
# import `agents.runners.config` (which runs this file) on every command.
_EXPORTS = {
    "Extracted": "agents.extract",
    "extract_code": "agents.extract",
    "build_messages": "agents.prompts.program",
    "PromptModeConfig": "agents.runners.config",
    "GraphRunner": "agents.runners.graph",
    "PromptRunner": "agents.runners.prompt_mode",
    "SandboxJudge": "agents.judge",
    "Judge": "agents.judge",
    "task_spec": "agents.judge",
}


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Extracted",
    "GraphRunner",
    "Judge",
    "PromptModeConfig",
    "PromptRunner",
    "SandboxJudge",
    "build_messages",
    "extract_code",
    "task_spec",
]
