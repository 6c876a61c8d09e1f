"""Read vLLM's Prometheus `/metrics`: prefix-cache hits, running requests, token counters."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families
from pydantic import BaseModel

from parforge.model_server.errors import ModelServerError


class ServerMetrics(BaseModel):
    """A snapshot of the counters ParForge watches (summed over engines and models)."""

    prefix_cache_queries: float = 0.0
    """Prompt tokens looked up in the prefix cache."""
    prefix_cache_hits: float = 0.0
    """Prompt tokens found there."""
    prompt_tokens: float = 0.0
    generation_tokens: float = 0.0
    requests_running: float = 0.0
    requests_waiting: float = 0.0
    finished: dict[str, float] = {}
    """Finished requests by reason (`stop`, `length`, `error`, ...)."""

    def hit_rate_since(self, before: ServerMetrics) -> float | None:
        """Prefix-cache hit rate over the tokens queried between two snapshots."""
        queries = self.prefix_cache_queries - before.prefix_cache_queries
        return (self.prefix_cache_hits - before.prefix_cache_hits) / queries if queries else None


_COUNTERS = {
    "vllm:prefix_cache_queries": "prefix_cache_queries",
    "vllm:prefix_cache_hits": "prefix_cache_hits",
    "vllm:prompt_tokens": "prompt_tokens",
    "vllm:generation_tokens": "generation_tokens",
    "vllm:num_requests_running": "requests_running",
    "vllm:num_requests_waiting": "requests_waiting",
}


def parse_metrics(text: str) -> ServerMetrics:
    """Pure: Prometheus exposition text -> `ServerMetrics`."""
    values: dict[str, float] = dict.fromkeys(_COUNTERS.values(), 0.0)
    finished: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            name = sample.name.removesuffix("_total")
            if name in _COUNTERS and not sample.name.endswith("_created"):
                values[_COUNTERS[name]] += sample.value
            elif name == "vllm:request_success" and not sample.name.endswith("_created"):
                reason = sample.labels.get("finished_reason", "")
                finished[reason] = finished.get(reason, 0.0) + sample.value
    return ServerMetrics(**values, finished=finished)


async def read_metrics(base_url: str, timeout_s: float = 10.0) -> ServerMetrics:
    """Fetch and parse `/metrics` of the server whose OpenAI URL is `base_url` (`.../v1`)."""
    url = base_url.rstrip("/").removesuffix("/v1") + "/metrics"
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as http:
            response = await http.get(url)
            response.raise_for_status()
    except httpx.HTTPError as exc:
        raise ModelServerError(f"cannot read {url}: {exc!r}") from exc
    return parse_metrics(response.text)
