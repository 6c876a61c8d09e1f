"""The translate agent's pure core: plans and their schema, a streaming plan parser, `$N`
references, the task-fetching scheduler, budgets, and the join's ranking and decisions.

No HTTP, containers or database here; the graph nodes bring those and call into this package.
"""

from agents.core.budget import Budget, Ledger, Spent
from agents.core.join import (
    Decision,
    Observation,
    best,
    decide,
    evidence,
    faster,
    progress,
    rank,
    top_speedup,
)
from agents.core.plan import (
    Plan,
    PlanError,
    PlanStep,
    ToolSpec,
    args_schema,
    parse_plan,
    plan_schema,
    validate_plan,
)
from agents.core.refs import REF_PATTERN, ReferenceMissing, references, substitute
from agents.core.scheduler import SchedulerEvent, StepResult, run_plan
from agents.core.stream import StreamingPlanParser

__all__ = [
    "REF_PATTERN",
    "Budget",
    "Decision",
    "Ledger",
    "Observation",
    "Plan",
    "PlanError",
    "PlanStep",
    "ReferenceMissing",
    "SchedulerEvent",
    "Spent",
    "StepResult",
    "StreamingPlanParser",
    "ToolSpec",
    "args_schema",
    "best",
    "decide",
    "evidence",
    "faster",
    "parse_plan",
    "plan_schema",
    "progress",
    "rank",
    "references",
    "run_plan",
    "substitute",
    "top_speedup",
    "validate_plan",
]
