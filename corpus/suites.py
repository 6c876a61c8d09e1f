"""Suites: a directory with a manifest and task files, loaded into `SuiteTask`s.

    my-suite/
      suite.toml                 the manifest (`SuiteFile`): name, harness, prompt files
      harness/pf.hpp ...         driver parts named by the manifest's harness table
      <any>/<dir>/task.toml      one task per directory (`TaskFile`), or task.json

`load_suite("pareval")` loads a built-in suite (shipped inside this package);
`load_suite("path/to/my-suite")` loads a user's. Both yield the same `Suite`.
"""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from corpus.errors import SuiteNotFound, TaskFormatError
from corpus.formats import SolutionEntry, SuiteFile, TaskFile
from corpus.tasks import (
    PROBLEM_HEADER,
    Harness,
    HarnessPart,
    KnownGood,
    Mutant,
    SuiteTask,
    TargetTask,
)
from corpus.translation import TranslationTask, translation_tasks
from sandbox.spec import Target

MANIFESTS = ("suite.toml", "suite.json")
TASK_FILES = ("task.toml", "task.json")

# ParEval's names for execution models, as they appear in its prompt files.
_M = TypeVar("_M", bound=BaseModel)

PAREVAL_MODELS = {
    "serial": Target.SERIAL,
    "omp": Target.OPENMP,
    "mpi": Target.MPI,
    "cuda": Target.CUDA,
}


class Suite(BaseModel):
    """A loaded suite: its tasks and its translation tasks."""

    name: str
    description: str = ""
    version: str = "1"
    license: str = ""
    path: str
    tasks: list[SuiteTask]
    translations: list[TranslationTask] = Field(default_factory=list)

    def task(self, name: str) -> SuiteTask:
        for task in self.tasks:
            if task.name == name:
                return task
        raise KeyError(f"suite {self.name} has no task {name}")

    def tasks_for(self, target: Target | str) -> list[SuiteTask]:
        return [t for t in self.tasks if t.applies_to(target)]

    def translation(self, name: str) -> TranslationTask:
        for task in self.translations:
            if task.name == name:
                return task
        raise KeyError(f"suite {self.name} has no translation task {name}")


def builtin_root() -> Path:
    """Where the built-in suites live inside the installed package."""
    return Path(str(resources.files("corpus") / "suites"))


def builtin_suites() -> list[str]:
    """Names of the suites shipped with ParForge."""
    root = builtin_root()
    return sorted(p.name for p in root.iterdir() if _manifest_in(p) is not None)


def load_suite(name_or_path: str | Path) -> Suite:
    """Load a built-in suite by name, or a suite directory by path."""
    path = Path(name_or_path)
    if not path.is_dir():
        candidate = builtin_root() / str(name_or_path)
        if not candidate.is_dir():
            known = ", ".join(builtin_suites())
            raise SuiteNotFound(
                f"no suite {name_or_path!r}: not a directory and not a built-in suite ({known})"
            )
        path = candidate
    manifest_path = _manifest_in(path)
    if manifest_path is None:
        raise SuiteNotFound(f"{path} has no {' or '.join(MANIFESTS)}")
    manifest = _parse(SuiteFile, manifest_path)
    harness = _load_harness(path, manifest)
    prompts = _pareval_prompts(path, manifest.prompts) if manifest.prompts else {}
    tasks = [
        _load_task(file, manifest.name, manifest.cflags, harness, prompts)
        for file in sorted(p for name in TASK_FILES for p in path.rglob(name))
    ]
    names = [t.name for t in tasks]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise TaskFormatError(f"{path}: duplicate task names {duplicates}")
    tasks.sort(key=lambda t: t.name)
    translations: list[TranslationTask] = []
    if manifest.translations:
        entries = _read_json_list(_inside(path, manifest.translations, manifest_path))
        broken = {(o.problem, o.source): o.reason for o in manifest.broken_translation_sources}
        translations = translation_tasks(manifest.name, entries, tasks, broken)
    return Suite(
        name=manifest.name,
        description=manifest.description,
        version=manifest.version,
        license=manifest.license,
        path=str(path),
        tasks=tasks,
        translations=translations,
    )


def _manifest_in(path: Path) -> Path | None:
    for name in MANIFESTS:
        if (path / name).is_file():
            return path / name
    return None


def _read_mapping(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskFormatError(f"{path}: cannot read: {exc}") from exc
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise TaskFormatError(f"{path}: not valid {path.suffix[1:].upper()}: {exc}") from exc
    if not isinstance(data, dict):
        raise TaskFormatError(f"{path}: expected a table/object at the top level")
    return data


def _parse(model: type[_M], path: Path) -> _M:
    try:
        return model.model_validate(_read_mapping(path))
    except ValidationError as exc:
        raise TaskFormatError(f"{path}: {exc}") from exc


def _inside(root: Path, relative: str, referrer: Path) -> Path:
    """`relative` resolved against `root`, refusing paths that leave it."""
    target = (root / relative).resolve()
    if not target.is_relative_to(root.resolve()):
        raise TaskFormatError(f"{referrer}: {relative!r} points outside {root}")
    if not target.is_file():
        raise TaskFormatError(f"{referrer}: {relative!r} does not exist")
    return target


def _read_text(root: Path, relative: str, referrer: Path) -> str:
    try:
        return _inside(root, relative, referrer).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskFormatError(f"{referrer}: cannot read {relative!r}: {exc}") from exc


def _load_harness(root: Path, manifest: SuiteFile) -> Harness:
    manifest_path = _manifest_in(root) or root
    files: dict[str, str] = {}
    targets: dict[Target, HarnessPart] = {}
    for target, entry in manifest.harness.items():
        for relative in [*entry.before, *entry.after]:
            name = Path(relative).name
            text = _read_text(root, relative, manifest_path)
            if name == PROBLEM_HEADER or files.get(name, text) != text:
                raise TaskFormatError(f"{manifest_path}: harness file name {name!r} is used twice")
            files[name] = text
        targets[target] = HarnessPart(
            before=[Path(p).name for p in entry.before], after=[Path(p).name for p in entry.after]
        )
    return Harness(files=files, targets=targets)


def _read_json_list(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TaskFormatError(f"{path}: cannot read: {exc}") from exc
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise TaskFormatError(f"{path}: expected a ParEval-format list of prompt objects")
    return data


def _pareval_prompts(root: Path, relative: str) -> dict[tuple[str, Target], str]:
    path = _inside(root, relative, _manifest_in(root) or root)
    prompts: dict[tuple[str, Target], str] = {}
    for entry in _read_json_list(path):
        model = PAREVAL_MODELS.get(str(entry.get("parallelism_model")))
        if model is not None and "name" in entry and "prompt" in entry:
            prompts[(str(entry["name"]), model)] = str(entry["prompt"])
    return prompts


def _load_task(
    file: Path,
    suite: str,
    suite_cflags: list[str],
    harness: Harness,
    prompts: dict[tuple[str, Target], str],
) -> SuiteTask:
    entry = _parse(TaskFile, file)
    root = file.parent
    targets: dict[Target, TargetTask] = {}
    for target, spec in entry.targets.items():
        if target not in harness.targets:
            raise TaskFormatError(f"{file}: target {target} has no harness in the suite manifest")
        if target is Target.CUDA and Target.SERIAL not in harness.targets:
            raise TaskFormatError(
                f"{file}: a cuda target needs the suite's serial harness for its reference"
            )
        if spec.prompt is not None:
            prompt = spec.prompt
        elif spec.prompt_file is not None:
            prompt = _read_text(root, spec.prompt_file, file)
        elif (entry.name, target) in prompts:
            prompt = prompts[(entry.name, target)]
        else:
            raise TaskFormatError(
                f"{file}: no prompt for target {target} (inline, file or suite prompts)"
            )
        solutions = [_load_solution(root, s, file) for s in spec.solutions]
        targets[target] = TargetTask(
            target=target, prompt=prompt, solutions=solutions, timing_size=spec.timing_size
        )
    return SuiteTask(
        name=entry.name,
        suite=suite,
        problem_type=entry.problem_type,
        language=entry.language,
        function=entry.function,
        signature=entry.signature,
        description=entry.description,
        notes=entry.notes,
        reference=_read_text(root, entry.reference, file),
        problem=_read_text(root, entry.problem, file),
        harness=harness,
        tests=entry.tests,
        timing=entry.timing,
        tolerance=entry.tolerance,
        targets=targets,
        cflags=[*suite_cflags, *entry.cflags],
        libs=entry.libs,
        timeout_s=entry.timeout_s,
        timing_repeats=entry.timing_repeats,
    )


def _load_solution(root: Path, entry: SolutionEntry, file: Path) -> KnownGood:
    source = _read_text(root, entry.file, file)
    mutants = []
    for index, m in enumerate(entry.mutants, start=1):
        mutated = source
        for edit in m.edits:
            count = mutated.count(edit.old)
            if count != 1:
                raise TaskFormatError(
                    f"{file}: mutant {index} of {entry.file}: {edit.old!r} occurs {count} times, not once"
                )
            mutated = mutated.replace(edit.old, edit.new)
        name = f"{Path(entry.file).name}#{index}-{m.kind.value}"
        mutants.append(Mutant(name=name, kind=m.kind, description=m.description, source=mutated))
    return KnownGood(name=Path(entry.file).name, source=source, mutants=mutants)
