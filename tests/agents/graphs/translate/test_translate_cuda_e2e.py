"""The translate graph to CUDA end to end with no model at all, in the real Docker sandbox on a
host without a GPU: the `offload` tool turns a whole program's loops into kernels, and a
ParEval serial→CUDA task's function (a map, a reduction, a scan, a sort) into the kernel its driver
launches; both build and end honestly `not_run` (nothing here can run them), with the built
candidate as the best. A function the kernel writer cannot take gets no mechanical candidate."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from agents.graphs.shared.config import GraphConfig
from agents.llm import LLMClient, LLMConfig
from agents.runners import GraphRunner, SandboxJudge
from corpus.store import open_store, tasks
from corpus.store.models import JobStatus, TaskCreate, TaskOptions, TestInput
from corpus.suites import load_suite
from sandbox.config import DockerConfig
from sandbox.spec import Spec
from sandbox.verify.verifier import open_verifier
from tests.agents.graphs.translate.pool import run_to_end
from tests.fakes.paths import GRAPH_PROGRAMS

pytestmark = [
    pytest.mark.docker,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs the CUDA toolkit"),
]

PAREVAL = {"axpy": "03_dense_la_axpy", "odd": "28_reduce_smallest_odd_number",
           "average": "27_reduce_average", "scan": "30_scan_prefix_sum",
           "sort": "43_sort_sort_an_array_of_structs_by_key",
           "nonzero": "44_sort_sort_non-zero_elements", "hull": "10_geometry_convex_hull"}  # fmt: skip


@pytest.fixture(scope="module")
def outcomes(sandbox_image: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    url = f"sqlite:///{tmp_path_factory.mktemp('cuda') / 'store.db'}"
    engine = open_store(url)
    suite = load_suite("pareval")
    sources = {t.problem: t for t in suite.translations if t.target_model == "cuda"}
    ids: dict[str, str] = {}
    with Session(engine) as s:
        create = TaskCreate(
            name="histogram",
            language="c",
            target="cuda",
            source=(GRAPH_PROGRAMS / "histogram.c").read_text(),
            tests=[TestInput(name=f"t{i}", args=[n]) for i, n in enumerate(["3", "4099"])],
        )
        ids["histogram"] = tasks.submit(s, create).id
        # prefix sums written as recurrences: CUB's scans, which the verifier's object checks
        # must accept (no NVTX start-up that loads a library)
        create = TaskCreate(
            name="prefix",
            language="c",
            target="cuda",
            source=(
                Path(__file__).parents[2] / "analysis" / "programs" / "recurrences.c"
            ).read_text(),
            tests=[TestInput(name=f"t{i}", args=[n]) for i, n in enumerate(["5", "100003"])],
            options={"rtol": 1e-9},
        )
        ids["prefix"] = tasks.submit(s, create).id
        for name, problem in PAREVAL.items():
            translation = sources[problem]
            assert translation.task is not None
            create = TaskCreate(
                name=name,
                language="cpp",
                target="cuda",
                source=translation.source,
                options=TaskOptions(spec=Spec.model_validate(translation.spec_for()).model_dump()),
            )
            ids[name] = tasks.submit(s, create).id

    def make_runner() -> GraphRunner:
        llm = LLMClient(LLMConfig(url="http://127.0.0.1:9/v1"))  # never called: no model
        verifier = SandboxJudge(open_verifier(DockerConfig(pool_size=2)))
        config = GraphConfig(use_model=False, planner=False, repairs=0, replans=0)
        return GraphRunner(llm, verifier, config)

    return run_to_end(engine, ids, make_runner)


@pytest.mark.parametrize(
    "name", ["histogram", "prefix", "axpy", "odd", "average", "scan", "sort", "nonzero"]
)
def test_offloaded_loops_build_and_are_honestly_not_run_without_a_gpu(
    outcomes: dict[str, Any], name: str
) -> None:
    task, candidates, steps = outcomes[name]
    assert task.status == JobStatus.NOT_RUN, task.reason
    best = next(c for c in candidates if c.id == task.best_candidate_id)
    assert best.strategy.startswith("offload["), best.strategy
    verdict = best.verdict.data
    assert verdict["status"] == "not_run", verdict["reason"]
    assert "GPU" in verdict["reason"], verdict["reason"]
    assert verdict["build"]["ok"], verdict["build"]
    assert "__global__" in best.source
    assert not any(s.kind == "llm_call" for s in steps)


def test_a_function_the_kernel_writer_cannot_take_gets_no_mechanical_candidate(
    outcomes: dict[str, Any],
) -> None:
    """A convex hull by the monotone chain (a sort, then a walk that pushes and pops a stack):
    no loop facts or library call to write a kernel from."""
    task, candidates, steps = outcomes["hull"]
    assert task.status == JobStatus.NO_VERIFIED_CANDIDATE, task.reason
    assert not [c for c in candidates if c.strategy.startswith("offload")]
    assert not any(s.kind == "llm_call" for s in steps)
