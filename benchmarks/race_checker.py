"""Precision and recall of the OpenMP race checker on the labelled programs, two ways.

    single: one Archer/TSan run at 2 threads with the program's own schedules (the usual way)
    full:   the checker `verify` uses: 2/4/3/8 threads x default/static,1/dynamic,1 schedules,
            plus the static simd/ordered pass

Both run on the same programs in the same sandbox, one program at a time. Prints one line per
program, then precision, recall and time for each strategy.

    python benchmarks/race_checker.py [--sandbox local|docker] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from sandbox.backends import open_sandbox
from sandbox.base import Sandbox
from sandbox.config import DockerConfig, LocalConfig, RaceCheckConfig
from sandbox.spec import TestCase
from sandbox.verify.race import RaceCheckResult, check_program

PROGRAMS = Path(__file__).resolve().parent.parent / "tests" / "sandbox" / "programs"


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    not_run: int = 0

    def add(self, racy: bool, said: bool | None) -> None:
        if said is None:
            self.not_run += 1
        said = bool(said)
        if racy and said:
            self.tp += 1
        elif racy:
            self.fn += 1
        elif said:
            self.fp += 1
        else:
            self.tn += 1

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0


def _mark(racy: bool, result: RaceCheckResult) -> str:
    if result.race is None:
        return "n/a"
    said = "race" if result.race else "clean"
    ok = result.race == racy
    tools = sorted({f.tool for f in result.findings})
    by = f"[{'+'.join(tools)}]" if result.race else ""
    return f"{said}{by}{'' if ok else ' X'}"


async def main(sandbox: Sandbox, only: list[str]) -> None:
    manifest = json.loads((PROGRAMS / "manifest.json").read_text())["programs"]
    if only:
        manifest = [p for p in manifest if p["file"] in only]
    strategies = {"single": RaceCheckConfig.single_run(2), "full": RaceCheckConfig()}
    scores = {name: Score() for name in strategies}
    times: dict[str, list[float]] = {name: [] for name in strategies}
    print(
        f"{'program':28} {'label':6} {'single':22} {'full':26} {'t single':>8} {'t full':>7} runs"
    )
    for entry in manifest:
        source = (PROGRAMS / entry["file"]).read_text()
        results = {}
        for name, config in strategies.items():
            start = time.monotonic()
            case = TestCase(name="run", args=entry.get("args", []))
            results[name] = await check_program(
                sandbox, source, entry["file"], config=config, case=case
            )
            times[name].append(time.monotonic() - start)
            scores[name].add(entry["racy"], results[name].race)
        label = "racy" if entry["racy"] else "clean"
        print(
            f"{entry['file']:28} {label:6} {_mark(entry['racy'], results['single']):22} "
            f"{_mark(entry['racy'], results['full']):26} {times['single'][-1]:8.2f} "
            f"{times['full'][-1]:7.2f} {results['full'].runs}",
            flush=True,
        )
        for name, r in results.items():
            if r.race is None:
                print(f"    {name}: not run: {r.not_run}")
    racy = sum(p["racy"] for p in manifest)
    print(f"\n{len(manifest)} programs ({racy} racy, {len(manifest) - racy} race-free)")
    print(f"{'strategy':8} {'precision':>9} {'recall':>7} {'TP':>3} {'FP':>3} {'FN':>3} {'TN':>3} "
          f"{'n/a':>3} {'median s':>8} {'max s':>6} {'total s':>7}")  # fmt: skip
    for name, s in scores.items():
        t = times[name]
        print(
            f"{name:8} {s.precision:9.3f} {s.recall:7.3f} {s.tp:3} {s.fp:3} {s.fn:3} {s.tn:3} "
            f"{s.not_run:3} {statistics.median(t):8.2f} {max(t):6.2f} {sum(t):7.1f}"
        )
    single, full = times["single"], times["full"]
    print(
        f"full/single time ratio: median {statistics.median(f / s for f, s in zip(full, single, strict=True)):.2f}x"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sandbox", choices=["local", "docker"], default="local")
    parser.add_argument("--only", nargs="*", default=[], help="program file names to run")
    args = parser.parse_args()
    config = LocalConfig() if args.sandbox == "local" else DockerConfig()
    asyncio.run(main(open_sandbox(config), args.only))
