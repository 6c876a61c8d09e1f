"""The suite loader on small suites written by the tests, and its error messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.errors import SuiteNotFound, TaskFormatError, UnknownTarget
from corpus.suites import builtin_suites, load_suite

MANIFEST = """
name = "tiny"
cflags = ["-O2"]
[harness.serial]
before = ["h/pre.hpp"]
after = ["h/main.hpp"]
[harness.openmp]
before = ["h/pre.hpp"]
after = ["h/main.hpp"]
"""

TASK = """
name = "double_it"
problem_type = "transform"
function = "twice"
signature = "int twice(int x)"
description = "Return 2*x."
reference = "serial.cpp"
problem = "problem.hpp"
[tests]
seeds = [1]
sizes = [3, 5]
[timing]
seed = 9
size = 100
[targets.serial]
prompt = "int twice(int x) {"
[targets.openmp]
prompt_file = "omp.txt"
[[targets.openmp.solutions]]
file = "good.cpp"
[[targets.openmp.solutions.mutants]]
kind = "off_by_one"
description = "adds one"
edits = [{ old = "2 * x", new = "2 * x + 1" }]
"""


def write_suite(root: Path, task: str = TASK, manifest: str = MANIFEST) -> Path:
    (root / "h").mkdir(parents=True)
    (root / "h/pre.hpp").write_text("#include <cstdio>\n")
    (root / "h/main.hpp").write_text("int main() { return 0; }\n")
    (root / "suite.toml").write_text(manifest)
    task_dir = root / "tasks" / "double_it"
    task_dir.mkdir(parents=True)
    (task_dir / "task.toml").write_text(task)
    (task_dir / "serial.cpp").write_text("int twice(int x) { return 2 * x; }\n")
    (task_dir / "problem.hpp").write_text("// calls twice\n")
    (task_dir / "omp.txt").write_text("#include <omp.h>\nint twice(int x) {")
    (task_dir / "good.cpp").write_text("#include <omp.h>\nint twice(int x) { return 2 * x; }\n")
    return root


def test_pareval_is_built_in() -> None:
    assert "pareval" in builtin_suites()
    suite = load_suite("pareval")
    assert suite.name == "pareval"
    assert suite.task("03_dense_la_axpy").problem_type == "dense_la"


def test_user_suite_from_a_directory(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path))
    task = suite.task("double_it")
    assert task.suite == "tiny"
    assert task.prompt_for("serial") == "int twice(int x) {"
    assert task.prompt_for("openmp").startswith("#include <omp.h>")
    (good,) = task.target("openmp").solutions
    (mutant,) = good.mutants
    assert mutant.name == "good.cpp#1-off_by_one"
    assert "return 2 * x + 1;" in mutant.source
    assert task.cflags == ["-O2"]
    assert [t.name for t in suite.tasks_for("openmp")] == ["double_it"]
    with pytest.raises(UnknownTarget, match="does not apply to mpi"):
        task.spec_for("mpi")


def test_json_task_files_load_like_toml(tmp_path: Path) -> None:
    import tomllib

    root = write_suite(tmp_path)
    task_dir = root / "tasks" / "double_it"
    (task_dir / "task.json").write_text(json.dumps(tomllib.loads(TASK)))
    (task_dir / "task.toml").unlink()
    assert load_suite(root).task("double_it").function == "twice"


def test_driver_and_reference_composition(tmp_path: Path) -> None:
    task = load_suite(write_suite(tmp_path)).task("double_it")
    spec = task.spec_for("openmp")
    driver = spec["driver"].splitlines()
    assert driver[1:] == [
        '#include "pre.hpp"',
        '#include "solution.inc"',
        '#include "problem.hpp"',
        '#include "main.hpp"',
    ]
    assert '"solution.inc"' not in spec["reference"]
    assert "return 2 * x;" in spec["reference"]
    assert spec["files"] == {
        "pre.hpp": "#include <cstdio>\n",
        "main.hpp": "int main() { return 0; }\n",
        "problem.hpp": "// calls twice\n",
    }
    assert [t["args"] for t in spec["tests"]] == [["1", "3"], ["1", "5"]]
    assert spec["timing"]["args"] == ["9", "100"]
    assert spec["tolerance"] is None


def test_unknown_suite_names_the_built_ins() -> None:
    with pytest.raises(SuiteNotFound, match="pareval"):
        load_suite("no-such-suite")


def test_directory_without_manifest(tmp_path: Path) -> None:
    with pytest.raises(SuiteNotFound, match=r"suite\.toml"):
        load_suite(tmp_path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t + 'colour = "blue"\n', "colour"),
        (
            lambda t: t.replace('reference = "serial.cpp"', 'reference = "missing.cpp"'),
            "missing.cpp",
        ),
        (
            lambda t: t.replace('reference = "serial.cpp"', 'reference = "../../suite.toml"'),
            "outside",
        ),
        (lambda t: t.replace('old = "2 * x"', 'old = "3 * x"'), "occurs 0 times"),
        (lambda t: t.replace('kind = "off_by_one"', 'kind = "typo"'), "kind"),
        (lambda t: t.replace("[targets.serial]", "[targets.mpi]"), "no harness"),
        (lambda t: t.replace("seeds = [1]", "seeds = []"), "seeds"),
        (lambda t: t.replace("[tests]", "[tests"), "not valid TOML"),
    ],
)
def test_format_errors_name_the_file_and_the_problem(tmp_path: Path, change, message: str) -> None:
    root = write_suite(tmp_path, task=change(TASK))
    with pytest.raises(TaskFormatError, match=message) as info:
        load_suite(root)
    assert "task.toml" in str(info.value)


def test_a_target_without_any_prompt_is_an_error(tmp_path: Path) -> None:
    root = write_suite(tmp_path, task=TASK.replace('prompt = "int twice(int x) {"', ""))
    with pytest.raises(TaskFormatError, match="no prompt for target serial"):
        load_suite(root)


def test_prompts_from_a_pareval_format_file(tmp_path: Path) -> None:
    root = write_suite(
        tmp_path,
        task=TASK.replace('prompt = "int twice(int x) {"', ""),
        manifest=MANIFEST.replace('cflags = ["-O2"]', 'prompts = "p.json"'),
    )
    entry = {
        "name": "double_it",
        "parallelism_model": "serial",
        "prompt": "int twice(int x) {",
        "problem_type": "t",
        "language": "cpp",
    }
    (root / "p.json").write_text(json.dumps([entry]))
    assert load_suite(root).task("double_it").prompt_for("serial") == "int twice(int x) {"


def test_duplicate_task_names(tmp_path: Path) -> None:
    root = write_suite(tmp_path)
    copy = root / "tasks" / "again"
    copy.mkdir()
    for f in (root / "tasks" / "double_it").iterdir():
        (copy / f.name).write_text(f.read_text())
    with pytest.raises(TaskFormatError, match="duplicate task names"):
        load_suite(root)
