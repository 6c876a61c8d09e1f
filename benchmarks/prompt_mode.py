"""Prompt mode's sampling choice, measured: K samples in one request (`n=K`) vs K requests.

Against the served model (the embedded server by default), with the real prompt the runner
sends for examples/heat2d, every sample forced to the same length (`ignore_eos`), the two ways
alternate for a few rounds and the medians are compared side by side:

    .venv/bin/python benchmarks/prompt_mode.py [--k 4] [--tokens 128] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from agents.llm import ChatRequest, LLMClient, Sampling
from agents.prompts.program import build_messages
from parforge.settings import load_settings
from sandbox.spec import Language, Target, TestCase

ROOT = Path(__file__).resolve().parent.parent


async def _one_request(llm: LLMClient, request: ChatRequest, k: int) -> float:
    t0 = time.perf_counter()
    sampling = request.sampling.model_copy(update={"n": k})
    gen = await llm.generate(request.model_copy(update={"sampling": sampling}))
    assert len(gen.choices) == k
    return time.perf_counter() - t0


async def _k_requests(llm: LLMClient, request: ChatRequest, k: int) -> float:
    t0 = time.perf_counter()
    await asyncio.gather(*(llm.generate(request) for _ in range(k)))
    return time.perf_counter() - t0


async def main(k: int, tokens: int, rounds: int) -> None:
    settings = load_settings()
    source = (ROOT / "examples/heat2d/heat2d.c").read_text()
    tests = [
        TestCase(name="small", args=["32", "10"]),
        TestCase(name="large", args=["1000", "100"]),
    ]
    messages = build_messages(source, Language.C, Target.OPENMP, tests)
    request = ChatRequest(
        messages=messages,
        sampling=Sampling(max_tokens=tokens, temperature=0.7, top_p=0.95, ignore_eos=True),
    )
    times: dict[str, list[float]] = {"n=K, one request": [], "K requests": []}
    async with LLMClient(settings.model.client_config()) as llm:
        await _k_requests(llm, request, 1)  # warm the prefix cache and the server
        for _ in range(rounds):
            times["n=K, one request"].append(await _one_request(llm, request, k))
            times["K requests"].append(await _k_requests(llm, request, k))
    print(f"K={k} samples of {tokens} tokens, {rounds} rounds, model {llm.config.model}")
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, median in medians.items():
        rate = k * tokens / median
        print(f"  {name:18} median {median:6.2f} s  ({rate:5.1f} tokens/s)")
    ratio = medians["K requests"] / medians["n=K, one request"]
    print(f"  K requests / one request: {ratio:.2f}x the time")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.k, args.tokens, args.rounds))
