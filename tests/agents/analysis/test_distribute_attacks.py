"""Programs a review wrote to break `distribute` (each once did): the MPI program must print
what the sequential one prints at 1, 2 and 3 ranks, or the tool must refuse the program.

- a signed counter against an unsigned bound (C's conversions decide whether the loop runs);
- a loop in a constructor that a divided loop runs without a call the source shows;
- a `std::deque`, whose elements are not one block of memory;
- `scanf` then `std::cin` on one input, `getchar_unlocked`, `read(0, ...)`;
- "read" in a comment (no input to share), an include inside `#ifdef`, lowercase macros named
  like the helpers' variables, a program's own `read()`;
- stderr written once, not once per rank;
- a bound that reads what the body writes (`i < strlen(s)`: the analysis's own bug)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agents.analysis import AnnotationError, analyse
from agents.analysis.distribute import distributable, distribute
from sandbox.spec import Language
from tests.agents.analysis.test_distribute import MPI_ENV

ATTACKS = Path(__file__).parent / "programs" / "mpi_attacks"
NUMBERS = "1001\n" + " ".join(str((i * 37 + 11) % 23) for i in range(1001)) + "\n"

CASES = {
    # file: (arguments, standard input, what must happen)
    "signed_counter.c": (["100"], "", "same"),
    "constructor_loop.cpp": (["100"], "", "same"),
    "deque_writes.cpp": (["1001"], "", "refused"),
    "scanf_and_cin.cpp": ([], NUMBERS, "same"),
    "getchar_unlocked.c": ([], NUMBERS, "same"),
    "read_descriptor.c": ([], NUMBERS, "refused"),
    "read_in_comment.c": (["100"], "", "same"),
    "include_in_ifdef.c": (["100"], "", "same"),
    "macros.c": (["1001"], "", "same"),
    "own_read.c": ([], NUMBERS, "refused"),
    "stderr_once.c": (["1001"], "", "same"),
    "strlen_bound.c": (["100"], "", "same"),
}


def _rewrite(source: str, language: Language) -> str | None:
    program = analyse(source, language)
    loops = [loop.id for loop in distributable(source, program)]
    if not loops:
        return None
    try:
        return distribute(source, program, loops)
    except AnnotationError:
        return None


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mpicc") is None, reason="needs Open MPI's compilers")
@pytest.mark.parametrize("name", sorted(CASES))
def test_an_attack_is_refused_or_prints_what_the_sequential_program_prints(
    name: str, tmp_path: Path
) -> None:
    args, stdin, expected = CASES[name]
    cpp = name.endswith(".cpp")
    language = Language.CPP if cpp else Language.C
    source = (ATTACKS / name).read_text()
    rewritten = _rewrite(source, language)
    if expected == "refused":
        assert rewritten is None
        return
    assert rewritten is not None, "the tool offers nothing here, so the attack is not exercised"
    suffix = ".cpp" if cpp else ".c"
    (tmp_path / f"seq{suffix}").write_text(source)
    (tmp_path / f"par{suffix}").write_text(rewritten)
    cc, mpicc = ("g++", "mpicxx") if cpp else ("gcc", "mpicc")
    for compiler, stem in ((cc, "seq"), (mpicc, "par")):
        subprocess.run(
            [compiler, "-O2", "-o", str(tmp_path / stem), str(tmp_path / f"{stem}{suffix}")],
            check=True,
            capture_output=True,
            timeout=120,
        )
    want = subprocess.run(
        [str(tmp_path / "seq"), *args], input=stdin, capture_output=True, text=True, timeout=60
    )
    for ranks in (1, 2, 3):
        got = subprocess.run(
            ["mpirun", "-np", str(ranks), "--oversubscribe", str(tmp_path / "par"), *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            env=MPI_ENV,
        )
        assert got.returncode == want.returncode, got.stderr[-2000:]
        assert got.stdout == want.stdout, (ranks, got.stdout, want.stdout)
        assert got.stderr.count("done") == want.stderr.count("done"), got.stderr
