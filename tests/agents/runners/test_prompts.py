"""The prompt-mode messages and the stored summaries (pure functions)."""

from __future__ import annotations

from datetime import UTC, datetime

from agents.judge import task_spec
from agents.llm import CallRecord, Choice, Message, Sampling, Usage
from agents.prompts.program import SYSTEM, build_messages
from agents.runners.config import PromptModeConfig
from agents.trajectory import Identity, Tally, llm_steps, verdict_summary
from corpus.store.models import Budgets, StepKind, TaskDetail, TaskOptions, TestInput
from sandbox.spec import Language, Spec, Target, TestCase, Tolerance
from sandbox.verdict import BuildReport, Status, Timing, Verdict

SOURCE = '#include <stdio.h>\nint main(int argc, char **argv) { printf("%d\\n", argc); }\n'


def user_text(messages: list[Message]) -> str:
    assert [m.role for m in messages] == ["system", "user"]
    assert messages[0].content == SYSTEM
    assert messages[1].content is not None
    return messages[1].content


def test_openmp_prompt_holds_source_contract_tests_and_fence():
    tests = [TestCase(name="a", args=["32", "10"]), TestCase(name="b", stdin="3\n1 2 3\n")]
    text = user_text(build_messages(SOURCE, Language.C, Target.OPENMP, tests, threads=[1, 2, 4]))
    assert SOURCE.rstrip() in text and "```c\n#include" in text
    assert "parallel OpenMP program" in text and "OMP_NUM_THREADS" in text
    assert "reduction" in text and "num_threads" in text
    assert "same command-line arguments and standard input" in text
    assert "gcc -O2 -fopenmp" in text and "at 1, 2 and 4 threads" in text
    assert "`./program 32 10`" in text and "standard input '3\\n1 2 3\\n'" in text
    assert "compared exactly" in text
    assert text.endswith("in a single ```c code block.")


def test_mpi_prompt_says_rank_zero_prints_and_how_stdin_arrives():
    text = user_text(
        build_messages(
            SOURCE, Language.CPP, Target.MPI, [], ranks=[1, 3], tolerance=Tolerance(rtol=1e-9)
        )
    )
    assert "Only rank 0 writes to standard output" in text
    assert "any number of ranks" in text and "standard input reaches rank 0 only" in text
    assert "mpicxx -O2" in text and "at 1 and 3 ranks" in text
    assert "relative tolerance of 1e-09" in text
    assert "The tests run it as" not in text  # no tests given: none shown
    assert text.endswith("```cpp code block.")


def test_cuda_prompt_asks_for_a_cu_file():
    text = user_text(build_messages(SOURCE, Language.C, Target.CUDA, []))
    assert "__global__" in text and "nvcc -O2" in text
    assert "```c\n#include" in text  # the original, in its own language
    assert text.endswith("```cuda code block.")


def _task(tests: list[TestInput] | None) -> TaskDetail:
    now = datetime.now(UTC)
    return TaskDetail(
        id="0" * 32,
        name="prog",
        language="c",
        target="mpi",
        status="running",
        reason="",
        created_at=now,
        started_at=now,
        finished_at=None,
        attempts=1,
        cancel_requested=False,
        budgets=Budgets(samples=2),
        agent="prompt",
        best_candidate_id=None,
        best_speedup=None,
        source=SOURCE,
        tests=tests,
    )


def test_spec_from_task_uses_its_tests_or_one_default_run():
    config = PromptModeConfig(ranks=[1, 2], timeout_s=5, timing_repeats=2)
    spec = task_spec(_task([TestInput(name="t1", args=["7"], stdin="x")]), config)
    assert spec.reference == SOURCE and spec.language is Language.C
    assert [(t.name, t.args, t.stdin) for t in spec.tests] == [("t1", ["7"], "x")]
    assert spec.ranks == [1, 2] and spec.timeout_s == 5 and spec.timing_repeats == 2
    default = task_spec(_task(None), config)
    assert [(t.name, t.args, t.stdin) for t in default.tests] == [("default", [], "")]


def _record(texts: list[str]) -> CallRecord:
    return CallRecord(
        id="call-1",
        kind="chat",
        model="m",
        response_model="m",
        messages=[Message(role="user", content="hi")],
        sampling=Sampling(n=max(1, len(texts)), max_tokens=64, temperature=0.7),
        choices=[Choice(index=i, text=t, finish_reason="stop") for i, t in enumerate(texts)],
        usage=Usage(prompt_tokens=20, completion_tokens=30, cached_tokens=16),
        started_at=datetime.now(UTC),
        ttft_s=0.1,
        latency_s=0.5,
    )


def test_one_step_per_choice_with_the_call_usage_on_the_first():
    steps = llm_steps(_record(["a", "b", "c"]), Identity("base", "lora"))
    assert [s.kind for s in steps] == [StepKind.LLM_CALL] * 3
    assert [s.response for s in steps] == [
        {"role": "assistant", "content": t} for t in ("a", "b", "c")
    ]
    assert all(s.messages == [{"role": "user", "content": "hi"}] for s in steps)
    assert [s.completion_tokens for s in steps] == [30, None, None]
    assert [s.cached_tokens for s in steps] == [16, None, None]
    assert all(s.latency_s == 0.5 and s.ttft_s == 0.1 for s in steps)
    assert steps[1].sampling == {
        "max_tokens": 64,
        "temperature": 0.7,
        "n": 3,
        "call_id": "call-1",
        "choice": 1,
        "finish_reason": "stop",
    }
    assert (steps[0].model, steps[0].adapter) == ("base", "lora")


def test_a_failed_call_is_one_step_with_its_error_and_no_response():
    record = _record([]).model_copy(update={"status": "error", "error": "LLMTimeout: slow"})
    [step] = llm_steps(record, Identity("m"))
    assert step.response is None and step.error == "LLMTimeout: slow"


def _verdict(status: Status, speedup: dict[int, float] | None = None, reason: str = "") -> Verdict:
    timing = Timing(reference_s=1.0, speedup=speedup) if speedup else None
    return Verdict(target=Target.OPENMP, status=status, reason=reason, timing=timing)


def test_tally_names_the_best_and_counts_failures():
    tally = Tally()
    tally.add(1, _verdict(Status.PASSED, {1: 0.9, 2: 1.8, 4: 1.7}))
    tally.add(2, _verdict(Status.WRONG_ANSWER))
    tally.add(3, _verdict(Status.PASSED, {1: 1.0, 2: 1.2}))
    assert tally.best() == 1
    assert tally.reason(4) == "2 of 4 candidates passed; best 1.80x at 2 threads"
    failing = Tally()
    for i, status in enumerate([Status.BUILD_FAILED, Status.WRONG_ANSWER, Status.BUILD_FAILED]):
        failing.add(i, _verdict(status))
    assert failing.best() is None
    assert failing.reason(3) == "0 of 3 candidates passed (2 build_failed, 1 wrong_answer)"
    flagged = Tally()  # 4 threads on 2 cores at 3.5x is flagged: the reason says 2 threads too
    implausible = _verdict(Status.PASSED, {2: 1.4, 4: 3.5})
    assert implausible.timing is not None
    implausible.timing.above_cores = [4]
    flagged.add(1, implausible)
    assert flagged.reason(1) == "1 of 1 candidate passed; best 1.40x at 2 threads"
    no_gpu = Tally()
    no_gpu.add(1, _verdict(Status.NOT_RUN, reason="not run: no GPU"))
    assert no_gpu.reason(1) == "0 of 1 candidate passed (1 not_run; not run: no GPU)"


def test_a_candidate_that_built_but_could_not_run_is_the_unjudged_best():
    """CUDA without a GPU: the task ends `not_run` with the candidate that built as its best,
    never one whose build failed, and never when another candidate passed."""
    from sandbox.verdict import BuildReport

    built = _verdict(Status.NOT_RUN, reason="not run: no GPU")
    built.build = BuildReport(ok=True)
    broken = _verdict(Status.NOT_RUN, reason="not run: no GPU")
    broken.build = BuildReport(ok=False)
    tally = Tally()
    tally.add(1, broken)
    assert tally.unjudged() is None
    tally.add(2, built)
    assert tally.best() is None and tally.unjudged() == 2
    tally.add(3, _verdict(Status.PASSED, {1: 1.0}))
    assert tally.best() == 3


def test_verdict_summary_is_compact():
    v = _verdict(Status.PASSED, {1: 1.0, 2: 1.91234})
    v.build = BuildReport(ok=True)
    summary = verdict_summary(v)
    assert summary == {
        "status": "passed",
        "reason": "",
        "build_ok": True,
        "diagnostics": 0,
        "speedup": {"1": 1.0, "2": 1.912},
        "duration_s": 0.0,
    }


def test_task_options_give_the_tolerance_or_the_whole_spec():
    config = PromptModeConfig()
    task = _task([TestInput(name="t1", args=["7"])])
    exact = task_spec(task, config)
    assert exact.tolerance is None
    loose = task_spec(task.model_copy(update={"options": TaskOptions(rtol=1e-9)}), config)
    assert loose.tolerance is not None and loose.tolerance.rtol == 1e-9
    given = Spec(
        name="problem",
        reference="int main(void) { return 0; }",
        driver='#include "solution.inc"\nint main(void) { return 0; }',
        tests=[TestCase(name="seed1")],
    )
    spec = task_spec(
        task.model_copy(update={"options": TaskOptions(spec=given.model_dump())}), config
    )
    assert spec == given  # the source is then the function the driver includes
