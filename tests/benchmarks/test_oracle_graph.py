"""The translate graph against the simulated capable model, through the eval harness and the
real Docker sandbox: what a model that writes correct code turns into, and that a model that
writes only wrong code costs nothing the analysis alone would have found. SIMULATED model."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from benchmarks.oracle import Oracle, serving
from benchmarks.translate_pareval import one
from corpus.suites import load_suite
from sandbox.spec import Target

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ANALYSABLE = "55_transform_relu"
"""A map the analysis annotates on its own."""
NOT_ANALYSABLE = "41_sort_k-th_smallest_element"
"""A `std::sort` no tool parallelises: only a model's code can pass."""


@pytest.fixture
async def oracle() -> AsyncIterator[tuple[Oracle, str]]:
    served = Oracle(p=1.0, seed=0, rate=5000.0, tasks=list(load_suite("pareval").tasks))
    async with serving(served) as url:
        yield served, url


async def statuses(agent: str, url: str, names: list[str]) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'run.db'}"
        _, _, found = await one(agent, names, False, db, Target.OPENMP, model_url=url)
    return found


async def test_a_capable_model_passes_what_no_tool_can(sandbox_image, oracle) -> None:
    served, url = oracle
    found = await statuses("graph", url, [NOT_ANALYSABLE])
    assert found[NOT_ANALYSABLE].startswith("passed"), found
    assert served.draws and served.draws[0].good


async def test_a_model_that_is_always_wrong_costs_nothing_the_analysis_finds(
    sandbox_image, oracle
) -> None:
    served, url = oracle
    served.p = 0.0  # every code answer a planted mutant
    found = await statuses("graph", url, [ANALYSABLE, NOT_ANALYSABLE])
    assert found[ANALYSABLE].startswith("passed"), found
    assert not found[NOT_ANALYSABLE].startswith("passed"), found
    assert served.draws and not any(d.good for d in served.draws)
