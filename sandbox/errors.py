"""Errors raised by the sandbox package.

Only infrastructure failures raise. A candidate that does not compile, gives a wrong answer,
crashes, races, deadlocks or runs out of time is a *result* (a `CommandResult` or a `Verdict`),
never an exception.

    SandboxError                  root of everything this package raises
    ├── SandboxUnavailable        the engine, the image or a required tool is missing
    ├── ImageBuildError           building the sandbox image failed
    └── WorkspaceError            a workspace broke underneath a job (container vanished,
        │                         file transfer failed)
        └── WorkspaceRefused      the workspace refused a file operation (a path that is
                                  now a symlink, a full disk): once a candidate has run
                                  there, `verify` makes it the candidate's verdict
"""


class SandboxError(Exception):
    """Root of every error the sandbox package raises."""


class SandboxUnavailable(SandboxError):
    """The backend cannot run anything: no engine, no image, or a missing tool."""


class ImageBuildError(SandboxError):
    """Building or bootstrapping the sandbox image failed."""


class WorkspaceError(SandboxError):
    """A workspace failed for reasons that are not the program's fault."""


class WorkspaceRefused(WorkspaceError):
    """The workspace is reachable but refused an operation on its files."""
