"""`parforge verify` and `parforge check race` end to end, on the example task."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from parforge.cli import app
from tests.fakes.paths import ROOT, SANDBOX_PROGRAMS

EXAMPLE = ROOT / "examples" / "heat2d"


@pytest.fixture
def cli(monkeypatch, tmp_path) -> CliRunner:
    # The sandbox comes from settings; the local backend needs nothing but the toolchains.
    monkeypatch.setenv("PARFORGE_SANDBOX__TYPE", "local")
    monkeypatch.setenv("PARFORGE_DATA_DIR", str(tmp_path / "data"))
    return CliRunner()


def test_verify_good_candidate_exits_0_with_a_json_verdict(cli):
    args = [
        "verify",
        "--spec",
        str(EXAMPLE / "heat2d.toml"),
        "--candidate",
        str(EXAMPLE / "heat2d_omp.c"),
    ]
    result = cli.invoke(app, [*args, "--target", "openmp", "--json", "--no-timing"])
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.stdout)
    assert verdict["status"] == "passed"
    assert verdict["concurrency"]["ok"] is True
    assert verdict["steps"][0]["command"]


def test_verify_racy_candidate_exits_1_and_shows_the_finding(cli):
    args = [
        "verify",
        "--spec",
        str(EXAMPLE / "heat2d.toml"),
        "--candidate",
        str(EXAMPLE / "heat2d_omp_racy.c"),
    ]
    result = cli.invoke(app, [*args, "--target", "openmp", "--no-timing"])
    assert result.exit_code == 1, result.output
    assert "RACE" in result.stdout
    assert "hottest" in result.stdout


def test_verify_with_a_bad_spec_exits_2(cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("reference = 'missing.c'\n")
    result = cli.invoke(
        app,
        [
            "verify",
            "--spec",
            str(bad),
            "--candidate",
            str(EXAMPLE / "heat2d_omp.c"),
            "--target",
            "openmp",
        ],
    )
    assert result.exit_code == 2
    assert "cannot read" in result.output


def test_check_race_json_and_exit_codes(cli, tmp_path):
    racy = cli.invoke(app, ["check", "race", str(SANDBOX_PROGRAMS / "histogram_racy.c"), "--json"])
    assert racy.exit_code == 0, racy.output
    report = json.loads(racy.stdout)
    assert report["race"] is True
    assert report["findings"][0]["variable"] == "hist"
    clean = cli.invoke(
        app,
        ["check", "race", str(SANDBOX_PROGRAMS / "histogram_ok.c"), "--threads", "2,3", "--json"],
    )
    assert clean.exit_code == 0
    assert json.loads(clean.stdout)["race"] is False
    broken = tmp_path / "broken.c"
    broken.write_text("int main(void) { return missing; }\n")
    failed = cli.invoke(app, ["check", "race", str(broken), "--json"])
    assert failed.exit_code == 2
    assert json.loads(failed.stdout)["race"] is None
