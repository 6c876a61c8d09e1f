"""No false rejections: known-good OpenMP solutions of ParEval problems still pass the hardened
verifier (integrity checks, hidden inputs, the race checker at timing size, the parallel proof,
paired timing) with a plausible timing: every speedup within the cores the run had or flagged
times the candidate's sequential gain on one CPU (gemm's loop order is 3x the reference's there)
or flagged, or an honest `too short to time`."""

from __future__ import annotations

import pytest

from sandbox.spec import Candidate, Spec, Target
from sandbox.verdict import Status
from sandbox.verify import verify
from tests.fakes.pareval import cases, source_of, suite

pytestmark = pytest.mark.docker

PROBLEMS = [
    "02_dense_la_gemm",
    "03_dense_la_axpy",
    "06_fft_dft",
    "11_geometry_convex_hull_perimeter",
]


@pytest.mark.parametrize("task_name", PROBLEMS)
async def test_known_good_openmp_solutions_pass_with_a_plausible_speedup(verify_sandbox, task_name):
    goods = [n for t, target, n in cases("good") if t == task_name and target is Target.OPENMP]
    assert goods
    spec = Spec.model_validate(suite().task(task_name).spec_for(Target.OPENMP))
    for name in goods:
        source = source_of(task_name, Target.OPENMP, name)
        v = await verify(verify_sandbox, spec, Candidate(target="openmp", source=source))
        assert v.status is Status.PASSED, (name, v.reason)
        assert v.timing is not None and v.hidden is not None and v.hidden.tests == 2
        for n, speedup in v.timing.speedup.items():
            usable = min(n, v.timing.pinned.get(n, n))
            bound = usable * max(v.timing.sequential_gain, 1.0) * 1.15
            assert speedup <= bound or n in v.timing.above_cores, v.timing
        if task_name == "02_dense_la_gemm":  # its loop order counts: a plausible speedup
            assert v.timing.too_short or v.timing.best_speedup > 1.0, v.timing
        assert v.timing.too_short or v.timing.speedup, v.timing


MPI_LARGEST = ["20_histogram_pixel_histogram", "30_scan_prefix_sum"]
"""Problems whose sequential timing run needs the most memory (about 515 MB): their MPI drivers
hold the whole input on every rank."""


@pytest.mark.parametrize("task_name", MPI_LARGEST)
async def test_known_good_mpi_solutions_are_timed_at_four_ranks_within_the_sandbox(
    verify_sandbox, task_name
):
    # Four ranks that each hold the task's sequential timing input need four times its memory:
    # past the sandbox's limit, every passing program was killed on its timing input.
    spec = Spec.model_validate(suite().task(task_name).spec_for(Target.MPI))
    spec = spec.model_copy(update={"ranks": [1, 4], "timing_repeats": 1})
    source = source_of(task_name, Target.MPI, "mpi.cpp")
    v = await verify(verify_sandbox, spec, Candidate(target="mpi", source=source))
    assert v.status is Status.PASSED, v.reason
    assert v.timing is not None and 4 in v.timing.candidate_s, v.timing
