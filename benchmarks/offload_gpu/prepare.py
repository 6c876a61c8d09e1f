"""The `offload` tool's CUDA programs, written for a GPU host to check: no model, the analysis
alone. For each program (the translate graph's test loops, the MPI tool's fold table, the heat2d
example and two of this directory's), writes the sequential source, the CUDA program the tool
makes from every loop it offers, and a line of test and timing inputs; then `run.sh` (build,
compare, compute-sanitizer, interleaved wall times) runs there with no Python packages:

    .venv/bin/python benchmarks/offload_gpu/prepare.py DIR
    DIR/run.sh          # on the GPU host; OUT=dir keeps the logs

Without a GPU nothing here can be measured: the figures in docs/performance.md come from a GPU
host's run of `run.sh`, and say which GPU.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from agents.analysis import analyse
from agents.analysis.offload import offload, offloadable
from sandbox.spec import Language

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
PROGRAMS = {
    # name: (source, test inputs, timing input)
    "histogram": ("tests/agents/graphs/programs/histogram.c", ["3", "4099"], "100000000"),
    "mpi_folds": ("tests/agents/analysis/programs/mpi_folds.c", [], ""),
    "stencil": ("tests/agents/graphs/programs/stencil.c", ["5 3", "999 5"], "2000000 100"),
    "heat2d": ("examples/heat2d/heat2d.c", ["64 50", "101 7"], "2000 500"),
    "scan": ("tests/agents/graphs/programs/scan.c", ["2", "4099"], "50000000"),
    "stack_arrays": ("benchmarks/offload_gpu/programs/stack_arrays.c", [], ""),
    "mixed": ("benchmarks/offload_gpu/programs/mixed.c", ["1001", "3"], "5000000"),
    "reduce": ("tests/agents/graphs/programs/reduce.c", ["1000", "4099"], "200000000"),
    "map": ("tests/agents/graphs/programs/map.c", ["1", "1001"], "50000000"),
}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    cases = []
    for name, (path, tests, timing) in PROGRAMS.items():
        source = (ROOT / path).read_text()
        program = analyse(source, Language.C)
        loops = [loop.id for loop in offloadable(source, program)]
        (out / f"{name}.c").write_text(source)
        (out / f"{name}.cu").write_text(offload(source, program, loops))
        cases.append(f"{name}|{';'.join(tests)}|{timing}")
        print(f"{name}: loops {', '.join(loops)} as kernels")
    (out / "cases.txt").write_text("\n".join(cases) + "\n")
    for helper in ("run.sh", "same.py"):
        shutil.copy(HERE / helper, out / helper)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    main(parser.parse_args().out)
