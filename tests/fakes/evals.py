"""Helpers for the eval tests: a scripted sandbox that judges candidates by their text, a store
with a run in it, a source that replays given texts, and eval runs written straight into a real
store as an eval worker would leave them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from agents.llm import LLMConfig
from corpus.store import evals as store
from corpus.store import keys, open_store
from corpus.store.models import EvalResultCreate, EvalRunCreate, JobStatus
from corpus.tasks import SuiteTask
from evals.config import RunOptions
from evals.runner import EvalRunner
from evals.sources import Sample
from sandbox.checkers import tsan
from sandbox.models import Command, CommandResult
from sandbox.spec import Target
from sandbox.verify.verifier import LocalVerifier
from tests.fakes.sandbox import ScriptedSandbox, ScriptedWorkspace

TASKS = ["03_dense_la_axpy", "55_transform_relu"]
BROKEN = "BROKEN"
"""A candidate containing this does not compile in the scripted sandbox."""
WRONG = "WRONG"
"""A candidate containing this prints a wrong answer."""


def judge(command: Command, ws: ScriptedWorkspace) -> CommandResult:
    """Compilers succeed unless the candidate is BROKEN; programs print 42 (43 when WRONG)."""
    solution = ws.files.get("cand/solution.inc", b"").decode()
    candidate = command.cwd in ("cand", "race")
    if command.argv[0] in ("clang", "clang++", "gcc", "g++", "mpicxx", "mpicc", "nvcc"):
        if candidate and BROKEN in solution:
            return CommandResult(
                exit_code=1, stderr="solution.inc:3:5: error: BROKEN is not a type"
            )
        return CommandResult(exit_code=0)
    if command.argv[0] in ("nm", "rm"):  # the integrity check's symbol table, clean-up
        return CommandResult(exit_code=0)
    wrong = candidate and WRONG in solution
    if command.collect:  # an instrumented run: TSan was active and saw no race
        files = {"tsan.7": f"{tsan.ACTIVE} v3 *****\n"}
        return CommandResult(exit_code=0, stdout="43\n" if wrong else "42\n", files=files)
    return CommandResult(exit_code=0, stdout="43\n" if wrong else "42\n", duration_s=0.01)


def scripted(gpu: bool = False) -> ScriptedSandbox:
    return ScriptedSandbox(judge, gpu=gpu, per_job=True)


def new_store(tmp_path: Path) -> Engine:
    return open_store(f"sqlite:///{tmp_path / 'evals.db'}")


def new_run(
    engine: Engine,
    *,
    target: str = "openmp",
    samples: int = 2,
    problems: list[str] | None = None,
    model: str | None = "fake-model",
    timing: bool = False,
    options: RunOptions | None = None,
) -> int:
    create = EvalRunCreate(
        suite="pareval",
        target=Target(target),
        model=model,
        samples_k=samples,
        problems=problems or TASKS,
        timing=timing,
    )
    with Session(engine) as session:
        run = store.submit(session, create, options=(options or RunOptions()).model_dump())
    assert run.id is not None
    return run.id


class ListSource:
    """A `SampleSource` that answers from a function of (task, index): the seam, minimal."""

    name = "scripted-agent"

    def __init__(self, body: str = "  z[0] = 1;\n}\n") -> None:
        self.body = body
        self.asked: list[tuple[str, list[int]]] = []

    async def generate(self, task: SuiteTask, target: Target, indices: list[int]) -> list[Sample]:
        self.asked.append((task.name, indices))
        prompt = task.prompt_for(target)
        return [
            Sample(index=i, source=prompt + "\n#pragma omp parallel\n" + self.body) for i in indices
        ]

    async def aclose(self) -> None:
        """Nothing to release."""


class HeldSource:
    """Known-good solutions, each call held until `release` is set (to stop a run midway)."""

    name = "held"

    def __init__(self, held_after: int = 1) -> None:
        self.release = asyncio.Event()
        self.calls = 0
        self.held_after = held_after

    async def generate(self, task: SuiteTask, target: Target, indices: list[int]) -> list[Sample]:
        self.calls += 1
        if self.calls > self.held_after:
            await self.release.wait()
        good = task.target(target).solutions[0].source
        return [Sample(index=i, source=good) for i in indices]

    async def aclose(self) -> None:
        """Nothing to release."""


class SourcedRunner(EvalRunner):
    """An `EvalRunner` whose runs all use one given source (what the pool cannot pass)."""

    def __init__(self, engine: Engine, source: object, sandbox: object | None = None) -> None:
        verifier = LocalVerifier(sandbox or scripted())  # type: ignore[arg-type]
        super().__init__(engine, verifier, llm=LLMConfig(url="http://unused/v1"))
        self.source = source

    async def run(self, run_id, *, on_progress=None, source=None):  # type: ignore[no-untyped-def]
        return await super().run(run_id, on_progress=on_progress, source=self.source)  # type: ignore[arg-type]


def stored_eval(
    store_url: str,
    token: str,
    statuses: dict[str, str],
    model: str,
    summary: dict[str, Any] | None = None,
) -> int:
    """An eval run of `token`'s key with one sample per problem (its verdict's status); with
    `summary`, finished with it."""
    engine = open_store(store_url)
    with Session(engine) as s:
        key = keys.authenticate(s, token)
        assert key is not None
        run = store.submit(s, EvalRunCreate(suite="pareval", target="openmp", model=model), key.id)
        assert run.id is not None
        run_id = run.id
        store.save_results(
            s,
            run_id,
            [
                EvalResultCreate(
                    problem=problem,
                    problem_type=problem.split("_")[1],
                    sample_index=0,
                    status=status,
                    built=status != "build_failed",
                    passed=status == "passed",
                    race=status == "race",
                )
                for problem, status in statuses.items()
            ],
        )
        if summary is not None:
            store.claim(s, "tests", run_id)
            store.finish(
                s, run_id, "tests", JobStatus.SUCCEEDED, f"{len(statuses)} samples", summary
            )
    engine.dispose()
    return run_id
