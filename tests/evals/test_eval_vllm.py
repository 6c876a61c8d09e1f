"""A small end-to-end eval on the real embedded model: two ParEval tasks, K = 2, prompt mode
against the vLLM server, verified in the Docker sandbox. It asserts the pipeline, not the score:
the tiny CPU model writes poor code, and the report must say whatever it scored."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlmodel import Session

from agents.llm import LLMConfig
from corpus.store import evals as store
from evals.config import RunOptions, SamplingOptions
from evals.report import write_report
from evals.runner import EvalRunner
from evals.stored import load_run
from sandbox.config import DockerConfig
from sandbox.verify.verifier import open_verifier
from tests.fakes.evals import new_run, new_store

pytestmark = [pytest.mark.vllm, pytest.mark.docker, pytest.mark.slow]

PROBLEMS = ["03_dense_la_axpy", "55_transform_relu"]


@pytest.fixture
async def runner(
    sandbox_image: str, vllm_config: LLMConfig, tmp_path: Path
) -> AsyncIterator[EvalRunner]:
    run = EvalRunner(new_store(tmp_path), open_verifier(DockerConfig(pool_size=2)), llm=vllm_config)
    try:
        yield run
    finally:
        await run.aclose()


async def test_the_embedded_model_is_evaluated_end_to_end(
    runner: EvalRunner, vllm_config: LLMConfig, tmp_path: Path
) -> None:
    # Short completions keep the CPU model's part to a minute; the harness is the same.
    options = RunOptions(sampling=SamplingOptions(max_tokens=256))
    run_id = new_run(runner.engine, samples=2, problems=PROBLEMS, model=None, options=options)
    outcome = await runner.run(run_id)

    with Session(runner.engine) as session:
        run = store.get(session, run_id)
        rows = store.rows(session, run_id)
    assert run is not None and run.model == vllm_config.model
    assert [(r.problem, r.sample_index) for r in rows] == [(p, i) for p in PROBLEMS for i in (0, 1)]
    for row in rows:
        assert row.status not in ("generated", "generation_failed", "reference_failed")
        assert row.call is not None and row.call["status"] == "ok"
        assert row.call["response_model"] == vllm_config.model
        assert row.call["usage"]["completion_tokens"] > 0
        assert row.source is not None and row.source.startswith(row.call["prompt"])
        assert row.verdict["stages"]["build"] > 0  # every sample was really built
    row1 = next(r for r in outcome.summary["rows"] if r["group"] == "all" and r["k"] == 1)
    assert 0.0 <= row1["passed"] <= 1.0 and row1["samples"] == 4

    report = write_report(
        tmp_path / "report", load_run(runner.engine, run_id), ks=[1, 2], resources=None
    )
    text = report["markdown"].read_text()
    assert f"- model: {vllm_config.model}" in text and "| **all** | 1 | 2 | 4 |" in text
    # Shown with -s: what the embedded model scored, whatever it is.
    print(f"\nembedded model {vllm_config.model}: {outcome.reason}")
    print("statuses:", sorted(r.status for r in rows))
