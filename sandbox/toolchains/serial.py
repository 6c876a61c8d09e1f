"""Plain C/C++ with gcc/g++: the reference programs, and serial candidates."""

from __future__ import annotations

from sandbox.models import Command
from sandbox.spec import Target
from sandbox.toolchains.base import Paths, Program, Toolchain, build_command


class SerialToolchain(Toolchain):
    """gcc -O2."""

    target = Target.SERIAL

    def compile(self, program: Program, paths: Paths) -> Command:
        return build_command(program, paths, "gcc", "g++")
