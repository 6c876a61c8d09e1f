"""The sound default plan: what runs when the model's plan is missing, invalid or makes no
verified candidate (pure).

Generated tests, then the candidates the target's kit makes (for OpenMP with a loop the
analysis can annotate: two annotated candidates, the model's choice and the analysis's plain
one, and one strategy rewrite; otherwise two strategy rewrites), each verified as soon as it
exists.
"""

from __future__ import annotations

from agents.core import PlanStep
from agents.targets import Draft, kit
from sandbox.spec import Target


def default_plan(
    target: Target, *, annotatable: bool, extra_tests: int, use_model: bool = True
) -> list[PlanStep]:
    plan = Draft()
    tests = plan.add("tests", "inputs at small and odd sizes", count=max(extra_tests, 1))
    made = kit(target).candidates(plan, annotatable=annotatable, use_model=use_model)
    for ref in made:
        plan.add("verify", "prove it", candidate=ref, tests=tests)
    steps = plan.steps
    if extra_tests == 0:
        steps = [s for s in steps if s.tool != "tests"]
        for step in steps:
            step.args.pop("tests", None)
    return steps
