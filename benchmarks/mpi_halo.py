"""What a stencil sweep's halo exchange saves: `distribute`'s MPI program with halos (blocking,
and the MPI kit's non-blocking neighbour) against the same program gathering its whole output
every sweep (the kit's other `exchange` neighbour) and the sequential program, on the host
with mpicc and mpirun, no model.

For each program (heat2d, 2-D five-point on an N x N plate; the translate graph's 1-D
three-point stencil), the three builds run interleaved within each round at `--ranks`, and
the table gives the program's own timed region (`PARFORGE_TIME_S`, printed by rank 0; the wall
time where a program prints none) and the wall time (MPI's start included), median (min-max)
over rounds, with the ratios of the medians; a speedup above the rank count is flagged (each
rank's share of the arrays fits caches the whole did not: real, but not parallelism). Every
MPI run's output is compared with the sequential one's first.

    .venv/bin/python benchmarks/mpi_halo.py [--rounds 5] [--ranks 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from agents.analysis import analyse
from agents.analysis.distribute import distributable, distribute
from agents.targets import kit
from sandbox.spec import Language, Target

ROOT = Path(__file__).parent.parent
PROGRAMS = {
    # name: (source, arguments)
    "heat2d": ("examples/heat2d/heat2d.c", ["1500", "200"]),
    "stencil": ("tests/agents/graphs/programs/stencil.c", ["10000000", "100"]),
}
MPI_ENV = {
    **os.environ,
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_btl": "self,vader",
}


def _builds(name: str, work: Path) -> dict[str, list[str]]:
    """The command line of each contender: sequential, MPI with halos (blocking and not), MPI
    gathering."""
    path, _ = PROGRAMS[name]
    source = (ROOT / path).read_text()
    program = analyse(source, Language.C)
    halo = distribute(source, program, [loop.id for loop in distributable(source, program)])
    exchanges = {
        m.label.split(": ", 1)[1]: m.source
        for m in kit(Target.MPI).mutations(halo, Language.C)
        if m.operator == "exchange"
    }
    if len(exchanges) != 2:
        raise SystemExit(f"{name}: {len(exchanges)} exchange neighbours, expected 2")
    texts = {
        "sequential": source,
        "halo": halo,
        "halo_nb": exchanges["halo blocking -> non-blocking"],
        "gather": exchanges["halo exchange -> gather every sweep"],
    }
    commands = {}
    for contender, text in texts.items():
        c_file, binary = work / f"{name}_{contender}.c", work / f"{name}_{contender}"
        c_file.write_text(text)
        compiler = "gcc" if contender == "sequential" else "mpicc"
        subprocess.run([compiler, "-O2", "-o", str(binary), str(c_file), "-lm"], check=True)
        commands[contender] = [str(binary)]
    return commands


def _run(command: list[str], ranks: int, args: list[str]) -> tuple[str, float, float]:
    if not command[0].endswith("_sequential"):
        command = ["mpirun", "-np", str(ranks), "--bind-to", "none", *command]
    start = time.perf_counter()
    done = subprocess.run(
        [*command, *args], capture_output=True, text=True, env=MPI_ENV, timeout=600, check=True
    )
    wall = time.perf_counter() - start
    timed = re.search(r"PARFORGE_TIME_S=([0-9.]+)", done.stderr)
    return done.stdout, float(timed.group(1)) if timed else wall, wall


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def main(args: argparse.Namespace) -> dict[str, object]:
    results: dict[str, object] = {
        "ranks": args.ranks,
        "rounds": args.rounds,
        "cores": os.cpu_count(),
    }
    with tempfile.TemporaryDirectory() as scratch:
        for name, (_, arguments) in PROGRAMS.items():
            commands = _builds(name, Path(scratch))
            timed: dict[str, list[float]] = {c: [] for c in commands}
            walls: dict[str, list[float]] = {c: [] for c in commands}
            want = _run(commands["sequential"], 1, arguments)[0]
            for contender in ("halo", "halo_nb", "gather"):
                got = _run(commands[contender], args.ranks, arguments)[0]
                if got != want:
                    raise SystemExit(f"{name} {contender}: output differs from the sequential")
            for _ in range(args.rounds):
                for contender, command in commands.items():
                    _, seconds, wall = _run(command, args.ranks, arguments)
                    timed[contender].append(seconds)
                    walls[contender].append(wall)
            medians = {c: statistics.median(v) for c, v in timed.items()}
            results[name] = {
                "arguments": arguments,
                "timed_s": timed,
                "wall_s": walls,
                "speedup_halo": medians["sequential"] / medians["halo"],
                "speedup_gather": medians["sequential"] / medians["gather"],
                "halo_over_gather": medians["gather"] / medians["halo"],
            }
            print(f"{name} {' '.join(arguments)}, {args.ranks} ranks, {args.rounds} rounds")
            for contender in commands:
                print(
                    f"  {contender:10} timed {_spread(timed[contender])} s   "
                    f"wall {_spread(walls[contender])} s"
                )
            above = medians["sequential"] / medians["halo"] > args.ranks
            print(
                f"  speedup over sequential: halo {medians['sequential'] / medians['halo']:.2f}x,"
                f" gather {medians['sequential'] / medians['gather']:.2f}x;"
                f" halo over gather {medians['gather'] / medians['halo']:.2f}x"
                + (f" (halo above {args.ranks} ranks: smaller shares in cache)" if above else ""),
                flush=True,
            )
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--json")
    parsed = parser.parse_args()
    measured = main(parsed)
    if parsed.json:
        Path(parsed.json).write_text(json.dumps(measured, indent=1))
