"""How the MPI toolchain starts a run."""

from __future__ import annotations

from sandbox.spec import Language, TestCase
from sandbox.toolchains.base import Paths, Sources
from sandbox.toolchains.mpi import MPIToolchain


def test_mpirun_starts_without_hwlocs_per_cpu_probe():
    """hwloc's x86 back end binds mpirun to each CPU in turn before any rank starts; on a 2-vCPU
    VM with the model server generating, most rounds of runs in the sandbox image then started
    no rank before their time-out (docs/limits.md): MPI runs leave that back end out, as OpenMP
    runs leave libomp's probe out (`KMP_AFFINITY=disabled`)."""
    program = Sources(dir="cand", main="main.c", language=Language.C)
    command = MPIToolchain().run(program, TestCase(name="t", args=["1"]), 2, 10.0, Paths("/w"))
    assert command.env["HWLOC_COMPONENTS"] == "-x86"
    assert command.argv[:3] == ["mpirun", "-np", "2"] and "--bind-to" in command.argv
