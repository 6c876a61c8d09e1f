"""What every toolchain provides: a build command, a run command for n workers, a source check."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from sandbox.models import Command, CommandResult
from sandbox.spec import Language, Spec, Target, TestCase
from sandbox.verdict import SourceCheck

EXE = "prog"
"""Name of the built program inside its directory."""
OBJECT = "prog.o"
"""The program's own object, compiled before linking: what the integrity check reads."""
BUILD_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class Sources:
    """Sources laid out in one workspace directory, to be built into `<dir>/prog`."""

    dir: str
    main: str
    """The file handed to the compiler (`main.cpp`, or `driver.cpp` that includes the solution)."""
    language: Language
    cflags: tuple[str, ...] = ()
    libs: tuple[str, ...] = ()

    @property
    def exe(self) -> str:
        return f"{self.dir}/{EXE}"

    @property
    def object(self) -> str:
        return f"{self.dir}/{OBJECT}"


@dataclass(frozen=True)
class Paths:
    """Where the workspace is, for tools that want absolute paths (report path prefixes).

    The workspace protocol runs commands relative to its root but does not say where that is,
    so `verify` asks once (`pwd`) and passes the answer along. Every command gets its own HOME
    and TMPDIR from the backend (`sandbox.models.SCRATCH`).
    """

    root: str
    extra_env: dict[str, str] = field(default_factory=dict)

    def env(self, **more: str) -> dict[str, str]:
        return {**self.extra_env, **more}


class Toolchain(ABC):
    """Build and run commands for one execution model."""

    target: Target
    startup_probe: str | None = None
    """Source of a program that only starts this model's runtime and exits (CUDA: a context, a
    module load, one tiny kernel), or None when starting one costs nothing worth measuring. The
    timing stage runs it beside the candidate: its wall time is what any honest program of this
    model spends outside its kernel on top of the serial reference (`sandbox.verify.speedup`)."""

    @abstractmethod
    def compile(self, program: Sources, paths: Paths) -> Command:
        """The command that compiles `program` into its object (`program.object`)."""

    @abstractmethod
    def link(self, program: Sources, paths: Paths) -> Command:
        """The command that links the object into `program.exe`."""

    def run(
        self, program: Sources, case: TestCase, workers: int, timeout_s: float, paths: Paths
    ) -> Command:
        """The command that runs the built program on one input with `workers` threads/ranks."""
        return Command(
            argv=[f"./{EXE}", *case.args],
            cwd=program.dir,
            stdin=case.stdin,
            env=paths.env(),
            timeout_s=timeout_s,
        )

    def workers(self, spec: Spec) -> list[int]:
        """Thread or rank counts a candidate is tested and timed at."""
        return [1]

    def source_check(self, source: str) -> SourceCheck:
        """Does the source use this model at all? (The serial toolchain says yes to anything.)"""
        return SourceCheck(ok=True, message="serial code needs no parallel constructs")

    def timed_out(self, exit_code: int | None, stderr: str) -> bool:
        """Whether a run that ended by itself was stopped by the tool's own time limit."""
        return False

    def runtime_fault(self, result: CommandResult) -> str | None:
        """Why a failed run may be the fault of the tool's own runtime rather than the program's
        (`verify` then runs it once more and only a failure that recurs counts), or None: by
        default every failure is the program's."""
        return None


def c_compiler(language: Language, c: str, cxx: str) -> str:
    return cxx if language is Language.CPP else c


WARNINGS = ("-Wall",)


def compile_command(
    program: Sources, paths: Paths, c: str, cxx: str, flags: tuple[str, ...] = ("-O2", *WARNINGS)
) -> Command:
    """`cc FLAGS CFLAGS -c -o prog.o MAIN` in the program's directory, C or C++ compiler by the
    program's language; only that directory is writable."""
    cc = c_compiler(program.language, c, cxx)
    return Command(
        argv=[cc, *flags, *program.cflags, "-c", "-o", OBJECT, program.main],
        cwd=program.dir,
        env=paths.env(),
        timeout_s=BUILD_TIMEOUT_S,
        writes=[program.dir],
    )


def link_command(
    program: Sources, paths: Paths, c: str, cxx: str, flags: tuple[str, ...] = ()
) -> Command:
    """`cc FLAGS -o prog prog.o LIBS -lm` in the program's directory."""
    cc = c_compiler(program.language, c, cxx)
    return Command(
        argv=[cc, *flags, "-o", EXE, OBJECT, *program.libs, "-lm"],
        cwd=program.dir,
        env=paths.env(),
        timeout_s=BUILD_TIMEOUT_S,
        writes=[program.dir],
    )


def whole_seconds(timeout_s: float) -> int:
    return max(1, math.ceil(timeout_s))
