"""OpenMP: gcc -fopenmp for tests and timing; clang + ThreadSanitizer + Archer for races."""

from __future__ import annotations

import re

from sandbox.checkers.clike import blank_comments_and_strings, pragmas
from sandbox.models import Command
from sandbox.spec import Spec, Target, TestCase
from sandbox.toolchains.base import (
    BUILD_TIMEOUT_S,
    EXE,
    WARNINGS,
    Paths,
    Program,
    Toolchain,
    build_command,
    c_compiler,
)
from sandbox.verdict import SourceCheck

# Constructs that create parallelism (a lone `critical` or `atomic` does not).
_PARALLEL_WORDS = frozenset(
    [
        "parallel",
        "for",
        "simd",
        "task",
        "taskloop",
        "teams",
        "target",
        "loop",
        "sections",
        "distribute",
    ]
)

TSAN_FLAGS = ("-fopenmp", "-fsanitize=thread", "-g", "-O1", "-fno-omit-frame-pointer")
TSAN_EXITCODE = 66
OBJECT = "prog.o"
LOG_SEPARATOR = "==> parforge: end of the OpenMP runtime's log <=="


class OpenMPToolchain(Toolchain):
    """gcc -O2 -fopenmp; runs with OMP_NUM_THREADS=n."""

    target = Target.OPENMP

    def compile(self, program: Program, paths: Paths) -> Command:
        return build_command(program, paths, "gcc", "g++", ("-O2", "-fopenmp", *WARNINGS))

    def run(
        self, program: Program, case: TestCase, workers: int, timeout_s: float, paths: Paths
    ) -> Command:
        command = super().run(program, case, workers, timeout_s, paths)
        command.env["OMP_NUM_THREADS"] = str(workers)
        return command

    def workers(self, spec: Spec) -> list[int]:
        return sorted(set(spec.threads))

    def source_check(self, source: str) -> SourceCheck:
        found = []
        for p in pragmas(blank_comments_and_strings(source)):
            text = f"#pragma omp {p.text}"
            if set(p.directive.split()) & _PARALLEL_WORDS and text not in found:
                found.append(text)
        if not found:
            return SourceCheck(
                ok=False,
                message="no OpenMP construct that creates parallelism (parallel, for, simd, task, ...)",
            )
        return SourceCheck(ok=True, found=found[:20], message=f"{len(found)} OpenMP directive(s)")


def tsan_compile(program: Program, paths: Paths) -> Command:
    """clang with ThreadSanitizer and debug info, to an object (`OBJECT`) whose symbols the
    integrity check reads before `tsan_link` makes the program."""
    cc = c_compiler(program.language, "clang", "clang++")
    flags = [f for f in program.cflags if not re.match(r"-O\d?$|-march=|-fopenmp", f)]
    return Command(
        argv=[cc, *TSAN_FLAGS, *flags, "-c", "-o", OBJECT, program.main],
        cwd=program.dir,
        env=paths.env(),
        timeout_s=BUILD_TIMEOUT_S,
    )


def tsan_link(program: Program, paths: Paths) -> Command:
    """Link the instrumented object; libomp loads Archer by itself under TSan."""
    cc = c_compiler(program.language, "clang", "clang++")
    return Command(
        argv=[cc, "-fopenmp", "-fsanitize=thread", "-o", EXE, OBJECT, *program.libs, "-lm"],
        cwd=program.dir,
        env=paths.env(),
        timeout_s=BUILD_TIMEOUT_S,
    )


def tsan_run(
    program: Program,
    case: TestCase,
    threads: int,
    schedule: str | None,
    timeout_s: float,
    paths: Paths,
    log: str,
) -> Command:
    """One instrumented run; `schedule` sets OMP_SCHEDULE (for loops rewritten to runtime).

    The tools write to files under the absolute prefix `log`, never to the program's own output:
    TSan to `<log>.tsan.<pid>` (with `verbosity=1` its first line proves it was active with these
    options), libomp's tool search to `<log>.omp`. Options set here override any the program
    defines for itself (`report_bugs=1` against a `__tsan_default_options` that turns it off).
    """
    env = paths.env(
        OMP_NUM_THREADS=str(threads),
        # libomp probes the machine's topology at start by binding its thread to each CPU in
        # turn; on some virtual machines that `sched_setaffinity` stalls for tens of seconds
        # (28 of 40 instrumented runs on a 2-vCPU VM), which turned correct programs into
        # time-outs of the check. Binding is no part of race detection: off.
        KMP_AFFINITY="disabled",
        # Archer tells libomp's synchronization to TSan; verbose=1 prints a banner we check for.
        ARCHER_OPTIONS="verbose=1",
        # libomp logs its tool search once it starts: tells "no OpenMP ran" from "no Archer".
        OMP_TOOL_VERBOSE_INIT=f"{log}.omp",
        TSAN_OPTIONS=" ".join(
            [
                "ignore_noninstrumented_modules=1",
                "halt_on_error=0",
                f"exitcode={TSAN_EXITCODE}",
                "report_bugs=1",
                "verbosity=1",
                f"log_path={log}.tsan",
                "report_signal_unsafe=0",
                f"strip_path_prefix={paths.root}/{program.dir}/",
            ]
        ),
    )
    if schedule:
        env["OMP_SCHEDULE"] = schedule
    return Command(
        argv=[f"./{EXE}", *case.args],
        cwd=program.dir,
        stdin=case.stdin,
        env=env,
        timeout_s=timeout_s,
    )


def tsan_logs(log: str) -> Command:
    """Print the logs of one `tsan_run`: libomp's, a separator line, TSan's."""
    script = (
        f'cat -- "$0.omp" 2>/dev/null; echo "{LOG_SEPARATOR}"; cat -- "$0".tsan.* 2>/dev/null; true'
    )
    return Command(argv=["sh", "-c", script, log], timeout_s=30)
