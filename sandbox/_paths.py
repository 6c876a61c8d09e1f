"""Workspace-relative path checks shared by the backends."""

from __future__ import annotations

from pathlib import PurePosixPath

from sandbox.errors import WorkspaceError


def safe_relative(path: str) -> PurePosixPath:
    """Return `path` as a relative POSIX path that cannot leave the workspace root."""
    p = PurePosixPath(path)
    if p.is_absolute() or not p.parts or ".." in p.parts:
        raise WorkspaceError(f"path must be relative and stay inside the workspace: {path!r}")
    return p
