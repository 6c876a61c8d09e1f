"""Evolution's CUDA block-size mutants on a real GPU: made here, verified there.

`prepare` (on any host: it needs the analysis's C front end) takes `evolve_programs/block_sum.cu`,
makes every block-size mutant the CUDA kit's `mutations` offers (the constant its
launches take their block size from, set to each of 64..1024) and writes them with the spec to
a JSON file. `verify` (on a GPU host: it needs only the sandbox) verifies the start and every
mutant one after another, as evolution does, with one reference cache and timing gate: build,
every test, compute-sanitizer memcheck, racecheck and synccheck, then timing against the serial
reference. Without a GPU it says `not run: no GPU` and exits 2.

    python benchmarks/evolve_cuda_gpu.py prepare mutants.json
    python benchmarks/evolve_cuda_gpu.py verify mutants.json [--json verdicts.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from sandbox.backends import open_sandbox
from sandbox.config import LocalConfig
from sandbox.spec import Candidate, Language, Spec, Target, TestCase
from sandbox.verify import verify
from sandbox.verify.gate import TimingGate
from sandbox.verify.refcache import ReferenceCache

PROGRAMS = Path(__file__).parent / "evolve_programs"


def prepare(out: Path) -> None:
    from agents.targets import kit

    start = (PROGRAMS / "block_sum.cu").read_text()
    spec = Spec(
        name="block_sum",
        language=Language.C,
        reference=(PROGRAMS / "block_sum.c").read_text(),
        tests=[TestCase(name=f"n{n}", args=[str(n)]) for n in (1, 1000, 100000, 3000000)],
        timing=TestCase(name="timing", args=["40000000"]),
        timeout_s=60,
    )
    mutants = kit(Target.CUDA).mutations(start, Language.CPP)
    candidates = [{"label": "start: BLOCK 128", "source": start}] + [
        {"label": m.label, "source": m.source} for m in mutants
    ]
    out.write_text(json.dumps({"spec": spec.model_dump(mode="json"), "candidates": candidates}))
    print(f"{len(mutants)} block-size mutants of block_sum.cu -> {out}")


async def verify_all(data: dict[str, Any], rows: list[dict[str, Any]]) -> int:
    """Verify every candidate of `data` into `rows`; 2 without a GPU."""
    spec = Spec.model_validate(data["spec"])
    sandbox = open_sandbox(LocalConfig(max_concurrency=1))
    cache, gate = ReferenceCache(), TimingGate()
    try:
        for item in data["candidates"]:
            started = time.perf_counter()
            candidate = Candidate(target=Target.CUDA, source=item["source"])
            verdict = await verify(
                sandbox, spec, candidate, reference_cache=cache, timing_gate=gate
            )
            if not verdict.sandbox or not verdict.sandbox.gpu:
                print(f"not run: no GPU ({verdict.reason})")
                return 2
            timing = verdict.timing
            row = {
                "label": item["label"],
                "status": verdict.status.value,
                "reason": verdict.reason,
                "tools": verdict.concurrency.tools if verdict.concurrency else [],
                "sanitizer_runs": verdict.concurrency.runs if verdict.concurrency else 0,
                "speedup": verdict.speedup,
                "timing_source": timing.source if timing else None,
                "candidate_s": timing.candidate_s if timing else None,
                "reference_s": timing.reference_s if timing else None,
                "seconds": round(time.perf_counter() - started, 1),
            }
            rows.append(row)
            print(
                f"{row['label']:<32} {row['status']:<16} speedup {row['speedup']:7.2f}x "
                f"({row['timing_source']}; candidate {row['candidate_s']} s, reference "
                f"{row['reference_s']} s) sanitizer runs {row['sanitizer_runs']} "
                f"[{row['seconds']} s] {row['reason'][:80]}",
                flush=True,
            )
    finally:
        await sandbox.aclose()
    passed = [r for r in rows if r["status"] == "passed"]
    best = max(passed, key=lambda r: r["speedup"], default=None)
    print(f"\n{len(passed)} of {len(rows)} passed every check on the GPU")
    if best:
        start = rows[0]["speedup"] or 0.0
        gain = best["speedup"] / start if start else 0.0
        print(f"best: {best['label']} {best['speedup']:.2f}x, {gain:.2f}x the start's")
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mode", choices=["prepare", "verify"])
    parser.add_argument("path", type=Path)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if args.mode == "prepare":
        prepare(args.path)
        return
    rows: list[dict[str, Any]] = []
    code = asyncio.run(verify_all(json.loads(args.path.read_text()), rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    sys.exit(code)


if __name__ == "__main__":
    main()
