"""`$N` references: finding them and replacing them with results."""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel

from agents.core import ReferenceMissing, references, substitute


class Analysis(BaseModel):
    loops: list[int]
    hot: dict[str, int]


def test_references_are_found_anywhere_in_nested_args():
    args = {
        "code": "$2",
        "options": {"threads": "$1.threads", "list": ["$3.a.b", 4, None, True]},
        "prompt": "repair $5 using $6.evidence; it costs $ 7 and a$8 is no reference",
        "price": "$$9",
    }
    assert references(args) == {1, 2, 3, 5, 6}
    assert references({"x": "plain", "n": 3}) == set()


def test_whole_references_become_the_value_itself():
    results = {1: Analysis(loops=[3, 7], hot={"i": 1}), 2: "int main(){}", 3: {"n": [1, 2]}}
    args = {"code": "$2", "a": "$1", "loops": "$1.loops", "hot": "$1.hot.i", "n": "$3.n"}
    out = substitute(args, results)
    assert out == {"code": "int main(){}", "a": results[1], "loops": [3, 7], "hot": 1, "n": [1, 2]}
    assert args["code"] == "$2"  # the plan's args are left as they were


def test_a_step_that_depends_on_several_others():
    results = {1: {"code": "A"}, 2: {"code": "B"}, 4: 0.5}
    args = {"candidates": ["$1.code", "$2.code"], "pick": {"weight": "$4"}}
    assert substitute(args, results) == {"candidates": ["A", "B"], "pick": {"weight": 0.5}}


def test_references_inside_text_become_text():
    results = {1: 3, 2: {"why": "race"}, 3: Analysis(loops=[1], hot={})}
    args = {"prompt": "step $1 said $2, then $2.why; see $3.", "cost": "$ 5"}
    assert substitute(args, results) == {
        "prompt": 'step 3 said {"why": "race"}, then race; see {"loops":[1],"hot":{}}.',
        "cost": "$ 5",
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"x": "$9"}, "step 9 has no result"),
        ({"x": "$1.missing"}, "$1 has no key 'missing'"),
        ({"x": "$2.loops.size"}, "$2.loops (list) has no field 'size'"),
        ({"x": "use $1.missing"}, "$1 has no key 'missing'"),
    ],
)
def test_a_reference_to_nothing_raises(args, message):
    results = {1: {"a": 1}, 2: Analysis(loops=[], hot={})}
    with pytest.raises(ReferenceMissing, match=re.escape(message)):
        substitute(args, results)
