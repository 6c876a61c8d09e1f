"""Verification latency of a small OpenMP kernel: warm docker pool vs cold container vs host.

One verification is the command sequence `verify` runs for an OpenMP candidate: write the
files; build the sequential reference and the candidate with `clang -O2 -fopenmp`; run both on
three inputs and compare; build the candidate with `clang -fopenmp -fsanitize=thread -g` (Debian's
libomp loads Archer by itself for a TSan program); run that at 2 and 4 threads. Each build may
write only its own directory and each run none (what `verify` asks), so the docker backend
pays for everything its isolation does per command: a fresh identity, scratch directory and
Landlock domain, the tree's accounting, sealing the build, the clean-up after. It runs on

    warm  the docker backend with a pre-started pool (containers wiped and reused),
    cold  the docker backend with a fresh container per job (`reuse=False`),
    host  the local backend without bubblewrap: the same commands as host processes, with its
          bookkeeping (rlimits, process-tree and memory watch, output caps),
    bare  the same commands through a bare `asyncio.create_subprocess_exec` in a temporary
          directory: no sandbox at all, the floor,

interleaved repetition by repetition, each timed from leasing the workspace to the last result,
with background work (wipes, removals) finished before the next one starts. It prints medians
per step, the ratios to host and to bare (target: warm <= 1.15 x host), and the cost of one
trivial command on each path, with a `docker exec` for comparison.

    .venv/bin/python benchmarks/sandbox_latency.py [--reps 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import docker

from sandbox.backends import open_sandbox
from sandbox.backends.docker import DockerSandbox
from sandbox.base import Sandbox, Workspace
from sandbox.config import DockerConfig, LocalConfig
from sandbox.models import DEFAULT_OUTPUT_LIMIT, Command, CommandResult

KERNEL = r"""
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

int main(int argc, char **argv) {
    long n = atol(argv[1]);
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), dot = 0;
    #pragma omp parallel for
    for (long i = 0; i < n; i++) { x[i] = sin(0.001 * i); y[i] = cos(0.001 * i); }
    #pragma omp parallel for reduction(+:dot)
    for (long i = 0; i < n; i++) { y[i] = 2.5 * x[i] + y[i]; dot += x[i] * y[i]; }
    printf("%.6e\n", dot);
    free(x); free(y);
    return 0;
}
"""
REFERENCE = KERNEL.replace("#pragma omp parallel for reduction(+:dot)", "").replace(
    "#pragma omp parallel for", ""
)
INPUTS = ["1000", "50000", "400000"]
TSAN_ENV = {"TSAN_OPTIONS": "ignore_noninstrumented_modules=1"}


class BareWorkspace:
    """Commands as plain child processes: what running them "directly on the host" costs."""

    def __init__(self, root: Path) -> None:
        self.root = root

    async def write_files(self, files: Mapping[str, str | bytes]) -> None:
        for name, content in files.items():
            data = content.encode() if isinstance(content, str) else content
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)

    async def read_file(self, path: str, limit: int = DEFAULT_OUTPUT_LIMIT) -> bytes:
        return (self.root / path).read_bytes()[:limit]

    async def run(self, command: Command) -> CommandResult:
        start = time.monotonic()
        proc = await asyncio.create_subprocess_exec(
            *command.argv,
            cwd=self.root / command.cwd,
            env={**os.environ, **command.env},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await proc.communicate()
        return CommandResult(
            exit_code=proc.returncode,
            stdout=out.decode(),
            stderr=err.decode(),
            duration_s=time.monotonic() - start,
        )


class BareSandbox:
    """Temporary directories and nothing else."""

    def info(self) -> Any:
        return None

    @asynccontextmanager
    async def workspace(self) -> AsyncIterator[BareWorkspace]:
        root = Path(tempfile.mkdtemp(prefix="parforge-bare-"))
        try:
            yield BareWorkspace(root)
        finally:
            shutil.rmtree(root)

    async def aclose(self) -> None:
        pass


async def verification(ws: Workspace, lap: Callable[[str], None]) -> None:
    """The command sequence of one OpenMP verification; `lap(step)` marks each step's end."""
    await ws.write_files({"job/reference.c": REFERENCE, "job/candidate.c": KERNEL})
    lap("write files")
    for name in ("reference", "candidate"):
        built = await ws.run(
            Command(
                argv=["clang", "-O2", "-fopenmp", f"{name}.c", "-o", name, "-lm"],
                cwd="job",
                writes=["job"],
            )
        )
        assert built.ok, built.stderr
    lap("clang -O2 -fopenmp x2")
    for arg in INPUTS:
        ref = await ws.run(Command(argv=["./reference", arg], cwd="job"))
        cand = await ws.run(
            Command(argv=["./candidate", arg], cwd="job", env={"OMP_NUM_THREADS": "2"})
        )
        assert ref.ok and cand.ok, (ref, cand)
        assert abs(float(ref.stdout) - float(cand.stdout)) <= 1e-9 * abs(float(ref.stdout)) + 1e-12
    lap("run 3 inputs x2")
    tsan = [
        "clang",
        "-fopenmp",
        "-fsanitize=thread",
        "-g",
        "-O1",
        "candidate.c",
        "-o",
        "tsan",
        "-lm",
    ]
    built = await ws.run(Command(argv=tsan, cwd="job", writes=["job"]))
    assert built.ok, built.stderr
    lap("clang TSan build")
    for threads in ("2", "4"):
        raced = await ws.run(
            Command(
                argv=["./tsan", INPUTS[0]],
                cwd="job",
                env={**TSAN_ENV, "OMP_NUM_THREADS": threads},
            )
        )
        assert raced.ok, raced.stderr  # race-free: Archer keeps TSan quiet about OpenMP sync
    lap("TSan runs at 2, 4 threads")


async def timed_job(sandbox: Sandbox | BareSandbox) -> dict[str, float]:
    """One verification in a fresh workspace: per-step seconds and the total."""
    laps: dict[str, float] = {}
    start = last = time.perf_counter()

    def lap(step: str) -> None:
        nonlocal last
        now = time.perf_counter()
        laps[step] = now - last
        last = now

    async with sandbox.workspace() as ws:
        lap("lease workspace")
        await verification(ws, lap)
    laps["total"] = time.perf_counter() - start
    if isinstance(sandbox, DockerSandbox):
        await sandbox.settle()
    return laps


async def trivial_command_costs(
    warm: DockerSandbox, host: Sandbox, reps: int = 50
) -> dict[str, float]:
    """Median seconds of one `true` through the agent, on the host, and by `docker exec`."""
    costs: dict[str, float] = {}

    async def median_of(fn: Callable[[], Awaitable[Any]], n: int = reps) -> float:
        times = []
        for _ in range(n):
            t = time.perf_counter()
            await fn()
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    async with warm.workspace() as ws:
        costs["docker agent run"] = await median_of(lambda: ws.run(Command(argv=["true"])))
        costs["docker agent write"] = await median_of(lambda: ws.write_files({"j/a.c": KERNEL}))

    async def lease_and_wipe() -> None:
        async with warm.workspace() as ws:
            await ws.write_files({"j/a.c": KERNEL})
        await warm.settle()  # the wipe runs after the job, off its critical path

    costs["docker wipe between jobs"] = await median_of(lease_and_wipe, 20)
    async with host.workspace() as ws:
        costs["host subprocess"] = await median_of(lambda: ws.run(Command(argv=["true"])))
    client = docker.from_env()
    try:
        image = warm.info().image
        container = client.containers.run(
            image, ["infinity"], entrypoint=["sleep"], detach=True, network_mode="none"
        )

        def exec_true() -> None:
            exec_id = client.api.exec_create(container.id, ["true"])["Id"]
            client.api.exec_start(exec_id)
            client.api.exec_inspect(exec_id)

        costs["docker exec (for comparison)"] = await median_of(
            lambda: asyncio.to_thread(exec_true)
        )
        container.remove(force=True)
    finally:
        client.close()
    return costs


async def main(reps: int) -> None:
    warm = DockerSandbox(DockerConfig(pool_size=2))
    cold = DockerSandbox(DockerConfig(pool_size=2, reuse=False))
    host = open_sandbox(LocalConfig(bubblewrap="off"))
    print("preparing: image, warm pool")
    await warm.build_image()
    await warm.start()
    backends: dict[str, Sandbox | BareSandbox] = {
        "warm": warm,
        "cold": cold,
        "host": host,
        "bare": BareSandbox(),
    }
    results: dict[str, list[dict[str, float]]] = defaultdict(list)
    try:
        for sandbox in backends.values():  # one untimed round: page cache, first compiles
            await timed_job(sandbox)
        for rep in range(reps):
            for name, sandbox in backends.items():
                results[name].append(await timed_job(sandbox))
            totals = "  ".join(f"{n} {results[n][-1]['total']:.3f}s" for n in backends)
            print(f"rep {rep + 1}/{reps}: {totals}")
        costs = await trivial_command_costs(warm, host)
    finally:
        for sandbox in backends.values():
            await sandbox.aclose()
    report(results, costs, reps)


def report(results: dict[str, list[dict[str, float]]], costs: dict[str, float], reps: int) -> None:
    names = list(results)
    steps = list(results[names[0]][0])
    median = {n: {s: statistics.median(r[s] for r in results[n]) for s in steps} for n in names}
    print(f"\nmedian seconds over {reps} repetitions")
    print(f"{'step':28}" + "".join(f"{n:>10}" for n in names))
    for step in steps:
        print(f"{step:28}" + "".join(f"{median[n][step]:10.3f}" for n in names))
    print()
    for base in ("host", "bare"):
        for name in ("warm", "cold"):
            ratio = median[name]["total"] / median[base]["total"]
            target = "met" if ratio <= 1.15 else "NOT met"
            print(
                f"{name}/{base} = {ratio:.3f}"
                + (f"   (target <= 1.15: {target})" if name == "warm" else "")
            )
    print("\none trivial operation, median ms")
    for what, seconds in costs.items():
        print(f"  {what:30} {seconds * 1000:8.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10, help="timed repetitions per backend")
    asyncio.run(main(parser.parse_args().reps))
