"""Errors raised by the model-server launcher.

ModelServerError              root of everything the launcher raises
├── EnvironmentSetupError     creating the server's Python environment failed
├── ModelConversionError      turning the embedded GGUF into a safetensors model failed
├── ServerStartError          the server died, or was not healthy in time, while starting
└── ServerConflict            the port is taken, or another model is already being served
"""

from __future__ import annotations


class ModelServerError(Exception):
    """Root of every error the launcher raises."""


class EnvironmentSetupError(ModelServerError):
    """The vLLM environment could not be created."""


class ModelConversionError(ModelServerError):
    """The embedded model could not be converted."""


class ServerStartError(ModelServerError):
    """The server did not become healthy; the message carries the tail of its log."""


class ServerConflict(ModelServerError):
    """Something else already uses the port, or a different model is being served."""
