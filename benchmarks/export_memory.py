"""Export time and peak memory at two store sizes: peak memory should not grow with the store.

Fills two SQLite stores (100,000 and 300,000 LLM-call steps, a candidate and verdict on every
fourth), then exports each in full as OpenAI JSONL in a fresh process that reports its own peak
RSS. Usage: python benchmarks/export_memory.py [--small N] [--large N] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def fill(url: str, steps: int) -> None:
    from sqlalchemy import insert

    from corpus.store import open_store
    from corpus.store.models import CandidateRow, RunRow, StepRow, TaskRow, VerdictRow, utcnow

    engine = open_store(url)
    per_task = 20
    now = utcnow()
    with engine.begin() as conn:
        for start in range(0, steps, 10_000):
            n = min(10_000, steps - start)
            task_rows, run_rows, step_rows, cand_rows, verdict_rows = [], [], [], [], []
            for i in range(start, start + n):
                if i % per_task == 0:
                    tid = f"{i // per_task:032x}"
                    run_id = i // per_task + 1
                    task_rows.append(
                        {
                            "id": tid,
                            "name": "t",
                            "language": "cpp",
                            "target": "openmp",
                            "source": "int f();",
                            "budgets": {},
                            "status": "succeeded",
                            "reason": "",
                            "created_at": now,
                            "attempts": 1,
                            "cancel_requested": False,
                        }
                    )
                    run_rows.append(
                        {
                            "id": run_id,
                            "task_id": tid,
                            "attempt": 1,
                            "runner": "bench",
                            "worker": "w",
                            "status": "succeeded",
                            "reason": "",
                            "started_at": now,
                            "budgets": {},
                            "model": "bench-model",
                        }
                    )
                code = f"// step {i}\n#pragma omp parallel for\n" + "x[i] += y[i];\n" * 20
                step_rows.append(
                    {
                        "id": i + 1,
                        "task_id": tid,
                        "run_id": run_id,
                        "seq": i % per_task,
                        "kind": "llm_call",
                        "name": "generate",
                        "created_at": now,
                        "messages": [
                            {"role": "system", "content": "Translate to OpenMP."},
                            {
                                "role": "user",
                                "content": f"task {i // per_task}: " + "for (...) {...}\n" * 10,
                            },
                        ],
                        "response": {"role": "assistant", "content": code},
                    }
                )
                if i % 4 == 0:
                    cand_rows.append(
                        {
                            "id": i + 1,
                            "task_id": tid,
                            "run_id": run_id,
                            "target": "openmp",
                            "source": code,
                            "strategy": "prompt",
                            "generation": 0,
                            "step_id": i + 1,
                            "created_at": now,
                        }
                    )
                    verdict_rows.append(
                        {
                            "candidate_id": i + 1,
                            "task_id": tid,
                            "run_id": run_id,
                            "target": "openmp",
                            "status": "passed",
                            "passed": True,
                            "best_speedup": 2.0,
                            "reason": "",
                            "duration_s": 1.0,
                            "data": {"status": "passed"},
                            "created_at": now,
                        }
                    )
            for table, rows in (
                (TaskRow, task_rows),
                (RunRow, run_rows),
                (StepRow, step_rows),
                (CandidateRow, cand_rows),
                (VerdictRow, verdict_rows),
            ):
                if rows:
                    conn.execute(insert(table), rows)
    engine.dispose()


def child(url: str, out: str, export: bool, trace: bool) -> None:
    """Runs in its own process: export (or only open the store) and report time and peak RSS;
    with `trace`, the peak of Python allocations during the export alone (tracemalloc)."""
    import tracemalloc

    from corpus.export import ExportFormat, ExportStats, export_lines
    from corpus.store import open_store

    engine = open_store(url)
    stats = ExportStats()
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    if export:
        with open(out, "w") as handle:
            for line in export_lines(engine, ExportFormat.OPENAI, stats=stats):
                handle.write(line)
    seconds = time.perf_counter() - start
    traced = tracemalloc.get_traced_memory()[1] / 2**20 if trace else 0.0
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {"lines": stats.written, "seconds": seconds, "peak_mib": peak_mib, "traced_mib": traced}
        )
    )


def run_child(url: str, out: Path, export: bool, trace: bool = False) -> dict[str, float]:
    args = [sys.executable, __file__, "--child", url, "--out", str(out)]
    if not export:
        args.append("--baseline")
    if trace:
        args.append("--trace")
    done = subprocess.run(args, check=True, capture_output=True, text=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--small", type=int, default=100_000)
    parser.add_argument("--large", type=int, default=300_000)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--child", default=None)
    parser.add_argument("--out", default=None)
    parser.add_argument("--baseline", action="store_true")
    parser.add_argument("--trace", action="store_true")
    args = parser.parse_args()
    if args.child:
        child(args.child, args.out, export=not args.baseline, trace=args.trace)
        return
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        results = {}
        for steps in (args.small, args.large):
            url = f"sqlite:///{tmp}/store-{steps}.db"
            t0 = time.perf_counter()
            fill(url, steps)
            fill_s = time.perf_counter() - t0
            base = run_child(url, Path(tmp) / "none.jsonl", export=False)
            res = run_child(url, Path(tmp) / f"out-{steps}.jsonl", export=True)
            res["traced_mib"] = run_child(url, Path(tmp) / "t.jsonl", True, trace=True)[
                "traced_mib"
            ]
            db_mib = Path(f"{tmp}/store-{steps}.db").stat().st_size / 2**20
            results[steps] = res | {"baseline_mib": base["peak_mib"], "db_mib": db_mib}
            print(
                f"store {steps:>7} steps ({db_mib:6.0f} MiB, filled in {fill_s:5.1f} s): "
                f"exported {int(res['lines']):>7} lines in {res['seconds']:6.2f} s "
                f"({res['lines'] / res['seconds']:8.0f} lines/s), peak RSS {res['peak_mib']:6.1f} MiB "
                f"(store open, no export: {base['peak_mib']:6.1f} MiB); "
                f"Python allocations during export peak at {res['traced_mib']:5.2f} MiB"
            )
        small, large = results[args.small], results[args.large]
        print(
            f"large/small: store size x{large['db_mib'] / small['db_mib']:.2f}, "
            f"export time x{large['seconds'] / small['seconds']:.2f}, "
            f"peak RSS x{large['peak_mib'] / small['peak_mib']:.2f}, "
            f"export's own allocation peak x{large['traced_mib'] / small['traced_mib']:.2f}"
        )


if __name__ == "__main__":
    main()
