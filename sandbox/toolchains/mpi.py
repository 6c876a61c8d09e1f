"""MPI: OpenMPI's mpicc/mpicxx, run by mpirun on one host with shared memory only."""

from __future__ import annotations

import re

from sandbox.checkers.clike import blank_comments_and_strings
from sandbox.models import SCRATCH, Command, CommandResult
from sandbox.spec import Spec, Target, TestCase
from sandbox.toolchains.base import (
    EXE,
    Paths,
    Sources,
    Toolchain,
    compile_command,
    link_command,
    whole_seconds,
)
from sandbox.verdict import SourceCheck

_COMMUNICATION = re.compile(
    r"^I?(?:Send|Ssend|Bsend|Rsend|Recv|Sendrecv|Bcast|Reduce|Allreduce|Gather|Allgather|Scatter|"
    r"Alltoall|Scan|Exscan|Reduce_scatter|Put|Get|Accumulate|Get_accumulate|Fetch_and_op|"
    r"Compare_and_swap|Neighbor_)"
)
TIME_LIMIT_MESSAGE = "time limit for job execution has been reached"
"""What mpirun prints when its own `--timeout` stops a job (a hang: deadlock or endless loop)."""
_GRACE_S = 15.0
HWLOC_COMPONENTS = "-x86"
"""hwloc without its x86 back end: see `MPIToolchain.run`."""
# Open MPI 4.1 with PMIx 4 now and then crashes or hangs inside MPI_Finalize: PMIx's progress
# thread runs code of a component that finalize has already unloaded (open-mpi/ompi#10117, still
# open; here about 1 run in 450 crashes when the machine is busy, and rarely one hangs). Such a run
# is repeated once and only a failure that recurs counts. A crash counts as the runtime's when Open MPI's report
# has no stack frames (its handler cannot walk code that is gone) and the faulting address lies in
# the shared-library area; a program's own crash prints frames, and one that jumps into unmapped
# memory itself does it again. Any hang is run again: a deadlock hangs the second time too.
_CRASH_REPORT = re.compile(r"\*\*\* Process received signal \*\*\*")
_FRAME = re.compile(r"\] \[ ?\d+\] ")
_FAULT_ADDRESS = re.compile(r"Failing at address: (\S+)")
_LIBRARY_AREA = re.compile(r"0x7f[0-9a-f]{10}")


STARTUP_PROBE = """\
#include <mpi.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Finalize();
  return 0;
}
"""
"""Starts and ends the MPI runtime: what n ranks cost beyond the one rank the reference runs at
(mpirun spawning and wiring up the other ranks)."""


class MPIToolchain(Toolchain):
    """mpicc -O2; `mpirun -np n` with --oversubscribe, no network transports, root allowed."""

    target = Target.MPI
    startup_probe = STARTUP_PROBE

    def compile(self, program: Sources, paths: Paths) -> Command:
        return compile_command(program, paths, "mpicc", "mpicxx")

    def link(self, program: Sources, paths: Paths) -> Command:
        return link_command(program, paths, "mpicc", "mpicxx")

    def run(
        self, program: Sources, case: TestCase, workers: int, timeout_s: float, paths: Paths
    ) -> Command:
        # Every command has a scratch directory of its own: runs that overlap never share
        # Open MPI's session files.
        session = SCRATCH
        argv = [
            "mpirun", "-np", str(workers), "--oversubscribe", "--bind-to", "none",
            # One host, no network: launch locally, talk through shared memory only.
            "--mca", "plm", "isolated", "--mca", "pml", "ob1", "--mca", "btl", "self,vader",
            # Containers usually forbid the cross-process copy (ptrace) vader would use.
            "--mca", "btl_vader_single_copy_mechanism", "none",
            "--mca", "btl_vader_backing_directory", session,
            # mpirun's own limit kills every rank and says so; the sandbox's is the backstop.
            "--timeout", str(whole_seconds(timeout_s)),
            f"./{EXE}", *case.args,
        ]  # fmt: skip
        env = paths.env(
            TMPDIR=session,
            OMPI_ALLOW_RUN_AS_ROOT="1",
            OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
            OMPI_MCA_orte_tmpdir_base=session,
            # mpirun discovers the machine's topology with hwloc before it starts a rank, and
            # hwloc's x86 back end binds itself to each CPU in turn to run CPUID there: on a
            # 2-vCPU VM with the model server generating, that spun for minutes before any rank
            # started (the class of libomp's probe, `openmp.RUNTIME_ENV`), and correct programs
            # were judged `deadlock`. /proc and /sys give all mpirun needs (`--bind-to none`).
            HWLOC_COMPONENTS=HWLOC_COMPONENTS,
        )
        return Command(
            argv=argv, cwd=program.dir, stdin=case.stdin, env=env, timeout_s=timeout_s + _GRACE_S
        )

    def workers(self, spec: Spec) -> list[int]:
        return sorted(set(spec.ranks))

    def source_check(self, source: str) -> SourceCheck:
        calls = []
        for name in re.findall(r"\bMPI_(\w+)\s*\(", blank_comments_and_strings(source)):
            if name not in calls:
                calls.append(name)
        comm = [f"MPI_{c}" for c in calls if _COMMUNICATION.match(c)]
        if not comm:
            seen = ", ".join(f"MPI_{c}" for c in calls) or "no MPI calls"
            return SourceCheck(
                ok=False,
                found=[f"MPI_{c}" for c in calls],
                message=f"no MPI communication ({seen})",
            )
        return SourceCheck(
            ok=True, found=comm[:20], message=f"{len(comm)} MPI communication call(s)"
        )

    def timed_out(self, exit_code: int | None, stderr: str) -> bool:
        return exit_code != 0 and TIME_LIMIT_MESSAGE in stderr

    def runtime_fault(self, result: CommandResult) -> str | None:
        if result.timed_out or self.timed_out(result.exit_code, result.stderr):
            return "a hang may be Open MPI's own (open-mpi/ompi#10117)"
        if result.ok or not _CRASH_REPORT.search(result.stderr):
            return None
        addresses = _FAULT_ADDRESS.findall(result.stderr)
        if _FRAME.search(result.stderr) or not addresses:
            return None
        if not all(_LIBRARY_AREA.fullmatch(a) for a in addresses):
            return None
        return "Open MPI crashed in unloaded runtime code (open-mpi/ompi#10117)"
