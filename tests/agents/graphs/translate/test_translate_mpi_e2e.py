"""The translate graph to MPI end to end with no model at all, in the real Docker sandbox: the
`distribute` tool turns simple loops (a reduction, a map, a histogram, a stencil, a scan) into
MPI programs that the verifier passes at 1, 2, 3 and 4 ranks, and a loop the analysis cannot
prove gets no mechanical candidate (the task ends honestly, with nothing to verify)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session

from agents.graphs.shared.config import GraphConfig
from agents.llm import LLMClient, LLMConfig
from agents.runners import GraphRunner, SandboxJudge
from corpus.store import open_store, tasks
from corpus.store.models import JobStatus, TaskCreate, TestInput
from sandbox.config import DockerConfig
from sandbox.verify.verifier import open_verifier
from tests.agents.graphs.translate.pool import run_to_end
from tests.fakes.paths import GRAPH_PROGRAMS

pytestmark = [pytest.mark.docker, pytest.mark.slow]

RANKS = [1, 2, 3, 4]
CASES = {
    "reduce": [["1000"], ["4099"], ["2000000"]],
    "map": [["1"], ["1001"], ["1000000"]],
    "histogram": [["3"], ["4099"], ["1000000"]],
    "stencil": [["5", "3"], ["999", "5"], ["20000", "20"]],
    "scan": [["2"], ["4099"], ["1000000"]],
    "recurrence": [["10"], ["1000"]],
}


@pytest.fixture(scope="module")
def outcomes(sandbox_image: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    url = f"sqlite:///{tmp_path_factory.mktemp('mpi') / 'store.db'}"
    engine = open_store(url)
    ids: dict[str, str] = {}
    with Session(engine) as s:
        for name, tests in CASES.items():
            create = TaskCreate(
                name=name,
                language="c",
                target="mpi",
                source=(GRAPH_PROGRAMS / f"{name}.c").read_text(),
                tests=[TestInput(name=f"t{i}", args=args) for i, args in enumerate(tests)],
                options={"rtol": 1e-9},
            )
            ids[name] = tasks.submit(s, create).id

    def make_runner() -> GraphRunner:
        llm = LLMClient(LLMConfig(url="http://127.0.0.1:9/v1"))  # never called: no model
        verifier = SandboxJudge(open_verifier(DockerConfig(pool_size=2)))
        config = GraphConfig(use_model=False, planner=False, ranks=RANKS, repairs=0, replans=0)
        return GraphRunner(llm, verifier, config)

    return run_to_end(engine, ids, make_runner)


@pytest.mark.parametrize("name", ["reduce", "map", "histogram", "stencil", "scan"])
def test_simple_loops_become_verified_mpi_without_a_model(
    outcomes: dict[str, Any], name: str
) -> None:
    task, candidates, steps = outcomes[name]
    assert task.status == JobStatus.SUCCEEDED, task.reason
    best = next(c for c in candidates if c.id == task.best_candidate_id)
    # The tool's program, or a faster one the speed hunt evolved from it (the MPI kit's
    # decomposition and combine mutations) when the tool's was below the speed target.
    made = {c.id: c for c in candidates}
    origin = best
    while origin.strategy.startswith("evolve:") and origin.parent_id in made:
        origin = made[origin.parent_id]
    assert origin.strategy.startswith("distribute["), best.strategy
    verdict = best.verdict.data
    assert verdict["status"] == "passed", verdict["reason"]
    ran = {outcome["workers"] for outcome in verdict["equivalence"]["outcomes"]}
    assert ran == set(RANKS), verdict["equivalence"]
    assert "MPI_" in best.source
    assert not any(s.kind == "llm_call" for s in steps)


def test_a_loop_the_analysis_cannot_prove_gets_no_mechanical_candidate(
    outcomes: dict[str, Any],
) -> None:
    task, candidates, steps = outcomes["recurrence"]
    assert task.status == JobStatus.NO_VERIFIED_CANDIDATE, task.reason
    assert not [c for c in candidates if c.strategy.startswith("distribute")]
    assert not any(s.kind == "llm_call" for s in steps)
