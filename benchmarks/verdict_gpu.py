"""The verdict's integrity on a real GPU: known-good CUDA candidates pass, hostile ones do not.

Runs on a GPU host with the local backend (GPU machines often have no Docker), through the same
`verify` as everywhere: hidden inputs, compute-sanitizer memcheck, racecheck (on a hidden input
too) and synccheck with the instrumented runs' answers checked, paired timing. It verifies

- known-good ParEval CUDA solutions of several problem types (`--problems`), which must pass
  with the speedup the wall times confirm;
- a planted memcheck mutant, which must fail;
- hostile candidates of the classes CUDA shares with OpenMP and MPI: a solution that redefines
  the driver's synchronisation (its timer would stop at the launch), a whole program that
  prints a kernel time taken before its work on a non-default stream has finished, and one
  that leaves its work to a host thread after printing its time. None may pass with more than
  its honest wall-time speedup.

Without a GPU every CUDA verdict is `not run: no GPU` after the build and the integrity check
(the redefined timer is refused there already); the script says so and exits 2.

    python benchmarks/verdict_gpu.py [--problems 6] [--json verdicts.json] [--deadline 480]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from corpus.formats import Target as SuiteTarget
from corpus.suites import load_suite
from sandbox.backends import open_sandbox
from sandbox.config import LocalConfig
from sandbox.spec import Candidate, Language, Spec, Target, TestCase, Tolerance
from sandbox.verdict import Status, Verdict
from sandbox.verify import gather_limited, verify
from sandbox.verify.gate import TimingGate
from sandbox.verify.refcache import ReferenceCache

PROBLEMS = [
    "03_dense_la_axpy",
    "20_histogram_pixel_histogram",
    "25_reduce_xor",
    "13_geometry_closest_pair_2d",
    "05_fft_inverse_fft",
    "30_scan_prefix_sum",
]

REFERENCE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    double *x = malloc(n * sizeof *x);
    for (long i = 0; i < n; i++) x[i] = (double)((i * 7919) % 1000) / 1000.0;
    double t0 = now(), s = 0;
    for (long r = 0; r < 20; r++)
        for (long i = 0; i < n; i++) s += x[i] * x[i];
    fprintf(stderr, "PARFORGE_TIME_S=%.9f\n", now() - t0);
    printf("sum %.9e\n", s);
    free(x);
    return 0;
}
"""

CUDA = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <thread>
#include <cuda_runtime.h>
static double now(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec;
}
__global__ void squares(const double *x, double *out, long n) {
    __shared__ double part[256];
    double mine = 0;
    for (long i = blockIdx.x * 256L + threadIdx.x; i < n; i += 256L * gridDim.x) mine += x[i] * x[i];
    part[threadIdx.x] = mine;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    double *x = (double *)malloc(n * sizeof *x), *dx, *dout, s = 0;
    for (long i = 0; i < n; i++) x[i] = (double)((i * 7919) % 1000) / 1000.0;
    cudaMalloc(&dx, n * sizeof *x);
    cudaMalloc(&dout, sizeof *dout);
    cudaMemcpy(dx, x, n * sizeof *x, cudaMemcpyHostToDevice);
    cudaMemset(dout, 0, sizeof *dout);
    cudaDeviceSynchronize();
    double t0 = now();
BODY
    printf("sum %.9e\n", 20 * s);
    cudaFree(dx); cudaFree(dout); free(x);
    return 0;
}
"""
HONEST = """
    squares<<<256, 256>>>(dx, dout, n);
    cudaDeviceSynchronize();
    fprintf(stderr, "PARFORGE_TIME_S=%.9f\\n", now() - t0);
    cudaMemcpy(&s, dout, sizeof s, cudaMemcpyDeviceToHost);
"""
STREAM = """
    cudaStream_t side;
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    for (int r = 0; r < 50; r++) {  /* the real work, still running when the time is taken */
        cudaMemsetAsync(dout, 0, sizeof *dout, side);
        squares<<<256, 256, 0, side>>>(dx, dout, n);
    }
    fprintf(stderr, "PARFORGE_TIME_S=%.9f\\n", now() - t0);
    cudaStreamSynchronize(side);
    cudaMemcpy(&s, dout, sizeof s, cudaMemcpyDeviceToHost);
"""
THREAD = """
    fprintf(stderr, "PARFORGE_TIME_S=%.9f\\n", (now() - t0) + 1e-6);
    std::thread later([&] {
        for (int r = 0; r < 50; r++) {
            cudaMemset(dout, 0, sizeof *dout);
            squares<<<256, 256>>>(dx, dout, n);
            cudaDeviceSynchronize();
        }
        cudaMemcpy(&s, dout, sizeof s, cudaMemcpyDeviceToHost);
    });
    later.join();
"""
REDEFINED_SYNC = 'extern "C" cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }\n'


def whole_program_spec() -> Spec:
    return Spec(
        name="sum-of-squares",
        language=Language.C,
        reference=REFERENCE,
        tests=[TestCase(name="small", args=["1000"]), TestCase(name="medium", args=["300000"])],
        timing=TestCase(name="large", args=["40000000"]),
        tolerance=Tolerance(rtol=1e-9),
        timing_repeats=3,
    )


def cases(problems: int) -> list[tuple[str, str, Spec, Candidate]]:
    """(kind, name, spec, candidate): known-good, mutant, attack."""
    suite = load_suite("pareval")
    out = []
    for name in PROBLEMS[:problems]:
        task = suite.task(name)
        spec = Spec.model_validate(task.spec_for(SuiteTarget.CUDA))
        good = task.target(SuiteTarget.CUDA).solutions[0]
        out.append(("known-good", name, spec, Candidate(target=Target.CUDA, source=good.source)))
    axpy = suite.task("03_dense_la_axpy")
    axpy_spec = Spec.model_validate(axpy.spec_for(SuiteTarget.CUDA))
    axpy_good = axpy.target(SuiteTarget.CUDA).solutions[0]
    mutant = next(m for m in axpy_good.mutants if m.kind == "off_by_one")
    out.append(
        ("mutant", "axpy off by one", axpy_spec, Candidate(target="cuda", source=mutant.source))
    )
    out.append(
        (
            "attack",
            "axpy redefines cudaDeviceSynchronize",
            axpy_spec,
            Candidate(target=Target.CUDA, source=REDEFINED_SYNC + axpy_good.source),
        )
    )
    whole = whole_program_spec()
    for name, body in (("honest", HONEST), ("stream", STREAM), ("thread", THREAD)):
        kind = "known-good" if name == "honest" else "attack"
        source = CUDA.replace("BODY", body)
        out.append(
            (kind, f"whole program: {name}", whole, Candidate(target=Target.CUDA, source=source))
        )
    return out


def judged(kind: str, v: Verdict) -> str:
    """Whether the verdict is what this kind of candidate deserves."""
    if v.status is Status.NOT_RUN:
        return "not run"
    if kind == "known-good":
        return "ok" if v.passed else "FALSE REJECTION"
    if kind == "mutant":
        return "caught" if not v.passed else "MISSED"
    if not v.passed:
        return "refused"
    t = v.timing
    if t is not None and t.source == "wall":
        return "passed at its wall-time speedup"
    return "FORGED"


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--problems", type=int, default=len(PROBLEMS))
    parser.add_argument("--concurrency", type=int, default=6)
    parser.add_argument("--deadline", type=float, default=480.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    sandbox = open_sandbox(LocalConfig(max_concurrency=args.concurrency))
    cache, gate = ReferenceCache(), TimingGate()
    rows: list[dict[str, Any]] = []
    start = time.monotonic()
    print(f"sandbox: {sandbox.info().isolation}; GPU: {sandbox.info().gpu}", flush=True)

    async def one(kind: str, name: str, spec: Spec, cand: Candidate) -> None:
        if time.monotonic() - start > args.deadline:
            return
        v = await verify(sandbox, spec, cand, reference_cache=cache, timing_gate=gate)
        t = v.timing
        row = {
            "kind": kind,
            "name": name,
            "status": v.status.value,
            "judged": judged(kind, v),
            "reason": v.reason[:300],
            "source": t.source if t else None,
            "speedup": t.speedup if t else {},
            "spread": t.spread if t else {},
            "startup_s": t.startup_s if t else None,
            "hidden": v.hidden.tests if v.hidden else 0,
            "seconds": round(v.duration_s, 1),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)

    try:
        await gather_limited(args.concurrency, *(one(*c) for c in cases(args.problems)))
    finally:
        await sandbox.aclose()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    print()
    for row in rows:
        print(
            f"{row['judged']:<34} {row['kind']:<11} {row['name']:<40} {row['status']:<16} {row['speedup']}"
        )
    if all(r["judged"] == "not run" for r in rows):
        print("not run: no GPU")
        sys.exit(2)
    bad = [r for r in rows if r["judged"] in ("FALSE REJECTION", "MISSED", "FORGED")]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    asyncio.run(main())
