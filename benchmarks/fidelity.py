"""Harness fidelity over the whole ParEval suite: every known-good OpenMP and MPI solution must
pass, and at least 95 % of the planted mutants must be caught. Runs the real verifier in the
Docker sandbox (no timing: correctness is what this is about).

The test suite checks the known-good solutions of every problem and a fixed stratified sample of
the mutants (`tests/corpus/test_fidelity.py`); this is the full set of mutants, too long for the
suite on a small host.

    python benchmarks/fidelity.py [--targets openmp,mpi] [--json fidelity.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import Counter
from pathlib import Path

from corpus.suites import load_suite
from sandbox.backends import open_sandbox
from sandbox.config import DockerConfig
from sandbox.spec import Candidate, Spec, Target
from sandbox.verify import gather_limited, verify
from sandbox.verify.refcache import ReferenceCache

KILL_RATE = 0.95


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--targets", default="openmp,mpi")
    parser.add_argument("--pool", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    targets = [Target(t) for t in args.targets.split(",")]
    suite = load_suite("pareval")
    work: list[tuple[str, str, Target, str, str]] = []  # (kind, task, target, name, source)
    for task in suite.tasks:
        for target in targets:
            if target not in task.targets:
                continue
            for good in task.target(target).solutions:
                work.append(("good", task.name, target, good.name, good.source))
                work += [("mutant", task.name, target, m.name, m.source) for m in good.mutants]
    sandbox = open_sandbox(DockerConfig(pool_size=args.pool))
    cache = ReferenceCache()
    rows: list[dict[str, str]] = []
    start = time.monotonic()

    async def one(kind: str, task_name: str, target: Target, name: str, source: str) -> None:
        spec = Spec.model_validate(suite.task(task_name).spec_for(target))
        v = await verify(
            sandbox,
            spec,
            Candidate(target=target.value, source=source),
            timing=False,
            reference_cache=cache,
        )
        rows.append(
            {
                "kind": kind,
                "task": task_name,
                "target": target.value,
                "name": name,
                "status": v.status.value,
                "reason": v.reason[:300],
            }
        )
        wrong = (kind == "good") != v.passed
        print(
            f"{'!!' if wrong else '  '} {kind:6} {v.status.value:15} {task_name} {target.value} {name}",
            flush=True,
        )

    try:
        await gather_limited(args.pool, *(one(*w) for w in work))
    finally:
        await sandbox.aclose()
    goods = [r for r in rows if r["kind"] == "good"]
    mutants = [r for r in rows if r["kind"] == "mutant"]
    rejected = [r for r in goods if r["status"] != "passed"]
    survived = [r for r in mutants if r["status"] == "passed"]
    rate = 1 - len(survived) / len(mutants) if mutants else 1.0
    print(f"\n{time.monotonic() - start:.0f} s")
    print(f"known-good: {len(goods) - len(rejected)} of {len(goods)} passed")
    for r in rejected:
        print(
            f"  FALSE REJECTION {r['task']} {r['target']} {r['name']}: {r['status']}: {r['reason']}"
        )
    print(
        f"mutants: {len(mutants) - len(survived)} of {len(mutants)} caught ({rate:.1%}; "
        f"target {KILL_RATE:.0%}): {dict(Counter(r['status'] for r in mutants))}"
    )
    for r in survived:
        print(f"  survived {r['task']} {r['target']} {r['name']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
