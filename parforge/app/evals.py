"""Submitting an eval run, once for every edge (`POST /v1/evals`, `parforge eval run`).

A run is checked before it is stored: its options agree with each other (reasoning threads and
evolution belong to the graph agent; evolution needs timing), its suite loads, and its problems
(names or globs) select at least one task for its target. What is stored is the list of
problem names and the full `RunOptions`, so a resumed run does exactly what it started to.

The API's callers choose the options of `EvalOptions` (the CLI's eval options, less what only
the host may decide: the model endpoint, the verifications at once, the reference cache); the
rest come from the settings' `evals.defaults`. The API accepts only the built-in suites, by
name: a path would let a caller probe the server's file system.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session

from corpus.errors import CorpusError
from corpus.store import evals as store
from corpus.store.models import EvalRunCreate, EvalRunRow
from corpus.store.tasks import Owner
from corpus.suites import builtin_suites, load_suite
from evals.config import Api, RunOptions, SamplingOptions
from evals.errors import EvalError
from evals.plan import select_problems
from evals.report import RunInfo
from evals.sources.replay import replayed_run
from evals.summary import Summary
from parforge.app.tasks import Rejected

if TYPE_CHECKING:
    from sqlalchemy import Engine

Agent = Literal["prompt", "graph", "analysis"]


class EvalOptions(BaseModel):
    """How an eval run's samples are made: what a caller of the API may choose (None: the
    server's default, `evals.defaults`)."""

    model_config = ConfigDict(extra="forbid")

    agent: Agent | None = None
    """`prompt` (the model completes the prompt, as in ParEval), `graph` (the translate agent,
    one stored task per sample) or `analysis` (the agent with no model)."""
    api: Api | None = None
    """`completion`, `chat` or `auto` (completion, falling back to chat)."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1, le=65_536)
    reasoning_threads: int | None = Field(default=None, ge=0, le=16)
    """Parallel reasoning threads per task beside the graph agent's plan (`graph` only)."""
    evolve: bool | None = None
    """Evolve each task's first verified program for speed (`graph` only, needs timing)."""
    generations: int | None = Field(default=None, ge=1, le=100)
    """Generations of that evolution (implies `evolve`)."""
    translate_from: Literal["serial", "cuda"] | None = None
    """Translate the suite's `serial` or `cuda` implementation instead of generating from the
    description (only problems with such a translation task take part)."""


class EvalSubmission(EvalRunCreate):
    """What `POST /v1/evals` accepts: the run and how its samples are made."""

    options: EvalOptions = Field(default_factory=EvalOptions)


def run_options(chosen: EvalOptions, defaults: RunOptions, *, timing: bool) -> RunOptions:
    """`defaults` with what the caller chose; `Rejected` when the choices contradict."""
    agent = chosen.agent or defaults.agent
    if chosen.reasoning_threads and agent != "graph":
        raise Rejected("reasoning_threads needs the graph agent", "options.reasoning_threads")
    evolve = True if chosen.evolve or chosen.generations is not None else chosen.evolve
    if evolve and agent != "graph":
        field = "options.evolve" if chosen.evolve else "options.generations"
        raise Rejected("evolution needs the graph agent", field)
    if evolve and not timing:
        raise Rejected("evolution optimises speedups: it needs timing", "timing")
    sampling = SamplingOptions(
        temperature=_or(chosen.temperature, defaults.sampling.temperature),
        top_p=_or(chosen.top_p, defaults.sampling.top_p),
        max_tokens=_or(chosen.max_tokens, defaults.sampling.max_tokens),
    )
    return defaults.model_copy(
        update={
            "agent": agent,
            "api": chosen.api or defaults.api,
            "sampling": sampling,
            "reasoning_threads": _or(chosen.reasoning_threads, defaults.reasoning_threads),
            "evolve": _or(evolve, defaults.evolve),
            "generations": _or(chosen.generations, defaults.generations),
            "translate_from": _or(chosen.translate_from, defaults.translate_from),
        }
    )


T = TypeVar("T")


def _or(value: T | None, default: T) -> T:
    return default if value is None else value


def plan(
    create: EvalRunCreate,
    options: RunOptions,
    *,
    patterns: list[str] | None = None,
    limit: int | None = None,
    builtin_only: bool = False,
) -> EvalRunCreate:
    """`create` with its problems resolved to names: its own list (or `patterns`, globs) for
    its target, at most `limit`; `Rejected` for a suite or selection that gives no task."""
    if builtin_only and create.suite not in builtin_suites():
        known = ", ".join(builtin_suites())
        raise Rejected(f"no built-in suite {create.suite!r}: use one of {known}", "suite")
    try:
        suite = load_suite(create.suite)
        wanted = patterns if patterns is not None else list(create.problems or [])
        names = select_problems(suite, create.target, wanted, limit, options.translate_from)
    except (CorpusError, EvalError) as exc:
        raise Rejected(str(exc), "problems" if isinstance(exc, EvalError) else "suite") from None
    fields = {name: getattr(create, name) for name in EvalRunCreate.model_fields}
    return EvalRunCreate.model_validate(fields | {"problems": names})


def check_replay(session: Session, create: EvalRunCreate, owner: Owner) -> None:
    """A `replay:run=ID` model names a run that `owner` can see; `Rejected` if not."""
    try:
        replayed = replayed_run(create.model)
    except ValueError as exc:
        raise Rejected(str(exc), "model") from None
    if replayed is not None and store.get(session, replayed, owner) is None:
        raise Rejected(f"{create.model}: no eval run {replayed} that this API key can see", "model")


def submit_eval(
    engine: Engine,
    create: EvalRunCreate,
    options: RunOptions,
    owner: int | None = None,
) -> EvalRunRow:
    """Store a planned run (see `plan`) as queued, with its options."""
    with Session(engine) as session:
        return store.submit(session, create, owner, options=options.model_dump(mode="json"))


class EvalReport(BaseModel):
    """A written report of a run: its files, the k values used and those left out (pass@k
    needs k samples per problem), the speedup's resource count, and the summary."""

    run: RunInfo
    files: dict[str, Path]
    ks: list[int]
    dropped_ks: list[int]
    resources: int | None
    summary: Summary
    html: Path


def eval_report(
    engine: Engine,
    run_id: int,
    out_dir: Path,
    *,
    compare: int | None = None,
    ks: Sequence[int] = (1, 5),
    resources: int | None = None,
) -> EvalReport:
    """Write the report of `run_id` (against `compare`) into `out_dir`: Markdown, one
    self-contained HTML file, the plots. `Rejected` for a run that does not exist or has no
    finished sample yet."""
    from evals.plan import default_resources
    from evals.report import write_report
    from evals.stored import load_run
    from evals.summary import summarize

    try:
        data = load_run(engine, run_id)
        baseline = load_run(engine, compare) if compare is not None else None
    except EvalError as exc:
        raise Rejected(str(exc), "compare" if compare is not None else "run") from None
    if not data.outcomes:
        raise Rejected(f"eval run {run_id} has no finished samples yet", "run")
    n = resources or default_resources(data.outcomes)
    usable = [x for x in ks if x <= data.info.samples] or [1]
    dropped = [x for x in ks if x > data.info.samples]
    try:
        paths = write_report(out_dir, data, ks=usable, resources=n, baseline=baseline)
    except ValueError as exc:
        raise Rejected(str(exc), "k") from None
    return EvalReport(
        run=data.info,
        files=paths,
        ks=usable,
        dropped_ks=dropped,
        resources=n,
        summary=summarize(data.outcomes, usable, n),
        html=paths["html"],
    )
