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
    # Rates with their 95 % interval over the problems (two here: a bootstrap of 1 and 0.5).
    assert (
        "| **all** | 1 | 2 | 4 | 100.0% [100.0–100.0] | 75.0% [50.0–100.0] | "
        "75.0% [50.0–100.0] | 1.35 [0.90–1.80] | 0.68 | 0.0% |"
    ) in md
    assert "![Speedup distribution](speedups.png)" in md
    for name in ("rates.png", "speedups.png"):
        assert paths[name].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = paths["html"].read_text()
    # One self-contained file: the plots are inside it.
    assert "<table>" in page and page.count('src="data:image/png;base64,') == 2
    assert 'src="rates.png"' not in page


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
    assert "100.0% [100.0–100.0] (+75.0 pp)" in md  # overall pass@1: 25% -> 100%, in points
    assert paths["deltas.png"].exists()
    assert "| p1 | scan | 100.0% | 0.0% | 100.0% | 0.0% | gained |" in md
    assert "pass@1: on the 2 problems both runs did, 2 better, 0 worse" in md


def one_sample_run(run_id: str, solved: int, problems: int = 12) -> RunData:
    outcomes = [
        SampleOutcome(
            problem=f"p{i:02d}",
            problem_type="map",
            sample=0,
            built=True,
            correct=i < solved,
            race_free=i < solved,
        )
        for i in range(problems)
    ]
    info = RunInfo(id=run_id, suite="pareval", target="openmp", model=run_id, samples=1)
    return RunData(info=info, outcomes=outcomes)


def test_one_sample_per_problem_gets_wilson_intervals_and_mcnemar(tmp_path: Path) -> None:
    paths = write_report(
        tmp_path,
        one_sample_run("new", solved=10),
        ks=[1],
        resources=None,
        baseline=one_sample_run("old", solved=2),
    )
    md = paths["markdown"].read_text()
    # 10 of 12: Wilson's 95 % interval is 55.2-95.3 %.
    assert "83.3% [55.2–95.3] (+66.7 pp)" in md
    # Eight problems gained, none lost: exact McNemar p = 2 * 0.5**8.
    assert "8 better, 0 worse, 4 the same; McNemar (exact), two-sided p = 0.00781" in md
    assert "(a difference at the 5 % level)" in md


def test_no_difference_is_said_as_such(tmp_path: Path) -> None:
    paths = write_report(
        tmp_path,
        one_sample_run("a", solved=6),
        ks=[1],
        resources=None,
        baseline=one_sample_run("b", solved=6),
    )
    md = paths["markdown"].read_text()
    assert "0 better, 0 worse, 12 the same; no difference to test." in md
    assert "(+0.0 pp)" in md
