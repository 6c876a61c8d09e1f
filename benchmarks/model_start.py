"""Embedded server start time: cold (GGUF conversion included) against warm (model cached).

Both are measured in one run, side by side, from `ModelServer.start()` to the first answered
warm-up token; the phases come from the launcher's progress messages. `--with-env` also deletes
the server's Python environment first, so "cold" includes installing it (minutes).

    python benchmarks/model_start.py [--with-env] [--compiled]

The server of the configured data dir and port is stopped first and left stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import shutil
import time
from pathlib import Path

from parforge.model_server import ModelServer, ModelServerConfig
from parforge.settings import load_settings


class Phases:
    """Timestamps of the launcher's progress messages, by their first word."""

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.marks: dict[str, float] = {}

    def __call__(self, message: str) -> None:
        self.marks.setdefault(message.split()[0], time.perf_counter() - self.t0)


def disk_gib(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**30


async def timed_start(server: ModelServer) -> tuple[float, dict[str, float]]:
    await server.stop()
    phases = Phases()
    await server.start(progress=phases)
    total = time.perf_counter() - phases.t0
    await server.stop()
    return total, phases.marks


def describe(total: float, marks: dict[str, float]) -> str:
    edges = [*sorted(marks.items(), key=lambda kv: kv[1]), ("ready", total)]
    parts = [f"{a} {t1 - t0:.0f}s" for (a, t0), (_, t1) in itertools.pairwise(edges)]
    return f"{total:6.0f}s  ({', '.join(parts)})"


async def main(with_env: bool, compiled: bool) -> None:
    settings = load_settings()
    config = settings.model.server
    server = ModelServer(config, settings.data_dir)
    await server.stop()
    if with_env:
        shutil.rmtree(server.env_dir, ignore_errors=True)
    shutil.rmtree(server.embedded_dir, ignore_errors=True)

    cold, cold_marks = await timed_start(server)
    warm, warm_marks = await timed_start(server)
    print(f"load average {os.getloadavg()[0]:.1f}")
    label = "cold (env + conversion)" if with_env else "cold (conversion)"
    print(f"{label:<26}{describe(cold, cold_marks)}")
    print(f"{'warm':<26}{describe(warm, warm_marks)}")
    print(f"cold / warm: {cold / warm:.2f}x")
    if compiled:
        # Compiled (no --enforce-eager): the first start fills vLLM's compile cache, the
        # second one reuses it.
        compiled_config = ModelServerConfig.model_validate(
            {**config.model_dump(), "enforce_eager": False}
        )
        shutil.rmtree(server.cache_dir, ignore_errors=True)
        first, marks = await timed_start(ModelServer(compiled_config, settings.data_dir))
        print(f"{'compiled, empty cache':<26}{describe(first, marks)}")
        again, marks = await timed_start(ModelServer(compiled_config, settings.data_dir))
        print(f"{'compiled, cached':<26}{describe(again, marks)}")
        print(
            f"compiled / eager start: {first / warm:.2f}x empty cache, {again / warm:.2f}x cached"
        )
    for folder in (server.env_dir, server.embedded_dir):
        print(f"disk: {disk_gib(folder):.2f} GiB  {folder}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--with-env", action="store_true", help="reinstall the environment too")
    parser.add_argument("--compiled", action="store_true", help="also time a compiled start")
    args = parser.parse_args()
    asyncio.run(main(args.with_env, args.compiled))
