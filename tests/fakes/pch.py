"""The ParEval drivers' shared header (`pf.hpp`) precompiled for the host's compilers, so that the
tests that build every task's driver on the host parse the standard library once, not once per
task (about 1.5 of a build's 2.3 seconds).

GCC uses `pf.hpp.gch` beside `pf.hpp` only where it was made by the same compiler with the same
flags from the same text, and reads the header itself otherwise: a build gives the same program
either way, only faster. The verifier's own builds in the sandbox never see these files."""

from __future__ import annotations

import atexit
import functools
import shutil
import subprocess
import tempfile
from pathlib import Path

HEADER = "pf.hpp"


@functools.cache
def _precompiled(command: tuple[str, ...], text: str) -> Path | None:
    where = Path(tempfile.mkdtemp(prefix="pf-pch-"))
    atexit.register(shutil.rmtree, where, True)
    (where / HEADER).write_text(text)
    done = subprocess.run(
        [*command, "-x", "c++-header", HEADER, "-o", f"{HEADER}.gch"],
        cwd=where,
        capture_output=True,
        timeout=300,
    )
    return where / f"{HEADER}.gch" if done.returncode == 0 else None


def use_precompiled(folder: Path, command: list[str]) -> None:
    """Puts `pf.hpp` precompiled by `command` (the compiler and the flags the build will use)
    beside the `pf.hpp` in `folder` (a link), if it has one and it builds; otherwise nothing."""
    header = folder / HEADER
    if not header.exists():
        return
    gch = _precompiled(tuple(command), header.read_text())  # made from this very text
    if gch is not None:
        (folder / f"{HEADER}.gch").symlink_to(gch)
