"""Reports: the numbers in the tables are the summary's, plots are real images."""

from pathlib import Path

from evals.report import RunData, RunInfo, write_report
from evals.summary import SampleOutcome


def run(run_id: str, correct: list[bool]) -> RunData:
    outcomes = [
        SampleOutcome(
            problem=f"p{i // 2}",
            problem_type="reduce" if i < 2 else "scan",
            sample=i % 2,
            built=True,
            correct=ok,
            race_free=ok,
            speedups={2: 1.8} if ok else {},
        )
        for i, ok in enumerate(correct)
    ]
    info = RunInfo(id=run_id, suite="pareval", target="openmp", model=f"model-{run_id}", samples=2)
    return RunData(info=info, outcomes=outcomes)


def test_report_files_and_content(tmp_path: Path) -> None:
    paths = write_report(tmp_path, run("r2", [True, True, False, True]), ks=[1, 2], resources=2)
    md = paths["markdown"].read_text()
    assert "| **all** | 1 | 2 | 4 | 100.0% | 75.0% | 75.0% | 1.35 | 0.68 | 0.0% |" in md
    assert "![Speedup distribution](speedups.png)" in md
    for name in ("rates.png", "speedups.png"):
        assert paths[name].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<table>" in paths["html"].read_text()


def test_report_against_baseline_shows_deltas(tmp_path: Path) -> None:
    paths = write_report(
        tmp_path,
        run("tuned", [True, True, True, True]),
        ks=[1],
        resources=2,
        baseline=run("base", [True, False, False, False]),
    )
    md = paths["markdown"].read_text()
    assert "compared with: base (model-base)" in md
    assert "100.0% (+75.0%)" in md  # overall pass@1: 25% -> 100%
    assert paths["deltas.png"].exists()
