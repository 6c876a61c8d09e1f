"""The store's vocabulary (job states, task targets), apart from the tables, so that the CLI
can name them in its options without importing SQLAlchemy and every table."""

from __future__ import annotations

from enum import StrEnum

from sandbox.spec import Target


class JobStatus(StrEnum):
    """Life of a queued job (a task or an eval run)."""

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    NO_VERIFIED_CANDIDATE = "no_verified_candidate"
    """A task that ran to its end, but none of its candidates passed verification (tasks only:
    an eval run's samples are scored, not judged as a whole)."""
    NOT_RUN = "not_run"
    """A task that ran to its end with a candidate that built and passed every check this host
    can run, but that nothing here can run (a CUDA program on a host without a GPU): not
    judged, neither passed nor failed (tasks only)."""
    FAILED = "failed"
    """The infrastructure broke (model, sandbox, worker), not merely every candidate."""
    CANCELLED = "cancelled"

    @property
    def terminal(self) -> bool:
        return self not in (JobStatus.QUEUED, JobStatus.RUNNING)


class ParallelTarget(StrEnum):
    """The targets a task can ask for: `sandbox.spec.Target` without `serial` (its own enum so
    that the API's schema lists only these); `target` is the one `Target` every layer uses."""

    OPENMP = "openmp"
    MPI = "mpi"
    CUDA = "cuda"

    @property
    def target(self) -> Target:
        return Target(self.value)
