"""Reducers of the state fields the translate graph and its subgraphs both keep."""

from __future__ import annotations

from typing import Any


def latest_spending(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Fan-in of ledger snapshots: parallel repair branches each report the one shared ledger,
    and what is spent only grows, so the larger figure of each counter is the latest."""
    return {k: max(old.get(k, 0), new.get(k, 0)) for k in {*old, *new}}
