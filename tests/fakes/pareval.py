"""The built-in ParEval suite's solutions and planted mutants, by name."""

from __future__ import annotations

from functools import cache

from corpus.suites import Suite, load_suite
from sandbox.spec import Target


@cache
def suite() -> Suite:
    return load_suite("pareval")


def cases(kind: str) -> list[tuple[str, Target, str]]:
    out = []
    for task in suite().tasks:
        for target, entry in task.targets.items():
            for good in entry.solutions:
                if kind == "good":
                    out.append((task.name, target, good.name))
                else:
                    out += [(task.name, target, m.name) for m in good.mutants]
    return out


def source_of(task_name: str, target: Target, name: str) -> str:
    for good in suite().task(task_name).target(target).solutions:
        if good.name == name:
            return good.source
        for mutant in good.mutants:
            if mutant.name == name:
                return mutant.source
    raise KeyError(name)
