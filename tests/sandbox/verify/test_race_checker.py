"""The OpenMP race checker on the labelled programs (tests/sandbox/programs/manifest.json)."""

from __future__ import annotations

import asyncio
import json

import pytest

from sandbox.checkers.omp_static import check_source
from sandbox.config import RaceCheckConfig
from sandbox.spec import TestCase
from sandbox.verify.race import check_program
from tests.fakes.paths import SANDBOX_PROGRAMS

MANIFEST = json.loads((SANDBOX_PROGRAMS / "manifest.json").read_text())["programs"]


def test_manifest_is_balanced_and_complete():
    racy = [p for p in MANIFEST if p["racy"]]
    assert len(MANIFEST) >= 40 and len(racy) >= 20 and len(MANIFEST) - len(racy) >= 20
    assert all((SANDBOX_PROGRAMS / p["file"]).exists() and p["reason"] for p in MANIFEST)
    kinds = {p["kind"] for p in MANIFEST}
    assert all(any(p["kind"] == k and not p["racy"] for p in MANIFEST) for k in kinds)


def test_the_static_pass_never_accuses_a_race_free_program():
    accused = [
        (p["file"], [f.message for f in check_source((SANDBOX_PROGRAMS / p["file"]).read_text())])
        for p in MANIFEST
        if not p["racy"]
    ]
    assert [(name, said) for name, said in accused if said] == []


@pytest.mark.slow
async def test_full_checker_agrees_with_every_label(verify_sandbox):
    async def one(entry: dict) -> tuple[str, bool, bool | None]:
        source = (SANDBOX_PROGRAMS / entry["file"]).read_text()
        case = TestCase(name="run", args=entry.get("args", []))
        result = await check_program(verify_sandbox, source, entry["file"], case=case)
        return entry["file"], entry["racy"], result.race

    results = await asyncio.gather(*(one(e) for e in MANIFEST))
    wrong = [(name, racy, said) for name, racy, said in results if said is not racy]
    assert wrong == [], wrong


async def test_single_run_misses_what_thread_counts_and_schedules_find(verify_sandbox):
    source = (SANDBOX_PROGRAMS / "pairs_racy.c").read_text()
    single = await check_program(
        verify_sandbox, source, "pairs_racy.c", config=RaceCheckConfig.single_run(2)
    )
    assert single.race is False and single.runs == 1
    full = await check_program(verify_sandbox, source, "pairs_racy.c")
    assert full.race is True
    [finding] = full.findings
    assert (finding.kind, finding.file, finding.line, finding.variable) == (
        "data race",
        "pairs_racy.c",
        11,
        "a",
    )
    assert finding.workers in (3, 8) or "OMP_SCHEDULE" in finding.message


async def test_findings_name_kind_line_and_variable(verify_sandbox):
    source = (SANDBOX_PROGRAMS / "reduction_racy.c").read_text()
    result = await check_program(verify_sandbox, source, "reduction_racy.c")
    assert result.race is True and result.tools == ["archer-tsan", "static"]
    assert [(f.kind, f.line, f.variable, f.workers) for f in result.findings] == [
        ("data race", 12, "sum", 2)
    ]


async def test_simd_only_program_is_judged_by_the_static_pass(verify_sandbox):
    source = (SANDBOX_PROGRAMS / "simd_carried_racy.c").read_text()
    result = await check_program(verify_sandbox, source, "simd_carried_racy.c")
    assert result.race is True and result.runs == 0 and result.tools == ["static"]
    [finding] = result.findings
    assert (finding.kind, finding.line, finding.variable) == ("simd dependence", 11, "a")
    clean = await check_program(
        verify_sandbox, (SANDBOX_PROGRAMS / "simd_ok.c").read_text(), "simd_ok.c"
    )
    assert clean.race is False  # no thread ever started, nothing to race


async def test_program_arguments_reach_the_runs(verify_sandbox):
    source = (
        "#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char **argv) {\n"
        "  int n = atoi(argv[1]), s = 0;\n  #pragma omp parallel for\n"
        '  for (int i = 0; i < n; i++) s += i;\n  printf("%d\\n", s);\n}\n'
    )
    none = await check_program(
        verify_sandbox, source, "arg.c", case=TestCase(name="run", args=["0"])
    )
    assert none.race is False
    some = await check_program(
        verify_sandbox, source, "arg.c", case=TestCase(name="run", args=["100"])
    )
    assert some.race is True


async def test_a_program_clang_cannot_build_is_not_checked(verify_sandbox):
    result = await check_program(verify_sandbox, "int main(void) { return x; }\n", "broken.c")
    assert result.race is None
    assert result.not_run is not None and "broken.c:1" in result.not_run


NAMED_KINDS = [
    ("reduction_racy.c", "reduction_ok.c"),
    ("private_racy.c", "private_ok.c"),
    ("nowait_racy.c", "nowait_ok.c"),
    ("task_nodep_racy.c", "task_dep_ok.c"),
    ("lastprivate_racy.c", "lastprivate_ok.c"),
]


@pytest.mark.parametrize(("racy", "clean"), NAMED_KINDS)
async def test_each_named_kind_is_found_and_its_fixed_twin_is_clean(verify_sandbox, racy, clean):
    found = await check_program(verify_sandbox, (SANDBOX_PROGRAMS / racy).read_text(), racy)
    assert found.race is True and found.findings[0].line is not None
    fixed = await check_program(verify_sandbox, (SANDBOX_PROGRAMS / clean).read_text(), clean)
    assert fixed.race is False and fixed.findings == []


async def test_teams_regions_are_checked_as_one_team_of_threads(verify_sandbox):
    """Archer 14 crashes in libomp's host teams; the checker's copy runs each team as a thread,
    so a race between teams shows in a run (the static pass off, to see the runs alone)."""
    dynamic = RaceCheckConfig(static=False)
    racy = (SANDBOX_PROGRAMS / "teams_distribute_racy.c").read_text()
    found = await check_program(verify_sandbox, racy, "teams_distribute_racy.c", config=dynamic)
    assert found.race is True and {f.tool for f in found.findings} == {"archer-tsan"}
    assert {f.line for f in found.findings} & {15, 18}
    clean = (SANDBOX_PROGRAMS / "teams_critical_ok.c").read_text()
    fine = await check_program(verify_sandbox, clean, "teams_critical_ok.c", config=dynamic)
    assert fine.race is False and fine.runs > 1


async def test_a_crash_inside_archer_is_not_run_never_a_race(verify_sandbox):
    """An undeferred task with dependences crashes Archer 14 in libomp's dependence wait: the
    run checked nothing, so without the static pass the program is not judged."""
    source = (SANDBOX_PROGRAMS / "task_depwait_racy.c").read_text()
    result = await check_program(
        verify_sandbox, source, "task_depwait_racy.c", config=RaceCheckConfig(static=False)
    )
    assert result.race is None and "Archer crashed" in (result.not_run or "")
    judged = await check_program(verify_sandbox, source, "task_depwait_racy.c")
    assert judged.race is True and judged.findings[0].tool == "static"
