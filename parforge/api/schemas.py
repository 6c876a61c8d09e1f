"""Shapes several routers answer with: one page of any list, and the outcome of a cancel."""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel

from corpus.store.models import JobStatus

Item = TypeVar("Item")


class Page(BaseModel, Generic[Item]):
    """A page of a list: every list the API answers has this one shape (`?limit=&offset=`)."""

    items: list[Item]
    total: int
    """How many there are in all."""
    limit: int
    offset: int


class CancelResult(BaseModel):
    id: str
    status: JobStatus
    detail: str
    """`cancelled` (it was queued) or `cancellation requested` (its worker stops it)."""
