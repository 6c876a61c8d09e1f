"""The whole eval pipeline on the real Docker sandbox with the replay model: known-good
solutions all pass, planted mutants are caught, timed runs reuse the reference."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from agents.llm import LLMConfig
from corpus.store import evals as store
from evals.runner import EvalRunner
from evals.summary import OVERALL
from sandbox.config import DockerConfig
from sandbox.verify.verifier import open_verifier
from tests.fakes.evals import new_run, new_store

pytestmark = [pytest.mark.docker, pytest.mark.slow]

OPENMP = ["03_dense_la_axpy", "15_graph_edge_count", "55_transform_relu"]
MPI = ["03_dense_la_axpy", "57_transform_inverse_offset"]


@pytest.fixture
async def runner(sandbox_image: str, tmp_path: Path) -> AsyncIterator[EvalRunner]:
    engine = new_store(tmp_path)
    run = EvalRunner(
        engine, open_verifier(DockerConfig(pool_size=2)), llm=LLMConfig(url="http://unused/v1")
    )
    try:
        yield run
    finally:
        await run.aclose()


def overall(summary: dict, k: int = 1) -> dict:
    return next(r for r in summary["rows"] if r["group"] == OVERALL and r["k"] == k)


def statuses(engine: Engine, run_id: int) -> list[str]:
    with Session(engine) as session:
        return [r.status for r in store.rows(session, run_id)]


@pytest.mark.parametrize(("target", "problems"), [("openmp", OPENMP), ("mpi", MPI)])
async def test_known_good_replay_scores_pass_at_1_of_one(runner, target, problems) -> None:
    run_id = new_run(
        runner.engine, target=target, samples=1, problems=problems, model="replay:known-good"
    )
    outcome = await runner.run(run_id)
    assert statuses(runner.engine, run_id) == ["passed"] * len(problems)
    row = overall(outcome.summary)
    assert row["passed"] == row["race_free"] == row["build"] == 1.0


async def test_mutants_are_caught(runner) -> None:
    run_id = new_run(runner.engine, samples=2, problems=OPENMP, model="replay:mutants")
    outcome = await runner.run(run_id)
    found = statuses(runner.engine, run_id)
    assert len(found) == 6 and "build_failed" not in found and "reference_failed" not in found
    assert found.count("passed") <= 1, found
    assert overall(outcome.summary)["race_free"] <= 1 / 3


TIMED = "06_fft_dft"
"""A problem whose reference runs long enough to time on any host (axpy's kernel took 8.8 ms on
one, under the 10 ms floor, and that run reported no speedup), and whose known-good solution is
the reference's algorithm made parallel (gemm's changes the loop order: above the cores at one
thread already, so not counted)."""


async def test_a_timed_run_measures_speedups_and_reuses_the_reference_outputs(runner) -> None:
    run_id = new_run(
        runner.engine, samples=2, problems=[TIMED], model="replay:known-good", timing=True
    )
    outcome = await runner.run(run_id)
    with Session(runner.engine) as session:
        rows = store.rows(session, run_id)
    assert [r.status for r in rows] == ["passed", "passed"]
    assert all(set(r.speedups) == {"1", "2", "4"} and r.speedups["4"] > 0 for r in rows)
    # The reference's outputs were worked out once and reused by the other sample; its timing
    # never is: each sample is timed in turns with the reference in its own session.
    reused = sorted(part for r in rows for part in r.verdict["reused"])
    assert reused == ["reference outputs"]
    assert all(r.verdict["stages"]["timing"] > 0 for r in rows)
    assert outcome.summary["resources"] == 4
