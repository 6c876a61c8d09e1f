"""Plain C/C++ with gcc/g++: the reference programs, and serial candidates."""

from __future__ import annotations

from sandbox.models import Command
from sandbox.spec import Target
from sandbox.toolchains.base import Paths, Sources, Toolchain, compile_command, link_command


class SerialToolchain(Toolchain):
    """gcc -O2."""

    target = Target.SERIAL

    def compile(self, program: Sources, paths: Paths) -> Command:
        return compile_command(program, paths, "gcc", "g++")

    def link(self, program: Sources, paths: Paths) -> Command:
        return link_command(program, paths, "gcc", "g++")
