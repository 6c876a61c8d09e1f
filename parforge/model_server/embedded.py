"""The embedded default model: SmolLM2-135M-Instruct, converted once from the GGUF in a wheel."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from parforge.model_server.config import EMBEDDED_GGUF_FILE, EMBEDDED_GGUF_MODULE
from parforge.model_server.errors import ModelConversionError
from parforge.model_server.process import run_logged

CONVERT_SCRIPT = Path(__file__).with_name("convert_gguf.py")
_DONE = "parforge-converted.json"


def is_converted(target: Path) -> bool:
    return (target / _DONE).exists()


def ensure_embedded_model(python: Path, target: Path, dtype: str, log: Path) -> Path:
    """Convert the GGUF into `target` unless already done; return `target`. Blocking."""
    if is_converted(target):
        return target
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    argv: list[str | Path] = [
        python,
        CONVERT_SCRIPT,
        "--module",
        EMBEDDED_GGUF_MODULE,
        "--file",
        EMBEDDED_GGUF_FILE,
        "--out",
        partial,
        "--dtype",
        dtype,
    ]
    run_logged(argv, log, ModelConversionError, f"converting {EMBEDDED_GGUF_FILE}")
    (partial / _DONE).write_text(json.dumps({"source": EMBEDDED_GGUF_FILE, "dtype": dtype}))
    # Written aside and renamed, so an interrupted conversion never looks finished.
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    return target
