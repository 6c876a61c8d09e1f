"""Settings of the embedded CPU server chosen from the CPU it runs on.

`read_cpu()` is the only I/O here (procfs and the process's CPU affinity); `tune_for_cpu()`
turns what it found into vLLM settings and `with_cpu_defaults()` fills every setting of a
`ModelServerConfig` the user left unset (None), so an explicit setting always wins.

What the choices rest on (`benchmarks/llm_server_sweep.py`, README "Performance"): vLLM's CPU
kernels compute bfloat16 natively only with AVX512-BF16 or AMX; elsewhere every bf16 matmul
converts through float32, and float32 itself is faster. vLLM's `auto` binding keeps one core for
its API server and scheduler: on a busy 2-core machine that is steadier and faster than an
OpenMP team on both cores, whose barriers wait for whichever core another process holds.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from parforge.model_server.config import ModelServerConfig

BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})
"""/proc/cpuinfo flags of CPUs with native bfloat16 arithmetic that vLLM's CPU kernels use."""
ALL_CORES_BELOW = 2
"""Only a single-core machine binds the engine to its one core; from 2 cores vLLM's `auto`
keeps one core for the API server and scheduler. Measured on 2 cores shared with other jobs
(load 8-17): the engine on both cores ran at 2-26 tok/s at 8 threads as the others came and
went (its OpenMP team waits for whichever core was taken), on one core steadily at 28-31."""
COMPILE_FROM = 8
"""Cores from which the server is compiled: torch.compile's start-up cost (minutes on 2 cores)
shrinks with the cores that compile in parallel, and long-lived servers repay it."""


@dataclass(frozen=True)
class CpuInfo:
    """What the launcher knows about the CPU: its flags and the cores this process may use."""

    flags: frozenset[str]
    cores: tuple[int, ...]
    """One logical CPU id per usable physical core (the first sibling), ascending."""


class CpuTuning(BaseModel):
    """The embedded server's settings for one CPU."""

    dtype: str
    threads_bind: str
    """VLLM_CPU_OMP_THREADS_BIND: `auto`, or an explicit list such as `0-1`."""
    enforce_eager: bool
    max_num_seqs: int


def parse_cpuinfo(text: str, allowed: Iterable[int]) -> CpuInfo:
    """Flags and one CPU per physical core among `allowed`, from /proc/cpuinfo's text (pure).

    A CPU without `physical id`/`core id` lines (some VMs, non-x86) counts as its own core.
    """
    allowed_ids = set(allowed)
    flags: frozenset[str] = frozenset()
    first_of_core: dict[tuple[str, str], int] = {}
    for block in text.split("\n\n"):
        fields = dict(
            (key.strip(), value.strip())
            for key, sep, value in (line.partition(":") for line in block.splitlines())
            if sep
        )
        if "processor" not in fields or not fields["processor"].isdigit():
            continue
        cpu = int(fields["processor"])
        if cpu not in allowed_ids:
            continue
        if not flags:
            flags = frozenset((fields.get("flags") or fields.get("Features") or "").split())
        core = (fields.get("physical id", f"cpu{cpu}"), fields.get("core id", f"cpu{cpu}"))
        first_of_core[core] = min(cpu, first_of_core.get(core, cpu))
    cores = tuple(sorted(first_of_core.values())) or tuple(sorted(allowed_ids))
    return CpuInfo(flags=flags, cores=cores)


def read_cpu() -> CpuInfo:
    """The CPU this process runs on. Blocking (reads procfs)."""
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    allowed = allowed or list(range(os.cpu_count() or 1))
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    return parse_cpuinfo(text, allowed)


def id_list(ids: Iterable[int]) -> str:
    """CPU ids in the `0-3,6` form that VLLM_CPU_OMP_THREADS_BIND reads (pure)."""
    runs: list[list[int]] = []
    for cpu in sorted(set(ids)):
        if runs and cpu == runs[-1][1] + 1:
            runs[-1][1] = cpu
        else:
            runs.append([cpu, cpu])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def tune_for_cpu(cpu: CpuInfo) -> CpuTuning:
    """The embedded server's dtype, core binding, compilation and batch limits (pure)."""
    n = len(cpu.cores)
    return CpuTuning(
        dtype="bfloat16" if cpu.flags & BF16_FLAGS else "float32",
        threads_bind=id_list(cpu.cores) if n < ALL_CORES_BELOW else "auto",
        enforce_eager=n < COMPILE_FROM,
        # Agents fan out 4-8 threads and `n` samples; more cores decode wider batches at the
        # same step time.
        max_num_seqs=min(128, max(16, 8 * n)),
    )


def with_cpu_defaults(config: ModelServerConfig, cpu: CpuInfo) -> ModelServerConfig:
    """`config` with every unset (None) CPU-dependent setting chosen for `cpu` (pure)."""
    tuning = tune_for_cpu(cpu)
    chosen = {
        "dtype": tuning.dtype,
        "cpu_threads_bind": tuning.threads_bind,
        "enforce_eager": tuning.enforce_eager,
        "max_num_seqs": tuning.max_num_seqs,
    }
    return config.model_copy(
        update={name: value for name, value in chosen.items() if getattr(config, name) is None}
    )
