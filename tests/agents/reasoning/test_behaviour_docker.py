"""The behaviour fingerprint in the real Docker sandbox: equivalent programs written
differently merge, programs that compute the same result another way stay apart, and the
probe is cheap (no race check, no timing) and never a verification."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agents.judge import SandboxJudge
from agents.reasoning import behaviour_key, probe_spec, structure
from sandbox.config import DockerConfig
from sandbox.spec import Candidate, Language, Spec, Target, TestCase
from sandbox.verdict import Status
from sandbox.verify.pipeline import PROBE_REASON
from sandbox.verify.verifier import open_verifier
from tests.fakes.graphs import DIFFERENT_TEXT, SOURCE, WITH_REDUCTION

pytestmark = [pytest.mark.docker]

ATOMIC = WITH_REDUCTION.replace(
    "    #pragma omp parallel for reduction(+:sum)\n    for (int i = 0; i < n; i++)\n"
    "        sum += a[i];",
    "    #pragma omp parallel for\n    for (int i = 0; i < n; i++) {\n"
    "        #pragma omp atomic\n        sum += a[i];\n    }",
)
WRONG = WITH_REDUCTION.replace("sum += a[i];", "sum += a[i] + 1;")


def test_equivalent_programs_merge_and_different_ones_stay_apart(sandbox_image: str) -> None:
    assert ATOMIC != WITH_REDUCTION and WRONG != WITH_REDUCTION
    spec = Spec(
        name="sum",
        language=Language.C,
        reference=SOURCE,
        tests=[TestCase(name=f"t{n}", args=[str(n)]) for n in (1, 7, 100, 100000)],
    )
    probe = probe_spec(spec)

    async def probe_all() -> list[Any]:
        verifier = SandboxJudge(open_verifier(DockerConfig(pool_size=2)))
        try:
            return list(
                await asyncio.gather(
                    *(
                        verifier.probe(probe, Candidate(target=Target.OPENMP, source=code))
                        for code in (WITH_REDUCTION, DIFFERENT_TEXT, ATOMIC, WRONG)
                    )
                )
            )
        finally:
            await verifier.aclose()

    verdicts = asyncio.run(probe_all())
    reduction, different_text, atomic, wrong = verdicts
    for verdict in (reduction, different_text, atomic):
        assert verdict.status is Status.PASSED and verdict.reason == PROBE_REASON
        assert verdict.concurrency is None and verdict.timing is None  # cheap: no race, no time
        runs = [s for s in verdict.steps if s.name.startswith("run candidate")]
        assert len(runs) == 3 and all("2 thread" in s.name for s in runs)
    assert wrong.status is Status.WRONG_ANSWER  # a failing probe is a real verdict

    keys = [
        behaviour_key(v, structure(code, Language.C))
        for v, code in zip(verdicts, (WITH_REDUCTION, DIFFERENT_TEXT, ATOMIC, WRONG), strict=True)
    ]
    assert keys[0] == keys[1]  # the same thing computed the same way, written differently
    assert keys[0] != keys[2]  # the same result computed another way (atomic updates)
    assert keys[0] != keys[3]
