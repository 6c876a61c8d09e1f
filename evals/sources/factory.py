"""From a run's `model` field to a `SampleSource`: a served model, or a replay."""

from __future__ import annotations

import asyncio

from sqlalchemy import Engine
from sqlmodel import Session

from agents.llm import LLMClient, LLMConfig
from corpus.store import evals as store
from evals.config import RunOptions
from evals.errors import EvalSetupError
from evals.sources import SampleSource
from evals.sources.prompt import PromptSource
from evals.sources.replay import PREFIX, ReplaySource

REPLAYS = ("replay:known-good", "replay:mutants", "replay:run=ID")


async def open_source(
    model: str | None,
    options: RunOptions,
    llm: LLMConfig,
    engine: Engine,
    *,
    max_concurrency: int | None = None,
) -> SampleSource:
    """The source a run's `model` names: `replay:...`, or a model (None: the configured one)
    at `options.url` (None: the configured endpoint)."""
    if model is not None and model.startswith(PREFIX):
        return await _replay(model.removeprefix(PREFIX), engine)
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


async def _replay(what: str, engine: Engine) -> ReplaySource:
    if what in ("known-good", "mutants"):
        return ReplaySource(kind="known-good" if what == "known-good" else "mutants")
    if what.startswith("run="):
        try:
            run_id = int(what.removeprefix("run="))
        except ValueError:
            raise EvalSetupError(f"replay:{what}: the run id must be a number") from None
        stored = await asyncio.to_thread(_stored_sources, engine, run_id)
        if not stored:
            raise EvalSetupError(f"replay:{what}: run {run_id} has no stored samples")
        return ReplaySource(stored=stored, stored_run=run_id)
    raise EvalSetupError(f"unknown replay {PREFIX}{what}; use one of {', '.join(REPLAYS)}")


def _stored_sources(engine: Engine, run_id: int) -> dict[tuple[str, int], str]:
    with Session(engine) as session:
        return {
            (r.problem, r.sample_index): r.source
            for r in store.rows(session, run_id)
            if r.source is not None
        }
