"""Tools the core tests plan with (the shapes the translate agent's tools will have), and a good
plan over them."""

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

GOOD_PLAN = {
    "steps": [
        {"id": 1, "tool": "analyse", "args": {"source": "int main(){}", "language": "c"}},
        {"id": 2, "tool": "generate", "args": {"strategy": "loops", "loops": ["$1.loops"]}},
        {
            "id": 3,
            "tool": "generate",
            "args": {"strategy": "simd", "samples": "$1.count", "temperature": 0.7},
            "why": "a second strategy in parallel",
        },
        {"id": 4, "tool": "verify", "args": {"code": "$2", "options": {"threads": "$1.threads"}}},
        {"id": 5, "tool": "verify", "args": {"code": "$3.code", "options": "$1.options"}},
    ]
}
