"""/v1/exports/{format}: fine-tuning data from the caller's tasks, streamed as JSON lines."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from corpus.export import ExportFilter, ExportFormat, export_lines
from parforge.api.deps import OwnerDep, ServicesDep
from parforge.api.problems import error_responses

router = APIRouter(prefix="/v1/exports", tags=["exports"])


@router.get(
    "/{fmt}",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"application/x-ndjson": {}}, "description": "JSON lines"},
        **error_responses(401, 422, 500),
    },
)
def export(
    fmt: ExportFormat,
    filters: Annotated[ExportFilter, Query()],
    owner: OwnerDep,
    services: ServicesDep,
) -> StreamingResponse:
    """Stream an export (`openai`, `sft` or `dpo`) of the caller's trajectories.

    Only samples whose candidate passed verification unless `verified_only=false`; an agent's
    candidates come as tool-call conversations. Lines are produced as the database cursor
    advances, so any store size exports in constant memory; split `train` / `validation` by a
    hash of the task id.
    """
    lines = export_lines(services.engine, fmt, filters, owner)
    return StreamingResponse(
        lines,
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="parforge-{fmt.value}.jsonl"'},
    )
