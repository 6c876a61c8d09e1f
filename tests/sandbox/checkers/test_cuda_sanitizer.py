"""compute-sanitizer output written from the documented format (no GPU on the CI host)."""

from sandbox.checkers.cuda_sanitizer import error_count, has_proof, parse_sanitizer
from tests.fakes.sanitizer import MEMCHECK, RACECHECK

MEMCHECK_OLD = """\
========= COMPUTE-SANITIZER
========= Invalid __shared__ read of size 4 bytes
=========     at 0x1a0 in /ws/cand/main.cu:14:tile(float *)
=========     by thread (3,0,0) in block (1,0,0)
=========
========= ERROR SUMMARY: 1 error
"""

SYNCCHECK = """\
========= COMPUTE-SANITIZER
========= Barrier error detected. Divergent thread(s) in warp
=========     at reduce(int *)+0x90 in main.cu:9
=========     by thread (0,0,0) in block (0,0,0)
=========
========= ERROR SUMMARY: 1 error
"""

CLEAN = "========= COMPUTE-SANITIZER\nok\n========= ERROR SUMMARY: 0 errors\n"


def test_memcheck_errors_with_places():
    found = parse_sanitizer("memcheck", MEMCHECK)
    assert [(f.kind, f.file, f.line) for f in found] == [
        ("memcheck error", "main.cu", 5),
        ("memcheck error", None, None),
    ]
    assert "by thread (256,0,0) in block (0,0,0)" in found[0].message
    assert error_count(MEMCHECK) == 2


def test_older_place_format_parses_too():
    [f] = parse_sanitizer("memcheck", MEMCHECK_OLD)
    assert (f.file, f.line) == ("main.cu", 14)


def test_racecheck_hazards_and_warnings():
    found = parse_sanitizer("racecheck", RACECHECK)
    assert [(f.kind, f.line) for f in found] == [
        ("racecheck hazard", 12),
        ("racecheck warning", 20),
    ]
    assert "and Read access at" in found[0].message
    assert error_count(RACECHECK) == 1


def test_synccheck_error():
    [f] = parse_sanitizer("synccheck", SYNCCHECK)
    assert (f.kind, f.line) == ("synccheck error", 9)


def test_clean_run_has_no_findings():
    assert parse_sanitizer("memcheck", CLEAN) == []
    assert error_count(CLEAN) == 0
    assert error_count("no summary") is None


def test_proof_is_the_banner_first_and_a_summary():
    assert all(has_proof(log) for log in (MEMCHECK, RACECHECK, SYNCCHECK, CLEAN))
    assert not has_proof("")
    assert not has_proof("========= COMPUTE-SANITIZER\n")  # cut short before the summary
    assert not has_proof("hello\n" + CLEAN)  # the banner is not the log's first line
