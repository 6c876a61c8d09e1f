"""The model-server launcher: vLLM's OpenAI-compatible server, embedded on CPU or on GPU hosts.

`ModelServer(config, data_dir)` prepares (environment, embedded-model conversion), starts,
watches and stops one server; `parforge model ...` is its command line.
"""

from parforge.model_server.config import ModelSettings, ServerConfig
from parforge.model_server.errors import (
    EnvironmentSetupError,
    ModelConversionError,
    ModelServerError,
    ServerConflict,
    ServerStartError,
)
from parforge.model_server.launcher import ModelServer, ServerStatus
from parforge.model_server.metrics import ServerMetrics, read_metrics

__all__ = [
    "EnvironmentSetupError",
    "ModelConversionError",
    "ModelServer",
    "ModelServerError",
    "ModelSettings",
    "ServerConfig",
    "ServerConflict",
    "ServerMetrics",
    "ServerStartError",
    "ServerStatus",
    "read_metrics",
]
