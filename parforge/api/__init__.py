"""The HTTP API: `create_app(settings)` builds it; `parforge serve` runs it under uvicorn."""

from parforge.api.app import create_app

__all__ = ["create_app"]
