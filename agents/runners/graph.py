"""The graph runner: the translate graph behind the task-runner seam (`name = "graph"`).

One run of one task: analyse the program (bad input ends the run before anything else is
stored), build the tools' context, and run the graph under the task's time budget with a
checkpointer, so that a task re-queued after its worker died resumes from the last node that
finished. The run ends with the fastest verified candidate, or, honestly, with
`no_verified_candidate` and why.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from agents.core import Budget, Ledger
from agents.evolve.record import evolution_line
from agents.failures import infrastructure_failure
from agents.graphs.shared.config import EvolveConfig, GraphConfig
from agents.graphs.shared.context import RunContext
from agents.graphs.shared.observations import restore
from agents.graphs.translate import build
from agents.identity import Identity, identify
from agents.judge import Judge, task_spec
from agents.llm import LLMClient
from agents.preflight import InputRejected, check_program
from agents.reasoning import Pruning
from agents.tools import ExampleSearch, RunDeps, TaskView, ToolContext, Workbench, registry
from agents.trace import Trace
from agents.trajectory import Tally
from corpus.runner import RunOutcome, TaskContext
from corpus.store.models import JobStatus, RunMeta

Checkpoints = Callable[[], AbstractAsyncContextManager[BaseCheckpointSaver[Any]]]
"""Opens the checkpointer for one run (LangGraph's SQLite or PostgreSQL saver)."""


def in_memory() -> Checkpoints:
    """Checkpoints that live as long as the runner (tests; no resume across processes)."""
    saver = InMemorySaver()

    @contextlib.asynccontextmanager
    async def open_saver() -> AsyncIterator[BaseCheckpointSaver[Any]]:
        yield saver

    return open_saver


class GraphRunner:
    """Runs the translate graph for a task."""

    name = "graph"

    def __init__(
        self,
        llm: LLMClient,
        judge: Judge,
        config: GraphConfig | None = None,
        *,
        checkpoints: Checkpoints | None = None,
        examples: ExampleSearch | None = None,
    ) -> None:
        self.llm = llm
        self.judge = judge
        self.config = config or GraphConfig()
        self.checkpoints = checkpoints or in_memory()
        self.examples = examples

    async def aclose(self) -> None:
        """Close the model client and the sandbox."""
        try:
            await self.llm.aclose()
        finally:
            await self.judge.aclose()

    def reasoning_threads(self, context: TaskContext) -> int:
        """Threads the task asked for (its option, else the runner's); none without a model."""
        if not self.config.use_model:
            return 0
        options = context.task.options
        asked = options.reasoning_threads if options is not None else None
        return self.config.reasoning_threads if asked is None else asked

    def timed(self, context: TaskContext) -> bool:
        """Whether the task's candidates are timed (its option, else the runner's)."""
        options = context.task.options
        asked = options.timing if options is not None else None
        return self.config.timing if asked is None else asked

    def evolution(self, context: TaskContext) -> EvolveConfig | None:
        """How the task's passing candidates are evolved (its options, else the runner's);
        None when they are not."""
        options = context.task.options
        asked = options.evolve if options is not None else None
        generations = options.generations if options is not None else None
        if asked is False or not (asked or generations or self.config.evolve):
            return None
        if not self.timed(context):
            return None  # its fitness is speed
        config = self.config.evolution
        return config.model_copy(update={"generations": generations}) if generations else config

    def budget(self, context: TaskContext, config: GraphConfig | None = None) -> Budget:
        """The task's budget (`config`: the settings sized for the served model, when known)."""
        task, config = context.task, config or self.config
        threads = self.reasoning_threads(context)
        evolution = self.evolution(context)
        # Each thread may add a candidate, its behaviour probe and its verification; each
        # evaluation of evolution a candidate, its probe and its verification, and a win the
        # two verifications that confirm it (at most one win per evaluation: 4 runs in all).
        evaluations = evolution.evaluations if evolution is not None else 0
        candidates = threads + evaluations
        runs = 2 * threads + 4 * evaluations
        return Budget(
            tokens=task.budgets.tokens or config.tokens,
            time_s=task.budgets.time_s,
            candidates=None if config.candidates is None else config.candidates + candidates,
            sandbox_runs=None if config.sandbox_runs is None else config.sandbox_runs + runs,
            replans=config.replans if config.use_model else 0,
            repairs=config.repairs if config.use_model else 0,
        )

    async def context(self, context: TaskContext) -> RunContext:
        """What one run of the graph works with (tools, budget, options), its run stored;
        `InputRejected` when the program cannot be analysed. Benchmarks that drive a subgraph
        alone start here too."""
        task = context.task
        target, language = task.target.target, task.language
        spec = task_spec(task, self.config)
        function = task.options.function if task.options else None
        # The same checks as at submission, for tasks stored by other means (the store).
        program = check_program(task.source, language, function, needs_main=spec.driver is None)
        # Without the model (the analysis-only baseline) the server need not even be up.
        identity = await identify(self.llm) if self.config.use_model else Identity("none")
        # Token caps and the token budget sized for the served model's context window.
        sized = self.config.for_model(identity.context_window, len(task.source))
        budget = self.budget(context, sized)
        trace = Trace(context.recorder, identity)
        judge = self.judge if self.timed(context) else self.judge.untimed()
        await trace.run_meta(
            RunMeta(model=identity.model, adapter=identity.adapter, budgets=budget.model_dump())
        )
        tools = ToolContext(
            RunDeps(self.llm, judge, trace, sized, self.examples),
            TaskView(task, task.source, function, spec, target, language, program),
            Workbench(Ledger(budget)),
        )
        evolution = self.evolution(context)
        config = sized
        if evolution is not None:
            config = config.model_copy(update={"evolution": evolution})
        ctx = RunContext(
            tools,
            registry(target),
            config,
            budget,
            reasoning_threads=self.reasoning_threads(context),
            pruning=Pruning(rule=self.config.pruning),
            evolve=evolution is not None,
        )
        return ctx

    async def run(self, context: TaskContext) -> RunOutcome:
        try:
            ctx = await self.context(context)
        except InputRejected as exc:
            return RunOutcome(JobStatus.FAILED, f"the program cannot be analysed: {exc}")
        tools, budget = ctx.tools, ctx.budget
        try:
            async with asyncio.timeout(budget.time_s):
                state = await self._run_graph(ctx, context)
        except TimeoutError:
            return self._outcome(ctx, {}, f"time budget of {budget.time_s:g}s ran out")
        except Exception as exc:
            failure = infrastructure_failure(exc)
            if failure is None:
                raise
            return RunOutcome(JobStatus.FAILED, failure, Tally(_verdicts(tools)).best())
        return self._outcome(ctx, state, (state.get("decision") or {}).get("reason", ""))

    async def _run_graph(self, ctx: RunContext, context: TaskContext) -> dict[str, Any]:
        async with self.checkpoints() as saver:
            graph = build(saver)
            # Each generation of evolution is one step of the subgraph.
            limit = 64 + (2 * ctx.config.evolution.generations if ctx.evolve else 0)
            config: Any = {
                "configurable": {"thread_id": context.task.id},
                "recursion_limit": limit,
            }
            snapshot = await graph.aget_state(config)
            start: dict[str, Any] | None = {}
            if snapshot.next:
                # A re-queued task: resume after the last node that finished.
                start = None
                values = snapshot.values
                ctx.tools.work.restore(
                    Ledger.from_snapshot(ctx.budget, values.get("ledger") or {}),
                    map(restore, values.get("observations", [])),
                )
            result = await graph.ainvoke(start, config, context=ctx)
            return dict(result)

    def _outcome(self, ctx: RunContext, state: dict[str, Any], why: str) -> RunOutcome:
        tools = ctx.tools
        tally = Tally(_verdicts(tools))
        best = tally.best()
        evolved = (state.get("evolution") or {}).get("best")
        if evolved is not None and evolved in tools.work.made:
            # Evolution's best beat its rivals with confidence; the fastest median may not have.
            best = evolved
            why = evolution_line(state["evolution"], tools.work.made)
        summary = tally.reason(len(tools.work.made), best)
        notes = state.get("notes") or []
        if why:
            summary += f"; {why}"
        if notes:
            summary += f"; {len(notes)} note(s): {notes[0]}"
        if best is None and tools.work.failures:
            return RunOutcome(JobStatus.FAILED, f"{tools.work.failures[0]}; {summary}")
        if best is None and tally.unjudged() is not None:
            return RunOutcome(JobStatus.NOT_RUN, summary, tally.unjudged())
        status = JobStatus.SUCCEEDED if best is not None else JobStatus.NO_VERIFIED_CANDIDATE
        return RunOutcome(status, summary, best)


def _verdicts(tools: ToolContext) -> dict[int, Any]:
    return {cid: m.verdict for cid, m in tools.work.made.items() if m.verdict is not None}
