"""`parforge analyse`: the analysis's view of a file, as a listing or as JSON; bad input is
exit status 2 with one line on stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from parforge.cli import app

ROOT = Path(__file__).resolve().parents[3]

SOURCE = """
double dot(const double *x, const double *y, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

void decay(double *a, int n) {
    for (int i = 1; i <= n; i++) a[i] = 0.5 * a[i - 1] * a[i - 1];
}
"""


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["analyse", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "kernels.c"
    path.write_text(SOURCE)
    return path


def test_json_lists_every_loop_with_its_facts(source: Path) -> None:
    code, out, _ = invoke(str(source), "--json")
    assert code == 0
    found = json.loads(out)
    assert (found["file"], found["language"]) == (str(source), "c")
    dot, decay = found["loops"]
    assert dot["function"] == "dot" and dot["line"] == 4
    assert dot["kind"] == "reduction" and dot["parallelisable"] is True
    assert dot["clauses"] == ["reduction(+:s)", "schedule(static)"]
    assert dot["accesses"]["x"] == {
        "reads": [{"index": ["i"], "ranges": [["0", "n - 1"]]}],
        "writes": [],
    }
    assert decay["kind"] == "carried" and decay["parallelisable"] is False
    assert decay["clauses"] == [] and decay["reason"]
    assert decay["accesses"]["a"]["writes"] == [{"index": ["i"], "ranges": [["1", "n"]]}]
    for loop in found["loops"]:
        assert {"id", "assumptions"} <= loop.keys()


def test_the_listing_shows_kinds_clauses_and_ranges(source: Path) -> None:
    code, out, _ = invoke(str(source), "--function", "decay")
    assert code == 0
    assert "1 loops" in out.splitlines()[0]
    assert "decay:9  carried  sequential" in out
    assert "reads a[i - 1] [0, n - 1]" in out
    assert "dot" not in out


def test_a_loop_the_program_already_directs_is_shown_as_written(tmp_path: Path) -> None:
    path = tmp_path / "own.c"
    path.write_text(
        "void f(double *a, int n) {\n"
        "    #pragma omp parallel for\n"
        "    for (int i = 0; i < n; i++) a[i] = 2 * a[i];\n"
        "}\n"
    )
    code, out, _ = invoke(str(path))
    assert code == 0
    assert "f:3  independent  as written (the program's own directive, line 2)" in out
    code, out, _ = invoke(str(path), "--json")
    (loop,) = json.loads(out)["loops"]
    assert loop["directive"] == 2 and loop["parallelisable"] is False


def test_the_extension_gives_the_language_and_the_option_overrides_it(tmp_path: Path) -> None:
    path = tmp_path / "kernels.txt"
    path.write_text(SOURCE)
    assert json.loads(invoke(str(path), "--json")[1])["language"] == "cpp"
    assert json.loads(invoke(str(path), "--json", "--language", "c")[1])["language"] == "c"
    cuda = tmp_path / "kernels.cu"
    cuda.write_text(SOURCE)
    assert json.loads(invoke(str(cuda), "--json")[1])["language"] == "cuda"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["{missing}"], "cannot read"),
        (["{dir}"], "cannot read"),
        (["{empty}"], "empty"),
        (["{source}", "--function", "nowhere"], "no function 'nowhere'"),
        (["{source}", "--language", "fortran"], "unknown language"),
    ],
)
def test_bad_input_is_status_2_and_one_line(
    tmp_path: Path, source: Path, args: list[str], said: str
) -> None:
    empty = tmp_path / "empty.c"
    empty.write_text("\n")
    paths = {"dir": tmp_path, "empty": empty, "source": source, "missing": tmp_path / "no.c"}
    code, out, err = invoke(*(arg.format(**paths) for arg in args))
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and said in err, err


def test_python_m_parforge_runs_it(source: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "parforge", "analyse", str(source), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert [loop["kind"] for loop in json.loads(done.stdout)["loops"]] == ["reduction", "carried"]
