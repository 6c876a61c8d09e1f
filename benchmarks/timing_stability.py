"""How stable a verdict's speedup is while the embedded model server generates beside it.

On a 2-core host a plain prime count measured 2.30x at one thread and 4.07x at four: the
reference was timed while the model server generated, the candidate later on a quiet machine.
This benchmark verifies known-good candidates 3 times each (`--repeats`) while a client keeps
the embedded vLLM server generating, and reports per candidate the median speedup of each
verification (at its best plausible count) and how far the three lie apart:
(max - min) / median. Target: at most 15 % with the model server up.

    python benchmarks/timing_stability.py [--repeats 3] [--no-pause] [--no-load]

It uses only what every version of `sandbox.verify` had (spec, candidate, sandbox, timing gate),
so the same script measures an earlier checkout ("before") too. `--no-pause` leaves the model
server running during timing runs (ParForge pauses it by default where it owns it); `--no-load`
measures a quiet machine. The server must be up (`parforge model serve`) unless `--no-load`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from contextlib import suppress
from pathlib import Path

import httpx

from corpus.suites import load_suite
from parforge.settings import default_data_dir
from sandbox.backends import open_sandbox
from sandbox.config import DockerConfig
from sandbox.spec import Candidate, Spec, Target, TestCase, Tolerance
from sandbox.verify import verify
from sandbox.verify.gate import TimingGate

PROBLEMS = ["02_dense_la_gemm", "06_fft_dft", "13_geometry_closest_pair_2d"]
"""Known-good ParEval OpenMP solutions whose kernels are long enough to time on any host."""

PRIMES = r"""
#include <stdio.h>
#include <stdlib.h>
static int prime(long k) {
    if (k < 2) return 0;
    for (long d = 2; d * d <= k; d++) if (k % d == 0) return 0;
    return 1;
}
int main(int argc, char **argv) {
    long n = atol(argv[1]), count = 0;
    PRAGMA
    for (long k = 0; k < n; k++) count += prime(k);
    printf("%ld primes below %ld\n", count, n);
    return 0;
}
"""
"""The issue's plain prime count: a reduction, nothing else."""


def prime_count() -> tuple[str, Spec, Candidate]:
    spec = Spec(
        name="primes",
        language="c",
        reference=PRIMES.replace("PRAGMA", ""),
        tests=[TestCase(name="a", args=["1000"]), TestCase(name="b", args=["20000"])],
        timing=TestCase(name="t", args=["3000000"]),
        tolerance=Tolerance(rtol=0),
        threads=[1, 2, 4],
        timing_repeats=5,
    )
    pragma = "#pragma omp parallel for reduction(+:count) schedule(dynamic, 1000)"
    return "primes", spec, Candidate(target="openmp", source=PRIMES.replace("PRAGMA", pragma))


def pareval(name: str) -> tuple[str, Spec, Candidate]:
    task = load_suite("pareval").task(name)
    spec = Spec.model_validate(task.spec_for(Target.OPENMP))
    source = task.target(Target.OPENMP).solutions[0].source
    return name, spec, Candidate(target="openmp", source=source)


async def generate(url: str, model: str, stop: asyncio.Event, counter: list[int]) -> None:
    """Keep the model server generating until `stop` is set."""
    async with httpx.AsyncClient(timeout=120) as client:
        while not stop.is_set():
            with suppress(httpx.HTTPError):
                r = await client.post(
                    f"{url}/completions",
                    json={"model": model, "prompt": "Write a long story:", "max_tokens": 256},
                )
                counter[0] += r.status_code == 200


def quiet_hook(pause: bool, data_dir: Path):  # type: ignore[no-untyped-def]
    """ParForge's pause of the embedded server, where this checkout has one."""
    if not pause:
        return None
    try:
        from parforge.model_server.pause import ModelServerPause
    except ImportError:
        return None  # an earlier checkout: nothing to pause with
    return ModelServerPause(data_dir.resolve() / "model-server" / "server.json")


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-pause", action="store_true")
    parser.add_argument("--no-load", action="store_true")
    parser.add_argument("--url", default="http://127.0.0.1:8000/v1")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--data-dir", type=Path, default=default_data_dir())
    parser.add_argument("--json", type=Path, help="write the measurements here")
    args = parser.parse_args()

    cases = [prime_count(), *(pareval(p) for p in PROBLEMS)]
    quiet = quiet_hook(not args.no_pause, args.data_dir)
    gate = TimingGate(quiet) if quiet is not None else TimingGate()
    sandbox = open_sandbox(DockerConfig(pool_size=2))
    stop, served = asyncio.Event(), [0]
    load = (
        None if args.no_load else asyncio.create_task(generate(args.url, args.model, stop, served))
    )
    print(
        f"{len(cases)} candidates x {args.repeats} verifications; model server "
        f"{'generating' if load else 'idle'}; pause during timing: {quiet is not None}"
    )
    rows = []
    try:
        for name, spec, cand in cases:
            medians = []
            for k in range(args.repeats):
                start = time.monotonic()
                v = await verify(sandbox, spec, cand, timing_gate=gate)
                t = v.timing
                best = max(
                    (
                        s
                        for n, s in (t.speedup if t else {}).items()
                        if t and n not in t.above_cores
                    ),
                    default=0.0,
                )
                medians.append(best)
                flags = getattr(t, "disturbed", []) if t else []
                print(
                    f"  {name} #{k + 1}: {v.status.value}, best {best:.2f}x "
                    f"{dict(t.speedup) if t else {}} disturbed {flags} "
                    f"({time.monotonic() - start:.0f} s)",
                    flush=True,
                )
            spread = (
                (max(medians) - min(medians)) / statistics.median(medians) if all(medians) else None
            )
            rows.append({"candidate": name, "speedups": medians, "spread": spread})
    finally:
        stop.set()
        if load is not None:
            await load
        await sandbox.aclose()
    print(f"\n{'candidate':<30} {'speedups':<24} spread")
    for row in rows:
        spread = f"{100 * row['spread']:.1f} %" if row["spread"] is not None else "-"
        text = ", ".join(f"{s:.2f}" for s in row["speedups"])
        print(f"{row['candidate']:<30} {text:<24} {spread}")
    spreads = [r["spread"] for r in rows if r["spread"] is not None]
    if spreads:
        print(
            f"worst spread {100 * max(spreads):.1f} % (target <= 15 %); {served[0]} completions served"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
