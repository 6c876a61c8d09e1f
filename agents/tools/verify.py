"""`verify`: build, test, race-check and time a candidate in the sandbox.

A candidate whose normalised code was already verified in this task reuses that verdict
(comments, white space and clause order do not make a new program), and one whose code is
being verified waits for that verdict. Generated tests that the
sequential program ran cleanly are added in front of the user's, whose last one stays the
timing input.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from pydantic import BaseModel

from agents.tools.base import CandidateRef, Made, StepOutput, ToolContext, ToolError
from agents.tools.calls import reserve
from agents.trace import Step
from agents.trajectory import VERIFY, verdict_summary, verify_arguments
from corpus.store.models import StepKind
from sandbox.errors import SandboxError
from sandbox.spec import Candidate, Spec
from sandbox.verdict import BuildReport, Status, Verdict


class VerifyArgs(BaseModel):
    candidate: CandidateRef
    """The candidate's id, or "$N" of the step that made it."""
    tests: StepOutput = None
    """"$N" of a `tests` step, to wait for the generated tests first."""


class VerdictResult(BaseModel):
    candidate_id: int
    status: str
    reason: str
    speedup: dict[int, float] = {}
    reused: bool = False
    assumptions: list[str] = []
    """What the candidate's annotation takes for granted (`Made.assumptions`): a pass holds
    with them, e.g. a floating-point reduction reassociated within the compared tolerance."""


class Verify:
    name: ClassVar[str] = "verify"
    description: ClassVar[str] = (
        "Check a candidate in the sandbox: build, compare with the original on the tests at "
        "several thread or rank counts, race-check, time."
    )
    Args: ClassVar[type[BaseModel]] = VerifyArgs

    async def run(self, args: VerifyArgs, ctx: ToolContext) -> VerdictResult:
        made = ctx.work.made.get(args.candidate)
        if made is None:
            raise ToolError(f"no candidate {args.candidate} in this task")
        verdict, reused = await verify_made(ctx, made)
        timing = verdict.timing
        return VerdictResult(
            candidate_id=made.candidate_id,
            status=verdict.status.value,
            reason=verdict.reason,
            speedup=dict(timing.speedup) if timing else {},
            reused=reused,
            assumptions=made.assumptions,
        )


def checked_spec(ctx: ToolContext) -> Spec:
    """The task's spec with the generated tests in front."""
    if not ctx.work.extra_tests:
        return ctx.view.spec
    timing = ctx.view.spec.timing or ctx.view.spec.tests[-1]
    return ctx.view.spec.model_copy(
        update={"tests": [*ctx.work.extra_tests, *ctx.view.spec.tests], "timing": timing}
    )


async def verify_made(ctx: ToolContext, made: Made) -> tuple[Verdict, bool]:
    """The candidate's verdict (reused when the same program was verified, or waited for while
    it is being verified), stored."""
    if made.verdict is not None:
        return made.verdict, True
    async with ctx.work.verifying.setdefault(made.key, asyncio.Lock()):
        if made.verdict is not None:
            return made.verdict, True
        return await _verify_once(ctx, made)


async def _verify_once(ctx: ToolContext, made: Made) -> tuple[Verdict, bool]:
    spec = checked_spec(ctx)
    arguments: dict[str, Any] = verify_arguments(
        made.candidate_id, spec, ctx.view.target, made.strategy
    )
    seen = ctx.work.verdicts.get(made.key)
    reused = seen is not None
    if seen is not None:
        arguments["same_as"] = seen[0]
    elif made.source.strip():
        reserve(ctx, "sandbox_run")
    async with ctx.deps.trace.step(
        StepKind.TOOL_CALL, VERIFY, arguments, parent=made.step_id
    ) as step:
        if seen is not None:
            verdict = seen[1]
        elif not made.source.strip():
            verdict = Verdict(
                target=ctx.view.target,
                status=Status.BUILD_FAILED,
                reason="the model's reply holds no code",
                build=BuildReport(ok=False),
            )
        else:
            verdict = await _judge(ctx, made, spec, step, probe=False)
            ctx.work.verdicts[made.key] = (made.candidate_id, verdict)
        step.result = (
            verdict_summary(verdict)
            | ({"reused": True} if reused else {})
            | ({"assumptions": made.assumptions} if made.assumptions else {})
        )
    await _keep_verdict(ctx, made, verdict)
    return verdict, reused


async def probe_made(ctx: ToolContext, made: Made, spec: Spec) -> Verdict:
    """The cascade's cheap first look (`Judge.probe`): built and run on `spec`'s inputs, no
    race check, no timing. A failing probe found a real defect, so it is stored as the
    candidate's verdict; a passing one verifies nothing and is only returned. A program
    already judged (or being judged) in the task is not probed: its verdict stands."""
    if made.verdict is not None:
        return made.verdict
    async with ctx.work.verifying.setdefault(made.key, asyncio.Lock()):
        if made.key not in ctx.work.verdicts:
            return await _probe_once(ctx, made, spec)
    # The same program was judged (or is, by the time the lock was ours): that verdict stands.
    verdict, _ = await verify_made(ctx, made)
    return verdict


async def _probe_once(ctx: ToolContext, made: Made, spec: Spec) -> Verdict:
    arguments = verify_arguments(made.candidate_id, spec, ctx.view.target, made.strategy)
    arguments["probe"] = True
    reserve(ctx, "sandbox_run")
    async with ctx.deps.trace.step(
        StepKind.TOOL_CALL, VERIFY, arguments, parent=made.step_id
    ) as step:
        verdict = await _judge(ctx, made, spec, step, probe=True)
        if verdict.status is Status.PASSED:
            step.discard()
        else:
            step.result = verdict_summary(verdict)
    if verdict.status is not Status.PASSED:
        ctx.work.verdicts.setdefault(made.key, (made.candidate_id, verdict))
        await _keep_verdict(ctx, made, verdict)
    return verdict


async def _judge(ctx: ToolContext, made: Made, spec: Spec, step: Step, *, probe: bool) -> Verdict:
    candidate = Candidate(target=ctx.view.target, source=made.source)
    try:
        if probe:
            return await ctx.deps.judge.probe(spec, candidate)
        return await ctx.deps.judge(spec, candidate)
    except SandboxError as exc:
        step.error = str(exc)  # the sandbox's own account: not the candidate's failure
        raise


async def _keep_verdict(ctx: ToolContext, made: Made, verdict: Verdict) -> None:
    await ctx.deps.trace.verdict(made.candidate_id, verdict)
    made.verdict = verdict
