"""Parallel reasoning threads on the served model: batching cost, pruning savings, pass rates.

The threads are the translate graph's own (`agents.graphs.reasoning`): one rewrite prompt per
program with a strategy outline from the catalogue last, one streamed completion per outline,
run by `agents.reasoning.run_threads`. Three measurements, each side by side in one run:

1. `throughput`: wall time and aggregate completion tokens/s of 1, 4 and 8 threads (rule
   "none", every thread writing exactly `--max-tokens`), the prefix-cache hit rate from the
   server's /metrics, and wall(8)/wall(1) (the issue's target: at most 1.5).
2. `pruning`: tokens generated and saved by each pruning rule ("none", "fingerprint",
   "confidence", "both") with K threads, on a converging workload (simple loops, where threads
   tend to write one program) and a non-converging one (ParEval functions with several valid
   strategies: a histogram and a stencil by default); then, verified in the Docker sandbox,
   the pass rate per rule.
3. `samples` (with 2): K threads with fingerprint pruning against K independent samples of the
   same prompt without an outline (one request with n=K), at the same per-sample token limit.

Rules and arms run interleaved within a round, so drift on a shared machine hits all alike;
`--rounds` repeats everything and the tables give the median and the spread (min-max).
Verification runs after all generation, so it does not slow the model down mid-measurement.

    .venv/bin/python benchmarks/reasoning_threads.py [--parts throughput pruning samples]
        [--rounds 2] [--max-tokens 256] [--k 6] [--converging reduce map]
        [--pareval 20_histogram_pixel_histogram ...] [--no-verify] [--json results.json]

The server must be running (`parforge model serve`); verification needs the sandbox image.
With `--oracle P` the threads talk to a SIMULATED capable model instead (`oracle.py`, served in
this process, every figure labelled as simulated): each thread's code is ParEval's known-good
solution with probability P and a planted mutant otherwise, its surface varied per thread. Each
arm starts the oracle's attempts afresh (seed `--oracle-seed` + round), so within a round every
rule is shown the same K answers and differs only in what it prunes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agents.analysis import analyse
from agents.analysis.errors import InputError
from agents.analysis.parse import parse
from agents.extract import extract_code
from agents.judge import Checks, SandboxJudge, task_spec
from agents.llm import ChatRequest, LLMClient, LLMConfig, LLMError, Message, Sampling
from agents.prompts.translate import loop_facts, rewrite_messages
from agents.reasoning import (
    Outline,
    Pruning,
    Thread,
    ThreadBudget,
    run_threads,
    structure,
    tokens_saved,
)
from agents.reasoning import shape as code_shape
from agents.reasoning.threads import Rule
from agents.targets import kit
from corpus.store.models import ParallelTarget, TaskCreate, TestInput
from corpus.suites import load_suite
from parforge.model_server import ModelServerError, read_metrics
from parforge.model_server.metrics import ServerMetrics
from parforge.settings import Settings, load_settings
from sandbox.spec import Candidate, Language, Spec, Target, TestCase
from sandbox.verdict import Status, Verdict
from sandbox.verify.verifier import open_verifier

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from oracle import Oracle, serving  # noqa: E402 - a sibling script, found by path

PROGRAMS = ROOT / "tests" / "agents" / "graphs" / "programs"
"""The simple loops of the translate graph's end-to-end test."""
HEAT2D = ROOT / "examples" / "heat2d" / "heat2d.toml"
SIMPLE_TESTS = {  # the end-to-end test's inputs
    "reduce": [["1000"], ["5000"], ["3000000"]],
    "map": [["1000"], ["4099"], ["3000000"]],
    "stencil": [["100", "3"], ["999", "5"], ["200000", "50"]],
    "scan": [["1000"], ["4099"], ["2000000"]],
}
PAREVAL = ["20_histogram_pixel_histogram", "50_stencil_xor_kernel"]
"""A histogram and a stencil (`27_reduce_average`, a reduction, is another good one)."""
RULES: list[Rule] = ["none", "fingerprint", "confidence", "both"]
SAMPLES = "samples"
"""The arm of K independent samples (one request with n=K) beside the rules."""
TARGET = Target.OPENMP
LOGPROBS = 5
LOOPS = {"for", "while", "do"}
"""`structure` lines that are loops, not parallel constructs."""


@dataclass
class Problem:
    """A program the threads rewrite: its prompt's inputs and the spec that verifies it."""

    name: str
    workload: str
    """`converging` (simple loops) or `diverging` (ParEval)."""
    source: str
    language: Language
    spec: Spec
    shown_tests: list[TestCase]
    """The tests the prompt shows (the user's; none for a ParEval function)."""
    analysis: str = ""
    """The analysis's loop facts the prompt shows, as the graph's threads do (`with_analysis`)."""

    def with_analysis(self) -> Problem:
        self.analysis = loop_facts(analyse(self.source, self.language).loops)
        return self

    @property
    def function_only(self) -> bool:
        return self.spec.driver is not None

    def messages(self, strategy: str | None) -> list[Message]:
        """The reasoning subgraph's thread prompt (`nodes._request`); without a strategy, the
        same prompt with its strategy sentence taken out."""
        spec = self.spec
        messages = rewrite_messages(
            self.source,
            self.language,
            TARGET,
            self.shown_tests,
            threads=spec.threads,
            ranks=spec.ranks,
            tolerance=spec.tolerance,
            strategy=strategy or "-",
            analysis=self.analysis,
            function_only=self.function_only,
        )
        if strategy is None:
            last = messages[-1]
            content = last.content or ""
            sentence = "\n\nStrategy to follow: -."
            if sentence not in content:
                raise RuntimeError("the rewrite prompt no longer ends its ask with the strategy")
            content = content.replace(sentence, "", 1)
            messages = [*messages[:-1], last.model_copy(update={"content": content})]
        return messages


def simple_problem(name: str, checks: Checks) -> Problem:
    """One of the end-to-end test's loops, or `heat2d` (the example spec)."""
    if name == "heat2d":
        data = tomllib.loads(HEAT2D.read_text())
        data["reference"] = (HEAT2D.parent / data["reference"]).read_text()
        spec = Spec.model_validate(data)
        return Problem(name, "converging", spec.reference, spec.language, spec, list(spec.tests))
    if name not in SIMPLE_TESTS:
        raise SystemExit(
            f"unknown simple program {name!r}: one of heat2d, {', '.join(SIMPLE_TESTS)}"
        )
    source = (PROGRAMS / f"{name}.c").read_text()
    create = TaskCreate(
        name=name,
        language=Language.C,
        target=ParallelTarget.OPENMP,
        source=source,
        tests=[TestInput(name=f"t{i}", args=a) for i, a in enumerate(SIMPLE_TESTS[name])],
    )
    spec = task_spec(create, checks)
    return Problem(name, "converging", source, Language.C, spec, list(spec.tests))


def pareval_problems(names: Sequence[str]) -> list[Problem]:
    """ParEval serial->OpenMP problems: the serial source the translate agent starts from
    (`evals.sources.graph`), verified through the problem's driver."""
    if not names:
        return []
    suite = load_suite("pareval")
    sources = {
        t.problem: t.source
        for t in suite.translations
        if t.supported and t.source_model == "serial" and t.target_model == TARGET.value
    }
    out = []
    for name in names:
        if name not in sources:
            raise SystemExit(f"no supported serial->openmp ParEval translation named {name!r}")
        task = suite.task(name)
        spec = Spec.model_validate(task.spec_for(TARGET))
        out.append(Problem(name, "diverging", sources[name], spec.language, spec, []))
    return out


def outlines(k: int) -> list[Outline]:
    """One catalogue strategy per thread (cycling when K exceeds the catalogue)."""
    catalogue = kit(TARGET).strategies
    return [Outline(strategy=catalogue[i % len(catalogue)], origin="catalogue") for i in range(k)]


def make_threads(problem: Problem, k: int, sampling: Sampling) -> list[Thread]:
    return [
        Thread(
            i,
            o,
            ChatRequest(messages=problem.messages(o.strategy), sampling=sampling),
            problem.language,
        )
        for i, o in enumerate(outlines(k))
    ]


async def metrics(url: str) -> ServerMetrics | None:
    try:
        return await read_metrics(url)
    except ModelServerError as exc:  # a benchmark without /metrics still measures
        print(f"  (no /metrics: {exc})", file=sys.stderr)
        return None


def hit_rate(before: ServerMetrics | None, after: ServerMetrics | None) -> float | None:
    return after.hit_rate_since(before) if before and after else None


def busy(before: ServerMetrics | None, after: ServerMetrics | None) -> float | None:
    """Requests running or waiting on the server before ours started or after they ended:
    other clients' (0 does not prove that none came and went in between)."""
    if before is None or after is None:
        return None
    return sum(m.requests_running + m.requests_waiting for m in (before, after))


def generated(before: ServerMetrics | None, after: ServerMetrics | None) -> float | None:
    """Tokens the server generated in between (every client of it, not only ours)."""
    return after.generation_tokens - before.generation_tokens if before and after else None


# --- 1. throughput --------------------------------------------------------------------------


async def fan_out(
    llm: LLMClient, url: str, problem: Problem, k: int, max_tokens: int, temperature: float
) -> dict[str, Any]:
    sampling = Sampling(max_tokens=max_tokens, temperature=temperature, ignore_eos=True)
    threads = make_threads(problem, k, sampling)
    before = await metrics(url)
    t0 = time.perf_counter()
    await run_threads(llm, threads, Pruning(rule="none"))
    wall = time.perf_counter() - t0
    after = await metrics(url)
    failed = [t.reason for t in threads if t.status == "failed"]
    if failed:
        print(f"  {k} threads: {len(failed)} failed: {failed[0]}", file=sys.stderr)
    tokens = sum(t.tokens for t in threads)
    ttfts = [t.record.ttft_s for t in threads if t.record and t.record.ttft_s is not None]
    return {
        "threads": k,
        "wall_s": wall,
        "tokens": tokens,
        "tok_s": tokens / wall,
        "ttft_s": statistics.median(ttfts) if ttfts else None,
        "hit_rate": hit_rate(before, after),
        "busy": busy(before, after),
        "server_generated": generated(before, after),
        "prompt_tokens": next(
            (t.record.usage.prompt_tokens for t in threads if t.record and t.record.usage), None
        ),
        "failed": len(failed),
    }


async def throughput(
    llm: LLMClient, url: str, problem: Problem, levels: list[int], args: argparse.Namespace
) -> list[dict[str, Any]]:
    """Every level once per round, levels interleaved; one row per (round, level)."""
    warm = make_threads(problem, 1, Sampling(max_tokens=1))
    await run_threads(llm, warm, Pruning(rule="none"))  # the shared prefix in the cache
    rows = []
    for r in range(args.rounds):
        for k in levels:
            row = await fan_out(llm, url, problem, k, args.max_tokens, args.temperature)
            rows.append({"round": r, **row})
            print(
                f"  round {r} {k} threads: {row['wall_s']:.1f}s {row['tok_s']:.1f} tok/s",
                file=sys.stderr,
                flush=True,
            )
    return rows


# --- 2 and 3. pruning rules and independent samples ------------------------------------------


@dataclass
class Arm:
    """One run of K threads under one rule (or K independent samples) on one problem."""

    problem: str
    workload: str
    arm: str
    round: int
    wall_s: float
    generated: int
    saved: int
    finished: int
    pruned: int
    failed: int
    server_generated: float | None
    busy: float | None
    """Other clients' requests on the server when this run started."""
    statuses: list[str]
    reasons: list[str]
    codes: list[str] = field(default_factory=list)
    """The code of every finished thread (what the subgraph keeps as candidates)."""
    parsed: int = 0
    shapes: int = 0
    """Distinct programs among the parsed candidates (abstract token shapes)."""
    parallel: int = 0
    """Parsed candidates that write a parallel construct (an OpenMP directive)."""
    passed: int | None = None
    built: int | None = None
    verdicts: list[str] = field(default_factory=list)
    converged: list[int] = field(default_factory=list)
    """Threads pruned as converged on another (what the graph runs again when nothing passed)."""
    revived: int = 0
    """Of those, how many ran again (`revive_all`); their tokens are in `generated`."""


def candidates(texts: list[str], language: Language) -> tuple[list[str], int, int, int]:
    """The extracted code of each reply, how many parse as a program, how many distinct, how
    many of those write a parallel construct."""
    codes, shapes = [], set()
    parsed = parallel = 0
    for text in texts:
        code = extract_code(text).code
        codes.append(code)
        try:
            parse(code, language)
        except InputError:
            continue
        parsed += 1
        shapes.add(" ".join(code_shape(code, language)))
        parallel += any(t not in LOOPS for t in structure(code, language).splitlines())
    return codes, parsed, len(shapes), parallel


def make_arm(
    problem: Problem,
    name: str,
    r: int,
    wall: float,
    server: tuple[ServerMetrics | None, ServerMetrics | None],
    texts: list[str],
    **counts: Any,
) -> Arm:
    """One run's row: the finished replies' candidates and the server's figures, beside the
    arm's own counts (generated, saved, pruned, failed, statuses, reasons)."""
    codes, parsed, shapes, parallel = candidates(texts, problem.language)
    return Arm(
        problem=problem.name,
        workload=problem.workload,
        arm=name,
        round=r,
        wall_s=wall,
        finished=len(texts),
        server_generated=generated(*server),
        busy=busy(*server),
        codes=codes,
        parsed=parsed,
        shapes=shapes,
        parallel=parallel,
        **counts,
    )


async def rule_run(
    llm: LLMClient, url: str, problem: Problem, rule: Rule, r: int, args: argparse.Namespace
) -> Arm:
    logprobs = LOGPROBS if rule in ("confidence", "both") else None
    sampling = Sampling(max_tokens=args.max_tokens, temperature=args.temperature, logprobs=logprobs)
    threads = make_threads(problem, args.k, sampling)
    before = await metrics(url)
    t0 = time.perf_counter()
    # No shared token budget: each thread is bounded by its own max_tokens, as each of the K
    # independent samples is (a budget of K x max_tokens would stop the last thread on its
    # last token: `_Group.check` compares `spent >= budget`).
    await run_threads(llm, threads, Pruning(rule=rule), ThreadBudget())
    wall = time.perf_counter() - t0
    after = await metrics(url)
    return make_arm(
        problem,
        rule,
        r,
        wall,
        (before, after),
        [t.text for t in threads if t.status == "finished"],
        generated=sum(t.tokens for t in threads),
        saved=tokens_saved(threads),
        pruned=sum(1 for t in threads if t.status == "pruned"),
        failed=sum(1 for t in threads if t.status == "failed"),
        statuses=[t.status for t in threads],
        reasons=[t.reason for t in threads if t.reason],
        converged=[t.index for t in threads if t.pruned_by is not None],
    )


async def samples_run(
    llm: LLMClient, url: str, problem: Problem, r: int, args: argparse.Namespace
) -> Arm:
    """K independent samples: one request with n=K, the prompt without an outline."""
    request = ChatRequest(
        messages=problem.messages(None),
        sampling=Sampling(max_tokens=args.max_tokens, temperature=args.temperature, n=args.k),
    )
    before = await metrics(url)
    t0 = time.perf_counter()
    texts: list[str] = []
    tokens, failed, reasons = 0, 0, []
    try:
        generation = await llm.chat(request)
        texts, tokens = generation.texts, generation.usage.completion_tokens
    except LLMError as exc:
        failed, reasons = args.k, [f"{type(exc).__name__}: {exc}"]
    wall = time.perf_counter() - t0
    after = await metrics(url)
    return make_arm(
        problem,
        SAMPLES,
        r,
        wall,
        (before, after),
        texts,
        generated=tokens,
        saved=0,
        pruned=0,
        failed=failed,
        statuses=["finished"] * len(texts),
        reasons=reasons,
    )


async def arms(
    llm: LLMClient,
    url: str,
    problems: list[Problem],
    names: list[str],
    args: argparse.Namespace,
    oracle: Oracle | None = None,
) -> list[Arm]:
    out = []
    for r in range(args.rounds):
        for problem in problems:
            for name in names:
                if oracle is not None:  # the same K answers for every rule of this round
                    oracle.seed = args.oracle_seed + r
                    oracle.reset()
                if name == SAMPLES:
                    arm = await samples_run(llm, url, problem, r, args)
                else:
                    arm = await rule_run(llm, url, problem, name, r, args)  # type: ignore[arg-type]
                out.append(arm)
                print(
                    f"  round {r} {problem.name} {name}: {arm.wall_s:.1f}s, {arm.generated} tokens, "
                    f"{arm.pruned} pruned, {arm.parsed}/{arm.finished} parse, "
                    f"{arm.parallel} parallel",
                    file=sys.stderr,
                    flush=True,
                )
    return out


def open_judge(settings: Settings) -> SandboxJudge:
    """The sandbox verifier the benchmark judges with: build, tests, race check; no timing."""
    return SandboxJudge(open_verifier(settings.sandbox), settings.verify, timing=False)


async def verify_all(
    settings: Settings,
    problems: dict[str, Problem],
    runs: list[Arm],
    workers: int,
    verifier: SandboxJudge | None = None,
) -> float:
    """Verify every distinct candidate once (build, tests at every thread count, race check;
    no timing); fill in each run's built and passed counts. Returns the seconds it took.
    Without a `verifier`, one is opened and closed for this call."""
    own = verifier is None
    verifier = verifier or open_judge(settings)
    distinct = {(run.problem, code) for run in runs for code in run.codes if code.strip()}
    gate = asyncio.Semaphore(workers)
    verdicts: dict[tuple[str, str], Verdict | str] = {}

    async def one(problem: str, code: str) -> None:
        async with gate:
            try:
                verdicts[(problem, code)] = await verifier(
                    problems[problem].spec, Candidate(target=TARGET, source=code)
                )
            except Exception as exc:  # an infrastructure failure, counted apart
                verdicts[(problem, code)] = f"error: {type(exc).__name__}: {exc}"

    t0 = time.perf_counter()
    print(f"  verifying {len(distinct)} distinct candidates", file=sys.stderr, flush=True)
    try:
        await asyncio.gather(*(one(p, c) for p, c in distinct))
    finally:
        if own:
            await verifier.aclose()
    for run in runs:
        run.passed = run.built = 0
        for code in run.codes:
            verdict = verdicts.get((run.problem, code), "empty reply")
            if isinstance(verdict, str):
                run.verdicts.append(verdict)
                continue
            run.verdicts.append(verdict.status.value)
            run.passed += verdict.status is Status.PASSED
            run.built += verdict.build is not None and verdict.build.ok
    return time.perf_counter() - t0


async def revive_all(
    settings: Settings,
    config: LLMConfig,
    problems: dict[str, Problem],
    runs: list[Arm],
    args: argparse.Namespace,
) -> float:
    """What the reasoning subgraph does when no candidate passed (`nodes.revive`): the threads
    pruned as converged run again, unpruned, one at a time, each verified, until one passes or
    none is left. Each such run gets their candidates, tokens and passes; what they cost comes
    off its savings. Returns the seconds it took."""
    t0 = time.perf_counter()
    lost = [run for run in runs if run.passed == 0 and run.converged]
    if not lost:
        return 0.0
    print(f"  running {len(lost)} run(s)' pruned threads again", file=sys.stderr, flush=True)
    verifier = open_judge(settings)
    async with LLMClient(config) as llm, contextlib.aclosing(verifier):
        for run in lost:
            problem = problems[run.problem]
            sampling = Sampling(max_tokens=args.max_tokens, temperature=args.temperature)
            threads = {t.index: t for t in make_threads(problem, args.k, sampling)}
            for index in run.converged:
                thread = threads[index]
                await run_threads(llm, [thread], Pruning(rule="none"), ThreadBudget())
                run.generated += thread.tokens
                run.saved -= thread.tokens
                run.revived += 1
                texts = [thread.text] if thread.status == "finished" else []
                codes, parsed, _, parallel = candidates(texts, problem.language)
                again = replace(run, codes=codes, verdicts=[], passed=None, built=None)
                await verify_all(settings, problems, [again], args.verify_workers, verifier)
                run.codes += codes
                run.finished += len(texts)
                run.parsed += parsed
                run.parallel += parallel
                run.passed = (run.passed or 0) + (again.passed or 0)
                run.built = (run.built or 0) + (again.built or 0)
                run.verdicts += again.verdicts
                if run.passed:
                    break
    return time.perf_counter() - t0


# --- report ----------------------------------------------------------------------------------


def spread(values: Sequence[float | None], fmt: str = "{:.1f}") -> str:
    """`median (min-max)` of the values that exist."""
    xs = [v for v in values if v is not None]
    if not xs:
        return "-"
    med = fmt.format(statistics.median(xs))
    if min(xs) == max(xs):
        return med
    return f"{med} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"


def report_throughput(label: str, rows: list[dict[str, Any]], rounds: int) -> dict[str, Any]:
    print(f"\n## 1. throughput: {label}   (load average {os.getloadavg()[0]:.1f})")
    print("rule none, every thread writes exactly max_tokens; median (min-max) over rounds")
    print(f"{'threads':>7} {'wall s':>18} {'tok/s':>18} {'ttft s':>17} {'prefix hits':>18}")
    levels = sorted({r["threads"] for r in rows})
    for k in levels:
        at = [r for r in rows if r["threads"] == k]
        print(
            f"{k:>7} {spread([r['wall_s'] for r in at]):>18} "
            f"{spread([r['tok_s'] for r in at]):>18} "
            f"{spread([r['ttft_s'] for r in at], '{:.2f}'):>17} "
            f"{spread([r['hit_rate'] for r in at], '{:.0%}'):>18}"
        )
    ratios: dict[str, Any] = {}
    lo, hi = levels[0], levels[-1]
    by_round = [{r["threads"]: r for r in rows if r["round"] == i} for i in range(rounds)]
    wall = [b[hi]["wall_s"] / b[lo]["wall_s"] for b in by_round if lo in b and hi in b]
    tok = [b[hi]["tok_s"] / b[lo]["tok_s"] for b in by_round if lo in b and hi in b]
    ratios = {"wall_ratio": wall, "tok_s_ratio": tok}
    print(f"wall({hi})/wall({lo}): {spread(wall, '{:.2f}')}  (target <= 1.5)")
    print(f"tok/s({hi})/tok/s({lo}): {spread(tok, '{:.2f}')}")
    shared = [r for r in rows if r.get("busy")]
    if shared:
        print(
            f"{len(shared)} of {len(rows)} fan-outs started while other clients had requests "
            "on the server (their figures are slower than the server alone would give)"
        )
    return ratios


def _sum(runs: list[Arm], key: str) -> float:
    return float(sum(getattr(a, key) or 0 for a in runs))


def _server(runs: list[Arm]) -> float | None:
    counts = [a.server_generated for a in runs]
    return None if any(c is None for c in counts) else float(sum(c or 0 for c in counts))


def report_arms(runs: list[Arm], names: list[str], rounds: int, verified: bool) -> None:
    """Per workload and arm: per-round totals over the workload's problems, median (min-max)."""
    print(f"\n## 2. pruning rules{' and 3. independent samples' if SAMPLES in names else ''}")
    print(
        "per round, summed over the workload's problems; median (min-max) over rounds. "
        "saved: what pruned threads would still have written (tokens_saved); "
        "vs none: 1 - generated/generated(none) of the same round"
    )
    for workload in ("converging", "diverging"):
        mine = [a for a in runs if a.workload == workload]
        if not mine:
            continue
        problems = sorted({a.problem for a in mine})
        print(f"\n### {workload}: {', '.join(problems)}")
        header = (
            f"{'arm':>11} {'generated':>17} {'saved':>15} {'saved %':>15} {'vs none':>15} "
            f"{'server':>15} {'pruned':>9} {'parse':>9} {'distinct':>9} {'parallel':>9} "
            f"{'wall s':>16}"
        )
        if verified:
            header += f" {'built':>9} {'passed':>9} {'solved':>9} {'revived':>9}"
        print(header)
        base: dict[int, float] = {
            r: _sum([a for a in mine if a.arm == "none" and a.round == r], "generated")
            for r in range(rounds)
        }
        for name in names:
            per_round = [[a for a in mine if a.arm == name and a.round == r] for r in range(rounds)]
            per_round = [p for p in per_round if p]
            if not per_round:
                continue
            gen = [_sum(p, "generated") for p in per_round]
            saved = [_sum(p, "saved") for p in per_round]
            pct = [s / (g + s) if g + s else 0.0 for g, s in zip(gen, saved, strict=True)]
            vs_none = [
                1 - _sum(p, "generated") / base[p[0].round] if base.get(p[0].round) else None
                for p in per_round
            ]
            threads = sum(len(a.statuses) for a in per_round[0])
            cands = [_sum(p, "finished") for p in per_round]
            line = (
                f"{name:>11} {spread(gen, '{:.0f}'):>17} {spread(saved, '{:.0f}'):>15} "
                f"{spread(pct, '{:.0%}'):>15} {spread(vs_none, '{:.0%}'):>15} "
                f"{spread([_server(p) for p in per_round], '{:.0f}'):>15} "
                f"{spread([_sum(p, 'pruned') for p in per_round], '{:.0f}'):>6}/{threads:<2} "
                f"{spread([_sum(p, 'parsed') for p in per_round], '{:.0f}'):>6}/"
                f"{spread(cands, '{:.0f}'):<2} "
                f"{spread([_sum(p, 'shapes') for p in per_round], '{:.0f}'):>9} "
                f"{spread([_sum(p, 'parallel') for p in per_round], '{:.0f}'):>9} "
                f"{spread([_sum(p, 'wall_s') for p in per_round]):>16}"
            )
            if verified:
                solved = [float(sum(1 for a in p if a.passed)) for p in per_round]
                line += (
                    f" {spread([_sum(p, 'built') for p in per_round], '{:.0f}'):>9} "
                    f"{spread([_sum(p, 'passed') for p in per_round], '{:.0f}'):>9} "
                    f"{spread(solved, '{:.0f}'):>6}/{len(per_round[0]):<2} "
                    f"{spread([_sum(p, 'revived') for p in per_round], '{:.0f}'):>9}"
                )
            print(line)
    print(
        "\nserver: tokens the server generated meanwhile (/metrics; other clients' too, and "
        "what pruned threads wrote before their abort reached it)\n"
        "pruned: threads pruned / threads; parse: finished threads whose code parses / "
        "finished; distinct: different programs (abstract shapes) among those; parallel: "
        "those that write a parallel construct"
    )
    if verified:
        print(
            "built/passed: candidates that build / pass verification (tests at 1, 2, 4 threads, "
            "race check); solved: problems with at least one passing candidate / problems; "
            "revived: threads pruned as converged that ran again because nothing passed (the "
            "graph's `revive`; their tokens are in generated and off saved)"
        )
    else:
        print("pass rate not measured (--no-verify): parse rate only")
    shared = [a for a in runs if a.busy]
    if shared:
        print(
            f"{len(shared)} of {len(runs)} runs started while other clients had requests on "
            "the server (wall times and the server column include their work)"
        )
    reasons = [r for a in runs for r in a.reasons]
    if reasons:
        print("\nwhy threads ended early (first of each kind):")
        seen: set[str] = set()
        for reason in reasons:
            kind = reason.split(":")[0].split(" ")[0]
            if kind not in seen:
                seen.add(kind)
                print(f"  {reason[:160]}")


async def main(args: argparse.Namespace) -> dict[str, Any]:
    settings = load_settings()
    config: LLMConfig = settings.model.client_config()
    assert config.url
    url = config.url
    converging = [simple_problem(n, settings.graph) for n in args.converging]
    diverging = pareval_problems(args.pareval)
    problems = {p.name: p for p in [*converging, *diverging]}
    if not args.no_analysis:
        problems = {name: p.with_analysis() for name, p in problems.items()}
    oracle = None
    async with contextlib.AsyncExitStack() as stack:
        if args.oracle is not None:
            oracle = Oracle(p=args.oracle, seed=args.oracle_seed, rate=args.oracle_rate)
            url = await stack.enter_async_context(serving(oracle))
            config = config.model_copy(update={"url": url, "model": None})
            print(
                f"SIMULATED capable model (benchmarks/oracle.py), p {args.oracle}: every figure "
                "below is simulated"
            )
        return await measure(settings, config, url, problems, args, oracle)


async def measure(
    settings: Settings,
    config: LLMConfig,
    url: str,
    problems: dict[str, Problem],
    args: argparse.Namespace,
    oracle: Oracle | None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"model": config.model, "url": url, "args": vars(args)}
    async with LLMClient(config) as llm:
        model = await llm.model_name()
        print(f"{model} at {url}; K={args.k}, max_tokens={args.max_tokens}, rounds={args.rounds}")
        if "throughput" in args.parts:
            problem = simple_problem(args.throughput_program, settings.graph)
            if not args.no_analysis:
                problem = problem.with_analysis()
            rows = await throughput(llm, url, problem, args.levels, args)
            out["throughput"] = {
                "program": problem.name,
                "rows": rows,
                **report_throughput(
                    f"{problem.name} ({rows[0]['prompt_tokens']} prompt tokens), "
                    f"max_tokens={args.max_tokens}",
                    rows,
                    args.rounds,
                ),
            }
        names: list[str] = []
        if "pruning" in args.parts:
            names += args.rules
        if "samples" in args.parts:
            names += [n for n in ("fingerprint", SAMPLES) if n not in names]
        runs: list[Arm] = []
        if names:
            t0 = time.perf_counter()
            runs = await arms(llm, url, list(problems.values()), names, args, oracle)
            out["generation_s"] = time.perf_counter() - t0
    verified = False
    if runs and not args.no_verify:
        out["verification_s"] = await verify_all(settings, problems, runs, args.verify_workers)
        verified = True
        if not args.no_revive:
            out["revive_s"] = await revive_all(settings, config, problems, runs, args)
    if runs:
        report_arms(runs, names, args.rounds, verified)
        out["runs"] = [{k: v for k, v in vars(a).items() if k != "codes"} for a in runs]
        if verified:
            print(f"\nverification took {out['verification_s']:.0f}s")
    return out


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parts",
        nargs="+",
        default=["throughput", "pruning", "samples"],
        choices=["throughput", "pruning", "samples"],
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--temperature", type=float, default=0.7, help="the graph's default")
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--throughput-program", default="heat2d")
    parser.add_argument("--k", type=int, default=6, help="threads per run in parts 2 and 3")
    parser.add_argument("--rules", nargs="+", default=RULES, choices=RULES)
    parser.add_argument(
        "--converging",
        nargs="*",
        default=["reduce", "map"],
        help="simple programs: reduce map stencil scan heat2d",
    )
    parser.add_argument("--pareval", "--problems", nargs="*", default=PAREVAL)
    parser.add_argument("--no-verify", action="store_true", help="parse rate only, no sandbox")
    parser.add_argument(
        "--no-analysis", action="store_true", help="prompts without the analysis's loop facts"
    )
    parser.add_argument("--verify-workers", type=int, default=2)
    parser.add_argument(
        "--no-revive",
        action="store_true",
        help="leave out the graph's second run of pruned threads when nothing passed",
    )
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    parser.add_argument(
        "--oracle", type=float, default=None, metavar="P", help="a SIMULATED model (oracle.py)"
    )
    parser.add_argument("--oracle-seed", type=int, default=0)
    parser.add_argument("--oracle-rate", type=float, default=400.0, help="words a second")
    args = parser.parse_args()
    out = asyncio.run(main(args))
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=2, default=str))


if __name__ == "__main__":
    cli()
