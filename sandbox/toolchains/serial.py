"""Plain C/C++ with gcc/g++: the reference programs, and serial candidates."""

from __future__ import annotations

from sandbox.models import Command
from sandbox.spec import Target
from sandbox.toolchains.base import BUILD_TIMEOUT_S, EXE, Paths, Program, Toolchain, c_compiler

WARNINGS = ("-Wall",)


class SerialToolchain(Toolchain):
    """gcc -O2."""

    target = Target.SERIAL

    def compile(self, program: Program, paths: Paths) -> Command:
        cc = c_compiler(program.language, "gcc", "g++")
        return Command(
            argv=[
                cc,
                "-O2",
                *WARNINGS,
                *program.cflags,
                "-o",
                EXE,
                program.main,
                *program.libs,
                "-lm",
            ],
            cwd=program.dir,
            env=paths.env(),
            timeout_s=BUILD_TIMEOUT_S,
        )
