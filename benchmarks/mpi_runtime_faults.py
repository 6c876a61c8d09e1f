"""How often Open MPI itself crashes a correct MPI run, and how often once more still fails.

Open MPI 4.1 with PMIx 4 sometimes crashes in MPI_Finalize (open-mpi/ompi#10117): rarely on a
quiet machine, more often when the host is busy. `verify` recognises that crash by its report
(`MPIToolchain.runtime_fault`) and runs the program once more. This script runs a correct MPI
program many times in two warm Docker sandboxes (the verifier's own command lines, several runs
at once in each) and counts, side by side in one run:

    raw          runs that did not end with status 0 and the right answer,
    signature    those of them whose report is the runtime's crash signature,
    after retry  runs still failing once the signature runs were repeated as `verify` does
                 (what a correct candidate would be blamed for).

Busy machines are where it shows: `--ranks 4` on 2 cores keeps the host loaded.

    .venv/bin/python benchmarks/mpi_runtime_faults.py [--runs 4000] [--ranks 1] [--at-once 2]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import Counter
from functools import partial

from sandbox.backends import open_sandbox
from sandbox.base import Workspace
from sandbox.config import DockerConfig
from sandbox.models import Command, CommandResult
from sandbox.spec import Language, TestCase
from sandbox.toolchains import Sources
from sandbox.toolchains.base import Paths
from sandbox.toolchains.mpi import MPIToolchain

PROGRAM = r"""
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long part = 0, total = 0;
    for (long i = rank; i < 1000000; i += size) part += i % 7;
    MPI_Reduce(&part, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%ld\n", total);
    MPI_Finalize();
    return 0;
}
"""
EXPECTED = f"{sum(i % 7 for i in range(1000000))}\n"


def correct(result: CommandResult) -> bool:
    return result.ok and result.stdout == EXPECTED


async def one_sandbox(
    workspace: Workspace, runs: list[int], ranks: int, at_once: int, counts: Counter[str]
) -> None:
    tc = MPIToolchain()
    root = (await workspace.run(Command(argv=["pwd"]))).stdout.strip()
    paths = Paths(root)
    program = Sources("p", "main.c", Language.C)
    await workspace.write_files({"p/main.c": PROGRAM})
    for step in (tc.compile, tc.link):
        built = await workspace.run(step(program, paths))
        if not built.ok:
            raise SystemExit(f"the benchmark program does not build: {built.stderr}")
    # A fresh command per run, as `verify` makes: each gets its own Open MPI session directory.
    command = partial(tc.run, program, TestCase(name="t"), ranks, 20.0, paths)

    async def runner() -> None:
        while runs[0] > 0:
            runs[0] -= 1
            result = await workspace.run(command())
            counts["runs"] += 1
            if correct(result):
                continue
            counts["raw"] += 1
            if tc.runtime_fault(result):
                counts["signature"] += 1
                result = await workspace.run(command())
            if not correct(result):
                counts["after retry"] += 1
                print(f"still failing: exit {result.exit_code}\n{result.stderr[-600:]}")

    await asyncio.gather(*(runner() for _ in range(at_once)))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4000)
    parser.add_argument("--ranks", type=int, default=1)
    parser.add_argument("--at-once", type=int, default=2, help="runs at once in each sandbox")
    args = parser.parse_args()
    sandbox = open_sandbox(DockerConfig(pool_size=2))
    counts: Counter[str] = Counter()
    runs = [args.runs]
    start = time.monotonic()
    try:
        async with sandbox.workspace() as a, sandbox.workspace() as b:
            await asyncio.gather(
                *(one_sandbox(w, runs, args.ranks, args.at_once, counts) for w in (a, b))
            )
    finally:
        await sandbox.aclose()
    n = counts["runs"]
    print(
        f"{n} runs of a correct program at {args.ranks} rank(s), {args.at_once} at once in each "
        f"of 2 sandboxes, {time.monotonic() - start:.0f} s"
    )
    for key in ("raw", "signature", "after retry"):
        found = counts[key]
        rate = f"1 in {n / found:.0f}" if found else "none"
        print(f"  {key:<12} {found:>5}  ({rate})")


if __name__ == "__main__":
    asyncio.run(main())
