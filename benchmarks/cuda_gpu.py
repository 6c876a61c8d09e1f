"""The CUDA path on a real GPU: ParEval's known-good CUDA solutions and planted CUDA mutants
through the verifier (build, every test input, compute-sanitizer memcheck/racecheck/synccheck,
timing against the serial reference).

On a host without a GPU every CUDA verdict is `not run: no GPU`, and this script says so and
exits 2 instead of printing numbers it did not measure. The local backend is the default
because GPU hosts often have no Docker; use `--sandbox docker` where the NVIDIA runtime is set up.

`--solutions offload` verifies, instead of the known-good solutions, the kernel the `offload`
tool writes from each task's sequential function with no model (ParForge's serial→CUDA
tasks, `agents.analysis.kernels`); the summary adds `offload_made` and `offload_pass_at_1`
(passed over every CUDA task: a task with no kernel counts as a failure).

Prints one line per solution and per mutant, then: known-good passed, timing source (kernel
times accepted by the cross-check, or wall time), kernel speedups (median and spread), mutants
caught by kind, survivors, and the wall time of the whole run. `--json FILE` writes it all.

    python benchmarks/cuda_gpu.py [--sandbox local|docker] [--problems GLOB] [--no-mutants | --mutants-of GLOBS]
                                  [--no-timing] [--concurrency N] [--deadline S] [--json FILE]
                                  [--solutions known-good|offload]
"""

from __future__ import annotations

import argparse
import asyncio
import fnmatch
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from corpus.suites import load_suite
from sandbox.backends import open_sandbox
from sandbox.base import Sandbox
from sandbox.config import DockerConfig, LocalConfig
from sandbox.spec import Candidate, Spec, Target
from sandbox.verdict import Verdict
from sandbox.verify import verify
from sandbox.verify.gate import TimingGate
from sandbox.verify.refcache import ReferenceCache

GATE = TimingGate()
"""Timing runs have the host (and the GPU) to themselves, as in evals."""
REFERENCES = ReferenceCache()


async def _one(
    sandbox: Sandbox, limit: asyncio.Semaphore, spec: Spec, source: str, timing: bool
) -> tuple[Verdict, float]:
    async with limit:
        start = time.perf_counter()
        verdict = await verify(
            sandbox,
            spec,
            Candidate(target="cuda", source=source),
            timing=timing,
            reference_cache=REFERENCES,
            timing_gate=GATE,
        )
        return verdict, time.perf_counter() - start


def _offloaded(source: str, function: str, signature: str | None) -> str | None:
    """The kernel `offload` writes for a task's sequential function (None: it writes none)."""
    from agents.analysis import AnnotationError, analyse
    from agents.analysis.kernels import kernel
    from sandbox.spec import Language

    if signature is None:
        return None
    try:
        return kernel(source, analyse(source, Language.CPP), function, signature)
    except AnnotationError:
        return None


def _sanitizer_seconds(verdict: Verdict) -> float:
    return sum(s.duration_s for s in verdict.steps if s.name.startswith("compute-sanitizer"))


def _row(task_name: str, name: str, kind: str, verdict: Verdict, seconds: float) -> dict[str, Any]:
    """One verdict as a row, printed as it arrives."""
    timing = verdict.timing
    row = {
        "task": task_name,
        "name": name,
        "kind": kind,
        "status": str(verdict.status),
        "passed": verdict.passed,
        "reason": verdict.reason[:200],
        "seconds": round(seconds, 2),
        "sanitizer_s": round(_sanitizer_seconds(verdict), 2),
        "timing_source": timing.source if timing else None,
        "speedup": timing.best_speedup if timing and not timing.too_short else None,
        "startup_s": timing.startup_s if timing else None,
    }
    speed = f" {row['speedup']:.2f}x ({row['timing_source']})" if row["speedup"] else ""
    print(
        f"{task_name:38} {kind:20} {row['status']:16}{speed} {seconds:6.1f}s {row['reason'][:90]}",
        flush=True,
    )
    return row


async def main(args: argparse.Namespace) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    suite = load_suite("pareval")
    tasks = [
        t
        for t in suite.tasks
        if Target.CUDA in t.targets
        and any(fnmatch.fnmatch(t.name, glob) for glob in args.problems.split(","))
    ]
    config = (
        LocalConfig(max_concurrency=args.concurrency)
        if args.sandbox == "local"
        else DockerConfig(pool_size=args.concurrency)
    )
    sandbox = open_sandbox(config)
    limit = asyncio.Semaphore(args.concurrency)
    started = time.perf_counter()
    try:
        info = sandbox.info()
        if not info.gpu:
            print(f"not run: no GPU ({info.backend} sandbox on this host)")
            return None
        jobs: list[tuple[str, str, str, Spec, str, bool]] = []
        made = 0
        for task in tasks:
            spec = Spec.model_validate(task.spec_for(Target.CUDA))
            if args.solutions == "offload":
                code = _offloaded(task.reference, task.function, spec.signature)
                if code is not None:
                    made += 1
                    jobs.append((task.name, "offload", "good", spec, code, args.timing))
                continue
            for good in task.target(Target.CUDA).solutions:
                jobs.append((task.name, good.name, "good", spec, good.source, args.timing))
                if args.mutants and any(
                    fnmatch.fnmatch(task.name, glob) for glob in args.mutants_of.split(",")
                ):
                    jobs += [
                        (task.name, m.name, str(m.kind), spec, m.source, False)
                        for m in good.mutants
                    ]
        jobs.sort(key=lambda job: job[2] == "good")  # mutants first: most end early
        rows: list[dict[str, Any]] = []

        async def run(
            task_name: str, name: str, kind: str, spec: Spec, source: str, timed: bool
        ) -> None:
            verdict, seconds = await _one(sandbox, limit, spec, source, timed)
            rows.append(_row(task_name, name, kind, verdict, seconds))

        pending = [asyncio.ensure_future(run(*job)) for job in jobs]
        _, unfinished = await asyncio.wait(pending, timeout=args.deadline)
        for future in unfinished:
            future.cancel()
        await asyncio.gather(*unfinished, return_exceptions=True)
    finally:
        await sandbox.aclose()
    wall = time.perf_counter() - started

    goods = [r for r in rows if r["kind"] == "good"]
    mutants = [r for r in rows if r["kind"] != "good"]
    speedups = sorted(r["speedup"] for r in goods if r["speedup"])
    summary: dict[str, Any] = {
        "device": info.model_dump(),
        "known_good": len(goods),
        "known_good_passed": sum(r["passed"] for r in goods),
        "known_good_failed": [
            (r["task"], r["status"], r["reason"]) for r in goods if not r["passed"]
        ],
        "timing_sources": dict(Counter(r["timing_source"] for r in goods if r["timing_source"])),
        "speedup_median": statistics.median(speedups) if speedups else None,
        "speedup_min": speedups[0] if speedups else None,
        "speedup_max": speedups[-1] if speedups else None,
        "startup_s_median": statistics.median(
            [r["startup_s"] for r in goods if r["startup_s"] is not None] or [0.0]
        ),
        "sanitizer_s_median": statistics.median([r["sanitizer_s"] for r in goods] or [0.0]),
        "mutants": len(mutants),
        "mutants_caught": sum(not r["passed"] for r in mutants),
        "caught_by_kind": {
            kind: f"{sum(not r['passed'] for r in mutants if r['kind'] == kind)}/"
            f"{sum(r['kind'] == kind for r in mutants)}"
            for kind in sorted({r["kind"] for r in mutants})
        },
        "mutant_statuses": dict(Counter(r["status"] for r in mutants)),
        "survivors": [(r["task"], r["name"]) for r in mutants if r["passed"]],
        "unfinished": len(jobs) - len(rows),
        **(
            {
                "offload_made": made,
                "offload_pass_at_1": round(sum(r["passed"] for r in goods) / len(tasks), 3),
            }
            if args.solutions == "offload" and tasks
            else {}
        ),
        "wall_s": round(wall, 1),
    }
    print(json.dumps(summary, indent=1))
    return summary, rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--sandbox", choices=["local", "docker"], default="local")
    parser.add_argument("--problems", default="*", help="globs over task names, comma-separated")
    parser.add_argument("--no-mutants", dest="mutants", action="store_false")
    parser.add_argument("--mutants-of", default="*", help="mutants of these problems only")
    parser.add_argument("--no-timing", dest="timing", action="store_false")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--json")
    parser.add_argument("--solutions", choices=["known-good", "offload"], default="known-good")
    parser.add_argument(
        "--deadline", type=float, default=None, help="seconds; what has not ended is reported"
    )
    args = parser.parse_args()
    measured = asyncio.run(main(args))
    if measured is None:
        sys.exit(2)
    if args.json:
        summary, rows = measured
        Path(args.json).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
