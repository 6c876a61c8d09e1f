"""Shared fixtures. Fakes for fast unit tests live here (and only here); integration tests use
the real Docker engine, vLLM server and databases that `scripts/test` starts."""
