"""Eval workers over a real store (SQLite and PostgreSQL): claim, progress, summary, stop and
resume, cancel; the samples come from replay or a held source, verification from the scripted
sandbox."""

from __future__ import annotations

import asyncio
import threading

from sqlmodel import Session

from agents.llm import LLMConfig
from corpus.store import evals as store
from corpus.store.models import EvalRunRow, JobStatus
from evals.runner import EvalRunner
from parforge.service.evals import EvalPool
from parforge.settings import ServiceConfig
from sandbox.verify.verifier import LocalVerifier
from tests.fakes.evals import TASKS, HeldSource, SourcedRunner, new_run, scripted

FAST = ServiceConfig(poll_s=0.05, heartbeat_s=0.05, lease_s=5)


async def wait_for(engine, eval_id, check, limit_s=20.0) -> EvalRunRow:
    run = None
    try:
        async with asyncio.timeout(limit_s):
            while True:
                with Session(engine) as s:
                    run = store.get(s, eval_id)
                    assert run is not None
                    if check(run):
                        return run
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"eval {eval_id} stayed at {run}") from None


async def test_a_queued_eval_is_claimed_run_and_summarized(engine):
    eval_id = new_run(engine, model="replay:known-good")
    runner = EvalRunner(engine, LocalVerifier(scripted()), llm=LLMConfig(url="http://unused/v1"))
    pool = EvalPool(engine, runner, FAST, workers=1)
    await pool.start()
    try:
        run = await wait_for(engine, eval_id, lambda r: JobStatus(r.status).terminal)
    finally:
        await pool.stop()
    assert run.status == JobStatus.SUCCEEDED, run.reason
    assert run.reason.startswith("pass@1 100.0%, build@1 100.0%")
    assert run.progress["finished"] == run.progress["total"] == 4
    assert {r["group"] for r in run.summary["rows"]} == {"dense_la", "transform", "all"}
    with Session(engine) as s:
        assert [r.status for r in store.rows(s, eval_id)] == ["passed"] * 4


async def test_a_stopped_server_requeues_the_eval_and_the_next_one_finishes_it(engine):
    eval_id = new_run(engine, problems=TASKS)
    held = HeldSource(held_after=1)
    pool = EvalPool(engine, SourcedRunner(engine, held), FAST, workers=1)
    await pool.start()
    await wait_for(engine, eval_id, lambda r: r.progress.get("finished", 0) == 2)
    await pool.stop()
    with Session(engine) as s:
        run = store.get(s, eval_id)
        assert run is not None and run.status == JobStatus.QUEUED, run.reason
        assert run.reason == "server stopped; re-queued" and run.attempts == 0

    again = HeldSource(held_after=99)
    pool = EvalPool(engine, SourcedRunner(engine, again), FAST, workers=1)
    await pool.start()
    try:
        run = await wait_for(engine, eval_id, lambda r: JobStatus(r.status).terminal)
    finally:
        await pool.stop()
    assert run.status == JobStatus.SUCCEEDED and run.progress["finished"] == 4
    assert again.calls == 1  # only the task that had nothing stored


async def test_a_cancel_request_ends_the_eval_as_cancelled(engine):
    eval_id = new_run(engine)
    pool = EvalPool(engine, SourcedRunner(engine, HeldSource(held_after=0)), FAST, workers=1)
    await pool.start()
    try:
        await wait_for(engine, eval_id, lambda r: r.status == JobStatus.RUNNING)
        with Session(engine) as s:
            run = store.get(s, eval_id)
            assert run is not None
            run.cancel_requested = True
            s.add(run)
            s.commit()
        run = await wait_for(engine, eval_id, lambda r: JobStatus(r.status).terminal)
    finally:
        await pool.stop()
    assert run.status == JobStatus.CANCELLED and run.reason == "cancelled on request"


async def test_run_one_is_what_the_cli_uses(engine):
    eval_id = new_run(engine, model="replay:known-good", problems=TASKS[:1])
    runner = EvalRunner(engine, LocalVerifier(scripted()), llm=LLMConfig(url="http://unused/v1"))
    final = await EvalPool(engine, runner, FAST, workers=0).run_one(eval_id)
    assert final.status == JobStatus.SUCCEEDED and final.summary["unverified"] == 0


class _SlowClaim(EvalPool):
    """An eval pool whose claim waits for the test's go, as on a loaded host."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.entered, self.go = threading.Event(), threading.Event()

    def _claim(self, key):
        self.entered.set()
        assert self.go.wait(10)
        return super()._claim(key)


async def test_a_stop_during_a_claim_puts_the_eval_back(engine):
    eval_id = new_run(engine, model="replay:known-good")
    runner = EvalRunner(engine, LocalVerifier(scripted()), llm=LLMConfig(url="http://unused/v1"))
    pool = _SlowClaim(engine, runner, FAST, workers=1)
    await pool.start()
    assert await asyncio.to_thread(pool.entered.wait, 10)
    stopping = asyncio.create_task(pool.stop())
    await asyncio.sleep(0.2)
    pool.go.set()
    await stopping
    await asyncio.sleep(0.2)  # a claim the stop abandoned would land about now
    with Session(engine) as s:
        run = store.get(s, eval_id)
        assert run is not None
        assert (run.status, run.attempts, run.claimed_by) == (JobStatus.QUEUED, 0, None)
