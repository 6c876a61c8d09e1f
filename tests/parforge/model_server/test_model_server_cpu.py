"""The embedded server's settings chosen from the CPU: parsing, the choices, explicit wins."""

from __future__ import annotations

from pathlib import Path

import pytest

from parforge.model_server import ModelServer, ModelServerConfig
from parforge.model_server.cpu import (
    CpuInfo,
    id_list,
    parse_cpuinfo,
    tune_for_cpu,
    with_cpu_defaults,
)
from parforge.model_server.launcher import build_command, build_environment

AVX2 = "fpu sse sse2 avx avx2 fma f16c"
SAPPHIRE_RAPIDS = AVX2 + " avx512f avx512bw avx512_vnni avx512_bf16 amx_bf16 amx_tile"


def cpuinfo(cores: list[tuple[int, int]], flags: str) -> str:
    """/proc/cpuinfo text: one block per (processor, core id), all on socket 0."""
    return "\n\n".join(
        f"processor\t: {cpu}\nvendor_id\t: X\nphysical id\t: 0\ncore id\t\t: {core}\n"
        f"flags\t\t: {flags}"
        for cpu, core in cores
    )


def test_parse_two_core_avx2_machine() -> None:
    cpu = parse_cpuinfo(cpuinfo([(0, 0), (1, 1)], AVX2), allowed=[0, 1])
    assert cpu.cores == (0, 1)
    assert "avx2" in cpu.flags and "avx512_bf16" not in cpu.flags


def test_parse_keeps_one_sibling_per_core_within_the_affinity() -> None:
    # 4 cores with SMT: CPUs 0-3 are cores 0-3, CPUs 4-7 their siblings; the process may use
    # CPUs 2-7 only (a container's cpuset).
    text = cpuinfo([(i, i % 4) for i in range(8)], SAPPHIRE_RAPIDS)
    cpu = parse_cpuinfo(text, allowed=range(2, 8))
    assert cpu.cores == (2, 3, 4, 5)


def test_parse_without_core_ids_counts_every_cpu() -> None:
    text = "processor\t: 0\nFeatures\t: fp asimd\n\nprocessor\t: 1\nFeatures\t: fp asimd\n"
    cpu = parse_cpuinfo(text, allowed=[0, 1])
    assert cpu.cores == (0, 1) and "asimd" in cpu.flags
    assert parse_cpuinfo("", allowed=[3, 1]).cores == (1, 3)


def test_id_list() -> None:
    assert id_list([1, 0]) == "0-1"
    assert id_list([0, 2, 3, 4, 7]) == "0,2-4,7"
    assert id_list([5]) == "5"


def test_small_avx2_machine_gets_float32_eager_with_vllm_binding() -> None:
    tuning = tune_for_cpu(CpuInfo(flags=frozenset(AVX2.split()), cores=(0, 1)))
    assert tuning.dtype == "float32"
    assert tuning.threads_bind == "auto"
    assert tuning.enforce_eager
    assert tuning.max_num_seqs == 16


@pytest.mark.parametrize("flag", ["avx512_bf16", "amx_bf16"])
def test_native_bf16_gets_bfloat16(flag: str) -> None:
    tuning = tune_for_cpu(CpuInfo(flags=frozenset({"avx2", flag}), cores=(0, 1)))
    assert tuning.dtype == "bfloat16"


def test_avx512_without_bf16_stays_float32() -> None:
    flags = frozenset({"avx2", "avx512f", "avx512bw", "avx512_vnni"})
    assert tune_for_cpu(CpuInfo(flags=flags, cores=(0, 1, 2, 3))).dtype == "float32"


def test_large_machine_keeps_vllm_binding_and_compiles() -> None:
    tuning = tune_for_cpu(CpuInfo(flags=frozenset(SAPPHIRE_RAPIDS.split()), cores=tuple(range(32))))
    assert tuning.threads_bind == "auto"
    assert not tuning.enforce_eager
    assert tuning.max_num_seqs == 128


def test_binding_and_compilation_thresholds() -> None:
    def tuned(n: int) -> tuple[str, bool]:
        t = tune_for_cpu(CpuInfo(flags=frozenset(), cores=tuple(range(n))))
        return t.threads_bind, t.enforce_eager

    assert tuned(1) == ("0", True)
    assert tuned(2) == ("auto", True)
    assert tuned(7) == ("auto", True)
    assert tuned(8) == ("auto", False)


def test_explicit_settings_win_over_the_cpu() -> None:
    cpu = CpuInfo(flags=frozenset(AVX2.split()), cores=(0, 1))
    chosen = with_cpu_defaults(ModelServerConfig(), cpu)
    assert (chosen.dtype, chosen.cpu_threads_bind, chosen.enforce_eager) == (
        "float32",
        "auto",
        True,
    )
    assert (chosen.max_num_seqs, chosen.max_num_batched_tokens) == (16, None)
    explicit = ModelServerConfig(
        dtype="bfloat16",
        cpu_threads_bind="0-1",
        enforce_eager=False,
        max_num_seqs=4,
        max_num_batched_tokens=4096,
    )
    assert with_cpu_defaults(explicit, cpu) == explicit


def test_settings_from_the_environment_win(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from parforge.settings import load_settings

    monkeypatch.setenv("PARFORGE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PARFORGE_MODEL__SERVER__DTYPE", "bfloat16")
    monkeypatch.setenv("PARFORGE_MODEL__SERVER__ENFORCE_EAGER", "false")
    server = load_settings().model.server
    chosen = with_cpu_defaults(server, CpuInfo(flags=frozenset({"avx2"}), cores=(0, 1)))
    assert chosen.dtype == "bfloat16" and chosen.enforce_eager is False
    assert chosen.cpu_threads_bind == "auto"


def test_chosen_settings_reach_the_command_and_environment() -> None:
    config = with_cpu_defaults(
        ModelServerConfig(), CpuInfo(flags=frozenset({"avx2"}), cores=(0, 1))
    )
    argv = build_command(config, Path("/env/bin/python"), "/models/smol")
    assert argv[argv.index("--dtype") + 1] == "float32"
    assert argv[argv.index("--max-num-seqs") + 1] == "16"
    assert "--max-num-batched-tokens" not in argv
    tokens = build_command(
        config.model_copy(update={"max_num_batched_tokens": 1024}), Path("/p"), "/m"
    )
    assert tokens[tokens.index("--max-num-batched-tokens") + 1] == "1024"
    assert "--enforce-eager" in argv
    env = build_environment(config, Path("/c"))
    assert env["VLLM_CPU_OMP_THREADS_BIND"] == "auto"


async def test_the_launcher_tunes_only_the_cpu_server(tmp_path: Path) -> None:
    cpu_config = await ModelServer(ModelServerConfig(), tmp_path).effective_config()
    assert cpu_config.dtype in ("float32", "bfloat16") and cpu_config.cpu_threads_bind
    gpu = ModelServerConfig(model="m", python=Path("/opt/vllm/bin/python"))
    assert await ModelServer(gpu, tmp_path).effective_config() == gpu
    argv = build_command(gpu, Path("/opt/vllm/bin/python"), "m")
    # Unset on a GPU host: vLLM's own defaults (its dtype from the model, CUDA graphs).
    assert "--dtype" not in argv and "--enforce-eager" not in argv
    assert "--max-num-seqs" not in argv
