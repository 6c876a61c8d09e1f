"""Exports from a real store filled by the worker pool: schemas, filters, split, dedupe, DPO."""

from __future__ import annotations

import asyncio
import itertools
import json
from datetime import UTC, datetime, timedelta

import jsonschema
import pytest
from sqlmodel import Session, select

from agents.identity import Identity
from agents.llm import CallRecord, Message, Sampling
from agents.trajectory import llm_steps
from corpus.export import ExportFilter, ExportFormat, Split, export_file, export_lines, schema_for
from corpus.export.filters import bucket_of, split_of
from corpus.store import tasks
from corpus.store.models import JobStatus, RunRow, StepRow, TaskCreate
from corpus.store.recorder import Recorder
from parforge.service.pool import WorkerPool
from parforge.settings import ServiceConfig
from tests.fakes.runners import ScriptedRunner

FAST = ServiceConfig(workers=2, poll_s=0.05, heartbeat_s=0.05)


async def _fill(engine, sources, target="openmp", model="scripted-model", samples=3):
    with Session(engine) as s:
        ids = [tasks.submit(s, TaskCreate(target=target, source=src)).id for src in sources]
    pool = WorkerPool(engine, ScriptedRunner(samples=samples, model=model), FAST)
    await pool.start()
    try:
        async with asyncio.timeout(20):
            while True:
                with Session(engine) as s:
                    if all(tasks.get(s, i).status == JobStatus.SUCCEEDED for i in ids):
                        break
                await asyncio.sleep(0.05)
    finally:
        await pool.stop()
    return ids


def _lines(engine, fmt, **filters):
    return [json.loads(line) for line in export_lines(engine, fmt, ExportFilter(**filters))]


@pytest.fixture
async def filled(engine):
    ids = await _fill(engine, [f"int f{i}(int x) {{ return x * {i}; }}" for i in range(12)])
    ids += await _fill(engine, ["void g(double *v);"], target="mpi", model="other-model")
    return engine, ids


@pytest.mark.parametrize(
    "fmt", [f for f in ExportFormat if f is not ExportFormat.EVOLUTION_PAIRS]
)  # evolution pairs come from evolution histories: see test_evolution_export
async def test_every_line_matches_its_schema(filled, fmt):
    engine, _ = filled
    lines = _lines(engine, fmt)
    assert lines
    validator = jsonschema.Draft202012Validator(schema_for(fmt))
    for line in lines:
        validator.validate(line)


async def test_openai_and_sft_tool_call_arguments(filled):
    engine, ids = filled
    openai = _lines(engine, ExportFormat.OPENAI, verified_only=False)
    sft = _lines(engine, ExportFormat.SFT, verified_only=False)
    assert len(openai) == len(sft) == len(ids) * 3
    for o, s in zip(openai, sft, strict=True):
        assert o["messages"][-1]["role"] == s["messages"][-1]["role"] == "assistant"
        o_args = o["messages"][-1]["tool_calls"][0]["function"]["arguments"]
        s_args = s["messages"][-1]["tool_calls"][0]["function"]["arguments"]
        assert isinstance(o_args, str) and json.loads(o_args) == s_args
        assert s["tools"][0]["function"]["name"] == "verify"


async def test_dpo_pairs_are_verified_against_failing(filled):
    engine, ids = filled
    pairs = _lines(engine, ExportFormat.DPO)
    assert len(pairs) == len(ids) * 2  # one passing and two racing samples per task
    for pair in pairs:
        assert pair["chosen"] != pair["rejected"]
        chosen = pair["chosen"][0]["tool_calls"][0]["function"]["arguments"]["source"]
        rejected = pair["rejected"][0]["tool_calls"][0]["function"]["arguments"]["source"]
        assert chosen.startswith("// sample 0") and not rejected.startswith("// sample 0")
        assert pair["prompt"][-1]["role"] == "user"
    assert _lines(engine, ExportFormat.DPO, min_speedup=100) == []


async def test_only_verified_candidates_unless_all_are_asked_for(filled):
    engine, ids = filled
    for fmt in (ExportFormat.SFT, ExportFormat.OPENAI):
        verified = _lines(engine, fmt)
        assert len(verified) == len(ids)  # one passing sample of three per task
        assert all("// sample 0" in json.dumps(line["messages"][-1]) for line in verified)
        assert len(_lines(engine, fmt, verified_only=False)) == len(ids) * 3


async def test_filters(filled):
    engine, ids = filled
    assert len(_lines(engine, ExportFormat.SFT, verified_only=True)) == len(ids)
    assert len(_lines(engine, ExportFormat.SFT, min_speedup=2.5)) == len(ids)
    assert _lines(engine, ExportFormat.SFT, min_speedup=2.6) == []
    assert len(_lines(engine, ExportFormat.SFT, target="mpi", verified_only=False)) == 3
    assert len(_lines(engine, ExportFormat.SFT, model="other-model", verified_only=False)) == 3
    assert len(_lines(engine, ExportFormat.SFT, model="other-model")) == 1
    assert _lines(engine, ExportFormat.SFT, adapter="lora-1") == []
    tomorrow = datetime.now(UTC) + timedelta(days=1)
    assert _lines(engine, ExportFormat.SFT, since=tomorrow) == []
    assert len(_lines(engine, ExportFormat.SFT, until=tomorrow)) == len(ids)


async def test_split_by_task_is_disjoint_and_complete(filled):
    engine, ids = filled
    # Task ids are random, so a fixed fraction leaves a split empty now and then (0.7^12 at
    # 0.3): take the fraction that puts half of these tasks in each.
    fraction = sorted(bucket_of(i) for i in ids)[len(ids) // 2]
    assert [split_of(i, fraction) for i in ids].count(Split.VALIDATION) == len(ids) // 2

    def task_sources(split):
        return {
            json.dumps(line["messages"][1])
            for line in _lines(engine, ExportFormat.SFT, split=split, validation_fraction=fraction)
        }

    train, validation = task_sources(Split.TRAIN), task_sources(Split.VALIDATION)
    assert train and validation
    assert not train & validation
    assert train | validation == task_sources(Split.ALL)
    assert task_sources(Split.VALIDATION) == validation  # deterministic


async def test_a_failed_call_is_no_sample_and_breaks_no_export(filled):
    """A call the server refused (its prompt past the model's window, say) is stored with its
    messages and error and no response: no format exports it, and none fails on it."""
    engine, ids = filled
    with Session(engine) as s:
        run_id = s.exec(select(RunRow.id).where(RunRow.task_id == ids[0])).first()
    before = {fmt: _lines(engine, fmt, verified_only=False) for fmt in ExportFormat}
    failed = CallRecord(
        id="refused",
        kind="chat",
        model="scripted-model",
        messages=[Message(role="user", content="a prompt past the window")],
        sampling=Sampling(),
        started_at=datetime.now(UTC),
        status="error",
        error="context overflow: 5000 tokens, the model holds 4096",
    )
    recorder = Recorder(engine, ids[0], run_id)
    try:
        for step in llm_steps(failed, Identity("scripted-model")):
            await recorder.add_step(step)
    finally:
        await recorder.aclose()
    with Session(engine) as s:
        stored = s.exec(select(StepRow).where(StepRow.error.is_not(None))).all()
    assert [(r.response, r.messages is not None) for r in stored] == [(None, True)]
    for fmt in ExportFormat:
        assert _lines(engine, fmt, verified_only=False) == before[fmt], fmt


async def test_identical_samples_are_written_once(engine, tmp_path):
    await _fill(engine, ["int same(void);"] * 3, samples=2)
    out = tmp_path / "out.jsonl"
    stats = export_file(engine, ExportFormat.OPENAI, out, ExportFilter(verified_only=False))
    assert stats.written == 2 and stats.duplicates == 4
    assert len(out.read_text().splitlines()) == 2


def test_consecutive_user_turns_are_merged_for_templates_that_alternate():
    from corpus.export.formats import merged_turns

    user = lambda text: {"role": "user", "content": text}  # noqa: E731
    messages = [
        {"role": "system", "content": "s"},
        user("instructions"),
        user("the program"),
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c"}]},
        {"role": "tool", "content": "ok", "tool_call_id": "c"},
        {"role": "tool", "content": "ok 2", "tool_call_id": "d"},  # never merged: ids differ
        user("again"),
    ]
    merged = merged_turns(messages)
    assert [m["role"] for m in merged] == ["system", "user", "assistant", "tool", "tool", "user"]
    assert merged[1]["content"] == "instructions\n\nthe program"
    roles = [m["role"] for m in merged if m["role"] in ("user", "assistant")]
    assert all(a != b for a, b in itertools.pairwise(roles)), roles
