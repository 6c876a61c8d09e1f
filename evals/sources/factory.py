"""From a run's `model` field to a `SampleSource`: a served model, or a replay."""

from __future__ import annotations

import asyncio

from sqlalchemy import Engine
from sqlmodel import Session

from agents.llm import LLMClient, LLMConfig
from corpus.store import evals as store
from corpus.store.tasks import ANY_OWNER, Owner
from evals.config import RunOptions
from evals.errors import EvalSetupError
from evals.sources import SampleSource
from evals.sources.prompt import PromptSource
from evals.sources.replay import PREFIX, ReplaySource, replayed_run

REPLAYS = ("replay:known-good", "replay:mutants", "replay:run=ID")


async def open_source(
    model: str | None,
    options: RunOptions,
    llm: LLMConfig,
    engine: Engine,
    *,
    max_concurrency: int | None = None,
    owner: Owner = ANY_OWNER,
) -> SampleSource:
    """The source a run's `model` names: `replay:...`, or a model (None: the configured one)
    at `options.url` (None: the configured endpoint).

    `owner` is the API key the run belongs to: `replay:run=ID` replays only a run it can see.
    """
    if model is not None and model.startswith(PREFIX):
        return await _replay(model, engine, owner)
    update: dict[str, object] = {}
    if options.url:
        update["url"] = options.url
    if model:
        update["model"] = model
    if max_concurrency:
        update["max_concurrency"] = max_concurrency
    client = LLMClient(llm.model_copy(update=update))
    try:
        name = await client.model_name()
    except BaseException:
        await client.aclose()
        raise
    return PromptSource(client, name, options.api, options.sampling)


async def _replay(model: str, engine: Engine, owner: Owner) -> ReplaySource:
    what = model.removeprefix(PREFIX)
    if what in ("known-good", "mutants"):
        return ReplaySource(kind="known-good" if what == "known-good" else "mutants")
    try:
        run_id = replayed_run(model)
    except ValueError as exc:
        raise EvalSetupError(str(exc)) from None
    if run_id is None:
        raise EvalSetupError(f"unknown replay {model}; use one of {', '.join(REPLAYS)}")
    stored = await asyncio.to_thread(_stored_sources, engine, run_id, owner)
    if stored is None:
        raise EvalSetupError(f"{model}: no eval run {run_id} that this run's API key can see")
    if not stored:
        raise EvalSetupError(f"{model}: run {run_id} has no stored samples")
    return ReplaySource(stored=stored, stored_run=run_id)


def _stored_sources(engine: Engine, run_id: int, owner: Owner) -> dict[tuple[str, int], str] | None:
    with Session(engine) as session:
        if store.get(session, run_id, owner) is None:
            return None
        return {
            (r.problem, r.sample_index): r.source
            for r in store.rows(session, run_id)
            if r.source is not None
        }
