"""Start-up time of the light `parforge` commands: `--help`, `keys --help`, `tasks list`.

Each command runs N times (default 5) as a fresh subprocess of the console script (found next
to this Python, else on PATH, else `python -m parforge.cli`), timed from spawn to exit; it
prints per command the median wall time and the min-max spread, against the target of 0.5 s,
and the median CPU time (user + system) of the subprocess, which a loaded machine inflates less
than the wall time. It also counts the modules the CLI imports: a `python -c` that imports the
entry point (`parforge.cli`) and builds the command tree, then prints `len(sys.modules)`; the
interpreter's own modules (a bare `python -c`) are shown for comparison.

The commands run with a throw-away data dir (`PARFORGE_DATA_DIR` set to a temporary directory,
every other `PARFORGE_*` variable unset), so `tasks list` creates and migrates a fresh SQLite
store there on its first, untimed run and touches no real store.

    .venv/bin/python benchmarks/cli_startup.py [--reps 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = [["--help"], ["keys", "--help"], ["tasks", "list"]]
TARGET_S = 0.5

COUNT_MODULES = """
import sys
from typer.main import get_command
from parforge.cli import app
get_command(app)
print(len(sys.modules))
"""


def entry_point() -> list[str]:
    """The `parforge` console script of this interpreter's environment, or `python -m`."""
    script = Path(sys.executable).parent / "parforge"
    if script.exists():
        return [str(script)]
    found = shutil.which("parforge")
    return [found] if found else [sys.executable, "-m", "parforge.cli"]


def module_count(code: str, env: dict[str, str]) -> int:
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip().splitlines()[-1])


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_command(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `argv`."""
    cpu0, t0 = cpu_of_children(), time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed, cpu = time.perf_counter() - t0, cpu_of_children() - cpu0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr}")
    return elapsed, cpu


def main(reps: int) -> None:
    with tempfile.TemporaryDirectory(prefix="parforge-cli-startup-") as data_dir:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PARFORGE_")}
        env["PARFORGE_DATA_DIR"] = data_dir
        base = entry_point()
        # One untimed run each: the store's creation and migration, and cold file caches,
        # are not start-up time.
        for args in COMMANDS:
            time_command([*base, *args], env)

        print(f"load average {os.getloadavg()[0]:.1f}; {reps} runs each; target {TARGET_S} s")
        print(f"{'command':<24}{'median':>9}{'min':>9}{'max':>9}{'cpu':>9}")
        for args in COMMANDS:
            runs = [time_command([*base, *args], env) for _ in range(reps)]
            walls = [wall for wall, _ in runs]
            name = "parforge " + " ".join(args)
            print(
                f"{name:<24}{statistics.median(walls):>8.3f}s{min(walls):>8.3f}s"
                f"{max(walls):>8.3f}s{statistics.median(cpu for _, cpu in runs):>8.3f}s"
            )
        cli = module_count(COUNT_MODULES, env)
        bare = module_count("import sys; print(len(sys.modules))", env)
        print(f"modules after importing parforge.cli and building its commands: {cli}")
        print(f"modules of a bare interpreter: {bare}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="runs per command (default 5)")
    main(parser.parse_args().reps)
