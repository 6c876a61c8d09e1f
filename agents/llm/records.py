"""The per-call record that the trajectory store persists, and the result agents read."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from agents.llm.protocol import Choice, JsonSchema, Message, Sampling, Usage

CallStatus = Literal["ok", "cancelled", "error"]


class CallRecord(BaseModel):
    """Everything about one model call: what was asked, what came back, and how fast.

    Written for every call, including ones that failed or were cancelled, so that a trajectory
    shows the whole story (a cancelled reasoning thread still cost tokens).
    """

    id: str
    kind: Literal["chat", "completion"]
    model: str
    """Model or LoRA adapter name the request named."""
    response_model: str | None = None
    """Model name the server reported back."""
    response_id: str | None = None
    messages: list[Message] | None = None
    prompt: str | None = None
    sampling: Sampling
    response_schema: JsonSchema | None = None
    choices: list[Choice] = Field(default_factory=list)
    usage: Usage | None = None
    started_at: datetime
    ttft_s: float | None = None
    """Seconds from sending the request to the first generated text."""
    latency_s: float = 0.0
    """Seconds from sending the request to the end of the call (or to its failure)."""
    attempts: int = 0
    response_format: str | None = None
    """How the response schema went out (`strict`, `loose`, `json_object`, `none`), when the
    request had one: lower than `strict` when the endpoint refused the tighter modes."""
    schema_refused: list[str] = Field(default_factory=list)
    """The endpoint's refusals of tighter modes, in order (`strict: <its message>`)."""
    status: CallStatus = "ok"
    error: str | None = None


class Generation(BaseModel):
    """A finished call: its samples, token counts and the record to store."""

    record: CallRecord

    @property
    def choices(self) -> list[Choice]:
        return self.record.choices

    @property
    def text(self) -> str:
        """The first sample's text."""
        return self.record.choices[0].text

    @property
    def texts(self) -> list[str]:
        return [c.text for c in self.record.choices]

    @property
    def usage(self) -> Usage:
        return self.record.usage or Usage()

    def parse_json(self, index: int = 0) -> Any:
        """Parse a sample as JSON (for requests made with a `response_schema`)."""
        return json.loads(self.record.choices[index].text)
