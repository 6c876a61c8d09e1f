"""The application layer between the edges (the API, the CLI) and the core: submitting a task,
with every check, and a task's result summary, written once."""

from parforge.app.summary import (
    BestCandidate,
    BestVerdict,
    TaskSummary,
    summarize,
    summary_of,
)
from parforge.app.tasks import OverLimit, Rejected, SubmitError, sandbox_judge, submit

__all__ = [
    "BestCandidate",
    "BestVerdict",
    "OverLimit",
    "Rejected",
    "SubmitError",
    "TaskSummary",
    "sandbox_judge",
    "submit",
    "summarize",
    "summary_of",
]
