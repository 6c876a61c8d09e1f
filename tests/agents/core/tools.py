"""Tools the core tests plan with: the shapes the translate agent's tools will have."""

from __future__ import annotations

from pydantic import BaseModel, Field

from agents.core import ToolSpec


class Analyse(BaseModel):
    source: str
    language: str = Field(pattern="^(c|cpp)$")


class Generate(BaseModel):
    strategy: str = Field(json_schema_extra={"enum": ["loops", "tasks", "simd"]})
    loops: list[int] = []
    samples: int = 1
    temperature: float | None = None


class Options(BaseModel):
    threads: int


class Verify(BaseModel):
    code: str
    options: Options


TOOLS = [
    ToolSpec("analyse", "find the loops and their dependences", Analyse.model_json_schema()),
    ToolSpec("generate", "write candidates", Generate.model_json_schema()),
    ToolSpec("verify", "check a candidate in the sandbox", Verify.model_json_schema()),
]
