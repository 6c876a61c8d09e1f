"""Every reference of the ParEval suite builds with the host toolchain, runs on every test and
on the timing input, reports its kernel time, and agrees with itself under MPI at one rank."""

from __future__ import annotations

import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

from corpus.suites import Suite, load_suite
from sandbox.spec import Target
from tests.fakes.pch import use_precompiled

pytestmark = pytest.mark.slow

TIME_LINE = re.compile(r"^PARFORGE_TIME_S=([0-9.eE+-]+)$", re.MULTILINE)
NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


@cache
def suite() -> Suite:
    return load_suite("pareval")


def build(spec: dict, compiler: list[str], workdir: Path) -> Path:
    for name, text in spec["files"].items():
        (workdir / name).write_text(text)
    (workdir / "ref.cpp").write_text(spec["reference"])
    exe = workdir / "ref"
    use_precompiled(workdir, [*compiler, *spec["cflags"]])
    done = subprocess.run(
        [*compiler, *spec["cflags"], "ref.cpp", "-o", str(exe)],
        cwd=workdir,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return exe


def same(a: str, b: str, tolerance: dict | None) -> bool:
    left, right = a.split(), b.split()
    if len(left) != len(right):
        return False
    for x, y in zip(left, right, strict=True):
        if x == y:
            continue
        if tolerance is None or not (NUMBER.match(x) and NUMBER.match(y)):
            return False
        if abs(float(x) - float(y)) > tolerance["atol"] + tolerance["rtol"] * abs(float(y)):
            return False
    return True


@pytest.mark.parametrize("name", [t.name for t in load_suite("pareval").tasks])
def test_reference_runs_every_test_and_the_timing_input(name: str, tmp_path: Path) -> None:
    task = suite().task(name)
    spec = task.spec_for(Target.SERIAL)
    exe = build(spec, ["g++"], tmp_path)
    outputs = {}
    for case in [*spec["tests"], spec["timing"]]:
        done = subprocess.run(
            [str(exe), *case["args"]], capture_output=True, text=True, timeout=spec["timeout_s"]
        )
        assert done.returncode == 0, f"{case['name']}: {done.stderr[-2000:]}"
        assert done.stdout.strip(), case["name"]
        assert len(done.stdout) < 512 * 1024, f"{case['name']} prints {len(done.stdout)} bytes"
        assert TIME_LINE.search(done.stderr), f"{case['name']} reports no kernel time"
        outputs[case["name"]] = done.stdout
    # Seeded: the same arguments give the same answer.
    first = spec["tests"][-1]
    again = subprocess.run([str(exe), *first["args"]], capture_output=True, text=True, timeout=60)
    assert again.stdout == outputs[first["name"]]
    if task.applies_to(Target.MPI) and shutil.which("mpicxx"):
        mpi = task.spec_for(Target.MPI)
        mpi_dir = tmp_path / "mpi"
        mpi_dir.mkdir()
        mpi_exe = build(mpi, ["mpicxx"], mpi_dir)
        case = mpi["tests"][-1]
        done = subprocess.run(
            [
                "mpirun",
                "--allow-run-as-root",
                "--oversubscribe",
                "-np",
                "1",
                str(mpi_exe),
                *case["args"],
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert same(done.stdout, outputs[case["name"]], mpi["tolerance"])
