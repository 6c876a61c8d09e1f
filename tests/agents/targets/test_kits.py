"""The target kits: every parallel target has one, and what each names exists where it is
used (tools in the registry, default plans only calling offered tools, prompts built from the
kit's fragments)."""

from __future__ import annotations

import pytest

from agents.analysis import analyse
from agents.graphs.translate.plans import default_plan
from agents.prompts.program import build_messages
from agents.targets import KITS, kit
from agents.tools import COMMON_FIRST, COMMON_LAST, registry, tools_by_name
from agents.trajectory import verify_arguments
from sandbox.spec import Language, Spec, Target, TestCase

PARALLEL = [t for t in Target if t is not Target.SERIAL]


def test_every_parallel_target_has_a_kit_and_serial_none() -> None:
    assert sorted(KITS) == sorted(PARALLEL)
    assert all(kit(t).target is t for t in PARALLEL)
    with pytest.raises(ValueError, match="no kit"):
        kit(Target.SERIAL)


def test_the_registry_finds_every_tool_file_by_name() -> None:
    assert sorted(tools_by_name()) == [
        "analyse",
        "annotate",
        "distribute",
        "examples",
        "offload",
        "profile",
        "rewrite",
        "tests",
        "verify",
    ]


@pytest.mark.parametrize("target", PARALLEL)
def test_a_targets_registry_is_the_common_tools_and_its_own(target: Target) -> None:
    names = list(registry(target).tools)
    assert names == [*COMMON_FIRST, *kit(target).tools, *COMMON_LAST]
    assert ("annotate" in names) == (target is Target.OPENMP)
    assert ("distribute" in names) == (target is Target.MPI)
    assert ("offload" in names) == (target is Target.CUDA)


@pytest.mark.parametrize("target", PARALLEL)
def test_without_a_model_a_mechanical_target_still_makes_a_candidate(target: Target) -> None:
    """OpenMP's `annotate`, MPI's `distribute` and CUDA's `offload` write code from the
    analysis's facts alone."""
    source = "void f(int n, double *a) { for (int i = 0; i < n; i++) a[i] = 2 * i; }\n"
    source += "int main(void) { double a[100]; f(100, a); return 0; }"
    program = analyse(source, Language.C)
    assert kit(target).mechanical(source, program)
    steps = default_plan(target, annotatable=True, extra_tests=0, use_model=False)
    makers = [s for s in steps if s.tool in kit(target).tools]
    assert len(makers) == 1 and makers[0].args["mode"] == "analysis"
    unproven = "void f(int n, double *a) { for (int i = 1; i < n; i++) a[i] += a[i - 1] * a[i]; }"
    assert not kit(target).mechanical(unproven, analyse(unproven, Language.C))


@pytest.mark.parametrize("target", PARALLEL)
@pytest.mark.parametrize("annotatable", [True, False])
@pytest.mark.parametrize("use_model", [True, False])
def test_a_default_plan_calls_only_offered_tools(
    target: Target, annotatable: bool, use_model: bool
) -> None:
    offered = registry(target).tools
    steps = default_plan(target, annotatable=annotatable, extra_tests=2, use_model=use_model)
    assert {step.tool for step in steps} <= set(offered)
    rewrites = [s.args["strategy"] for s in steps if s.tool == "rewrite"]
    assert all(not s or s in kit(target).strategies for s in rewrites)
    assert (not use_model) == (not rewrites)


@pytest.mark.parametrize("target", PARALLEL)
def test_the_prompt_is_built_from_the_kits_fragments(target: Target) -> None:
    target_kit = kit(target)
    (_, user) = build_messages(
        "int main(void) { return 0; }", Language.C, target, [TestCase(name="t", args=["3"])]
    )
    for fragment in (*target_kit.rules, target_kit.checks, target_kit.build_line(Language.C)):
        assert fragment in user.content
    assert f"```{'cuda' if target is Target.CUDA else 'c'} code block" in user.content
    counted = f" at 1, 2 and 4 {target_kit.unit}s" if target_kit.unit else ""
    assert f"on every test{counted}, pass" in user.content


@pytest.mark.parametrize("target", PARALLEL)
def test_a_verify_step_records_the_counts_of_the_targets_unit(target: Target) -> None:
    spec = Spec(
        reference="int main(void) { return 0; }",
        tests=[TestCase(name="t")],
        threads=[1, 2],
        ranks=[1, 3],
    )
    arguments = verify_arguments(7, spec, target, "fenced")
    counted = {Target.OPENMP: ("threads", [1, 2]), Target.MPI: ("ranks", [1, 3])}.get(target)
    assert {k: v for k, v in arguments.items() if k in ("threads", "ranks")} == (
        dict([counted]) if counted else {}
    )


def test_mpi_has_no_code_parameters() -> None:
    program = "void f(int n, double *a) {\n    for (int i = 1; i < n; i++) a[i] = a[i - 1];\n}\n"
    assert kit(Target.MPI).mutations(program, Language.C) == []


@pytest.mark.parametrize("target", [Target.MPI, Target.CUDA])
def test_the_seeded_strategy_starts_from_the_targets_own_tool(target: Target) -> None:
    """MPI's and CUDA's catalogues name their tool in a strategy; a rewrite or reasoning thread
    that follows it is shown the tool's program to start from (and the prompt says so)."""
    from agents.prompts.translate import rewrite_messages

    target_kit = kit(target)
    assert target_kit.seeded in target_kit.strategies
    assert f"`{target_kit.tools[0]}` tool" in (target_kit.seeded or "")
    source = "void f(int n, double *a) { for (int i = 0; i < n; i++) a[i] = 2 * i; }\n"
    source += "int main(void) { double a[1000]; f(1000, a); return 0; }"
    seed = target_kit.seed(source, analyse(source, Language.C))
    assert seed is not None and ("MPI_" in seed if target is Target.MPI else "__global__" in seed)
    unproven = "int main(void) { int a[99]; for (int i = 1; i < 99; i++) a[i] = 3 * a[i - 1] % 7; }"
    assert target_kit.seed(unproven, analyse(unproven, Language.C)) is None
    messages = rewrite_messages(
        source,
        Language.C,
        target,
        [],
        threads=[1, 2],
        ranks=[1, 2],
        tolerance=None,
        strategy=target_kit.seeded or "",
        start=seed,
    )
    asked = messages[-1].content or ""
    assert seed in asked and "start from it" in asked
    assert kit(Target.OPENMP).seeded is None


def test_a_drivers_kernel_is_the_cuda_seed_of_a_function_task() -> None:
    source = (
        "void twice(std::vector<double> &x) {\n"
        "  for (int i = 0; i < x.size(); ++i) x[i] = 2 * x[i];\n}\n"
    )
    signature = "__global__ void twice(double *x, size_t N)"
    seed = kit(Target.CUDA).seed(source, analyse(source, Language.CPP), signature)
    assert seed is not None and signature in seed
    assert kit(Target.CUDA).mechanical(source, analyse(source, Language.CPP), signature)
