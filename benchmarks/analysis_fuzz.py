"""Differential fuzzing of the dependence analysis: random C/C++ programs, each loop labelled
at construction, run sequentially and with the analysis's annotations at 1/2/4 threads and three
schedules. Prints programs generated/used/discarded, loops and annotated loops by class, unsound
annotations by class, the recall on parallel-by-construction loops and the throughput; writes
the unsound cases (program, loop, verdict, schedule, outputs) as JSON.

    python benchmarks/analysis_fuzz.py --programs 200 --seed 1 --jobs 2 --json fuzz.json

Floating outputs are compared within a relative tolerance of 1e-6 (`evals.fuzz.RTOL`), integer
ones exactly. The programs are our own, so they run on the host (temporary directories, time-outs).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

from evals.fuzz import HAZARDS, SHAPES, FuzzStats, ProgramResult, recall, run_many


def _progress(result: ProgramResult) -> None:
    mark = "D" if result.discarded else ("U" if result.unsound else ".")
    print(mark, end="", flush=True)


def summary(stats: FuzzStats) -> str:
    used = stats.generated - stats.discarded
    lines = [
        "",
        f"programs: {stats.generated} generated, {used} used, {stats.discarded} discarded "
        f"in {stats.seconds:.0f} s ({stats.generated / max(stats.seconds, 1e-9):.2f} programs/s)",
        f"{'class':18} {'kind':8} {'loops':>6} {'annotated':>9} {'unsound':>7}",
    ]
    for klass in (*SHAPES, *HAZARDS):
        if stats.by_class[klass]:
            kind = "parallel" if klass in SHAPES else "hazard"
            lines.append(
                f"{klass:18} {kind:8} {stats.by_class[klass]:6} "
                f"{stats.annotated_by_class[klass]:9} {stats.unsound_by_class[klass]:7}"
            )
    hazards_annotated = sum(stats.annotated_by_class[k] for k in HAZARDS)
    lines.append(
        f"unsound annotations seen: {len(stats.unsound)} "
        f"(hazard loops annotated, unsound by construction: {hazards_annotated})"
    )
    lines.append(f"recall on parallel-by-construction loops: {recall(stats, SHAPES):.1%}")
    if stats.annotation_errors:
        lines.append(f"annotation errors: {len(stats.annotation_errors)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="programs checked at once")
    parser.add_argument("--json", type=Path, help="write the statistics and unsound cases here")
    args = parser.parse_args()
    stats = run_many(args.seed, args.programs, args.jobs, _progress)
    print(summary(stats))
    for case in stats.unsound[:20]:
        print(
            f"  UNSOUND {case.program} {case.loop} ({case.klass}: {case.detail}) "
            f"{case.schedule} x{case.threads} {case.failure}: {case.reason}"
        )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "seed": args.seed,
                    "programs": stats.generated,
                    "discarded": stats.discarded,
                    "seconds": stats.seconds,
                    "loops": dict(stats.by_class),
                    "annotated": dict(stats.annotated_by_class),
                    "unsound_by_class": dict(stats.unsound_by_class),
                    "recall": recall(stats, SHAPES),
                    "unsound": [dataclasses.asdict(c) for c in stats.unsound],
                    "annotation_errors": stats.annotation_errors,
                    "discard_reasons": stats.discard_reasons,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
