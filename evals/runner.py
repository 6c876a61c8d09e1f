"""The eval runner: generate the missing samples of a stored run, verify them, store each one.

    run = EvalRunner(engine, verifier, llm=..., settings=..., verify_options=...)
    outcome = await run.run(run_id, on_progress=print)

Generation and verification overlap: each task asks its `SampleSource` for all its missing
samples at once (a few tasks at a time), and each sample is verified as soon as it is stored,
up to `concurrency` verifications at once (the sandbox pool). Every sample is written to the
store twice, when generated and when verified, so a run stopped anywhere resumes without
redoing finished work: missing samples are generated, generated ones verified, verified ones
left alone.

A sample that fails in any way is a stored result. The run stops, resumable, only when the
model or the sandbox fails (`EvalInterrupted`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from agents.llm import LLMConfig, LLMError
from corpus.errors import CorpusError
from corpus.store import evals as store
from corpus.store.models import EvalResultCreate, EvalResultRow, EvalRunRow
from corpus.store.tasks import ANY_OWNER, Owner
from corpus.suites import load_suite
from corpus.tasks import SuiteTask
from evals.config import EvalConfig, RunOptions
from evals.errors import EvalError, EvalInterrupted, EvalSetupError
from evals.outcomes import (
    GENERATED,
    GENERATION_FAILED,
    is_finished,
    outcome,
    unverified_result,
    verified_result,
)
from evals.plan import Progress, TaskWork, default_resources, plan, tasks_of
from evals.sources import Sample, SampleSource
from evals.sources.factory import open_source
from evals.sources.graph import GraphSource, RunTask
from evals.summary import OVERALL, Summary, not_run_reasons, summarize
from sandbox.config import VerifyOptions
from sandbox.errors import SandboxError
from sandbox.spec import Candidate, Spec, Target
from sandbox.verify.gate import Quiet, TimingGate
from sandbox.verify.refcache import ReferenceCache
from sandbox.verify.verifier import Verifier

ProgressSink = Callable[[Progress], None]


@dataclass(frozen=True)
class EvalOutcome:
    """How a run ended: its summary (stored with the run) and a line for people."""

    summary: dict[str, Any]
    reason: str


class EvalRunner:
    """Runs stored eval runs against one verifier (and, in prompt mode, one model endpoint)."""

    def __init__(
        self,
        engine: Engine,
        verifier: Verifier,
        *,
        llm: LLMConfig,
        settings: EvalConfig | None = None,
        verify_options: VerifyOptions | None = None,
        pool_size: int = 2,
        agents: Mapping[str, RunTask] | None = None,
        quiet: Quiet | None = None,
        gate: TimingGate | None = None,
    ) -> None:
        self.engine = engine
        self.verifier = verifier
        self.llm = llm
        self.settings = settings or EvalConfig()
        self.verify_options = verify_options or VerifyOptions()
        self.pool_size = pool_size
        self.agents = dict(agents or {})
        """Agent name → how to run a stored task with it (`RunOptions.agent` other than prompt)."""
        self.gate = gate if gate is not None else TimingGate(quiet)
        """Shared by every run of this runner, so one run's timings are not taken beside another
        run's builds (eval workers > 1); `gate`: one the caller shares with its other work (a
        service's task runners); otherwise this runner's own, whose `quiet` holds back the
        caller's own load (the embedded model server) while a timing run has the sandbox."""

    async def run(
        self,
        run_id: int,
        *,
        on_progress: ProgressSink | None = None,
        source: SampleSource | None = None,
    ) -> EvalOutcome:
        """Finish run `run_id`; `source` overrides the one its `model` names (tests, agents)."""
        run, stored = await asyncio.to_thread(self._load, run_id)
        options = RunOptions.model_validate(run.options or self.settings.defaults.model_dump())
        target = Target(run.target)
        try:
            tasks = tasks_of(load_suite(run.suite), target, run.problems, options.translate_from)
        except CorpusError as exc:
            raise EvalSetupError(str(exc)) from exc
        work = plan(tasks, run.samples_k, stored)
        names = {t.name for t in tasks}
        progress = Progress.of(
            len(tasks) * run.samples_k, [r for r in stored if r.problem in names]
        )
        job = _Job(self, run, target, options, progress, on_progress)
        await asyncio.to_thread(
            self._write, lambda s: store.set_progress(s, run_id, progress.as_dict())
        )
        job.report()
        if work:
            own = source is None
            if source is None and options.agent != "prompt":
                source = self._agent_source(options, run.suite, run.timing)
            elif source is None:
                source = await open_source(
                    run.model,
                    options,
                    self.llm,
                    self.engine,
                    max_concurrency=self.settings.generate_concurrency,
                    owner=_owner(run),
                )
            if run.model is None:
                await asyncio.to_thread(
                    self._write, lambda s: store.set_model(s, run_id, source.name)
                )
            try:
                await job.execute(work, source)
            finally:
                if own:
                    await source.aclose()
            # Writes from worker threads may land out of order: end on the final count.
            await asyncio.to_thread(
                self._write, lambda s: store.set_progress(s, run_id, progress.as_dict())
            )
        rows = await asyncio.to_thread(self._rows, run_id)
        return finish(rows, run.samples_k)

    def _agent_source(self, options: RunOptions, suite: str, timing: bool) -> SampleSource:
        run_task = self.agents.get(options.agent)
        if run_task is None:
            raise EvalSetupError(f"agent {options.agent!r} is not available to this eval runner")
        return GraphSource(
            run_task,
            self.engine,
            load_suite(suite),
            translate_from=options.translate_from,
            reasoning_threads=options.reasoning_threads,
            evolve=options.evolve,
            generations=options.generations,
            timing=timing,
            name=f"agent:{options.agent}",
        )

    async def aclose(self) -> None:
        """Release the verifier (its warm containers) and the agents' runners."""
        for run_task in self.agents.values():
            close = getattr(run_task, "aclose", None)
            if close is not None:
                await close()
        await self.verifier.aclose()

    def _load(self, run_id: int) -> tuple[EvalRunRow, list[EvalResultRow]]:
        with Session(self.engine, expire_on_commit=False) as session:
            run = store.get(session, run_id)
            if run is None:
                raise EvalSetupError(f"no eval run {run_id}")
            return run, store.rows(session, run_id)

    def _rows(self, run_id: int) -> list[EvalResultRow]:
        with Session(self.engine) as session:
            return store.rows(session, run_id)

    def _write(self, action: Callable[[Session], None]) -> None:
        with Session(self.engine) as session:
            action(session)


def _owner(run: EvalRunRow) -> Owner:
    """Whose stored runs this run may replay: its API key's; a run without a key (the CLI's, or
    one queued anonymously, which the API checked when it was submitted) sees every run."""
    return ANY_OWNER if run.owner_key_id is None else run.owner_key_id


class _Job:
    """One run in progress: its options, slots, reference cache and progress."""

    def __init__(
        self,
        runner: EvalRunner,
        run: EvalRunRow,
        target: Target,
        options: RunOptions,
        progress: Progress,
        on_progress: ProgressSink | None,
    ) -> None:
        assert run.id is not None
        self.runner, self.run_id, self.target = runner, run.id, target
        self.timing = run.timing
        self.progress, self.on_progress = progress, on_progress
        self.cache = ReferenceCache() if options.reference_cache else None
        self.gate = runner.gate if options.exclusive_timing else None
        self.write_lock = asyncio.Lock()
        self.verify_slots = asyncio.Semaphore(options.concurrency or runner.pool_size)
        self.generate_slots = asyncio.Semaphore(runner.settings.generate_concurrency)

    def report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.progress)

    async def execute(self, work: list[TaskWork], source: SampleSource) -> None:
        try:
            async with asyncio.TaskGroup() as group:
                for item in work:
                    group.create_task(self._task(item, source))
        except ExceptionGroup as eg:
            first = _first(eg)
            if isinstance(first, LLMError):
                raise EvalInterrupted(f"the model failed: {first}") from first
            if isinstance(first, SandboxError):
                raise EvalInterrupted(f"the sandbox failed: {first}") from first
            if isinstance(first, EvalError):
                raise first from None
            raise

    async def _task(self, work: TaskWork, source: SampleSource) -> None:
        task = work.task
        spec = Spec.model_validate(task.spec_for(self.target))
        pending = [Sample(index=r.sample_index, source=r.source, call=r.call) for r in work.verify]
        async with asyncio.TaskGroup() as group:
            for sample in pending:
                group.create_task(self._verify(task, spec, sample))
            if work.generate:
                async with self.generate_slots:
                    samples = await source.generate(task, self.target, work.generate)
                # One transaction for the whole call: stored completely or not at all.
                results = [unverified_result(task.name, task.problem_type, s) for s in samples]
                await self._save(*results)
                for result, sample in zip(results, samples, strict=True):
                    if result.status == GENERATED:
                        group.create_task(self._verify(task, spec, sample))

    async def _verify(self, task: SuiteTask, spec: Spec, sample: Sample) -> None:
        assert sample.source
        candidate = Candidate(target=self.target.value, source=sample.source)
        async with self.verify_slots:
            verdict = await self.runner.verifier.verify(
                spec,
                candidate,
                timing=self.timing,
                options=self.runner.verify_options,
                reference_cache=self.cache,
                timing_gate=self.gate,
            )
        await self._save(verified_result(task.name, task.problem_type, sample, verdict))

    async def _save(self, *results: EvalResultCreate) -> None:
        # One write at a time, in the order the counts change, so stored progress never regresses.
        async with self.write_lock:
            for result in results:
                if result.status in (GENERATED, GENERATION_FAILED):
                    self.progress.generated += 1
                if result.status != GENERATED:
                    self.progress.add(result.status, bool(result.verdict.get("correct", False)))
            snapshot = self.progress.as_dict()
            write = asyncio.ensure_future(
                asyncio.to_thread(
                    self.runner._write,
                    lambda s: store.save_results(s, self.run_id, list(results), snapshot),
                )
            )
            try:
                await asyncio.shield(write)
            except asyncio.CancelledError:
                # The thread writes on regardless: let it land before the run counts as stopped.
                await write
                raise
        self.report()


def _first(eg: BaseExceptionGroup[Any]) -> BaseException:
    first = eg.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first


def finish(rows: list[EvalResultRow], samples: int) -> EvalOutcome:
    """The summary of a run's finished samples and the line that describes it."""
    done = [outcome(r) for r in rows if is_finished(r)]
    unverified = sum(not is_finished(r) for r in rows)
    if not done:
        return EvalOutcome(summary={"unverified": unverified}, reason="no sample was finished")
    ks = sorted({1, samples})
    resources = default_resources(done)
    summary = summarize(done, ks, resources)
    data = summary.model_dump(mode="json") | {
        "not_run": not_run_reasons(done),
        "unverified": unverified,
    }
    return EvalOutcome(summary=data, reason=describe(summary, len(done)))


def describe(summary: Summary, samples: int) -> str:
    """`pass@1 35.0%, build@1 60.0%, race-free@1 30.0% (40 problems, 80 samples)`."""
    row = summary.row(OVERALL, 1)

    def pct(value: float | None) -> str:
        return "not run" if value is None else f"{100 * value:.1f}%"

    parts = [f"pass@1 {pct(row.passed)}", f"build@1 {pct(row.build)}"]
    parts.append(f"race-free@1 {pct(row.race_free)}")
    if row.speedup is not None:
        parts.append(f"speedup_{summary.resources}@1 {row.speedup:.2f}")
    tail = f" ({row.problems} problems, {samples} samples"
    tail += f", {row.not_run} not run)" if row.not_run else ")"
    return ", ".join(parts) + tail
