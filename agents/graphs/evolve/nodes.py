"""The evolve subgraph's nodes: seed the archive, run one generation, report.

One generation: draw parents (the best, and archive cells at random), propose children
(parameter mutations and crossovers that cost no model call, and model rewrites told what the
verifier measured), drop the ones already tried, then the cascade: a cheap probe (build, one
small input) for every child and the full verification (equivalence at every worker count, race
check, timing under the gate) for the survivors only. Each child then competes for its cell of
the archive and for the title of best, and wins only on a confident improvement.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from langgraph.runtime import Runtime

from agents.analysis import AnnotationError, normalise
from agents.core import evidence
from agents.evolve.archive import Archive, Elite, descriptor
from agents.evolve.fitness import compare, fitness
from agents.evolve.params import choice_mutations, crossover
from agents.evolve.record import Limits, code_hash, new_record, stop_reason, summary
from agents.graphs.evolve.state import EvolveState
from agents.graphs.shared.context import RunContext
from agents.graphs.shared.observations import observation, restore
from agents.reasoning import probe_spec
from agents.targets import Mutation, kit
from agents.tools import Made, ToolContext, ToolError, probe_made, rewrite, verify_made
from agents.tools.annotate import label
from agents.tools.calls import keep, reserve, strategy_of
from agents.tools.verify import checked_spec
from corpus.store.models import StepKind
from sandbox.spec import Candidate
from sandbox.verdict import Verdict

Ctx = Runtime[RunContext]


@dataclass(frozen=True)
class Child:
    """A proposed child: its parents, how it was made, and (parameter children) its code."""

    parents: tuple[int, ...]
    operator: str
    label: str
    mutation: Mutation | None = None
    """None: the model writes it."""


def limits(ctx: RunContext) -> Limits:
    cfg = ctx.config.evolution
    return Limits(cfg.generations, cfg.evaluations, cfg.plateau, cfg.time_s)


async def seed(state: EvolveState, runtime: Ctx) -> dict[str, Any]:
    """The archive from the translate graph's passing candidates (a resumed run keeps its own)."""
    ctx = runtime.context
    tools = ctx.tools
    record = state.get("evolution")
    if record and record.get("generation", 0) > 0:
        _register(tools, record)
        return {}
    record = new_record(ctx.config.evolution.seed, time.time(), tools.work.ledger.spent.tokens)
    seeds = [restore(item) for item in state.get("observations", [])]
    seeds = [m for m in seeds if m.verdict is not None and m.verdict.passed]
    archive = Archive()
    best: Made | None = None
    for made in seeds:
        tools.work.made.setdefault(made.candidate_id, made)
        record["tried"].append(code_hash(made.key))
        incumbent = archive.incumbent(cell := descriptor(made.source, tools.view.target))
        rival = None if incumbent is None else tools.work.made[incumbent.candidate_id].verdict
        if incumbent is None or _beats(made.verdict, rival):
            archive.place(_elite(made, cell, 0))
        # The best seed is what the translate graph alone would have returned.
        if best is None or fitness(made.verdict) > fitness(best.verdict):
            best = made
    if best is not None:
        record["best"] = record["first"] = best.candidate_id
        record["first_speedup"] = fitness(best.verdict).speedup
    record["archive"] = archive.to_json()
    record["members"] = _members(tools, archive, record["best"])
    record["stopped"] = stop_reason(record, limits(ctx), time.time(), tools.work.ledger.exhausted())
    return {"evolution": record, "ledger": tools.work.ledger.snapshot()}


def _beats(child: Verdict | None, incumbent: Verdict | None) -> bool:
    return fitness(child) > fitness(incumbent)


def _elite(made: Made, cell: str, generation: int) -> Elite:
    f = fitness(made.verdict)
    return Elite(made.candidate_id, cell, f.correct, f.speedup, generation)


def _members(tools: ToolContext, archive: Archive, best: int | None) -> dict[str, Any]:
    """The candidates a later generation may need (elites, the best), as the state keeps them."""
    ids = {e.candidate_id for e in archive.cells.values()}
    if best is not None:
        ids.add(best)
    return {str(i): observation(tools.work.made[i]) for i in sorted(ids)}


def _register(tools: ToolContext, record: dict[str, Any]) -> None:
    """A resumed run: the members' candidates back into the tools' registry."""
    for item in record["members"].values():
        made = tools.work.made.get(item["candidate_id"]) or restore(item)
        tools.work.made[made.candidate_id] = made
        if made.verdict is not None:
            tools.work.verdicts.setdefault(made.key, (made.candidate_id, made.verdict))


async def generation(state: EvolveState, runtime: Ctx) -> dict[str, Any]:
    ctx = runtime.context
    tools, cfg = ctx.tools, ctx.config.evolution
    record = dict(state["evolution"])
    record["history"] = list(record["history"])
    record["tried"] = list(record["tried"])
    _register(tools, record)
    number = record["generation"] + 1
    rng = random.Random(f"{record['seed']}:{number}")
    archive = Archive.from_json(record["archive"])
    parents = archive.parents(rng, cfg.parents, record["best"])
    room = min(cfg.children, cfg.evaluations - record["evaluations"])
    model = cfg.model_children if ctx.config.use_model else 0
    children = _choose(tools, parents, record["tried"], rng, max(0, room - model))
    children += [
        Child((parents[i % len(parents)],), "model", "rewrite from measurements")
        for i in range(min(model, room - len(children)))
    ]
    arguments = {
        "generation": number,
        "parents": parents,
        "children": [{"operator": c.operator, "label": c.label} for c in children],
    }
    async with tools.deps.trace.open_step(
        StepKind.TOOL_CALL, "generation", arguments, tool="evolve"
    ) as step:
        assert step.id is not None
        tools.deps.trace.hang_below(step.id)
        made, notes = await _make(ctx, children, step.id)
        record["tried"] += [code_hash(m.key) for _, m in made]
        evaluated = await _evaluate(ctx, [m for _, m in made])
        record["evaluations"] += len(evaluated)
        rows, improved = await _offer(ctx, record, archive, made, evaluated, number)
        record["history"] += rows
        record["generation"] = number
        record["plateau"] = 0 if improved else record["plateau"] + 1
        record["archive"] = archive.to_json()
        record["members"] = _members(tools, archive, record["best"])
        if not children:
            record["stopped"] = (
                "no new child to try: every parameter setting near the elites was tried"
            )
        record["stopped"] = stop_reason(
            record, limits(ctx), time.time(), tools.work.ledger.exhausted()
        )
        step.result = {
            "generation": number,
            "best": record["best"],
            "evaluations": record["evaluations"],
            "children": rows,
            "notes": notes,
        }
    return {"evolution": record, "ledger": tools.work.ledger.snapshot()}


def _choose(
    tools: ToolContext, parents: list[int], tried: list[str], rng: random.Random, n: int
) -> list[Child]:
    """Up to `n` parameter children and crossovers no one has tried, drawn with `rng`."""
    seen = set(tried)
    pool: list[Child] = []
    for pid in parents:
        parent = tools.work.made[pid]
        for mutation in _mutations(tools, parent):
            pool.append(Child((pid,), mutation.operator, mutation.label, mutation))
    annotated = [pid for pid in parents if tools.work.made[pid].choices]
    for i, a in enumerate(annotated):
        for b in annotated[i + 1 :]:
            first, second = tools.work.made[a].choices or [], tools.work.made[b].choices or []
            for mutation in crossover(tools.view.source, tools.view.program, first, second):
                pool.append(Child((a, b), mutation.operator, mutation.label, mutation))
    fresh: list[Child] = []
    for child in pool:
        assert child.mutation is not None
        key = code_hash(normalise(child.mutation.source, tools.view.language))
        if key not in seen:
            seen.add(key)
            fresh.append(child)
    return rng.sample(fresh, min(n, len(fresh)))


def _mutations(tools: ToolContext, parent: Made) -> Sequence[Mutation]:
    if parent.choices:
        try:
            return choice_mutations(tools.view.source, tools.view.program, parent.choices)
        except AnnotationError:  # choices stored by an older analysis: mutate the code instead
            pass
    return kit(tools.view.target).mutations(parent.source, tools.view.language)


async def _make(
    ctx: RunContext, children: list[Child], step_id: int
) -> tuple[list[tuple[Child, Made]], list[str]]:
    """Store the parameter children; ask the model for the others (in parallel)."""
    tools = ctx.tools
    made: list[tuple[Child, Made]] = []
    notes: list[str] = []
    for child in children:
        if child.mutation is None:
            continue
        try:
            reserve(tools, "candidate")
        except ToolError as exc:
            notes.append(f"{child.label}: {exc}")
            break
        mutation = child.mutation
        choices = list(mutation.choices) if mutation.choices else None
        strategy = label(tools, choices) if choices else f"evolve:{mutation.operator}"
        m = await keep(tools, mutation.source, strategy, step_id, parent=child.parents[0])
        m.choices = choices
        made.append((child, m))
    asks = [c for c in children if c.mutation is None]
    replies = await asyncio.gather(
        *(_ask(tools, tools.work.made[c.parents[0]]) for c in asks), return_exceptions=True
    )
    for child, reply in zip(asks, replies, strict=True):
        if isinstance(reply, ToolError):
            notes.append(f"model child of {child.parents[0]}: {reply}")
        elif isinstance(reply, BaseException):
            raise reply
        else:
            made.append((child, reply))
    return made, notes


async def _ask(tools: ToolContext, parent: Made) -> Made:
    """A faster version of `parent` from the model, told what the verifier measured."""
    assert parent.verdict is not None
    strategy = strategy_of(parent.strategy)
    result = await rewrite(
        tools,
        strategy,
        strategy,
        evidence=measurements(tools, parent.verdict),
        previous=parent.source,
        parent_candidate=parent.candidate_id,
        improve=True,
    )
    return tools.work.made[result.candidate_id]


def measurements(tools: ToolContext, verdict: Verdict) -> str:
    """The feedback a model mutation gets: the verdict's evidence (speedups per worker count),
    the seconds per worker count, and the loops the analysis thinks carry the work."""
    lines = [evidence(verdict, max_chars=1200)]
    timing = verdict.timing
    if timing is not None and timing.candidate_s:
        seconds = ", ".join(f"{n}: {s:.4f}s" for n, s in sorted(timing.candidate_s.items()))
        lines.append(f"Seconds by worker count: {seconds} (sequential: {timing.reference_s:.4f}s)")
    loops = sorted(
        tools.view.program.loops, key=lambda loop: (-(loop.perfect_nest + loop.depth), loop.line)
    )
    if loops:
        hot = ", ".join(f"{loop.id} at line {loop.line}" for loop in loops[:2])
        lines.append(f"Likely hot loops (static estimate, not measured): {hot}")
    return "\n".join(lines)


async def _evaluate(ctx: RunContext, made: list[Made]) -> list[Made]:
    """The cascade: probe every child, verify fully only those whose probe passed. Returns the
    children that were evaluated (a child the budget did not reach is not)."""
    tools = ctx.tools
    gate = asyncio.Semaphore(ctx.config.concurrency)
    spec = probe_spec(checked_spec(tools), tests=1)

    async def one(m: Made) -> bool:
        async with gate:
            try:
                probed = await probe_made(tools, m, spec)
                if probed.passed:
                    await verify_made(tools, m)
            except ToolError:
                return False
            return m.verdict is not None

    done = await asyncio.gather(*(one(m) for m in made))
    return [m for m, ok in zip(made, done, strict=True) if ok]


async def _offer(
    ctx: RunContext,
    record: dict[str, Any],
    archive: Archive,
    made: list[tuple[Child, Made]],
    evaluated: list[Made],
    number: int,
) -> tuple[list[dict[str, Any]], bool]:
    """Each evaluated child, in the order it was made, against its cell and the best. A child
    that beats the best must beat it again when both are timed anew (`_confirm`)."""
    tools, cfg = ctx.tools, ctx.config.evolution
    judge = partial(compare, min_confidence=cfg.min_confidence, min_gain=cfg.min_gain)
    ids = {m.candidate_id for m in evaluated}
    rows: list[dict[str, Any]] = []
    improved = False
    for child, m in made:
        if m.candidate_id not in ids:
            continue
        verdict = m.verdict
        f = fitness(verdict)
        parent = tools.work.made[child.parents[0]]
        versus_parent = judge(verdict, parent.verdict)
        cell = descriptor(m.source, tools.view.target)
        incumbent = archive.incumbent(cell)
        placed = f.correct and (
            incumbent is None
            or judge(verdict, tools.work.made[incumbent.candidate_id].verdict).better
        )
        if placed:
            archive.place(_elite(m, cell, number))
        best = tools.work.made[record["best"]]
        versus_best = judge(verdict, best.verdict)
        over_best = versus_best.confidence
        won = versus_best.better
        if won and cfg.confirm and fitness(best.verdict).correct:
            won, again = await _confirm(ctx, m, best)
            over_best = min(over_best, again)
        if won:
            record["best"] = m.candidate_id
            improved = True
        rows.append(
            {
                "candidate_id": m.candidate_id,
                "generation": number,
                "parents": list(child.parents),
                "operator": child.operator,
                "label": child.label,
                "status": verdict.status.value if verdict else "not verified",
                "correct": f.correct,
                "speedup": f.speedup,
                "confidence": versus_parent.confidence,
                "gain": versus_parent.gain if versus_parent.gain != float("inf") else None,
                "placed": placed,
                "best": won,
                "over_best": over_best if won else None,
            }
        )
    return rows, improved


async def _confirm(ctx: RunContext, child: Made, best: Made) -> tuple[bool, float]:
    """A win must replicate: the best and the child verified again back to back, the child
    must beat it again. Two measurements at different moments of a shared host disagree more
    often than their repeats suggest; requiring both to agree makes a noisy win unlikely. The
    new verdicts are a stored `confirm` step, not the candidates' verdicts."""
    tools, cfg = ctx.tools, ctx.config.evolution
    try:
        reserve(tools, "sandbox_run")
        reserve(tools, "sandbox_run")
    except ToolError:
        return False, 0.0
    spec = checked_spec(tools)
    arguments = {"candidate_id": child.candidate_id, "best": best.candidate_id}
    async with tools.deps.trace.step(
        StepKind.TOOL_CALL, "confirm", arguments, parent=child.step_id, tool="evolve"
    ) as step:
        again_best = await tools.deps.judge(
            spec, Candidate(target=tools.view.target, source=best.source)
        )
        again = await tools.deps.judge(
            spec, Candidate(target=tools.view.target, source=child.source)
        )
        result = compare(again, again_best, cfg.min_confidence, cfg.min_gain)
        step.result = {
            "better": result.better,
            "confidence": result.confidence,
            "gain": result.gain if result.gain != float("inf") else None,
            "speedup": fitness(again).speedup,
            "best_speedup": fitness(again_best).speedup,
        }
    return result.better, result.confidence


async def finish(state: EvolveState, runtime: Ctx) -> dict[str, Any]:
    """Store the run's `evolution` account (what `--json` shows) as a step."""
    ctx = runtime.context
    tools = ctx.tools
    record = dict(state["evolution"])
    if not record.get("stopped"):
        record["stopped"] = stop_reason(
            record, limits(ctx), time.time(), tools.work.ledger.exhausted()
        )
    arguments = {"seed": record["seed"]}
    async with tools.deps.trace.step(
        StepKind.TOOL_CALL, "evolution", arguments, parent=None, tool="evolve"
    ) as step:
        step.result = summary(record, tools.work.ledger.spent.tokens)
    return {"evolution": record, "ledger": tools.work.ledger.snapshot()}
