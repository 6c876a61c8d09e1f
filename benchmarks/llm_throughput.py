"""Aggregate generation throughput at 1, 4 and 8 parallel threads sharing a ~500-token prefix.

Parallel reasoning threads (ThreadWeaver, ParaThinker) are many completions that share one long
prefix; vLLM batches them and serves the prefix from its cache. This measures, side by side in
one run, the aggregate tokens/s at each thread count, the ratio of 8 threads to 1, the time to
first token and the prefix-cache hit rate read from the server's /metrics.

    python benchmarks/llm_throughput.py     # against the configured server

The server must be running (`parforge model serve`). `llm_server_sweep.py` compares server
settings with this measurement, each on a server of its own.

    python benchmarks/llm_throughput.py --against REF [--repeat 3]

compares this tree's client with the client at git REF on the same server: a process each,
alternated (which goes first alternates too), `--repeat` times; it prints each level's median
tokens/s for both and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
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


def against(ref: str, args: argparse.Namespace) -> None:
    """This tree's client and REF's, alternated on the same server, `args.repeat` times each."""
    root = Path(__file__).resolve().parent.parent
    flags = ["--json", "--levels", *map(str, args.levels), "--max-tokens", str(args.max_tokens)]
    flags += ["--rounds", str(args.rounds)]
    with tempfile.TemporaryDirectory() as tmp:
        other = Path(tmp) / "ref"
        subprocess.run(
            ["git", "-C", str(root), "worktree", "add", "--detach", str(other), ref],
            check=True,
            capture_output=True,
        )
        try:
            trees = {"this tree": root, ref: other}
            tok_s: dict[str, dict[int, list[float]]] = {name: {} for name in trees}
            for i in range(args.repeat):
                order = list(trees) if i % 2 == 0 else list(trees)[::-1]
                for name in order:
                    # The tree's own packages first on the path: its client, not the install's.
                    env = {**os.environ, "PYTHONPATH": str(trees[name])}
                    out = subprocess.run(
                        [sys.executable, str(root / "benchmarks" / "llm_throughput.py"), *flags],
                        env=env,
                        check=True,
                        capture_output=True,
                        text=True,
                    ).stdout
                    for row in json.loads(out.strip().splitlines()[-1]):
                        tok_s[name].setdefault(row["threads"], []).append(row["tok_s"])
                    print(f"run {i + 1} {name}: {out.strip().splitlines()[-1]}", flush=True)
        finally:
            subprocess.run(
                ["git", "-C", str(root), "worktree", "remove", "--force", str(other)],
                check=False,
                capture_output=True,
            )
    print(f"\n## this tree's client vs {ref}'s, median of {args.repeat} alternated runs")
    print(f"{'threads':>7} {'this tok/s':>11} {'ref tok/s':>10} {'ratio':>6}  spread (this; ref)")
    for level in args.levels:
        mine, theirs = tok_s["this tree"][level], tok_s[ref][level]
        ratio = statistics.median(mine) / statistics.median(theirs)
        print(
            f"{level:>7} {statistics.median(mine):>11.1f} {statistics.median(theirs):>10.1f} "
            f"{ratio:>6.3f}  {min(mine):.1f}-{max(mine):.1f}; {min(theirs):.1f}-{max(theirs):.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print the rows as one JSON line")
    parser.add_argument("--against", metavar="REF", help="compare with the client at git REF")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.against:
        against(args.against, args)
        return
    config = load_settings().model.client_config()
    rows = asyncio.run(measure(config, args.levels, args.max_tokens, args.rounds))
    if args.json:
        print(json.dumps(rows))
        return
    report(f"{config.model} at {config.url}", rows)


if __name__ == "__main__":
    main()
