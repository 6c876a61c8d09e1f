"""What the pages show, computed from the store's rows: the agent tree on a timeline, the
candidates with their verdicts (repairs below what they repaired), the best program's diff
against the original, and speedup charts as SVG geometry. Pure functions: the templates only
lay them out, and escape every string that came from a program, a model or a user."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from corpus.store.models import CandidateWithVerdict, StepRow


@dataclass(frozen=True)
class StepView:
    id: int
    depth: int
    kind: str
    label: str
    detail: str
    """What the step ended with: a tool's error, a thread's pruning and why, a token count."""
    failed: bool
    start_pct: float
    width_pct: float
    seconds: float | None


def step_tree(steps: list[StepRow]) -> list[StepView]:
    """The steps in tree order (each below its parent), each placed on the task's timeline:
    steps that overlap ran at the same time."""
    if not steps:
        return []
    starts = [_start(s) for s in steps]
    ends = [_end(s) for s in steps]
    t0, t1 = min(starts), max(ends)
    span = max((t1 - t0).total_seconds(), 1e-6)
    children: dict[int | None, list[StepRow]] = {}
    ids = {s.id for s in steps}
    for s in steps:
        parent = s.parent_id if s.parent_id in ids else None
        children.setdefault(parent, []).append(s)
    rows: list[StepView] = []

    def visit(parent: int | None, depth: int) -> None:
        for s in sorted(children.get(parent, []), key=lambda r: r.seq):
            begin, end = _start(s), _end(s)
            rows.append(
                StepView(
                    id=s.id or 0,
                    depth=min(depth, 8),
                    kind=str(s.kind),
                    label=s.tool_name or s.name or str(s.kind),
                    detail=_detail(s),
                    failed=bool(s.error) or _result(s).get("status") == "pruned",
                    start_pct=100 * (begin - t0).total_seconds() / span,
                    width_pct=max(100 * (end - begin).total_seconds() / span, 0.4),
                    seconds=(end - begin).total_seconds() if s.finished_at else None,
                )
            )
            visit(s.id, depth + 1)

    visit(None, 0)
    return rows


def _start(s: StepRow) -> datetime:
    return s.started_at or s.created_at


def _end(s: StepRow) -> datetime:
    return s.finished_at or _start(s)


def _result(s: StepRow) -> dict[str, Any]:
    return s.result if isinstance(s.result, dict) else {}


def _detail(s: StepRow) -> str:
    result = _result(s)
    if s.error:
        return s.error[:300]
    if s.name == "thread":
        status = str(result.get("status", ""))
        reason = str(result.get("reason", ""))
        strategy = str((result.get("outline") or {}).get("strategy", ""))
        return " · ".join(p for p in (strategy, status, reason) if p)[:300]
    tokens = (s.prompt_tokens or 0) + (s.completion_tokens or 0)
    if tokens:
        return f"{tokens} tokens"
    if "candidate_id" in result:
        return f"candidate {result['candidate_id']}"
    return ""


@dataclass(frozen=True)
class CandidateView:
    id: int
    depth: int
    strategy: str
    generation: int
    status: str
    passed: bool
    build: str
    tests: str
    race: str
    speedup: str
    reason: str
    best: bool


def candidate_rows(
    candidates: list[CandidateWithVerdict], best_id: int | None
) -> list[CandidateView]:
    """The candidates in tree order, a repair or an evolved child below its parent."""
    ids = {c.id for c in candidates}
    children: dict[int | None, list[CandidateWithVerdict]] = {}
    for c in candidates:
        children.setdefault(c.parent_id if c.parent_id in ids else None, []).append(c)
    rows: list[CandidateView] = []

    def visit(parent: int | None, depth: int) -> None:
        for c in children.get(parent, []):
            rows.append(_candidate(c, depth, c.id == best_id))
            visit(c.id, depth + 1)

    visit(None, 0)
    return rows


def _candidate(c: CandidateWithVerdict, depth: int, best: bool) -> CandidateView:
    data = c.verdict.data if c.verdict is not None else {}
    build = data.get("build") or {}
    equivalence = data.get("equivalence") or {}
    concurrency = data.get("concurrency") or {}
    outcomes = equivalence.get("outcomes") or []
    speedups = (data.get("timing") or {}).get("speedup") or {}
    return CandidateView(
        id=c.id,
        depth=min(depth, 8),
        strategy=c.strategy,
        generation=c.generation,
        status=str(data.get("status", "not verified")),
        passed=data.get("status") == "passed",
        build="—" if not build else ("ok" if build.get("ok") else "failed"),
        tests=(
            "—"
            if not equivalence
            else f"{sum(1 for o in outcomes if o.get('ok'))}/{len(outcomes)}"
            if outcomes
            else ("ok" if equivalence.get("ok") else "failed")
        ),
        race="—" if not concurrency else ("clean" if concurrency.get("ok") else "race"),
        speedup=", ".join(f"{float(v):.2f}x@{k}" for k, v in sorted(speedups.items(), key=_count)),
        reason=str(data.get("reason", ""))[:400],
        best=best,
    )


def _count(item: tuple[Any, Any]) -> int:
    try:
        return int(item[0])
    except (TypeError, ValueError):
        return 0


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "add", "del", "hunk" or "same"
    text: str


def diff(original: str, best: str) -> list[DiffLine]:
    """The best program against the original, as a unified diff."""
    lines = difflib.unified_diff(
        original.splitlines(), best.splitlines(), "original", "best", lineterm="", n=3
    )
    out = []
    for line in lines:
        if line.startswith(("---", "+++")):
            continue
        kind = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "same")
        out.append(DiffLine(kind, line))
    return out


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    x: float
    y: float
    width: float
    height: float
    over_one: bool


@dataclass
class BarChart:
    """Bars on an SVG canvas, with the 1x line where speedup is a ratio."""

    bars: list[Bar] = field(default_factory=list)
    width: int = 360
    height: int = 160
    baseline_y: float | None = None
    top: float = 0.0


def bar_chart(values: list[tuple[str, float]], ratio: bool = True) -> BarChart:
    """Bars for `values` (label, value), scaled to the largest (and to 1 for ratios)."""
    chart = BarChart()
    if not values:
        return chart
    plot_h, left, bottom = chart.height - 30, 36.0, chart.height - 20
    top = max([v for _, v in values] + ([1.0] if ratio else [0.0])) * 1.1 or 1.0
    slot = (chart.width - left - 8) / len(values)
    for i, (label, value) in enumerate(values):
        h = plot_h * max(value, 0.0) / top
        chart.bars.append(
            Bar(
                label=label,
                value=value,
                x=left + i * slot + slot * 0.15,
                y=bottom - h,
                width=slot * 0.7,
                height=h,
                over_one=value >= 1.0,
            )
        )
    chart.top = top
    if ratio:
        chart.baseline_y = bottom - plot_h * 1.0 / top
    return chart


def best_per_generation(candidates: list[CandidateWithVerdict]) -> list[tuple[str, float]]:
    """The best passing speedup found by each generation of an evolution (the running best:
    a generation that found nothing faster keeps the one before it); empty without one."""
    generations = sorted({c.generation for c in candidates})
    if len(generations) < 2:
        return []
    best, found = 0.0, []
    for generation in generations:
        for c in candidates:
            if c.generation == generation and c.verdict is not None and c.verdict.passed:
                best = max(best, c.verdict.best_speedup)
        found.append((str(generation), best))
    return found


def speedups(verdict: dict[str, Any] | None) -> list[tuple[str, float]]:
    """The verdict's speedup per thread or rank count, in count order."""
    timing = (verdict or {}).get("timing") or {}
    found = timing.get("speedup") or {}
    return [(str(k), float(v)) for k, v in sorted(found.items(), key=_count)]


@dataclass(frozen=True)
class ThreadLane:
    """One reasoning thread on the token axis: what it wrote, and, when pruned, where it was
    cut and the rest of its budget that pruning saved."""

    label: str
    status: str
    note: str
    """Where and why it ended: `pruned at 212 of 512 tokens: repeating itself ...`."""
    y: float
    written_w: float
    saved_x: float
    saved_w: float


@dataclass
class ThreadChart:
    lanes: list[ThreadLane] = field(default_factory=list)
    width: int = 1100
    height: int = 0
    left: float = 170.0
    plot_w: float = 380.0
    lane_h: float = 22.0
    ticks: list[tuple[float, str]] = field(default_factory=list)


def thread_chart(steps: list[StepRow]) -> ThreadChart:
    """The reasoning threads as lanes on one token axis, up to the largest budget (a thread's
    `max_tokens`): a pruned thread's bar stops where it was cut, followed by the outline of
    what it would still have spent; a revived thread is a lane of its own."""
    threads = sorted((s for s in steps if s.name == "thread"), key=lambda s: s.seq)
    chart = ThreadChart()
    if not threads:
        return chart
    rows = []
    for s in threads:
        result = _result(s)
        tokens = s.completion_tokens or 0
        budget = int((s.sampling or {}).get("max_tokens") or 0)
        saved = int(result.get("tokens_saved") or 0)
        rows.append((s, result, tokens, max(budget, tokens + saved)))
    scale = chart.plot_w / max(max(total for *_, total in rows), 1)
    chart.height = int(chart.lane_h * len(rows) + 24)
    for i, (s, result, tokens, total) in enumerate(rows):
        status = str(result.get("status") or ("failed" if s.error else ""))
        strategy = str((result.get("outline") or {}).get("strategy", ""))
        reason = str(result.get("reason") or s.error or "")
        pruned = status == "pruned"
        where = f"at {tokens} of {total} tokens" if pruned else f"{tokens} tokens"
        by = result.get("pruned_by")
        note = " · ".join(
            p
            for p in (
                f"{status} {where}",
                f"converged on thread {by + 1}" if isinstance(by, int) else "",
                reason,
                "revived" if result.get("revived") else "",
            )
            if p
        )
        written = tokens * scale
        chart.lanes.append(
            ThreadLane(
                label=f"{i + 1}. {strategy}"[:32],
                status=status,
                note=note[:300],
                y=4 + i * chart.lane_h,
                written_w=max(written, 1.0),
                saved_x=chart.left + written,
                saved_w=(total - tokens) * scale if pruned else 0.0,
            )
        )
    top = max(total for *_, total in rows)
    chart.ticks = [(chart.left + chart.plot_w * f, f"{round(top * f)}") for f in (0, 0.5, 1)]
    return chart
