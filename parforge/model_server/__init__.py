"""The model-server launcher: vLLM's OpenAI-compatible server, embedded on CPU or on GPU hosts.

`ModelServer(config, data_dir)` prepares (environment, embedded-model conversion), starts,
watches and stops one server; `parforge model ...` is its command line.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from parforge.model_server.config import ModelConfig, ModelServerConfig
from parforge.model_server.errors import (
    EnvironmentSetupError,
    ModelConversionError,
    ModelServerError,
    ServerConflict,
    ServerStartError,
)

if TYPE_CHECKING:
    from parforge.model_server.launcher import ModelServer, ServerStatus
    from parforge.model_server.metrics import ServerMetrics, read_metrics

# The launcher and the metrics reader (httpx, prometheus_client) are imported on first use:
# the settings import `parforge.model_server.config`, which runs this file, on every command.
_EXPORTS = {
    "ModelServer": "parforge.model_server.launcher",
    "ServerStatus": "parforge.model_server.launcher",
    "ServerMetrics": "parforge.model_server.metrics",
    "read_metrics": "parforge.model_server.metrics",
}


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EnvironmentSetupError",
    "ModelConfig",
    "ModelConversionError",
    "ModelServer",
    "ModelServerConfig",
    "ModelServerError",
    "ServerConflict",
    "ServerMetrics",
    "ServerStartError",
    "ServerStatus",
    "read_metrics",
]
