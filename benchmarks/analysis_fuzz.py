"""Differential fuzzing of the dependence analysis: random C/C++ programs, each loop labelled
at construction, run sequentially and with the analysis's annotations at 1/2/4 threads and three
schedules. Prints programs generated/used/discarded, loops and annotated loops by class, unsound
annotations by class, the recall on parallel-by-construction loops and the throughput; writes
the unsound cases (program, loop, verdict, schedule, outputs) as JSON.

    python benchmarks/analysis_fuzz.py --programs 200 --seed 1 --jobs 2 --json fuzz.json
    python benchmarks/analysis_fuzz.py --programs 50 --race-sample 10 [--sandbox docker]

`--race-sample N` also runs the race checker (`sandbox.verify.race.check_program`, one Archer
run at 2 threads) on the first N programs that got an annotation, beside whether a hazardous
loop was annotated in each: it catches hazards whose output happened not to differ.

Floating outputs are compared within a relative tolerance of 1e-6 (`evals.fuzz.RTOL`), integer
ones exactly. The programs are our own, so they run on the host (temporary directories, time-outs).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
from pathlib import Path

from evals.fuzz import HAZARDS, SHAPES, FuzzStats, ProgramResult, recall, run_many
from sandbox.backends import open_sandbox
from sandbox.base import Sandbox
from sandbox.config import DockerConfig, LocalConfig, RaceCheckConfig
from sandbox.spec import Language
from sandbox.verify.race import check_program


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
        f"(hazard snippets with an annotation: {hazards_annotated}; sound only as the annotated "
        "loop is an inner loop the hazard does not cross or runs behind a run-time overlap "
        "check, which the runs above check)"
    )
    lines.append(f"recall on parallel-by-construction loops: {recall(stats, SHAPES):.1%}")
    if stats.annotation_errors:
        broken = sum("does not compile" in e for e in stats.annotation_errors)
        lines.append(
            f"annotation errors: {len(stats.annotation_errors)} "
            f"({broken} annotated programs that do not compile)"
        )
    return "\n".join(lines)


async def race_sample(sandbox: Sandbox, stats: FuzzStats, count: int) -> list[dict[str, object]]:
    """Race-check the first `count` annotated programs (one Archer run at 2 threads each) and
    set each verdict beside whether a hazardous loop was annotated in it by construction."""
    rows = []
    for result in stats.annotated[:count]:
        assert result.annotated is not None
        suffix = ".cpp" if result.language is Language.CPP else ".c"
        checked = await check_program(
            sandbox, result.annotated, result.name + suffix, config=RaceCheckConfig.single_run(2)
        )
        rows.append(
            {
                "program": result.name,
                "hazard_annotated": result.hazard_annotated,
                "unsound_seen": bool(result.unsound),
                "race": checked.race,
                "not_run": checked.not_run,
            }
        )
        print(
            f"  race check {result.name}: race={checked.race} "
            f"hazard annotated={result.hazard_annotated} unsound seen={bool(result.unsound)}"
            + (f" ({checked.not_run})" if checked.not_run else ""),
            flush=True,
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="programs checked at once")
    parser.add_argument("--json", type=Path, help="write the statistics and unsound cases here")
    parser.add_argument(
        "--race-sample", type=int, default=0, help="also race-check this many annotated programs"
    )
    parser.add_argument("--sandbox", choices=["local", "docker"], default="local")
    args = parser.parse_args()
    stats = run_many(args.seed, args.programs, args.jobs, _progress)
    print(summary(stats))
    races: list[dict[str, object]] = []
    if args.race_sample:
        config = LocalConfig() if args.sandbox == "local" else DockerConfig()
        races = asyncio.run(race_sample(open_sandbox(config), stats, args.race_sample))
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
                    "race_sample": races,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
