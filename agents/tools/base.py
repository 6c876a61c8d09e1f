"""What a tool is, what it gets to work with, and the registry the planner chooses from.

A tool is one file: a typed argument model, a result model, and `async run(args, ctx)`. Tools
are called by the task-fetching scheduler with the plan step's arguments after `$N` references
were replaced by earlier steps' results; a result that is an earlier candidate arrives as a
dict or model with a `candidate_id`, and `ref_id` turns it into the id the argument wants.
A tool that fails raises; the scheduler turns that into the step's error (a failing candidate
is not an error: it is a verdict).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Protocol

from pydantic import BaseModel, BeforeValidator, WithJsonSchema

from agents.analysis import Program
from agents.core import REF_PATTERN, Ledger, ToolSpec
from agents.judge import Judge
from agents.llm import LLMClient
from agents.trace import Trace
from corpus.store.models import TaskDetail
from sandbox.spec import Language, Spec, Target, TestCase
from sandbox.verdict import Verdict


class ToolError(Exception):
    """A tool could not do what the step asked (bad arguments, nothing to work on)."""


@dataclass
class Made:
    """A candidate made in this task: its code and where it came from."""

    candidate_id: int
    source: str
    strategy: str
    key: str
    """Normalised code: two candidates with the same key are the same program."""
    step_id: int
    generation: int = 0
    """0 for a first candidate, n+1 for a repair of a candidate of generation n."""
    choices: list[Any] | None = None
    """The loop choices of an annotated candidate (what a repair changes)."""
    assumptions: list[str] = field(default_factory=list)
    """What the candidate's annotation takes for granted and the verdict should say with it:
    the chosen loops' run-time overlap checks and reassociated floating-point reductions
    (with the tolerance the comparison used)."""
    verdict: Verdict | None = None


class ExampleSearch(Protocol):
    """Verified candidates of earlier tasks (the store), searched by loop pattern."""

    async def search(
        self, target: Target, patterns: list[str], limit: int, exclude_task: str
    ) -> list[dict[str, Any]]: ...


@dataclass(frozen=True)
class RunDeps:
    """The clients and settings of one run: fixed from its start to its end."""

    llm: LLMClient
    judge: Judge
    trace: Trace
    """The run's trajectory writer (every step, candidate and verdict)."""
    settings: Any
    """The runner's `GraphConfig` (sampling per kind of call, repair width)."""
    examples: ExampleSearch | None = None


@dataclass(frozen=True)
class TaskView:
    """The task as the agent works on it: fixed for the run."""

    task: TaskDetail
    source: str
    """The code the agent transforms: a program, or a function that the spec's driver includes."""
    function: str | None
    """The function the user asked to parallelise (None: any)."""
    spec: Spec
    target: Target
    language: Language
    program: Program

    @property
    def task_tests(self) -> list[TestCase]:
        """The tests the user gave (shown to the model), not the generated ones."""
        return list(self.spec.tests) if self.task.tests else []


@dataclass
class Workbench:
    """What the run has made so far: the one mutable part of a run's tools, shared by the
    steps that run concurrently within a node. What must survive a restart is also in the
    graph's state (`observations`, `ledger`), from which `restore` rebuilds it."""

    ledger: Ledger
    made: dict[int, Made] = field(default_factory=dict)
    """Candidates by id."""
    verdicts: dict[str, tuple[int, Verdict]] = field(default_factory=dict)
    """Verdicts by normalised code: a candidate already verified in this task is not run again."""
    extra_tests: list[TestCase] = field(default_factory=list)
    """Generated inputs that the sequential program ran cleanly (verify adds them)."""
    failures: list[str] = field(default_factory=list)
    """Infrastructure failures of steps (model unreachable, sandbox down): not the model's."""
    found_examples: list[dict[str, Any]] = field(default_factory=list)
    """Verified code of similar loops from earlier tasks, once an `examples` step ran."""
    rechosen: set[str] = field(default_factory=set)
    """Annotated programs (by normalised code) whose loop choices a repair already asked the
    model to change: a second failure escalates to a rewrite."""
    verifying: dict[str, asyncio.Lock] = field(default_factory=dict)
    """One lock per normalised code: parallel branches that made the same program (the
    analysis's branch and the model's plan picking what the analysis would) verify it once,
    the later ones waiting for its verdict instead of running it beside it."""

    def restore(self, ledger: Ledger, verified: Iterable[Made]) -> None:
        """Take up a run again from its checkpointed state: the budget spent and the verified
        candidates (a candidate's code is not verified twice)."""
        self.ledger = ledger
        for made in verified:
            self.made[made.candidate_id] = made
            if made.verdict is not None:
                self.verdicts.setdefault(made.key, (made.candidate_id, made.verdict))


@dataclass(frozen=True)
class ToolContext:
    """Everything the tools of one run share: the run's clients (`deps`) and task (`view`),
    both fixed, and what was made so far (`work`), the one part that changes."""

    deps: RunDeps
    view: TaskView
    work: Workbench


class Tool(Protocol):
    """One tool of the registry."""

    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[BaseModel]]

    async def run(self, args: Any, ctx: ToolContext) -> BaseModel: ...


def ref_id(value: Any, key: str = "candidate_id") -> Any:
    """An id out of an earlier step's result (`{"candidate_id": 3, ...}`) or the value itself."""
    if isinstance(value, BaseModel):
        value = value.model_dump()
    if isinstance(value, Mapping) and key in value:
        return value[key]
    return value


CandidateRef = Annotated[int, BeforeValidator(ref_id)]
"""A candidate's id as a tool argument: the id itself, or an earlier step's result (`$N`)."""

StepOutput = Annotated[Any, WithJsonSchema({"type": "string", "pattern": REF_PATTERN})]
"""An earlier step's whole result as a tool argument: in the plan, its `$N` (a typed field, as
strict structured outputs require); by the time the tool runs, the result itself."""


class Registry:
    """The tools a plan may call, by name."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self.tools = {tool.name: tool for tool in tools}

    def specs(self) -> list[ToolSpec]:
        """What the planner is shown and its schema is built from."""
        return [
            ToolSpec(name=t.name, description=t.description, args_schema=_schema(t.Args))
            for t in self.tools.values()
        ]

    def get(self, name: str) -> Tool:
        try:
            return self.tools[name]
        except KeyError:
            raise ToolError(f"no tool named {name!r}") from None

    async def call(self, name: str, arguments: Mapping[str, Any], ctx: ToolContext) -> BaseModel:
        """Validate the arguments against the tool's model and run it."""
        tool = self.get(name)
        args = tool.Args.model_validate(dict(arguments))
        return await tool.run(args, ctx)


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    """A flat JSON schema of an argument model (no `$defs`, no titles), for structured output."""
    schema = model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    schema["additionalProperties"] = False
    return schema
