"""Run generated programs sequentially and annotated, and collect unsound annotations.

For each program: (1) build it with `gcc -O1 -fsanitize=undefined,address` (g++ for C++) and
run it; a program that fails is the generator's bug and is discarded (counted). (2) Analyse it,
annotate every outermost annotatable loop of a snippet the default way, then again with
`schedule(static,1)` and `schedule(dynamic,1)`; build each with `-O2 -fopenmp`, run it at 1, 2
and 4 threads and compare with the sequential output (`oracle.compare_outputs`). A snippet whose
output differs, or an annotated program that crashes or times out, is an unsound annotation of
that snippet's loop.

The programs are generated here, not supplied by a user, so they run on the host in a temporary
directory, each under a time-out.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from agents.analysis import (
    AnalysisError,
    AnnotationError,
    LoopChoice,
    analyse,
    annotatable,
    apply_choices,
    default_choices,
)
from agents.analysis.model import Loop, Program
from evals.fuzz.generator import HAZARDS, GeneratedProgram, generate
from evals.fuzz.oracle import compare_outputs, snippet_of
from sandbox.spec import Language

THREADS = (1, 2, 4)
SCHEDULES: tuple[tuple[str, str | None, int | None], ...] = (
    ("default", None, None),
    ("static,1", "static", 1),
    ("dynamic,1", "dynamic", 1),
)
SANITIZE = ["-O1", "-g", "-fsanitize=undefined,address", "-fno-sanitize-recover=all"]
PARALLEL = ["-O2", "-fopenmp"]
RUN_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class UnsoundCase:
    """One annotated loop whose parallel run differed from the sequential run."""

    program: str
    language: str
    klass: str
    detail: str
    loop: str
    reason: str
    schedule: str
    threads: int
    failure: str
    """`mismatch`, `crash` or `timeout`."""
    expected: str
    actual: str
    source: str
    annotated: str


@dataclass
class ProgramResult:
    name: str
    discarded: str | None = None
    """Why the sequential program failed (the generator's bug), or None."""
    loops: list[tuple[str, bool]] = field(default_factory=list)
    """(class, annotated) for every snippet of the program."""
    unsound: list[UnsoundCase] = field(default_factory=list)
    annotation_errors: list[str] = field(default_factory=list)
    language: Language = Language.C
    annotated: str | None = None
    """The program with the default annotation (for a race checker's sample), if any."""

    @property
    def hazard_annotated(self) -> bool:
        """Whether a loop annotated by default is hazardous by construction."""
        return any(annotated and klass in HAZARDS for klass, annotated in self.loops)


def _compiler(language: Language) -> str:
    return "g++" if language is Language.CPP else "gcc"


def _build(source: str, language: Language, flags: list[str], work: Path, name: str) -> str | None:
    """Compile; the error text on failure, None on success."""
    suffix = ".cpp" if language is Language.CPP else ".c"
    src = work / f"{name}{suffix}"
    src.write_text(source)
    cmd = [_compiler(language), *flags, str(src), "-o", str(work / name), "-lm"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return None if done.returncode == 0 else done.stderr[-2000:]


def _run(binary: Path, threads: int) -> tuple[str, str | None]:
    """Output, and `crash`/`timeout` or None."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), ASAN_OPTIONS="detect_leaks=0")
    try:
        done = subprocess.run(
            [str(binary)], capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        return "", "timeout"
    return done.stdout, None if done.returncode == 0 else f"crash: {done.stderr[-500:]}"


@dataclass(frozen=True)
class ParallelRun:
    """One run of an annotated program at one thread count."""

    threads: int
    output: str
    failure: str | None
    """`crash: ...` or `timeout`, None when it exited normally."""
    differing: frozenset[str]
    """The prefixes (`s2_`) of the snippets whose printed state differs from the sequential."""


def run_annotated(
    annotated: str, language: Language, expected: str, work: Path, label: str = "par"
) -> tuple[str | None, list[ParallelRun]]:
    """Build an annotated program with OpenMP and run it at each of THREADS, comparing with the
    sequential output `expected`; the compiler's error instead when it does not build."""
    binary = "par_" + "".join(c if c.isalnum() else "_" for c in label)
    error = _build(annotated, language, PARALLEL, work, binary)
    if error is not None:
        return error, []
    runs = []
    for threads in THREADS:
        actual, failed = _run(work / binary, threads)
        differing = frozenset(snippet_of(n) for n in compare_outputs(expected, actual))
        runs.append(ParallelRun(threads, actual, failed, differing))
    return None, runs


def run_sequential(source: str, language: Language, work: Path) -> tuple[str, str | None]:
    """Build with the sanitizers and run once: the output, and why it failed (or None)."""
    error = _build(source, language, SANITIZE, work, "seq")
    return _run(work / "seq", 1) if error is None else ("", error)


def _outermost(program: Program) -> list[Loop]:
    """Annotatable snippet loops with no annotatable loop around them (the setup and printing
    loops in `main` belong to the harness, not to a snippet)."""
    loops = annotatable(program)
    ids = {loop.id for loop in loops}
    return [
        loop
        for loop in loops
        if loop.function.split("::")[-1].startswith("s")
        and "_" in loop.function
        and not any(a in ids for a in loop.ancestors)
    ]


def _snippet_prefix(loop: Loop) -> str:
    return snippet_of(loop.function.split("::")[-1])


def _choices(
    source: str, program: Program, loops: list[Loop], schedule: str | None, chunk: int | None
) -> list[LoopChoice]:
    """The default choices, or every loop with this schedule; a loop that refuses it (a scan
    or an argmin needs one static block per thread) keeps its default."""
    if schedule is None:
        return default_choices(loops)
    defaults = {choice.loop: choice for choice in default_choices(loops)}
    choices = []
    for loop in loops:
        default = defaults.get(loop.id, LoopChoice(loop=loop.id))
        choice = LoopChoice(loop=loop.id, schedule=schedule, chunk=chunk)
        try:
            apply_choices(source, program, [choice])
        except AnnotationError:
            choice = default
        choices.append(choice)
    return choices


def check_program(generated: GeneratedProgram, work: Path) -> ProgramResult:
    """Run one program sequentially and annotated (see the module docstring)."""
    result = ProgramResult(generated.name, language=generated.language)
    lang, source = generated.language, generated.source
    expected, failed = run_sequential(source, lang, work)
    if failed:
        result.discarded = failed
        return result
    try:
        program = analyse(source, lang)
    except AnalysisError as exc:
        result.annotation_errors.append(f"analyse: {exc}")
        program = None
    loops = _outermost(program) if program else []
    by_prefix = {_snippet_prefix(loop): loop for loop in loops}
    snippets = {s.prefix: s for s in generated.snippets}
    result.loops = [(s.klass, s.prefix in by_prefix) for s in generated.snippets]
    if not loops or program is None:
        return result
    for label, schedule, chunk in SCHEDULES:
        try:
            annotated = apply_choices(
                source, program, _choices(source, program, loops, schedule, chunk)
            )
        except AnalysisError as exc:
            result.annotation_errors.append(f"{label}: {exc}")
            continue
        if schedule is None:
            result.annotated = annotated
        error, runs = run_annotated(annotated, lang, expected, work, label)
        if error is not None:
            result.annotation_errors.append(f"{label}: annotated program does not compile: {error}")
            continue
        for run in runs:
            culprits = set(by_prefix) if run.failure else run.differing
            for prefix in sorted(culprits & set(by_prefix)):
                if any(c.loop == by_prefix[prefix].id for c in result.unsound):
                    continue  # one case per loop is enough to report
                s, loop = snippets[prefix], by_prefix[prefix]
                result.unsound.append(
                    UnsoundCase(
                        generated.name,
                        lang.value,
                        s.klass,
                        s.detail,
                        loop.id,
                        loop.dependence.reason,
                        label,
                        run.threads,
                        (run.failure or "mismatch").split(":")[0],
                        _lines_of(expected, prefix),
                        _lines_of(run.output, prefix),
                        source,
                        annotated,
                    )
                )
    return result


def _lines_of(output: str, prefix: str, limit: int = 400) -> str:
    """The snippet's output lines, shortened for a report."""
    lines = [line[:limit] for line in output.splitlines() if line.startswith(prefix)]
    return "\n".join(lines)


def _check_in_tempdir(generated: GeneratedProgram) -> ProgramResult:
    with tempfile.TemporaryDirectory(prefix="parforge-fuzz-") as tmp:
        try:
            return check_program(generated, Path(tmp))
        except subprocess.TimeoutExpired:
            return ProgramResult(generated.name, discarded="compiler time-out")


@dataclass
class FuzzStats:
    """What a run found: the figures the benchmark prints."""

    generated: int = 0
    discarded: int = 0
    by_class: Counter[str] = field(default_factory=Counter)
    annotated_by_class: Counter[str] = field(default_factory=Counter)
    unsound_by_class: Counter[str] = field(default_factory=Counter)
    unsound: list[UnsoundCase] = field(default_factory=list)
    annotation_errors: list[str] = field(default_factory=list)
    discard_reasons: list[str] = field(default_factory=list)
    annotated: list[ProgramResult] = field(default_factory=list)
    """The programs that got an annotation, in order (their sources, for a race checker)."""
    seconds: float = 0.0

    def add(self, result: ProgramResult) -> None:
        self.generated += 1
        if result.discarded:
            self.discarded += 1
            self.discard_reasons.append(f"{result.name}: {result.discarded[:300]}")
            return
        for klass, annotated in result.loops:
            self.by_class[klass] += 1
            self.annotated_by_class[klass] += annotated
        for case in result.unsound:
            self.unsound_by_class[case.klass] += 1
        self.unsound += result.unsound
        if result.annotated is not None:
            self.annotated.append(result)
        self.annotation_errors += [f"{result.name}: {e}" for e in result.annotation_errors]


def recall(stats: FuzzStats, shapes: Iterable[str]) -> float:
    """Share of parallel-by-construction loops the analysis found annotatable."""
    names = list(shapes)
    total = sum(stats.by_class[k] for k in names)
    return sum(stats.annotated_by_class[k] for k in names) / total if total else 0.0


def run_many(
    seed: int, programs: int, jobs: int = 1, progress: Callable[[ProgramResult], None] | None = None
) -> FuzzStats:
    """Generate and check `programs` programs of stream `seed`, `jobs` at a time."""
    stats = FuzzStats()
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for result in pool.map(_check_in_tempdir, (generate(seed, i) for i in range(programs))):
            stats.add(result)
            if progress:
                progress(result)
    stats.seconds = time.perf_counter() - start
    return stats
