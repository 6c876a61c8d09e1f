"""Where things are: the repository root and the folders of test programs (also read by the
benchmarks, so they stay where they are)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository root."""

SANDBOX_PROGRAMS = ROOT / "tests" / "sandbox" / "programs"
"""The labelled OpenMP programs (manifest.json says which are racy) shared with the benchmark."""

GRAPH_PROGRAMS = ROOT / "tests" / "agents" / "graphs" / "programs"
"""Sequential C programs the agent graphs translate."""

RUNNER_PROGRAMS = ROOT / "tests" / "agents" / "runners" / "programs"
"""The sequential and OpenMP primes programs of the prompt-mode tests."""
