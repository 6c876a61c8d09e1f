"""Reading a plan while it streams: each step as soon as its object closes."""

from __future__ import annotations

import json
import random

import pytest

from agents.core import Plan, PlanError, StreamingPlanParser
from tests.fakes.plans import GOOD_PLAN, TOOLS

TRICKY = {
    "steps": [
        {
            "id": 1,
            "tool": "analyse",
            "args": {
                "source": 'int main() { printf("}]{[\\"\\n"); /* \\\\ */ }',
                "language": "c",
            },
            "why": 'braces } and ] and quotes " and a backslash \\ inside strings',
        },
        {"id": 2, "tool": "generate", "args": {"strategy": "loops", "loops": ["$1.loops"]}},
        {"id": 3, "tool": "verify", "args": {"code": "$2", "options": {"threads": 4}}},
    ]
}


def _texts() -> list[str]:
    return [
        json.dumps(TRICKY),
        json.dumps(TRICKY, indent=2),
        "```json\n" + json.dumps(TRICKY, indent=4) + "\n```\n",
        "Plan:\n```\n" + json.dumps(TRICKY, separators=(",", ":")) + "```",
        json.dumps(TRICKY, indent="\t").replace(": ", " :\n "),
    ]


def _feed(text: str, cuts: list[int]) -> tuple[list[list[int]], Plan]:
    parser = StreamingPlanParser(TOOLS)
    got = []
    start = 0
    for cut in [*cuts, len(text)]:
        got.append([step.id for step in parser.feed(text[start:cut])])
        start = cut
    return got, parser.close()


@pytest.mark.parametrize("text", _texts())
def test_one_character_at_a_time_each_step_arrives_when_its_object_closes(text):
    got, plan = _feed(text, list(range(1, len(text))))
    assert plan == Plan.model_validate(TRICKY)
    emitted = [(at, ids) for at, ids in enumerate(got) if ids]
    assert [ids for _, ids in emitted] == [[1], [2], [3]]
    # step 1 comes out at the character that closes it, before the last step has begun
    first = text.index("{", text.index("[", text.index('"steps"')))
    _, end = json.JSONDecoder().raw_decode(text, first)
    assert emitted[0][0] == end - 1 < text.rindex('"id"')


@pytest.mark.parametrize("text", _texts())
def test_random_chunkings_give_the_same_steps(text):
    rng = random.Random(8)
    for _ in range(200):
        cuts = sorted(rng.sample(range(1, len(text)), rng.randint(0, min(30, len(text) - 1))))
        got, plan = _feed(text, cuts)
        assert [i for ids in got for i in ids] == [1, 2, 3]
        assert plan.steps[0].args["source"] == TRICKY["steps"][0]["args"]["source"]


def test_steps_come_out_while_the_rest_is_still_missing():
    text = json.dumps(GOOD_PLAN)
    parser = StreamingPlanParser()
    second = text.index('{"id": 3')
    assert [s.id for s in parser.feed(text[:second])] == [1, 2]
    assert [s.id for s in parser.feed(text[second:])] == [3, 4, 5]


def test_only_the_top_level_steps_array_holds_steps():
    decoy = {"note": 'steps": [{"id": 9}', "meta": {"steps": [{"id": 8}]}, "steps": TRICKY["steps"]}
    parser = StreamingPlanParser(TOOLS)
    got = [step.id for char in json.dumps(decoy) for step in parser.feed(char)]
    assert got == [1, 2, 3]
    with pytest.raises(PlanError, match="not a plan: note: Extra inputs"):
        parser.close()  # a plan has no other keys


def test_close_rejects_text_that_is_not_a_whole_plan():
    parser = StreamingPlanParser()
    text = json.dumps(GOOD_PLAN)
    parser.feed(text[:-3])
    with pytest.raises(PlanError, match="not valid JSON"):
        parser.close()
    empty = StreamingPlanParser()
    empty.feed('```json\n{"steps": []}\n```')
    with pytest.raises(PlanError, match="no steps"):
        empty.close()


def test_a_bad_step_is_rejected_as_soon_as_it_closes():
    parser = StreamingPlanParser(TOOLS)
    with pytest.raises(PlanError, match=r"refers to \$2, which must be earlier"):
        parser.feed('{"steps": [{"id": 1, "tool": "verify", "args": {"code": "$2", "options": ')
        parser.feed('{"threads": 2}}}, {"id": 2')
    shapeless = StreamingPlanParser()
    with pytest.raises(PlanError, match="not a plan step: tool"):
        shapeless.feed('{"steps": [{"id": 1, "args": {}}')
    unbalanced = StreamingPlanParser()
    with pytest.raises(PlanError, match="unbalanced"):
        unbalanced.feed('{"steps": [{"id": 1]')
