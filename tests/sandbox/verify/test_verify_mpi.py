"""verify() on planted MPI candidates: deadlock, rank-dependent answer, and a good one."""

from __future__ import annotations

from sandbox.spec import Candidate, Spec, Target, TestCase
from sandbox.verdict import Status
from sandbox.verify import verify

REFERENCE = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]), s = 0;
    for (long i = 0; i < n; i++) s += i * i % 7;
    printf("%ld\n", s);
    return 0;
}
"""

GOOD = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = atol(argv[1]), part = 0, s = 0;
    long lo = n * rank / size, hi = n * (rank + 1) / size;
    for (long i = lo; i < hi; i++) part += i * i % 7;
    MPI_Reduce(&part, &s, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%ld\n", s);
    MPI_Finalize();
    return 0;
}
"""

# Every rank waits for its right neighbour before sending to its left one: a cycle.
DEADLOCK = GOOD.replace(
    "    MPI_Reduce(",
    "    long token = rank;\n"
    "    if (size > 1) {\n"
    "        MPI_Recv(&token, 1, MPI_LONG, (rank + 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n"
    "        MPI_Send(&token, 1, MPI_LONG, (rank + size - 1) % size, 0, MPI_COMM_WORLD);\n"
    "    }\n"
    "    MPI_Reduce(",
)

# Blocks of n / size: the remainder is dropped, so only rank counts dividing n are right.
RANK_DEPENDENT = GOOD.replace(
    "long lo = n * rank / size, hi = n * (rank + 1) / size;",
    "long chunk = n / size, lo = rank * chunk, hi = lo + chunk;",
)


def spec(**overrides) -> Spec:
    fields = dict(
        name="sumsq-mod",
        language="c",
        reference=REFERENCE,
        tests=[TestCase(name="ten", args=["10"]), TestCase(name="big", args=["100000"])],
        ranks=[1, 2, 4],
        timeout_s=6,
        timing_repeats=2,
    )
    fields.update(overrides)
    return Spec.model_validate(fields)


async def test_good_mpi_candidate_passes_at_every_rank_count(verify_sandbox):
    v = await verify(verify_sandbox, spec(), Candidate(target=Target.MPI, source=GOOD))
    assert v.status is Status.PASSED, v.reason
    assert v.source_check is not None and v.source_check.found == ["MPI_Reduce"]
    assert {o.workers for o in v.equivalence.outcomes} == {1, 2, 4}
    assert v.concurrency is not None and v.concurrency.ok and v.concurrency.tools == ["mpirun"]
    assert v.timing is not None and set(v.timing.speedup) == {1, 2, 4}
    run = next(s for s in v.steps if s.name == "run candidate [ten] 4 ranks")
    assert "mpirun -np 4 --oversubscribe" in run.command


async def test_hang_past_the_time_out_is_a_deadlock(verify_sandbox):
    v = await verify(
        verify_sandbox, spec(), Candidate(target=Target.MPI, source=DEADLOCK), timing=False
    )
    assert v.status is Status.DEADLOCK, v.reason
    assert "hung (deadlock)" in v.reason
    assert v.concurrency is not None
    [finding] = v.concurrency.findings
    assert (finding.kind, finding.tool, finding.workers) == ("deadlock", "mpirun", 2)
    # Open MPI can hang by itself: the hang counts because it recurred.
    assert [s.name for s in v.steps if s.name.startswith("run candidate [ten] 2 ranks")] == [
        "run candidate [ten] 2 ranks",
        "run candidate [ten] 2 ranks again: a hang may be Open MPI's own (open-mpi/ompi#10117)",
    ]
    assert v.duration_s < 60  # mpirun's own --timeout ends each hung run


async def test_answer_that_depends_on_the_rank_count(verify_sandbox):
    v = await verify(
        verify_sandbox, spec(), Candidate(target=Target.MPI, source=RANK_DEPENDENT), timing=False
    )
    assert v.status is Status.WRONG_ANSWER
    assert v.reason.startswith("test 'ten' at 4 ranks")
    assert v.reason.endswith("the answer depends on the rank count (right at 1, 2)")


async def test_mpi_without_communication_is_not_parallel(verify_sandbox):
    lonely = GOOD.replace(
        "MPI_Reduce(&part, &s, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);", "s = part;"
    )
    v = await verify(
        verify_sandbox, spec(), Candidate(target=Target.MPI, source=lonely), timing=False
    )
    assert v.status is Status.NOT_PARALLEL


# After its answer, rank 0 jumps into the shared-library area where nothing is mapped: the crash
# Open MPI reports then looks like its own crash in unloaded code (open-mpi/ompi#10117).
JUMPS_INTO_UNMAPPED_CODE = GOOD.replace(
    "    MPI_Finalize();",
    "    if (rank == 0) {\n"
    "        fflush(stdout);\n"
    "        ((void (*)(void))0x7f0000001000UL)();\n"
    "    }\n"
    "    MPI_Finalize();",
)


async def test_crash_in_unmapped_code_is_run_again_and_a_crash_that_recurs_is_a_crash(
    verify_sandbox,
):
    v = await verify(
        verify_sandbox,
        spec(tests=[TestCase(name="ten", args=["10"])], ranks=[2]),
        Candidate(target=Target.MPI, source=JUMPS_INTO_UNMAPPED_CODE),
        timing=False,
    )
    assert v.status is Status.CRASHED, v.reason
    runs = [s.name for s in v.steps if s.name.startswith("run candidate")]
    assert runs == [
        "run candidate [ten] 2 ranks",
        "run candidate [ten] 2 ranks again: Open MPI crashed in unloaded runtime code "
        "(open-mpi/ompi#10117)",
    ]
