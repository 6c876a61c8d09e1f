"""The translate graph's shared pieces: its sum program, the scripted LLM server that answers by
what each call asks for, a verifier's verdicts on the program, and running one task through the
real worker pool and store."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from typing import Any

import httpx2
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from agents.graphs.shared.config import GraphConfig
from agents.llm import LLMClient, LLMConfig
from agents.runners import GraphRunner
from corpus.store import tasks
from corpus.store.models import CandidateRow, StepRow, TaskRow
from parforge.service.pool import WorkerPool
from sandbox.spec import Target
from sandbox.verdict import ConcurrencyReport, Finding, Status, Timing, Verdict
from tests.fakes.llm import FakeLLMServer, Reply
from tests.fakes.pool import ONE_WORKER

SOURCE = """#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    double *a = malloc(n * sizeof *a);
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        a[i] = i * 0.5;
    for (int i = 0; i < n; i++)
        sum += a[i];
    printf("%.3f\\n", sum);
    free(a);
    return 0;
}
"""


WITH_REDUCTION = SOURCE.replace(
    "    for (int i = 0; i < n; i++)\n        sum += a[i];",
    "    #pragma omp parallel for reduction(+:sum)\n    for (int i = 0; i < n; i++)\n"
    "        sum += a[i];",
)
# Equivalent, but written differently from its first line (a helper, other declarations).
DIFFERENT_TEXT = """#include <stdio.h>
#include <stdlib.h>

static double half(int i) { return i * 0.5; }

int main(int argc, char **argv) {
    const int n = (argc > 1) ? atoi(argv[1]) : 1000;
    double *values = (double *)malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++)
        values[i] = half(i);
    double sum = 0.0;
    #pragma omp parallel for reduction(+:sum)
    for (int i = 0; i < n; i++)
        sum += values[i];
    printf("%.3f\\n", sum);
    free(values);
    return 0;
}
"""


class RoutedLLM(FakeLLMServer):
    """Answers by what a call asks for: a plan, loop choices, or code (parallel calls arrive in
    any order, so one FIFO script would not do)."""

    def __init__(self) -> None:
        super().__init__()
        self.routes: dict[str, deque[Reply]] = {
            "plan": deque(),
            "choices": deque(),
            "code": deque(),
        }
        self.kinds: list[str] = []

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        if not request.url.path.endswith("/models"):
            body = json.loads(request.content)
            if self._refused(body.get("response_format")):
                return await super().handle(request)  # refused before any reply is taken
            kind = (body.get("response_format") or {}).get("json_schema", {}).get("name", "code")
            kind = kind if kind in self.routes else "code"
            self.kinds.append(kind)
            if self.routes[kind]:
                self.replies.appendleft(self.routes[kind].popleft())
            elif kind == "code":
                self.replies.appendleft(
                    Reply(texts=["```c\n// model code\nint main(void) { return 1; }\n```"])
                )
            elif kind == "choices":
                self.replies.appendleft(Reply(texts=['{"choices": []}']))
            else:
                self.replies.appendleft(Reply(texts=["not json at all"]))
        return await super().handle(request)


def verdict(status: Status, speedup: float = 1.7, race: bool = False) -> Verdict:
    timing = (
        Timing(reference_s=1.0, speedup={1: 1.0, 2: speedup}) if status is Status.PASSED else None
    )
    findings = (
        [Finding(kind="race", tool="tsan", message="data race on sum", line=9)] if race else []
    )
    return Verdict(
        target=Target.OPENMP,
        status=status,
        reason=status.value,
        timing=timing,
        concurrency=ConcurrencyReport(ok=not race, findings=findings),
    )


def analysis_fails(judge: Callable[[str], Verdict]) -> Callable[[str], Verdict]:
    """`judge`, except that a candidate the analysis's own tool wrote (an OpenMP directive)
    fails with nothing to repair from: a test of what the model's plan does is then not ended
    by the analysis's candidate, which runs beside every first plan, passing first."""

    def judged(source: str) -> Verdict:
        return verdict(Status.BUILD_FAILED) if "#pragma omp" in source else judge(source)

    return judged


def passes_with_reduction(source: str) -> Verdict:
    """Like the real verifier on SOURCE: parallel only with the sum's reduction clause."""
    if "model code" in source:
        return verdict(Status.BUILD_FAILED)
    if "#pragma omp" not in source:
        return verdict(Status.NOT_PARALLEL)
    if "reduction(+:sum)" not in source:
        return verdict(Status.RACE, race=True)
    return verdict(Status.PASSED)


def runner(fake: FakeLLMServer, llm_config: LLMConfig, verifier: Any, **config: Any) -> GraphRunner:
    llm = LLMClient(llm_config, transport=fake.transport())
    return GraphRunner(llm, verifier, GraphConfig(**config))


async def run_one(engine: Engine, graph: GraphRunner, task_id: str) -> TaskRow:
    assert await WorkerPool(engine, graph, ONE_WORKER).run_task(task_id)
    with Session(engine) as s:
        task = tasks.get(s, task_id)
        assert task is not None
        return task


def stored(engine: Engine, task_id: str) -> tuple[list[StepRow], list[CandidateRow]]:
    with Session(engine) as s:
        steps = s.exec(
            select(StepRow).where(StepRow.task_id == task_id).order_by(col(StepRow.seq))
        ).all()
        cands = s.exec(
            select(CandidateRow)
            .where(CandidateRow.task_id == task_id)
            .order_by(col(CandidateRow.id))
        ).all()
    return list(steps), list(cands)


def claimed(engine: Engine, task_id: str, runner_name: str) -> tuple[int, Any]:
    """The task claimed by worker `w1` with a run started: (run id, the task's detail)."""
    with Session(engine) as s:
        task = tasks.claim(s, "w1", task_id)
        assert task is not None
        run = tasks.start_run(s, task, runner_name, "w1")
        assert run.id is not None
        return run.id, tasks_detail(task)


def tasks_detail(task: TaskRow) -> Any:
    from corpus.store.models import TaskDetail

    return TaskDetail.model_validate(task)
