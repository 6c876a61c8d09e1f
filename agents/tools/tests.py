"""`tests`: inputs the user did not give (MuSL's Tester idea), kept only when the sequential
program runs them cleanly.

The inputs are made mechanically from the user's tests: every integer argument is tried at
small, odd and edge sizes (1, 2, 3, 7, 17 and one less than given), which is where parallel
code breaks (fewer iterations than threads, sizes no block divides). The sequential program is
then checked against itself on them in the sandbox; an input it fails, crashes on or takes too
long with is dropped.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, Field

from agents.judge import check_against_itself
from agents.tools.base import ToolContext
from agents.tools.calls import reserve
from sandbox.spec import TestCase

SIZES = (1, 2, 3, 7, 17)


class TestsArgs(BaseModel):
    __test__ = False

    count: int = Field(default=4, ge=1, le=8)


class TestsResult(BaseModel):
    __test__ = False

    added: list[str]
    dropped: list[str]


def variants(tests: list[TestCase], count: int) -> list[TestCase]:
    """Up to `count` new inputs: one integer argument of a user test changed at a time (pure)."""
    seen = {(tuple(t.args), t.stdin) for t in tests}
    made: list[TestCase] = []
    for test in tests:
        for position, arg in enumerate(test.args):
            if not arg.lstrip("-").isdigit():
                continue
            given = int(arg)
            for size in (*SIZES, given - 1):
                if size < 1 or size >= given:
                    continue
                args = [*test.args]
                args[position] = str(size)
                if (tuple(args), test.stdin) in seen:
                    continue
                seen.add((tuple(args), test.stdin))
                made.append(TestCase(name=f"gen-{len(made) + 1}", args=args, stdin=test.stdin))
                if len(made) == count:
                    return made
    return made


class Tests:
    name: ClassVar[str] = "tests"
    description: ClassVar[str] = (
        "Generate extra test inputs (small, odd and edge sizes) that the original program runs "
        "cleanly; later verify steps use them."
    )
    Args: ClassVar[type[BaseModel]] = TestsArgs

    async def run(self, args: TestsArgs, ctx: ToolContext) -> TestsResult:
        if ctx.view.spec.driver is not None:
            return TestsResult(added=[], dropped=[])  # a problem's driver brings its own inputs
        proposed = variants(list(ctx.view.spec.tests), args.count) if ctx.view.task.tests else []
        if not proposed:
            return TestsResult(added=[], dropped=[])
        # The original against itself: a clean run at every count is what "runs cleanly" means.
        spec = ctx.view.spec.model_copy(update={"tests": proposed, "timing": None})
        reserve(ctx, "sandbox_run")
        verdict = await check_against_itself(ctx.deps.judge, spec)
        outcomes = verdict.equivalence.outcomes if verdict.equivalence else []
        failed = {o.test for o in outcomes if not o.ok}
        ran = {o.test for o in outcomes}
        kept = [t for t in proposed if t.name in ran and t.name not in failed]
        ctx.work.extra_tests = kept
        return TestsResult(
            added=[" ".join(t.args) for t in kept],
            dropped=[" ".join(t.args) for t in proposed if t not in kept],
        )
