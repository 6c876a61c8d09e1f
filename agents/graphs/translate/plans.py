"""The sound default plan: what runs when the model's plan is missing, invalid or makes no
verified candidate (pure).

For OpenMP: generated tests, retrieved examples, two annotated candidates (the model's choice
and the analysis's plain one) and one strategy rewrite, each verified as soon as it exists.
For MPI and CUDA: two strategy rewrites, verified.
"""

from __future__ import annotations

from agents.core import PlanStep
from agents.tools import STRATEGIES
from sandbox.spec import Target

FIRST_ID = 101
"""Default steps are numbered from here, so they never clash with a model's plan."""


def default_plan(
    target: Target, *, annotatable: bool, extra_tests: int, use_model: bool = True
) -> list[PlanStep]:
    steps: list[PlanStep] = []

    def add(tool: str, why: str, **args: object) -> str:
        steps.append(PlanStep(id=FIRST_ID + len(steps), tool=tool, args=dict(args), why=why))
        return f"${steps[-1].id}"

    tests = add("tests", "inputs at small and odd sizes", count=max(extra_tests, 1))
    made: list[str] = []
    if not use_model:
        if target is Target.OPENMP and annotatable:
            made.append(add("annotate", "the analysis's plain choice", mode="analysis"))
    elif target is Target.OPENMP and annotatable:
        examples = add("examples", "verified code of similar loops")
        made.append(add("annotate", "the model picks directives", mode="model", examples=examples))
        made.append(add("annotate", "the analysis's plain choice", mode="analysis"))
        made.append(add("rewrite", "a whole-program rewrite", strategy="", examples=examples))
    else:
        examples = add("examples", "verified code of similar loops")
        for strategy in STRATEGIES[target][:2]:
            made.append(
                add("rewrite", "a whole-program rewrite", strategy=strategy, examples=examples)
            )
    for ref in made:
        add("verify", "prove it", candidate=ref, tests=tests)
    if extra_tests == 0:
        steps = [s for s in steps if s.tool != "tests"]
        for step in steps:
            step.args.pop("tests", None)
    return steps
