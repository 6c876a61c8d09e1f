"""Markdown and HTML reports of an eval run, with matplotlib plots, optionally against a baseline.

Rendering is pure (`render_markdown`, `render_html` take data, return text); only `write_report`
touches the file system.
"""

from __future__ import annotations

import base64
import html
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from evals.stats import Comparison, compare
from evals.summary import (
    OVERALL,
    MetricRow,
    ProblemRow,
    SampleOutcome,
    Summary,
    not_run_reasons,
    per_problem,
    problem_rows,
    summarize,
)


class RunInfo(BaseModel):
    """What a reader needs to know about where the numbers come from."""

    id: str
    suite: str
    target: str
    model: str
    samples: int
    created: str = ""
    notes: str = ""


class RunData(BaseModel):
    info: RunInfo
    outcomes: list[SampleOutcome]
    """Finished samples (verified, or impossible to produce)."""
    unverified: int = 0
    """Samples generated but never verified (the run was stopped before)."""


class Report(BaseModel):
    run: RunData
    baseline: RunData | None
    summary: Summary
    baseline_summary: Summary | None
    plots: dict[str, str]
    """Plot title → file name, relative to the report."""
    problems: list[ProblemRow] = []
    comparisons: dict[str, Comparison] = {}
    """Column (`pass@k`, `race-free@k`) → the paired test against the baseline."""
    changes: list[ProblemChange] = []
    """Per problem against the baseline, those both runs did."""


class ProblemChange(BaseModel):
    problem: str
    problem_type: str
    run: float
    """The run's pass@k estimate of the problem (one sample: 0 or 1)."""
    baseline: float
    run_race_free: float
    baseline_race_free: float


def comparison_of(
    run: RunData, baseline: RunData, k: int
) -> tuple[dict[str, Comparison], list[ProblemChange]]:
    """The paired tests and the per-problem table of `run` against `baseline` at `k`."""
    types = {o.problem: o.problem_type for o in run.outcomes}
    counts = {o.problem: 0 for o in run.outcomes}
    for o in run.outcomes:
        counts[o.problem] += 1
    base_counts = {o.problem: 0 for o in baseline.outcomes}
    for o in baseline.outcomes:
        base_counts[o.problem] += 1
    tests: dict[str, Comparison] = {}
    mine = {flag: per_problem(run.outcomes, flag, k) for flag in ("correct", "race_free")}
    theirs = {flag: per_problem(baseline.outcomes, flag, k) for flag in ("correct", "race_free")}
    shared = sorted(set(mine["correct"]) & set(theirs["correct"]))
    single = k == 1 and all(counts[p] == 1 and base_counts[p] == 1 for p in shared)
    for flag, title in (("correct", f"pass@{k}"), ("race_free", f"race-free@{k}")):
        tests[title] = compare(
            [mine[flag][p] for p in shared], [theirs[flag][p] for p in shared], single
        )
    changes = [
        ProblemChange(
            problem=p,
            problem_type=types.get(p, ""),
            run=mine["correct"][p],
            baseline=theirs["correct"][p],
            run_race_free=mine["race_free"][p],
            baseline_race_free=theirs["race_free"][p],
        )
        for p in shared
    ]
    return tests, changes


_COLUMNS = [
    ("build", "build@k"),
    ("passed", "pass@k"),
    ("race_free", "race-free@k"),
    ("speedup", "speedup_n@k"),
    ("efficiency", "efficiency_n@k"),
    ("correct_but_racy", "passes tests but races"),
]


def _fmt(value: float | None, pct: bool, missing: str = "–") -> str:
    if value is None:
        return missing
    return f"{100 * value:.1f}%" if pct else f"{value:.2f}"


def _cells(row: MetricRow, base: MetricRow | None) -> list[str]:
    cells = []
    for field, _ in _COLUMNS:
        pct = field not in ("speedup", "efficiency")
        value = getattr(row, field)
        # Left empty because the tests could not run here: say so, never show it as a score.
        text = _fmt(value, pct, "not run" if row.not_run and field != "correct_but_racy" else "–")
        interval = row.intervals.get(field)
        if value is not None and interval is not None:
            low, high = interval
            text += f" [{_bound(low, pct)}–{_bound(high, pct)}]"
        if base is not None and value is not None and getattr(base, field) is not None:
            delta = value - getattr(base, field)
            sign = "+" if delta >= 0 else "−"
            # Rates differ in percentage points, never in percent of each other.
            text += f" ({sign}{abs(100 * delta):.1f} pp)" if pct else f" ({sign}{abs(delta):.2f})"
        cells.append(text)
    return cells


def _bound(value: float, pct: bool) -> str:
    return f"{100 * value:.1f}" if pct else f"{value:.2f}"


def _table(report: Report) -> tuple[list[str], list[list[str]]]:
    header = ["type", "k", "problems", "samples", *(title for _, title in _COLUMNS), "not run"]
    rows = []
    for row in report.summary.rows:
        base = None
        if report.baseline_summary is not None:
            base = next(
                (r for r in report.baseline_summary.rows if r.group == row.group and r.k == row.k),
                None,
            )
        group = f"**{row.group}**" if row.group == OVERALL else row.group
        rows.append(
            [
                group,
                str(row.k),
                str(row.problems),
                str(row.samples),
                *_cells(row, base),
                str(row.not_run),
            ]
        )
    return header, rows


def _problem_table(report: Report) -> tuple[list[str], list[list[str]]]:
    n = report.summary.resources
    header = [
        "problem",
        "type",
        "samples",
        "built",
        "correct",
        "race-free",
        f"best speedup (n = {n})" if n else "best speedup",
        "outcomes",
    ]
    rows = [
        [
            p.problem,
            p.problem_type,
            str(p.samples),
            str(p.built),
            "not run" if p.not_run == p.samples else str(p.correct),
            "not run" if p.not_run == p.samples else str(p.race_free),
            _fmt(p.best_speedup, False),
            ", ".join(f"{k} ×{v}" for k, v in p.statuses.items()),
        ]
        for p in report.problems
    ]
    return header, rows


def _comparison_lines(report: Report) -> list[str]:
    """One line per compared column: the problems that moved, and the paired test."""
    if report.baseline is None:
        return []
    lines = []
    for title, c in report.comparisons.items():
        head = (
            f"{title}: on the {c.problems} problems both runs did, {c.better} better, "
            f"{c.worse} worse, {c.same} the same"
        )
        if c.p_value is None:
            lines.append(f"{head}; no difference to test.")
        else:
            verdict = "a difference at the 5 % level" if c.significant else "not significant"
            lines.append(f"{head}; {c.test}, two-sided p = {c.p_value:.3g} ({verdict}).")
    return lines


def _change_table(report: Report) -> tuple[list[str], list[list[str]]]:
    k = report.summary.ks[0]
    assert report.baseline is not None
    header = [
        "problem",
        "type",
        f"pass@{k}",
        f"baseline pass@{k}",
        f"race-free@{k}",
        f"baseline race-free@{k}",
        "change",
    ]

    def change(c: ProblemChange) -> str:
        if c.run > c.baseline:
            return "gained"
        if c.run < c.baseline:
            return "lost"
        return (
            "race-free gained"
            if c.run_race_free > c.baseline_race_free
            else ("race-free lost" if c.run_race_free < c.baseline_race_free else "=")
        )

    rows = [
        [
            c.problem,
            c.problem_type,
            _fmt(c.run, True),
            _fmt(c.baseline, True),
            _fmt(c.run_race_free, True),
            _fmt(c.baseline_race_free, True),
            change(c),
        ]
        for c in report.changes
    ]
    return header, rows


def _notes(report: Report) -> list[str]:
    """What was not run, and why: never to be read as a score."""
    notes = []
    for reason, count in not_run_reasons(report.run.outcomes).items():
        notes.append(
            f"{count} sample(s) {reason}: built and checked as far as this sandbox allows, "
            "but counted neither as passes nor as failures."
        )
    if report.run.unverified:
        notes.append(
            f"{report.run.unverified} sample(s) were generated but not verified (the run was "
            "stopped); they are not in the tables. Resume the run to verify them."
        )
    if report.run.info.notes:
        notes.append(report.run.info.notes)
    return notes


def _facts(report: Report) -> list[tuple[str, str]]:
    info = report.run.info
    n = report.summary.resources
    facts = [
        ("run", info.id),
        ("suite", info.suite),
        ("target", info.target),
        ("model", info.model),
        ("samples per problem", str(info.samples)),
        ("speedup measured at", f"n = {n}" if n else "not measured"),
    ]
    if info.created:
        facts.append(("created", info.created))
    if report.baseline:
        facts.append(("compared with", f"{report.baseline.info.id} ({report.baseline.info.model})"))
    return facts


def render_markdown(report: Report) -> str:
    """The report as Markdown; deltas against the baseline in parentheses."""
    lines = [f"# Eval report: {report.run.info.suite} / {report.run.info.target}", ""]
    lines += [f"- {k}: {v}" for k, v in _facts(report)]
    notes = _notes(report)
    if notes:
        lines += ["", "Notes:", ""] + [f"- {note}" for note in notes]
    header, rows = _table(report)
    lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines += ["", _DEFINITIONS]
    if report.baseline is not None:
        lines += ["", f"## Against run {report.baseline.info.id}", ""]
        lines += [f"- {line}" for line in _comparison_lines(report)]
        header, rows = _change_table(report)
        lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
    header, rows = _problem_table(report)
    lines += ["", "## Problems", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    for title, name in report.plots.items():
        lines += ["", f"![{title}]({name})"]
    return "\n".join(lines) + "\n"


def render_html(report: Report, images: dict[str, bytes] | None = None) -> str:
    """The same report as one self-contained HTML page: `images` (file name → PNG bytes) are
    inlined, so the page can be mailed or attached as it is."""
    esc = html.escape

    def table(header: list[str], rows: list[list[str]]) -> str:
        head = "".join(f"<th>{esc(h)}</th>" for h in header)
        body = "".join(
            "<tr>" + "".join(f"<td>{esc(c.strip('*'))}</td>" for c in row) + "</tr>" for row in rows
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    facts = "".join(f"<li><b>{esc(k)}</b>: {esc(v)}</li>" for k, v in _facts(report))
    notes = "".join(f"<li>{esc(n)}</li>" for n in _notes(report))
    notes = f"<p>Notes:</p><ul>{notes}</ul>" if notes else ""

    def source(name: str) -> str:
        data = (images or {}).get(name)
        if data is None:
            return esc(name)
        return "data:image/png;base64," + base64.b64encode(data).decode()

    plots = "".join(
        f'<figure><img src="{source(name)}" alt="{esc(title)}">'
        f"<figcaption>{esc(title)}</figcaption></figure>"
        for title, name in report.plots.items()
    )
    against = ""
    if report.baseline is not None:
        compared = "".join(f"<li>{esc(line)}</li>" for line in _comparison_lines(report))
        against = (
            f"<h2>Against run {esc(report.baseline.info.id)}</h2><ul>{compared}</ul>"
            f"{table(*_change_table(report))}"
        )
    title = f"Eval report: {report.run.info.suite} / {report.run.info.target}"
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{_CSS}</style></head><body><h1>{esc(title)}</h1><ul>{facts}</ul>{notes}"
        f"{table(*_table(report))}<p>{esc(_DEFINITIONS)}</p>{plots}{against}"
        f"<h2>Problems</h2>{table(*_problem_table(report))}</body></html>\n"
    )


_DEFINITIONS = (
    "pass@k: unbiased estimate that one of k samples agrees with the reference on every test "
    "(ParEval's definition; such a sample is 'correct'). race-free@k additionally requires a "
    "clean race/deadlock check: a sample that passed every check, the verdict's 'passed'. "
    "speedup_n@k / efficiency_n@k: expected best speedup (divided by n for efficiency) among k "
    "samples at n threads or ranks; failing or racy samples count as 0. In brackets: the 95 % "
    "interval over problems (Wilson for one sample per problem at k = 1, else a bootstrap); "
    "differences from a baseline in percentage points (pp)."
)
_CSS = (
    "body{font-family:sans-serif;max-width:1100px;margin:2em auto}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
    "figure{display:inline-block;margin:1em}img{max-width:520px}"
)


def _plot_rates(summary: Summary, path: Path, title: str) -> None:
    import matplotlib.pyplot as plt

    k = summary.ks[0]
    rows = [r for r in summary.rows if r.k == k]
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.27
    for i, (field, label) in enumerate(_COLUMNS[:3]):
        ax.bar(
            [x + (i - 1) * width for x in range(len(rows))],
            [_percent(getattr(r, field)) for r in rows],
            width,
            label=label.replace("k", str(k)),
        )
    ax.set_xticks(range(len(rows)), [r.group for r in rows], rotation=30, ha="right")
    ax.set_ylabel("%")
    ax.set_ylim(0, 100)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _percent(value: float | None) -> float:
    """A rate in percent; NaN (no bar) for a rate that could not be measured."""
    return float("nan") if value is None else 100 * value


def _plot_speedups(outcomes: Sequence[SampleOutcome], n: int, path: Path) -> bool:
    import matplotlib.pyplot as plt

    by_type: dict[str, list[float]] = defaultdict(list)
    for o in outcomes:
        if o.race_free and n in o.speedups:
            by_type[o.problem_type].append(o.speedups[n])
    if not by_type:
        return False
    groups = sorted(by_type)
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.boxplot([by_type[g] for g in groups])
    ax.set_xticks(range(1, len(groups) + 1), groups, rotation=30, ha="right")
    ax.axhline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.set_ylabel(f"speedup at n = {n}")
    ax.set_title("Speedup of verified samples")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _plot_deltas(summary: Summary, baseline: Summary, path: Path) -> None:
    import matplotlib.pyplot as plt

    k = summary.ks[0]
    rows = [r for r in summary.rows if r.k == k]
    base = {r.group: r for r in baseline.rows if r.k == k}
    groups = [r.group for r in rows if r.group in base]
    deltas = [_percent(r.passed) - _percent(base[r.group].passed) for r in rows if r.group in base]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.bar(groups, deltas, color=["tab:green" if d >= 0 else "tab:red" for d in deltas])
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel(f"Δ pass@{k} (percentage points)")
    ax.set_title("Run vs baseline")
    ax.tick_params(axis="x", rotation=30)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(
    out_dir: Path,
    run: RunData,
    *,
    ks: Sequence[int],
    resources: int | None,
    baseline: RunData | None = None,
) -> dict[str, Path]:
    """Write report.md, report.html and the plots into `out_dir`; return their paths."""
    import matplotlib

    matplotlib.use("Agg")
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = summarize(run.outcomes, ks, resources)
    base_summary = summarize(baseline.outcomes, ks, resources) if baseline else None
    plots: dict[str, str] = {}
    _plot_rates(summary, out_dir / "rates.png", f"{run.info.model}: rates by problem type")
    plots["Rates by problem type"] = "rates.png"
    if resources and _plot_speedups(run.outcomes, resources, out_dir / "speedups.png"):
        plots["Speedup distribution"] = "speedups.png"
    if base_summary is not None:
        _plot_deltas(summary, base_summary, out_dir / "deltas.png")
        plots["pass@k difference from the baseline (pp)"] = "deltas.png"
    comparisons: dict[str, Comparison] = {}
    changes: list[ProblemChange] = []
    if baseline is not None:
        comparisons, changes = comparison_of(run, baseline, summary.ks[0])
    report = Report(
        run=run,
        baseline=baseline,
        summary=summary,
        baseline_summary=base_summary,
        plots=plots,
        problems=problem_rows(run.outcomes, resources),
        comparisons=comparisons,
        changes=changes,
    )
    paths = {"markdown": out_dir / "report.md", "html": out_dir / "report.html"}
    paths["markdown"].write_text(render_markdown(report))
    images = {name: (out_dir / name).read_bytes() for name in plots.values()}
    paths["html"].write_text(render_html(report, images))
    paths.update({name: out_dir / name for name in plots.values()})
    return paths
