"""The translate agent's prompts: what the model is shown, and which part is shared."""

from __future__ import annotations

from agents.analysis import analyse
from agents.prompts.translate import loop_facts, rewrite_messages
from agents.tools import strategy_of
from sandbox.spec import Language, Target, TestCase

SOURCE = """#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]), total = 0;
    for (long i = 0; i < n; i++) total += i % 7;
    long p[64]; p[0] = 1;
    for (int i = 1; i < 64; i++) p[i] = p[i - 1] * 3 + 1;
    printf("%ld %ld\\n", total, p[63]);
    return 0;
}
"""


def rewrite(strategy: str, analysis: str) -> str:
    messages = rewrite_messages(
        SOURCE,
        Language.C,
        Target.OPENMP,
        [TestCase(name="t", args=["100"])],
        threads=[1, 2, 4],
        ranks=[],
        tolerance=None,
        strategy=strategy,
        analysis=analysis,
    )
    return messages[-1].content or ""


def test_a_rewrite_shows_the_analysis_before_the_strategy_so_strategies_share_a_prefix() -> None:
    facts = loop_facts(analyse(SOURCE, Language.C).loops)
    assert "reduction(+:total)" in facts and "carried (p[i - 1]" in facts  # and why not the other
    a, b = rewrite("tasks", facts), rewrite("collapse(2)", facts)
    shared = a.split("Strategy to follow:")[0]
    assert facts in shared and b.startswith(shared)
    assert "dependence analysis" not in rewrite("tasks", "")


FUNCTION = "double sum(const double *x, int n) {\n    double s = 0;\n"
FUNCTION += "    for (int i = 0; i < n; i++) s += x[i];\n    return s;\n}\n"


def driver_prompt(target: Target, signature: str | None = None, **kw: object) -> str:
    messages = rewrite_messages(
        FUNCTION,
        Language.CPP,
        target,
        [TestCase(name="t", args=["100"])],
        threads=[1, 2],
        ranks=[1, 2],
        tolerance=None,
        strategy="s",
        function_only=True,
        signature=signature,
        **kw,  # type: ignore[arg-type]
    )
    return messages[-1].content or ""


def test_a_task_with_a_driver_is_never_asked_for_a_main_or_a_program() -> None:
    """A driver's task once told the model both "one complete file with its `main`" and
    "no main()"; each target's rules are those of the driver's contract."""
    for target in (Target.OPENMP, Target.MPI, Target.CUDA):
        text = driver_prompt(target, "__global__ void sum(...)" if target is Target.CUDA else None)
        assert "with its `main`" not in text and "no `main`" in text, target
        assert "./program" not in text and "standard output" not in text, target
        assert "complete program" not in text, target
    mpi = driver_prompt(Target.MPI)
    assert "already called MPI_Init" in mpi and "rank 0" in mpi
    assert "call MPI_Init and MPI_Finalize" not in mpi
    assert "`__global__ void sum(...)`" in driver_prompt(Target.CUDA, "__global__ void sum(...)")
    repair = driver_prompt(Target.OPENMP, previous="double sum() {}", evidence="wrong")
    assert "a corrected version (the complete definitions)" in repair
    faster = driver_prompt(Target.OPENMP, previous="double sum() {}", evidence="1.1x", improve=True)
    assert "a faster version (the complete definitions)" in faster


def test_a_strategy_label_is_told_to_the_model_in_words() -> None:
    """Evolution's model children of annotated parents were asked to follow
    `+,independent]:L1/static`: the label split at its first colon."""
    told = strategy_of("annotate[reduction:+,independent]:L1/static,L3/dynamic+simd")
    assert told.startswith("keep OpenMP directives on loops L1/static, L3/dynamic+simd")
    assert "reduction:+, independent" in told and "]:" not in told
    assert "an MPI decomposition on loops L2/block" in strategy_of("distribute[map]:L2/block")
    assert strategy_of("rewrite:tasks per row") == "tasks per row"
    assert strategy_of("repair:rewrite:collapse(2)") == "collapse(2)"
    assert strategy_of("evolve:keep the sums: in order") == "keep the sums: in order"
