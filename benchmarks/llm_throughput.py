"""Aggregate generation throughput at 1, 4 and 8 parallel threads sharing a ~500-token prefix.

Parallel reasoning threads (ThreadWeaver, ParaThinker) are many completions that share one long
prefix; vLLM batches them and serves the prefix from its cache. This measures, side by side in
one run, the aggregate tokens/s at each thread count, the ratio of 8 threads to 1, the time to
first token and the prefix-cache hit rate read from the server's /metrics.

    python benchmarks/llm_throughput.py     # against the configured server

The server must be running (`parforge model serve`). `llm_server_sweep.py` compares server
settings with this measurement, each on a server of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from typing import Any

from agents.llm import CompletionRequest, LLMClient, LLMConfig, Sampling
from parforge.model_server import read_metrics
from parforge.settings import load_settings

PREFIX = (
    "You are a parallel-programming assistant. Below is a sequential C function and the rules "
    "for parallelising it. Think in independent threads; each thread explores one strategy.\n"
    + "\n".join(
        f"Rule {i}: loop {i} reads a[{i}..n) and writes b[{i}]; check for races on b before "
        f"adding `#pragma omp parallel for` with a {('static', 'dynamic', 'guided')[i % 3]} "
        "schedule."
        for i in range(10)
    )
)
STRATEGIES = [
    "static schedule",
    "dynamic schedule",
    "reduction clause",
    "tiling",
    "SIMD",
    "collapse(2)",
    "tasks",
    "guided schedule",
]


async def fan_out(llm: LLMClient, threads: int, max_tokens: int, round_: int) -> dict[str, Any]:
    """One fan-out: `threads` completions that share PREFIX, run at once."""
    requests = [
        CompletionRequest(
            prompt=f"{PREFIX}\nThread {i} ({STRATEGIES[i % len(STRATEGIES)]}), round {round_}:",
            sampling=Sampling(max_tokens=max_tokens, ignore_eos=True, temperature=0.8, seed=i),
        )
        for i in range(threads)
    ]
    t0 = time.perf_counter()
    gens = await asyncio.gather(*(llm.complete(r) for r in requests))
    wall = time.perf_counter() - t0
    return {
        "wall": wall,
        "tokens": sum(g.usage.completion_tokens for g in gens),
        "prompt_tokens": gens[0].usage.prompt_tokens,
        "ttft": [g.record.ttft_s for g in gens if g.record.ttft_s is not None],
    }


async def measure(
    config: LLMConfig, levels: list[int], max_tokens: int, rounds: int
) -> list[dict[str, Any]]:
    """Run every level `rounds` times; return one row per level."""
    assert config.url
    rows = []
    async with LLMClient(config) as llm:
        await fan_out(llm, 1, 4, -1)  # puts the shared prefix in the cache, as a planner would
        for threads in levels:
            before = await read_metrics(config.url)
            runs = [await fan_out(llm, threads, max_tokens, r) for r in range(rounds)]
            after = await read_metrics(config.url)
            tokens = sum(r["tokens"] for r in runs)
            wall = sum(r["wall"] for r in runs)
            rows.append(
                {
                    "threads": threads,
                    "tok_s": tokens / wall,
                    "ttft": statistics.median(t for r in runs for t in r["ttft"]),
                    "hit_rate": after.hit_rate_since(before),
                    "prompt_tokens": runs[0]["prompt_tokens"],
                }
            )
    return rows


def report(label: str, rows: list[dict[str, Any]]) -> float:
    """Print a table; return the ratio of the largest level's tokens/s to the smallest's."""
    print(f"\n## {label}   (load average {os.getloadavg()[0]:.1f})")
    print(f"{'threads':>7} {'tok/s':>8} {'ttft p50':>9} {'prefix hits':>11} {'prompt':>7}")
    for r in rows:
        hit = f"{r['hit_rate']:.0%}" if r["hit_rate"] is not None else "-"
        print(
            f"{r['threads']:>7} {r['tok_s']:>8.1f} {r['ttft']:>8.2f}s {hit:>11} "
            f"{r['prompt_tokens']:>7}"
        )
    ratio = rows[-1]["tok_s"] / rows[0]["tok_s"]
    print(f"ratio {rows[-1]['threads']} vs {rows[0]['threads']} threads: {ratio:.2f}x")
    return float(ratio)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    config = load_settings().model.client_config()
    rows = asyncio.run(measure(config, args.levels, args.max_tokens, args.rounds))
    report(f"{config.model} at {config.url}", rows)


if __name__ == "__main__":
    main()
