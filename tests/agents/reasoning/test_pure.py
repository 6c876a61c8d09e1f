"""The pure parts of reasoning threads: outlines, code fingerprints, confidence, savings."""

from __future__ import annotations

import json

import pytest

from agents.analysis.parse import syntax_tree
from agents.llm import TokenLogprob
from agents.reasoning import (
    Outline,
    OutlineError,
    WindowConfidence,
    behaviour_key,
    code_part,
    complete,
    converged,
    estimate_saved,
    looping,
    merge,
    outline_schema,
    parse_outlines,
    probe_spec,
    reasoning_summary,
    shape,
    structure,
    token_confidence,
)
from agents.reasoning.confidence import below_group
from agents.reasoning.fingerprint import independent_runs
from agents.targets import kit
from sandbox.spec import Language, Spec, Target, TestCase
from sandbox.verdict import BuildReport, Status, StepRecord, Verdict
from tests.fakes.paths import GRAPH_PROGRAMS
from tests.fakes.programs import SUM, SUM_ATOMIC, SUM_RENAMED

OMP = list(kit(Target.OPENMP).strategies)


def test_the_outline_schema_offers_only_the_catalogue():
    schema = outline_schema(Target.OPENMP, 3)
    outlines = schema["properties"]["outlines"]
    assert outlines["maxItems"] == 3
    assert outlines["items"]["properties"]["strategy"]["enum"] == OMP


def test_outlines_parse_and_bad_replies_are_refused():
    reply = json.dumps({"outlines": [{"strategy": OMP[0], "detail": "outer loop"}]})
    assert parse_outlines(reply, Target.OPENMP) == [Outline(strategy=OMP[0], detail="outer loop")]
    for bad in ("not json", "[]", '{"outlines": []}', '{"outlines": [{"strategy": "magic"}]}'):
        with pytest.raises(OutlineError):
            parse_outlines(bad, Target.OPENMP)


def test_outlines_that_say_the_same_thing_are_merged():
    outlines = [
        Outline(strategy=OMP[0], detail="parallel for over i with a reduction on sum"),
        Outline(strategy=OMP[1], detail="two passes"),
        Outline(strategy=OMP[0], detail="a reduction on sum with parallel for over i"),
        Outline(strategy=OMP[0], detail="collapse the j and k nest, dynamic schedule"),
        Outline(strategy=OMP[1], detail=""),
    ]
    kept, merged = merge(outlines)
    assert kept == [outlines[0], outlines[1], outlines[3]]
    assert merged == {2: 0, 4: 1}


def test_the_catalogue_fills_places_the_merge_freed_with_new_strategies():
    filled = complete([Outline(strategy=OMP[2])], Target.OPENMP, 4)
    assert [o.strategy for o in filled] == [OMP[2], OMP[0], OMP[1], OMP[3]]
    assert [o.origin for o in filled] == ["model", "catalogue", "catalogue", "catalogue"]
    assert len(complete([], Target.OPENMP, 99)) == len(OMP)  # never more than the catalogue


def test_code_part_reads_an_open_fence_a_closed_one_or_bare_code():
    assert code_part("Here:\n```c\nint x;\n") == "int x;\n"
    assert code_part("```cpp\nint x;\n```\nThat is all.") == "int x;\n"
    assert code_part("```c") == ""
    assert code_part("int main(void) {") == "int main(void) {"


def test_shape_ignores_names_numbers_layout_comments_and_clause_order():
    assert shape(SUM, Language.C) == shape(SUM_RENAMED, Language.C)
    assert shape(SUM, Language.C) != shape(SUM_ATOMIC, Language.C)
    tokens = shape(SUM, Language.C)
    assert "printf" in tokens and "total" not in tokens  # calls kept, variables renamed
    assert "#pragma omp parallel for reduction(+:v1) schedule(static)" in tokens


ORDERED = """double norm(const double *x, int n) {
  %s
  %s
  #pragma omp parallel for reduction(+:sum) reduction(max:top)
  for (int i = 0; i < n; i++) { sum += x[i] * x[i]; top = x[i] > top ? x[i] : top; }
  return sum / top;
}
"""


def test_independent_declarations_in_either_order_are_one_shape():
    first, second = "double sum = 0.0;", "double top = 0.0;"
    assert shape(ORDERED % (first, second), Language.C) == shape(
        ORDERED % (second, first), Language.C
    )
    block = syntax_tree(ORDERED % (first, second), Language.C).root_node
    body = block.children[0].child_by_field_name("body")
    assert [len(run) for run in independent_runs(body)] == [2]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("double sum = 0.0;", "double top = sum;"),  # the second reads the first
        ("double sum = omp_get_wtime();", "double top = 0.0;"),  # a call: order may matter
    ],
)
def test_declarations_that_depend_or_call_are_not_a_run(first: str, second: str) -> None:
    body = syntax_tree(ORDERED % (first, second), Language.C).root_node.children[0]
    assert independent_runs(body.child_by_field_name("body")) == []


def test_convergence_needs_enough_code_and_close_agreement():
    a, b = shape(SUM, Language.C), shape(SUM_RENAMED, Language.C)
    atomic = shape(SUM_ATOMIC, Language.C)
    assert converged(a, b, min_tokens=20, threshold=0.9)
    assert converged(a[:30], b, min_tokens=20, threshold=0.9)  # one is still writing
    assert not converged(a[:10], b, min_tokens=20, threshold=0.9)  # too little written
    assert not converged(a, atomic, min_tokens=20, threshold=0.95)
    cut = SUM[: SUM.index("for (")]  # cut mid-program: still a shape
    assert shape(cut, Language.C) == a[: len(shape(cut, Language.C))]


def test_structure_is_the_parallel_skeleton():
    assert structure(SUM, Language.C) == structure(SUM_RENAMED, Language.C)
    assert structure(SUM, Language.C) != structure(SUM_ATOMIC, Language.C)


def test_confidence_is_high_when_the_alternatives_were_improbable():
    sure = TokenLogprob(token="a", logprob=-0.01, top={"a": -0.01, "b": -8.0})
    unsure = TokenLogprob(token="a", logprob=-0.7, top={"a": -0.7, "b": -0.7})
    assert token_confidence(sure) > token_confidence(unsure)
    assert token_confidence(TokenLogprob(token="a", logprob=-0.1)) is None
    window = WindowConfidence(2)
    window.add([sure])
    assert not window.ready
    window.add([unsure, unsure])  # the window slides: only the last two count
    assert window.ready and window.value == pytest.approx(0.7)
    assert below_group(0.7, [4.0, 4.0, 3.0], keep=0.8)
    assert not below_group(3.9, [4.0, 4.0, 3.0], keep=0.8)
    assert not below_group(0.1, [], keep=0.8)


def test_tokens_saved_estimates_from_the_finished_threads():
    rows = [("finished", 100, 500), ("finished", 300, 500), ("pruned", 50, 500), ("failed", 9, 500)]
    assert estimate_saved(rows) == 150  # mean 200 of the longer finished ones, less the 50
    assert estimate_saved([("pruned", 50, 500)]) == 450  # no finished thread: its limit
    # Pruned at 200, it was already longer than one finished thread: only the longer one
    # tells where it would have ended.
    rows = [("finished", 100, 500), ("finished", 300, 500), ("pruned", 200, 500)]
    assert estimate_saved(rows) == 100
    # Longer than every finished thread (the e2e case: short finishers, long repeaters):
    # still unfinished, so it would have run on, to its limit.
    rows = [("finished", 80, 320), ("finished", 120, 320), ("pruned", 250, 320)]
    assert estimate_saved(rows) == 70
    summary = reasoning_summary(
        [
            ({"status": "finished", "outline": {"strategy": OMP[0]}}, 100, {"max_tokens": 500}),
            ({"status": "pruned", "reason": "converged"}, 40, {"max_tokens": 500}),
        ]
    )
    assert summary is not None
    assert (summary["threads"], summary["pruned"], summary["tokens_generated"]) == (2, 1, 140)
    assert summary["tokens_saved"] == 60
    assert summary["per_thread"][0]["strategy"] == OMP[0]
    assert reasoning_summary([]) is None
    # The pruned thread ran again (nothing passed): its second run costs what pruning saved.
    again = reasoning_summary(
        [
            ({"status": "finished"}, 100, {"max_tokens": 500}),
            ({"status": "pruned", "reason": "converged"}, 40, {"max_tokens": 500}),
            ({"status": "finished", "revived": True}, 100, {"max_tokens": 500}),
        ]
    )
    assert again is not None
    assert (again["revived"], again["tokens_generated"], again["tokens_saved"]) == (1, 240, -40)


def test_the_probe_spec_keeps_the_smallest_inputs_and_two_workers():
    spec = Spec(
        reference="int main(){}",
        tests=[TestCase(name=f"t{i}", args=[str(10**i)]) for i in range(5)],
        timing=TestCase(name="big", args=["100000000"]),
    )
    probe = probe_spec(spec)
    assert [t.name for t in probe.tests] == ["t0", "t1", "t2"]
    assert (probe.timing, probe.threads, probe.ranks) == (None, [2], [2])


def _probe(status: Status, out: str, built: bool = True) -> Verdict:
    return Verdict(
        target=Target.OPENMP,
        status=status,
        build=BuildReport(ok=built),
        steps=[
            StepRecord(name="build candidate", command="cc", exit_code=0, duration_s=1, stdout="x"),
            StepRecord(
                name="run candidate [t0] 2 threads",
                command="./a",
                exit_code=0,
                duration_s=0.1,
                stdout=out,
            ),
        ],
    )


def test_the_behaviour_key_does_not_depend_on_the_order_the_runs_ended_in():
    first, second = _probe(Status.PASSED, "1\n"), _probe(Status.PASSED, "1\n")
    other = second.steps[1].model_copy(update={"name": "run candidate [t1] 2 threads"})
    first.steps = [*first.steps, other]
    second.steps = [second.steps[0], other, second.steps[1]]  # the sandbox runs them at once
    assert behaviour_key(first, "omp for") == behaviour_key(second, "omp for")
    second.steps[1] = other.model_copy(update={"stdout": "2\n"})
    assert behaviour_key(first, "omp for") != behaviour_key(second, "omp for")


def test_the_behaviour_key_is_outputs_and_structure():
    same = behaviour_key(_probe(Status.PASSED, "42\n"), "omp for")
    assert same == behaviour_key(_probe(Status.PASSED, "42"), "omp for")  # trailing space
    assert same != behaviour_key(_probe(Status.PASSED, "43\n"), "omp for")
    assert same != behaviour_key(_probe(Status.PASSED, "42\n"), "omp for\nomp atomic")
    assert same != behaviour_key(_probe(Status.WRONG_ANSWER, "42\n"), "omp for")


def test_a_different_directive_is_a_different_program_however_alike_the_rest():
    a, atomic = shape(SUM, Language.C), shape(SUM_ATOMIC, Language.C)
    assert not converged(a, atomic, min_tokens=20, threshold=0.5)
    serial = shape(
        SUM.replace("#pragma omp parallel for reduction(+:total) schedule(static)", ""), Language.C
    )
    # Boilerplate alone, before any parallel construct, is no convergence.
    assert not converged(serial, serial, min_tokens=20, threshold=0.9)


def test_a_thread_repeating_one_pattern_is_looping_and_real_code_is_not():
    includes = "#include <stdio.h>\n" + "#include <fstream>\n" * 40
    defines = "".join(
        f"#define MAX_ITERATIONS{'_PERFORMANCE' if i % 3 == 1 else ''} {10 * (1 + i % 2)}\n"
        for i in range(40)
    )
    assert looping(shape(includes, Language.CPP))
    assert looping(shape(defines, Language.C))
    program = SUM + SUM_ATOMIC.replace("main", "other") + SUM_RENAMED.replace("main", "third")
    assert not looping(shape(program, Language.C))
    assert not looping(shape(includes, Language.CPP)[:30])  # too little written to say


def test_no_real_program_counts_as_looping():
    """ParEval's translation sources and the project's example programs: none is pruned as
    repeating itself (the rule is for degenerate output, not for regular code)."""
    from pathlib import Path

    from corpus.suites import load_suite

    root = Path(__file__).parents[3]
    sources = [t.source for t in load_suite("pareval").translations]
    sources += [p.read_text() for p in root.glob("examples/**/*.c")]
    sources += [p.read_text() for p in GRAPH_PROGRAMS.glob("*.c")]
    assert len(sources) > 100
    assert not [s[:80] for s in sources if looping(shape(s, Language.CPP))]
