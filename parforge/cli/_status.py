"""Task and run states as the CLI colours them (apart from `_task_view`, which imports the
verifier's models, so that `tasks list` does not)."""

from __future__ import annotations

from corpus.store.enums import JobStatus

_STATUS_STYLE: dict[str, str] = {
    JobStatus.QUEUED: "cyan",
    JobStatus.RUNNING: "cyan",
    JobStatus.SUCCEEDED: "green",
    # The run did its job, but nothing passed: a result to read, not a breakdown.
    JobStatus.NO_VERIFIED_CANDIDATE: "yellow",
    # Built and checked, but nothing here could run it (no GPU): not a verdict either way.
    JobStatus.NOT_RUN: "blue",
    JobStatus.FAILED: "red",
    JobStatus.CANCELLED: "magenta",
}


def styled(status: str) -> str:
    """A task or run status as Rich markup, coloured by what it means for the user."""
    return f"[{_STATUS_STYLE.get(status, 'bold')}]{status}[/]"
