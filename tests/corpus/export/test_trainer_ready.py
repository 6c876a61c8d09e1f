"""Exports as trainers take them: every line traced to its task, run, call, candidate and
verdict; OpenAI's preference format; a Hugging Face dataset directory with its card, schema and
both splits from one pass; each loaded with `datasets` and TRL's data utilities, through a chat
template that refuses two user turns in a row."""

from __future__ import annotations

import itertools
import json

import datasets
import jsonschema
import pytest
from sqlmodel import Session
from tokenizers import Tokenizer, models
from transformers import PreTrainedTokenizerFast
from trl.data_utils import apply_chat_template, is_conversational

from corpus.export import ExportFilter, ExportFormat, export_dataset, export_lines, schema_for
from corpus.export.filters import bucket_of
from corpus.store import tasks
from corpus.store.models import CandidateRow, StepRow
from tests.corpus.export.test_export import _fill

ALTERNATING = (
    "{%- set ns = namespace(last='') -%}"
    "{%- for m in messages -%}"
    "{%- if m['role'] == 'user' and ns.last == 'user' -%}"
    "{{ raise_exception('Conversation roles must alternate user/assistant') }}"
    "{%- endif -%}"
    "{%- set ns.last = m['role'] -%}"
    "<|{{ m['role'] }}|>{{ m['content'] if m['content'] is string else '' }}"
    "{%- if m['tool_calls'] -%}{{ m['tool_calls'] | tojson }}{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}"
)


@pytest.fixture
def tokenizer() -> PreTrainedTokenizerFast:
    """A tokenizer whose chat template refuses consecutive user turns (as Mistral's does)."""
    words = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    made = PreTrainedTokenizerFast(tokenizer_object=words, unk_token="[UNK]")
    made.chat_template = ALTERNATING
    return made


@pytest.fixture
async def filled(engine):
    ids = await _fill(engine, [f"int f{i}(int x) {{ return x * {i}; }}" for i in range(8)])
    return engine, ids


def _lines(engine, fmt, **filters):
    return [json.loads(line) for line in export_lines(engine, fmt, ExportFilter(**filters))]


async def test_every_line_is_traced_to_what_the_store_holds(filled):
    engine, ids = filled
    lines = _lines(engine, ExportFormat.SFT, verified_only=False)
    assert len(lines) == len(ids) * 3
    with Session(engine) as session:
        for line in lines:
            meta = line["metadata"]
            assert meta["task_id"] in ids and meta["target"] == "openmp"
            assert meta["model"] == "scripted-model" and meta["agent"] == "graph"
            step = session.get(StepRow, meta["step_id"])
            assert step is not None and step.run_id == meta["run_id"]
            candidate = session.get(CandidateRow, meta["candidate_id"])
            assert candidate is not None and candidate.step_id == meta["step_id"]
            [verdict] = [
                c.verdict
                for c in tasks.candidates(session, meta["task_id"])
                if c.id == candidate.id
            ]
            assert verdict is not None
            assert (meta["verdict"], meta["passed"]) == (verdict.status, verdict.passed)
            assert meta["speedup"] == verdict.best_speedup
    assert {m["verdict"] for m in (line["metadata"] for line in lines)} == {"passed", "race"}
    for pair in _lines(engine, ExportFormat.DPO):
        meta = pair["metadata"]
        assert meta["chosen"]["passed"] is True and meta["rejected"]["verdict"] == "race"
        assert meta["chosen"]["candidate_id"] != meta["rejected"]["candidate_id"]


async def test_openai_lines_hold_only_openais_keys_unless_asked(filled):
    engine, _ = filled
    plain = _lines(engine, ExportFormat.OPENAI)
    assert plain and all(set(line) <= {"messages", "tools"} for line in plain)
    traced = _lines(engine, ExportFormat.OPENAI, metadata=True)
    assert all(line["metadata"]["verdict"] == "passed" for line in traced)
    assert all("metadata" not in line for line in _lines(engine, ExportFormat.SFT, metadata=False))


async def test_openai_preference_lines(filled):
    engine, ids = filled
    lines = _lines(engine, ExportFormat.OPENAI_DPO)
    assert len(lines) == len(ids) * 2  # one passing answer against each of two racing ones
    validator = jsonschema.Draft202012Validator(schema_for(ExportFormat.OPENAI_DPO))
    for line in lines:
        validator.validate(line)
        assert set(line) == {"input", "preferred_output", "non_preferred_output"}
        [preferred], [other] = line["preferred_output"], line["non_preferred_output"]
        args = json.loads(preferred["tool_calls"][0]["function"]["arguments"])
        assert args["source"].startswith("// sample 0") and preferred != other
        assert line["input"]["messages"][-1]["role"] == "user"
        roles = [m["role"] for m in line["input"]["messages"]]
        assert all(not (a == b == "user") for a, b in itertools.pairwise(roles))
    traced = _lines(engine, ExportFormat.OPENAI_DPO, metadata=True)
    validator.validate(traced[0])


async def test_a_dataset_directory_loads_into_datasets_and_trl(filled, tmp_path, tokenizer):
    engine, ids = filled
    fraction = sorted(bucket_of(i) for i in ids)[len(ids) // 2]
    out = tmp_path / "sft-dataset"
    filters = ExportFilter(verified_only=False, validation_fraction=fraction)
    stats = export_dataset(engine, ExportFormat.SFT, out, filters, parquet=True)
    assert stats.lines == {"train": 12, "validation": 12}, stats
    assert {"README.md", "schema.json", "train.jsonl", "validation.parquet"} <= set(stats.files)
    assert json.loads((out / "schema.json").read_text()) == schema_for(ExportFormat.SFT)
    card = (out / "README.md").read_text()
    assert card.startswith("---\nconfigs:") and "| train | 12 |" in card
    assert '"validation_fraction"' in card and "verified" in card

    loaded = datasets.load_dataset(str(out))
    assert {name: len(split) for name, split in loaded.items()} == stats.lines
    train_tasks = {m["task_id"] for m in loaded["train"]["metadata"]}
    validation_tasks = {m["task_id"] for m in loaded["validation"]["metadata"]}
    assert train_tasks and validation_tasks and not train_tasks & validation_tasks
    from_parquet = datasets.load_dataset("parquet", data_files=str(out / "train.parquet"))
    assert len(from_parquet["train"]) == 12

    for example in loaded["train"]:
        assert is_conversational(example)
        text = apply_chat_template({"messages": example["messages"]}, tokenizer)["text"]
        assert text.startswith("<|system|>") or text.startswith("<|user|>")


async def test_preference_pairs_go_through_trl_and_openai_keeps_provenance_beside(
    filled, tmp_path, tokenizer
):
    engine, _ = filled
    dpo = tmp_path / "dpo"
    export_dataset(engine, ExportFormat.DPO, dpo, ExportFilter(validation_fraction=0.0))
    pairs = datasets.load_dataset(str(dpo))["train"]
    assert len(pairs) == 16
    for example in pairs:
        assert is_conversational(example)
        rendered = apply_chat_template(
            {k: example[k] for k in ("prompt", "chosen", "rejected")}, tokenizer
        )
        assert rendered["chosen"] != rendered["rejected"]

    openai = tmp_path / "openai"
    stats = export_dataset(engine, ExportFormat.OPENAI, openai, ExportFilter(validation_fraction=0))
    assert "train.metadata.jsonl" in stats.files
    lines = (openai / "train.jsonl").read_text().splitlines()
    beside = (openai / "train.metadata.jsonl").read_text().splitlines()
    assert len(lines) == len(beside) == 8
    assert all("metadata" not in json.loads(line) for line in lines)
    assert all(json.loads(m)["verdict"] == "passed" for m in beside)
    assert "metadata" not in datasets.load_dataset(str(openai))["train"].column_names


def test_two_user_turns_in_a_row_are_what_the_template_refuses(tokenizer):
    """The template above is a real check: unmerged turns fail in it."""
    twice = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    with pytest.raises(Exception, match="alternate"):
        apply_chat_template({"messages": twice}, tokenizer)
