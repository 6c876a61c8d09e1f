"""OpenMP: clang -fopenmp (LLVM's libomp) for tests and timing, and the same compiler and runtime
with ThreadSanitizer + Archer for races.

One compiler and one runtime for both builds, on purpose: a candidate that could tell its
instrumented build from its plain one (by `_OPENMP`'s version, a runtime's own API answers, a
symbol only one runtime defines) could race only where nobody checks. What is left to tell them
apart is the instrumentation itself, which the integrity check and the parallel proof narrow
(`sandbox.checkers.integrity`, `sandbox.verify.race`)."""

from __future__ import annotations

import re

from sandbox.checkers.clike import blank_comments_and_strings, pragmas
from sandbox.models import COLLECT, Command
from sandbox.spec import Spec, Target, TestCase
from sandbox.toolchains.base import (
    BUILD_TIMEOUT_S,
    EXE,
    OBJECT,
    WARNINGS,
    Paths,
    Sources,
    Toolchain,
    c_compiler,
    compile_command,
    link_command,
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
TSAN_LOG = "tsan"
"""TSan's report file in the run's tool-log directory (TSan adds `.<pid>`)."""
OMP_LOG = "omp"
"""libomp's tool-registration log in the run's tool-log directory."""
RUNTIME_ENV = {
    # libomp probes the machine's topology at start by binding its thread to each CPU in turn;
    # on some virtual machines that `sched_setaffinity` stalls for tens of seconds (28 of 40
    # instrumented runs on a 2-vCPU VM). The harness pins runs itself (`Command.cpus`).
    "KMP_AFFINITY": "disabled",
    # libomp's helper threads for `target nowait` tasks would start with the runtime: a thread
    # count observed from outside must count only the teams the program asked for.
    "LIBOMP_USE_HIDDEN_HELPER_TASK": "0",
}


class OpenMPToolchain(Toolchain):
    """clang -O2 -fopenmp (libomp); runs with OMP_NUM_THREADS=n."""

    target = Target.OPENMP

    def compile(self, program: Sources, paths: Paths) -> Command:
        return compile_command(program, paths, "clang", "clang++", ("-O2", "-fopenmp", *WARNINGS))

    def link(self, program: Sources, paths: Paths) -> Command:
        return link_command(program, paths, "clang", "clang++", ("-fopenmp",))

    def run(
        self, program: Sources, case: TestCase, workers: int, timeout_s: float, paths: Paths
    ) -> Command:
        command = super().run(program, case, workers, timeout_s, paths)
        command.env.update(RUNTIME_ENV, OMP_NUM_THREADS=str(workers))
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


def tsan_compile(program: Sources, paths: Paths) -> Command:
    """clang with ThreadSanitizer and debug info, to an object (`OBJECT`) whose symbols the
    integrity check reads before `tsan_link` makes the program."""
    cc = c_compiler(program.language, "clang", "clang++")
    flags = [f for f in program.cflags if not re.match(r"-O\d?$|-march=|-fopenmp", f)]
    return Command(
        argv=[cc, *TSAN_FLAGS, *flags, "-c", "-o", OBJECT, program.main],
        cwd=program.dir,
        env=paths.env(),
        timeout_s=BUILD_TIMEOUT_S,
        writes=[program.dir],
    )


def tsan_link(program: Sources, paths: Paths) -> Command:
    """Link the instrumented object; libomp loads Archer by itself under TSan."""
    cc = c_compiler(program.language, "clang", "clang++")
    return Command(
        argv=[cc, "-fopenmp", "-fsanitize=thread", "-o", EXE, OBJECT, *program.libs, "-lm"],
        cwd=program.dir,
        env=paths.env(),
        timeout_s=BUILD_TIMEOUT_S,
        writes=[program.dir],
    )


def tsan_run(
    program: Sources,
    case: TestCase,
    threads: int,
    schedule: str | None,
    timeout_s: float,
    paths: Paths,
) -> Command:
    """One instrumented run; `schedule` sets OMP_SCHEDULE (for loops rewritten to runtime).

    The tools write into the run's tool-log directory (`Command.collect`), never into the
    program's own output: TSan to `tsan.<pid>` (with `verbosity=1` its first line proves it was
    active with these options), libomp's tool search to `omp`. The directory is fresh for the
    run, and the program can neither list it nor learn its name without reading its own
    environment (which the integrity check refuses). Options set here override any the program
    defines for itself (`report_bugs=1` against a `__tsan_default_options` that turns it off).
    """
    env = paths.env(
        **RUNTIME_ENV,
        OMP_NUM_THREADS=str(threads),
        # Archer tells libomp's synchronization to TSan; verbose=1 prints a banner we check for.
        ARCHER_OPTIONS="verbose=1",
        # libomp logs its tool search once it starts: tells "no OpenMP ran" from "no Archer".
        OMP_TOOL_VERBOSE_INIT=f"{COLLECT}/{OMP_LOG}",
        TSAN_OPTIONS=" ".join(
            [
                "ignore_noninstrumented_modules=1",
                "halt_on_error=0",
                f"exitcode={TSAN_EXITCODE}",
                "report_bugs=1",
                "verbosity=1",
                f"log_path={COLLECT}/{TSAN_LOG}",
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
        collect=True,
    )


def tool_logs(files: dict[str, str]) -> tuple[str, str]:
    """(libomp's log, TSan's log) from one `tsan_run`'s collected files."""
    omp = files.get(OMP_LOG, "")
    tsan = "".join(text for name, text in sorted(files.items()) if name.startswith(TSAN_LOG))
    return omp, tsan
