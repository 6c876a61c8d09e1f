"""The plan's steps as they stream in: the model's plan step by step, checked one at a time,
then the default plan if the model's gave nothing usable. Each step is dispatched by the
scheduler the moment it arrives, while the model is still writing the rest."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from agents.core import PlanError, PlanStep, StreamingPlanParser, plan_schema, references
from agents.graphs.shared.context import RunContext
from agents.graphs.translate.plans import default_plan
from agents.llm import ChatRequest, JsonSchema, LLMError, Sampling
from agents.prompts.translate import plan_messages
from agents.targets import KITS, kit
from agents.tools.calls import BudgetSpent, hold_tokens
from agents.trace import Step
from agents.trajectory import llm_steps
from corpus.store.models import StepKind

MAKERS = frozenset({"rewrite", *(tool for kit in KITS.values() for tool in kit.tools)})
"""Tools that make candidates: a plan without one is no plan."""


def check_step(step: PlanStep, known: set[int], tools: set[str]) -> str | None:
    """Why a streamed step cannot run (None: it can) — pure."""
    if step.tool not in tools:
        return f"step {step.id}: unknown tool {step.tool!r}"
    if step.id in known:
        return f"step {step.id}: duplicate id"
    missing = sorted(ref for ref in references(step.args) if ref not in known)
    if missing:
        return f"step {step.id}: refers to ${missing[0]}, which no earlier step defines"
    return None


class PlanStream:
    """One round's steps. `notes` says what was dropped and whether the fallback ran."""

    def __init__(
        self,
        ctx: RunContext,
        observations: str,
        parent: asyncio.Future[int],
        fallback: str = "",
    ) -> None:
        self.ctx = ctx
        self.parent = parent
        """Resolved with the plan's step id once it is stored: the tool steps hang below it."""
        self.observations = observations
        self.fallback = fallback
        """Why the default plan runs without asking the model ("": ask it, when it may)."""
        self.notes: list[str] = []
        self.accepted: list[PlanStep] = []
        self.models_own = False
        """The steps were the model's plan only (no default plan in this round)."""

    async def steps(self) -> AsyncIterator[PlanStep]:
        config, tools = self.ctx.config, self.ctx.tools
        why_fallback = "the planner is off" if config.use_model else "no model: analysis only"
        if self.fallback:
            why_fallback = self.fallback
            self.notes.append(f"default plan used: {why_fallback}")
            self.parent.set_result(await self._record_default(why_fallback))
        elif config.planner and config.use_model:
            async for step in self._model_plan():
                yield step
            makers = [s for s in self.accepted if s.tool in MAKERS]
            why_fallback = (
                "" if makers else (self.notes[-1] if self.notes else "no step makes a candidate")
            )
            self.models_own = not why_fallback
        else:
            self.parent.set_result(await self._record_default(why_fallback))
        if why_fallback:
            if config.planner and config.use_model and not self.fallback:
                self.notes.append(f"default plan used: {why_fallback}")
                await self._record_default(why_fallback)
            for step in default_plan(
                tools.view.target,
                annotatable=kit(tools.view.target).mechanical(
                    tools.view.source, tools.view.program, tools.view.spec.signature
                ),
                extra_tests=config.extra_tests if tools.view.task.tests else 0,
                use_model=config.use_model,
            ):
                self.accepted.append(step)
                yield step

    async def _model_plan(self) -> AsyncIterator[PlanStep]:
        ctx, config, tools = self.ctx, self.ctx.config, self.ctx.tools
        specs = ctx.registry.specs()
        request = ChatRequest(
            messages=plan_messages(
                tools.view.source,
                tools.view.language,
                tools.view.target,
                tools.view.program,
                specs,
                self.observations,
            ),
            sampling=Sampling(max_tokens=config.plan_tokens, temperature=config.temperature),
            response_schema=JsonSchema(
                json_schema=plan_schema(specs, config.max_steps), name="plan"
            ),
        )
        parser = StreamingPlanParser()
        known: set[int] = set()
        names = set(ctx.registry.tools)
        trace = tools.deps.trace
        identity = {"model": trace.identity.model, "adapter": trace.identity.adapter}
        messages = [m.model_dump(exclude_none=True) for m in request.messages]
        # Stored before the first token, so the steps it dispatches hang below it at once.
        async with trace.open_step(
            StepKind.LLM_CALL, "plan", parent=None, fields=identity | {"messages": messages}
        ) as plan:
            assert plan.id is not None
            self.parent.set_result(plan.id)
            try:
                estimate = hold_tokens(tools, request)
            except BudgetSpent as exc:  # no room for a plan: the default plan runs instead
                plan.error = str(exc)
                self.notes.append(f"no plan asked for: {exc}")
                return
            stream = tools.deps.llm.stream(request)
            failure: str | None = None
            try:
                async with stream:
                    async for delta in stream:
                        try:
                            finished = parser.feed(delta.text)
                        except PlanError as exc:
                            failure = f"the plan could not be read ({exc})"
                            break
                        for step in finished:
                            problem = check_step(step, known, names)
                            if problem:
                                self.notes.append(problem)
                                continue
                            known.add(step.id)
                            self.accepted.append(step)
                            yield step
            except LLMError as exc:
                failure = f"the planner's call failed ({type(exc).__name__}: {exc})"
            finally:
                self._finish_plan(plan, stream.record, failure, estimate)
        if failure:
            self.notes.append(failure)

    def _finish_plan(self, plan: Step, record: Any, failure: str | None, estimate: int) -> None:
        """The plan's model call as it ended (its estimate settled with what it used); its
        reply carries the accepted steps as tool calls."""
        tools = self.ctx.tools
        plan.error = failure
        usage = record.usage if record is not None else None
        used = usage.prompt_tokens + usage.completion_tokens if usage is not None else 0
        tools.work.ledger.settle_tokens(estimate, used)
        if record is None:
            return
        step = llm_steps(record, tools.deps.trace.identity)[0]
        response = dict(step.response or {"role": "assistant", "content": None})
        response["tool_calls"] = [
            {
                "id": call_id(tools.view.task.id, s.id),
                "type": "function",
                "function": {"name": s.tool, "arguments": json.dumps(s.args)},
            }
            for s in self.accepted
        ]
        plan.fields = step.model_dump(exclude={"kind", "name", "parent_id", "error"}) | {
            "response": response,
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.args_schema,
                    },
                }
                for t in self.ctx.registry.specs()
            ],
        }
        plan.error = step.error or failure

    async def _record_default(self, why: str) -> int:
        parent = self.parent.result() if self.parent.done() else None
        async with self.ctx.tools.deps.trace.step(
            StepKind.TOOL_CALL, "default-plan", {"why": why}, parent=parent
        ) as step:
            pass
        assert step.id is not None
        return step.id


def call_id(task_id: str, step_id: int) -> str:
    """The tool-call id of a plan step (ties the plan's reply to the tool's step)."""
    return f"call_{task_id[:8]}_{step_id}"
