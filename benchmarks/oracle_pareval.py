"""ParEval translation with a SIMULATED capable model (`oracle.py`): the translate graph beside
prompt mode and the analysis alone, at several chances p that the model's code is the suite's
known-good solution (a planted mutant otherwise), over several seeds. Every figure printed is
simulated.

For each seed and p, each arm runs against a fresh oracle (attempt counters at 0, so the n-th
attempt of a task is the same answer in every arm) through the same eval harness as
`translate_pareval.py`. Checked, per the model-readiness targets:

- the graph is never below the better of the other two on any task;
- the graph's pass@1 is within the 95 % binomial interval of the mean over tasks of
  1 - (1 - a_t)(1 - p)^n_t, a_t = 1 when the analysis alone passed task t, n_t the oracle's
  code answers the graph drew for it;
- tokens (as the oracle counted them) and wall time per verified program.

    .venv/bin/python benchmarks/oracle_pareval.py [--to openmp|mpi] [--p 0.3 0.6 0.9]
        [--seeds 0 1 2] [--one-per-type] [--limit N] [--problems PATTERN ...]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from oracle import Oracle, serving
from translate_pareval import one

from corpus.suites import load_suite
from evals.plan import select_problems
from sandbox.spec import Target

ARMS = ("analysis", "prompt", "graph")


def predicted(analysis: dict[str, bool], draws: Counter[str], p: float) -> float:
    """The mean over tasks of 1 - (1 - a_t)(1 - p)^n_t."""
    if not analysis:
        return 0.0
    terms = [1 - (0 if a else 1) * (1 - p) ** draws.get(t, 0) for t, a in analysis.items()]
    return sum(terms) / len(terms)


def interval(mean: float, tasks: int) -> tuple[float, float]:
    """The 95 % binomial interval of a pass rate over `tasks` tasks at probability `mean`: the
    2.5 % and 97.5 % quantiles of Binomial(tasks, mean), as rates."""
    cumulative, low, high = 0.0, None, tasks
    for k in range(tasks + 1):
        cumulative += math.comb(tasks, k) * mean**k * (1 - mean) ** (tasks - k)
        if low is None and cumulative >= 0.025:
            low = k
        if cumulative >= 0.975:
            high = k
            break
    return (low or 0) / tasks, high / tasks


async def main(args: argparse.Namespace) -> None:
    target = Target(args.to)
    suite = load_suite("pareval")
    names = select_problems(suite, target, args.problems, None, "serial")
    if args.one_per_type:
        firsts: dict[str, str] = {}
        for name in names:
            firsts.setdefault(name.split("_")[1], name)
        names = list(firsts.values())
    names = names[: args.limit] if args.limit else names
    print(
        f"SIMULATED capable model (benchmarks/oracle.py): ParEval serial->{target.value}, "
        f"{len(names)} problems, 1 sample each, p in {args.p}, seeds {args.seeds}",
        flush=True,
    )
    alone: dict[str, bool] | None = None
    for seed in args.seeds:
        for p in args.p:
            alone = await one_setting(names, target, p, seed, args.rate, alone)


async def one_setting(
    names: list[str],
    target: Target,
    p: float,
    seed: int,
    rate: float,
    alone: dict[str, bool] | None,
) -> dict[str, bool]:
    """One seed and p; returns the analysis arm's results, which draw no model answer and so are
    the same in every setting (run once, then passed back in as `alone`)."""
    oracle = Oracle(p=p, seed=seed, rate=rate, tasks=list(load_suite("pareval").tasks))
    passed: dict[str, dict[str, bool]] = {}
    draws: Counter[str] = Counter()
    if alone is not None:
        passed["analysis"] = alone
        print(f"seed {seed} p {p:.1f} analysis  as in the first setting (draws no answer)")
    async with serving(oracle) as url:
        with tempfile.TemporaryDirectory() as tmp:
            for arm in ARMS:
                if arm in passed:
                    continue
                oracle.reset()
                db = f"sqlite:///{Path(tmp) / (arm + '.db')}"
                _, took, statuses = await one(arm, names, False, db, target, model_url=url)
                passed[arm] = {n: statuses.get(n, "").startswith("passed") for n in names}
                verified = sum(passed[arm].values())
                tokens = oracle.tokens
                if arm == "graph":
                    draws = Counter(d.task for d in oracle.draws)
                per = (
                    f"{tokens / verified:,.0f} tokens and {took / verified:.1f} s per verified"
                    if verified
                    else "nothing verified"
                )
                print(
                    f"seed {seed} p {p:.1f} {arm:9s} pass@1 {verified / len(names):.3f} "
                    f"({verified}/{len(names)}), {took:.0f} s, {per} [SIMULATED]",
                    flush=True,
                )
    below = [
        n for n in names if passed["graph"][n] < max(passed["prompt"][n], passed["analysis"][n])
    ]
    mean = predicted(passed["analysis"], draws, p)
    low, high = interval(mean, len(names))
    graph = sum(passed["graph"].values()) / len(names)
    print(
        f"seed {seed} p {p:.1f}: graph below the better of the others on "
        f"{len(below)} task(s){': ' + ', '.join(below) if below else ''}; graph pass@1 "
        f"{graph:.3f} against the predicted {mean:.3f} (95 % interval {low:.3f}-{high:.3f}): "
        f"{'within' if low <= graph <= high else 'OUTSIDE'}; code answers drawn by the graph "
        f"{sum(draws.values())} [SIMULATED]",
        flush=True,
    )
    return passed["analysis"]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--to", choices=["openmp", "mpi"], default="openmp")
    parser.add_argument("--p", type=float, nargs="*", default=[0.3, 0.6, 0.9])
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    parser.add_argument("--rate", type=float, default=400.0, help="words streamed a second")
    parser.add_argument("--problems", nargs="*", default=[])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--one-per-type", action="store_true")
    asyncio.run(main(parser.parse_args()))
