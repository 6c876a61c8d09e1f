"""The translate agent's prompts: what the model is shown, and which part is shared."""

from __future__ import annotations

from agents.analysis import analyse
from agents.prompts.translate import loop_facts, rewrite_messages
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
