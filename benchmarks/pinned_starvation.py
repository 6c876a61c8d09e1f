"""Does a run pinned to one CPU get that CPU while the embedded model server generates?

Timed runs are pinned (`Command.cpus`), so the answer decides whether they may run beside
generation. This script keeps the server generating (6 concurrent completions), compiles a
fixed CPU loop and runs it, one after another: pinned to each CPU in turn (`taskset -c N`),
unpinned, and, for comparison, pinned beside two plain busy processes instead of the server.
Each run has a deadline; a run that never got its CPU shows as its deadline.

    python benchmarks/pinned_starvation.py [--rounds 3] [--deadline 60]

Needs the server up (`parforge model serve`), `cc` and `taskset`. Prints each run's wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from pathlib import Path

import httpx

LOOP = r"""
int main(void) { volatile long s = 0; for (long i = 0; i < 200000000; i++) s += i; return 0; }
"""


async def generate(url: str, model: str, stop: asyncio.Event) -> None:
    async with httpx.AsyncClient(timeout=300) as client:
        while not stop.is_set():
            with suppress(httpx.HTTPError):
                await client.post(
                    f"{url}/completions",
                    json={"model": model, "prompt": "Write a long story:", "max_tokens": 400},
                )


LATE: list[asyncio.subprocess.Process] = []
"""Killed at their deadline; reaped once generation stops (a starved process cannot even run
its own exit until it gets the CPU)."""


async def timed(argv: list[str], deadline: float) -> float:
    """Wall time of one run; `deadline` when it did not end by then (it is killed)."""
    start = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(*argv)
    try:
        await asyncio.wait_for(proc.wait(), deadline)
    except TimeoutError:
        proc.kill()
        LATE.append(proc)
        return deadline
    return time.perf_counter() - start


def build_loop() -> str:
    work = Path(tempfile.mkdtemp(prefix="pinned-"))
    (work / "loop.c").write_text(LOOP)
    subprocess.run(["cc", "-O1", "-o", str(work / "loop"), str(work / "loop.c")], check=True)
    return str(work / "loop")


def busy() -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--deadline", type=float, default=60.0)
    parser.add_argument("--url", default="http://127.0.0.1:8000/v1")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    args = parser.parse_args()

    loop = build_loop()
    cpus = sorted(os.sched_getaffinity(0))
    arms = {f"pinned to CPU {c}": ["taskset", "-c", str(c), loop] for c in cpus}
    arms["unpinned"] = [loop]
    results: dict[str, list[float]] = {name: [] for name in [*arms, "quiet", "beside busy loops"]}

    for _ in range(args.rounds):  # a quiet baseline, pinned to the first CPU
        results["quiet"].append(await timed(arms[f"pinned to CPU {cpus[0]}"], args.deadline))

    stop = asyncio.Event()
    clients = [asyncio.create_task(generate(args.url, args.model, stop)) for _ in range(6)]
    await asyncio.sleep(10)  # generation under way
    try:
        for _ in range(args.rounds):
            for name, argv in arms.items():
                results[name].append(await timed(argv, args.deadline))
    finally:
        stop.set()
        for task in clients:
            task.cancel()
        await asyncio.gather(*clients, return_exceptions=True)
        for proc in LATE:
            await proc.wait()

    hogs = busy()
    try:
        for _ in range(args.rounds):
            results["beside busy loops"].append(
                await timed(arms[f"pinned to CPU {cpus[0]}"], args.deadline)
            )
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()

    print(f"wall time of a fixed loop, {args.rounds} runs each (deadline {args.deadline:.0f} s)")
    for name, times in results.items():
        shown = ", ".join(f"{t:.2f}" for t in times)
        late = sum(t >= args.deadline for t in times)
        print(
            f"  {name:24} median {statistics.median(times):7.2f} s  [{shown}]  {late} hit the deadline"
        )


if __name__ == "__main__":
    asyncio.run(main())
