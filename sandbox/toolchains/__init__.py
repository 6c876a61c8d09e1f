"""One toolchain per execution model: how to build, how to run with n workers, source checks.

`toolchain_for(target)` picks one; `reference_toolchain(target)` the one the spec's sequential
reference is built with (the target's CPU toolchain; plain gcc for CUDA).
"""

from __future__ import annotations

from sandbox.spec import Target
from sandbox.toolchains.base import Paths, Sources, Toolchain
from sandbox.toolchains.cuda import DEFAULT_ARCH, CUDAToolchain
from sandbox.toolchains.mpi import MPIToolchain
from sandbox.toolchains.openmp import OpenMPToolchain
from sandbox.toolchains.serial import SerialToolchain

__all__ = ["Paths", "Sources", "Toolchain", "reference_toolchain", "toolchain_for"]


def toolchain_for(target: Target, cuda_arch: str = DEFAULT_ARCH) -> Toolchain:
    """The toolchain that builds and runs candidates for `target`."""
    if target is Target.OPENMP:
        return OpenMPToolchain()
    if target is Target.MPI:
        return MPIToolchain()
    if target is Target.CUDA:
        return CUDAToolchain(cuda_arch)
    return SerialToolchain()


def reference_toolchain(target: Target) -> Toolchain:
    """The toolchain for the sequential reference of a spec aimed at `target`."""
    return SerialToolchain() if target is Target.CUDA else toolchain_for(target)
