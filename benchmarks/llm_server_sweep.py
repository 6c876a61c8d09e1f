"""Embedded-server settings side by side: aggregate tok/s at 1/4/8 threads and TTFT, repeated.

Starts one embedded server per configuration, each on its own port with its own state file (a
scratch data dir that links the real one's environment, model and compile cache), so the
server of the real data dir is never touched. All of them stay up while the rounds run; each
round measures every configuration once, in a rotated order, so load that comes and goes on a
shared machine spreads over all of them. Prints per configuration and thread count the median
aggregate tokens/s, its spread (min-max), the median TTFT and the load average seen, then each
configuration's median over the first one's.

    python benchmarks/llm_server_sweep.py                       # old vs new defaults
    python benchmarks/llm_server_sweep.py old new both-cores passive --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from llm_throughput import measure

from agents.llm import LLMError
from parforge.model_server import ModelServer, ModelServerConfig
from parforge.model_server.cpu import read_cpu, tune_for_cpu
from parforge.model_server.process import log_tail
from parforge.settings import load_settings

# name -> (label, ModelServerConfig overrides); unset settings are chosen from the CPU.
CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "old": (
        "old defaults: bf16, bind auto, eager, 16 seqs",
        {
            "dtype": "bfloat16",
            "cpu_threads_bind": "auto",
            "enforce_eager": True,
            "max_num_seqs": 16,
            "max_num_batched_tokens": 2048,
        },
    ),
    "new": ("new defaults (chosen from the CPU)", {}),
    "both-cores": ("new, but bound to both cores", {"cpu_threads_bind": "0-1"}),
    "bf16": ("new, but bfloat16", {"dtype": "bfloat16"}),
    "compiled": ("new, compiled", {"enforce_eager": False}),
    "chunk512": ("new, 512 batched tokens", {"max_num_batched_tokens": 512}),
    "nopreload": ("new, no tcmalloc/iomp preload", {"cpu_preload": False}),
    # Intel OpenMP (preloaded) spins 5 ms after each parallel region, a value vLLM forces; GNU
    # OpenMP can be told to sleep at once, which leaves the core to whoever else needs it.
    "passive": (
        "new, both cores, GNU OpenMP, passive wait",
        {"cpu_threads_bind": "0-1", "cpu_preload": False, "env": {"OMP_WAIT_POLICY": "PASSIVE"}},
    ),
}
FIRST_PORT = 8100


def scratch_data_dir(real: Path, root: Path) -> Path:
    """A data dir of its own whose environment, model and compile cache are the real ones."""
    shared = real.resolve() / "model-server"
    own = root / "model-server"
    own.mkdir(parents=True)
    for name in ("env", "models", "cache"):
        (shared / name).mkdir(parents=True, exist_ok=True)
        (own / name).symlink_to(shared / name)
    return root


async def start_all(names: list[str], root: Path, servers: dict[str, ModelServer]) -> None:
    """Start each configuration in turn; `servers` gets each one before it starts."""
    settings = load_settings()
    for i, name in enumerate(names):
        overrides = {**CONFIGS[name][1], "port": FIRST_PORT + i, "start_timeout_s": 1200}
        config = ModelServerConfig.model_validate(
            {**settings.model.server.model_dump(), **overrides}
        )
        server = ModelServer(config, scratch_data_dir(settings.data_dir, root / name))
        servers[name] = server
        t0 = time.perf_counter()
        state = await server.start()
        print(
            f"started {name} on port {config.port} in {time.perf_counter() - t0:.0f}s "
            f"(load {os.getloadavg()[0]:.1f}): {' '.join(state.argv[3:])}",
            flush=True,
        )


async def run_rounds(
    servers: dict[str, ModelServer], args: argparse.Namespace
) -> dict[tuple[str, int], list[dict[str, Any]]]:
    """Every configuration once per round, in an order rotated by one each round."""
    results: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    names = list(servers)
    failed: set[str] = set()
    for round_ in range(args.rounds):
        order = names[round_ % len(names) :] + names[: round_ % len(names)]
        for name in order:
            if name in failed:
                continue
            client = (
                load_settings()
                .model.model_copy(update={"server": servers[name].config})
                .client_config()
            )
            load = os.getloadavg()[0]
            try:
                rows = await measure(client, args.levels, args.max_tokens, 1)
            except LLMError as exc:
                # A crashed engine is this configuration's result, not the sweep's end.
                log = servers[name].log_file
                print(f"round {round_ + 1} {name}: failed: {exc}\n{log_tail(log)}", flush=True)
                failed.add(name)
                continue
            for row in rows:
                results[name, row["threads"]].append({**row, "load": load})
            figures = "  ".join(f"{r['threads']}:{r['tok_s']:.1f}" for r in rows)
            print(f"round {round_ + 1} {name:<10} load {load:4.1f}  tok/s {figures}", flush=True)
    return results


def report(
    names: list[str], results: dict[tuple[str, int], list[dict[str, Any]]], levels: list[int]
) -> None:
    names = [name for name in names if all(results[name, level] for level in levels)]
    print(f"\n## medians over rounds (spread min-max); cpu: {tune_for_cpu(read_cpu())}")
    print(f"{'config':<46} {'thr':>3} {'tok/s':>7} {'spread':>13} {'ttft p50':>9} {'load':>9}")
    for name in names:
        for level in levels:
            rows = results[name, level]
            tok = [r["tok_s"] for r in rows]
            loads = [r["load"] for r in rows]
            print(
                f"{CONFIGS[name][0]:<46} {level:>3} {statistics.median(tok):>7.1f} "
                f"{min(tok):>6.1f}-{max(tok):<6.1f} "
                f"{statistics.median(r['ttft'] for r in rows):>8.2f}s "
                f"{min(loads):>4.1f}-{max(loads):<4.1f}"
            )
    if not names:
        return
    base = names[0]
    print(f"\n## median tok/s over `{base}`")
    for name in names[1:]:
        ratios = "  ".join(
            f"{level} thr {statistics.median(r['tok_s'] for r in results[name, level]) / statistics.median(r['tok_s'] for r in results[base, level]):.2f}x"
            for level in levels
        )
        print(f"{name:<10} {ratios}")


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="llm-sweep-") as tmp:
        servers: dict[str, ModelServer] = {}
        try:
            await start_all(args.configs, Path(tmp), servers)
            results = await run_rounds(servers, args)
        finally:
            for server in servers.values():
                await server.stop()
        report(args.configs, results, args.levels)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", choices=list(CONFIGS), default=["old", "new"])
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=3)
    main_args = parser.parse_args()
    asyncio.run(main(main_args))
