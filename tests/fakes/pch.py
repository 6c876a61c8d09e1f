"""Headers precompiled once per process for the host's compilers: the ParEval drivers' shared
`pf.hpp`, so that the tests that build every task's driver on the host parse the standard library
once, not once per task (about 1.5 of a build's 2.3 seconds), and the kernel checks' launch model.

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
def header_folder(name: str, text: str, command: tuple[str, ...]) -> Path:
    """A folder of its own, kept for the process, holding the header `name` with `text` and,
    where `command` (the compiler and the flags the builds will use) can make one, its
    precompiled form `name.gch` beside it."""
    where = Path(tempfile.mkdtemp(prefix="pf-pch-"))
    atexit.register(shutil.rmtree, where, True)
    (where / name).write_text(text)
    subprocess.run(
        [*command, "-x", "c++-header", name, "-o", f"{name}.gch"],
        cwd=where,
        capture_output=True,
        timeout=300,
    )
    return where


def use_precompiled(folder: Path, command: list[str]) -> None:
    """Puts `pf.hpp` precompiled by `command` (the compiler and the flags the build will use)
    beside the `pf.hpp` in `folder` (a link), if it has one and it builds; otherwise nothing."""
    header = folder / HEADER
    if not header.exists():
        return
    gch = header_folder(HEADER, header.read_text(), tuple(command)) / f"{HEADER}.gch"
    if gch.exists():  # made from this very text
        (folder / f"{HEADER}.gch").symlink_to(gch)
