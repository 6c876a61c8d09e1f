"""CUDA: nvcc with the ptxas resource report; runs (and compute-sanitizer) only with a GPU."""

from __future__ import annotations

import re

from sandbox.checkers.clike import blank_comments_and_strings
from sandbox.models import COLLECT, Command
from sandbox.spec import Target, TestCase
from sandbox.toolchains.base import BUILD_TIMEOUT_S, EXE, OBJECT, Paths, Sources, Toolchain
from sandbox.verdict import SourceCheck

DEFAULT_ARCH = "sm_80"
"""What CPU-only hosts compile for: SASS for Ampere plus PTX that newer GPUs JIT-compile."""
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck")
SANITIZER_EXITCODE = 99
"""compute-sanitizer's exit status when its tool found errors (`--error-exitcode`)."""
SANITIZER_LOG = "report"
"""compute-sanitizer's report in the run's tool-log directory."""


STARTUP_PROBE = """\
#include <cuda_runtime.h>
__global__ void pf_startup_probe(int *flag) { *flag = 1; }
int main() {
  int *flag = nullptr;
  if (cudaMalloc(&flag, sizeof(int)) != cudaSuccess) return 3;
  pf_startup_probe<<<1, 1>>>(flag);
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  int host = 0;
  if (cudaMemcpy(&host, flag, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) return 3;
  cudaFree(flag);
  return host == 1 ? 0 : 3;
}
"""
"""Creates a context, loads a module and runs one kernel: the start-up every CUDA program pays
and the serial reference does not (a few hundred milliseconds on an H100 host)."""


class CUDAToolchain(Toolchain):
    """nvcc -O2 -arch=<arch> -lineinfo -Xptxas -v."""

    target = Target.CUDA
    startup_probe = STARTUP_PROBE

    def __init__(self, arch: str = DEFAULT_ARCH) -> None:
        self.arch = arch

    def compile(self, program: Sources, paths: Paths) -> Command:
        flags = ["-O2", f"-arch={self.arch}", "-lineinfo", "-Xptxas", "-v", *program.cflags]
        return Command(
            argv=["nvcc", *flags, "-c", "-o", OBJECT, program.main],
            cwd=program.dir,
            env=paths.env(),
            timeout_s=BUILD_TIMEOUT_S,
            writes=[program.dir],
        )

    def link(self, program: Sources, paths: Paths) -> Command:
        return Command(
            argv=["nvcc", f"-arch={self.arch}", "-o", EXE, OBJECT, *program.libs],
            cwd=program.dir,
            env=paths.env(),
            timeout_s=BUILD_TIMEOUT_S,
            writes=[program.dir],
        )

    def source_check(self, source: str) -> SourceCheck:
        text = blank_comments_and_strings(source)
        kernels = re.findall(r"__global__\s+(?:[\w:<>,*&\s]+?\s+)?(\w+)\s*\(", text)
        if not kernels:
            return SourceCheck(ok=False, message="no __global__ kernel")
        found = [f"__global__ {k}" for k in dict.fromkeys(kernels)]
        if re.search(r"<<<|cudaLaunchKernel", text):
            found.append("kernel launch")
        return SourceCheck(ok=True, found=found, message=f"{len(kernels)} kernel(s)")

    def sanitizer(
        self,
        program: Sources,
        tool: str,
        case: TestCase,
        timeout_s: float,
        paths: Paths,
    ) -> Command:
        """The program under compute-sanitizer's `tool`, exiting `SANITIZER_EXITCODE` on errors.

        The tool writes its report into the run's tool-log directory (fresh for the run, not
        listable by the program), never to the program's own output: what the program prints
        cannot pass for the tool's report.
        """
        options = [
            f"--tool={tool}",
            f"--error-exitcode={SANITIZER_EXITCODE}",
            "--print-limit=50",
            "--log-file",
            f"{COLLECT}/{SANITIZER_LOG}",
        ]
        if tool == "racecheck":
            options.append("--racecheck-report=hazard")
        return Command(
            argv=["compute-sanitizer", *options, f"./{EXE}", *case.args],
            cwd=program.dir,
            stdin=case.stdin,
            env=paths.env(),
            timeout_s=timeout_s,
            collect=True,
        )
