"""Task runners: what the worker pool runs for a task (see `corpus.runner`).

`PromptRunner` is prompt mode: K samples from the served model, each verified in the sandbox,
the best kept, every step stored. `GraphRunner` runs the translate graph (agents.graphs.translate) behind the same seam.
"""

from agents.extract import Extracted, extract_code
from agents.prompts.program import build_messages
from agents.runners.config import PromptModeConfig
from agents.runners.graph import GraphRunner
from agents.runners.prompt_mode import PromptRunner
from agents.verifier import SandboxVerifier, Verifier, task_spec

__all__ = [
    "Extracted",
    "GraphRunner",
    "PromptModeConfig",
    "PromptRunner",
    "SandboxVerifier",
    "Verifier",
    "build_messages",
    "extract_code",
    "task_spec",
]
