"""Translation tasks: port a given implementation of a problem to another execution model.

ParEval's translation prompts come in three directions: serial→OpenMP, serial→MPI and
CUDA→Kokkos. The first two are verified exactly like generation tasks of the destination
target (the candidate is the prompt followed by the model's completion, checked against the
problem's sequential reference). CUDA→Kokkos is listed but not supported: Kokkos is not an
execution model ParForge builds or checks. Two directions are ParForge's own, in ParEval's
layout: CUDA→OpenMP, built from a task's known-good CUDA solution and its OpenMP generation
prompt, and serial→CUDA, built from the task's sequential solution and its CUDA generation
prompt (the kernel's signature and launch are the CUDA driver's, as for generation).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from corpus.errors import UnsupportedTranslation
from corpus.tasks import SuiteTask
from sandbox.spec import Target

# ParEval's model names to ours; names not listed here are not execution models ParForge runs.
MODEL_NAMES = {
    "serial": "serial",
    "omp": "openmp",
    "mpi": "mpi",
    "cuda": "cuda",
    "kokkos": "kokkos",
}
SUPPORTED_DIRECTIONS = {
    ("serial", "openmp"),
    ("serial", "mpi"),
    ("serial", "cuda"),
    ("cuda", "openmp"),
}
_DISPLAY = {
    "serial": "Serial",
    "openmp": "OpenMP",
    "mpi": "MPI",
    "cuda": "CUDA",
    "kokkos": "Kokkos",
}


class TranslationTask(BaseModel):
    """Translate `source` (an implementation in `source_model`) to `target_model`."""

    name: str
    """`<problem>:<source model>-><target model>`."""
    suite: str
    problem: str
    problem_type: str
    source_model: str
    target_model: str
    function: str
    prompt: str
    """What the model completes: the source, commented out, then the destination prompt."""
    source: str
    origin: Literal["pareval", "parforge"]
    supported: bool
    reason: str = ""
    """Why an unsupported task cannot be verified."""
    task: SuiteTask | None = None
    """The problem task whose reference and tests verify a candidate."""

    @property
    def target(self) -> Target:
        if not self.supported:
            raise UnsupportedTranslation(f"{self.name}: {self.reason}")
        return Target(self.target_model)

    def spec_for(self) -> dict[str, Any]:
        """The verifier's spec for a candidate in the destination model (see `SuiteTask.spec_for`)."""
        if not self.supported or self.task is None:
            raise UnsupportedTranslation(f"{self.name}: {self.reason}")
        return self.task.spec_for(self.target)


def translation_tasks(
    suite: str,
    entries: list[dict[str, Any]],
    tasks: list[SuiteTask],
    broken_sources: dict[tuple[str, str], str],
) -> list[TranslationTask]:
    """ParEval-format translation entries, then our CUDA→OpenMP and serial→CUDA tasks, in a
    stable order."""
    by_name = {t.name: t for t in tasks}
    out = [_from_entry(suite, e, by_name, broken_sources) for e in entries]
    out += [_cuda_to_openmp(suite, t) for t in tasks if _has_cuda_source(t)]
    out += [_serial_to_cuda(suite, t) for t in tasks if t.applies_to(Target.CUDA)]
    out.sort(key=lambda t: (t.problem, t.source_model, t.target_model))
    return out


def _from_entry(
    suite: str,
    entry: dict[str, Any],
    tasks: dict[str, SuiteTask],
    broken_sources: dict[tuple[str, str], str],
) -> TranslationTask:
    problem = str(entry["name"])
    src_raw, dst_raw = str(entry["translation_src_model"]), str(entry["translation_dst_model"])
    src, dst = MODEL_NAMES.get(src_raw, src_raw), MODEL_NAMES.get(dst_raw, dst_raw)
    task = tasks.get(problem)
    reason = ""
    if (src, dst) not in SUPPORTED_DIRECTIONS:
        reason = (
            f"{_DISPLAY.get(src, src)}→{_DISPLAY.get(dst, dst)} is not supported: ParForge builds "
            "and verifies serial, OpenMP, MPI and CUDA programs only (no Kokkos toolchain)"
        )
    elif task is None:
        reason = f"the suite has no task {problem} to verify against"
    elif not task.applies_to(dst):
        reason = f"task {problem} does not declare the {dst} target"
    elif (problem, src) in broken_sources:
        reason = broken_sources[(problem, src)]
    return TranslationTask(
        name=f"{problem}:{src}->{dst}",
        suite=suite,
        problem=problem,
        problem_type=str(entry.get("problem_type", task.problem_type if task else "")),
        source_model=src,
        target_model=dst,
        function=str(entry.get("translation_function_name", task.function if task else "")),
        prompt=str(entry["translation_prompt"]),
        source=str(entry["translation_src_example"]),
        origin="pareval",
        supported=not reason,
        reason=reason,
        task=task if not reason else None,
    )


def _has_cuda_source(task: SuiteTask) -> bool:
    return (
        task.applies_to(Target.CUDA)
        and task.applies_to(Target.OPENMP)
        and bool(task.target(Target.CUDA).solutions)
    )


def _cuda_to_openmp(suite: str, task: SuiteTask) -> TranslationTask:
    source = task.target(Target.CUDA).solutions[0].source
    return _ours(suite, task, "cuda", source, Target.OPENMP)


def _serial_to_cuda(suite: str, task: SuiteTask) -> TranslationTask:
    return _ours(suite, task, "serial", task.reference, Target.CUDA)


def _ours(
    suite: str, task: SuiteTask, source_model: str, source: str, target: Target
) -> TranslationTask:
    """A ParForge direction in ParEval's layout: `source`, commented out, then the target's
    generation prompt."""
    source = source.rstrip("\n")
    commented = "\n".join(f"// {line}" if line else "// " for line in source.split("\n"))
    prompt = (
        f"// {_DISPLAY[source_model]} implementation of {task.function}\n{commented}\n\n"
        f"// {_DISPLAY[target.value]} implementation of {task.function}\n"
        f"{task.prompt_for(target)}\n"
    )
    return TranslationTask(
        name=f"{task.name}:{source_model}->{target.value}",
        suite=suite,
        problem=task.name,
        problem_type=task.problem_type,
        source_model=source_model,
        target_model=target.value,
        function=task.function,
        prompt=prompt,
        source=source,
        origin="parforge",
        supported=True,
        task=task,
    )
